"""Colony-health training pipeline for the apiary monitoring team, as Luigi tasks:

    HiveExport (external: the gateway's CSV) -> ExtractReadings -> BuildFeatures -> TrainColonyModel -> Evaluate

TrainColonyModel runs ``torchrun --nproc-per-node 2 train_colony.py`` (DDP over gloo) and waits for it.
Run: python -m luigi --module pipeline Evaluate --local-scheduler --workers 2
"""
import csv
import datetime
import functools
import json
import logging
import os
import pickle
import subprocess
import sys

import luigi
import numpy as np

log = logging.getLogger("luigi-interface")

STATUSES = ["healthy", "queenless", "swarming", "varroa", "starving"]
STATUS_INDEX = {s: i for i, s in enumerate(STATUSES)}


class HiveExport(luigi.ExternalTask):
    """The nightly CSV the apiary gateway drops into data/."""
    path = luigi.Parameter(default="data/hive_export.csv")

    def output(self):
        return luigi.LocalTarget(self.path)


class ExtractReadings(luigi.Task):
    def requires(self):
        return HiveExport()

    def output(self):
        return luigi.LocalTarget("work/readings.pkl", format=luigi.format.Nop)

    def run(self):
        kept, dropped = [], 0
        with self.input().open("r") as f:
            for row in csv.DictReader(f):
                try:
                    datetime.date.fromisoformat(row["date"])
                except ValueError:
                    log.error("reading %s: unreadable date %r, dropped", row["reading_id"], row["date"])
                    dropped += 1
                    continue
                kept.append({
                    "hive": row["hive_id"], "parent": row["parent_hive"], "status": row["status"],
                    "x": [float(row["brood_temp_c"]), float(row["humidity_pct"]), float(row["weight_kg"]),
                          float(row["weight_delta_kg"]), float(row["traffic_in"]), float(row["traffic_out"]),
                          float(row["band_200hz"]), float(row["band_400hz"]), float(row["band_500hz"])],
                })
        log.info("kept %d readings (%d dropped)", len(kept), dropped)
        with self.output().open("w") as f:
            pickle.dump(kept, f)


class BuildFeatures(luigi.Task):
    val_fraction = luigi.FloatParameter(default=0.2)

    def requires(self):
        return ExtractReadings()

    def output(self):
        return {"train": luigi.LocalTarget("work/features/train.pkl", format=luigi.format.Nop),
                "val": luigi.LocalTarget("work/features/val.pkl", format=luigi.format.Nop)}

    def run(self):
        with self.input().open("r") as f:
            rows = pickle.load(f)
        parent = {r["hive"]: r["parent"] for r in rows}
        sys.setrecursionlimit(1_000_000)  # long split lineages in the older apiaries

        @functools.lru_cache(maxsize=None)
        def founder(hive: str) -> str:
            p = parent.get(hive, "")
            if not p:
                return hive
            return founder(p)

        founders = sorted({founder(r["hive"]) for r in rows})
        log.info("%d hives from %d founding colonies", len(parent), len(founders))
        raw = np.array([r["x"] for r in rows], dtype=np.float64)
        temp, hum, weight, delta, tin, tout, b200, b400, b500 = raw.T
        feats = np.stack([
            (temp - 34.5) / 1.5, (hum - 60) / 8, np.log(weight / 35.0), delta,
            np.log(tout / tin), np.log(b200 / b500), np.log(b400 / b500), np.log(weight / np.maximum(tin, 1) * 100),
        ], axis=1).astype(np.float32)
        y = np.array([STATUS_INDEX[r["status"]] for r in rows], dtype=np.int64)
        rng = np.random.default_rng(0)
        idx = rng.permutation(len(y))
        n_val = int(len(y) * self.val_fraction)
        for name, part in (("val", idx[:n_val]), ("train", idx[n_val:])):
            with self.output()[name].open("w") as f:
                pickle.dump({"x": feats[part], "y": y[part], "n_classes": len(STATUSES)}, f)
        log.info("features: %d train / %d val, %d features, class counts %s", len(idx) - n_val, n_val,
                 feats.shape[1], np.bincount(y, minlength=len(STATUSES)).tolist())


class TrainColonyModel(luigi.Task):
    epochs = luigi.IntParameter(default=3)
    master_port = luigi.IntParameter(default=32000)
    nnodes = luigi.IntParameter(default=1)
    micro_batch = luigi.IntParameter(default=32)
    optimizer = luigi.Parameter(default="adamw")
    lr = luigi.FloatParameter(default=3e-3)
    loader_workers = luigi.IntParameter(default=0)
    step_delay = luigi.FloatParameter(default=0.0)
    pg_timeout = luigi.IntParameter(default=300)
    augment_copies = luigi.IntParameter(default=0)
    class_weights = luigi.BoolParameter(default=False)
    resume = luigi.BoolParameter(default=False)
    log_every = luigi.IntParameter(default=10)
    retries = luigi.IntParameter(default=0, significant=False)
    timeout_s = luigi.IntParameter(default=0, significant=False)

    @property
    def retry_count(self):
        return self.retries

    @property
    def worker_timeout(self):
        return self.timeout_s or None

    def requires(self):
        return BuildFeatures()

    def output(self):
        return luigi.LocalTarget(f"checkpoints/model-e{self.epochs}.json")

    def run(self):
        feats = self.input()
        cmd = ["torchrun", "--nnodes", str(self.nnodes), "--nproc-per-node", "2", "--node-rank", "0",
               "--master-addr", "127.0.0.1", "--master-port", str(self.master_port), "--rdzv-conf", "timeout=60",
               "train_colony.py", "--train", feats["train"].path, "--val", feats["val"].path,
               "--ckpt-dir", "checkpoints", "--epochs", str(self.epochs), "--micro-batch", str(self.micro_batch),
               "--optimizer", self.optimizer, "--lr", str(self.lr), "--loader-workers", str(self.loader_workers),
               "--step-delay", str(self.step_delay), "--pg-timeout", str(self.pg_timeout),
               "--augment-copies", str(self.augment_copies), "--log-every", str(self.log_every)]
        if self.class_weights:
            cmd.append("--class-weights")
        if self.resume:
            cmd.append("--resume")
        log.info("launching: %s", " ".join(cmd))
        subprocess.run(cmd, check=True)
        with open("checkpoints/summary.json") as f:
            summary = json.load(f)
        with self.output().open("w") as f:
            json.dump(summary, f)


class Evaluate(luigi.Task):
    min_accuracy = luigi.FloatParameter(default=0.8)

    def requires(self):
        return TrainColonyModel()

    def output(self):
        model = os.path.splitext(os.path.basename(self.input().path))[0]
        return luigi.LocalTarget(f"reports/colony_health_eval-{model}.json")

    def run(self):
        with self.input().open("r") as f:
            summary = json.load(f)
        acc = summary["val_accuracy"]
        log.info("validation accuracy %.3f (gate %.2f)", acc, self.min_accuracy)
        if acc < self.min_accuracy:
            raise RuntimeError(f"val accuracy {acc:.3f} below the gate {self.min_accuracy}")
        with self.output().open("w") as f:
            json.dump({"val_accuracy": acc, "gate": self.min_accuracy, "publish": True}, f)
        log.info("colony-health model passed the accuracy gate, ready to publish")
