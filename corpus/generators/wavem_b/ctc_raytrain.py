"""Speech-command CTC recogniser (conv front-end + BiGRU) on synthetic tone-coded utterances, trained with Ray Train.

Features come from logmel.c (built with gcc at start-up, loaded with ctypes) inside DataLoader worker processes.
"""
import argparse
import ctypes
import os
import subprocess
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn

import ray
import ray.train
import ray.train.torch
from ray.train import Checkpoint, RunConfig, ScalingConfig
from ray.train.torch import TorchTrainer

ALPHABET = "abcdefghijklmnopqrstuvwxyz'"
SR, BINS = 8000, 40
HERE = os.path.dirname(os.path.abspath(__file__))


def build_frontend():
    so = os.path.join(HERE, "liblogmel.so")
    if not os.path.exists(so):
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", so, os.path.join(HERE, "logmel.c"), "-lm"], check=True)
    return so


class Utterances(torch.utils.data.Dataset):
    def __init__(self, n, seed, so, trimmed_every=0):
        self.n, self.seed, self.so, self.trimmed_every = n, seed, so, trimmed_every
        self.lib = None

    def __len__(self):
        return self.n

    def _render(self, i):
        rng = np.random.default_rng(self.seed * 100003 + i)
        words = rng.integers(3, 9)
        text = "".join(ALPHABET[j] for j in rng.integers(0, len(ALPHABET), size=words))
        parts = []
        for ch in text:
            dur = int(rng.integers(700, 1400))
            f = 200 + 90 * ALPHABET.index(ch)
            t = np.arange(dur) / SR
            parts.append(0.5 * np.sin(2 * np.pi * f * t))
            parts.append(np.zeros(int(rng.integers(80, 240))))
        wav = np.concatenate(parts).astype(np.float32) + rng.normal(0, 0.02, sum(map(len, parts))).astype(np.float32)
        if self.trimmed_every and i % self.trimmed_every == 0:
            # the VAD pass cut this clip to its first burst
            wav, text = wav[:int(rng.integers(250, 390))], text[:1]
        return wav, text

    def __getitem__(self, i):
        if self.lib is None:
            self.lib = ctypes.CDLL(self.so)
            self.lib.logmel.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        wav, text = self._render(i)
        frames = self.lib.num_frames(len(wav))
        out = np.zeros((frames, BINS), dtype=np.float32)
        self.lib.logmel(wav.ctypes.data, len(wav), BINS, out.ctypes.data)
        feats = torch.from_numpy(out)
        feats = (feats - feats.mean()) / (feats.std() + 1e-5)
        return feats, torch.tensor([ALPHABET.index(c) + 1 for c in text])


def collate(batch):
    feats, labels = zip(*batch)
    fl = torch.tensor([len(f) for f in feats])
    ll = torch.tensor([len(l) for l in labels])
    return (nn.utils.rnn.pad_sequence(feats, batch_first=True), fl,
            torch.cat(labels), ll)


class CTCModel(nn.Module):
    def __init__(self, subsample=2, hidden=96):
        super().__init__()
        self.subsample = subsample
        self.conv = nn.Sequential(nn.Conv1d(BINS, hidden, 5, stride=subsample, padding=2), nn.GELU(),
                                  nn.Conv1d(hidden, hidden, 3, padding=1), nn.GELU())
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, len(ALPHABET) + 1)

    def forward(self, x, lengths):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.out(h).log_softmax(-1), (lengths + self.subsample - 1) // self.subsample


def greedy(logp, lengths):
    outs = []
    for seq, n in zip(logp.argmax(-1), lengths):
        prev, s = 0, []
        for k in seq[:n].tolist():
            if k != prev and k != 0:
                s.append(ALPHABET[k - 1])
            prev = k
        outs.append("".join(s))
    return outs


def train_loop(cfg):
    torch.set_num_threads(1)
    ctx = ray.train.get_context()
    rank = ctx.get_world_rank()
    ds = Utterances(cfg["n"], 0, cfg["so"], cfg["trimmed_every"])
    loader = torch.utils.data.DataLoader(ds, batch_size=cfg["batch"], shuffle=True, num_workers=cfg["workers"],
                                         collate_fn=collate, persistent_workers=cfg["workers"] > 0)
    loader = ray.train.torch.prepare_data_loader(loader)
    model = ray.train.torch.prepare_model(CTCModel(cfg["subsample"]))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    ctc = nn.CTCLoss(blank=0, zero_infinity=False)
    step = 0
    for epoch in range(cfg["epochs"]):
        if hasattr(loader, "sampler") and hasattr(loader.sampler, "set_epoch"):
            loader.sampler.set_epoch(epoch)
        t0, tot, cnt = time.time(), 0.0, 0
        for feats, fl, labels, ll in loader:
            logp, ol = model(feats, fl)
            loss = ctc(logp.transpose(0, 1), labels, ol, ll)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"CTC loss is {loss.item()} at epoch {epoch} step {step} "
                                         f"(output frames {ol.tolist()}, label lengths {ll.tolist()})")
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            step += 1
            tot, cnt = tot + loss.item(), cnt + 1
            if step % cfg["log_every"] == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} ctc_loss {loss.item():.3f}", flush=True)
        hyp = greedy(logp.detach(), ol)
        ref = labels[:ll[0]].tolist()
        ref = "".join(ALPHABET[k - 1] for k in ref)
        metrics = {"epoch": epoch, "train_ctc": tot / max(cnt, 1), "epoch_s": round(time.time() - t0, 1)}
        if rank == 0:
            print(f"epoch {epoch} train_ctc {metrics['train_ctc']:.3f} sample ref='{ref}' hyp='{hyp[0]}'", flush=True)
            with tempfile.TemporaryDirectory() as d:
                torch.save(model.module.state_dict() if hasattr(model, "module") else model.state_dict(),
                           os.path.join(d, "model.pt"))
                ray.train.report(metrics, checkpoint=Checkpoint.from_directory(d))
        else:
            ray.train.report(metrics)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--loader-workers", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--n", type=int, default=384)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--subsample", type=int, default=2)
    ap.add_argument("--trimmed-every", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=4)
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    so = build_frontend()
    print(f"built front-end {so}", flush=True)
    ray.init()
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"so": so, "n": a.n, "batch": a.batch, "lr": a.lr, "epochs": a.epochs,
                           "subsample": a.subsample, "trimmed_every": a.trimmed_every, "workers": a.loader_workers,
                           "log_every": a.log_every},
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False, resources_per_worker={"CPU": 1}),
        run_config=RunConfig(name="ctc-commands", storage_path=a.storage),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}", flush=True)
    print(f"checkpoint: {result.checkpoint}", flush=True)
