"""Human-activity recognition from wearable sensors: a small transformer encoder over windows of tri-axial
accelerometer + gyroscope signals (data/train/subj-NN.npz continuous recordings, windowed here), six activities,
class-weighted cross entropy (global class counts all-reduced), per-class F1 on held-out subjects all-reduced as a
confusion matrix; rank 0 writes ckpt/last.pt and ckpt/best.pt. Trained data-parallel over gloo under torchrun, Open
MPI, the DeepSpeed launcher or accelerate launch. Rank r reads the training subjects sorted(...)[r::world]."""
import argparse
import ctypes
import datetime
import faulthandler
import glob
import json
import os
import signal
import sys
import time
import traceback

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()

FS = 50


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class HARFormer(nn.Module):
    """Patch embedding (strided Conv1d) + learned positions + pre-norm transformer encoder + mean pool + linear."""

    def __init__(self, in_ch, n_cls, d=48, layers=2, heads=4, patch=8, n_tok=16, dropout=0.1):
        super().__init__()
        self.embed = nn.Conv1d(in_ch, d, patch, stride=patch)
        self.pos = nn.Parameter(torch.randn(1, n_tok, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        z = self.embed(x).transpose(1, 2) + self.pos
        return self.head(self.norm(self.enc(z).mean(1)))


def resample(sig, lab, fs, how):
    """Bring a recording to FS Hz (linear interpolation, nearest label)."""
    if how == "native":
        lib = ctypes.CDLL(os.path.abspath("libresample.so"))
        lib.resample_linear.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_int)]
        lib.resample_linear.restype = ctypes.POINTER(ctypes.c_float)
        lib.resample_free.argtypes = [ctypes.c_void_p]
        out = []
        for ch in sig:
            ch = np.ascontiguousarray(ch, np.float32)
            m = ctypes.c_int(0)
            y = lib.resample_linear(ch.ctypes.data, len(ch), fs, FS, ctypes.byref(m))
            out.append(np.ctypeslib.as_array(y, (m.value,)).copy())
            lib.resample_free(y)
        new = np.stack(out)
    else:
        if fs == FS:
            return sig, lab
        m = len(lab) * FS // fs
        t = np.arange(m) * fs / FS
        new = np.stack([np.interp(t, np.arange(len(lab)), ch) for ch in sig]).astype(np.float32)
    idx = np.minimum((np.arange(new.shape[1]) * fs / FS).astype(np.int64), len(lab) - 1)
    return new, lab[idx]


