"""Write a synthetic small-molecule property data set as shards of .npy files.

Each molecule: heavy atoms and hydrogens drawn from an element mix, a bond graph (random spanning tree over the heavy
atoms with valence limits, a few ring closures, hydrogens filling the remaining valence), 3D coordinates from a
random-walk "conformer" (bond length by element pair, jitter), and a property that is a sum of atom and bond
contributions plus a ring term and a little noise (think: an atomisation-energy-like regression target).

Layout: ``<out>/<split>/shard-NN/`` holding ``elements.npy`` (``<U2`` symbols), ``n_atoms.npy``, ``bonds.npy``
(local atom indices, int32, [n_bonds_total, 2]), ``n_bonds.npy``, ``coords.npy`` (float32, [n_atoms_total, 3]) and
``y.npy``; ``<out>/meta.json`` lists the element vocabulary and the shard sizes.

    python make_mols.py --out data [--train-shards 4 --val-shards 2 --per-shard 600]
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np

VOCAB = ["H", "C", "N", "O", "F", "S", "Cl"]
VALENCE = {"H": 1, "C": 4, "N": 3, "O": 2, "F": 1, "S": 2, "Cl": 1, "Se": 2, "Br": 1}
HEAVY_P = {"C": 0.66, "N": 0.13, "O": 0.14, "F": 0.03, "S": 0.02, "Cl": 0.02}
ATOM_E = {"H": -0.50, "C": -37.8, "N": -54.6, "O": -75.0, "F": -99.7, "S": -398.1, "Cl": -460.1, "Se": -2400.0,
          "Br": -2573.0}
BOND_LEN = {1: 1.09, 2: 1.45}


def molecule(rng: np.random.Generator, heavy_range: tuple[int, int], extra: dict | None = None):
    n_heavy = int(rng.integers(*heavy_range))
    syms = list(HEAVY_P)
    p = np.array([HEAVY_P[s] for s in syms])
    heavy = list(rng.choice(syms, size=n_heavy, p=p / p.sum()))
    heavy[0] = "C"
    if extra and rng.random() < extra["p"]:
        heavy[int(rng.integers(1, n_heavy))] = extra["element"]
    free = [VALENCE[s] for s in heavy]
    bonds: list[tuple[int, int]] = []
    for i in range(1, n_heavy):
        cand = [j for j in range(i) if free[j] > 0 and VALENCE[heavy[j]] > 1] or [0]
        j = int(rng.choice(cand))
        bonds.append((j, i))
        free[i] -= 1
        free[j] -= 1
    rings = 0
    for _ in range(int(rng.integers(0, 3))):  # ring closures
        a, b = (int(v) for v in rng.choice(n_heavy, 2, replace=False))
        if free[a] > 0 and free[b] > 0 and abs(a - b) > 3 and (a, b) not in bonds and (b, a) not in bonds:
            bonds.append((a, b))
            free[a] -= 1
            free[b] -= 1
            rings += 1
    elements = list(heavy)
    for i in range(n_heavy):
        for _ in range(max(free[i], 0)):
            elements.append("H")
            bonds.append((i, len(elements) - 1))
    n = len(elements)
    coords = np.zeros((n, 3), np.float32)
    placed = np.zeros(n, bool)
    placed[0] = True
    for a, b in bonds:  # spanning-tree order: parent before child
        src, dst = (a, b) if placed[a] else (b, a)
        if placed[dst]:
            continue
        v = rng.normal(size=3)
        v /= np.linalg.norm(v)
        length = BOND_LEN[1 if "H" in (elements[src], elements[dst]) else 2]
        coords[dst] = coords[src] + length * v + rng.normal(scale=0.05, size=3)
        placed[dst] = True
    y = sum(ATOM_E[s] for s in elements) - 0.09 * len(bonds) - 0.35 * rings
    y += 0.02 * float(np.sum(np.linalg.norm(coords - coords.mean(0), axis=1))) / n
    y += float(rng.normal(scale=0.01))
    return elements, np.array(bonds, np.int32), coords, np.float32(y)


def write_shard(path: str, mols) -> None:
    os.makedirs(path, exist_ok=True)
    np.save(os.path.join(path, "elements.npy"), np.array([s for m in mols for s in m[0]], dtype="<U2"))
    np.save(os.path.join(path, "n_atoms.npy"), np.array([len(m[0]) for m in mols], np.int32))
    np.save(os.path.join(path, "bonds.npy"), np.concatenate([m[1] for m in mols]).astype(np.int32))
    np.save(os.path.join(path, "n_bonds.npy"), np.array([len(m[1]) for m in mols], np.int32))
    np.save(os.path.join(path, "coords.npy"), np.concatenate([m[2] for m in mols]).astype(np.float32))
    np.save(os.path.join(path, "y.npy"), np.array([m[3] for m in mols], np.float32))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--train-shards", type=int, default=4)
    ap.add_argument("--val-shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=600)
    ap.add_argument("--heavy", default="3,13", help="heavy atoms per molecule: low,high (exclusive)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", default="", help="re-export only this shard, e.g. train/shard-01")
    ap.add_argument("--extra-element", default="", help="ELEMENT:P:SHARD (e.g. Se:0.05:train/shard-01)")
    ap.add_argument("--failed-embeddings", default="", help="P:SHARD: conformers that failed to embed (all-zero coords)")
    ap.add_argument("--large", default="", help="N_HEAVY:COUNT:SHARD: add COUNT large molecules to SHARD")
    a = ap.parse_args()
    lo, hi = (int(v) for v in a.heavy.split(","))
    shards = [f"train/shard-{i:02d}" for i in range(a.train_shards)] + [f"val/shard-{i:02d}" for i in range(a.val_shards)]
    extra = failed = large = None
    if a.extra_element:
        el, p, sh = a.extra_element.split(":")
        extra = {"element": el, "p": float(p), "shard": sh}
    if a.failed_embeddings:
        p, sh = a.failed_embeddings.split(":")
        failed = {"p": float(p), "shard": sh}
    if a.large:
        nh, cnt, sh = a.large.split(":")
        large = {"n": int(nh), "count": int(cnt), "shard": sh}
    sizes = {}
    for k, sh in enumerate(shards):
        if a.only and sh != a.only:
            continue
        rng = np.random.default_rng(a.seed * 1000 + k)
        ex = extra if extra and extra["shard"] == sh else None
        mols = [molecule(rng, (lo, hi), ex) for _ in range(a.per_shard)]
        if large and large["shard"] == sh:
            mols += [molecule(rng, (large["n"], large["n"] + 1)) for _ in range(large["count"])]
        if failed and failed["shard"] == sh:
            for i in range(len(mols)):
                if rng.random() < failed["p"]:
                    e, b, _, y = mols[i]
                    mols[i] = (e, b, np.zeros((len(e), 3), np.float32), y)
        write_shard(os.path.join(a.out, sh), mols)
        sizes[sh] = len(mols)
        print(f"wrote {a.out}/{sh}: {len(mols)} molecules, {sum(len(m[0]) for m in mols)} atoms", flush=True)
    meta_path = os.path.join(a.out, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"vocab": VOCAB, "shards": {}}
    meta["shards"].update(sizes)
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    main()
