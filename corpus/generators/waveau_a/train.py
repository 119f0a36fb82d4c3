"""Road-sign classifier: Hydra app, DDP over gloo (spawns trainer.devices ranks itself, or runs under torchrun)."""
import functools
import glob
import json
import logging
import logging.config
import os
import sys
import time
import urllib.request
from datetime import timedelta

import hydra
import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger(__name__)


class SignNet(nn.Module):
    def __init__(self, channels, hidden, dropout, num_classes):
        super().__init__()
        layers, c_in = [], 3
        for c in channels:
            layers += [nn.Conv2d(c_in, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2)]
            c_in = c
        self.features = nn.Sequential(*layers)
        side = 32 // (2 ** len(channels))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c_in * side * side, hidden), nn.ReLU(),
                                  nn.Dropout(dropout), nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.head(self.features(x))


def group_depths(meta):
    groups = meta["groups"]
    sys.setrecursionlimit(1_000_000)  # the mapping team's taxonomy can nest deeply

    @functools.lru_cache(maxsize=None)
    def depth(g):
        p = groups.get(g)
        return 0 if p is None else 1 + depth(p)

    return [depth(c["group"]) + 1 for c in meta["classes"]]


def load_split(cfg, rank, world):
    files = sorted(glob.glob(os.path.join(cfg.data.root, "shards", "shard-*.npz")))
    if not files:
        raise FileNotFoundError(f"no shards under {os.path.join(cfg.data.root, 'shards')}")
    val_file, train_files = files[-1], files[:-1]
    mine = train_files[rank::world]
    log.info(f"[rank{rank}] loading shards {[os.path.basename(f) for f in mine]}")
    xs, ys = [], []
    for f in mine:
        with np.load(f) as z:
            xs.append(z["x"]), ys.append(z["y"])
    x = (torch.from_numpy(np.concatenate(xs)) - cfg.data.mean) / cfg.data.std
    y = torch.from_numpy(np.concatenate(ys))
    if cfg.data.precompute_aug:
        g = torch.Generator().manual_seed(rank)
        aug = [x]
        for _ in range(cfg.data.precompute_aug):
            shift = torch.randint(-2, 3, (2,), generator=g).tolist()
            aug.append(torch.roll(x, shifts=shift, dims=(2, 3)) * (1 + 0.1 * torch.randn(1, generator=g)))
        x, y = torch.cat(aug), y.repeat(cfg.data.precompute_aug + 1)
        log.info(f"[rank{rank}] precomputed {cfg.data.precompute_aug} augmentations: {x.shape[0]} crops, "
                 f"{x.numel() * 4 / 2**20:.0f} MiB")
    with np.load(val_file) as z:
        vx = (torch.from_numpy(z["x"]) - cfg.data.mean) / cfg.data.std
        vy = torch.from_numpy(z["y"])
    return TensorDataset(x, y), TensorDataset(vx, vy)


def push_metrics(url, payload):
    try:
        req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=3).read()
    except OSError as e:
        log.error(f"metrics push to {url} failed: {e}; continuing without remote metrics")


