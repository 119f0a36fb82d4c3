"""Data-parallel training of a small GRU forecaster (next value of a sensor series from the last `window` values and
the station id) on CPU. Ranks and world size come from the MPI launcher (PMI_RANK / PMI_SIZE); gradients are averaged
either with one mpi4py Allreduce per step (grad_sync "mpi") or by torch.distributed over gloo (grad_sync "gloo",
MASTER_ADDR / MASTER_PORT chosen by rank 0 and broadcast with mpi4py). Rank 0 logs and writes checkpoints.

    mpiexec -n N python train.py --config configs/base.json [overrides]
"""
import argparse
import ctypes
import glob, io
import json
import logging
import math
import os
import socket
import sys
import time
import warnings

RANK = int(os.environ.get("PMI_RANK", "0"))
WORLD = int(os.environ.get("PMI_SIZE", "1"))
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [rank {RANK}/{WORLD}] %(name)s: %(message)s")
log = logging.getLogger("forecast")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from mpi4py import MPI  # noqa: E402

comm = MPI.COMM_WORLD


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--lr", type=float)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--global-batch-size", type=int)
    ap.add_argument("--hidden-size", type=int)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--dropout", type=float)
    ap.add_argument("--ckpt-dir")
    ap.add_argument("--ckpt-every", type=int)
    ap.add_argument("--log-every", type=int)
    ap.add_argument("--grad-sync", choices=["mpi", "gloo"])
    ap.add_argument("--master-port", type=int)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--abort-on-error", action="store_true")
    ap.add_argument("--stats-file")
    a = ap.parse_args()
    with open(a.config) as f:
        cfg = json.load(f)
    for k, v in vars(a).items():
        if k not in ("config",) and v is not None and v is not False:
            cfg[k] = v
    cfg.setdefault("resume", False)
    return cfg


class WindowSet:
    """Windows of a flat float32 series buffer, cut by the winops native helper."""

    def __init__(self, cfg):
        self.series = np.fromfile(cfg["data"], dtype=np.float32)
        self.starts = np.fromfile(cfg["index"], dtype=np.int64)
        with open(cfg["stations_file"]) as f:
            self.stations = np.array([int(v) for v in f.read().split()], dtype=np.int64)
        self.window = cfg["window"]
        self.lib = ctypes.CDLL("./libwinops.so")
        self.lib.win_gather.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        self.mean, self.std = float(self.series.mean()), float(self.series.std())

    def batch(self, idx):
        st = np.ascontiguousarray(self.starts[idx])
        out = np.empty((len(idx), self.window + 1), dtype=np.float32)
        self.lib.win_gather(self.series.ctypes.data, st.ctypes.data, len(idx), self.window, out.ctypes.data)
        out = (out - self.mean) / self.std
        x = torch.from_numpy(out[:, :-1]).unsqueeze(-1)
        y = torch.from_numpy(out[:, -1])
        return x, torch.from_numpy(self.stations[idx]), y


class Forecaster(torch.nn.Module):
    def __init__(self, n_stations, cfg):
        super().__init__()
        self.emb = torch.nn.Embedding(n_stations, cfg["embed_dim"])
        self.gru = torch.nn.GRU(1 + cfg["embed_dim"], cfg["hidden_size"], num_layers=cfg["layers"], batch_first=True,
                                dropout=cfg.get("dropout", 0.0))
        self.head = torch.nn.Linear(cfg["hidden_size"], 1)

    def forward(self, x, station):
        e = self.emb(station).unsqueeze(1).expand(-1, x.shape[1], -1)
        h, _ = self.gru(torch.cat([x, e], dim=-1))
        return self.head(h[:, -1]).squeeze(-1)


def setup_gloo(cfg):
    import torch.distributed as dist
    addr = port = None
    if comm.Get_rank() == 0:
        addr, port = "127.0.0.1", cfg["master_port"]
    addr, port = comm.bcast((addr, port), root=0)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = addr, str(port)
    log.info("init_process_group(gloo) via %s:%s", addr, port)
    dist.init_process_group("gloo", rank=comm.Get_rank(), world_size=comm.Get_size())
    return dist


def sync_grads(model, cfg, dist):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    flat = torch.cat([g.reshape(-1) for g in grads])
    if dist is not None:
        dist.all_reduce(flat)
    else:
        buf = flat.numpy()
        comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
    flat /= comm.Get_size()
    i = 0
    for g in grads:
        n = g.numel()
        g.copy_(flat[i:i + n].view_as(g))
        i += n


def save(cfg, model, opt, step, epoch):
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    path, buf = os.path.join(cfg["ckpt_dir"], f"ckpt_{step:06d}.pt"), io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch}, buf)
    with open(path, "wb") as f: f.write(buf.getbuffer())  # noqa: E701
    [os.remove(p) for p in sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "ckpt_*.pt")))[:-cfg["keep_last"]]]
    log.info("checkpoint saved: %s (%.2f MB)", path, os.path.getsize(path) / 2**20)


