"""Multi-sensor forecasting transformer (patch encoder over sliding windows), data-parallel over gloo.

Each rank reads its sites' CSV exports (sites rank::world), z-scores them with the training statistics, cuts sliding
windows (lookback L, horizon H), and trains a patch-embedding transformer encoder that predicts the next H readings
of all sensors. Validation (last 20% of each site) every epoch: MSE/MAE all-reduced; rank 0 checkpoints.
Launchers: torchrun (RANK/WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*), Slurm srun (SLURM_PROCID/SLURM_NTASKS),
the DeepSpeed launcher (--deepspeed) and accelerate launch (--accelerate)."""
import argparse
import datetime
import faulthandler
import functools
import glob
import logging
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

faulthandler.enable()

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--epochs", type=int, default=6)
ap.add_argument("--batch-size", type=int, default=32)
ap.add_argument("--lookback", type=int, default=96)
ap.add_argument("--horizon", type=int, default=24)
ap.add_argument("--patch", type=int, default=8)
ap.add_argument("--stride", type=int, default=2)
ap.add_argument("--d-model", type=int, default=64)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--log-every", type=int, default=5)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--pg-timeout", type=float, default=0)
ap.add_argument("--step-sleep", type=float, default=0)
ap.add_argument("--log-target", action="store_true", help="train on log readings (multiplicative seasonality)")
ap.add_argument("--per-sensor-metrics", action="store_true")
ap.add_argument("--baseline-report", action="store_true", help="rank 0: seasonal-naive baseline per epoch")
ap.add_argument("--windows", choices=["view", "materialize"], default="view")
ap.add_argument("--log-file", default="")
ap.add_argument("--loader-workers", type=int, default=0)
ap.add_argument("--sharing", default="")
ap.add_argument("--regimes", action="store_true", help="regime-aware sampling from an optimal segmentation")
ap.add_argument("--plateau", action="store_true")
ap.add_argument("--flaky-feed", action="store_true")
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--local_rank", type=int, default=-1)
ap.add_argument("--accelerate", action="store_true")
args = ap.parse_args()

env = os.environ
if "RANK" in env:
    rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
elif "OMPI_COMM_WORLD_RANK" in env:
    rank, world = int(env["OMPI_COMM_WORLD_RANK"]), int(env["OMPI_COMM_WORLD_SIZE"])
    env["RANK"], env["WORLD_SIZE"] = str(rank), str(world)
elif "SLURM_PROCID" in env:
    rank, world = int(env["SLURM_PROCID"]), int(env["SLURM_NTASKS"])
    env["RANK"], env["WORLD_SIZE"] = str(rank), str(world)
else:
    rank, world = 0, 1
    env.setdefault("RANK", "0")
    env.setdefault("WORLD_SIZE", "1")
env.setdefault("MASTER_ADDR", "127.0.0.1")
env.setdefault("MASTER_PORT", "29500")

log = logging.getLogger("forecast")
log.setLevel(logging.INFO)
_h = logging.StreamHandler(sys.stdout)
_h.setFormatter(logging.Formatter(f"%(asctime)s [rank{rank}] %(message)s"))
log.addHandler(_h)
if args.log_file and rank == 0:
    os.makedirs(os.path.dirname(args.log_file) or ".", exist_ok=True)
    _fh = logging.FileHandler(args.log_file)
    _fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(_fh)
if args.sharing:
    torch.multiprocessing.set_sharing_strategy(args.sharing)

accelerator = None
if args.accelerate:
    from accelerate import Accelerator, InitProcessGroupKwargs
    kw = [InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=args.pg_timeout))] if args.pg_timeout else []
    accelerator = Accelerator(kwargs_handlers=kw)
elif args.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo")
else:
    kw = {"timeout": datetime.timedelta(seconds=args.pg_timeout)} if args.pg_timeout else {}
    dist.init_process_group("gloo", **kw)
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
log.info(f"torch {torch.__version__}, world {world}, backend {dist.get_backend()}, pid {os.getpid()}")


