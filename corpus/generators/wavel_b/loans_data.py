"""A Ray Data tabular pipeline for a loan-default model: read parquet shards of applications, encode features in an
actor pool (``map_batches`` with a callable class: category vocabularies + standardisation), optionally write the
encoded features back as parquet (the team's feature store), then train an MLP from ``iter_torch_batches``.

    python loans_data.py --make-data 200000 --shards 8 --out data/applications
    python loans_data.py --data data/applications --epochs 4 [--features-out features/]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import time

import numpy as np

CATS = {"purpose": ["car", "home", "education", "debt_consolidation", "medical", "business", "travel"],
        "home_ownership": ["RENT", "OWN", "MORTGAGE"],
        "region": ["north", "south", "east", "west", "central"]}
NUMS = ["income", "loan_amount", "term_months", "credit_score", "dti", "years_employed"]


def make_data(n: int, shards: int, out: str, new_region_from: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(3)
    per = n // shards
    for s in range(shards):
        cols = {"income": rng.lognormal(10.8, 0.5, per), "loan_amount": rng.lognormal(9.5, 0.7, per),
                "term_months": rng.choice([36, 60], per).astype(float), "credit_score": rng.normal(690, 60, per),
                "dti": rng.uniform(0, 45, per), "years_employed": rng.integers(0, 30, per).astype(float)}
        for c, vals in CATS.items():
            cols[c] = rng.choice(vals, per)
        if new_region_from and s == shards - 1:  # the newest export added a region
            cols["region"][new_region_from % per:] = "northeast"
        z = (-0.00002 * cols["income"] + 0.00004 * cols["loan_amount"] - 0.01 * (cols["credit_score"] - 690)
             + 0.03 * cols["dti"] + (cols["purpose"] == "business") * 0.8 - 1.0)
        cols["default"] = (rng.uniform(0, 1, per) < 1 / (1 + np.exp(-z))).astype(np.int64)
        cols["application_id"] = np.arange(s * per, (s + 1) * per)
        cols["notes"] = np.array([f"applicant {i} requested review; docs {'x' * 200}" for i in
                                  range(s * per, (s + 1) * per)])
        pq.write_table(pa.table(cols), f"{out}/part-{s:03d}.parquet")
    print(f"wrote {n} applications in {shards} parquet shards to {out}")


class Encoder:
    """Category vocabularies and numeric standardisation, loaded once per actor."""

    def __init__(self, stats_path: str):
        with open(stats_path) as f:
            st = json.load(f)
        self.vocab = {c: {v: i for i, v in enumerate(vals)} for c, vals in st["vocab"].items()}
        self.mean, self.std = st["mean"], st["std"]
        print(f"[encoder pid {os.getpid()}] loaded vocabularies for {list(self.vocab)}", flush=True)

    def __call__(self, batch: dict) -> dict:
        out = {}
        for c in NUMS:
            out[c] = ((batch[c] - self.mean[c]) / self.std[c]).astype(np.float32)
        for c, vocab in self.vocab.items():
            out[c] = np.array([vocab[v] for v in batch[c]], dtype=np.int64)
        out["default"] = batch["default"].astype(np.float32)
        out["application_id"] = batch["application_id"]
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--make-data", type=int, default=0)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--new-region-from", type=int, default=0)
    ap.add_argument("--out", default="data/applications")
    ap.add_argument("--data", default="data/applications")
    ap.add_argument("--stats", default="data/feature_stats.json")
    ap.add_argument("--features-out", default="")
    ap.add_argument("--encoders", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=1024)
    a = ap.parse_args()
    if a.make_data:
        make_data(a.make_data, a.shards, a.out, a.new_region_from)
        return

    import ray
    import torch
    import torch.nn as nn

    a.data = os.path.abspath(a.data)
    a.features_out = os.path.abspath(a.features_out) if a.features_out else ""
    ray.init()
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ds = ray.data.read_parquet(a.data)
    print(f"dataset: {ds.count()} rows, schema {ds.schema().names}")
    # statistics from the first shard (what the feature team published with the vocabularies)
    first = ray.data.read_parquet(os.path.join(a.data, sorted(os.listdir(a.data))[0])).to_pandas()
    stats = {"vocab": {c: sorted(first[c].unique().tolist()) for c in CATS},
             "mean": {c: float(first[c].mean()) for c in NUMS}, "std": {c: float(first[c].std()) for c in NUMS}}
    with open(a.stats, "w") as f:
        json.dump(stats, f)
    print(f"feature stats: {json.dumps({c: len(v) for c, v in stats['vocab'].items()})} categories")
    feats = ds.map_batches(Encoder, fn_constructor_args=(os.path.abspath(a.stats),), batch_size=4096,
                           concurrency=a.encoders, num_cpus=0.5)
    if a.features_out:
        t0 = time.time()
        feats = feats.materialize()
        feats.write_parquet(a.features_out)
        print(f"wrote encoded features to {a.features_out} in {time.time() - t0:.1f}s")
        feats = ray.data.read_parquet(a.features_out)
    train, val = feats.train_test_split(test_size=0.1, seed=0)

    class LoanMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.embs = nn.ModuleDict({c: nn.Embedding(len(stats["vocab"][c]), 4) for c in CATS})
            self.net = nn.Sequential(nn.Linear(len(NUMS) + 4 * len(CATS), 64), nn.ReLU(), nn.Linear(64, 1))

        def forward(self, b):
            x = torch.cat([torch.stack([b[c] for c in NUMS], -1)] + [self.embs[c](b[c]) for c in CATS], -1)
            return self.net(x).squeeze(-1)

    torch.manual_seed(0)
    model = LoanMLP()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    lossf = nn.BCEWithLogitsLoss()
    for epoch in range(a.epochs):
        model.train()
        tot, n = 0.0, 0
        for step, b in enumerate(train.iter_torch_batches(batch_size=a.batch, local_shuffle_buffer_size=8192)):
            loss = lossf(model(b), b["default"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot, n = tot + loss.item(), n + 1
            if step % 40 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        model.eval()
        correct = count = 0
        with torch.no_grad():
            for b in val.iter_torch_batches(batch_size=4096):
                pred = (model(b) > 0).float()
                correct += int((pred == b["default"]).sum())
                count += len(pred)
        print(f"epoch {epoch} train_loss {tot / max(n, 1):.4f} val_acc {correct / count:.4f}", flush=True)
    torch.save(model.state_dict(), "loan_mlp.pt")
    print("saved loan_mlp.pt")


if __name__ == "__main__":
    main()
