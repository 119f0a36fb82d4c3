"""Data-parallel training of a small mask-based speech enhancement model (STFT magnitude mask, conv + GRU).

Clean "speech" is synthesised on the fly (voiced syllables: f0 contour, harmonics shaped by formants, syllable
envelopes, pauses) and mixed with recordings from data/noise-bank.npz at a random SNR. The model predicts a
time-frequency mask on the noisy magnitude; the enhanced waveform uses the noisy phase. Loss: L1 on the compressed
magnitude, optionally negative SI-SDR on the waveform after --sisdr-after steps. Evaluation: SI-SDR of the noisy and
enhanced validation clips (each rank scores its own slice; sums all-reduced).

Rank/world come from torchrun/DeepSpeed/accelerate (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*) or Slurm
(SLURM_PROCID, SLURM_NTASKS); rendezvous is env:// at MASTER_ADDR:MASTER_PORT.
"""
import argparse
import datetime
import json
import math
import os
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

SR = 8000
N_FFT, HOP = 256, 64


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--config", default="")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--clip-sec", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--snr-range", default="-5,15")
    ap.add_argument("--noise-only-frac", type=float, default=0.0)
    ap.add_argument("--sisdr-after", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--val-clips", type=int, default=64)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--early-stop-patience", type=int, default=0)
    ap.add_argument("--loss-history", action="store_true")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--vad-index", action="store_true")
    ap.add_argument("--log-main-loss", action="store_true")
    ap.add_argument("--timeout-s", type=int, default=120)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--grad-accum", type=int, default=0)
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--local_rank", type=int, default=0)  # passed by the DeepSpeed launcher
    return ap.parse_args()


def ranks(cfg):
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ:
            world = int(cfg.get("world_size") or os.environ[w])
            return int(os.environ[r]), world, r
    return 0, int(cfg.get("world_size") or 1), "none"


def log(rank, msg):
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} [rank{rank}] {msg}", flush=True)


# ----------------------------------------------------------------------------------------------------- data
def speech(n, rng):
    t = np.arange(n) / SR
    out = np.zeros(n)
    pos = int(rng.uniform(0, 0.15) * SR)
    while pos < n:
        dur = int(rng.uniform(0.12, 0.3) * SR)
        seg = min(dur, n - pos)
        tt = t[:seg]
        f0 = rng.uniform(95, 240) * (1 + 0.08 * np.sin(2 * np.pi * rng.uniform(3, 6) * tt))
        phase = 2 * np.pi * np.cumsum(f0) / SR
        f1, f2 = rng.uniform(300, 900), rng.uniform(900, 2500)
        x = np.zeros(seg)
        for h in range(1, int(3800 / f0.max())):
            fh = f0.mean() * h
            amp = math.exp(-((fh - f1) / 250) ** 2) + 0.6 * math.exp(-((fh - f2) / 400) ** 2) + 0.05
            x += amp * np.sin(h * phase)
        env = np.sin(np.pi * np.arange(seg) / max(seg, 1)) ** 1.5
        out[pos:pos + seg] += x * env
        pos += seg + int(rng.uniform(0.03, 0.2) * SR)
    peak = np.abs(out).max()
    return out / peak * rng.uniform(0.3, 0.9) if peak > 0 else out


class Mixer:
    def __init__(self, data, snr_range, noise_only_frac):
        bank = np.load(os.path.join(data, "noise-bank.npz"))
        self.noises = {k: bank[k] for k in bank.files}
        self.names = sorted(self.noises)
        self.lo, self.hi = (float(v) for v in snr_range.split(","))
        self.noise_only_frac = noise_only_frac

    def clip(self, n, rng):
        kind = self.names[rng.integers(len(self.names))]
        rec = self.noises[kind]
        start = rng.integers(0, len(rec) - n)
        noise = torch.from_numpy(rec[start:start + n].copy()).double()
        if rng.random() < self.noise_only_frac:  # noise-only clip: the model should output silence
            clean = torch.zeros(n, dtype=torch.float64)
            noise = noise / noise.abs().max() * rng.uniform(0.05, 0.5)
        else:
            clean = torch.from_numpy(speech(n, rng))
            snr = rng.uniform(self.lo, self.hi)
            gain = torch.sqrt((clean ** 2).mean() / ((noise ** 2).mean() * 10 ** (snr / 10) + 1e-12))
            noise = noise * gain
        noisy = clean + noise
        return noisy.float(), clean.float(), kind

    def batch(self, b, n, rng):
        xs, ys, kinds = zip(*(self.clip(n, rng) for _ in range(b)))
        return torch.stack(xs), torch.stack(ys), kinds


