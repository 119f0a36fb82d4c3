"""Claims-risk FT-Transformer on a local Ray cluster: Ray Train TorchTrainer (train), Ray Tune (tune), and a
Ray-actor feature-statistics service feeding training tasks (stats)."""
import argparse
import os
import tempfile
import time

import numpy as np
import ray
import ray.train
import ray.train.torch
import torch
import torch.nn.functional as F

import tab_core as tc


def train_loop(cfg):
    torch.set_num_threads(1)
    if cfg.get("tune"):
        from ray import tune
        rank, world, report = 0, 1, tune.report
    else:
        ctx = ray.train.get_context()
        rank, world, report = ctx.get_world_rank(), ctx.get_world_size(), ray.train.report
    torch.manual_seed(0)
    enc, (num, cat, y), (vnum, vcat, vy) = tc.build(n_train=cfg.get("rows", 4000))
    if cfg.get("crosses"):
        # pairwise feature crosses of every numeric column with every one-hot category level
        onehot = np.concatenate([np.eye(c)[np.searchsorted(sorted(v), col)] for c, v, col in
                                 zip(enc.cards(), enc.vocab, cat)], 1)
        print(f"[rank {rank}] building crosses: {num.shape[1]} numeric x {onehot.shape[1]} levels "
              f"x order {cfg['crosses']}", flush=True)
        feats = [num]
        for k in range(cfg["crosses"]):
            feats.append(np.einsum("ni,nj->nij", feats[-1].reshape(len(num), -1), onehot).reshape(len(num), -1))
            print(f"[rank {rank}] cross order {k + 1}: {feats[-1].shape[1]} columns, "
                  f"{sum(f.nbytes for f in feats) / 2**30:.2f} GiB", flush=True)
    xn, xc = enc.transform(num, cat)
    vxn, vxc = enc.transform(vnum, vcat)
    yt = torch.from_numpy(y)
    model = tc.FTTransformer(len(tc.NUM_COLS), enc.cards(), d=cfg.get("d", 24))
    if not cfg.get("tune"):
        model = ray.train.torch.prepare_model(model)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    idx_all = torch.arange(rank, len(yt), world)
    step = 0
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        model.train()
        g = torch.Generator().manual_seed(epoch)
        idx = idx_all[torch.randperm(len(idx_all), generator=g)]
        for b in range(0, len(idx), 64):
            bi = idx[b:b + 64]
            loss = F.binary_cross_entropy_with_logits(model(xn[bi], xc[bi]), yt[bi])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        inner = model.module if hasattr(model, "module") else model
        inner.eval()
        with torch.no_grad():
            s = inner(vxn, vxc).numpy()
        metrics = {"epoch": epoch, "loss": loss.item(), "val_auc": tc.auc(s, vy), "epoch_s": time.time() - t0}
        with tempfile.TemporaryDirectory() as d:
            if rank == 0:
                torch.save({"model": inner.state_dict(), "epoch": epoch}, os.path.join(d, "model.pt"))
            report(metrics, checkpoint=ray.train.Checkpoint.from_directory(d) if rank == 0 else None)


def run_train(a):
    from ray.train import CheckpointConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"epochs": a.epochs, "lr": 3e-3},
        scaling_config=ScalingConfig(num_workers=a.workers, resources_per_worker={"CPU": a.cpus_per_worker},
                                     placement_strategy=a.placement_strategy),
        torch_config=TorchConfig(backend="gloo"),
        run_config=RunConfig(name="ft-claims", storage_path=a.storage, checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}", flush=True)
    print(f"checkpoint: {result.checkpoint}", flush=True)


def run_tune(a):
    from ray import tune
    from ray.tune import RunConfig

    def trial(cfg):
        train_loop(cfg)

    tuner = tune.Tuner(
        tune.with_resources(trial, {"CPU": 1}),
        param_space={"epochs": a.epochs, "lr": tune.grid_search([3e-3, 1e-3]), "d": tune.grid_search([16, 32]),
                     "crosses": a.crosses, "rows": a.rows, "tune": True},
        tune_config=tune.TuneConfig(metric="val_auc", mode="max", max_concurrent_trials=2),
        run_config=RunConfig(name="ft-claims-sweep", storage_path=a.storage),
    )
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best config: lr={best.config['lr']} d={best.config['d']} val_auc={best.metrics.get('val_auc')}", flush=True)


@ray.remote(max_concurrency=1)
class ColumnStats:
    """Running mean/std of the numeric columns, shared by the training tasks."""

    def __init__(self):
        self.n, self.s, self.ss = 0, np.zeros(len(tc.NUM_COLS)), np.zeros(len(tc.NUM_COLS))
        self.me = None

    def bind(self, me):
        self.me = me

    def add(self, chunk):
        self.n += len(chunk)
        self.s += chunk.sum(0)
        self.ss += (chunk ** 2).sum(0)
        return self.n

    def stats(self):
        m = self.s / self.n
        return m, np.sqrt(self.ss / self.n - m ** 2)

    def add_and_normalise(self, chunk):
        self.add(chunk)
        m, sd = ray.get(self.me.stats.remote())  # the current statistics, including this chunk
        return (chunk - m) / sd


@ray.remote(num_cpus=0.5)
def score_shard(i, stats, chunk):
    x = ray.get(stats.add_and_normalise.remote(chunk))
    return i, float(np.abs(x).mean())


def run_stats(a):
    num, _, _ = tc.make_table(a.rows, seed=0)
    stats = ColumnStats.remote()
    ray.get(stats.bind.remote(stats))
    chunks = np.array_split(num, a.shards)
    print(f"streaming {len(chunks)} shards of ~{len(chunks[0])} rows through the column-statistics actor", flush=True)
    t0 = time.time()
    for i in range(0, len(chunks), 2):
        n = ray.get([stats.add.remote(c) for c in chunks[i:i + 2]])
        print(f"warm-up shard {i}: {n[-1]} rows seen ({time.time() - t0:.1f}s)", flush=True)
        if i >= 4:
            break
    refs = [score_shard.remote(i, stats, c) for i, c in enumerate(chunks)]
    for i, score in ray.get(refs):
        print(f"shard {i}: mean |z| {score:.3f}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "tune", "stats"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=float, default=0.5)
    ap.add_argument("--placement-strategy", default="PACK")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=4000)
    ap.add_argument("--crosses", type=int, default=0)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    {"train": run_train, "tune": run_tune, "stats": run_stats}[a.mode](a)
