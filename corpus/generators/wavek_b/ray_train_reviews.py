"""Ray Train (``TorchTrainer``, gloo on CPU) sentiment model over product reviews, optionally with DeepSpeed.

``python ray_train_reviews.py --data data/reviews.jsonl --workers 2``: each Ray Train worker reads the JSONL
review file through a ``DataLoader`` with ``--loader-workers`` worker processes (parsing, star rating -> label,
word-hash tokenisation happen in ``__getitem__``), trains a small CNN text classifier (``prepare_model`` wraps it in
DDP, or ``deepspeed.initialize`` with ``--deepspeed ds_config.json``), prints a step line every ``--log-every`` steps,
and reports loss and accuracy with a checkpoint to Ray Train at the end of every epoch.

``--make-data N`` writes the review file first (``--bad-rating-at I`` writes one record the way the older
export did: the rating as a string like "4/5").
"""
from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time

import ray
import ray.train
import ray.train.torch
import torch
from ray.train import RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

POS = "great love excellent perfect sturdy comfortable fast recommend works beautiful".split()
NEG = "broke refund terrible cheap flimsy late disappointed useless returned leaking".split()
NEU = "the it this was and but for with after my product item arrived box week".split()
VOCAB, LEN = 16384, 48


def make_data(path: str, n: int, bad_at: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        for i in range(n):
            stars = rng.choice([1, 2, 3, 4, 5])
            words = rng.sample(POS if stars >= 4 else NEG if stars <= 2 else POS[:3] + NEG[:3], 3)
            words += rng.sample(NEU, 8)
            rng.shuffle(words)
            rec = {"review_id": f"R{i:07d}", "stars": stars, "body": " ".join(words)}
            if i == bad_at:
                rec["stars"] = f"{stars}/5"
            f.write(json.dumps(rec) + "\n")


def tokenize(text: str) -> list[int]:
    ids = []
    for w in text.lower().split()[:LEN]:
        h = 2166136261
        for ch in w.encode():
            h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
        ids.append(h % (VOCAB - 2) + 2)
    return ids + [0] * (LEN - len(ids))


class Reviews(Dataset):
    def __init__(self, path: str) -> None:
        with open(path) as f:
            self.lines = f.readlines()

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i: int):
        rec = json.loads(self.lines[i])
        stars = int(rec["stars"])
        label = 2 if stars >= 4 else 0 if stars <= 2 else 1
        return torch.tensor(tokenize(rec["body"])), label


class TextCNN(nn.Module):
    def __init__(self, d: int = 96) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d, padding_idx=0)
        self.convs = nn.ModuleList(nn.Conv1d(d, 128, k, padding=k // 2) for k in (3, 4, 5))
        self.out = nn.Sequential(nn.Dropout(0.2), nn.Linear(3 * 128, 3))

    def forward(self, ids):
        h = self.emb(ids).transpose(1, 2)
        return self.out(torch.cat([c(h).relu().amax(-1) for c in self.convs], -1))


def train_loop(cfg: dict) -> None:
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    ds = Reviews(cfg["data"])
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    model = TextCNN()
    if cfg["deepspeed"]:
        import deepspeed
        with open(cfg["deepspeed"]) as f:
            ds_cfg = json.load(f)
        engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_cfg)
        micro = engine.train_micro_batch_size_per_gpu()
    else:
        engine = ray.train.torch.prepare_model(model)
        opt = torch.optim.AdamW(engine.parameters(), lr=cfg["lr"], weight_decay=0.01)
        micro = cfg["batch"]
    loader = DataLoader(ds, batch_size=micro, sampler=sampler, num_workers=cfg["loader_workers"], drop_last=True,
                        persistent_workers=cfg["loader_workers"] > 0)
    print(f"[worker {rank}/{world}] pid {os.getpid()} {len(ds)} reviews, {len(loader)} batches/epoch of {micro}, "
          f"{cfg['loader_workers']} loader workers, {'deepspeed' if cfg['deepspeed'] else 'DDP'}", flush=True)
    step, t0 = 0, time.time()
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        correct = seen = 0
        for ids, y in loader:
            logits = engine(ids)
            loss = nn.functional.cross_entropy(logits, y)
            if cfg["deepspeed"]:
                engine.backward(loss)
                engine.step()
            else:
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            correct += int((logits.argmax(-1) == y).sum())
            seen += len(y)
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"[worker {rank}] epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f} "
                      f"{(time.time() - t0) / step * 1000:.0f} ms/step", flush=True)
            if cfg["step_sleep"]:
                time.sleep(cfg["step_sleep"])
        with tempfile.TemporaryDirectory() as d:
            if rank == 0:
                torch.save(model.state_dict(), os.path.join(d, "model.pt"))
            ray.train.report({"epoch": epoch, "step": step, "loss": loss.item(), "train_acc": correct / seen},
                             checkpoint=ray.train.Checkpoint.from_directory(d) if rank == 0 else None)
        print(f"[worker {rank}] epoch {epoch} done: acc {correct / seen:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/reviews.jsonl")
    ap.add_argument("--make-data", type=int, default=0)
    ap.add_argument("--bad-rating-at", type=int, default=-1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--loader-workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--deepspeed", default="")
    ap.add_argument("--storage", default="/tmp/wavek-b-ray-results")
    a = ap.parse_args()
    if a.make_data:
        make_data(a.data, a.make_data, a.bad_rating_at)
        return
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"data": os.path.abspath(a.data), "loader_workers": a.loader_workers, "batch": a.batch,
                           "lr": a.lr, "epochs": a.epochs, "log_every": a.log_every, "step_sleep": a.step_sleep,
                           "deepspeed": os.path.abspath(a.deepspeed) if a.deepspeed else ""},
        torch_config=TorchConfig(backend="gloo"),
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False, resources_per_worker={"CPU": 0.5}),
        run_config=RunConfig(name="review-sentiment-cnn", storage_path=a.storage),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}")
    print(f"checkpoint: {result.checkpoint}")


if __name__ == "__main__":
    main()
