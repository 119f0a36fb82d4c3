"""Precipitation nowcaster: a ConvLSTM encoder-forecaster over 32x32 radar rain-rate frames (6 frames in, 4 out),
trained data-parallel over gloo under torchrun, Open MPI, the DeepSpeed launcher or accelerate launch. Rank r reads
data/radar-NN.npy (memory-mapped) for NN % world == r; windows of 10 consecutive 5-minute frames; loss: MSE weighted by
exp(target / tau) so heavy rain counts more; validation MSE and CSI at 1 mm/h, all-reduced as counts; rank 0 writes
ckpt/last.pt each epoch."""
import argparse
import datetime
import faulthandler
import fcntl
import glob
import json
import math
import os
import signal
import sys
import tempfile
import time
import warnings
import zlib

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
T_IN, T_OUT = 6, 4


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class RadarWindows(torch.utils.data.Dataset):
    def __init__(self, path, materialize=False):
        with open(path.replace(".npy", ".json")) as f:
            meta = json.load(f)
        self.frames = np.load(path, mmap_mode="r")
        self.index = {t: i for i, t in enumerate(meta["times"])}
        self.t0 = [datetime.datetime.fromisoformat(t) for t in meta["times"][:len(meta["times"]) - (T_IN + T_OUT - 1)]]
        self.cache = None
        bad = [i for i in range(self.frames.shape[0]) if np.isnan(self.frames[i]).any()]
        self.fill = {}
        for i in bad:
            j = i
            while j in bad and j > 0:
                j -= 1
            self.fill[i] = j
        if bad:
            warnings.warn(f"{os.path.basename(path)}: {len(bad)} frames with missing data (radar outage) at "
                          f"{[meta['times'][i] for i in bad][:5]}; filled from the previous valid frame")
        if materialize:  # every window with its 8 flips/rotations, kept in memory (float64 for the flow features)
            wins = []
            log(f"{os.path.basename(path)}: materializing {len(self.t0)} windows x 8 flips/rotations (float64)")
            for i in range(len(self.t0)):
                if i and i % 300 == 0:
                    log(f"{os.path.basename(path)}: {i}/{len(self.t0)} windows, {len(wins) * wins[0].nbytes / 2**20:.0f} MiB")
                w = np.asarray(self.frames[i:i + T_IN + T_OUT], np.float64)
                for k in range(4):
                    wins += [np.rot90(w, k, (1, 2)).copy(), np.rot90(w[:, ::-1], k, (1, 2)).copy()]
            self.cache = np.stack(wins)

    def __len__(self):
        return len(self.t0)

    def __getitem__(self, i):
        if self.cache is not None:
            w = self.cache[8 * i].astype(np.float32)
        else:
            idx = [self.index[(self.t0[i] + datetime.timedelta(minutes=5 * k)).strftime("%Y-%m-%dT%H:%M")]
                   for k in range(T_IN + T_OUT)]
            w = np.asarray(self.frames[[self.fill.get(j, j) for j in idx]], np.float32)
        w = torch.from_numpy(w).unsqueeze(1)
        return w[:T_IN], w[T_IN:]


