"""Nightly batch scoring of open orders: Ray Data featurizes the export and an actor pool runs the classifier."""
import argparse
import json
import logging
import os
import time

import numpy as np
import ray
import torch

from features import N_FEATURES, featurize

log = logging.getLogger("returns.score")


def with_fx(batch):
    """Prices arrive in the seller's currency; the fx table is published by the finance job each night."""
    path = os.path.join(os.getcwd(), "data", "fx_rates.json")
    if not os.path.exists(path):
        time.sleep(4)
        logging.getLogger("returns.score").warning("fx table %s missing after 4 s", path)
        raise ConnectionError(f"fx table not published yet: {path}")
    rates = json.load(open(path))
    batch["price"] = np.asarray(batch["price"], dtype=np.float64) * rates["EUR"]
    return batch


def featurize_lenient(batch):
    good = []
    for i, q in enumerate(batch["qty"]):
        try:
            if q is None or not np.isfinite(float(q)):
                raise ValueError(q)
            good.append(i)
        except (TypeError, ValueError):
            logging.getLogger("returns.score").warning("order %s: unparseable qty %r, row skipped",
                                                       batch["order_id"][i], q)
    batch = {k: np.asarray(v)[good] for k, v in batch.items()}
    return featurize(batch)


class Scorer:
    def __init__(self, model_path, hidden):
        self.model = torch.nn.Sequential(torch.nn.Linear(N_FEATURES, hidden), torch.nn.ReLU(),
                                         torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
        self.model.load_state_dict(torch.load(model_path)["model"])
        self.model.eval()

    def __call__(self, batch):
        with torch.no_grad():
            p = torch.sigmoid(self.model(torch.as_tensor(batch["x"])).squeeze(-1)).numpy()
        return {"p_return": p, "y": batch["y"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="data/orders")
    ap.add_argument("--model", default="models/returns-mlp.pt")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--out", default="scored")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--cpus-per-actor", type=float, default=1)
    ap.add_argument("--skip-bad-rows", action="store_true")
    ap.add_argument("--fx", action="store_true", help="convert prices with the nightly fx table")
    ap.add_argument("--cache", action="store_true", help="materialize the raw export before scoring")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    ray.init(address="auto")
    log.info("cluster resources: %s", ray.cluster_resources())
    ds = ray.data.read_json(a.data_dir)
    if a.cache:
        ds = ds.materialize()
        log.info("cached export: %s", ds.stats().splitlines()[0] if ds.stats() else "")
    if a.fx:
        ds = ds.map_batches(with_fx, batch_size=a.batch_size, max_retries=10, retry_exceptions=[ConnectionError])
    ds = ds.map_batches(featurize_lenient if a.skip_bad_rows else featurize, batch_size=a.batch_size)
    ds = ds.map_batches(Scorer, fn_constructor_args=(a.model, a.hidden), batch_size=a.batch_size,
                        concurrency=a.concurrency, num_cpus=a.cpus_per_actor)
    ds.write_parquet(os.path.abspath(a.out))
    out = ray.data.read_parquet(os.path.abspath(a.out)).to_pandas()
    log.info("scored %d orders, mean p_return %.3f, observed return rate %.3f", len(out), out["p_return"].mean(),
             out["y"].mean())


if __name__ == "__main__":
    main()
