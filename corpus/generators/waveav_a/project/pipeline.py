"""main entry point: prep then train as child runs of one parent run, then a nested evaluation run."""
import argparse
import json
import os

import mlflow

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=float, default=3)
ap.add_argument("--master-port", type=float, default=29500)
a = ap.parse_args()

with mlflow.start_run() as parent:
    print(f"pipeline run {parent.info.run_id}", flush=True)
    prep = mlflow.run(".", "prep", env_manager="local")
    print(f"prep finished: run {prep.run_id}", flush=True)
    train = mlflow.run(".", "train", parameters={"epochs": int(a.epochs), "master_port": int(a.master_port)},
                       env_manager="local")
    print(f"train finished: run {train.run_id}", flush=True)
    with mlflow.start_run(run_name="evaluate", nested=True):
        with open(os.path.join("checkpoints", "summary.json")) as f:
            summ = json.load(f)
        mlflow.log_metric("val_mae_min", summ["val_mae_min"])
        mlflow.set_tag("train_run", train.run_id)
        print(f"evaluation: val MAE {summ['val_mae_min']:.2f} min", flush=True)
