"""Team product-embedding trainer: a small MLP trunk + embedder trained with pytorch-metric-learning's
MetricLossOnly trainer, one process per torchrun rank over gloo on CPU (both models wrapped in DDP, the loss and the
miner wrapped in PML's DistributedLossWrapper / DistributedMinerWrapper so every rank mines against the global batch).
Data: synthetic class-clustered feature vectors (written by rank 0 under data/ if missing). Each epoch ends with
PML's GlobalEmbeddingSpaceTester + AccuracyCalculator on rank 0 and a checkpoint. Optional team hooks: train_hooks.py
with on_iter(rank, epoch, it, trainer) / on_epoch(rank, epoch, trainer)."""
import argparse
import datetime
import importlib.util
import logging
import math
import os
import time
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import pytorch_metric_learning
from pytorch_metric_learning import distances, losses, miners, samplers, testers, trainers
from pytorch_metric_learning.utils import common_functions as c_f
from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator
from pytorch_metric_learning.utils.distributed import DistributedLossWrapper, DistributedMinerWrapper
from pytorch_metric_learning.utils.inference import CustomKNN

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/synth-products")
p.add_argument("--ckpt-dir", default="ckpt")
p.add_argument("--classes", type=int, default=40)
p.add_argument("--per-class", type=int, default=40)
p.add_argument("--dim", type=int, default=32)
p.add_argument("--emb", type=int, default=16)
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--iters", type=int, default=20)
p.add_argument("--global-batch", type=int, default=128)
p.add_argument("--m-per-class", type=int, default=4)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--loss", default="triplet", choices=["triplet", "arcface", "contrastive"])
p.add_argument("--margin", type=float, default=0.1)
p.add_argument("--workers", type=int, default=0)
p.add_argument("--resume", action="store_true")
p.add_argument("--pg-timeout", type=int, default=1800)
p.add_argument("--log-every", type=int, default=5)
p.add_argument("--fetch-delay", type=float, default=0.05)  # stands in for the per-batch feature-store fetch
a = p.parse_args()

rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
host = os.uname().nodename
logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s %(name)s [rank{rank}]: %(message)s")
log = logging.getLogger("embed-train")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
log.info("%s: gloo process group up, world %d (pytorch-metric-learning %s, torch %s)", host, world,
         pytorch_metric_learning.__version__, torch.__version__)

data = Path(a.data)
if rank == 0 and not (data / "train.npz").exists():
    rs = np.random.RandomState(7)
    centers = rs.normal(0, 1.0, (a.classes, a.dim)).astype("float32")
    data.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", a.per_class), ("val", 10)):
        y = np.repeat(np.arange(a.classes), n)
        x = centers[y] + rs.normal(0, 0.6, (len(y), a.dim)).astype("float32")
        np.savez(data / f"{split}.npz", x=x, y=y)
    log.info("wrote synthetic class-clustered features to %s (%d classes)", data, a.classes)
dist.barrier()

train = np.load(data / "train.npz")
val = np.load(data / "val.npz")
xs, ys = torch.from_numpy(train["x"]), torch.from_numpy(train["y"])
shard = torch.arange(rank, len(ys), world)  # every rank trains on its own shard of the items
train_ds = torch.utils.data.TensorDataset(xs[shard], ys[shard])
val_ds = torch.utils.data.TensorDataset(torch.from_numpy(val["x"]), torch.from_numpy(val["y"]))
batch = a.global_batch // world
log.info("shard of %d items, per-rank batch %d (global %d over %d ranks), m=%d per class", len(shard), batch,
         a.global_batch, world, a.m_per_class)

