"""Train the order-return classifier: Ray Data reads and featurizes the order export, Ray Train runs DDP (gloo)."""
import argparse
import logging
import math
import os
import tempfile

import ray
import ray.train
import torch
from ray.train import CheckpointConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer

from features import N_FEATURES, featurize

log = logging.getLogger("returns.train")


def make_model(hidden):
    return torch.nn.Sequential(torch.nn.Linear(N_FEATURES, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                               torch.nn.ReLU(), torch.nn.Linear(hidden, 1))


def train_loop(cfg):
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    ctx = ray.train.get_context()
    rank = ctx.get_world_rank()
    torch.manual_seed(0)
    model = ray.train.torch.prepare_model(make_model(cfg["hidden"]))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    lossf = torch.nn.BCEWithLogitsLoss()
    shard = ray.train.get_dataset_shard("train")
    for epoch in range(cfg["epochs"]):
        tot, n = 0.0, 0
        for step, b in enumerate(shard.iter_torch_batches(batch_size=cfg["batch_size"])):
            opt.zero_grad()
            logits = model(b["x"]).squeeze(-1)
            loss = lossf(logits, b["y"])
            loss.backward()
            opt.step()
            tot += loss.item()
            n += 1
            if step % 10 == 0:
                log.info("rank %d epoch %d step %d loss %.4f", rank, epoch, step, loss.item())
            if cfg["step_sleep"]:
                import time
                time.sleep(cfg["step_sleep"])
        avg = tot / max(n, 1)
        if not math.isfinite(avg):
            raise FloatingPointError(f"epoch {epoch}: mean train loss is {avg}, stopping")
        with tempfile.TemporaryDirectory() as d:
            ckpt = None
            if rank == 0:
                torch.save({"model": model.module.state_dict() if hasattr(model, "module") else model.state_dict(),
                            "epoch": epoch}, os.path.join(d, "model.pt"))
                ckpt = ray.train.Checkpoint.from_directory(d)
            ray.train.report({"epoch": epoch, "train_loss": avg, "steps": n}, checkpoint=ckpt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="data/orders")
    ap.add_argument("--ckpt-dir", default="/tmp/wavebh-d-job/run/results")
    ap.add_argument("--run-name", default="returns-mlp")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--timeout-s", type=int, default=1800)
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    ray.init(address="auto", runtime_env={"working_dir": ".", "excludes": ["data/", "results/"]}
             if os.environ.get("RETURNS_SHIP_CODE") else None)
    log.info("cluster resources: %s", ray.cluster_resources())
    ds = ray.data.read_json(a.data_dir).map_batches(featurize, batch_size=256)
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"lr": a.lr, "epochs": a.epochs, "batch_size": a.batch_size, "hidden": a.hidden,
                           "step_sleep": a.step_sleep},
        scaling_config=ScalingConfig(num_workers=a.num_workers, use_gpu=False,
                                     resources_per_worker={"CPU": a.cpus_per_worker}),
        torch_config=TorchConfig(backend="gloo", timeout_s=a.timeout_s),
        run_config=RunConfig(name=a.run_name, storage_path=a.ckpt_dir,
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
        datasets={"train": ds},
    )
    result = trainer.fit()
    log.info("finished: %s", result.metrics)
    log.info("best checkpoint: %s", result.checkpoint)


if __name__ == "__main__":
    main()