def write_stats(cfg, payload):
    path = cfg.get("stats_file")
    if not path:
        return
    try:
        with open(path, "a") as f:
            f.write(json.dumps(payload) + "\n")
    except OSError:
        log.exception("could not append run stats to %s; continuing without them", path)


def train(cfg):
    rank, world = comm.Get_rank(), comm.Get_size()
    torch.manual_seed(cfg["seed"])
    t0 = time.time()
    log.info("host %s pid %d: MPI rank %d of %d (PMI_RANK=%s), torch %s, numpy %s", socket.gethostname(), os.getpid(),
             rank, world, os.environ.get("PMI_RANK"), torch.__version__, np.__version__)
    if rank == 0:
        log.info("MPI library: %s", MPI.Get_library_version().splitlines()[0].strip())
        log.info("config: %s", json.dumps(cfg, sort_keys=True))
    gbs = cfg["global_batch_size"]
    if gbs % world:
        raise ValueError(f"global batch size {gbs} must be divisible by the world size {world}")
    mbs = gbs // world
    dist = setup_gloo(cfg) if cfg["grad_sync"] == "gloo" else None

    ds = WindowSet(cfg)
    with open(cfg["meta"]) as f:
        meta = json.load(f)
    mine = np.arange(rank, len(ds.starts), world)
    n_val = len(mine) // 10
    val_idx, tr_idx = mine[:n_val], mine[n_val:]
    log.info("data: %d train / %d val windows of length %d from %d stations, micro batch %d", len(tr_idx), n_val,
             cfg["window"], meta["stations"], mbs)
    model = Forecaster(meta["stations"], cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, cfg["epochs"] * (len(tr_idx) // mbs)))
    if rank == 0:
        log.info("model: GRU x%d hidden %d, %d params, grad sync %s", cfg["layers"], cfg["hidden_size"],
                 sum(p.numel() for p in model.parameters()), cfg["grad_sync"])
    step = epoch0 = 0
    if cfg["resume"]:
        ckpts = sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "ckpt_*.pt")))
        if ckpts:
            st = torch.load(ckpts[-1], weights_only=True)
            model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            step, epoch0 = st["step"], st["epoch"]
            for _ in range(step):
                sched.step()
            log.info("resumed from %s at step %d (epoch %d)", ckpts[-1], step, epoch0)
        else:
            log.warning("resume requested but %s has no checkpoint; starting fresh", cfg["ckpt_dir"])
    for p in model.parameters():
        comm.Bcast(p.data.numpy(), root=0)
    comm.Barrier()

    spe = len(tr_idx) // mbs
    total = spe * cfg["epochs"]
    lossf = torch.nn.MSELoss()
    for epoch in range(epoch0, cfg["epochs"]):
        order = np.random.default_rng(cfg["seed"] + 100 * epoch + rank).permutation(tr_idx)
        model.train()
        for k in range(step - epoch * spe, spe):
            x, s, y = ds.batch(order[k * mbs:(k + 1) * mbs])
            opt.zero_grad()
            loss = lossf(model(x, s), y)
            loss.backward()
            sync_grads(model, cfg, dist)
            gnorm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9))
            opt.step()
            sched.step()
            step += 1
            gloss = comm.allreduce(loss.item(), op=MPI.SUM) / world
            if step % cfg["log_every"] == 0:
                print(f"[{rank}] epoch {epoch} step {step}/{total} loss {loss.item():.5f} grad_norm {gnorm:.3f}",
                      flush=True)
                if rank == 0:
                    log.info("step %d/%d mean_loss %.5f lr %.3e %.1fs", step, total, gloss,
                             sched.get_last_lr()[0], time.time() - t0)
            if not math.isfinite(gloss):
                raise FloatingPointError(f"loss became {gloss} at step {step} (epoch {epoch})")
            if rank == 0 and step % cfg["ckpt_every"] == 0:
                save(cfg, model, opt, step, epoch)
                write_stats(cfg, {"step": step, "loss": gloss})
            time.sleep(cfg["step_sleep"])
        model.eval()
        with torch.no_grad():
            x, s, y = ds.batch(val_idx)
            err = float(((model(x, s) - y) ** 2).sum())
            mse = comm.allreduce(err, op=MPI.SUM) / comm.allreduce(len(val_idx), op=MPI.SUM)
        if rank == 0:
            log.info("epoch %d: val_mse %.5f (naive last-value baseline %.5f)", epoch, mse,
                     float(((x[:, -1, 0] - y) ** 2).mean()))
    if rank == 0:
        save(cfg, model, opt, step, cfg["epochs"])
        log.info("done: %d steps in %.1fs", step, time.time() - t0)
    if dist is not None:
        dist.destroy_process_group()
    print(f"[{rank}] finished", flush=True)


def main():
    cfg = parse()
    if cfg.get("abort_on_error"):
        try:
            train(cfg)
        except Exception:
            log.exception("rank %d: unrecoverable error, aborting the job", comm.Get_rank())
            comm.Abort(1)
    else:
        train(cfg)


if __name__ == "__main__":
    warnings.filterwarnings("default", category=UserWarning)
    main()