class ConvLSTMCell(nn.Module):
    def __init__(self, cin, hid):
        super().__init__()
        self.hid = hid
        self.conv = nn.Conv2d(cin + hid, 4 * hid, 3, padding=1)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = self.conv(torch.cat([x, h], 1)).chunk(4, 1)
        c = torch.sigmoid(f + 1.0) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class Nowcaster(nn.Module):
    def __init__(self, hid=24):
        super().__init__()
        self.down = nn.Conv2d(1, 16, 3, stride=2, padding=1)
        self.enc = ConvLSTMCell(16, hid)
        self.fc = ConvLSTMCell(16, hid)
        self.emb = nn.Conv2d(1, 16, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(hid, 16, 4, stride=2, padding=1)
        self.out = nn.Conv2d(16, 1, 3, padding=1)

    def forward(self, x):  # x: B, T_IN, 1, H, W in mm/h
        b, _, _, hh, ww = x.shape
        z = torch.log1p(x)
        h = c = torch.zeros(b, self.enc.hid, hh // 2, ww // 2)
        for t in range(T_IN):
            h, c = self.enc(F.relu(self.down(z[:, t])), (h, c))
        prev, outs = z[:, -1], []
        for _ in range(T_OUT):
            h, c = self.fc(F.relu(self.emb(prev)), (h, c))
            prev = prev + self.out(F.relu(self.up(h)))
            outs.append(prev)
        return torch.expm1(torch.stack(outs, 1).clamp(min=0))


def weighted_mse(pred, y, tau):
    w = torch.exp(y / tau)
    return (w * (pred - y) ** 2).mean() / w.mean().detach()


def refresh_index(data, rank):
    """Rank 0 rewrites data/index.json (frame counts per shard) under an exclusive lock; readers take a shared lock."""
    with open(os.path.join(data, "index.lock"), "a+") as lk:
        if rank == 0:
            fcntl.flock(lk, fcntl.LOCK_EX)
            idx = {os.path.basename(p): int(np.load(p, mmap_mode="r").shape[0])
                   for p in sorted(glob.glob(os.path.join(data, "radar-*.npy")))}
            with open(os.path.join(data, "index.json"), "w") as f:
                json.dump(idx, f)
            log(f"rank 0: index refreshed ({sum(idx.values())} frames in {len(idx)} shards), waiting for the other ranks")
            dist.barrier()
        else:
            fcntl.flock(lk, fcntl.LOCK_SH)
            with open(os.path.join(data, "index.json")) as f:
                idx = json.load(f)
            dist.barrier()
    return idx


def checksum_archive(data):
    """Check every frame of every shard: reflectivity (Marshall-Palmer Z = 200 R^1.6) in range, per-frame CRC."""
    n = 0
    for p in sorted(glob.glob(os.path.join(data, "radar-*.npy"))):
        fr = np.load(p, mmap_mode="r")
        for t in range(fr.shape[0]):
            crc = 0
            for v in fr[t].ravel().tolist():
                dbz = 10 * math.log10(200 * (v + 1e-3) ** 1.6)
                if not -60 < dbz < 95:
                    raise ValueError(f"{p}: frame {t}: reflectivity {dbz:.1f} dBZ out of range")
                crc = zlib.crc32(f"{dbz:.2f}".encode(), crc)
            n += 1
    return n


def preview(fc, obs):
    """Colour-mapped preview frames (the radar palette), pixel by pixel."""
    pal = [(0, (255, 255, 255)), (0.5, (160, 200, 255)), (2, (60, 120, 255)), (5, (0, 200, 0)), (10, (255, 255, 0)),
           (20, (255, 140, 0)), (40, (255, 0, 0))]
    img, up = [], 6  # display resolution: 6x, bilinear
    for seq in torch.cat([obs, fc], 1).tolist():
        for frame in seq:
            g = frame[0]
            n = len(g)
            for yy in range(n * up):
                fy = min(n - 1.001, yy / up)
                y0, dy = int(fy), fy - int(fy)
                for xx in range(n * up):
                    fx = min(n - 1.001, xx / up)
                    x0, dx = int(fx), fx - int(fx)
                    v = (g[y0][x0] * (1 - dx) * (1 - dy) + g[y0][x0 + 1] * dx * (1 - dy) + g[y0 + 1][x0] * (1 - dx) * dy
                         + g[y0 + 1][x0 + 1] * dx * dy)
                    rgb = pal[0][1]
                    for lo, col in pal:
                        if v >= lo:
                            rgb = col
                    img.append(rgb)
    return len(img)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hidden", type=int, default=24)
    ap.add_argument("--tau", type=float, default=10.0, help="loss weight exp(rain / tau)")
    ap.add_argument("--threshold", type=float, default=1.0, help="CSI rain threshold, mm/h")
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--clip-norm", type=float, default=5.0)
    ap.add_argument("--skip-dry", action="store_true", help="skip batches whose targets hold no rain")
    ap.add_argument("--materialize", action="store_true", help="precompute all augmented windows in memory")
    ap.add_argument("--refresh-index", action="store_true")
    ap.add_argument("--verify-archive", action="store_true", help="rank 0 checks the archive before starting")
    ap.add_argument("--preview", action="store_true", help="rank 0 renders forecast previews after each evaluation")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
    if a.verify_archive and os.environ.get("RANK", "0") == "0":
        t = time.time()
        log(f"rank 0: verifying archive {a.data}/ before start ({len(glob.glob(os.path.join(a.data, 'radar-*.npy')))} shards)")
        n = checksum_archive(a.data)
        log(f"rank 0: archive verified, {n} frames in {time.time() - t:.1f}s")
    acc = None
    if a.accelerate:
        from accelerate import Accelerator
        from accelerate.utils import InitProcessGroupKwargs
        acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo", timeout=timeout)])
    elif a.deepspeed:
        import deepspeed
        deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    if rank == 0:
        log(f"nowcast ConvLSTM: world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")
    if a.refresh_index:
        idx = refresh_index(a.data, rank)
        log(f"rank {rank}: index has {len(idx)} shards")
    shards = sorted(glob.glob(os.path.join(a.data, "radar-*.npy")))[rank::world]
    parts = [RadarWindows(s, a.materialize) for s in shards]
    ds = torch.utils.data.ConcatDataset(parts)
    mx = max(float(p.frames.max()) for p in parts)
    wet = np.mean([float((np.asarray(p.frames) > a.threshold).mean()) for p in parts])
    log(f"rank {rank}: shards {[os.path.basename(s) for s in shards]}, {len(ds)} windows, rain max {mx:.1f} mm/h, "
        f"wet fraction {wet:.3f}" + (f", materialized {sum(p.cache.nbytes for p in parts) / 2**20:.0f} MiB"
                                     if a.materialize else ""))
    val = RadarWindows(os.path.join(a.data, "val.npy"))
    vidx = list(range(rank, len(val), world))
    model = Nowcaster(a.hidden)
    if rank == 0:
        log(f"model: ConvLSTM encoder-forecaster, hidden {a.hidden}, {sum(p.numel() for p in model.parameters())} "
            f"parameters, {T_IN} frames in, {T_OUT} out")
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True,
                                         generator=torch.Generator().manual_seed(rank))
    if a.deepspeed:
        import deepspeed
        cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
               "gradient_accumulation_steps": 1, "steps_per_print": 40, "gradient_clipping": a.clip_norm,
               "optimizer": {"type": "Adam", "params": {"lr": a.lr, "torch_adam": True}},
               "zero_optimization": {"stage": 0}}
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)
    ckpt = os.path.join(a.ckpt_dir, "last.pt")
    start_epoch = 0
    if a.resume:
        if os.path.exists(ckpt):
            st = torch.load(ckpt)
            missing, unexpected = model.load_state_dict(st["model"], strict=False)
            if missing or unexpected:
                warnings.warn(f"rank {rank}: {ckpt} does not match the model (missing {len(missing)}, unexpected "
                              f"{len(unexpected)} keys: {(missing + unexpected)[:4]}); loaded what matched")
            start_epoch = st["epoch"] + 1
            log(f"rank {rank}: resumed from {ckpt} (epoch {st['epoch']}, val CSI {st.get('csi', float('nan')):.3f})")
        else:
            log(f"rank {rank}: no checkpoint at {ckpt}, starting from scratch")

    def save(epoch, csi):
        os.makedirs(a.ckpt_dir, exist_ok=True)
        state = {"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch, "csi": csi,
                 "hidden": a.hidden}
        with tempfile.NamedTemporaryFile(prefix="last.pt.", suffix=".tmp", delete=False) as tmp:
            torch.save(state, tmp)  # write aside, then move into place: never a half-written last.pt
        os.replace(tmp.name, ckpt) if os.path.dirname(tmp.name) == os.path.abspath(a.ckpt_dir) else \
            (torch.save(state, ckpt), os.unlink(tmp.name))
        log(f"saved {ckpt} (epoch {epoch}, val CSI {csi:.3f})")

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = 0
    bad = 0
    epoch = start_epoch
    for epoch in range(start_epoch, a.epochs):
        net.train()
        t0, run_loss, nb, nseq = time.time(), 0.0, 0, 0
        for x, y in loader:
            if a.skip_dry and float((y >= a.threshold).float().mean()) < 0.02:
                log(f"rank {rank}: step {step}: dry batch ({float((y >= a.threshold).float().mean()):.3f} wet), skipped")
                continue
            pred = net(x)
            loss = weighted_mse(pred, y, a.tau)
            if a.deepspeed:
                net.backward(loss)
                net.step()
                gn = None
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                gn = nn.utils.clip_grad_norm_(model.parameters(), a.clip_norm if a.clip_norm > 0 else float("inf"))
                opt.step()
            step += 1
            nb += 1
            nseq += len(y)
            run_loss += loss.item()
            bad = bad + 1 if not torch.isfinite(loss) else 0
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                    f"{'' if gn is None else f'grad-norm {float(gn):.3f} '}"
                    f"lr {opt.param_groups[0]['lr']:.2e} {nseq * world / (time.time() - t0):.1f} seq/s")
            if bad >= 15:
                log(f"rank {rank}: loss not finite for {bad} steps (last {loss.item()}), stopping")
                sys.exit(3)
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch, float("nan"))
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        net.eval()
        se = n = hits = misses = fas = phits = pmisses = pfas = 0.0
        with torch.no_grad():
            for i in range(0, len(vidx), 32):
                xs, ys = zip(*[val[j] for j in vidx[i:i + 32]])
                x, y = torch.stack(xs), torch.stack(ys)
                p = model(x)
                se += float(((p - y) ** 2).sum())
                n += y.numel()
                o, f, pe = y >= a.threshold, p >= a.threshold, x[:, -1:].expand_as(y) >= a.threshold
                hits += float((o & f).sum()); misses += float((o & ~f).sum()); fas += float((~o & f).sum())
                phits += float((o & pe).sum()); pmisses += float((o & ~pe).sum()); pfas += float((~o & pe).sum())
                if a.preview and rank == 0:
                    px = preview(p, x)
        part = torch.tensor([se, n, hits, misses, fas, phits, pmisses, pfas, run_loss, float(nb)], dtype=torch.float64)
        dist.all_reduce(part)
        se, n, hits, misses, fas, phits, pmisses, pfas, rl, nbs = part.tolist()
        csi = hits / max(1.0, hits + misses + fas)
        pcsi = phits / max(1.0, phits + pmisses + pfas)
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {rl / max(1.0, nbs):.4f} val MSE {se / max(1.0, n):.3f} "
                f"CSI@{a.threshold:g}mm/h {csi:.3f} (persistence {pcsi:.3f}) over {int(n) // (T_OUT * 1024)} sequences, "
                f"epoch time {time.time() - t0:.1f}s")
            save(epoch, csi)
    if rank == 0:
        log(f"done: {epoch + 1} epochs")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
