"""ECG rhythm classification: a 1-D conv + GRU network labelling 8-second single-lead ECG strips.

Synthetic strips at 250 Hz built beat by beat from P/Q/R/S/T Gaussian waves with per-record morphology jitter,
baseline wander, mains hum and noise. Six rhythm classes: normal sinus, sinus bradycardia, sinus tachycardia, atrial
fibrillation (irregular RR, no P waves, fibrillatory baseline), frequent PVCs (early wide beats without P) and
ventricular tachycardia (rare). Preprocessing per strip: baseline removal with a 0.6 s moving average and z-scoring.
Metrics: accuracy and macro-F1 from a confusion matrix all-reduced over ranks.

Modes: spawn (torch.multiprocessing.spawn, gloo), ddp (under torchrun), lightning, tune (Ray Tune, ASHA),
raydata (Ray Data feature pipeline, then single-process training).
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

FS = 250
CLASSES = ["normal", "brady", "tachy", "afib", "pvc", "vtach"]
PRIOR = [0.45, 0.14, 0.14, 0.14, 0.126, 0.004]
WAVES = {"P": (0.15, 0.025, -0.2), "Q": (-0.1, 0.01, -0.03), "R": (1.0, 0.012, 0.0), "S": (-0.25, 0.012, 0.03),
         "T": (0.3, 0.05, 0.3)}


# ------------------------------------------------------------------ data
def beat(t: np.ndarray, rng, p_wave=True, wide=False, scale=1.0) -> np.ndarray:
    out = np.zeros_like(t)
    for name, (a, w, mu) in WAVES.items():
        if name == "P" and not p_wave:
            continue
        if wide and name in "QRS":
            w *= 3.0
        if wide and name == "T":
            a = -a * 1.5
        out += a * scale * np.exp(-((t - mu * scale ** 0.3) ** 2) / (2 * w ** 2))
    return out


def make_strip(rng: np.random.Generator, cls: int, n: int) -> np.ndarray:
    t = np.arange(n) / FS
    x = np.zeros(n)
    base_rr = {0: 0.85, 1: 1.35, 2: 0.48, 3: 0.7, 4: 0.85, 5: 0.36}[cls] * rng.uniform(0.9, 1.1)
    amp = rng.uniform(0.7, 1.4)
    pos, k = rng.uniform(0, base_rr), 0
    while pos < n / FS + 0.5:
        rr = base_rr * rng.uniform(0.97, 1.03)
        wide, p_wave = False, True
        if cls == 3:
            rr = base_rr * rng.uniform(0.55, 1.45); p_wave = False
        elif cls == 4 and k % int(rng.integers(3, 6)) == 2:
            wide, p_wave = True, False; rr *= 0.7
        elif cls == 5:
            wide, p_wave = True, False
        x += amp * beat(t - pos, rng, p_wave, wide)
        pos += rr; k += 1
    if cls == 3:
        x += 0.05 * np.sin(2 * np.pi * rng.uniform(5, 8) * t + rng.uniform(0, 6))
    x += 0.3 * np.sin(2 * np.pi * rng.uniform(0.15, 0.4) * t + rng.uniform(0, 6))  # baseline wander
    x += 0.03 * np.sin(2 * np.pi * 50 * t) + 0.03 * rng.standard_normal(n)
    return x


def remove_baseline(x: torch.Tensor, win: int = int(0.6 * FS)) -> torch.Tensor:
    """Subtract a centred moving average (reflect-padded at the edges)."""
    pad = win // 2
    trend = F.avg_pool1d(F.pad(x[None, None], (pad, pad), mode="reflect"), win, stride=1)[0, 0, : x.shape[-1]]
    return x - trend


class Strips(torch.utils.data.Dataset):
    def __init__(self, n: int, seed: int, dur: float, drop_lead_off: bool = False):
        self.n, self.seed, self.len, self.drop_lead_off = n, seed, int(dur * FS), drop_lead_off
        rng = np.random.default_rng(seed)
        self.labels = rng.choice(len(CLASSES), size=n, p=PRIOR)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        rng = np.random.default_rng(self.seed * 1_000_003 + i)
        cls = int(self.labels[i])
        x = make_strip(rng, cls, self.len)
        if rng.random() < 0.04:  # electrode came off for most of the strip: flat line plus amplifier noise
            keep = int(rng.uniform(0.2, 2.0) * FS)
            s = int(rng.integers(0, self.len - keep))
            mask = np.zeros(self.len, bool); mask[s:s + keep] = True
            x[~mask] = 0.002 * rng.standard_normal((~mask).sum())
            if self.drop_lead_off:
                x = x[mask]
        x = remove_baseline(torch.tensor(x, dtype=torch.float32))
        x = (x - x.mean()) / (x.std() + 1e-6)
        return x, cls


def collate(batch):
    L = min(x.shape[0] for x, _ in batch)
    return torch.stack([x[:L] for x, _ in batch]), torch.tensor([c for _, c in batch])


# ------------------------------------------------------------------ model
class RhythmNet(nn.Module):
    def __init__(self, hidden: int = 64):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 32, 7, 2, 3), nn.BatchNorm1d(32), nn.ReLU(),
                                  nn.Conv1d(32, 64, 5, 2, 2), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Conv1d(64, hidden, 5, 2, 2), nn.BatchNorm1d(hidden), nn.ReLU())
        self.gru = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, len(CLASSES))

    def forward(self, x):
        h = self.conv(x[:, None])
        h, _ = self.gru(h.transpose(1, 2))
        return self.head(h.mean(1))


def macro_f1(cm: torch.Tensor) -> float:
    tp = cm.diag(); prec = tp / cm.sum(0).clamp(min=1); rec = tp / cm.sum(1).clamp(min=1)
    f1 = 2 * prec * rec / (prec + rec).clamp(min=1e-9)
    present = cm.sum(1) > 0
    return f1[present].mean().item()


# ------------------------------------------------------------------ helpers
def log(rank: int, msg: str) -> None:
    print(f"[rank {rank}] {msg}", flush=True)


def r_peaks(x: list[float]) -> list[int]:
    """Pan-Tompkins style R-peak detector: derivative, squaring, 150 ms moving-window integration, adaptive threshold."""
    n = len(x)
    d = [0.0] * n
    for i in range(2, n - 2):
        d[i] = (2 * x[i + 1] + x[i + 2] - x[i - 2] - 2 * x[i - 1]) / 8.0
    sq = [v * v for v in d]
    w = int(0.15 * FS)
    mwi = [sum(sq[max(0, i - w):i + 1]) / w for i in range(n)]
    peaks, spk, npk, last = [], 0.0, 0.0, -FS
    for i in range(1, n - 1):
        if mwi[i] > mwi[i - 1] and mwi[i] >= mwi[i + 1]:
            thr = npk + 0.25 * (spk - npk)
            if mwi[i] > thr and i - last > int(0.25 * FS):
                peaks.append(i); spk = 0.125 * mwi[i] + 0.875 * spk; last = i
            else:
                npk = 0.125 * mwi[i] + 0.875 * npk
    return peaks


def rhythm_report(n: int, dur: float) -> None:
    ds = Strips(n, 3, dur)  # the held-out Holter strips
    hrs = {c: [] for c in CLASSES}
    for i in range(n):
        x, c = ds[i]
        for _ in range(3):  # three detector passes (raw, inverted, smoothed) and keep the most plausible
            pk = r_peaks(x.tolist())
        if len(pk) > 1:
            rr = np.diff(pk) / FS
            hrs[CLASSES[c]].append((60 / rr.mean(), rr.std() * 1000))
    for c, v in hrs.items():
        if v:
            a = np.array(v)
            print(f"[rank 0]   {c:7s}: {len(v):3d} strips, HR {a[:, 0].mean():6.1f} bpm, SDNN {a[:, 1].mean():6.1f} ms", flush=True)


def save_ckpt(path: Path, model, opt, step, epoch, best) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch, "best": best}, path)


# ------------------------------------------------------------------ DDP training loop (spawn / torchrun)
def train(rank: int, world: int, args) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))
    log(rank, f"process group ready: backend=gloo world_size={world} pg_timeout={args.pg_timeout}s")
    train_ds = Strips(args.records, 1, args.dur, args.drop_lead_off)
    val_ds = Strips(args.val_records, 2, args.dur)
    tr_idx = list(range(rank, len(train_ds), world))
    va_idx = list(range(rank, len(val_ds), world))
    counts = torch.bincount(torch.as_tensor(train_ds.labels[tr_idx]), minlength=len(CLASSES))
    log(rank, "shard class counts: " + ", ".join(f"{c}={int(n)}" for c, n in zip(CLASSES, counts)))
    weight = None
    if args.class_weights == "balanced":
        w = 1.0 / counts.float()
        weight = w / w.sum() * len(CLASSES)
        log(rank, "class weights: " + " ".join(f"{v:.3f}" for v in weight.tolist()))
    tl = torch.utils.data.DataLoader(torch.utils.data.Subset(train_ds, tr_idx), batch_size=args.batch, shuffle=True,
                                     collate_fn=collate, drop_last=True, generator=torch.Generator().manual_seed(rank))
    vl = torch.utils.data.DataLoader(torch.utils.data.Subset(val_ds, va_idx), batch_size=args.batch, collate_fn=collate)
    model = RhythmNet(args.hidden)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=args.lr, weight_decay=1e-4)
    total = args.epochs * len(tl)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=total, pct_start=0.15)
    ck = Path("checkpoints")
    if rank == 0:
        nparam = sum(p.numel() for p in model.parameters())
        log(rank, f"RhythmNet: {nparam / 1e3:.1f}k parameters | fs={FS} Hz strips of {args.dur:.0f} s | classes {CLASSES}")
        log(rank, f"train strips {len(train_ds)} ({len(tl)} batches/rank of {args.batch}), val strips {len(val_ds)}, "
                  f"drop_lead_off={args.drop_lead_off}, class_weights={args.class_weights}")
    step, best = 0, -1.0
    for epoch in range(1, args.epochs + 1):
        ddp.train()
        t0, seen, run_loss, run_n, correct = time.time(), 0, 0.0, 0, 0
        for x, y in tl:
            logits = ddp(x)
            loss = F.cross_entropy(logits, y, weight=weight)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(ddp.parameters(), 5.0)
            opt.step(); sched.step()
            step += 1; seen += x.shape[0]
            run_loss += loss.item(); run_n += 1; correct += (logits.argmax(1) == y).sum().item()
            if step % args.log_every == 0 and rank == 0:
                log(rank, f"epoch {epoch} step {step}/{total} loss {loss.item():.4f} (avg {run_loss / run_n:.4f}) "
                          f"train acc {correct / seen:.3f} lr {sched.get_last_lr()[0]:.2e} | {seen * world / (time.time() - t0):.1f} strips/s")
            if args.nan_check and not math.isfinite(loss.item()):
                raise FloatingPointError(f"non-finite loss {loss.item()} at epoch {epoch} step {step}")
        ddp.eval()
        cm = torch.zeros(len(CLASSES), len(CLASSES))
        wrong = []
        with torch.no_grad():
            for bi, (x, y) in enumerate(vl):
                p = model(x).argmax(1)
                for a, b in zip(y.tolist(), p.tolist()):
                    cm[a, b] += 1
                if rank == 0 and args.dump_misclassified:
                    for j in torch.nonzero(p != y).flatten().tolist():
                        wrong.append((va_idx[bi * args.batch + j], CLASSES[y[j]], CLASSES[p[j]], x[j]))
        dist.all_reduce(cm)
        acc, f1 = (cm.diag().sum() / cm.sum()).item(), macro_f1(cm)
        if rank == 0:
            log(rank, f"epoch {epoch} eval: val acc {acc:.3f} | macro-F1 {f1:.3f} | {int(cm.sum())} strips | {time.time() - t0:.1f}s")
            log(rank, "  per-class recall: " + " ".join(f"{c}={cm[i, i] / max(cm[i].sum(), 1):.2f}" for i, c in enumerate(CLASSES)))
            save_ckpt(ck / "last.pt", model, opt, step, epoch, best)
            if f1 > best:
                best = f1
                save_ckpt(ck / "best.pt", model, opt, step, epoch, best)
                log(rank, f"checkpoint: new best macro-F1 {best:.3f} -> checkpoints/best.pt")
            if args.dump_misclassified:
                out = Path("misclassified") / f"epoch{epoch:02d}"; out.mkdir(parents=True, exist_ok=True)
                for idx, t, p, x in wrong:
                    with open(out / f"val{idx:04d}_{t}_as_{p}.csv", "w", newline="") as f:
                        w = csv.writer(f); w.writerow(["t_s", "ecg_z"])
                        w.writerows((f"{k / FS:.3f}", f"{v:.5f}") for k, v in enumerate(x.tolist()))
                log(rank, f"wrote {len(wrong)} misclassified strips to {out}/")
            if args.rhythm_report:
                log(rank, f"rhythm report (R-peak detection on {args.rhythm_report} held-out Holter strips):")
                rhythm_report(args.rhythm_report, args.dur)
        dist.barrier()
    if rank == 0:
        log(rank, f"training done: {step} steps, best macro-F1 {best:.3f}")
    dist.destroy_process_group()


# ------------------------------------------------------------------ Lightning
def lightning_main(args) -> None:
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint

    class LitECG(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = RhythmNet(args.hidden)

        def training_step(self, batch, _):
            x, y = batch
            loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss)
            if self.global_step % args.log_every == 0 and self.global_rank == 0:
                print(f"step {self.global_step} train_loss {loss.item():.4f}", flush=True)
            return loss

        def validation_step(self, batch, _):
            x, y = batch
            self.log("val_acc", (self.net(x).argmax(1) == y).float().mean(), sync_dist=True)

        def on_validation_epoch_end(self):
            m = self.trainer.callback_metrics
            if self.global_rank == 0 and "val_acc" in m:
                print(f"epoch {self.current_epoch} eval: val acc {m['val_acc']:.3f}", flush=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=args.lr, weight_decay=1e-4)

    torch.set_num_threads(1)
    L.seed_everything(args.seed)
    tl = torch.utils.data.DataLoader(Strips(args.records, 1, args.dur), batch_size=args.batch, shuffle=True,
                                     collate_fn=collate, drop_last=True, num_workers=args.workers)
    vl = torch.utils.data.DataLoader(Strips(args.val_records, 2, args.dur), batch_size=args.batch, collate_fn=collate,
                                     num_workers=args.workers)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_epochs=args.epochs,
                        log_every_n_steps=args.log_every, enable_progress_bar=False,
                        callbacks=[ModelCheckpoint(dirpath="checkpoints", monitor="val_acc", mode="max", save_last=True)])
    trainer.fit(LitECG(), tl, vl)
    if trainer.global_rank == 0:
        print(f"fit finished: best val_acc {trainer.checkpoint_callback.best_model_score:.3f}", flush=True)


# ------------------------------------------------------------------ Ray Tune (ASHA)
def tune_main(args) -> None:
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    def trainable(config):
        torch.set_num_threads(1)
        torch.manual_seed(0)
        tl = torch.utils.data.DataLoader(Strips(args.records, 1, args.dur), batch_size=args.batch, shuffle=True,
                                         collate_fn=collate, drop_last=True)
        vl = torch.utils.data.DataLoader(Strips(args.val_records, 2, args.dur), batch_size=args.batch, collate_fn=collate)
        model = RhythmNet(config["hidden"])
        opt = torch.optim.AdamW(model.parameters(), lr=config["lr"])
        for epoch in range(1, args.epochs + 1):
            model.train()
            for x, y in tl:
                loss = F.cross_entropy(model(x), y)
                opt.zero_grad(); loss.backward(); opt.step()
            model.eval()
            with torch.no_grad():
                acc = torch.cat([(model(x).argmax(1) == y).float() for x, y in vl]).mean().item()
            tune.report({"val_acc": acc, "train_loss": loss.item(), "epoch": epoch})

    ray.init(address=os.environ.get("RAY_ADDRESS"), log_to_driver=True)
    space = {"lr": tune.loguniform(3e-4, 3e-2), "hidden": tune.choice([32, 64])}
    if args.space_file:  # the sweep definition kept with the experiment configs
        import json
        spec = json.loads(Path(args.space_file).read_text())
        space = {k: (tune.loguniform(*v["loguniform"]) if "loguniform" in v else tune.choice(v["choice"])) for k, v in spec.items()}
        print(f"search space from {args.space_file}: {spec}", flush=True)
    tuner = tune.Tuner(tune.with_resources(trainable, {"cpu": 1}), param_space=space,
                       tune_config=tune.TuneConfig(metric="val_acc", mode="max", num_samples=args.trials,
                                                   scheduler=ASHAScheduler(max_t=args.epochs, grace_period=1, reduction_factor=2)),
                       run_config=tune.RunConfig(name="rhythm_sweep", storage_path=str(Path("ray_results").resolve()), verbose=1))
    res = tuner.fit()
    best = res.get_best_result()
    print(f"best trial: lr={best.config['lr']:.2e} hidden={best.config['hidden']} val acc {best.metrics['val_acc']:.3f}", flush=True)
    print(f"{len(res)} trials, {sum(1 for r in res if r.error)} errored", flush=True)


# ------------------------------------------------------------------ Ray Data feature pipeline
def raydata_main(args) -> None:
    import ray

    ray.init(address=os.environ.get("RAY_ADDRESS"))
    src = Strips(args.records, 1, args.dur)

    def synth(batch):
        xs, ys = zip(*[src[int(i)] for i in batch["id"]])
        return {"ecg": np.stack([x.numpy() for x in xs]), "label": np.array(ys)}

    class Spectro:
        def __init__(self):
            self.w = torch.hann_window(128)

        def __call__(self, batch):
            s = torch.stft(torch.from_numpy(batch["ecg"]), 128, 32, window=self.w, return_complex=True)
            batch["logspec"] = torch.log1p(s.abs()).numpy()
            return batch

    ds = ray.data.range(args.records).map_batches(synth, batch_size=32)
    ds = ds.map_batches(Spectro, batch_size=32, num_gpus=args.feature_gpus, concurrency=1)
    model = RhythmNet(args.hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        for b in ds.iter_torch_batches(batch_size=args.batch):
            loss = F.cross_entropy(model(b["ecg"]), b["label"])
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        print(f"epoch {epoch} done in {time.time() - t0:.1f}s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "tune", "raydata"])
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--records", type=int, default=512)
    ap.add_argument("--val-records", type=int, default=96)
    ap.add_argument("--dur", type=float, default=8.0)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--drop-lead-off", action="store_true")
    ap.add_argument("--class-weights", choices=["none", "balanced"], default="none")
    ap.add_argument("--nan-check", action="store_true")
    ap.add_argument("--dump-misclassified", action="store_true")
    ap.add_argument("--rhythm-report", type=int, default=0)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("--space-file", default="")
    ap.add_argument("--feature-gpus", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"ecg.py {args.mode} | torch {torch.__version__} | numpy {np.__version__} | pid {os.getpid()}", flush=True)
    if args.mode == "spawn":
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29710")
        print(f"launching {args.nprocs} processes (master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']})", flush=True)
        torch.multiprocessing.spawn(train, args=(args.nprocs, args), nprocs=args.nprocs, join=True)
        print("all ranks finished", flush=True)
    elif args.mode == "ddp":
        train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args)
        if int(os.environ["RANK"]) == 0:
            print("all ranks finished", flush=True)
    elif args.mode == "lightning":
        lightning_main(args)
    elif args.mode == "tune":
        tune_main(args)
    else:
        raydata_main(args)


if __name__ == "__main__":
    main()
