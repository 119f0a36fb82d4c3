"""Write a synthetic citation graph for sage.py: a stochastic block model with 6 topic classes, 32-d bag-of-words-like
node features (class centroid + noise), an undirected edge list, and train/val/test splits.

    python make_graph.py --out data [--nodes 8000] [--isolated-frac 0.03] [--unlabeled-tail 0.05] [--raw-ids]
"""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--nodes", type=int, default=8000)
ap.add_argument("--classes", type=int, default=6)
ap.add_argument("--feat-dim", type=int, default=32)
ap.add_argument("--avg-degree", type=float, default=8.0)
ap.add_argument("--homophily", type=float, default=0.65)
ap.add_argument("--isolated-frac", type=float, default=0.0, help="papers with no citations in the crawl")
ap.add_argument("--unlabeled-tail", type=float, default=0.0,
                help="the newest papers (highest ids) not yet annotated: label -1 in labels.npy")
ap.add_argument("--duplicate-edges", type=float, default=0.0,
                help="fraction of citation rows listed twice (a crawl merged from two sources, not deduplicated)")
ap.add_argument("--raw-ids", action="store_true", help="write edges with the crawl's raw paper ids (no remap)")
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
n, c = a.nodes, a.classes
y = rng.integers(0, c, n)
centroids = rng.normal(0, 1, (c, a.feat_dim))
x = (centroids[y] + rng.normal(0, 3.5, (n, a.feat_dim))).astype(np.float32)
m = int(n * a.avg_degree / 2)
src = rng.integers(0, n, m)
same = rng.random(m) < a.homophily
by_class = [np.flatnonzero(y == k) for k in range(c)]
dst = rng.integers(0, n, m)
for k in range(c):
    sel = same & (y[src] == k)
    dst[sel] = rng.choice(by_class[k], sel.sum())
# every paper cites at least one other paper, except the isolated ones
chain_src = np.arange(n)
chain_dst = np.array([rng.choice(by_class[y[i]]) for i in range(n)])
src, dst = np.concatenate([src, chain_src]), np.concatenate([dst, chain_dst])
keep = src != dst
src, dst = src[keep], dst[keep]
if a.isolated_frac:
    iso = rng.choice(n, int(n * a.isolated_frac), replace=False)
    bad = np.isin(src, iso) | np.isin(dst, iso)
    src, dst = src[~bad], dst[~bad]
edges = np.unique(np.stack([np.minimum(src, dst), np.maximum(src, dst)], 1), axis=0)
if a.duplicate_edges:
    edges = np.concatenate([edges, edges[rng.choice(len(edges), int(len(edges) * a.duplicate_edges), replace=False)]])
if a.raw_ids:
    raw = np.sort(rng.choice(2_000_000_000, n, replace=False)) + 147_000_000
    edges = raw[edges]
perm = rng.permutation(n)
splits = {"train": np.sort(perm[: int(0.6 * n)]), "val": np.sort(perm[int(0.6 * n): int(0.8 * n)]),
          "test": np.sort(perm[int(0.8 * n):])}
labels = y.copy()
if a.unlabeled_tail:
    labels[n - int(n * a.unlabeled_tail):] = -1
os.makedirs(a.out, exist_ok=True)
np.save(os.path.join(a.out, "features.npy"), x)
np.save(os.path.join(a.out, "labels.npy"), labels)
np.save(os.path.join(a.out, "edges.npy"), edges.astype(np.int64))
np.savez(os.path.join(a.out, "splits.npz"), **splits)
with open(os.path.join(a.out, "meta.json"), "w") as f:
    json.dump({"nodes": n, "classes": c, "feat_dim": a.feat_dim, "edges": int(len(edges))}, f)
print(f"graph: {n} nodes, {len(edges)} undirected edges, {c} classes, features {a.feat_dim}-d -> {a.out}/")
