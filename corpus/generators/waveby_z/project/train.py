"""Tone-classification acoustic model trained on Lhotse cuts under torch.distributed (gloo, CPU, plain DDP).

Lhotse loads the CutSet manifest, DynamicBucketingSampler partitions batches over the ranks (rank/world size from
torch.distributed), a small Dataset over cut batches computes Fbank features on the fly in the DataLoader workers
(lhotse.dataset.OnTheFlyFeatures), and rank 0 saves model + optimizer + the sampler's state_dict() every
--save-every steps; --resume restores them (sampler included)."""
import argparse
import datetime
import math
import os
import socket
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from lhotse import CutSet, Fbank, FbankConfig
from lhotse.dataset import DynamicBucketingSampler, OnTheFlyFeatures
from torch.nn.parallel import DistributedDataParallel as DDP

try:
    import train_hooks  # the team's optional per-step hook
except ImportError:
    train_hooks = None

p = argparse.ArgumentParser()
p.add_argument("--cuts", default="data/cuts_train.jsonl.gz")
p.add_argument("--exp-dir", default="exp")
p.add_argument("--max-duration", type=float, default=6.0)
p.add_argument("--num-buckets", type=int, default=4)
p.add_argument("--num-workers", type=int, default=1)
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--lr", type=float, default=2e-3)
p.add_argument("--save-every", type=int, default=40)
p.add_argument("--resume", action="store_true")
p.add_argument("--pg-timeout", type=float, default=1800)
args = p.parse_args()


class ToneDataset(torch.utils.data.Dataset):
    """A batch of cuts -> (padded fbank features, feature lengths, tone class)."""

    def __init__(self):
        self.extractor = OnTheFlyFeatures(Fbank(FbankConfig(num_mel_bins=40)))

    def __getitem__(self, cuts: CutSet):
        cuts = cuts.sort_by_duration(ascending=False)
        feats, lens = self.extractor(cuts)
        labels = torch.tensor([c.supervisions[0].custom["cls"] for c in cuts])
        return {"feats": feats, "lens": lens, "cls": labels, "ids": [c.id for c in cuts]}


class ToneNet(nn.Module):
    def __init__(self, n_mels=40, hidden=64, n_cls=8):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_mels, hidden, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 5, stride=2, padding=2), nn.ReLU())
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_cls)

    def forward(self, x):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.gru(h)
        return self.out(h.mean(dim=1))


dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
if rank == 0:
    print(f"[{socket.gethostname()}] world_size={world} cuts={args.cuts} max_duration={args.max_duration} "
          f"num_workers={args.num_workers}", flush=True)

cuts = CutSet.from_file(args.cuts)
sampler = DynamicBucketingSampler(cuts, max_duration=args.max_duration, num_buckets=args.num_buckets,
                                  shuffle=True, drop_last=True, seed=0)
loader = torch.utils.data.DataLoader(ToneDataset(), sampler=sampler, batch_size=None, num_workers=args.num_workers,
                                     persistent_workers=args.num_workers > 0)
model = DDP(ToneNet())
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
exp = Path(args.exp_dir)
exp.mkdir(parents=True, exist_ok=True)
step, start_epoch = 0, 0
if args.resume:
    ckpt = torch.load(exp / "last.pt", weights_only=False)
    model.module.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    sampler.load_state_dict(ckpt["sampler"])
    step, start_epoch = ckpt["step"], ckpt["epoch"]
    if rank == 0:
        print(f"resumed from {exp / 'last.pt'}: epoch {start_epoch} step {step} "
              f"(sampler diagnostics: {sampler.diagnostics.get_report()})", flush=True)

t0 = time.time()
for epoch in range(start_epoch, args.epochs):
    sampler.set_epoch(epoch)
    for batch in loader:
        logits = model(batch["feats"])
        loss = nn.functional.cross_entropy(logits, batch["cls"])
        if not math.isfinite(loss.item()):
            raise RuntimeError(f"rank {rank}: loss is {loss.item()} at epoch {epoch} step {step} "
                               f"(cuts {batch['ids'][:3]}...)")
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if train_hooks is not None:
            train_hooks.on_step(rank, step, batch, loss)
        if rank == 0 and step % 5 == 0:
            print(f"epoch {epoch} step {step}: loss {loss.item():.4f} batch {len(batch['ids'])} cuts "
                  f"{batch['feats'].shape[1]} frames ({time.time() - t0:.1f} s)", flush=True)
        if rank == 0 and step % args.save_every == 0:
            path = exp / f"checkpoint-{step}.pt"
            torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(),
                        "sampler": sampler.state_dict(), "epoch": epoch, "step": step}, path)
            torch.save(torch.load(path, weights_only=False), exp / "last.pt")
            print(f"saved {path} (sampler state: epoch {epoch}, {sampler.diagnostics.current_epoch_stats})",
                  flush=True)
    if rank == 0:
        print(f"epoch {epoch} done: {sampler.diagnostics.get_report()}", flush=True)
dist.barrier()
if rank == 0:
    print(f"training finished: {step} steps in {time.time() - t0:.1f} s", flush=True)
dist.destroy_process_group()
