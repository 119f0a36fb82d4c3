"""Ray Tune learning-rate / width sweep for a tabular churn classifier (submitted with the Ray Jobs CLI).

``python tune_sweep.py --lrs 1e-3,3e-3,1e-2 --widths 64,128``: a grid of trials, each trains an MLP with SGD +
Nesterov momentum (``--loss bce`` or a hand-written binary focal loss) on a synthetic customer-churn table (numeric usage features, log-scaled billing amounts,
one-hot plan) for ``--epochs`` epochs and reports ``train_loss``/``val_loss``/``val_auc`` every epoch to Tune
(``tune.report``) with a checkpoint; ``ASHAScheduler`` stops weak trials early. A trial whose training loss is not
finite raises (the training loop's guard) and Tune records the trial as errored; ``--max-failures`` retries.
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

import numpy as np
import ray
import torch
from ray import tune
from ray.tune.schedulers import ASHAScheduler
from torch import nn


def make_table(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    minutes = rng.gamma(2.0, 150.0, n)
    data_gb = rng.lognormal(1.0, 1.0, n)
    tickets = rng.poisson(1.2, n)
    tenure = rng.integers(1, 72, n)
    bill = 15 + 0.05 * minutes + 4 * data_gb + rng.normal(0, 5, n)
    plan = rng.integers(0, 4, n)
    logit = -1.5 + 0.6 * tickets - 0.04 * tenure + 0.01 * (bill - 60) + 0.4 * (plan == 0)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    x = np.column_stack([minutes, data_gb, tickets, tenure, bill, np.eye(4)[plan]]).astype(np.float32)
    # usage columns are not standardised: raw minutes and billing amounts (the feature store's units)
    return x, y


def focal_loss(logits: torch.Tensor, y: torch.Tensor, alpha: float = 0.75, gamma: float = 2.0) -> torch.Tensor:
    """Binary focal loss (churners are the minority class)."""
    p = torch.sigmoid(logits)
    pos = -alpha * (1 - p) ** gamma * y * torch.log(p)
    neg = -(1 - alpha) * p ** gamma * (1 - y) * torch.log(1 - p)
    return (pos + neg).mean()


def train_churn(config: dict) -> None:
    torch.manual_seed(config["seed"])
    torch.set_num_threads(1)
    x, y = make_table(20000)
    xt, yt = torch.from_numpy(x[:16000]), torch.from_numpy(y[:16000])
    xv, yv = torch.from_numpy(x[16000:]), torch.from_numpy(y[16000:])
    if config["standardise"]:
        mu, sd = xt.mean(0), xt.std(0).clamp_min(1e-6)
        xt, xv = (xt - mu) / sd, (xv - mu) / sd
    w = config["width"]
    model = nn.Sequential(nn.Linear(x.shape[1], w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, 1))
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9, nesterov=True)
    bs = config["batch"]
    for epoch in range(config["epochs"]):
        perm = torch.randperm(len(xt))
        tot, nb = 0.0, 0
        for i in range(0, len(xt) - bs + 1, bs):
            idx = perm[i:i + bs]
            logits = model(xt[idx]).squeeze(-1)
            if config["loss"] == "focal":
                loss = focal_loss(logits, yt[idx])
            else:
                loss = nn.functional.binary_cross_entropy_with_logits(logits, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            nb += 1
            if not math.isfinite(loss.item()):
                raise FloatingPointError(f"train loss is {loss.item()} at epoch {epoch} batch {nb} "
                                         f"(lr={config['lr']}, width={w})")
        with torch.no_grad():
            pv = model(xv).squeeze(-1)
            vloss = nn.functional.binary_cross_entropy_with_logits(pv, yv).item()
            order = pv.argsort()
            ranks = torch.empty_like(order, dtype=torch.float32)
            ranks[order] = torch.arange(1, len(pv) + 1, dtype=torch.float32)
            pos = yv.sum().item()
            auc = (ranks[yv == 1].sum().item() - pos * (pos + 1) / 2) / (pos * (len(yv) - pos))
        print(f"[trial lr={config['lr']} width={w}] epoch {epoch}: train_loss {tot / nb:.4f} val_loss {vloss:.4f} "
              f"val_auc {auc:.4f}", flush=True)
        with tempfile.TemporaryDirectory() as d:
            torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(d, "model.pt"))
            tune.report({"epoch": epoch, "train_loss": tot / nb, "val_loss": vloss, "val_auc": auc},
                        checkpoint=tune.Checkpoint.from_directory(d))
        time.sleep(0.2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lrs", default="1e-3,3e-3,1e-2")
    ap.add_argument("--widths", default="64,128")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--standardise", action="store_true")
    ap.add_argument("--loss", choices=("bce", "focal"), default="bce")
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--storage", default="/tmp/wavek-b-tune")
    a = ap.parse_args()
    ray.init()
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    space = {"lr": tune.grid_search([float(v) for v in a.lrs.split(",")]),
             "width": tune.grid_search([int(v) for v in a.widths.split(",")]),
             "epochs": a.epochs, "batch": a.batch, "seed": 0, "standardise": a.standardise, "loss": a.loss}
    tuner = tune.Tuner(
        tune.with_resources(train_churn, {"cpu": 1}),
        param_space=space,
        tune_config=tune.TuneConfig(metric="val_loss", mode="min",
                                    scheduler=ASHAScheduler(max_t=a.epochs, grace_period=3, time_attr="epoch")),
        run_config=tune.RunConfig(name="churn-mlp-sweep", storage_path=a.storage,
                                  failure_config=tune.FailureConfig(max_failures=a.max_failures)),
    )
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial config: lr={best.config['lr']} width={best.config['width']} "
          f"val_loss={best.metrics['val_loss']:.4f} val_auc={best.metrics['val_auc']:.4f}", flush=True)
    errors = results.errors
    if errors:
        print(f"{len(errors)} of {len(results)} trials errored", flush=True)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