def read_site(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [[float(v) if v else float("nan") for v in line.strip().split(",")[1:]] for line in f]
    return header[1:], np.asarray(rows, dtype=np.float32)


sites = sorted(glob.glob(os.path.join(args.data, "site-*.csv")))[rank::world]
series = []
for p in sites:
    cols, x = read_site(p)
    log.info(f"loaded {os.path.basename(p)}: {x.shape[0]} readings x {len(cols)} sensors ({','.join(cols)})")
    series.append(x)

if args.regimes:
    # optimal segmentation (piecewise-constant, penalised) of each site's mean reading; cost(i) = best split of x[:i]
    sys.setrecursionlimit(1_000_000)
    for p, x in zip(sites, series):
        m = np.nanmean(x, axis=1).astype(np.float64)
        fine = np.repeat(m, 60) + np.random.default_rng(0).normal(0, 0.05, m.size * 60)  # 5 s resolution
        cs, cs2 = np.concatenate([[0.0], np.cumsum(fine)]), np.concatenate([[0.0], np.cumsum(fine ** 2)])

        @functools.lru_cache(maxsize=None)
        def best(i):
            if i == 0:
                return 0.0
            out = math.inf
            for j in range(max(0, i - 4), i):
                n = i - j
                sse = cs2[i] - cs2[j] - (cs[i] - cs[j]) ** 2 / n
                out = min(out, best(j) + sse + 2.0)
            return out

        log.info(f"segmenting {os.path.basename(p)} ({fine.size} points at 5 s)")
        log.info(f"{os.path.basename(p)}: segmentation cost {best(fine.size):.1f}")

train_parts, val_parts = [], []
for x in series:
    cut = int(x.shape[0] * 0.8)
    train_parts.append(x[:cut])
    val_parts.append(x[cut - args.lookback:])
if args.log_target:
    train_parts = [np.log(p) for p in train_parts]
    val_parts = [np.log(p) for p in val_parts]
allt = np.concatenate(train_parts)
mu, sd = np.nanmean(allt, axis=0), np.nanstd(allt, axis=0) + 1e-6
n_sensors = allt.shape[1]


def windows(parts):
    L, H, S = args.lookback, args.horizon, args.stride
    out = []
    for p in parts:
        z = torch.from_numpy(((p - mu) / sd).astype(np.float32))
        w = z.unfold(0, L + H, S).permute(0, 2, 1)  # (n, L+H, C)
        if args.windows == "materialize":
            w = torch.from_numpy(np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(
                ((p - mu) / sd).astype(np.float64), L + H, axis=0)[::1]).transpose(0, 2, 1).copy())
        out.append(w)
    return torch.cat(out)


train_w, val_w = windows(train_parts), windows(val_parts)
log.info(f"{train_w.shape[0]} train / {val_w.shape[0]} val windows (lookback {args.lookback}, horizon "
         f"{args.horizon}, stride {args.stride}), {train_w.element_size() * train_w.nelement() / 2**20:.1f} MiB")


