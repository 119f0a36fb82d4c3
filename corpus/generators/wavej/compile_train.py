"""Token-classification (NER-style tagger) training with ``torch.compile``, torch.distributed gloo on CPU.

Ranks come from the launcher (``SLURM_PROCID``/``SLURM_NTASKS`` under srun, ``RANK``/``WORLD_SIZE`` under torchrun,
``OMPI_COMM_WORLD_*`` under mpirun); ``MASTER_ADDR``/``MASTER_PORT`` from the job script. The model (embedding +
2-layer Transformer encoder + tag head) is wrapped in DDP and compiled with ``torch.compile`` (inductor; generated C++
and its build products go to ``TORCHINDUCTOR_CACHE_DIR``). Synthetic sentences are tagged by a fixed rule the model has
to learn. Every ``--save-every`` steps rank 0 writes ``ckpt/last.pt``; ``--resume`` continues from it. A SIGTERM
handler (the cluster preempts jobs) saves a checkpoint at the next step boundary and exits with 143.
"""
from __future__ import annotations

import argparse
import datetime
import logging
import os
import signal
import socket
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

log = logging.getLogger("tagger")
STOP = {"signal": None}


def env_int(names: tuple[str, ...], default: int) -> int:
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    return default


class Tagger(nn.Module):
    def __init__(self, vocab: int = 2048, tags: int = 9, d: int = 96) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d, tags)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.enc(self.emb(x)))


def batch(gen: torch.Generator, n: int, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randint(1, 2048, (n, seq), generator=gen)
    y = (x % 7 + (x.roll(1, 1) % 3 == 0).long()) % 9  # the tag depends on the token and its left neighbour
    return x, y


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--save-every", type=int, default=50)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args()
    rank = env_int(("SLURM_PROCID", "RANK", "OMPI_COMM_WORLD_RANK"), 0)
    world = env_int(("SLURM_NTASKS", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE"), 1)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s rank{rank} %(levelname)s %(message)s")
    signal.signal(signal.SIGTERM, lambda s, f: STOP.update(signal=s))
    log.info("host %s pid %d, torch %s, inductor cache %s", socket.gethostname(), os.getpid(), torch.__version__,
             os.environ.get("TORCHINDUCTOR_CACHE_DIR", "(default)"))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=600))
    log.info("joined process group: world %d via %s:%s", world, os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"])
    torch.manual_seed(0)
    model = Tagger()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr)
    start = 0
    if a.resume and os.path.exists("ckpt/last.pt"):
        ck = torch.load("ckpt/last.pt", weights_only=True)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start = ck["step"]
        log.info("resumed from ckpt/last.pt at step %d", start)
    elif a.resume:
        log.info("no checkpoint in ckpt/, starting from scratch")
    ddp = DDP(model)
    cmodel = torch.compile(ddp)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(1000 * rank + start)
    t0 = time.time()
    log.info("compiling model (first step)...")

    def save(step: int) -> None:
        if rank == 0:
            os.makedirs("ckpt", exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, "ckpt/last.pt.tmp")
            os.replace("ckpt/last.pt.tmp", "ckpt/last.pt")
            log.info("saved ckpt/last.pt at step %d", step)

    for step in range(start + 1, a.steps + 1):
        x, y = batch(gen, a.batch, a.seq)
        out = cmodel(x)
        loss = loss_fn(out.reshape(-1, 9), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step == start + 1:
            log.info("first step done in %.1f s (compile included)", time.time() - t0)
        if step % a.log_every == 0:
            acc = (out.argmax(-1) == y).float().mean().item()
            log.info("step %d/%d loss %.4f acc %.3f %.3f s/step", step, a.steps, loss.item(), acc,
                     (time.time() - t0) / (step - start))
        if a.eval_every and step % a.eval_every == 0:
            with torch.no_grad():
                ex, ey = batch(torch.Generator().manual_seed(999), 256, a.seq)
                acc = torch.tensor([(model(ex).argmax(-1) == ey).float().mean().item()])
                dist.all_reduce(acc)
            log.info("step %d eval token accuracy %.4f", step, acc.item() / world)
        if step % a.save_every == 0:
            save(step)
        if STOP["signal"] is not None:
            log.warning("received signal %d: checkpointing at step %d and exiting", STOP["signal"], step)
            save(step)
            raise SystemExit(143)
        if a.step_sleep:
            time.sleep(a.step_sleep)
    log.info("training done: %d steps in %.1f s", a.steps, time.time() - t0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
