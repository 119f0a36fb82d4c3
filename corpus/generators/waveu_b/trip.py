"""Metric learning for re-identification: an embedding MLP trained with a batch-hard triplet loss.

Synthetic "re-id descriptors": every identity has a latent prototype; each sighting is the prototype seen through a
fixed nonlinear sensor map plus per-sighting nuisance (lighting / pose directions) and noise (64-d). Train and val
identities are disjoint; evaluation is retrieval on the val identities (recall@1, recall@5, mAP).

    python trip.py make [--id-format str --shard 1]          # data/train-0000{r}.npz, data/val.npz
    python trip.py spawn --nprocs 2 --epochs 6                 # DDP over gloo under torch.multiprocessing.spawn
    python trip.py pl --devices 2 --epochs 4                   # LightningModule, strategy ddp (CPU)
    python trip.py ray --epochs 4                              # Ray Train TorchTrainer, 2 workers
    python trip.py tune --epochs 3                             # Ray Tune margin grid
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

DIM, LAT, SHARDS = 64, 16, 2


# ------------------------------------------------------------------------------------------------------- data
def make(a) -> None:
    rng = np.random.default_rng(a.seed)
    w1 = rng.normal(0, 1 / np.sqrt(LAT), (LAT, 96))
    w2 = rng.normal(0, 1 / np.sqrt(96), (96, DIM))
    nuis = rng.normal(0, 1, (4, DIM)) / np.sqrt(DIM)

    def sightings(n_ids, per, id0):
        protos = rng.normal(0, 1, (n_ids, LAT))
        ids = np.repeat(np.arange(n_ids), per)
        z = protos[ids] + 0.35 * rng.normal(0, 1, (len(ids), LAT))
        x = np.tanh(z @ w1) @ w2 + rng.normal(0, 1.2, (len(ids), 4)) @ nuis + 0.05 * rng.normal(0, 1, (len(ids), DIM))
        return x.astype(np.float32), ids + id0

    os.makedirs(a.out, exist_ok=True)
    per_shard = a.train_ids // SHARDS
    for r in range(SHARDS):
        x, ids = sightings(per_shard, a.per_id, r * per_shard)
        if a.shard in (-1, r) and a.id_format == "str":  # the newer export writes person ids as strings
            ids = np.array([f"P{i:05d}" for i in ids])
        np.savez(os.path.join(a.out, f"train-{r:05d}.npz"), x=x, id=ids)
    x, ids = sightings(a.val_ids, a.per_id, 100000)
    quality = rng.uniform(0, 1, len(ids)).astype(np.float32)  # detector confidence of each val sighting
    np.savez(os.path.join(a.out, "val.npz"), x=x, id=ids, q=quality)
    print(f"wrote {SHARDS} train shards ({per_shard} ids x {a.per_id}) and val ({a.val_ids} ids) to {a.out}/")


class Shard:
    def __init__(self, path: str):
        z = np.load(path)
        self.x = torch.from_numpy(z["x"])
        self.id = torch.as_tensor(z["id"])
        self.ids = self.id.unique()
        self.by_id = {int(i): (self.id == i).nonzero().flatten() for i in self.ids}

    def pk_batch(self, g: torch.Generator, p: int, k: int):
        pick = self.ids[torch.randperm(len(self.ids), generator=g)[:p]]
        idx = torch.cat([self.by_id[int(i)][torch.randperm(len(self.by_id[int(i)]), generator=g)[:k]] for i in pick])
        return self.x[idx], self.id[idx]


# ------------------------------------------------------------------------------------------------------ model
class EmbedNet(nn.Module):
    def __init__(self, emb: int = 32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                                 nn.Linear(128, emb))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


def pairwise(e: torch.Tensor, exact: bool = False) -> torch.Tensor:
    d2 = (e[:, None, :] - e[None, :, :]).pow(2).sum(-1)
    return d2.sqrt() if exact else (d2 + 1e-12).sqrt()


def batch_hard_triplet(e, y, margin: float, exact: bool = False):
    d = pairwise(e, exact)
    same = y[:, None] == y[None, :]
    eye = torch.eye(len(y), dtype=torch.bool)
    hp = (d * (same & ~eye)).max(1).values
    hn = (d + 4.0 * same).min(1).values
    loss = F.relu(hp - hn + margin)
    return loss.mean(), (loss > 0).float().mean()


@torch.no_grad()
def retrieval(model, x, y, broadcast: bool = False) -> dict:
    model.eval()
    e = model(x)
    model.train()
    return retrieval_emb(e, y, broadcast)


def retrieval_emb(e, y, broadcast: bool = False) -> dict:
    if broadcast:  # distances by broadcasting (N, N, D) in float64
        e64 = e.double()
        d = (e64[:, None, :] - e64[None, :, :]).pow(2).sum(-1)
    else:
        d = torch.cdist(e, e)
    d.fill_diagonal_(float("inf"))
    order = d.argsort(1)
    hit = y[order] == y[:, None]
    r1 = hit[:, 0].float().mean().item()
    r5 = hit[:, :5].any(1).float().mean().item()
    valid = hit[:, :-1].float()
    prec = valid.cumsum(1) / torch.arange(1, valid.shape[1] + 1)
    ap = (prec * valid).sum(1) / valid.sum(1).clamp(min=1)
    return {"r1": r1, "r5": r5, "mAP": ap.mean().item()}


def rerank_jaccard(model, x, k: int = 20):
    """k-reciprocal re-ranking (Zhong et al.) of a gallery, plain Python sets."""
    with torch.no_grad():
        model.eval()
        e = model(x)
        model.train()
    nn_ = torch.cdist(e, e).topk(k + 1, largest=False).indices.tolist()
    recip = [{j for j in nn_[i] if i in nn_[j]} for i in range(len(nn_))]
    expanded = []
    for i in range(len(nn_)):
        s = set(recip[i])
        for j in recip[i]:
            cand = {c for c in nn_[j][: k // 2 + 1] if j in nn_[c][: k // 2 + 1]}
            if len(cand & recip[i]) > 2 / 3 * len(cand):
                s |= cand
        expanded.append(s)
    jd = [[1 - len(expanded[i] & expanded[j]) / max(len(expanded[i] | expanded[j]), 1)
           for j in range(len(expanded))] for i in range(len(expanded))]
    return torch.tensor(jd)


# --------------------------------------------------------------------------------------------- mp.spawn trainer
STATE = {"step": 0}


def spawn_worker(rank: int, a) -> None:
    world = a.nprocs
    addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    print(f"[rank {rank}] init_process_group(gloo, world_size={world}, {addr}:{port}, "
          f"timeout={a.pg_timeout}s)", flush=True)
    kw = {}
    if a.side_store:
        store = dist.TCPStore(addr, port, world, rank == 0, timeout=datetime.timedelta(seconds=a.pg_timeout))
        kw = {"store": store}
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=a.pg_timeout),
                            **kw)
    torch.manual_seed(0)
    shard = Shard(os.path.join(a.data, f"train-{rank % SHARDS:05d}.npz"))
    print(f"[rank {rank}] shard train-{rank % SHARDS:05d}.npz: {len(shard.x)} sightings, {len(shard.ids)} identities",
          flush=True)
    val = np.load(os.path.join(a.data, "val.npz"))
    vx, vy = torch.from_numpy(val["x"]), torch.as_tensor(val["id"])
    model = nn.parallel.DistributedDataParallel(EmbedNet())
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    g = torch.Generator().manual_seed(1000 + rank)
    if rank == 0:
        print(f"[rank 0] EmbedNet: {sum(p.numel() for p in model.parameters())} parameters, AdamW lr {a.lr}, "
              f"PK batch {a.p}x{a.k} x {world} ranks, margin {a.margin}, {a.steps} steps/epoch", flush=True)
    t0 = time.time()
    for ep in range(1, a.epochs + 1):
        tot, act = 0.0, 0.0
        for _ in range(a.steps):
            STATE["step"] += 1
            x, y = shard.pk_batch(g, a.p, a.k)
            loss, frac = batch_hard_triplet(model(x), y, a.margin)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            act += frac.item()
            if rank == 0 and STATE["step"] % a.log_every == 0:
                print(f"[rank 0] epoch {ep} step {STATE['step']}: triplet loss {loss.item():.4f} active "
                      f"{frac.item():.2f} ({STATE['step'] * a.p * a.k * world / (time.time() - t0):.0f} samples/s)",
                      flush=True)
        stats = torch.tensor([tot / a.steps, act / a.steps])
        dist.all_reduce(stats)
        stats /= world
        if a.hardneg_pool and ep % 2 == 0:
            if rank == 0:
                emb = model.module(shard.x).detach()
                pool = (torch.cdist(emb, emb) < a.margin).sum().item() - len(emb)
                n = torch.tensor([pool, len(emb)])
                dist.all_reduce(n)  # total pool size and mined sightings over ranks, for the log
                print(f"[rank 0] hard-negative pool refreshed: {int(n[0])} pairs within margin over {int(n[1])} "
                      "sightings", flush=True)
        if a.side_store and ep % 2 == 0:
            if rank == 0:
                emb = model.module(shard.x).detach()
                hard = (torch.cdist(emb, emb) + 4.0 * (shard.id[:, None] == shard.id[None])).argmin(1)
                store.set(f"hardneg/epoch{ep}", json.dumps(hard[:64].tolist()))
                print(f"[rank 0] published hard negatives for epoch {ep} to the store", flush=True)
            else:
                print(f"[rank {rank}] waiting for hard-negative list hardneg/{ep}", flush=True)
                hard = json.loads(store.get(f"hardneg/{ep}"))
                print(f"[rank {rank}] got {len(hard)} hard negatives", flush=True)
        if a.dist_eval:  # each rank embeds the val identities id % world == rank, rank 0 scores the gathered set
            keep = (vy % world == rank) & (torch.from_numpy(val["q"]) >= a.min_quality)
            with torch.no_grad():
                model.eval()
                e = model.module(vx[keep])
                model.train()
            print(f"[rank {rank}] embedded {int(keep.sum())} val sightings (quality >= {a.min_quality})", flush=True)
            es, ys = [torch.empty_like(e) for _ in range(world)], [torch.empty_like(vy[keep]) for _ in range(world)]
            dist.all_gather(es, e)
            dist.all_gather(ys, vy[keep])
        if rank == 0:
            m = retrieval_emb(torch.cat(es), torch.cat(ys)) if a.dist_eval else retrieval(model.module, vx, vy)
            print(f"[rank 0] epoch {ep}: train loss {stats[0]:.4f} active triplets {stats[1]:.2f} | val recall@1 "
                  f"{m['r1']:.3f} recall@5 {m['r5']:.3f} mAP {m['mAP']:.3f}", flush=True)
            if a.rerank:
                t = time.time()
                gx = torch.cat([vx, shard.x])
                print(f"[rank 0] k-reciprocal re-ranking: {len(vx)} val queries + {len(shard.x)} train distractors",
                      flush=True)
                jd = rerank_jaccard(model.module, gx)
                print(f"[rank 0] re-ranked in {time.time() - t:.1f} s, mean jaccard distance {jd.mean():.3f}",
                      flush=True)
            if a.gallery_eval:
                gx = torch.cat([vx] + [torch.from_numpy(np.load(os.path.join(a.data, f"train-{r:05d}.npz"))["x"])
                                       for r in range(SHARDS)])
                gy = torch.cat([vy] + [torch.as_tensor(np.load(os.path.join(a.data, f"train-{r:05d}.npz"))["id"])
                                       for r in range(SHARDS)])
                print(f"[rank 0] exact retrieval over the full gallery ({len(gx)} sightings)", flush=True)
                m = retrieval(model.module, gx, gy, broadcast=True)
                print(f"[rank 0] full gallery: recall@1 {m['r1']:.3f} mAP {m['mAP']:.3f}", flush=True)
            os.makedirs("ckpt", exist_ok=True)
            torch.save({"model": model.module.state_dict(), "epoch": ep}, f"ckpt/epoch{ep}.pt")
            print(f"[rank 0] saved ckpt/epoch{ep}.pt", flush=True)
    dist.barrier()
    print(f"[rank {rank}] done", flush=True)
    dist.destroy_process_group()


def spawn_main(a) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    print(f"starting {a.nprocs} processes with torch.multiprocessing.spawn", flush=True)
    torch.multiprocessing.spawn(spawn_worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)


# -------------------------------------------------------------------------------------------------- Lightning
class PKDataset(torch.utils.data.IterableDataset):
    def __init__(self, data: str, p: int, k: int, steps: int):
        self.data, self.p, self.k, self.steps = data, p, k, steps
        self.epoch = 0

    def __iter__(self):
        rank = dist.get_rank() if dist.is_initialized() else 0
        shard = Shard(os.path.join(self.data, f"train-{rank % SHARDS:05d}.npz"))
        g = torch.Generator().manual_seed(1000 * self.epoch + rank)
        self.epoch += 1
        for _ in range(self.steps):
            yield shard.pk_batch(g, self.p, self.k)


def pl_main(a) -> None:
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint

    class LitTriplet(L.LightningModule):
        def __init__(self, lr: float, margin: float):
            super().__init__()
            self.save_hyperparameters()
            self.net = EmbedNet()

        def training_step(self, batch, i):
            x, y = batch
            loss, frac = batch_hard_triplet(self.net(x), y, self.hparams.margin, exact=a.exact_dist)
            self.log("train_loss", loss, sync_dist=True)
            self.log("active", frac)
            if self.global_rank == 0 and self.global_step % a.log_every == 0:
                print(f"[rank 0] step {self.global_step}: triplet loss {loss.item():.4f} active {frac.item():.2f}",
                      flush=True)
            return loss

        def validation_step(self, batch, i):
            x, y = batch
            m = retrieval(self.net, x, y)
            self.log("val_r1", m["r1"], sync_dist=True)
            self.log("val_mAP", m["mAP"], sync_dist=True)

        def on_validation_epoch_end(self):
            if self.global_rank == 0 and not self.trainer.sanity_checking:
                m = self.trainer.callback_metrics
                print(f"[rank 0] epoch {self.current_epoch}: val recall@1 {float(m['val_r1']):.3f} "
                      f"mAP {float(m['val_mAP']):.3f}", flush=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=1e-4)

    L.seed_everything(0)
    val = np.load(os.path.join(a.data, "val.npz"))
    vds = torch.utils.data.TensorDataset(torch.from_numpy(val["x"]), torch.as_tensor(val["id"]))
    tl = torch.utils.data.DataLoader(PKDataset(a.data, a.p, a.k, a.steps), batch_size=None)
    vl = torch.utils.data.DataLoader(vds, batch_size=600)
    print(f"distance: {'euclidean (exact sqrt)' if a.exact_dist else 'euclidean (sqrt + 1e-12)'}, "
          f"margin {a.margin}, PK {a.p}x{a.k}", flush=True)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        callbacks=[ModelCheckpoint(dirpath="ckpt", monitor="val_mAP", mode="max", save_last=True)],
                        log_every_n_steps=10, enable_progress_bar=False)
    trainer.fit(LitTriplet(a.lr, a.margin), tl, vl, ckpt_path=a.resume)
    if trainer.global_rank == 0:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path} "
              f"(val_mAP {float(trainer.checkpoint_callback.best_model_score):.3f})", flush=True)


# ------------------------------------------------------------------------------------------------------- Ray
def ray_loop(cfg: dict) -> None:
    import tempfile

    import ray.train
    import ray.train.torch

    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    with open(f"{cfg['job']}/worker{rank}.pid", "w") as f:
        f.write(str(os.getpid()))
    torch.manual_seed(0)
    shard = Shard(os.path.join(cfg["data"], f"train-{rank % SHARDS:05d}.npz"))
    val = np.load(os.path.join(cfg["data"], "val.npz"))
    vx, vy = torch.from_numpy(val["x"]), torch.as_tensor(val["id"])
    model = ray.train.torch.prepare_model(EmbedNet())
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    start = 1
    ck = ray.train.get_checkpoint()
    if ck:
        with ck.as_directory() as d:
            st = torch.load(os.path.join(d, "state.pt"))
        (model.module if hasattr(model, "module") else model).load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"[worker {rank}] resumed from checkpoint at epoch {st['epoch']}", flush=True)
    g = torch.Generator().manual_seed(1000 + rank)
    step = 0
    for ep in range(start, cfg["epochs"] + 1):
        tot = 0.0
        for _ in range(cfg["steps"]):
            x, y = shard.pk_batch(g, 16, 4)
            loss, frac = batch_hard_triplet(model(x), y, cfg["margin"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            step += 1
            if step % 10 == 0:
                print(f"[worker {rank}] epoch {ep} step {step}: triplet loss {loss.item():.4f} active {frac:.2f}",
                      flush=True)
            if cfg.get("step_sleep"):
                time.sleep(cfg["step_sleep"])
        m = retrieval(model.module if hasattr(model, "module") else model, vx, vy)
        metrics = {"epoch": ep, "train_loss": tot / cfg["steps"], "val_r1": m["r1"], "val_mAP": m["mAP"]}
        with tempfile.TemporaryDirectory() as d:
            ckpt = None
            if rank == 0:
                inner = model.module if hasattr(model, "module") else model
                torch.save({"model": inner.state_dict(), "opt": opt.state_dict(), "epoch": ep},
                           os.path.join(d, "state.pt"))
                if cfg.get("save_gallery"):
                    with torch.no_grad():
                        big = torch.cat([shard.x] * cfg["save_gallery"])
                        np.save(os.path.join(d, "gallery_emb.npy"), inner(big).numpy().astype(np.float64))
                ckpt = ray.train.Checkpoint.from_directory(d)
            ray.train.report(metrics, checkpoint=ckpt)


def ray_main(a) -> None:
    import ray
    from ray.train import CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    ray.init(address=os.environ["RAY_ADDRESS"])
    storage = os.path.abspath(a.storage)
    trainer = TorchTrainer(ray_loop, train_loop_config={"data": os.path.abspath(a.data), "lr": a.lr,
                                                         "epochs": a.epochs, "steps": a.steps, "margin": a.margin,
                                                         "job": os.getcwd(), "step_sleep": a.step_sleep,
                                                         "save_gallery": a.save_gallery},
                           scaling_config=ScalingConfig(num_workers=2, use_gpu=a.use_gpu,
                                                        resources_per_worker={"CPU": 0.5}),
                           run_config=RunConfig(name="triplet-reid", storage_path=storage,
                                                failure_config=FailureConfig(max_failures=a.max_failures),
                                                checkpoint_config=CheckpointConfig(num_to_keep=a.keep)))
    result = trainer.fit()
    print(f"training finished: {result.metrics}, checkpoint {result.checkpoint}", flush=True)


def ray_legacy_main(a) -> None:
    """The loop as written for Ray 2.6 (ray.air session API)."""
    import ray
    from ray.air import ScalingConfig, session
    from ray.train.torch import TorchTrainer

    def loop(cfg):
        shard = Shard(os.path.join(cfg["data"], f"train-{session.get_world_rank() % SHARDS:05d}.npz"))
        model = ray.train.torch.prepare_model(EmbedNet())
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        g = torch.Generator().manual_seed(session.get_world_rank())
        for ep in range(1, cfg["epochs"] + 1):
            for _ in range(cfg["steps"]):
                x, y = shard.pk_batch(g, 16, 4)
                loss, _ = batch_hard_triplet(model(x), y, cfg["margin"])
                opt.zero_grad()
                loss.backward()
                opt.step()
            session.report({"epoch": ep, "train_loss": loss.item()})

    ray.init(address=os.environ["RAY_ADDRESS"])
    trainer = TorchTrainer(loop, train_loop_config={"data": os.path.abspath(a.data), "lr": a.lr, "epochs": a.epochs,
                                                     "steps": a.steps, "margin": a.margin},
                           scaling_config=ScalingConfig(num_workers=2, resources_per_worker={"CPU": 0.5}))
    print(trainer.fit().metrics, flush=True)


def tune_trainable(cfg: dict) -> None:
    from ray import tune

    shard = Shard(os.path.join(cfg["data"], "train-00000.npz"))
    val = np.load(os.path.join(cfg["data"], "val.npz"))
    vx, vy = torch.from_numpy(val["x"]), torch.as_tensor(val["id"])
    model = EmbedNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    g = torch.Generator().manual_seed(0)
    for ep in range(1, cfg["epochs"] + 1):
        for _ in range(cfg["steps"]):
            x, y = shard.pk_batch(g, 16, 4)
            loss, _ = batch_hard_triplet(model(x), y, cfg["margin"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        m = retrieval(model, vx, vy)
        tune.report({"epoch": ep, "train_loss": loss.item(), "val_r1": m["r1"], "val_mAP": m["mAP"]})


def tune_main(a) -> None:
    import ray
    from ray import tune

    ray.init(address=os.environ["RAY_ADDRESS"])
    tuner = tune.Tuner(tune.with_resources(tune_trainable, {"cpu": 1}),
                       param_space={"margin": tune.grid_search([0.1, 0.2, 0.4]), "lr": a.lr, "epochs": a.epochs,
                                    "steps": a.steps, "data": os.path.abspath(a.data)},
                       tune_config=tune.TuneConfig(metric="val_mAP", mode="max"),
                       run_config=tune.RunConfig(name="triplet-margin-sweep", storage_path=os.path.abspath("results")))
    best = tuner.fit().get_best_result()
    print(f"best margin {best.config['margin']}: val_mAP {best.metrics['val_mAP']:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "spawn", "pl", "ray", "ray-legacy", "tune"])
    ap.add_argument("--out", default="data")
    ap.add_argument("--data", default="data")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-ids", type=int, default=600)
    ap.add_argument("--val-ids", type=int, default=150)
    ap.add_argument("--per-id", type=int, default=8)
    ap.add_argument("--id-format", default="int")
    ap.add_argument("--shard", type=int, default=-1)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--p", type=int, default=16)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--margin", type=float, default=0.2)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--hardneg-pool", action="store_true")
    ap.add_argument("--side-store", action="store_true")
    ap.add_argument("--rerank", action="store_true")
    ap.add_argument("--gallery-eval", action="store_true")
    ap.add_argument("--exact-dist", action="store_true")
    ap.add_argument("--dist-eval", action="store_true")
    ap.add_argument("--min-quality", type=float, default=0.0)
    ap.add_argument("--resume", default=None)
    ap.add_argument("--storage", default="results")
    ap.add_argument("--use-gpu", action="store_true")
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--keep", type=int, default=None)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--save-gallery", type=int, default=0)
    a = ap.parse_args()
    {"make": make, "spawn": spawn_main, "pl": pl_main, "ray": ray_main, "ray-legacy": ray_legacy_main,
     "tune": tune_main}[a.mode](a)


if __name__ == "__main__":
    main()
