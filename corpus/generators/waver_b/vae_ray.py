"""The glyph VAE on a local Ray cluster.

train:  Ray Train `TorchTrainer` (gloo), 2 workers; rank 0 builds the glyph cache on shared storage first
        (--cache-dir), the others load it once rank 0 has published it; per-epoch report + checkpoint.
tune:   Ray Tune sweep over lr / latent size / KL warm-up (function trainable, ASHA), trial resources
        from --trial-cpus.
actors: VAE worker actors (one per rank) forming their own torch process group over tcp://, hand-rolled gradient
        all_reduce; the driver collects their results."""
import argparse
import datetime
import os
import tempfile
import time

import ray
import torch
import torch.distributed as dist

import vae_core as vc


def train_epochs(model, x, xv, cfg, rank, world, on_epoch):
    inner = model.module if hasattr(model, "module") else model
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    step, t0 = 0, time.time()
    for epoch in range(1, cfg["epochs"] + 1):
        perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(epoch))
        for i in range(0, len(x) - cfg["bs"] + 1, cfg["bs"]):
            xb = x[perm[i:i + cfg["bs"]]]
            logits, mu, logvar = model(xb)
            beta = vc.kl_beta(step, cfg["warmup"])
            loss, rec, kl = vc.vae_loss(logits, xb, mu, logvar, beta)
            opt.zero_grad()
            loss.backward()
            if cfg.get("manual_sync"):
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= world
            opt.step()
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} loss {loss.item():.3f} rec {rec.item():.3f} "
                      f"kl {kl.item():.3f} beta {beta:.2f} {step * cfg['bs'] / (time.time() - t0):.0f} img/s",
                      flush=True)
        ev = vc.evaluate(inner, xv)
        on_epoch(epoch, step, ev, inner)
    return ev


def train_loop(cfg):
    import ray.train
    torch.set_num_threads(1)
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(0)
    cache = cfg["cache_dir"]
    if rank == 0:
        os.makedirs(cache, exist_ok=True)
        x, y = vc.make_glyphs(cfg["n_train"], seed=1)
        torch.save({"images": x, "labels": y}, os.path.join(cache, "glyphs.pt"))
        open(os.path.join(cache, "_SUCCESS"), "w").close()
        print(f"[rank 0] glyph cache built: {cache}/glyphs.pt ({len(x)} images), marker {cache}/_SUCCESS", flush=True)
    else:
        marker = os.path.join(cfg.get("wait_dir", cache), "_SUCCESS")
        t0 = time.time()
        while not os.path.exists(marker):
            if int(time.time() - t0) % 30 == 0:
                print(f"[rank {rank}] waiting for rank 0 to publish the glyph cache ({marker})", flush=True)
            time.sleep(1)
        x = torch.load(os.path.join(cfg.get("wait_dir", cache), "glyphs.pt"))["images"]
        print(f"[rank {rank}] glyph cache loaded after {time.time() - t0:.0f}s", flush=True)
    x = x[rank::world]
    xv = vc.make_glyphs(512, seed=2)[0][rank::world]
    model = ray.train.torch.prepare_model(vc.ConvVAE(z=cfg["z"]))

    def on_epoch(epoch, step, ev, inner):
        print(f"[rank {rank}] epoch {epoch} eval elbo {ev['elbo']:.2f} rec {ev['rec']:.2f} kl {ev['kl']:.2f}",
              flush=True)
        with tempfile.TemporaryDirectory() as d:
            ck = None
            if rank == 0:
                torch.save({"model": inner.state_dict(), "epoch": epoch}, os.path.join(d, "vae.pt"))
                ck = ray.train.Checkpoint.from_directory(d)
            ray.train.report({"epoch": epoch, "step": step, **ev}, checkpoint=ck)

    train_epochs(model, x, xv, cfg, rank, world, on_epoch)


