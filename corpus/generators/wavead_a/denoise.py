"""Speech enhancement: a small 1D-conv encoder-decoder (Wave-U-Net style, skip connections, tanh mask over the noisy
waveform) trained with SI-SNR (or L1) on synthetic noisy/clean 16 kHz clips, data-parallel over gloo under torchrun,
Open MPI, the DeepSpeed launcher or accelerate launch. Each rank reads its own training shards (data/train-NN.npy,
memory-mapped) and its round-robin slice of data/val.npy; validation reports SI-SNR improvement (SI-SNRi) over the noisy
input, all-reduced as (sum, count); rank 0 writes ckpt/last.pt each epoch."""
import argparse
import datetime
import faulthandler
import glob
import math
import os
import signal
import sys
import time
import warnings
import wave

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


class Clips(torch.utils.data.Dataset):
    def __init__(self, paths):
        self.arrs = [np.load(p, mmap_mode="r") for p in paths]
        self.index = [(j, i) for j, a in enumerate(self.arrs) for i in range(len(a))]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, k):
        j, i = self.index[k]
        return torch.from_numpy(np.array(self.arrs[j][i]))


class Down(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 15, padding=7)
        self.norm = nn.GroupNorm(4, cout)

    def forward(self, x):
        return F.leaky_relu(self.norm(self.conv(x)), 0.1)


class WaveUNet(nn.Module):
    def __init__(self, ch=(8, 16, 24, 32)):
        super().__init__()
        self.downs = nn.ModuleList()
        c = 1
        for co in ch:
            self.downs.append(Down(c, co))
            c = co
        self.mid = Down(c, c)
        self.ups = nn.ModuleList()
        for co in reversed(ch[:-1]):
            self.ups.append(Down(c + co, co))
            c = co
        self.out = nn.Conv1d(c + 1, 1, 1)

    def forward(self, noisy):
        x = noisy.unsqueeze(1)
        skips, h = [], x
        for d in self.downs:
            h = d(h)
            skips.append(h)
            h = h[:, :, ::2]
        h = self.mid(h)
        for u, s in zip(self.ups, reversed(skips[:-1])):
            h = F.interpolate(h, size=s.shape[-1], mode="linear", align_corners=False)
            h = u(torch.cat([h, s], 1))
        h = F.interpolate(h, size=x.shape[-1], mode="linear", align_corners=False)
        mask = torch.tanh(self.out(torch.cat([h, x], 1))).squeeze(1)
        return noisy * (1 + mask)


def si_snr(est, ref, eps=1e-8):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) / ((ref ** 2).sum(-1, keepdim=True) + eps) * ref
    noise = est - proj
    return 10 * torch.log10(((proj ** 2).sum(-1) + eps) / ((noise ** 2).sum(-1) + eps))


def stoi_like(est, ref, frame=256):
    """Short-time envelope correlation, frame by frame (a slow pure-Python objective intelligibility proxy)."""
    vals = []
    for s in range(0, len(ref) - frame, frame // 32):
        a, b = est[s:s + frame], ref[s:s + frame]
        ma, mb = sum(a) / frame, sum(b) / frame
        num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
        den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) + 1e-9
        vals.append(num / den)
    return sum(vals) / max(1, len(vals))


