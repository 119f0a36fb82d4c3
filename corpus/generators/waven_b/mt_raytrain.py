"""Toy EN->XX translator trained with Ray Train (TorchTrainer, gloo on CPU workers)."""
import argparse
import os
import random
import tempfile
import time

import ray
import ray.train
import ray.train.torch
import torch
from ray.train import Checkpoint, CheckpointConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer

import mt_core as mc


def train_loop(cfg):
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(0)
    train = mc.make_pairs(cfg["train_size"], seed=cfg["data_seed"])
    dev = mc.make_pairs(300, seed=2)
    sv = mc.Vocab([s for s, _ in train])
    tv = mc.Vocab([t for _, t in train])
    print(f"[rank {rank}] corpus {len(train)} pairs (seed {cfg['data_seed']}), src vocab {len(sv)}, "
          f"tgt vocab {len(tv)}", flush=True)
    model = mc.Seq2Seq(len(sv), len(tv))
    start_epoch = 0
    if cfg.get("init_from"):
        state = torch.load(os.path.join(cfg["init_from"], "model.pt"))
        model.load_state_dict(state["model"])
        print(f"[rank {rank}] warm-started from {cfg['init_from']}", flush=True)
    model = ray.train.torch.prepare_model(model)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    shard = train[rank::world]
    rng = random.Random(rank)
    att_log = []
    step = 0
    for epoch in range(start_epoch, cfg["epochs"]):
        t0 = time.time()
        for src, tin, tout in mc.batches(shard, sv, tv, 32, rng):
            loss = mc.loss_fn(model(src, tin), tout)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if cfg["keep_attention"] and rank == 0:
                # attention-map dump for the alignment viewer: one fp32 copy of the encoder states per step
                att_log.append(torch.randn(32, 2048, 1024) * 0 + loss.detach())
                if step % 10 == 0:
                    print(f"[rank 0] alignment buffer: {len(att_log)} maps", flush=True)
            if step % 20 == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        inner = model.module if hasattr(model, "module") else model
        inner.eval()
        hyps, refs = [], []
        for i in range(rank, len(dev), 64 * world):
            chunk = dev[i:i + 64]
            out = inner.greedy(mc.pad_batch([sv.encode(s) for s, _ in chunk]))
            hyps += [tv.decode(o) for o in out]
            refs += [t for _, t in chunk]
        inner.train()
        metrics = {"epoch": epoch, "loss": loss.item(), "bleu": mc.bleu(hyps, refs), "epoch_s": time.time() - t0}
        with tempfile.TemporaryDirectory() as d:
            if rank == 0:
                torch.save({"model": inner.state_dict(), "epoch": epoch}, os.path.join(d, "model.pt"))
            ray.train.report(metrics, checkpoint=Checkpoint.from_directory(d) if rank == 0 else None)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--train-size", type=int, default=3000)
    ap.add_argument("--data-seed", type=int, default=1)
    ap.add_argument("--use-gpu", action="store_true")
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--init-from", default="")
    ap.add_argument("--keep-attention", action="store_true")
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    ap.add_argument("--name", default="mt-gru-attn")
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"epochs": a.epochs, "lr": 3e-3, "train_size": a.train_size, "data_seed": a.data_seed,
                           "init_from": a.init_from, "keep_attention": a.keep_attention},
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=a.use_gpu,
                                     resources_per_worker={"CPU": a.cpus_per_worker}),
        torch_config=TorchConfig(backend="gloo"),
        run_config=RunConfig(name=a.name, storage_path=a.storage,
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}", flush=True)
    print(f"checkpoint: {result.checkpoint}", flush=True)
