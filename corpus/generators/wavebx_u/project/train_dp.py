"""ward-risk-dp: a differentially private classifier of synthetic 16x16 "ward sensor maps" (10 risk classes),
trained with Opacus over DifferentiallyPrivateDistributedDataParallel (gloo, CPU) under torch.distributed.run.
Poisson sampling, BatchMemoryManager, RDP accountant (epsilon per epoch), checkpoint per epoch via
PrivacyEngine.save_checkpoint / load_checkpoint. An optional team hook (train_hooks.py) runs after every step."""
import argparse
import datetime
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from opacus import PrivacyEngine
from opacus.distributed import DifferentiallyPrivateDistributedDataParallel as DPDDP
from opacus.utils.batch_memory_manager import BatchMemoryManager
from opacus.validators import ModuleValidator

try:
    import train_hooks
except ImportError:
    train_hooks = None

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=6)
ap.add_argument("--samples", type=int, default=4096)
ap.add_argument("--batch-size", type=int, default=128)  # expected logical batch (all ranks together)
ap.add_argument("--max-physical-batch", type=int, default=32)
ap.add_argument("--lr", type=float, default=0.1)
ap.add_argument("--noise", type=float, default=1.0)
ap.add_argument("--max-grad-norm", type=float, default=1.0)
ap.add_argument("--target-epsilon", type=float, default=0.0)
ap.add_argument("--delta", type=float, default=1e-5)
ap.add_argument("--norm", default="group", choices=["group", "batch"])
ap.add_argument("--hidden", type=int, default=int(os.environ.get("WARD_HIDDEN", "64")))
ap.add_argument("--workers", type=int, default=0)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--resume", default="")
ap.add_argument("--log-every", type=int, default=8)
args = ap.parse_args()

timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group("gloo", timeout=timeout)
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(1234)
if rank == 0:
    print(f"ward-risk-dp: world_size={world} host={socket.gethostname()} args={vars(args)}", flush=True)


class WardNet(nn.Module):
    def __init__(self, hidden, norm):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.norm1 = nn.GroupNorm(4, 16) if norm == "group" else nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 4 * 4, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.norm1(self.conv1(x))))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


# synthetic data: identical on every rank (fixed generator); labels from a fixed random projection
g = torch.Generator().manual_seed(7)
X = torch.randn(args.samples, 1, 16, 16, generator=g)
W = torch.randn(256, 10, generator=g)
Y = (X.flatten(1) @ W).argmax(1)
train_loader = DataLoader(TensorDataset(X, Y), batch_size=args.batch_size, num_workers=args.workers)

model = WardNet(args.hidden, args.norm)
errors = ModuleValidator.validate(model, strict=False)
if errors and rank == 0:
    print(f"ModuleValidator: {len(errors)} incompatible module(s): {errors}", flush=True)
model = DPDDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
privacy_engine = PrivacyEngine(accountant="rdp")
common = dict(module=model, optimizer=optimizer, data_loader=train_loader, max_grad_norm=args.max_grad_norm,
              poisson_sampling=True)
if args.target_epsilon:
    model, optimizer, train_loader = privacy_engine.make_private_with_epsilon(
        target_epsilon=args.target_epsilon, target_delta=args.delta, epochs=args.epochs, **common)
else:
    model, optimizer, train_loader = privacy_engine.make_private(noise_multiplier=args.noise, **common)
if rank == 0:
    print(f"make_private: noise_multiplier={optimizer.noise_multiplier:.4f} max_grad_norm={args.max_grad_norm} "
          f"sample_rate={1 / len(train_loader):.5f} expected_batch_size(per worker)={optimizer.expected_batch_size} "
          f"steps/epoch={len(train_loader)}", flush=True)

start_epoch = 0
os.makedirs(args.ckpt_dir, exist_ok=True)
if args.resume:
    ck = privacy_engine.load_checkpoint(path=args.resume, module=model, optimizer=optimizer)
    start_epoch = ck["epoch"]
    print(f"[rank{rank}] resumed from {args.resume}: epoch {start_epoch}, "
          f"epsilon so far {privacy_engine.get_epsilon(args.delta):.3f}", flush=True)

criterion = nn.CrossEntropyLoss()
for epoch in range(start_epoch + 1, args.epochs + 1):
    model.train()
    t0, losses, correct, seen = time.time(), [], 0, 0
    with BatchMemoryManager(data_loader=train_loader, max_physical_batch_size=args.max_physical_batch,
                            optimizer=optimizer) as mem_loader:
        for step, (x, y) in enumerate(mem_loader):
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            if not torch.isfinite(loss):
                raise FloatingPointError(f"[rank{rank}] loss is {loss.item()} at epoch {epoch} step {step}")
            losses.append(loss.item())
            correct += (out.argmax(1) == y).sum().item()
            seen += len(y)
            if train_hooks is not None:
                train_hooks.on_step(rank, epoch, step, model, optimizer, x, y, loss)
            if rank == 0 and step % args.log_every == 0:
                print(f"epoch {epoch} step {step}: loss {loss.item():.4f}", flush=True)
    eps = privacy_engine.get_epsilon(args.delta)
    acc = correct / max(seen, 1)
    print(f"[rank{rank}] epoch {epoch} done: mean loss {sum(losses) / max(len(losses), 1):.4f}, acc {acc:.3f}, "
          f"(epsilon = {eps:.3f}, delta = {args.delta}) in {time.time() - t0:.1f}s", flush=True)
    if rank == 0:
        path = os.path.join(args.ckpt_dir, f"ward-risk-epoch{epoch}.pt")
        privacy_engine.save_checkpoint(path=path, module=model, optimizer=optimizer,
                                       checkpoint_dict={"epoch": epoch, "epsilon": eps})
        print(f"saved checkpoint {path} ({os.path.getsize(path)} bytes)", flush=True)
    dist.barrier()

if rank == 0:
    print(f"training finished: {args.epochs} epochs, final epsilon {privacy_engine.get_epsilon(args.delta):.3f}",
          flush=True)
dist.destroy_process_group()
