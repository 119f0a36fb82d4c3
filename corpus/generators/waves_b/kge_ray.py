"""ComplEx link prediction on a local Ray cluster.

  train  Ray Train TorchTrainer (gloo worker group, prepare_model/DDP), filtered dev MRR all-reduced, per-epoch
         report + checkpoint; --worker-env K=V,... goes into the job's runtime_env env_vars.
  tune   Ray Tune grid over dim/lr; each trial trains in-process. --trial-cpus N, --data-in-trial (each trial reads
         and encodes the triples with Ray Data), --pg-port P (each trial opens a 1-process gloo group on tcp port P to
         reuse the distributed evaluation code).
  data   Ray Data ingest of the KG dump (TSV files with an entity label column) -> parsed triples -> Parquet, then a
         short ComplEx fit on the driver."""
import argparse
import datetime
import glob
import os
import tempfile

import ray
import torch
import torch.distributed as dist

import kge_core as kc


def load(root):
    tr, va, te = (kc.read_tsv(os.path.join(root, f"{n}.tsv")) for n in ("train", "valid", "test"))
    e2i, r2i = kc.vocab(tr)
    return kc.encode(tr, e2i, r2i), kc.encode(va, e2i, r2i), kc.encode(te, e2i, r2i), e2i, r2i


def train_loop(cfg):
    import ray.train
    import ray.train.torch as rtt

    torch.set_num_threads(1)
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    train, valid, test, e2i, r2i = load(cfg["data"])
    n_ent = len(e2i)
    core = kc.ComplEx(n_ent, len(r2i), dim=cfg["dim"])
    model = rtt.prepare_model(core)
    opt = torch.optim.Adagrad(model.parameters(), lr=cfg["lr"])
    known = kc.filter_index(train, valid, test)
    shard = train[rank::world]
    print(f"{kc.stamp()} [rank {rank}] {len(shard)} triples on this worker, {n_ent} entities", flush=True)
    step = 0
    for epoch in range(1, cfg["epochs"] + 1):
        perm = shard[torch.randperm(len(shard), generator=torch.Generator().manual_seed(epoch))]
        for i in range(0, len(perm), 256):
            loss = model(perm[i:i + 256], 32, n_ent)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                print(f"{kc.stamp()} [rank {rank}] epoch {epoch} step {step}: loss {loss.item():.4f}", flush=True)
        r = kc.ranks_tail(core, valid[rank::world], known).double()
        s = torch.tensor([(1.0 / r).sum().item(), (r <= 10).sum().item(), len(r)], dtype=torch.float64)
        dist.all_reduce(s)
        m = {"epoch": epoch, "loss": loss.item(), "mrr": (s[0] / s[2]).item(), "hits10": (s[1] / s[2]).item()}
        with tempfile.TemporaryDirectory() as d:
            ck = None
            if rank == 0:
                torch.save(core.state_dict(), os.path.join(d, "model.pt"))
                ck = ray.train.Checkpoint.from_directory(d)
            ray.train.report(m, checkpoint=ck)


def cmd_train(a):
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    env = dict(kv.split("=", 1) for kv in a.worker_env.split(",") if kv)
    ray.init(runtime_env={"env_vars": env} if env else None)
    trainer = TorchTrainer(train_loop, train_loop_config={"data": os.path.abspath(a.data), "dim": 32, "lr": 0.1,
                                                          "epochs": a.epochs},
                           scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False),
                           torch_config=TorchConfig(backend="gloo", timeout_s=a.pg_timeout),
                           run_config=RunConfig(name="kge-complex", storage_path=os.path.abspath("ray_results")))
    res = trainer.fit()
    print(f"{kc.stamp()} final metrics: {res.metrics}", flush=True)
    print(f"{kc.stamp()} checkpoint: {res.checkpoint}", flush=True)


def encode_with_data(root):
    ds = ray.data.read_csv(os.path.join(root, "train.tsv"), parse_options=__import__("pyarrow.csv").csv.ParseOptions(
        delimiter="\t"), read_options=__import__("pyarrow.csv").csv.ReadOptions(column_names=["h", "r", "t"]))
    rows = ds.map_batches(lambda b: b, batch_format="pandas").to_pandas()
    return [tuple(x) for x in rows[["h", "r", "t"]].itertuples(index=False)]


