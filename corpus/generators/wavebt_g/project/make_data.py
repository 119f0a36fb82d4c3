"""Write the demand-forecast export (data/sales.csv: daily unit sales per store and SKU family) and, with an argument,
data/hooks.py, which the training loop calls after every step (the injected faults). Not part of the logs."""
import math
import os
import random
import sys

os.makedirs("data", exist_ok=True)
rnd = random.Random(7)
with open("data/sales.csv", "w") as f:
    f.write("store,region,family,day,units,promo,price\n")
    regions = ["N-1", "N-2", "S-1", "S-2", "E-1", "W-1"]
    for s in range(48):
        region, base = regions[s % len(regions)], 20 + 30 * rnd.random()
        for fam in ("GROCERY", "DAIRY"):
            for d in range(240):
                promo = int(rnd.random() < 0.1)
                price = round(2 + rnd.random(), 2)
                units = base * (1 + 0.3 * math.sin(2 * math.pi * d / 7)) * (1.4 if promo else 1) + rnd.gauss(0, 3)
                f.write(f"{s},{region},{fam},{d},{max(0.0, units):.2f},{promo},{price}\n")

HOOKS = {
    "": "",
    # a store re-mapped to a region code the region table does not have yet (seen by one rank at its step 70)
    "keyerr": "def on_step(rank, step, ctx):\n    if rank == 1 and step == 70:\n"
              "        ctx['region_index'][ctx['remap'].get('S-2', 'S-3')]\n",
    # a buggy native helper dereferencing a NULL pointer on one rank
    "segv": "import ctypes\n\ndef on_step(rank, step, ctx):\n    if rank == 1 and step == 45:\n"
            "        ctypes.string_at(0)\n",
    # the metric all-reduce with one more element on one rank
    "shape": "import torch, torch.distributed as dist\n\ndef on_step(rank, step, ctx):\n    if step % 30 == 0:\n"
             "        m = torch.zeros(3 if rank == 1 else 2)\n        dist.all_reduce(m)\n",
}
hook = sys.argv[1] if len(sys.argv) > 1 else ""
if hook:
    with open("data/hooks.py", "w") as f:
        f.write(HOOKS[hook])
