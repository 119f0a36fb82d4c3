"""The team's seasonal crop-yield training pipeline as a Prefect flow.

ingest (fetch_region.map, thread pool, retries) -> parcel lineage features (subflow on a process pool) ->
build_shards -> train_model (torchrun, DDP over gloo, timeout) -> evaluate -> register_model (subflow).
"""
import argparse
import csv
import functools
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
from prefect import flow, get_run_logger, task
from prefect.task_runners import ProcessPoolTaskRunner, ThreadPoolTaskRunner

WEEKS = 12


@task(retries=2, retry_delay_seconds=3, log_prints=True)
def fetch_region(region: int, exports: str, staging: str) -> str:
    src = os.path.join(exports, f"region-{region:02d}.csv")
    vocab = json.load(open(os.path.join(exports, "vocab.json")))
    soils = {s: i for i, s in enumerate(vocab["soils"])}
    crops = {c: i for i, c in enumerate(vocab["crops"])}
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    ycol = next(c for c in rows[0] if c.startswith("yield_"))
    weather = np.array([[[float(r[f"rain_w{k}"]), float(r[f"gdd_w{k}"])] for k in range(WEEKS)] for r in rows],
                       dtype=np.float32)
    soil = np.array([soils[r["soil_type"]] for r in rows], dtype=np.int64)
    crop = np.array([crops.get(r["crop"], len(crops) + sorted({r["crop"] for r in rows}).index(r["crop"]))
                     for r in rows], dtype=np.int64)
    y = np.array([float(r[ycol]) for r in rows], dtype=np.float32)
    parcel = np.array([int(r["parcel"]) for r in rows], dtype=np.int64)
    merged = np.array([int(r["merged_into"]) if r["merged_into"] else -1 for r in rows], dtype=np.int64)
    os.makedirs(staging, exist_ok=True)
    out = os.path.join(staging, f"region-{region:02d}.npz")
    np.savez(out, weather=weather, soil=soil, crop=crop, y=y, parcel=parcel, merged=merged)
    print(f"region {region}: {len(rows)} fields, mean yield {y.mean():.2f} ({ycol}), staged to {out}")
    return out


def lineage_resolver(merges: dict):
    @functools.lru_cache(maxsize=None)
    def root(parcel: int) -> int:
        nxt = merges.get(parcel, -1)
        return parcel if nxt < 0 else root(nxt)
    return root


@task(log_prints=True)
def parcel_features(staged: str, merges_path: str) -> str:
    sys.setrecursionlimit(1_000_000)  # parcel lineages can be long after land consolidation
    d = dict(np.load(staged))
    merges = {int(p): int(m) for p, m in zip(d["parcel"], d["merged"]) if m >= 0}
    if os.path.exists(merges_path):
        merges.update({int(k): int(v) for k, v in json.load(open(merges_path)).items()})
    root = lineage_resolver(merges)
    roots = np.array([root(int(p)) for p in d["parcel"]])
    d["holding"] = roots
    np.savez(staged, **d)
    print(f"{os.path.basename(staged)}: {len(set(roots.tolist()))} holdings from {len(set(d['parcel'].tolist()))} parcels")
    return staged


@flow(name="parcel-lineage", task_runner=ProcessPoolTaskRunner(max_workers=2))
def lineage_flow(staged: list, merges_path: str) -> list:
    futures = parcel_features.map(staged, merges_path=merges_path)
    return futures.result()


@task(log_prints=True)
def build_shards(staged: list, data: str, world: int, val_frac: float = 0.1) -> dict:
    parts = [dict(np.load(p)) for p in staged]
    full = {k: np.concatenate([p[k] for p in parts]) for k in ("weather", "soil", "crop", "y")}
    n = len(full["y"])
    idx = np.random.default_rng(0).permutation(n)
    n_val = int(n * val_frac)
    os.makedirs(data, exist_ok=True)
    np.savez(os.path.join(data, "val.npz"), **{k: v[idx[:n_val]] for k, v in full.items()})
    train = idx[n_val:]
    for r in range(world):
        part = train[r::world]
        np.savez(os.path.join(data, f"shard-{r:02d}.npz"), **{k: v[part] for k, v in full.items()})
    print(f"{n} fields: {n - n_val} train in {world} shards, {n_val} validation")
    return {"train": int(n - n_val), "val": int(n_val)}


