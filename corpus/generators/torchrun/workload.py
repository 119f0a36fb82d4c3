"""A small, realistic-looking data-parallel training script for the torchrun corpus generator.

It is launched by ``generate.py`` under the real ``torchrun`` launcher (or by hand with env
vars for the store/rendezvous scenarios). A tiny MLP is trained on synthetic regression data
with the gloo backend on CPU; gradients are averaged with ``all_reduce`` by hand, as a
minimal DDP would. ``--scenario`` decides what (if anything) goes wrong, so the logs carry
the usual training noise around the failure.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset

LOG = logging.getLogger("train")


class RankFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.rank = os.environ.get("RANK", "?")
        return True


def setup_logging() -> None:
    handler = logging.StreamHandler(sys.stdout)
    handler.addFilter(RankFilter())
    handler.setFormatter(
        logging.Formatter("%(asctime)s [rank%(rank)s] %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


class SyntheticRegression(Dataset):
    """y = x @ w + noise, generated deterministically per index."""

    def __init__(self, n: int, dim: int, sample_bytes: int = 0, kill_at: int = -1) -> None:
        self.n = n
        self.dim = dim
        self.w = torch.linspace(-1.0, 1.0, dim)
        self.sample_bytes = sample_bytes
        self.kill_at = kill_at
        self.vocab = {f"feat_{i}": i for i in range(dim)}

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, idx: int):
        if idx == self.kill_at:
            # The kernel OOM killer sends SIGKILL; do the same to this DataLoader worker.
            os.kill(os.getpid(), signal.SIGKILL)
        g = torch.Generator().manual_seed(idx)
        x = torch.randn(self.dim, generator=g)
        y = (x * self.w).sum(0, keepdim=True) + 0.01 * torch.randn(1, generator=g)
        if self.sample_bytes:
            # e.g. an image/audio payload carried along with the sample
            extra = torch.zeros(self.sample_bytes // 4, dtype=torch.float32)
            return x, y, extra
        return x, y


def collate(batch):
    xs = torch.stack([b[0] for b in batch])
    ys = torch.stack([b[1] for b in batch])
    if len(batch[0]) > 2:
        return xs, ys, torch.stack([b[2] for b in batch])
    return xs, ys


def lookup_label_column(columns: dict, name: str) -> int:
    return columns[name]


def build_model(dim: int) -> nn.Module:
    return nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))


def average_gradients(model: nn.Module, world_size: int) -> None:
    for p in model.parameters():
        if p.grad is None:
            continue
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
        p.grad /= world_size


def user_failure(kind: str, step: int, batch_x: torch.Tensor, ds: SyntheticRegression) -> None:
    """Raise the kind of bug real training code hits on one rank."""
    if kind == "ValueError":
        n_valid = int(batch_x.shape[0] * 0)
        if n_valid == 0:
            raise ValueError(
                f"Expected a non-empty batch after filtering padded samples, got {n_valid} valid samples at step {step}"
            )
    elif kind == "IndexError":
        positions = list(range(batch_x.shape[0]))
        _ = positions[batch_x.shape[0] + step]
    elif kind == "KeyError":
        lookup_label_column(ds.vocab, "label_smoothing_target")
    elif kind == "AssertionError":
        seq_len = batch_x.shape[1] + 3
        assert seq_len <= batch_x.shape[1], f"sequence length {seq_len} exceeds max_position_embeddings {batch_x.shape[1]}"
    else:
        raise RuntimeError(f"unknown failure kind {kind}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="ok",
                    choices=["ok", "exception", "stall", "uneven", "mismatch_shape", "mismatch_op",
                             "sigkill", "loader_sigkill", "long", "shm", "init_only"])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--fail-rank", type=int, default=1)
    ap.add_argument("--fail-step", type=int, default=3)
    ap.add_argument("--exc", default="ValueError")
    ap.add_argument("--pg-timeout", type=float, default=20.0, help="process-group timeout, seconds")
    ap.add_argument("--stall-seconds", type=float, default=30.0)
    ap.add_argument("--step-sleep", type=float, default=0.05)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--final-sync", default="barrier", choices=["barrier", "metric", "monitored_barrier"])
    ap.add_argument("--loader-timeout", type=float, default=0, help="DataLoader timeout, seconds")
    ap.add_argument("--sharing-strategy", default="", choices=["", "file_descriptor", "file_system"])
    ap.add_argument("--record-errors", action="store_true", help="wrap main() in torchelastic @record")
    ap.add_argument("--sample-bytes", type=int, default=0)
    args = ap.parse_args()

    setup_logging()
    torch.manual_seed(0)
    if args.sharing_strategy:
        torch.multiprocessing.set_sharing_strategy(args.sharing_strategy)

    rank = int(os.environ.get("RANK", "0"))
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    LOG.info("starting worker pid=%d host=%s local_rank=%d world_size=%d master=%s:%s",
             os.getpid(), socket.gethostname(), local_rank, world_size,
             os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"))
    LOG.info("torch %s, backend=gloo, pg timeout=%ss, TORCH_DISTRIBUTED_DEBUG=%s",
             torch.__version__, args.pg_timeout, os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF"))

    dist.init_process_group(backend="gloo", timeout=timedelta(seconds=args.pg_timeout))
    LOG.info("process group initialized: rank %d/%d", dist.get_rank(), dist.get_world_size())
    if args.scenario == "init_only":
        dist.barrier()
        dist.destroy_process_group()
        return 0

    dim = 16
    steps = args.steps
    if args.scenario == "uneven" and rank == args.fail_rank:
        steps += 1  # this rank's shard has one batch more than the others
    kill_at = -1
    if args.scenario == "loader_sigkill" and rank == args.fail_rank:
        kill_at = args.fail_step * args.batch_size + 1
    ds = SyntheticRegression(n=args.batch_size * steps, dim=dim,
                             sample_bytes=args.sample_bytes, kill_at=kill_at)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=False, num_workers=args.num_workers,
                        collate_fn=collate, persistent_workers=False,
                        timeout=args.loader_timeout if args.num_workers else 0)
    model = build_model(dim)
    # start all ranks from the same weights
    for p in model.parameters():
        dist.broadcast(p.data, src=0)
    n_params = sum(p.numel() for p in model.parameters())
    LOG.info("model: %d parameters, %d batches/epoch, batch_size=%d, num_workers=%d",
             n_params, len(loader), args.batch_size, args.num_workers)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.MSELoss()

    t0 = time.time()
    for step, batch in enumerate(loader):
        x, y = batch[0], batch[1]
        if args.scenario == "exception" and rank == args.fail_rank and step == args.fail_step:
            user_failure(args.exc, step, x, ds)
        if args.scenario == "sigkill" and rank == args.fail_rank and step == args.fail_step:
            LOG.info("allocating activation cache for step %d", step)
            # The kernel OOM killer sends SIGKILL; do the same to this worker.
            os.kill(os.getpid(), signal.SIGKILL)
        if args.scenario == "stall" and rank == args.fail_rank and step == args.fail_step:
            LOG.info("step %d: refreshing dataset shard index", step)
            time.sleep(args.stall_seconds)  # e.g. a blocking read on a slow filesystem
        opt.zero_grad(set_to_none=True)
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        if args.scenario == "mismatch_shape" and rank == args.fail_rank and step == args.fail_step:
            # a rank that skipped a frozen layer: it reduces a flattened bucket of another size
            grads = [p.grad.flatten() for p in model.parameters()][1:]
            bucket = torch.cat(grads)
            dist.all_reduce(bucket)
        elif args.scenario == "mismatch_op" and rank == args.fail_rank and step == args.fail_step:
            # this rank thinks it should re-sync weights from rank 0 instead
            for p in model.parameters():
                dist.broadcast(p.data, src=0)
        average_gradients(model, world_size)
        opt.step()
        lt = loss.detach().clone()
        dist.all_reduce(lt)
        LOG.info("step %d loss %.4f lr %.3f elapsed %.2fs", step, lt.item() / world_size,
                 opt.param_groups[0]["lr"], time.time() - t0)
        if args.step_sleep:
            time.sleep(args.step_sleep)

    LOG.info("epoch done after %d steps, waiting for the other ranks", steps)
    if args.final_sync == "metric":
        # evaluation metric sync at the end of the epoch
        acc = torch.tensor([float(rank)])
        dist.all_reduce(acc)
        LOG.info("eval metric %.3f", acc.item())
    elif args.final_sync == "monitored_barrier":
        dist.monitored_barrier(timeout=timedelta(seconds=args.pg_timeout))
    dist.barrier()
    if rank == 0:
        LOG.info("training finished in %.2fs, saving checkpoint to /tmp/ckpt-demo.pt", time.time() - t0)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    if "--record-errors" in sys.argv:
        # torchelastic's @record writes the exception to TORCHELASTIC_ERROR_FILE (error.json)
        from torch.distributed.elastic.multiprocessing.errors import record

        sys.exit(record(main)())
    sys.exit(main())