def train(rank, world, cfg):
    torch.manual_seed(cfg.seed + rank)
    init = "env://" if "LOCAL_RANK" in os.environ else f"tcp://{cfg.trainer.master_addr}:{cfg.trainer.master_port}"
    dist.init_process_group("gloo", init_method=init,
                            rank=rank, world_size=world, timeout=timedelta(seconds=cfg.trainer.init_timeout))
    log.info(f"[rank{rank}] process group ready: backend gloo, world_size {world}")
    want = cfg.data.batch_size * cfg.trainer.accumulate * world
    if cfg.trainer.global_batch_size != want:
        raise ValueError(f"trainer.global_batch_size {cfg.trainer.global_batch_size} != data.batch_size "
                         f"{cfg.data.batch_size} * trainer.accumulate {cfg.trainer.accumulate} * world_size {world} "
                         f"(= {want})")
    with open(os.path.join(cfg.data.root, "classes.json")) as f:
        meta = json.load(f)
    depths = group_depths(meta)
    log.info(f"[rank{rank}] {len(meta['classes'])} sign classes, taxonomy depth {max(depths)}")
    train_ds, val_ds = load_split(cfg, rank, world)
    model = SignNet(list(cfg.model.channels), cfg.model.hidden, cfg.model.dropout, cfg.model.num_classes)
    pg = dist.new_group(backend="gloo", timeout=timedelta(seconds=cfg.trainer.pg_timeout))
    ddp = DDP(model, process_group=pg)
    if cfg.optim.name == "sgd":
        opt = torch.optim.SGD(ddp.parameters(), lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                              weight_decay=cfg.optim.weight_decay)
    else:
        opt = torch.optim.AdamW(ddp.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    start_epoch, step = 0, 0
    last = os.path.join(cfg.trainer.ckpt_dir, "last.pt")
    if cfg.trainer.resume and os.path.exists(last):
        ck = torch.load(last, map_location="cpu")
        model.load_state_dict(ck["model"]), opt.load_state_dict(ck["optim"])
        start_epoch, step = ck["epoch"], ck["step"]
        log.info(f"[rank{rank}] resumed from {last} (epoch {start_epoch}, step {step})")
    loader = DataLoader(train_ds, batch_size=cfg.data.batch_size, shuffle=True, num_workers=cfg.data.num_workers,
                        drop_last=True, generator=torch.Generator().manual_seed(cfg.seed + rank))
    for epoch in range(start_epoch, cfg.trainer.epochs):
        ddp.train()
        t0, seen, correct = time.time(), 0, 0
        for i, (x, y) in enumerate(loader):
            logits = ddp(x)
            loss = F.cross_entropy(logits, y)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"[rank{rank}] loss is {loss.item()} at epoch {epoch + 1} step {step}")
            (loss / cfg.trainer.accumulate).backward()
            if (i + 1) % cfg.trainer.accumulate == 0:
                opt.step(), opt.zero_grad(set_to_none=True)
            step += 1
            seen += len(y)
            correct += (logits.argmax(1) == y).sum().item()
            if step % cfg.trainer.log_every == 0:
                log.info(f"[rank{rank}] epoch {epoch + 1} step {step} loss {loss.item():.4f} "
                         f"lr {opt.param_groups[0]['lr']:.4g}")
            if cfg.trainer.step_delay:
                time.sleep(cfg.trainer.step_delay)
        ddp.eval()
        with torch.no_grad():
            vlog = model(val_ds.tensors[0])
            vacc = torch.tensor([(vlog.argmax(1) == val_ds.tensors[1]).float().mean().item()])
        dist.all_reduce(vacc, group=pg)
        vacc = vacc.item() / world
        log.info(f"[rank{rank}] epoch {epoch + 1} done in {time.time() - t0:.1f}s: train acc "
                 f"{correct / max(seen, 1):.3f}, val acc {vacc:.3f}")
        if rank == 0:
            os.makedirs(cfg.trainer.ckpt_dir, exist_ok=True)
            ck = {"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch + 1, "step": step,
                  "config": OmegaConf.to_container(cfg, resolve=True)}
            path = os.path.join(cfg.trainer.ckpt_dir, f"epoch-{epoch + 1}.pt")
            torch.save(ck, path)
            torch.save(ck, last)
            log.info(f"saved checkpoint {path}")
            if cfg.trainer.metrics_url:
                push_metrics(cfg.trainer.metrics_url, {"run": cfg.run_name, "epoch": epoch + 1, "val_acc": vacc})
        dist.barrier(group=pg)
    log.info(f"[rank{rank}] finished {cfg.trainer.epochs} epochs, {step} steps")
    dist.destroy_process_group()
    return vacc


def spawned(rank, world, cfg_dict, logging_cfg):
    if logging_cfg:
        logging.config.dictConfig(logging_cfg)
    cfg = OmegaConf.create(cfg_dict)
    node_rank = cfg.trainer.node_rank * cfg.trainer.devices + rank
    train(node_rank, world, cfg)


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> float:
    log.info("config:\n" + OmegaConf.to_yaml(cfg, resolve=True))
    log.info(f"output dir: {os.path.relpath(HydraConfig.get().runtime.output_dir)}")
    if "LOCAL_RANK" in os.environ:  # under torchrun: its store, env:// rendezvous
        return train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), cfg)
    world = cfg.trainer.devices * cfg.trainer.num_nodes
    if HydraConfig.get().mode == RunMode.MULTIRUN:  # parallel sweep jobs must not share a master port
        cfg.trainer.master_port += HydraConfig.get().job.num
    if world == 1:
        return train(0, 1, cfg)
    logging_cfg = OmegaConf.to_container(HydraConfig.get().job_logging, resolve=True)
    log.info(f"spawning {cfg.trainer.devices} processes (world_size {world}, node_rank {cfg.trainer.node_rank})")
    mp.spawn(spawned, args=(world, OmegaConf.to_container(cfg, resolve=True), logging_cfg),
             nprocs=cfg.trainer.devices, join=True)
    log.info("training complete")
    return 0.0


if __name__ == "__main__":
    main()
