"""ticketsort: a 4-class support-ticket router (an MLP over 48 synthetic features) trained with plain DDP (gloo, CPU)
under torch.distributed.run; its evaluation uses TorchMetrics (MetricCollection of MulticlassAccuracy/F1Score/AUROC
plus two custom Metrics) that synchronise across ranks at compute(); the training loss is tracked with a
MeanMetric(nan_strategy="error"); the running train-AUROC state is checkpointed with the model and resumed.

Optional team hook: ``train_hooks.py`` next to this file (``on_step`` after each optimizer step, ``on_eval_batch``
before each eval update, ``on_eval`` before compute()).
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import torchmetrics
from torchmetrics import MeanMetric, Metric, MetricCollection
from torchmetrics.classification import MulticlassAccuracy, MulticlassAUROC, MulticlassF1Score
from torchmetrics.utilities import dim_zero_cat

NUM_CLASSES = 4
FEATURES = 48


class MeanEvalLoss(Metric):
    """Cross-entropy summed over the eval set, reduced across ranks with sum."""

    full_state_update = False

    def __init__(self, **kw):
        super().__init__(**kw)
        self.add_state("loss_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("count", default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, logits: torch.Tensor, target: torch.Tensor) -> None:
        self.loss_sum += F.cross_entropy(logits, target, reduction="sum").double()
        self.count += target.numel()

    def compute(self) -> torch.Tensor:
        return (self.loss_sum / self.count).float()


class ConfidenceSpread(Metric):
    """Keeps every top-1 confidence (list state, concatenated across ranks) and reports the 10th/50th/90th
    percentile."""

    full_state_update = False

    def __init__(self, **kw):
        super().__init__(**kw)
        self.add_state("conf", default=[], dist_reduce_fx="cat")

    def update(self, conf: torch.Tensor) -> None:
        self.conf.append(conf)

    def compute(self) -> torch.Tensor:
        c = dim_zero_cat(self.conf)
        return torch.quantile(c.float().flatten(), torch.tensor([0.1, 0.5, 0.9]))


def make_data(n: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(NUM_CLASSES, FEATURES, generator=torch.Generator().manual_seed(1234)) * 0.5
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + torch.randn(n, FEATURES, generator=g) * 3.0
    return TensorDataset(x, y)


def load_hooks():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_hooks.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("train_hooks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--train-samples", type=int, default=16384)
    ap.add_argument("--eval-samples", type=int, default=2048)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--pg-timeout", type=float, default=1800.0)
    ap.add_argument("--log-every", type=int, default=16)
    ap.add_argument("--val-top-k", type=int, default=1)
    a = ap.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    hooks = load_hooks()
    torch.manual_seed(0)
    if rank == 0:
        print(f"ticketsort: world_size={world} torch={torch.__version__} torchmetrics={torchmetrics.__version__} "
              f"epochs={a.epochs} batch_size={a.batch_size} lr={a.lr}", flush=True)
    print(f"[{socket.gethostname()}] rank {rank}/{world} local_rank {local_rank} pid {os.getpid()} ready", flush=True)

    model = nn.Sequential(nn.Linear(FEATURES, a.hidden), nn.ReLU(), nn.Linear(a.hidden, a.hidden), nn.ReLU(),
                          nn.Linear(a.hidden, NUM_CLASSES))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=0.9)

    train_ds, eval_ds = make_data(a.train_samples, 1), make_data(a.eval_samples, 2)
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    train_dl = DataLoader(train_ds, batch_size=a.batch_size, sampler=sampler, num_workers=a.workers)
    eval_dl = DataLoader(eval_ds, batch_size=256,
                         sampler=DistributedSampler(eval_ds, num_replicas=world, rank=rank, shuffle=False),
                         num_workers=a.workers)

    train_loss = MeanMetric(nan_strategy="error")
    train_auroc = MulticlassAUROC(num_classes=NUM_CLASSES, thresholds=None)
    train_auroc.persistent(True)
    eval_metrics = MetricCollection({
        "acc": MulticlassAccuracy(num_classes=NUM_CLASSES, average="micro", top_k=a.val_top_k),
        "f1": MulticlassF1Score(num_classes=NUM_CLASSES, average="macro"),
        "auroc": MulticlassAUROC(num_classes=NUM_CLASSES),
        "loss": MeanEvalLoss(),
        "conf": ConfidenceSpread(),
    }, prefix="val_")

    start_epoch = 0
    os.makedirs(a.ckpt_dir, exist_ok=True)
    last = os.path.join(a.ckpt_dir, "last.pt")
    if a.resume and os.path.exists(last):
        ck = torch.load(last, map_location="cpu", weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        train_auroc.load_state_dict(ck["train_auroc"])
        start_epoch = ck["epoch"] + 1
        if rank == 0:
            print(f"resumed from {last}: epoch {ck['epoch']} (train_auroc state: {len(train_auroc.preds)} batches)",
                  flush=True)

    steps = len(train_dl)
    for epoch in range(start_epoch, a.epochs):
        sampler.set_epoch(epoch)
        ddp.train()
        t0 = time.time()
        for step, (x, y) in enumerate(train_dl):
            logits = ddp(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            train_loss.update(loss.detach())
            train_auroc.update(logits.detach().softmax(-1), y)
            if hooks and hasattr(hooks, "on_step"):
                hooks.on_step(rank, epoch, step, x, y, loss, train_auroc)
            if rank == 0 and (step % a.log_every == 0 or step == steps - 1):
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f}", flush=True)
        mean_loss = train_loss.compute()
        train_loss.reset()
        auc = train_auroc.compute()
        ddp.eval()
        with torch.no_grad():
            for x, y in eval_dl:
                logits = ddp(x)
                if hooks and hasattr(hooks, "on_eval_batch"):
                    x, y, logits = hooks.on_eval_batch(rank, epoch, x, y, logits)
                probs = logits.softmax(-1)
                eval_metrics["acc"].update(probs, y)
                eval_metrics["f1"].update(probs, y)
                eval_metrics["auroc"].update(probs, y)
                eval_metrics["loss"].update(logits, y)
                eval_metrics["conf"].update(probs.max(-1).values)
        if hooks and hasattr(hooks, "on_eval"):
            hooks.on_eval(rank, epoch, eval_metrics)
        res = eval_metrics.compute()
        eval_metrics.reset()
        if rank == 0:
            conf = res["val_conf"]
            print(f"epoch {epoch} done in {time.time() - t0:.1f}s: train_loss {mean_loss.item():.4f} train_auroc "
                  f"{auc.item():.4f} val_acc {res['val_acc'].item():.4f} val_f1 {res['val_f1'].item():.4f} "
                  f"val_auroc {res['val_auroc'].item():.4f} val_loss {res['val_loss'].item():.4f} "
                  f"val_conf p10/p50/p90 {conf[0]:.3f}/{conf[1]:.3f}/{conf[2]:.3f}", flush=True)
            ck = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                  "train_auroc": train_auroc.state_dict(), "val": {k: v.tolist() for k, v in res.items()}}
            torch.save(ck, os.path.join(a.ckpt_dir, f"epoch{epoch}.pt"))
            torch.save(ck, last)
            print(f"saved checkpoint {a.ckpt_dir}/epoch{epoch}.pt", flush=True)
        dist.barrier()
    if rank == 0:
        print("training finished", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