class ClipStream(torch.utils.data.IterableDataset):
    """Endless stream of (noisy magnitude, noisy phase-complex STFT, clean) batches made in loader workers."""

    def __init__(self, mixer, batch, n, seed):
        self.mixer, self.b, self.n, self.seed = mixer, batch, n, seed

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng(self.seed * 100 + (info.id if info else 0))
        win = torch.hann_window(N_FFT)
        while True:
            noisy, clean, _ = self.mixer.batch(self.b, self.n, rng)
            spec = torch.stft(noisy, N_FFT, HOP, window=win, return_complex=True)
            yield torch.view_as_real(spec).contiguous(), noisy, clean


# ---------------------------------------------------------------------------------------------------- model
class MaskNet(nn.Module):
    def __init__(self, bins=N_FFT // 2 + 1, hidden=128):
        super().__init__()
        self.inp = nn.Conv1d(bins, hidden, 3, padding=1)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, bins)

    def forward(self, logmag):  # (B, F, T)
        h = F.relu(self.inp(logmag)).transpose(1, 2)
        h, _ = self.gru(h)
        return torch.sigmoid(self.out(h)).transpose(1, 2)


def enhance(model, noisy, win):
    spec = torch.stft(noisy, N_FFT, HOP, window=win, return_complex=True)
    mag = spec.abs()
    mask = model(torch.log1p(mag))
    est = torch.istft(spec * mask, N_FFT, HOP, window=win, length=noisy.shape[-1])
    return est, mask * mag


def si_sdr(est, ref):
    # scale-invariant SDR per clip, in dB
    ref = ref - ref.mean(-1, keepdim=True)
    est = est - est.mean(-1, keepdim=True)
    alpha = (est * ref).sum(-1, keepdim=True) / (ref ** 2).sum(-1, keepdim=True)
    target = alpha * ref
    noise = est - target
    return 10 * torch.log10((target ** 2).sum(-1) / (noise ** 2).sum(-1))


def mag_l1(est_mag, clean, win):
    cm = torch.stft(clean, N_FFT, HOP, window=win, return_complex=True).abs()
    return (est_mag.clamp_min(1e-8) ** 0.3 - cm.clamp_min(1e-8) ** 0.3).abs().mean()


# ------------------------------------------------------------------------------------------------ vad index
def vad_chain(clips, hop=8):
    """Voiced/unvoiced frame index of the validation set as a linked chain [start, end, voiced, next]."""
    chain = None
    for c in reversed(range(len(clips))):
        frames = clips[c].reshape(-1, hop).pow(2).mean(-1) > 1e-4
        for i in reversed(range(len(frames))):
            chain = [c, i * hop, (i + 1) * hop, bool(frames[i]), chain]
    return chain


def merge_runs(node):
    """Merge adjacent frames with the same voicing decision (recursive over the chain)."""
    if node is None or node[4] is None:
        return node
    rest = merge_runs(node[4])
    if rest[0] == node[0] and rest[3] == node[3] and rest[1] == node[2]:
        return [node[0], node[1], rest[2], node[3], rest[4]]
    return [node[0], node[1], node[2], node[3], rest]


