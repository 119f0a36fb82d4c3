"""Intent classifier trained with DDP under ``torch.multiprocessing.spawn`` (gloo on CPU).

``python spawn_train.py --data data/intents.jsonl --nprocs 3``: each spawned process reads its shard of a JSONL
file of utterances (``{"text": ..., "intent": ...}``), builds the vocabulary from its shard, agrees on a common
vocabulary with rank 0 (``--vocab-sync``: ``broadcast`` of the size then ids, or ``shape``: one broadcast of the
rank's own id table), trains a bag-of-embeddings classifier, evaluates every ``--eval-every`` steps on its eval
shard (sums reduced with ``all_reduce``; a rank with an empty eval shard skips the reduction when
``--skip-empty-eval``), and writes ``ckpt/step-N.pt`` from rank 0.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

INTENTS = ["book_flight", "cancel_order", "check_balance", "play_music", "set_alarm", "weather", "reset_password",
           "track_package"]
WORDS = {
    "book_flight": "flight book ticket fly to from tomorrow seat airline departing",
    "cancel_order": "cancel order refund purchase stop shipment return my item",
    "check_balance": "balance account how much money checking savings left statement",
    "play_music": "play song music album artist playlist shuffle some track",
    "set_alarm": "alarm wake me up at set morning timer remind clock",
    "weather": "weather rain forecast sunny cold today will it snow temperature",
    "reset_password": "password reset forgot login locked account cannot sign in",
    "track_package": "package track where is delivery parcel courier arrive status",
}
FILLER = "please can you i want to the a for me now could would like".split()


def make_data(path: str, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        for i in range(n):
            intent = rng.choice(INTENTS)
            words = rng.sample(WORDS[intent].split(), 4) + rng.sample(FILLER, 3)
            if rng.random() < 0.15:  # label noise / overlap
                words += rng.sample(WORDS[rng.choice(INTENTS)].split(), 2)
            rng.shuffle(words)
            f.write(json.dumps({"id": i, "text": " ".join(words), "intent": intent}) + "\n")


class Utterances(Dataset):
    def __init__(self, rows: list[dict], vocab: dict[str, int], max_len: int = 16) -> None:
        self.rows, self.vocab, self.max_len = rows, vocab, max_len

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int):
        r = self.rows[i]
        ids = [self.vocab.get(w, 1) for w in r["text"].split()][: self.max_len]
        ids += [0] * (self.max_len - len(ids))
        return torch.tensor(ids), INTENTS.index(r["intent"])


class BagClassifier(nn.Module):
    def __init__(self, vocab: int, d: int = 64) -> None:
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, d, mode="mean", padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(d, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, len(INTENTS)))

    def forward(self, ids):
        return self.mlp(self.emb(ids))


def sync_vocab(local: list[str], rank: int, mode: str) -> dict[str, int]:
    """Make every rank use rank 0's vocabulary (word ids hashed to ints so they fit a tensor)."""
    codes = torch.tensor([hash_word(w) for w in local], dtype=torch.int64)
    if mode == "broadcast":
        n = torch.tensor([len(codes)])
        dist.broadcast(n, 0)
        buf = codes if rank == 0 else torch.zeros(int(n), dtype=torch.int64)
        dist.broadcast(buf, 0)
    else:  # each rank passes its own table: the sizes agree only if the shards happen to have the same words
        buf = codes.clone()
        dist.broadcast(buf, 0)
    table = {c: w for w, c in ((w, hash_word(w)) for ws in WORDS.values() for w in ws.split())}
    table.update({hash_word(w): w for w in FILLER})
    words = [table[int(c)] for c in buf]
    return {w: i + 2 for i, w in enumerate(words)}


def hash_word(w: str) -> int:
    h = 1469598103934665603
    for ch in w.encode():
        h = ((h ^ ch) * 1099511628211) % (1 << 61)
    return h


