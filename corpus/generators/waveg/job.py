"""Wave G data-parallel job (copied from wave F and extended) (torch.distributed, gloo, CPU) with ``logging``-module output, for torchrun, the DeepSpeed
launcher and ``torch.multiprocessing.spawn`` (``spawn.py``): a tiny MLP regression fed by a DataLoader with a
DistributedSampler, DDP gradients, an evaluation every ``--eval-every`` steps whose metrics are all_reduced (or whose
predictions are all_gathered) and an end-of-epoch ``monitored_barrier``.

Faults (real bugs and real conditions, nothing prints a message that stands in for a library's):
  --eval-size N         the eval set has N records; DistributedSampler(drop_last=True)... not used: the eval set is
                        split by hand with ``records[rank::world]``, so a rank can get an empty shard when N < world
  --ragged-gather       eval predictions are all_gathered without padding (each rank's shard size differs)
  --warmup/--peak-lr    linear LR warmup to the peak LR (a peak that is too high makes the run diverge for real)
  --check-finite        stop with FloatingPointError when the loss is not finite
  --straggler-rank/-s   that rank sleeps S seconds before the end-of-epoch monitored_barrier (a slow upload)
  --barrier-timeout     monitored_barrier timeout, seconds
  --native-norm         normalise each batch in place with libfastnorm.so (fastnorm.c, through ctypes), using
                        per-shard feature statistics computed at start for --stats-shards shards; a rank whose
                        shard id (step // --shard-steps, per rank) has no statistics passes None (a NULL pointer)
  --metrics-rank R      that rank buffers per-sample metrics in a MetricsBuffer of --metrics-cap entries whose
                        flush is called with its non-reentrant lock held (a Python deadlock once the buffer fills)
  --sigterm-checkpoint  a SIGTERM handler that logs, saves a checkpoint and exits 143 (preemption-aware script)
"""
from __future__ import annotations

import argparse
import ctypes
import signal
import sys
import threading
import datetime
import logging
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

log = logging.getLogger("train")


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--peak-lr", type=float, default=0.0)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--width", type=int, default=16)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--log-every", type=int, default=1)
    p.add_argument("--eval-every", type=int, default=20)
    p.add_argument("--eval-size", type=int, default=64)
    p.add_argument("--ragged-gather", action="store_true")
    p.add_argument("--check-finite", action="store_true")
    p.add_argument("--straggler-rank", type=int, default=-1)
    p.add_argument("--straggler-sleep", type=float, default=0.0)
    p.add_argument("--barrier-timeout", type=float, default=30.0)
    p.add_argument("--timeout", type=float, default=1800.0, help="process-group timeout, seconds")
    p.add_argument("--sleep", type=float, default=0.02)
    p.add_argument("--native-norm", action="store_true")
    p.add_argument("--stats-shards", type=int, default=4)
    p.add_argument("--shard-steps", type=int, default=1000)
    p.add_argument("--metrics-rank", type=int, default=-1)
    p.add_argument("--metrics-cap", type=int, default=64)
    p.add_argument("--sigterm-checkpoint", action="store_true")
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)  # the DeepSpeed launcher passes it
    return p.parse_args(argv)