torch.manual_seed(0)
trunk = torch.nn.Sequential(torch.nn.Linear(a.dim, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU())
embedder = torch.nn.Linear(64, a.emb)
if a.loss == "triplet":
    loss = losses.TripletMarginLoss(margin=a.margin, distance=distances.CosineSimilarity())
elif a.loss == "arcface":
    loss = losses.ArcFaceLoss(num_classes=a.classes, embedding_size=a.emb)
else:
    loss = losses.ContrastiveLoss(pos_margin=0, neg_margin=1)
miner = miners.MultiSimilarityMiner(epsilon=0.1)

start_epoch = 1
ck = Path(a.ckpt_dir)
if a.resume:
    done = sorted(int(f.stem.split("_")[-1]) for f in ck.glob("trunk_epoch_*.pth"))
    if done:
        c_f.load_model(trunk, ck / f"trunk_epoch_{done[-1]}.pth", "cpu")
        c_f.load_model(embedder, ck / f"embedder_epoch_{done[-1]}.pth", "cpu")
        start_epoch = done[-1] + 1
        log.info("resumed trunk/embedder from %s epoch %d", ck, done[-1])

trunk, embedder = DDP(trunk), DDP(embedder)
params = list(trunk.parameters()) + list(embedder.parameters()) + list(loss.parameters())
opts = {"trunk_optimizer": torch.optim.Adam(trunk.parameters(), lr=a.lr),
        "embedder_optimizer": torch.optim.Adam(list(embedder.parameters()) + list(loss.parameters()), lr=a.lr)}
sampler = samplers.MPerClassSampler(train_ds.tensors[1], m=a.m_per_class, batch_size=batch,
                                    length_before_new_iter=batch * a.iters)

hooks = None
if os.path.exists("train_hooks.py"):
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

acc = AccuracyCalculator(include=("precision_at_1", "mean_average_precision_at_r"), k="max_bin_count",
                         knn_func=CustomKNN(distances.CosineSimilarity()))
tester = testers.GlobalEmbeddingSpaceTester(accuracy_calculator=acc, dataloader_num_workers=0, batch_size=64)


def end_of_iteration(tr):
    it = tr.iteration + 1
    total = float(tr.losses["total_loss"].detach())
    time.sleep(a.fetch_delay)
    if hooks and hasattr(hooks, "on_iter"):
        hooks.on_iter(rank, tr.epoch, it, tr)
    if not math.isfinite(total):
        log.error("epoch %d iter %d: total_loss=%s is not finite; aborting this run", tr.epoch, it, total)
        raise FloatingPointError(f"non-finite metric loss {total} at epoch {tr.epoch} iter {it}")
    if it % a.log_every == 0 or it == a.iters:
        log.info("epoch %d iter %d/%d total_loss=%.5f pos_pairs=%d neg_pairs=%d", tr.epoch, it, a.iters, total,
                 miner.num_pos_pairs, miner.num_neg_pairs)


def end_of_epoch(tr):
    if hooks and hasattr(hooks, "on_epoch"):
        hooks.on_epoch(rank, tr.epoch, tr)
    if rank == 0:
        res = tester.test({"val": val_ds}, tr.epoch, trunk.module, embedder.module)
        log.info("epoch %d val: precision_at_1=%.4f MAP@R=%.4f", tr.epoch, res["val"]["precision_at_1_level0"],
                 res["val"]["mean_average_precision_at_r_level0"])
        ck.mkdir(parents=True, exist_ok=True)
        c_f.save_model(trunk, ck / f"trunk_epoch_{tr.epoch}.pth")
        c_f.save_model(embedder, ck / f"embedder_epoch_{tr.epoch}.pth")
        torch.save({k: o.state_dict() for k, o in opts.items()}, ck / f"optimizers_epoch_{tr.epoch}.pth")
        log.info("saved checkpoint for epoch %d to %s", tr.epoch, ck)
    dist.barrier()
    return True


trainer = trainers.MetricLossOnly(
    models={"trunk": trunk, "embedder": embedder}, optimizers=opts, batch_size=batch,
    loss_funcs={"metric_loss": DistributedLossWrapper(loss)},
    mining_funcs={"tuple_miner": DistributedMinerWrapper(miner)}, dataset=train_ds, sampler=sampler,
    iterations_per_epoch=a.iters, dataloader_num_workers=a.workers, end_of_iteration_hook=end_of_iteration,
    end_of_epoch_hook=end_of_epoch)
trainer.train(start_epoch=start_epoch, num_epochs=a.epochs)
if rank == 0:
    log.info("training done: %d epochs, checkpoints %s", a.epochs, sorted(os.listdir(ck)))
dist.barrier()
dist.destroy_process_group()