def worker(rank: int, a: argparse.Namespace) -> None:
    dist.init_process_group("gloo", rank=rank, world_size=a.nprocs,
                            timeout=datetime.timedelta(seconds=a.timeout_s))
    torch.manual_seed(0)
    rows = [json.loads(l) for l in open(a.data)]
    n_eval = a.eval_rows
    train_rows, eval_rows = rows[n_eval:], rows[:n_eval]
    my_rows = train_rows[rank::a.nprocs]
    per = -(-len(eval_rows) // (a.nprocs * 64)) * 64  # whole eval batches per rank
    my_eval = eval_rows[rank * per:(rank + 1) * per]
    local_vocab = sorted({w for r in my_rows for w in r["text"].split()})
    vocab = sync_vocab(local_vocab, rank, a.vocab_sync)
    print(f"[rank {rank}] pid {os.getpid()} {len(my_rows)} train rows, {len(my_eval)} eval rows, vocab {len(vocab)} "
          f"(local {len(local_vocab)})", flush=True)
    ds = Utterances(train_rows, vocab)
    sampler = DistributedSampler(ds, num_replicas=a.nprocs, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.num_workers,
                        persistent_workers=a.num_workers > 0, drop_last=True)
    eval_loader = DataLoader(Utterances(my_eval, vocab), batch_size=64)
    model = DDP(BagClassifier(len(vocab) + 2))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    step, t0, epoch = 0, time.time(), 0
    os.makedirs("ckpt", exist_ok=True)
    while step < a.steps:
        sampler.set_epoch(epoch)
        for ids, y in loader:
            loss = nn.functional.cross_entropy(model(ids), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            if step % a.log_every == 0:
                print(f"[rank {rank}] epoch {epoch} step {step}/{a.steps} loss {loss.item():.4f} "
                      f"{(time.time() - t0) / step * 1000:.1f} ms/step", flush=True)
            if step % a.eval_every == 0:
                if a.mc_samples:
                    if rank == 0:  # uncertainty report on the full eval set, rank 0 only; the others wait
                        mc_eval(model, eval_rows, vocab, step, a)
                    dist.barrier()
                else:
                    evaluate(model, eval_loader, rank, step, a)
                if rank == 0:
                    torch.save({"model": model.module.state_dict(), "step": step, "vocab": vocab},
                               f"ckpt/step-{step}.pt")
                    print(f"[rank 0] saved ckpt/step-{step}.pt", flush=True)
            if step >= a.steps:
                break
        epoch += 1
    dist.barrier()
    print(f"[rank {rank}] done: {step} steps in {time.time() - t0:.1f} s", flush=True)
    dist.destroy_process_group()


def evaluate(model, loader, rank: int, step: int, a) -> None:
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for ids, y in loader:
            out = model.module(ids)
            loss_sum += float(nn.functional.cross_entropy(out, y, reduction="sum"))
            correct += int((out.argmax(-1) == y).sum())
            total += len(y)
    model.train()
    if total == 0 and a.skip_empty_eval:
        print(f"[rank {rank}] eval shard empty at step {step}, skipping", flush=True)
        return
    t = torch.tensor([loss_sum, correct, total], dtype=torch.float64)
    dist.all_reduce(t)
    if rank == 0:
        print(f"[rank 0] eval step {step}: loss {t[0] / t[2]:.4f} acc {t[1] / t[2]:.3f} ({int(t[2])} rows)", flush=True)


def mc_eval(model, rows, vocab, step: int, a) -> None:
    """Monte-Carlo dropout: ``--mc-samples`` stochastic passes per utterance, report accuracy and mean entropy."""
    t0 = time.time()
    net = model.module
    net.train()  # dropout on
    ds = Utterances(rows, vocab)
    correct, ent = 0, 0.0
    with torch.no_grad():
        for i in range(len(ds)):
            ids, y = ds[i]
            probs = torch.stack([net(ids[None]).softmax(-1)[0] for _ in range(a.mc_samples)]).mean(0)
            correct += int(probs.argmax() == y)
            ent += float(-(probs * probs.clamp_min(1e-9).log()).sum())
            if (i + 1) % 500 == 0:
                print(f"[rank 0] mc-eval step {step}: {i + 1}/{len(ds)} utterances, {time.time() - t0:.1f} s", flush=True)
    print(f"[rank 0] mc-eval step {step}: acc {correct / len(ds):.3f} mean entropy {ent / len(ds):.3f} "
          f"({len(ds)} rows x {a.mc_samples} samples, {time.time() - t0:.1f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/intents.jsonl")
    ap.add_argument("--make-data", type=int, default=0)
    ap.add_argument("--nprocs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eval-rows", type=int, default=600)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--timeout-s", type=int, default=1800)
    ap.add_argument("--vocab-sync", choices=("broadcast", "shape"), default="broadcast")
    ap.add_argument("--skip-empty-eval", action="store_true")
    ap.add_argument("--mc-samples", type=int, default=0)
    a = ap.parse_args()
    if a.make_data:
        make_data(a.data, a.make_data)
        return
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29700")
    print(f"spawning {a.nprocs} processes (MASTER_ADDR={os.environ['MASTER_ADDR']} "
          f"MASTER_PORT={os.environ['MASTER_PORT']})", flush=True)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all processes finished", flush=True)


if __name__ == "__main__":
    main()
