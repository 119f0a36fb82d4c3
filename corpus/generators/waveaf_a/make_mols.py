"""Write synthetic small molecules as JSON lines: data/train-NN.jsonl and data/val.jsonl. Each record: id, atoms
(element symbols, heavy atoms only), bonds ([i, j, order], order 1-3 or 4 = aromatic) and y, a synthetic property
(an additive atom/bond/ring contribution model plus noise, in eV)."""
import argparse
import json
import os
import random

ELEM = ["C", "C", "C", "C", "C", "N", "N", "O", "O", "F", "S", "Cl"]
CONTRIB = {"C": -0.21, "N": -0.35, "O": -0.52, "F": -0.61, "S": -0.28, "Cl": -0.44}
BOND = {1: 0.05, 2: -0.12, 3: -0.2, 4: -0.08}


def molecule(rng, n):
    atoms = [rng.choice(ELEM) for _ in range(n)]
    bonds = []
    for i in range(1, n):  # a random tree
        j = rng.randrange(max(0, i - 4), i)
        bonds.append([j, i, rng.choice([1, 1, 1, 2, 4])])
    for _ in range(rng.choice([0, 1, 1, 2, 3])):  # ring closures
        i, j = sorted(rng.sample(range(n), 2)) if n > 5 else (0, 0)
        if j - i >= 4 and not any(b[:2] == [i, j] for b in bonds):
            bonds.append([i, j, rng.choice([1, 4])])
    return atoms, bonds


def prop(atoms, bonds, rng):
    y = sum(CONTRIB[a] for a in atoms) + sum(BOND[b[2]] for b in bonds)
    y += 0.3 * (len(bonds) - len(atoms) + 1) + rng.gauss(0, 0.05)
    return round(y / max(1, len(atoms)) ** 0.5, 5)


def cage(k):
    """A k x k fused ring lattice (a polycyclic cage-like framework)."""
    atoms = ["C"] * (k * k)
    bonds = [[r * k + c, r * k + c + 1, 4] for r in range(k) for c in range(k - 1)]
    bonds += [[r * k + c, (r + 1) * k + c, 1] for r in range(k - 1) for c in range(k)]
    return atoms, bonds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=640)
    ap.add_argument("--val", type=int, default=256)
    ap.add_argument("--max-atoms", type=int, default=38)
    ap.add_argument("--ions", type=int, default=0, help="single-atom records (counter-ions) in val")
    ap.add_argument("--unmapped-bonds", default="", help="SHARD:N records whose bonds still index stripped hydrogens")
    ap.add_argument("--missing-y", default="", help="SHARD:N records whose y is the export's missing-value marker")
    ap.add_argument("--large", default="", help="SHARD:N:ATOMS large records (peptides, oligomers)")
    ap.add_argument("--polymer", default="", help="SHARD:ATOMS one linear polymer record")
    ap.add_argument("--val-large", type=int, default=0, help="the first validation record has this many atoms")
    ap.add_argument("--cages", default="", help="SHARD:N:K fused-ring lattice records")
    a = ap.parse_args()
    rng = random.Random(7)
    os.makedirs(a.out, exist_ok=True)

    def rec(k, atoms, bonds, y=None):
        return {"id": f"MOL{k:06d}", "atoms": atoms, "bonds": bonds, "y": prop(atoms, bonds, rng) if y is None else y}

    k = 0
    for s in range(a.shards):
        recs = []
        for _ in range(a.per_shard):
            atoms, bonds = molecule(rng, rng.randint(6, a.max_atoms))
            recs.append(rec(k, atoms, bonds))
            k += 1
        if a.unmapped_bonds and int(a.unmapped_bonds.split(":")[0]) == s:
            for r in rng.sample(recs, int(a.unmapped_bonds.split(":")[1])):
                n = len(r["atoms"])
                r["bonds"].append([rng.randrange(n), n + rng.randint(0, 3), 1])  # bond to an explicit hydrogen
        if a.missing_y and int(a.missing_y.split(":")[0]) == s:
            for r in rng.sample(recs, int(a.missing_y.split(":")[1])):
                r["y"] = 3.4028234663852886e38
        if a.large and int(a.large.split(":")[0]) == s:
            _, n, size = map(int, a.large.split(":"))
            for _ in range(n):
                atoms, bonds = molecule(rng, size + rng.randint(-50, 50))
                recs.insert(rng.randrange(len(recs)), rec(k, atoms, bonds))
                k += 1
        if a.polymer and int(a.polymer.split(":")[0]) == s:
            n = int(a.polymer.split(":")[1])
            atoms = ["C", "C"] * (n // 2)
            recs.insert(rng.randrange(len(recs)), rec(k, atoms, [[i, i + 1, 1] for i in range(n - 1)]))
            k += 1
        if a.cages and int(a.cages.split(":")[0]) == s:
            _, n, size = map(int, a.cages.split(":"))
            for _ in range(n):
                atoms, bonds = cage(size)
                recs.insert(rng.randrange(len(recs)), rec(k, atoms, bonds))
                k += 1
        with open(os.path.join(a.out, f"train-{s:02d}.jsonl"), "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
    with open(os.path.join(a.out, "val.jsonl"), "w") as f:
        for i in range(a.val):
            if i == 0 and a.val_large:
                atoms, bonds = molecule(rng, a.val_large)
            elif i < a.ions:
                atoms, bonds = [rng.choice(["Cl", "F", "N"])], []
            else:
                atoms, bonds = molecule(rng, rng.randint(6, a.max_atoms))
            f.write(json.dumps(rec(k, atoms, bonds)) + "\n")
            k += 1


if __name__ == "__main__":
    main()