def trainable(cfg):
    import ray.tune

    torch.set_num_threads(1)
    if cfg["pg_port"]:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{cfg['pg_port']}", rank=0, world_size=1,
                                timeout=datetime.timedelta(seconds=60))
    if cfg["data_in_trial"]:
        tr = encode_with_data(cfg["data"])
        va, te = (kc.read_tsv(os.path.join(cfg["data"], f"{n}.tsv")) for n in ("valid", "test"))
        e2i, r2i = kc.vocab(tr)
        train, valid, test = (kc.encode(x, e2i, r2i) for x in (tr, va, te))
    else:
        train, valid, test, e2i, r2i = load(cfg["data"])
    n_ent = len(e2i)
    model = kc.ComplEx(n_ent, len(r2i), dim=cfg["dim"])
    opt = torch.optim.Adagrad(model.parameters(), lr=cfg["lr"])
    known = kc.filter_index(train, valid, test)
    for epoch in range(1, cfg["epochs"] + 1):
        perm = train[torch.randperm(len(train))]
        for i in range(0, len(perm), 512):
            loss = model(perm[i:i + 512], 32, n_ent)
            opt.zero_grad()
            loss.backward()
            opt.step()
        r = kc.ranks_tail(model, valid, known).double()
        s = torch.tensor([(1.0 / r).sum().item(), len(r)], dtype=torch.float64)
        if cfg["pg_port"]:
            dist.all_reduce(s)
        ray.tune.report({"epoch": epoch, "loss": loss.item(), "mrr": (s[0] / s[1]).item()})


def cmd_tune(a):
    from ray import tune

    ray.init()
    fn = tune.with_resources(trainable, {"cpu": a.trial_cpus})
    space = {"data": os.path.abspath(a.data), "epochs": a.epochs, "dim": tune.grid_search([16, 32]),
             "lr": tune.grid_search([0.05, 0.2]), "data_in_trial": a.data_in_trial, "pg_port": a.pg_port}
    tuner = tune.Tuner(fn, param_space=space,
                       tune_config=tune.TuneConfig(metric="mrr", mode="max"),
                       run_config=tune.RunConfig(name="kge-sweep", storage_path=os.path.abspath("ray_results"),
                                                 verbose=1))
    res = tuner.fit()
    best = res.get_best_result()
    print(f"{kc.stamp()} best config: dim {best.config['dim']} lr {best.config['lr']}, mrr {best.metrics['mrr']:.4f}",
          flush=True)
    print(f"{kc.stamp()} {len(res.errors)} trial(s) errored", flush=True)


def parse_dump(batch):
    out = {"h": [], "r": [], "t": []}
    for line in batch["text"]:
        h, r, t, label = line.split("\t")
        out["h"].append(h)
        out["r"].append(r)
        out["t"].append(t)
    return out


def cmd_data(a):
    ray.init()
    files = sorted(glob.glob(os.path.join(os.path.abspath(a.dump), "part-*.tsv")))
    print(f"{kc.stamp()} ingesting {len(files)} dump files", flush=True)
    ds = ray.data.read_text(files).map_batches(parse_dump, batch_size=512)
    ds = ds.filter(lambda row: row["r"] != "founded_by")
    out = os.path.abspath("triples_parquet")
    ds.write_parquet(out)
    tr = ray.data.read_parquet(out).to_pandas()
    print(f"{kc.stamp()} {len(tr)} triples written to {out}", flush=True)
    triples = [tuple(x) for x in tr[["h", "r", "t"]].itertuples(index=False)]
    e2i, r2i = kc.vocab(triples)
    enc = kc.encode(triples, e2i, r2i)
    model = kc.ComplEx(len(e2i), len(r2i))
    opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
    for epoch in range(1, a.epochs + 1):
        perm = enc[torch.randperm(len(enc))]
        for i in range(0, len(perm), 512):
            loss = model(perm[i:i + 512], 32, len(e2i))
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"{kc.stamp()} epoch {epoch}: loss {loss.item():.4f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["train", "tune", "data"])
    p.add_argument("--data", default="kg")
    p.add_argument("--dump", default="dump")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--worker-env", default="")
    p.add_argument("--pg-timeout", type=int, default=60)
    p.add_argument("--trial-cpus", type=int, default=1)
    p.add_argument("--data-in-trial", action="store_true")
    p.add_argument("--pg-port", type=int, default=0)
    a = p.parse_args()
    if not os.path.exists(os.path.join(a.data, "train.tsv")):
        kc.make_dataset(a.data)
    {"train": cmd_train, "tune": cmd_tune, "data": cmd_data}[a.mode](a)


if __name__ == "__main__":
    main()