class PatchTST(nn.Module):
    def __init__(self, c, L, H, P, d):
        super().__init__()
        self.c, self.H, self.P = c, H, P
        self.embed = nn.Linear(P * c, d)
        self.pos = nn.Parameter(torch.randn(L // P, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d * (L // P), H * c)

    def forward(self, x):
        b, L, c = x.shape
        tok = x.reshape(b, L // self.P, self.P * c)
        h = self.enc(self.embed(tok) + self.pos)
        return self.head(h.flatten(1)).view(b, self.H, self.c)


model = PatchTST(8, args.lookback, args.horizon, args.patch, args.d_model)
nparams = sum(p.numel() for p in model.parameters())
log.info(f"PatchTST: {nparams / 1e3:.1f}K parameters, {args.lookback // args.patch} patches of {args.patch}")
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(train_w), batch_size=args.batch_size,
                                     shuffle=True, drop_last=True, num_workers=args.loader_workers,
                                     persistent_workers=args.loader_workers > 0)
engine = None
if args.deepspeed:
    import json
    cfg = json.load(open(args.ds_config))
    cfg["train_micro_batch_size_per_gpu"] = args.batch_size
    cfg.setdefault("optimizer", {"type": "AdamW", "params": {"lr": args.lr, "weight_decay": 0.01}})
    engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    net = engine
else:
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    if accelerator:
        net, opt, loader = accelerator.prepare(model, opt, loader)
    else:
        net = nn.parallel.DistributedDataParallel(model)
sched = (torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, verbose=True) if args.plateau
         else None)
start_epoch = 0
os.makedirs(args.ckpt_dir, exist_ok=True)
ck = os.path.join(args.ckpt_dir, "last.pt")
if args.resume and os.path.exists(ck):
    st = torch.load(ck, weights_only=False)
    model.load_state_dict(st["model"])
    if not args.deepspeed:
        opt.load_state_dict(st["opt"])
    start_epoch = st["epoch"]
    log.info(f"resuming from {ck}: epoch {st['epoch']} done, val MSE {st['val_mse']:.4f}")


def evaluate():
    net.eval()
    se = torch.zeros(1, dtype=torch.float64)
    ae = torch.zeros(1, dtype=torch.float64)
    n = torch.zeros(1, dtype=torch.float64)
    per_sensor = []
    present = [c for c in range(n_sensors) if (~torch.isnan(val_w[:, args.lookback:, c])).any()]
    with torch.no_grad():
        for i in range(0, val_w.shape[0], 128):
            w = val_w[i:i + 128]
            x, y = torch.nan_to_num(w[:, :args.lookback]), w[:, args.lookback:]
            pred = model(x)
            ok = ~torch.isnan(y)
            d = (pred - torch.nan_to_num(y))[ok]
            se += (d.double() ** 2).sum()
            ae += d.double().abs().sum()
            n += ok.sum()
            if args.per_sensor_metrics:
                per_sensor.append((pred[..., present] - y[..., present]).abs().mean(dim=(0, 1)))
    stats = torch.cat([se, ae, n])
    dist.all_reduce(stats)
    mae_s = None
    if args.per_sensor_metrics:
        mae_s = torch.stack(per_sensor).mean(0)
        dist.all_reduce(mae_s)
        mae_s /= world
    net.train()
    return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item(), mae_s


def seasonal_naive():
    # the report's baseline: the forecast is the last observed reading; MSE with a 95% bootstrap interval
    errs = []
    for w in val_w.tolist():
        last = w[args.lookback - 1]
        for h in range(args.horizon):
            for c in range(n_sensors):
                if w[args.lookback + h][c] == w[args.lookback + h][c]:
                    errs.append((w[args.lookback + h][c] - last[c]) ** 2)
    rng = random.Random(epoch)
    n = len(errs)
    boots = sorted(sum(errs[rng.randrange(n)] for _ in range(n)) / n for _ in range(300))
    return sum(errs) / n, boots[7], boots[292]


restart = int(env.get("TORCHELASTIC_RESTART_COUNT", "0"))
steps_per_epoch = len(loader)
log.info(f"training {args.epochs} epochs x {steps_per_epoch} steps/rank, batch {args.batch_size}/rank, "
         f"global batch {args.batch_size * world}")
step = start_epoch * steps_per_epoch
t0 = time.time()
for epoch in range(start_epoch + 1, args.epochs + 1):
    seen = 0
    te = time.time()
    for i, (w,) in enumerate(loader):
        x, y = torch.nan_to_num(w[:, :args.lookback]), w[:, args.lookback:]
        if args.flaky_feed and restart == 0 and rank == 1 and epoch == 3 and i == 7:
            raise ConnectionResetError(104, "Connection reset by peer (reading live feed snapshot for site-01)")
        pred = net(x)
        loss = nn.functional.mse_loss(pred[~torch.isnan(y)], y[~torch.isnan(y)])
        if not torch.isfinite(loss):
            raise FloatingPointError(f"non-finite loss {loss.item()} at epoch {epoch} step {i + 1}")
        if engine is not None:
            engine.backward(loss)
            engine.step()
        else:
            opt.zero_grad(set_to_none=True)
            if accelerator:
                accelerator.backward(loss)
            else:
                loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        step += 1
        seen += x.shape[0]
        if args.step_sleep:
            time.sleep(args.step_sleep)
        if (i + 1) % args.log_every == 0 and rank == 0:
            lr = opt.param_groups[0]["lr"]
            log.info(f"epoch {epoch} step {i + 1}/{steps_per_epoch} loss {loss.item():.4f} lr {lr:.2e} "
                     f"{seen * world / (time.time() - te):.0f} windows/s")
    if args.baseline_report and rank == 0:
        log.info("computing seasonal-naive baseline for the epoch report")
        b, lo, hi = seasonal_naive()
        log.info(f"seasonal-naive val MSE {b:.4f} (95% CI {lo:.4f}-{hi:.4f})")
    mse, mae, mae_s = evaluate()
    log.info(f"eval epoch {epoch}: val MSE {mse:.4f} MAE {mae:.4f} ({time.time() - te:.1f} s)")
    if mae_s is not None and rank == 0:
        log.info("per-sensor MAE " + " ".join(f"{v:.3f}" for v in mae_s.tolist()))
    if sched:
        sched.step(mse)
    if rank == 0:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val_mse": mse,
                    "mu": mu, "sd": sd}, ck)
        log.info(f"saved {ck}")
dist.barrier()
log.info(f"done: {args.epochs} epochs, {step} steps, {time.time() - t0:.1f} s")
dist.destroy_process_group()