def main():
    a = parse()
    if a.vad_index:
        sys.setrecursionlimit(1_000_000)  # merge_runs recurses once per frame of the validation set
    cfg = {}
    if a.config:
        with open(a.config) as f:
            cfg = json.load(f)
    rank, world, src = ranks(cfg)
    if a.accelerate:
        from accelerate import Accelerator
        acc = Accelerator(cpu=True)
        rank, world = acc.process_index, acc.num_processes
    else:
        acc = None
    host = socket.gethostname()
    log(rank, f"host {host} pid {os.getpid()} rank {rank}/{world} (from {src}) torch {torch.__version__}"
              f" master {os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
    if cfg:
        log(rank, f"run config {a.config}: {json.dumps(cfg)}")
    timeout = datetime.timedelta(seconds=a.timeout_s)
    if a.deepspeed:
        import deepspeed
        deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    elif acc is None:
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
    log(rank, f"process group ready: backend {dist.get_backend()}, world {dist.get_world_size()}")
    torch.manual_seed(a.seed)
    meta = json.load(open(os.path.join(a.data, "meta.json")))
    mixer = Mixer(a.data, a.snr_range, a.noise_only_frac)
    n = int(a.clip_sec * SR)
    if rank == 0:
        log(rank, f"noise bank: {', '.join(f'{k} {v.shape}' for k, v in mixer.noises.items())} @ {meta['sample_rate']} Hz")
        log(rank, f"clips {a.clip_sec:.1f} s ({n} samples), stft {N_FFT}/{HOP}, snr {a.snr_range} dB, "
                  f"noise-only fraction {a.noise_only_frac}, batch {a.batch}/rank x {world} ranks")
    model = MaskNet()
    win = torch.hann_window(N_FFT)
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log(rank, f"MaskNet: conv {N_FFT // 2 + 1}->128, GRU 128, mask head: {nparams} parameters")
    engine = None
    if a.deepspeed:
        with open(a.ds_config) as f:
            ds_cfg = json.load(f)
        if a.grad_accum:
            ds_cfg["gradient_accumulation_steps"] = a.grad_accum
        log(rank, f"deepspeed config: {json.dumps(ds_cfg)}")
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=ds_cfg)
        net = engine
    elif acc is not None:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        net, opt = acc.prepare(model, opt)
    else:
        net = nn.parallel.DistributedDataParallel(model)
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt if engine is None else opt.optimizer if hasattr(opt, "optimizer") else opt,
                                                max_lr=a.lr, total_steps=a.steps + 1, pct_start=0.1)
    rng = np.random.default_rng(a.seed + 7919 * rank)
    vrng = np.random.default_rng(99)
    val = mixer.batch(a.val_clips, n, vrng)
    my = slice(rank * a.val_clips // world, (rank + 1) * a.val_clips // world)
    loader = None
    if a.loader_workers:
        loader = iter(torch.utils.data.DataLoader(ClipStream(mixer, a.batch, n, a.seed + rank), batch_size=None,
                                                  num_workers=a.loader_workers, prefetch_factor=4))
        log(rank, f"DataLoader: {a.loader_workers} workers, prefetch 4, batches of {a.batch} complex spectrograms")
    os.makedirs(a.ckpt_dir, exist_ok=True)
    history, best, bad = [], float("inf"), 0
    t0, seen = time.time(), 0
    for step in range(1, a.steps + 1):
        if loader is not None:
            spec, noisy, clean = next(loader)
        else:
            noisy, clean, _ = mixer.batch(a.batch, n, rng)
        est, est_mag = enhance(net, noisy, win)
        use_sisdr = a.sisdr_after and step > a.sisdr_after
        if step == a.sisdr_after + 1 and a.sisdr_after and rank == 0:
            log(rank, f"step {step}: switching loss to negative SI-SDR (fine-tuning phase)")
        loss = -si_sdr(est, clean).mean() if use_sisdr else mag_l1(est_mag, clean, win)
        if not torch.isfinite(loss):
            log(rank, f"step {step}: non-finite loss {loss.item()} ({'neg SI-SDR' if use_sisdr else 'mag L1'})")
            raise FloatingPointError(f"Loss is {loss.item()} at step {step} on rank {rank}")
        if engine is not None:
            engine.backward(loss)
            engine.step()
        else:
            opt.zero_grad(set_to_none=True)
            if acc is not None:
                acc.backward(loss)
            else:
                loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
        sched.step()
        if a.loss_history:
            history.append(loss)  # running mean for the progress line
        if a.log_main_loss and acc.is_main_process:
            red = acc.reduce(loss.detach(), reduction="mean")
        seen += a.batch
        if a.step_sleep:
            time.sleep(a.step_sleep)
        if step % 20 == 0 or step == 1:
            dt = time.time() - t0
            extra = ""
            if a.loss_history:
                extra = f" | avg(last {len(history)}) {torch.stack(history).mean().item():.4f}"
            if a.log_main_loss and acc.is_main_process:
                extra = f" | mean over ranks {red.item():.4f}"
            gnv = engine.get_global_grad_norm() if engine is not None else gn.item()
            log(rank, f"step {step}/{a.steps} loss {loss.item():.4f} grad_norm {float(gnv or 0):.3f} "
                      f"lr {sched.get_last_lr()[0]:.2e} {seen / dt:.1f} clips/s{extra}")
        if step % a.eval_every == 0 or step == a.steps:
            model.eval()
            with torch.no_grad():
                vx, vy = val[0][my], val[1][my]
                ve, _ = enhance(model, vx, win)
                s_noisy, s_enh = si_sdr(vx, vy), si_sdr(ve, vy)
                vl = mag_l1(enhance(model, vx, win)[1], vy, win)
                tot = torch.tensor([s_noisy.sum().item(), s_enh.sum().item(), float(len(vx))], dtype=torch.float64)
                dist.all_reduce(tot)
            model.train()
            log(rank, f"eval @ {step}: local val L1 {vl.item():.4f} on {len(vx)} clips")
            if rank == 0:
                log(rank, f"eval @ {step}: {int(tot[2])} clips, SI-SDR noisy {tot[0] / tot[2]:.2f} dB -> enhanced "
                          f"{tot[1] / tot[2]:.2f} dB (SI-SDRi {(tot[1] - tot[0]) / tot[2]:+.2f} dB)")
            if a.early_stop_patience:
                if vl.item() < best - 1e-3:
                    best, bad = vl.item(), 0
                else:
                    bad += 1
                    log(rank, f"no improvement in val L1 ({vl.item():.4f} >= best {best:.4f}), patience {bad}/{a.early_stop_patience}")
                    if bad >= a.early_stop_patience:
                        log(rank, f"early stopping at step {step}")
                        break
        if step % a.save_every == 0:
            if engine is not None:
                engine.save_checkpoint(a.ckpt_dir, tag=f"step{step}")
                log(rank, f"saved deepspeed checkpoint {a.ckpt_dir}/step{step}")
            elif rank == 0:
                state = {"model": model.state_dict(), "opt": opt.state_dict(), "step": step}
                if a.vad_index:
                    raw = vad_chain(val[1])
                    state["vad_frames"] = raw  # frame-level decisions, for the per-frame VAD metrics
                    state["vad_index"] = merge_runs(raw)
                    k, node = 0, state["vad_index"]
                    while node is not None:
                        k, node = k + 1, node[4]
                    log(rank, f"vad index: {len(val[1])} validation clips, {k} voiced/unvoiced runs")
                path = os.path.join(a.ckpt_dir, f"enh-{step:06d}.pt")
                torch.save(state, path)
                old = sorted(f for f in os.listdir(a.ckpt_dir) if f.startswith("enh-"))[:-a.keep]
                for f in old:
                    os.remove(os.path.join(a.ckpt_dir, f))
                log(rank, f"saved {path}" + (f", removed {', '.join(old)}" if old else ""))
    dist.barrier()
    log(rank, f"done: {step} steps in {time.time() - t0:.1f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
