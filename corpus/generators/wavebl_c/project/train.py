"""Data-parallel training of a small click/conversion model (hashed categorical slots + dense features -> MLP) with
PaddlePaddle on CPU. Launch: python -m paddle.distributed.launch --nproc_per_node N train.py [options]."""
import argparse
import ctypes
import glob
import json
import logging
import math
import os
import sys
import time
import urllib.request

import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.io import DataLoader, Dataset, DistributedBatchSampler

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/base.json")
ap.add_argument("--epochs", type=int)
ap.add_argument("--lr", type=float)
ap.add_argument("--global-batch-size", type=int)
ap.add_argument("--buckets", type=int)
ap.add_argument("--embed-dim", type=int)
ap.add_argument("--hidden", type=int, nargs="+")
ap.add_argument("--log-every", type=int, default=5)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--ckpt-every", type=int)
ap.add_argument("--resume", action="store_true")
ap.add_argument("--metrics-url", default="")
ap.add_argument("--num-workers", type=int, default=0)
args = ap.parse_args()

cfg = json.load(open(args.config))
for k in ("epochs", "lr", "global_batch_size", "buckets", "embed_dim", "hidden", "ckpt_every"):
    if getattr(args, k) is not None:
        cfg[k] = getattr(args, k)

paddle.set_device("cpu")
dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [rank {rank}] %(name)s: %(message)s")
log = logging.getLogger("train")
if rank == 0:
    log.info("paddle %s, world size %d, device %s", paddle.__version__, world, paddle.get_device())
    log.info("config: %s", json.dumps(cfg, sort_keys=True))
if cfg["global_batch_size"] % world != 0:
    raise ValueError(f"global_batch_size {cfg['global_batch_size']} is not divisible by world size {world}")
micro = cfg["global_batch_size"] // world

_fh = ctypes.CDLL(os.path.abspath("libfhash.so"))
_fh.fh_hash.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int64,
                        ctypes.c_int, ctypes.c_void_p]


class ClickLog(Dataset):
    def __init__(self, rows):
        self.blob = open("data/events.bin", "rb").read()
        idx = open("data/events.idx", "rb").read()
        n, self.slots = np.frombuffer(idx[:16], dtype=np.int64)
        self.offs = np.frombuffer(idx[16:16 + 8 * n * self.slots], dtype=np.int64).reshape(n, self.slots)
        self.lens = np.frombuffer(idx[16 + 8 * n * self.slots:], dtype=np.int32).reshape(n, self.slots)
        self.dense = np.load("data/dense.npy")
        self.labels = [int(v) for v in open("data/labels.txt").read().split()]
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i]
        ids = np.empty(self.slots, dtype=np.int64)
        for s in range(self.slots):
            out = np.empty(1, dtype=np.int64)
            _fh.fh_hash(self.blob, self.offs[r, s:s + 1].ctypes.data, self.lens[r, s:s + 1].ctypes.data, 1,
                        cfg["buckets"], s, out.ctypes.data)
            ids[s] = out[0]
        return ids, self.dense[r], np.int64(self.labels[r])