def windows(sig, lab, window, stride):
    v = np.lib.stride_tricks.sliding_window_view(sig, window, axis=1)[:, ::stride]  # [C, n, window]
    x = np.ascontiguousarray(v.transpose(1, 0, 2))
    y = lab[window // 2::stride][: len(x)].astype(np.int64)
    return x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dim", type=int, default=48)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--window", type=int, default=128, help="samples per window (50 Hz)")
    ap.add_argument("--stride", type=int, default=64, help="samples between window starts")
    ap.add_argument("--norm", choices=("global", "subject"), default="global",
                    help="channel standardisation with all ranks' statistics, or per subject")
    ap.add_argument("--balance", choices=("none", "local"), default="none",
                    help="class-balanced sampling from this rank's class frequencies")
    ap.add_argument("--resample", choices=("numpy", "native"), default="numpy")
    ap.add_argument("--features", choices=("raw", "spectrogram"), default="raw")
    ap.add_argument("--shm-cache", action="store_true", help="keep the windowed training set in shared memory")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--plot-confusion", action="store_true")
    ap.add_argument("--upload-lock", action="store_true",
                    help="wait for the checkpoint uploader's lock before writing checkpoints")
    ap.add_argument("--resume", default="")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
    if a.features == "spectrogram":
        import torchaudio
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
    with open(os.path.join(a.data, "meta.json")) as f:
        meta = json.load(f)
    acts, n_cls, n_ch = meta["activities"], len(meta["activities"]), len(meta["channels"])
    if rank == 0:
        log(f"har: world {world}, torch {torch.__version__}, numpy {np.__version__}, {n_cls} activities, "
            f"{n_ch} channels at {meta['fs']} Hz, args {vars(a)}")
    log(f"rank {rank}: pid {os.getpid()} on {os.uname().nodename}")

    files = sorted(glob.glob(os.path.join(a.data, "train", "subj-*.npz")))[rank::world]
    subjects = []
    for fn in files:
        z = np.load(fn)
        sig, lab = resample(z["sig"], z["lab"], int(z["fs"]), a.resample)
        if int(z["fs"]) != FS:
            log(f"rank {rank}: {os.path.basename(fn)} recorded at {int(z['fs'])} Hz, resampled to {FS} Hz")
        subjects.append((os.path.basename(fn), sig, lab))
    if a.norm == "global":
        st = torch.zeros(3, n_ch, dtype=torch.float64)
        for _, sig, _ in subjects:
            st[0] += torch.from_numpy(np.nansum(sig, 1))
            st[1] += torch.from_numpy(np.nansum(sig.astype(np.float64) ** 2, 1))
            st[2] += torch.from_numpy((~np.isnan(sig)).sum(1).astype(np.float64))
        dist.all_reduce(st)
        mean = (st[0] / st[2]).numpy()
        std = np.sqrt((st[1] / st[2]).numpy() - mean ** 2)
        if rank == 0:
            log(f"channel mean {np.round(mean, 3).tolist()} std {np.round(std, 3).tolist()}")
    xs, ys = [], []
    for name, sig, lab in subjects:
        if a.norm == "subject":
            mu, sd = sig.mean(1, keepdims=True), sig.std(1, keepdims=True)
            sig = (sig - mu) / sd
        else:
            sig = (sig - mean[:, None].astype(np.float32)) / std[:, None].astype(np.float32)
        x, y = windows(sig, lab, a.window, a.stride)
        bad = np.isnan(x).any(axis=(1, 2))
        if bad.any() and a.norm == "global":
            log(f"rank {rank}: WARNING {name}: dropping {int(bad.sum())} of {len(x)} windows with missing samples "
                f"(sensor dropouts)")
            x, y = x[~bad], y[~bad]
        xs.append(x)
        ys.append(y)
    X, Y = np.concatenate(xs), np.concatenate(ys)
    if a.shm_cache:
        from multiprocessing import shared_memory
        log(f"rank {rank}: caching {len(X)} windows ({X.nbytes / 2**20:.1f} MiB) in shared memory "
            f"/dev/shm/har-win-{rank}")
        shm = shared_memory.SharedMemory(name=f"har-win-{rank}", create=True, size=X.nbytes)
        buf = np.ndarray(X.shape, X.dtype, buffer=shm.buf)
        buf[:] = X
        X = buf
    local = torch.bincount(torch.from_numpy(Y), minlength=n_cls)
    counts = local.clone()
    dist.all_reduce(counts)
    log(f"rank {rank}: subjects {[s[0] for s in subjects]}, {len(X)} windows of {a.window} samples "
        f"(stride {a.stride}), class counts {local.tolist()}")
    class_w = (counts.sum() / (n_cls * counts.clamp(min=1))).float()
    if rank == 0:
        log(f"global class counts {counts.tolist()}, loss weights {[round(float(w), 3) for w in class_w]}")

    Xt, Yt = torch.from_numpy(X), torch.from_numpy(Y)
    in_ch, patch, n_tok = n_ch, 8, a.window // 8
    if a.features == "spectrogram":
        spec = torchaudio.transforms.Spectrogram(n_fft=16, hop_length=8, power=2.0)
        Xt = torch.log1p(spec(Xt)).flatten(1, 2)
        in_ch, patch, n_tok = Xt.shape[1], 1, Xt.shape[2]
    ds = torch.utils.data.TensorDataset(Xt, Yt)
    sampler = None
    if a.balance == "local":
        n = len(Y)
        per_class = {c: int((Y == c).sum()) for c in range(n_cls)}
        cls_weight = {c: n / (n_cls * per_class[c]) for c in range(n_cls)}
        sampler = torch.utils.data.WeightedRandomSampler([cls_weight[int(c)] for c in Y], n,
                                                         generator=torch.Generator().manual_seed(rank))
    bs = a.batch_size
    cfg = None
    if a.deepspeed:
        if a.ds_config:
            with open(a.ds_config) as f:
                cfg = json.load(f)
        else:
            cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
                   "gradient_accumulation_steps": 1, "steps_per_print": 50, "gradient_clipping": 1.0,
                   "optimizer": {"type": "AdamW", "params": {"lr": a.lr, "torch_adam": True}},
                   "zero_optimization": {"stage": 0}}
        bs = cfg["train_micro_batch_size_per_gpu"]
    loader = torch.utils.data.DataLoader(ds, batch_size=bs, shuffle=sampler is None, sampler=sampler,
                                         drop_last=True, num_workers=a.workers,
                                         generator=torch.Generator().manual_seed(rank))

    vfiles = sorted(glob.glob(os.path.join(a.data, "val", "subj-*.npz")))[rank::world]
    vx, vy = [], []
    for fn in vfiles:
        z = np.load(fn)
        sig = z["sig"]
        if a.norm == "subject":
            sig = (sig - sig.mean(1, keepdims=True)) / sig.std(1, keepdims=True)
        else:
            sig = (sig - mean[:, None].astype(np.float32)) / std[:, None].astype(np.float32)
        x, y = windows(sig, z["lab"], a.window, a.window)
        vx.append(x)
        vy.append(y)
    VX = torch.from_numpy(np.concatenate(vx)) if vx else torch.zeros(0, n_ch, a.window)
    VY = torch.from_numpy(np.concatenate(vy)) if vy else torch.zeros(0, dtype=torch.long)
    if a.features == "spectrogram" and len(VX):
        VX = torch.log1p(spec(VX)).flatten(1, 2)

    model = HARFormer(in_ch, n_cls, a.dim, a.layers, 4, patch, n_tok)
    if rank == 0:
        log(f"model: HARFormer, {a.layers} layers, dim {a.dim}, {n_tok} tokens, "
            f"{sum(p.numel() for p in model.parameters())} parameters")
    start = 0
    best = -1.0
    if a.deepspeed:
        import deepspeed
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
        if a.resume:
            ck = torch.load(a.resume, map_location="cpu")
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["optim"])
            start, best = ck["epoch"] + 1, ck["macro_f1"]
            log(f"rank {rank}: resumed from {a.resume} (epoch {ck['epoch']}, macro-F1 {best:.4f})")
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)

    def evaluate():
        model.eval()
        conf = torch.zeros(n_cls, n_cls, dtype=torch.float64)
        with torch.no_grad():
            for i in range(0, len(VX), 256):
                p = model(VX[i:i + 256]).argmax(1)
                conf.index_put_((VY[i:i + 256], p), torch.ones(len(p), dtype=torch.float64), accumulate=True)
        model.train()
        return conf

    plot = a.plot_confusion

    def save(epoch, f1, is_best, conf):
        nonlocal plot
        os.makedirs(a.ckpt_dir, exist_ok=True)
        if a.upload_lock:  # the uploader sidecar copies ckpt/ to the bucket while it holds this file
            lock = os.path.join(a.ckpt_dir, ".upload.lock")
            while os.path.exists(lock):
                time.sleep(1)
        state = {"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch, "macro_f1": f1}
        names = ["last.pt"] + (["best.pt"] if is_best else [])
        for nm in names:
            torch.save(state, os.path.join(a.ckpt_dir, nm))
        log(f"saved {', '.join(os.path.join(a.ckpt_dir, nm) for nm in names)} (epoch {epoch}, macro-F1 {f1:.4f})")
        if plot:
            try:
                import matplotlib
                matplotlib.use("Agg")
                import matplotlib.pyplot as plt
                fig, ax = plt.subplots(figsize=(5, 5))
                ax.imshow(conf.numpy())
                fig.savefig(os.path.join(a.ckpt_dir, f"confusion-{epoch:02d}.png"))
                plt.close(fig)
            except Exception:
                traceback.print_exc()
                log("confusion plot unavailable, writing the confusion matrix as CSV instead")
                plot = False
        if a.plot_confusion and not plot:
            np.savetxt(os.path.join(a.ckpt_dir, f"confusion-{epoch:02d}.csv"), conf.numpy(), fmt="%d",
                       delimiter=",", header=",".join(acts))

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = bad = 0
    epoch = start
    for epoch in range(start, a.epochs):
        net.train()
        t0, run_loss, nb = time.time(), 0.0, 0
        for xb, yb in loader:
            logits = net(xb)
            loss = F.cross_entropy(logits, yb, weight=class_w)
            if a.deepspeed:
                net.backward(loss)
                net.step()
                gn = None
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
            step += 1
            nb += 1
            run_loss += loss.item()
            bad = bad + 1 if not torch.isfinite(loss) else 0
            if step % a.log_every == 0 and rank == 0:
                acc_b = float((logits.argmax(1) == yb).float().mean())
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc_b:.3f} "
                    f"{'' if gn is None else f'grad-norm {float(gn):.3f} '}"
                    f"lr {opt.param_groups[0]['lr']:.2e} {nb * bs * world / (time.time() - t0):.0f} windows/s")
            if bad >= 10:
                log(f"rank {rank}: loss not finite for {bad} steps (last {loss.item()}), stopping")
                sys.exit(3)
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch, float("nan"), False, torch.zeros(n_cls, n_cls))
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        conf = evaluate()
        part = torch.tensor([run_loss, float(nb)], dtype=torch.float64)
        dist.all_reduce(conf)
        dist.all_reduce(part)
        tp = conf.diag()
        prec = tp / conf.sum(0).clamp(min=1)
        rec = tp / conf.sum(1).clamp(min=1)
        f1 = 2 * prec * rec / (prec + rec).clamp(min=1e-9)
        macro = float(f1.mean())
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {float(part[0] / max(1.0, part[1])):.4f} accuracy "
                f"{float(tp.sum() / conf.sum().clamp(min=1)):.4f} macro-F1 {macro:.4f} over {int(conf.sum())} "
                f"windows, epoch time {time.time() - t0:.1f}s")
            log("per-class F1: " + ", ".join(f"{n} {float(v):.3f}" for n, v in zip(acts, f1)))
            save(epoch, macro, macro > best, conf)
        best = max(best, macro)
    if rank == 0:
        log(f"done: {epoch + 1} epochs, best macro-F1 {best:.4f}")
    if a.shm_cache:
        shm.close()
        shm.unlink()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
