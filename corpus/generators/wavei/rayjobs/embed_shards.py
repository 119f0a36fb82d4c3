"""Embedding computation submitted with ``ray job submit``: one Ray task per data shard encodes ``--rows`` records
into 256-dimensional float32 embeddings with a small torch encoder (about ``rows`` x 1 KiB per shard result); the
driver keeps every shard's ObjectRef and, once all are done, builds a nearest-neighbour index over the concatenated
embeddings. Shard results that do not fit the object store are spilled to disk by Ray.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import ray
import torch


@ray.remote(num_cpus=1)
def encode_shard(shard: int, rows: int) -> np.ndarray:
    torch.manual_seed(0)
    enc = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 256))
    g = torch.Generator().manual_seed(shard)
    with torch.no_grad():
        out = torch.cat([enc(torch.randn(1024, 64, generator=g)) for _ in range(rows // 1024)])
    return torch.nn.functional.normalize(out, dim=1).numpy()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--shards", type=int, default=48)
    p.add_argument("--rows", type=int, default=16384)
    a = p.parse_args()
    ray.init()
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    t0 = time.time()
    refs = [encode_shard.remote(s, a.rows) for s in range(a.shards)]
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=min(8, len(pending)))
        print(f"{a.shards - len(pending)}/{a.shards} shards encoded ({time.time() - t0:.0f}s)", flush=True)
    emb = np.concatenate(ray.get(refs))
    print(f"embeddings: {emb.shape} ({emb.nbytes / 2**20:.0f} MiB)", flush=True)
    queries = emb[:: len(emb) // 100][:100]
    nn = np.argsort(-(queries @ emb.T), axis=1)[:, 1:6]
    print(f"nearest-neighbour index built; first query's neighbours: {nn[0].tolist()}", flush=True)


if __name__ == "__main__":
    main()