def write_wav(path, x, sr=16000):
    pcm = (np.clip(x, -1, 1) * 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(pcm.tobytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--log-every", type=int, default=3)
    ap.add_argument("--loss", default="sisnr", choices=["sisnr", "l1"])
    ap.add_argument("--sisnr-eps", type=float, default=1e-8)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--samples-dir", default="", help="rank 0 writes enhanced validation WAVs here each epoch")
    ap.add_argument("--stft-cache", action="store_true", help="precompute STFTs of the training clips (spectral loss)")
    ap.add_argument("--stoi", action="store_true", help="rank 0 also reports a STOI-like score on its val slice")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    acc = None
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
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
        log(f"wave-unet denoiser: world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")

    ckpt = os.path.join(a.ckpt_dir, "last.pt")
    start_epoch = 0
    if rank == 0 and os.path.exists(ckpt) and not a.resume:
        ans = input(f"{ckpt} exists from an earlier run; overwrite it? [y/N] ")
        if ans.strip().lower() != "y":
            log("not overwriting; pass --resume or another --ckpt-dir")
            sys.exit(1)
    dist.barrier()

    shards = sorted(glob.glob(os.path.join(a.data, "train-*.npy")))
    mine = shards[rank::world]
    ds = Clips(mine)
    log(f"rank {rank}: shards {[os.path.basename(s) for s in mine]}, {len(ds)} clips")
    val = np.load(os.path.join(a.data, "val.npy"))[rank::world]

    if a.stft_cache:
        log(f"rank {rank}: caching STFTs (n_fft 2048, hop 8) of {len(ds)} clips")
        clean = torch.stack([ds[k][0] for k in range(len(ds))])
        spec = torch.stft(clean, 2048, hop_length=8, window=torch.hann_window(2048), return_complex=True)
        mag = spec.abs()
        log(f"rank {rank}: STFT cache {tuple(spec.shape)}, mean magnitude {mag.mean().item():.4f}")

    model = WaveUNet()
    if rank == 0:
        log(f"model: WaveUNet, {sum(p.numel() for p in model.parameters())} parameters")
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True,
                                         num_workers=a.num_workers, generator=torch.Generator().manual_seed(rank))
    if a.deepspeed:
        import deepspeed
        if a.ds_config:
            import json
            with open(a.ds_config) as f:
                cfg = json.load(f)
            cfg["train_micro_batch_size_per_gpu"] = a.batch_size
        else:
            cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
                   "gradient_accumulation_steps": 1, "steps_per_print": 50,
                   "optimizer": {"type": "Adam", "params": {"lr": a.lr, "torch_adam": True}},
                   "zero_optimization": {"stage": 0}}
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)
    if a.resume and os.path.exists(ckpt):
        st = torch.load(ckpt)
        model.load_state_dict(st["model"])
        start_epoch = st["epoch"] + 1
        log(f"rank {rank}: resumed from {ckpt} (epoch {st['epoch']})")

    def save(epoch):
        os.makedirs(a.ckpt_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "epoch": epoch}, ckpt)
        log(f"saved {ckpt} (epoch {epoch})")

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = 0
    epoch = start_epoch
    for epoch in range(start_epoch, a.epochs):
        net.train()
        t0, seen, run_loss, nb = time.time(), 0, 0.0, 0
        for batch in loader:
            clean, noisy = batch[:, 0], batch[:, 1]
            est = net(noisy)
            if a.loss == "sisnr":
                loss = -si_snr(est, clean, a.sisnr_eps).mean()
            else:
                loss = F.l1_loss(est, clean)
            if a.deepspeed:
                net.backward(loss)
                net.step()
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                opt.step()
            step += 1
            nb += 1
            seen += len(batch)
            run_loss += loss.item()
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                    f"{seen * world * batch.shape[-1] / 16000 / (time.time() - t0):.1f} s-audio/s")
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch - 1 if epoch > start_epoch else epoch)
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        net.eval()
        with torch.no_grad():
            c, n = torch.from_numpy(val[:, 0]), torch.from_numpy(val[:, 1])
            e = model(n)
            voiced = (c ** 2).sum(-1) > 0
            if (~voiced).any():
                warnings.warn(f"rank {rank}: {int((~voiced).sum())} silent validation clips skipped (SI-SNR undefined)")
            imp = (si_snr(e, c) - si_snr(n, c))[voiced]
        part = torch.tensor([imp.sum().item(), float(len(imp))])
        if rank == 0 and a.stoi:
            st = [stoi_like(e[i].tolist(), c[i].tolist()) for i in range(len(c)) if voiced[i]]
            log(f"eval epoch {epoch}: rank 0 STOI-like {sum(st) / len(st):.3f} over {len(st)} clips")
        if rank == 0 and a.samples_dir:
            d = os.path.join(a.samples_dir, f"epoch{epoch:03d}")
            os.makedirs(d, exist_ok=True)
            for i in range(12):
                write_wav(os.path.join(d, f"val{i:03d}-noisy.wav"), n[i].numpy())
                write_wav(os.path.join(d, f"val{i:03d}-enhanced.wav"), e[i].numpy())
            log(f"wrote 24 samples to {d}")
        dist.all_reduce(part)
        tl = torch.tensor([run_loss / max(1, nb)])
        dist.all_reduce(tl)
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {tl.item() / world:.4f} val SI-SNRi {part[0].item() / max(1, part[1].item()):.2f} dB "
                f"({int(part[1])} clips) epoch time {time.time() - t0:.1f}s")
            save(epoch)
    if rank == 0:
        log(f"done: {epoch + 1} epochs")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