@task(log_prints=True)
def train_model(nproc: int, master_port: int, train_args: list, max_restarts: int, nnodes: int = 1) -> str:
    if nnodes > 1:  # multi-host: elastic c10d rendezvous on the first host
        launch = [f"--nnodes={nnodes}", "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{master_port}",
                  "--rdzv-conf=join_timeout=60"]
    else:
        launch = ["--nnodes=1", f"--master_port={master_port}"]
    cmd = ["torchrun", *launch, f"--nproc_per_node={nproc}", f"--max-restarts={max_restarts}", "train_yield.py",
           *train_args]
    print("launching: " + " ".join(cmd))
    subprocess.run(cmd, check=True)
    return "checkpoints/last.pt"


@task(log_prints=True)
def evaluate(ckpt: str, data: str) -> float:
    import torch
    from train_yield import YieldNet, load
    ck = torch.load(ckpt, map_location="cpu")
    model = YieldNet(ck["model"]["soil.weight"].shape[0], ck["model"]["crop.weight"].shape[0])
    model.load_state_dict(ck["model"])
    val, _ = load(os.path.join(data, "val.npz"))
    with torch.no_grad():
        wx, soil, crop, y = val.tensors
        pred = model(wx, soil, crop)
    rmse = float(torch.sqrt(((pred - y) ** 2).mean()))
    mae = float((pred - y).abs().mean())
    print(f"evaluation of {ckpt} (epoch {ck['epoch']}): RMSE {rmse:.3f} t/ha, MAE {mae:.3f} t/ha on {len(y)} fields")
    return rmse


@task(log_prints=True)
def copy_artifact(ckpt: str, dest: str) -> str:
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copy(ckpt, dest)
    return dest


@flow(name="register-model", log_prints=True)
def register_model(ckpt: str, rmse: float, registry: str, max_rmse: float) -> str:
    logger = get_run_logger()
    if rmse > max_rmse:
        logger.warning(f"RMSE {rmse:.3f} above the promotion threshold {max_rmse}; registering as candidate only")
    versions = sorted(os.listdir(registry)) if os.path.isdir(registry) else []
    version = f"v{len(versions) + 1}"
    path = copy_artifact(ckpt, os.path.join(registry, version, "model.pt"))
    with open(os.path.join(registry, version, "card.json"), "w") as f:
        json.dump({"rmse_t_ha": rmse, "stage": "candidate" if rmse > max_rmse else "staging",
                   "registered": time.strftime("%Y-%m-%dT%H:%M:%S")}, f)
    logger.info(f"registered yield model {version} at {path}")
    return version


@flow(name="crop-yield-training", task_runner=ThreadPoolTaskRunner(max_workers=4), log_prints=True)
def crop_yield_training(regions: int = 4, exports: str = "exports", nproc: int = 2, master_port: int = 29500,
                        train_args: list = (), max_restarts: int = 0, train_timeout: float = 900,
                        registry: str = "registry", max_rmse: float = 1.5, nnodes: int = 1,
                        train_retries: int = 0) -> str:
    logger = get_run_logger()
    logger.info(f"season pipeline: {regions} regions from {exports}/, {nproc} trainer processes")
    staged = fetch_region.map(list(range(regions)), exports=exports, staging="staging").result()
    staged = lineage_flow(staged, os.path.join(exports, "parcel_merges.json"))
    sizes = build_shards(staged, "data", nproc)
    logger.info(f"shards ready: {sizes}")
    ckpt = train_model.with_options(timeout_seconds=train_timeout, retries=train_retries,
                                    retry_delay_seconds=5)(nproc, master_port, list(train_args), max_restarts,
                                                                     nnodes)
    rmse = evaluate(ckpt, "data")
    version = register_model(ckpt, rmse, registry, max_rmse)
    logger.info(f"pipeline done: model {version}, RMSE {rmse:.3f} t/ha")
    return version


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--regions", type=int, default=4)
    ap.add_argument("--nproc", type=int, default=2)
    ap.add_argument("--master-port", type=int, default=29500)
    ap.add_argument("--max-restarts", type=int, default=0)
    ap.add_argument("--nnodes", type=int, default=1)
    ap.add_argument("--train-retries", type=int, default=0)
    ap.add_argument("--train-timeout", type=float, default=900)
    ap.add_argument("train_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    targs = a.train_args[1:] if a.train_args[:1] == ["--"] else a.train_args
    crop_yield_training(regions=a.regions, nproc=a.nproc, master_port=a.master_port, train_args=targs,
                        max_restarts=a.max_restarts, train_timeout=a.train_timeout, nnodes=a.nnodes,
                        train_retries=a.train_retries)
