"""The team's sensor classifier: a small MLP trained with plain DistributedDataParallel (gloo, CPU) on an MDS dataset
read through MosaicML Streaming (StreamingDataset with a per-node local cache + StreamingDataLoader with workers),
checkpointing the model, optimizer and the loader's state_dict() for mid-epoch resumption."""
import argparse
import datetime
import math
import os
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from streaming import StreamingDataLoader, StreamingDataset

try:
    import train_hooks  # optional per-step hook of the team (absent normally)
except ImportError:
    train_hooks = None

ap = argparse.ArgumentParser()
ap.add_argument("--remote", default="remote/sensors")
ap.add_argument("--local-root", default="cache")
ap.add_argument("--batch-size", type=int, default=8)
ap.add_argument("--epochs", type=int, default=2)
ap.add_argument("--max-steps", type=int, default=0)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--ckpt-every", type=int, default=50)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--resume", action="store_true")
ap.add_argument("--cache-limit", default=None)
ap.add_argument("--validate-hash", default=None)
ap.add_argument("--num-canonical-nodes", type=int, default=None)
ap.add_argument("--pg-timeout", type=float, default=600)
ap.add_argument("--step-sleep", type=float, default=0.0)
args = ap.parse_args()

# temperature readings come in Celsius or Kelvin; normalise channel 0 to Celsius
UNIT_OFFSET = {"C": 0.0, "K": -273.15}


class SensorDataset(StreamingDataset):
    def get_item(self, idx):
        s = super().get_item(idx)
        x = np.array(s["x"], dtype=np.float32)
        x[0] += UNIT_OFFSET[s["unit"]]
        return torch.from_numpy(x), torch.tensor(s["y"], dtype=torch.long)


dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
local_rank = int(os.environ["LOCAL_RANK"])
host = socket.gethostname()
torch.manual_seed(0)
local = os.path.join(args.local_root, host)
print(f"[{host} rank {rank}/{world} local {local_rank}] streaming local cache {local}", flush=True)

ds = SensorDataset(remote=args.remote, local=local, shuffle=True, shuffle_seed=17, batch_size=args.batch_size,
                   cache_limit=args.cache_limit, validate_hash=args.validate_hash,
                   num_canonical_nodes=args.num_canonical_nodes)
loader = StreamingDataLoader(ds, batch_size=args.batch_size, num_workers=args.workers, persistent_workers=False)
model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
ckpt_path = os.path.join(args.ckpt_dir, "ckpt.pt")
step, epoch = 0, 0
if args.resume and os.path.exists(ckpt_path):
    ck = torch.load(ckpt_path, weights_only=False)
    model.module.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    loader.load_state_dict(ck["loader"])
    step, epoch = ck["step"], ck["epoch"]
    if rank == 0:
        print(f"resumed from {ckpt_path}: step {step}, epoch {epoch}, loader state {ck['loader']}", flush=True)
if rank == 0:
    print(f"dataset: {ds.num_samples} samples in {ds.num_shards} shards, {len(loader)} batches per rank per epoch, "
          f"global batch {args.batch_size * world}", flush=True)


def save():
    if rank != 0:
        return
    os.makedirs(args.ckpt_dir, exist_ok=True)
    state = {"model": model.module.state_dict(), "opt": opt.state_dict(), "loader": loader.state_dict(),
             "step": step, "epoch": epoch}
    torch.save(state, ckpt_path + ".tmp")
    os.replace(ckpt_path + ".tmp", ckpt_path)
    print(f"step {step}: saved checkpoint {ckpt_path} (loader sample_in_epoch "
          f"{state['loader']['sample_in_epoch']}, epoch {state['loader']['epoch']})", flush=True)


t0 = time.time()
done = False
while epoch < args.epochs and not done:
    correct = seen = 0
    for x, y in loader:
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        if not math.isfinite(loss.item()):
            raise FloatingPointError(f"rank {rank}: loss is {loss.item()} at step {step} (epoch {epoch})")
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        correct += int((out.argmax(1) == y).sum())
        seen += len(y)
        if train_hooks is not None:
            train_hooks.on_step(rank, step, x, y, loss, model)
        if rank == 0 and step % args.log_every == 0:
            print(f"epoch {epoch} step {step}: loss {loss.item():.4f} acc {correct / seen:.3f} "
                  f"({time.time() - t0:.1f}s)", flush=True)
        if step % args.ckpt_every == 0:
            save()
        if args.step_sleep:
            time.sleep(args.step_sleep)
        if args.max_steps and step >= args.max_steps:
            done = True
            break
    else:
        epoch += 1
        if rank == 0:
            print(f"epoch {epoch - 1} done: step {step}, train acc {correct / max(seen, 1):.3f}", flush=True)
save()
dist.barrier()
if rank == 0:
    print(f"training finished: {step} steps, {epoch} epochs", flush=True)
dist.destroy_process_group()
