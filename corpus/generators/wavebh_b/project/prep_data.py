"""Write the toy classification dataset as JSONL shards plus an index.json."""
import argparse, json, os, random

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--classes", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sort-by-label", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    centers = [[rng.gauss(0, 1) for _ in range(a.dim)] for _ in range(a.classes)]
    per = a.rows // a.shards
    ys = [rng.randrange(a.classes) for _ in range(a.rows)]
    if a.sort_by_label:
        ys.sort()
    shards = []
    for s in range(a.shards):
        name = f"shard.{s:05d}.jsonl"
        with open(os.path.join(a.out, name), "w") as f:
            for i in range(per):
                y = ys[s * per + i]
                x = [round(c + rng.gauss(0, 0.8), 4) for c in centers[y]]
                f.write(json.dumps({"id": s * per + i, "x": x, "y": y, "n": a.dim}) + "\n")
        shards.append({"file": name, "rows": per})
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump({"version": 1, "dim": a.dim, "classes": a.classes, "shards": shards}, f)
    print(f"wrote {a.rows} rows in {a.shards} shards to {a.out}")

if __name__ == "__main__":
    main()
