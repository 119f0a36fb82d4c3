"""Tiny vision transformer on synthetic 16x16 texture images, hyper-parameters searched with Ray Tune + PBT."""
import argparse
import math
import os
import random
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

import ray
from ray import tune
from ray.tune import Checkpoint
from ray.tune.schedulers import PopulationBasedTraining

CLASSES = 6


def make_images(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, CLASSES, (n,), generator=g)
    yy, xx = torch.meshgrid(torch.arange(16.), torch.arange(16.), indexing="ij")
    freq = (y.float() % 3 + 1)[:, None, None] * 0.6
    ang = (y // 3).float()[:, None, None] * 1.5708
    phase = torch.rand(n, 1, 1, generator=g) * 6.28
    img = torch.sin(freq * (torch.cos(ang) * xx + torch.sin(ang) * yy) + phase)
    img = img + 0.6 * torch.randn(n, 16, 16, generator=g)
    return img[:, None].repeat(1, 3, 1, 1), y


class ViT(nn.Module):
    def __init__(self, dim=48, depth=2, heads=4, patch=4):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, (16 // patch) ** 2 + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, depth)
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, CLASSES))

    def forward(self, x):
        h = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(len(h), -1, -1), h], 1) + self.pos
        return self.head(self.enc(h)[:, 0])


def train_vit(config):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x, y = make_images(2048, 0)
    vx, vy = make_images(512, 1)
    model = ViT()
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"], nesterov=True)
    start = 0
    ckpt = tune.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as d:
            state = torch.load(os.path.join(d, "state.pt"))
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["iter"] + 1
        for group in opt.param_groups:  # PBT may have changed the config: apply it
            group["lr"], group["momentum"] = config["lr"], config["momentum"]
        print(f"restored from checkpoint at iter {state['iter']}; lr={config['lr']:.4g} momentum={config['momentum']}",
              flush=True)
    for it in range(start, 40):
        model.train()
        perm = torch.randperm(len(x))
        for b in range(0, len(x), config["batch"]):
            idx = perm[b:b + config["batch"]]
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            logits = model(vx)
            val_loss = F.cross_entropy(logits, vy).item()
            acc = (logits.argmax(1) == vy).float().mean().item()
        print(f"iter {it} lr {config['lr']:.4g} train_loss {loss.item():.4f} val_loss {val_loss:.4f} val_acc {acc:.3f}",
              flush=True)
        if not math.isfinite(val_loss):
            raise FloatingPointError(f"val_loss is {val_loss} at iter {it} (lr={config['lr']}, "
                                     f"momentum={config['momentum']})")
        with tempfile.TemporaryDirectory() as d:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "iter": it}, os.path.join(d, "state.pt"))
            tune.report({"val_loss": val_loss, "val_acc": acc, "train_loss": loss.item()},
                        checkpoint=Checkpoint.from_directory(d))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--lr-choices", default="0.003,0.01,0.03,0.1")
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    random.seed(a.seed)
    ray.init()
    lrs = [float(v) for v in a.lr_choices.split(",")]
    pbt = PopulationBasedTraining(
        time_attr="training_iteration", perturbation_interval=2, burn_in_period=2,
        hyperparam_mutations={"lr": lrs, "momentum": [0.8, 0.9, 0.95, 0.99]},
        quantile_fraction=0.5, resample_probability=0.5, synch=True)
    tuner = tune.Tuner(
        tune.with_resources(train_vit, {"cpu": 1}),
        param_space={"lr": tune.choice(lrs[:2]), "momentum": 0.9, "batch": 64},
        tune_config=tune.TuneConfig(scheduler=pbt, metric="val_acc", mode="max", num_samples=a.samples),
        run_config=tune.RunConfig(name="vit-textures-pbt", storage_path=a.storage,
                                  stop={"training_iteration": a.iters}, verbose=1,
                                  checkpoint_config=tune.CheckpointConfig(num_to_keep=2)),
    )
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial config: {best.config}", flush=True)
    print(f"best val_acc: {best.metrics['val_acc']:.3f}", flush=True)
    errors = [r for r in results if r.error]
    print(f"{len(errors)} trial(s) errored", flush=True)
    if errors:
        raise SystemExit(f"sweep failed: {len(errors)} of {len(results)} trials errored")
