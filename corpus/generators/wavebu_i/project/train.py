"""churn-risk classifier: an MLP over 48 account features, trained data-parallel with fairscale's OSS (sharded AdamW
state) + ShardedDataParallel. Launch with torchrun on every node."""
import argparse
import logging
import math
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from fairscale.nn.data_parallel import ShardedDataParallel
from fairscale.optim.oss import OSS

try:  # per-step callbacks the team keeps out of the main loop (metrics export, audits)
    import step_hooks
except ImportError:
    step_hooks = None

CLASSES = ["stable", "watch", "low", "medium", "high", "churned"]


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=32, help="per rank")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--max-grad-norm", type=float, default=1.0)
    ap.add_argument("--hidden", type=int, default=384)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--no-resume", action="store_true")
    ap.add_argument("--seed", type=int, default=17)
    return ap.parse_args()


class RankFilter(logging.Filter):
    def __init__(self, rank, world):
        super().__init__()
        self.rank, self.world, self.host = rank, world, socket.gethostname()

    def filter(self, record):
        record.rank, record.world, record.host = self.rank, self.world, self.host
        return True


def setup_logging(rank, world):
    h = logging.StreamHandler()
    h.addFilter(RankFilter(rank, world))
    h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s [%(host)s rank %(rank)d/%(world)d] %(name)s: "
                                     "%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [h]
    root.setLevel(logging.INFO)
    return logging.getLogger("churn.train")


class ChurnMLP(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, hidden), nn.LayerNorm(hidden), nn.GELU(), nn.Dropout(0.1),
            nn.Linear(hidden, hidden), nn.LayerNorm(hidden), nn.GELU(), nn.Dropout(0.1),
            nn.Linear(hidden, hidden // 2), nn.GELU(),
            nn.Linear(hidden // 2, n_out))

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader, n_cls):
    model.eval()
    conf = torch.zeros(n_cls, n_cls, dtype=torch.float64)
    loss_sum = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum[0] += F.cross_entropy(out, y, reduction="sum").item()
            loss_sum[1] += y.numel()
            pred = out.argmax(1)
            for t, p in zip(y.tolist(), pred.tolist()):
                conf[t, p] += 1
    dist.all_reduce(conf)
    dist.all_reduce(loss_sum)
    model.train()
    return (loss_sum[0] / loss_sum[1]).item(), conf


def report_table(log, conf):
    log.info("final evaluation on the validation split:")
    log.info("%-10s %9s %9s %9s %8s", "class", "precision", "recall", "f1", "support")
    f1s = []
    for i, name in enumerate(CLASSES):
        tp = conf[i, i].item()
        prec = tp / max(conf[:, i].sum().item(), 1)
        rec = tp / max(conf[i].sum().item(), 1)
        f1 = 2 * prec * rec / max(prec + rec, 1e-12)
        f1s.append(f1)
        log.info("%-10s %9.4f %9.4f %9.4f %8d", name, prec, rec, f1, int(conf[i].sum().item()))
    log.info("%-10s %9s %9s %9.4f %8d", "macro avg", "", "", sum(f1s) / len(f1s), int(conf.sum().item()))


def main():
    args = get_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    log = setup_logging(rank, world)
    torch.manual_seed(args.seed)
    if rank == 0:
        log.info("torch %s, fairscale %s, world size %d", torch.__version__, __import__("fairscale").__version__,
                 world)

    tr, va = torch.load("data/train.pt"), torch.load("data/val.pt")
    n_in, n_cls = tr["x"].shape[1], len(CLASSES)
    train_ds, val_ds = TensorDataset(tr["x"], tr["y"]), TensorDataset(va["x"], va["y"])
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=256, sampler=DistributedSampler(val_ds, world, rank, shuffle=False))

    model = ChurnMLP(n_in, args.hidden, n_cls)
    n_params = sum(p.numel() for p in model.parameters())
    optimizer = OSS(params=model.parameters(), optim=torch.optim.AdamW, lr=args.lr, weight_decay=args.weight_decay)
    ddp = ShardedDataParallel(model, optimizer)
    steps_per_epoch = len(train_dl)
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / steps_per_epoch) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    log.info("model: %d parameters, %d train rows on this rank, %d steps/epoch", n_params, len(train_sampler),
             steps_per_epoch)

    os.makedirs(args.ckpt_dir, exist_ok=True)
    last = os.path.join(args.ckpt_dir, "last.pt")
    start_epoch = 0
    if not args.no_resume and os.path.exists(last):
        state = torch.load(last, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1
        log.info("resumed from %s (finished epoch %d, val_acc %.4f)", last, state["epoch"], state["val_acc"])

    step = start_epoch * steps_per_epoch
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        t0, seen, run_loss = time.time(), 0, 0.0
        for i, (x, y) in enumerate(train_dl):
            optimizer.zero_grad(set_to_none=True)
            out = ddp(x)
            loss = F.cross_entropy(out, y)
            loss.backward()
            gnorm = optimizer.clip_grad_norm(args.max_grad_norm if args.max_grad_norm > 0 else float("inf"))
            optimizer.step()
            sched.step()
            step += 1
            seen += y.numel()
            run_loss += loss.item()
            if step_hooks is not None:
                step_hooks.after_step(rank=rank, epoch=epoch, step=step, inputs=x, targets=y, logits=out)
            if rank == 0 and (i + 1) % args.log_every == 0:
                log.info("epoch %d step %d/%d (global %d) loss %.4f grad_norm %.3f lr %.2e", epoch, i + 1,
                         steps_per_epoch, step, loss.item(), gnorm.item(), sched.get_last_lr()[0])
        val_loss, conf = evaluate(ddp, val_dl, n_cls)
        acc = (conf.diag().sum() / conf.sum()).item()
        dt = time.time() - t0
        log.info("epoch %d done: train_loss %.4f val_loss %.4f val_acc %.4f (%.1f s, %.0f rows/s on this rank)",
                 epoch, run_loss / steps_per_epoch, val_loss, acc, dt, seen / dt)

        optimizer.consolidate_state_dict(recipient_rank=0)
        if rank == 0:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "scheduler": sched.state_dict(), "epoch": epoch, "val_acc": acc}
            tmp = os.path.join(args.ckpt_dir, f"epoch{epoch:03d}.pt")
            torch.save(state, tmp)
            if os.path.exists(last):
                os.remove(last)
            os.link(tmp, last)
            old = os.path.join(args.ckpt_dir, f"epoch{epoch - 2:03d}.pt")
            if os.path.exists(old):
                os.remove(old)
            log.info("saved checkpoint %s", tmp)
        dist.barrier()
        if epoch == args.epochs - 1 and rank == 0:
            report_table(log, conf)

    log.info("training finished")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
