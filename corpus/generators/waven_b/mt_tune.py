"""Ray Tune (ASHA) sweep of the toy translator's learning rate, width and label smoothing."""
import argparse
import os
import random
import tempfile

import ray
import torch
from ray import tune
from ray.tune.schedulers import ASHAScheduler

import mt_core as mc


def trainable(cfg):
    torch.manual_seed(cfg["seed"])
    train = mc.make_pairs(1500, seed=1)
    dev = mc.make_pairs(200, seed=2)
    sv = mc.Vocab([s for s, _ in train])
    tv = mc.Vocab([t for _, t in train])
    model = mc.Seq2Seq(len(sv), len(tv), hid=cfg["hid"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    rng = random.Random(cfg["seed"])
    for epoch in range(cfg["epochs"]):
        for src, tin, tout in mc.batches(train, sv, tv, 32, rng):
            loss = mc.loss_fn(model(src, tin), tout, cfg["smoothing"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        hyps = [tv.decode(o) for o in model.greedy(mc.pad_batch([sv.encode(s) for s, _ in dev]))]
        model.train()
        b = mc.bleu(hyps, [t for _, t in dev])
        with tempfile.TemporaryDirectory() as d:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, os.path.join(d, "ckpt.pt"))
            tune.report({"bleu": b, "loss": loss.item(), "epoch": epoch}, checkpoint=tune.Checkpoint.from_directory(d))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=6)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    space = {"lr": tune.loguniform(3e-4, 1e-2), "hid": tune.choice([64, 128, 192]),
             "smoothing": tune.choice([0.0, 0.1]), "seed": tune.randint(0, 1000), "epochs": a.epochs}
    tuner = tune.Tuner(
        tune.with_resources(trainable, {"cpu": 1}),
        param_space=space,
        tune_config=tune.TuneConfig(metric="bleu", mode="max", num_samples=a.samples,
                                    scheduler=ASHAScheduler(max_t=a.epochs, grace_period=2, reduction_factor=2),
                                    max_concurrent_trials=2),
        run_config=tune.RunConfig(name="mt-asha", storage_path=a.storage,
                                  checkpoint_config=tune.CheckpointConfig(num_to_keep=None),
                                  verbose=1),
    )
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial config: lr={best.config['lr']:.5f} hid={best.config['hid']} smoothing={best.config['smoothing']}")
    print(f"best trial BLEU {best.metrics['bleu']:.2f} at epoch {best.metrics['epoch']}")
    print(f"errors: {len(results.errors)}")