def setup_logging(rank: int) -> None:
    logging.basicConfig(level=logging.INFO, force=True,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s")


def evaluate(model, records: torch.Tensor, rank: int, world: int, ragged: bool) -> dict:
    shard = records[rank::world]  # hand-split eval set: a rank gets nothing when there are fewer records than ranks
    model.eval()
    with torch.no_grad():
        losses = [torch.nn.functional.mse_loss(model(r[None, :-1]), r[None, -1:]).item() for r in shard]
        if ragged:
            preds = model(shard[:, :-1]).squeeze(1)
            gathered = [torch.zeros_like(preds) for _ in range(world)]
            dist.all_gather(gathered, preds)
            log.info("gathered %d predictions", sum(g.numel() for g in gathered))
    model.train()
    return {"eval_loss": sum(losses) / len(losses), "eval_records": len(losses)}


class MetricsBuffer:
    """Per-sample metrics kept in memory and flushed to a JSON-lines file when ``cap`` entries are buffered."""

    def __init__(self, path: str, cap: int) -> None:
        self.path, self.cap, self.rows, self.lock = path, cap, [], threading.Lock()

    def add(self, step: int, losses: torch.Tensor) -> None:
        with self.lock:
            self.rows.extend({"step": step, "loss": v} for v in losses.tolist())
            if len(self.rows) >= self.cap:
                self.flush()  # bug: flush takes self.lock again (threading.Lock is not reentrant)

    def flush(self) -> None:
        with self.lock:
            with open(self.path, "a") as f:
                f.writelines(f'{{"step": {r["step"]}, "loss": {r["loss"]}}}\n' for r in self.rows)
            self.rows.clear()


def train(a: argparse.Namespace) -> None:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    setup_logging(rank)
    log.info("initialized process group: backend=gloo world_size=%d pid=%d host=%s", world, os.getpid(),
             os.uname().nodename)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(a.batch * world * a.steps, a.width, generator=g)
    y = x @ torch.randn(a.width, 1, generator=g) + 0.1 * torch.randn(len(x), 1, generator=g)
    ev = torch.randn(a.eval_size, a.width + 1, generator=g)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(a.width, a.hidden), torch.nn.ReLU(),
                                    torch.nn.Linear(a.hidden, a.hidden), torch.nn.ReLU(), torch.nn.Linear(a.hidden, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    sampler = DistributedSampler(TensorDataset(x, y), num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(TensorDataset(x, y), batch_size=a.batch, sampler=sampler)
    log.info("train records=%d eval records=%d steps/epoch=%d lr=%g peak_lr=%g warmup=%d", len(x), a.eval_size,
             len(loader), a.lr, a.peak_lr, a.warmup)
    step = 0
    if a.native_norm:
        lib = ctypes.CDLL(os.path.abspath("libfastnorm.so"))
        lib.normalize.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_long, ctypes.c_void_p]
        shard_stats = {}
        for k in range(a.stats_shards):
            part = x[k::a.stats_shards]
            shard_stats[k] = torch.cat([part.mean(0), part.std(0)]).contiguous()
        log.info("native normalisation: libfastnorm.so, statistics for %d shards", len(shard_stats))
    metrics = MetricsBuffer(f"metrics-rank{rank}.jsonl", a.metrics_cap) if rank == a.metrics_rank else None
    if a.sigterm_checkpoint:
        def on_sigterm(signum, frame):
            log.warning("received SIGTERM at step %d: saving checkpoint and exiting", step)
            torch.save({"model": model.state_dict(), "step": step}, f"preempt-rank{rank}.pt")
            log.warning("checkpoint preempt-rank%d.pt saved at step %d", rank, step)
            sys.exit(143)
        signal.signal(signal.SIGTERM, on_sigterm)
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            if a.warmup:
                for group in opt.param_groups:
                    group["lr"] = a.lr + (a.peak_lr - a.lr) * min(1.0, step / a.warmup)
            if a.native_norm:
                xb = xb.contiguous()
                shard = (rank + step // a.shard_steps) % (a.stats_shards + 1)  # bug: one shard id too many
                stats = shard_stats.get(shard)
                lib.normalize(xb.data_ptr(), xb.shape[0], xb.shape[1], stats.data_ptr() if stats is not None else None)
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            if metrics is not None:
                metrics.add(step, ((model(xb) - yb) ** 2).detach().squeeze(1))
            if a.check_finite and not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at step {step} (lr={opt.param_groups[0]['lr']:.4g})")
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
            opt.step()
            step += 1
            if step % a.log_every == 0:
                log.info("epoch %d step %d loss %.4f grad_norm %.4f lr %.4g", epoch, step, loss.item(), gn.item(),
                         opt.param_groups[0]["lr"])
            if a.eval_every and step % a.eval_every == 0:
                m = evaluate(model, ev, rank, world, a.ragged_gather)
                t = torch.tensor([m["eval_loss"] * m["eval_records"], m["eval_records"]], dtype=torch.float64)
                dist.all_reduce(t)
                log.info("eval at step %d: eval_loss %.4f over %d records", step, (t[0] / t[1]).item(), int(t[1]))
            time.sleep(a.sleep)
        if rank == a.straggler_rank:
            log.info("uploading epoch %d artifacts", epoch)
            time.sleep(a.straggler_sleep)
        log.info("end of epoch %d: waiting for all ranks", epoch)
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=a.barrier_timeout))
    log.info("training finished after %d steps", step)
    dist.destroy_process_group()


if __name__ == "__main__":
    train(parse())
