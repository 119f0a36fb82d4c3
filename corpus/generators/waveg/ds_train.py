"""Wave G DeepSpeed job (copied from wave F; ``--save-every N`` calls ``engine.save_checkpoint`` into
``--save-dir`` every N steps, ``--hidden`` sets the model width; ``--workers N`` feeds raw 3x64x64 "images" through a
DataLoader with N worker processes, pooled to 16 features in the step, so batches travel through shared memory;
``--curriculum F``: a JSON file of per-rank noise levels per stage of ``--stage-steps`` steps, looked up each step;
``--metrics-rank R``: that rank keeps per-sample losses in job.py's MetricsBuffer, whose flush re-takes its lock;
``--timeout``: the process-group timeout, seconds): ``deepspeed.initialize`` on a small factorised linear regression (three Linear layers) (CPU accelerator, gloo) with the JSON
config of ``--ds-config`` (a client ``torch.optim.SGD`` optimizer, the LR scheduler from the config, e.g. ``WarmupLR``), one ``logging`` line per
rank every ``--log-every`` steps. Nothing is injected: a config whose warmup peak LR is too high diverges for real.
"""
from __future__ import annotations

import argparse
import json
import datetime
import logging

import deepspeed
import torch

log = logging.getLogger("ds_train")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ds-config", required=True)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--curriculum", default="")
    p.add_argument("--stage-steps", type=int, default=25)
    p.add_argument("--metrics-rank", type=int, default=-1)
    p.add_argument("--metrics-cap", type=int, default=64)
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--save-every", type=int, default=0)
    p.add_argument("--save-dir", default="ckpt")
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)
    a = p.parse_args()
    deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=a.timeout))
    torch.manual_seed(0)
    # a factorised linear regression head (no activation): SGD on it blows up once the LR passes its stability limit
    model = torch.nn.Sequential(torch.nn.Linear(16, a.hidden), torch.nn.Linear(a.hidden, a.hidden), torch.nn.Linear(a.hidden, 1))
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)  # client optimizer, scheduler from the config
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=a.ds_config)
    rank, micro = engine.global_rank, engine.train_micro_batch_size_per_gpu()
    logging.basicConfig(level=logging.INFO, force=True,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s")
    g = torch.Generator().manual_seed(100 + rank)
    w = torch.randn(16, 1, generator=torch.Generator().manual_seed(7))
    batches = None
    if a.workers:
        from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
        images = TensorDataset(torch.randn(micro * a.steps * engine.world_size, 3 * 64 * 64, generator=g))
        batches = iter(DataLoader(images, batch_size=micro, num_workers=a.workers,
                                  sampler=DistributedSampler(images, engine.world_size, rank)))
        log.info("DataLoader with %d workers, %d batches per rank", a.workers, a.steps)
    curriculum = json.load(open(a.curriculum))["noise_by_rank"][str(rank)] if a.curriculum else None
    metrics = None
    if rank == a.metrics_rank:
        from job import MetricsBuffer
        metrics = MetricsBuffer(f"metrics-rank{rank}.jsonl", a.metrics_cap)
    for step in range(1, a.steps + 1):
        if batches is not None:
            x = next(batches)[0].view(micro, 16, -1).mean(-1)  # pool each image to 16 features
        else:
            x = torch.randn(micro, 16, generator=g)
        if curriculum is not None:
            x = x + curriculum[(step - 1) // a.stage_steps] * torch.randn(x.shape, generator=g)
        loss = torch.nn.functional.mse_loss(engine(x), x @ w)
        if metrics is not None:
            metrics.add(step, ((engine(x) - x @ w) ** 2).detach().squeeze(1))
        engine.backward(loss)
        engine.step()
        if step % a.log_every == 0:
            log.info("step %d loss %.4f lr %.4g", step, loss.item(), engine.get_lr()[0])
        if a.save_every and step % a.save_every == 0:
            engine.save_checkpoint(a.save_dir, tag=f"step{step}")
            log.info("saved checkpoint %s/step%d", a.save_dir, step)
    log.info("training finished after %d steps", a.steps)


if __name__ == "__main__":
    main()