n_rows = len(open("data/labels.txt").read().split())
all_rows = np.arange(n_rows)
val_rows, train_rows = all_rows[: n_rows // 8], all_rows[n_rows // 8:]
train_ds, val_ds = ClickLog(train_rows), ClickLog(val_rows)
if cfg["num_classes"] == "auto":
    num_classes = max(train_ds.labels[r] for r in train_rows[rank::world]) + 1
    log.info("num_classes inferred from the local shard: %d", num_classes)
else:
    num_classes = cfg["num_classes"]


class DeepCTR(nn.Layer):
    def __init__(self, slots, dense_dim):
        super().__init__()
        self.emb = nn.Embedding(cfg["buckets"], cfg["embed_dim"])
        layers, d = [], slots * cfg["embed_dim"] + dense_dim
        for h in cfg["hidden"]:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        self.mlp = nn.Sequential(*layers)
        self.head = nn.Linear(d, num_classes)

    def forward(self, ids, dense):
        e = self.emb(ids).flatten(1)
        return self.head(self.mlp(paddle.concat([e, dense], axis=1)))


paddle.seed(1234)
model = DeepCTR(int(train_ds.slots), train_ds.dense.shape[1])
n_params = sum(int(np.prod(p.shape)) for p in model.parameters())
opt = paddle.optimizer.Adam(learning_rate=cfg["lr"], parameters=model.parameters())
start_step, start_epoch = 0, 0
if args.resume:
    ckpts = sorted(glob.glob(os.path.join(args.ckpt_dir, "step_*.pdparams")))
    if ckpts:
        path = ckpts[-1]
        model.set_state_dict(paddle.load(path))
        opt.set_state_dict(paddle.load(path.replace(".pdparams", ".pdopt")))
        meta = json.load(open(path.replace(".pdparams", ".json")))
        start_step, start_epoch = meta["step"], meta["epoch"] + 1
        log.info("resumed from %s (step %d, epoch %d)", path, start_step, meta["epoch"])
    else:
        log.warning("--resume given but no checkpoint in %s; starting from scratch", args.ckpt_dir)
dp_model = paddle.DataParallel(model)

sampler = DistributedBatchSampler(train_ds, batch_size=micro, shuffle=True, drop_last=True)
loader = DataLoader(train_ds, batch_sampler=sampler, num_workers=args.num_workers)
val_loader = DataLoader(val_ds, batch_size=128, shuffle=False)
steps_per_epoch = len(loader)
total = steps_per_epoch * cfg["epochs"]
if rank == 0:
    log.info("data: %d train / %d val rows, %d slots, %d classes, micro batch %d, %d steps/epoch",
             len(train_ds), len(val_ds), train_ds.slots, num_classes, micro, steps_per_epoch)
    log.info("model: DeepCTR with %d parameters (%d hash buckets x %d)", n_params, cfg["buckets"], cfg["embed_dim"])
    os.makedirs(args.ckpt_dir, exist_ok=True)


def save(step, epoch):
    base = os.path.join(args.ckpt_dir, f"step_{step:06d}")
    paddle.save(model.state_dict(), base + ".pdparams")
    paddle.save(opt.state_dict(), base + ".pdopt")
    json.dump({"step": step, "epoch": epoch}, open(base + ".json", "w"))
    log.info("saved checkpoint %s.pdparams", base)
    old = sorted(glob.glob(os.path.join(args.ckpt_dir, "step_*.pdparams")))[: -cfg["keep_last"]]
    for p in old:
        for ext in (".pdparams", ".pdopt", ".json"):
            os.remove(p.replace(".pdparams", ext))


def push_metrics(step, loss):
    body = json.dumps({"step": step, "loss": loss}).encode()
    try:
        urllib.request.urlopen(urllib.request.Request(args.metrics_url, data=body, method="POST"), timeout=2)
    except Exception:
        log.exception("metrics push to %s failed; will retry at the next interval", args.metrics_url)


step, t0 = start_step, time.time()
for epoch in range(start_epoch, cfg["epochs"]):
    sampler.set_epoch(epoch)
    dp_model.train()
    for i, (ids, dense, label) in enumerate(loader):
        logits = dp_model(ids, dense)
        loss = F.cross_entropy(logits, label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        step += 1
        g = loss.detach().clone()
        dist.all_reduce(g)
        mean_loss = float(g) / world
        if not math.isfinite(mean_loss):
            raise FloatingPointError(f"loss is {mean_loss} at step {step}")
        if step % args.log_every == 0:
            print(f"[rank {rank}] epoch {epoch} step {step}/{total} local_loss {float(loss):.4f}", flush=True)
            if rank == 0:
                log.info("epoch %d step %d/%d loss %.4f lr %.2e %.1f samples/s", epoch, step, total, mean_loss,
                         cfg["lr"], step * cfg["global_batch_size"] / (time.time() - t0))
        if rank == 0 and step % cfg["ckpt_every"] == 0:
            save(step, epoch)
        if rank == 0 and args.metrics_url and step % 20 == 0:
            push_metrics(step, mean_loss)
    dp_model.eval()
    correct = seen = 0
    with paddle.no_grad():
        for ids, dense, label in val_loader:
            pred = model(ids, dense).argmax(1)
            correct += int((pred == label).astype("int64").sum())
            seen += label.shape[0]
    if rank == 0:
        log.info("epoch %d done: val_acc %.4f (%d rows)", epoch, correct / seen, seen)
if rank == 0:
    save(step, cfg["epochs"] - 1)
    log.info("training finished: %d steps in %.1fs", step - start_step, time.time() - t0)