def run_train(a):
    import ray.train.torch  # noqa: F401
    from ray.train import CheckpointConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    cfg = {"n_train": a.n_train, "z": 8, "lr": 2e-3, "bs": 32, "warmup": 100, "epochs": a.epochs, "log_every": 16,
           "cache_dir": os.path.abspath("shared/glyph_cache")}
    if a.wait_dir:
        cfg["wait_dir"] = os.path.abspath(a.wait_dir)
    trainer = TorchTrainer(
        train_loop, train_loop_config=cfg,
        scaling_config=ScalingConfig(num_workers=a.workers, resources_per_worker={"CPU": 0.5}),
        torch_config=TorchConfig(backend="gloo", timeout_s=a.pg_timeout),
        run_config=RunConfig(name="glyph-vae", storage_path=a.storage,
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}", flush=True)
    print(f"checkpoint: {result.checkpoint}", flush=True)


def tune_trainable(config):
    from ray import tune
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x, _ = vc.make_glyphs(2048, seed=1)
    xv, _ = vc.make_glyphs(256, seed=2)
    model = vc.ConvVAE(z=config["z"])
    cfg = {"lr": config["lr"], "bs": 32, "warmup": config["warmup"], "epochs": 4, "log_every": 32}
    train_epochs(model, x, xv, cfg, 0, 1, lambda e, s, ev, m: tune.report({"epoch": e, **ev}))


def run_tune(a):
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler
    space = {"lr": tune.grid_search([1e-3, 3e-3]), "z": tune.choice([4, 8, 16]), "warmup": tune.choice([50, 200])}
    print(f"sweep: 2 lr values x {a.samples} samples, {a.trial_cpus} CPU per trial", flush=True)
    tuner = tune.Tuner(
        tune.with_resources(tune_trainable, {"cpu": a.trial_cpus}),
        param_space=space,
        tune_config=tune.TuneConfig(metric="elbo", mode="max", num_samples=a.samples,
                                    scheduler=ASHAScheduler(max_t=4, grace_period=1), max_concurrent_trials=2),
        run_config=tune.RunConfig(name="glyph-vae-sweep", storage_path=a.storage, verbose=1),
    )
    res = tuner.fit()
    best = res.get_best_result()
    print(f"best config {best.config}: elbo {best.metrics['elbo']:.2f}", flush=True)


@ray.remote(num_cpus=1)
class VAEWorker:
    def __init__(self, rank, world):
        torch.set_num_threads(1)
        self.rank, self.world = rank, world
        # rendezvous port: one per job, derived from the process id so concurrent jobs on a node do not collide
        self.port = 29600 + os.getpid() % 100
        print(f"VAE worker {rank}/{world} up on pid {os.getpid()}", flush=True)

    def run(self, cfg):
        addr = f"tcp://127.0.0.1:{self.port}"
        print(f"[rank {self.rank}] joining process group {addr} (world {self.world}, timeout {cfg['pg_timeout']}s)",
              flush=True)
        dist.init_process_group("gloo", init_method=addr, rank=self.rank, world_size=self.world,
                                timeout=datetime.timedelta(seconds=cfg["pg_timeout"]))
        print(f"[rank {self.rank}] process group up", flush=True)
        torch.manual_seed(0)
        model = vc.ConvVAE(z=8)
        for p in model.parameters():
            dist.broadcast(p.data, 0)
        x = vc.make_glyphs(2048, seed=1)[0][self.rank::self.world]
        xv = vc.make_glyphs(512, seed=2)[0][self.rank::self.world]
        ev = train_epochs(model, x, xv, dict(cfg, manual_sync=True), self.rank, self.world,
                          lambda e, s, ev, m: print(f"[rank {self.rank}] epoch {e} eval elbo {ev['elbo']:.2f}",
                                                    flush=True))
        dist.destroy_process_group()
        return ev["elbo"]


def run_actors(a):
    cfg = {"lr": 2e-3, "bs": 32, "warmup": 100, "epochs": a.epochs, "log_every": 16, "pg_timeout": a.pg_timeout}
    print(f"starting {a.workers} VAE worker actors (1 CPU each)", flush=True)
    workers = [VAEWorker.remote(r, a.workers) for r in range(a.workers)]
    refs = [w.run.remote(cfg) for w in workers]
    t0 = time.time()
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, timeout=15)
        ray.get(done)
        if pending:
            print(f"driver: {len(refs) - len(pending)}/{len(refs)} workers finished after {time.time() - t0:.0f}s",
                  flush=True)
    print(f"eval elbo per rank: {ray.get(refs)}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "tune", "actors"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--n-train", type=int, default=4096)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--wait-dir", default="")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--trial-cpus", type=float, default=1)
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    {"train": run_train, "tune": run_tune, "actors": run_actors}[a.mode](a)
