"""A DeepSpeed job (CPU accelerator, gloo), launched with the ``deepspeed`` launcher: ``deepspeed.initialize`` on an
MLP classifier over synthetic tabular data with the JSON config of ``--ds-config`` (ZeRO stage, optimizer and
scheduler from the config), one ``logging`` line per rank every ``--log-every`` steps, an evaluation every
``--eval-every`` steps and ``engine.save_checkpoint`` every ``--save-every`` steps.

``--save-on`` decides which processes call ``save_checkpoint``: ``all`` (what DeepSpeed requires: every rank takes
part in saving) or ``rank0`` (the common "only the main process writes checkpoints" pattern carried over from
plain PyTorch scripts). ``--timeout``: the process-group timeout in seconds.
"""
from __future__ import annotations

import argparse
import datetime
import logging
import time

import deepspeed
import torch
import torch.distributed as dist

log = logging.getLogger("train")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ds-config", required=True)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--eval-every", type=int, default=50)
    p.add_argument("--save-every", type=int, default=100)
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--save-on", choices=("all", "rank0"), default="all")
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)
    a = p.parse_args()
    deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=a.timeout))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 256), torch.nn.GELU(),
                                torch.nn.Linear(256, 10))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=a.ds_config)
    rank, world, micro = engine.global_rank, engine.world_size, engine.train_micro_batch_size_per_gpu()
    logging.basicConfig(level=logging.INFO, force=True,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s")
    g = torch.Generator().manual_seed(100 + rank)
    centers = torch.randn(10, 64, generator=torch.Generator().manual_seed(5)) * 2
    eval_y = torch.randint(0, 10, (512,), generator=torch.Generator().manual_seed(9))
    eval_x = centers[eval_y] + torch.randn(512, 64, generator=torch.Generator().manual_seed(9))
    log.info("world size %d, micro batch %d, gradient accumulation %d, ZeRO stage %d, save_checkpoint on %s",
             world, micro, engine.gradient_accumulation_steps(), engine.zero_optimization_stage(), a.save_on)
    t0 = time.time()
    for step in range(1, a.steps + 1):
        for _ in range(engine.gradient_accumulation_steps()):
            y = torch.randint(0, 10, (micro,), generator=g)
            x = centers[y] + torch.randn(micro, 64, generator=g)
            loss = torch.nn.functional.cross_entropy(engine(x), y)
            engine.backward(loss)
            engine.step()
        if step % a.log_every == 0:
            log.info("step %d loss %.4f lr %.3g %.1f samples/s", step, loss.item(), engine.get_lr()[0],
                     step * micro * engine.gradient_accumulation_steps() * world / (time.time() - t0))
        if step % a.eval_every == 0:
            engine.eval()
            with torch.no_grad():
                acc = (engine(eval_x).argmax(1) == eval_y).float().mean()
            dist.all_reduce(acc)
            engine.train()
            log.info("step %d eval accuracy %.4f", step, acc.item() / world)
        if step % a.save_every == 0 and (a.save_on == "all" or rank == 0):
            log.info("saving checkpoint %s/step%d", a.save_dir, step)
            engine.save_checkpoint(a.save_dir, tag=f"step{step}")
            log.info("checkpoint step%d saved", step)
    log.info("training finished after %d steps", a.steps)


if __name__ == "__main__":
    main()
