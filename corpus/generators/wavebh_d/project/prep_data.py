"""Export a synthetic slice of the order history (JSON lines, one file per shard) and build the SKU hashing helper."""
import argparse
import json
import os
import random
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=6000)
ap.add_argument("--shards", type=int, default=8)
ap.add_argument("--out", default="data/orders")
ap.add_argument("--legacy-export", type=int, default=0, help="rows re-exported by the old ERP connector")
ap.add_argument("--pad", type=int, default=0, help="bytes of free-text notes per row")
ap.add_argument("--qty-blank", type=int, default=0, help="rows whose quantity the warehouse left blank")
ap.add_argument("--no-sku", type=int, default=0, help="rows from the marketplace feed that carry no SKU")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
rng = random.Random(7)
cats = ["apparel", "shoes", "home", "toys", "garden", "electronics"]
per = a.rows // a.shards
for s in range(a.shards):
    with open(f"{a.out}/part-{s:03d}.jsonl", "w") as f:
        for i in range(per):
            price = round(rng.uniform(3, 400), 2)
            qty = rng.randint(1, 6)
            cat = rng.choice(cats)
            days = rng.randint(0, 30)
            ret = int((cat in ("apparel", "shoes") and rng.random() < 0.45) or rng.random() < 0.08 + days / 400)
            row = {"order_id": f"O{s:02d}{i:05d}", "sku": f"SKU-{rng.randint(1000, 9999)}", "category": cat,
                   "price": price, "qty": qty, "days_to_ship": days, "discount": round(rng.random() * 0.4, 3),
                   "returned": ret}
            if a.pad:
                row["notes"] = "x" * a.pad
            if s == 5 and i < a.legacy_export:
                row["qty"] = f"{qty} pcs"
            if s == 2 and 50 <= i < 50 + a.qty_blank:
                row["qty"] = None
            if s == 3 and 100 <= i < 100 + a.no_sku:
                row["sku"] = None
            f.write(json.dumps(row) + "\n")
os.makedirs("lib", exist_ok=True)
with open("lib/skuhash.c", "w") as f:
    f.write("#include <string.h>\nunsigned int sku_bucket(const char *s, unsigned int n) {\n"
            "  unsigned int h = 2166136261u; size_t len = strlen(s);\n"
            "  for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 16777619u; }\n"
            "  return h % n;\n}\n")
subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "lib/libskuhash.so", "lib/skuhash.c"], check=True)
if os.environ.get("RETURNS_INIT_MODEL"):
    import torch
    from features import N_FEATURES
    torch.manual_seed(0)
    h = 64
    m = torch.nn.Sequential(torch.nn.Linear(N_FEATURES, h), torch.nn.ReLU(), torch.nn.Linear(h, h), torch.nn.ReLU(),
                            torch.nn.Linear(h, 1))
    os.makedirs("models", exist_ok=True)
    torch.save({"model": m.state_dict(), "epoch": 2}, "models/returns-mlp.pt")
