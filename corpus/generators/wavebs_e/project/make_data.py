"""Write the synthetic customer table the churn classifier trains on (``data/customers.csv``) and, with an argument,
the batch hook ``data/hooks.py`` the trainer's step logger calls (a fault injected at one step of one rank). Not part
of the job log."""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

rows = int(sys.argv[2]) if len(sys.argv) > 2 else 12000
rng = np.random.default_rng(7)
plan = rng.choice(["basic", "standard", "premium", "family"], rows, p=[0.4, 0.3, 0.2, 0.1])
region = rng.choice(["north", "south", "east", "west", "metro"], rows)
contract = rng.choice(["monthly", "annual", "two-year"], rows, p=[0.55, 0.3, 0.15])
payment = rng.choice(["card", "debit", "invoice", "wallet"], rows)
tenure = rng.integers(1, 72, rows)
age = rng.integers(18, 85, rows)
charges = np.round(rng.normal(55, 18, rows).clip(10, 140) + (plan == "premium") * 25, 2)
calls = rng.poisson(1.2, rows)
usage = np.round(rng.gamma(2.0, 8.0, rows), 1)
z = (-1.2 + 1.1 * (contract == "monthly") - 0.03 * tenure + 0.35 * calls + 0.012 * (charges - 55)
     - 0.4 * (plan == "family") + rng.normal(0, 0.8, rows))
churned = (1 / (1 + np.exp(-z)) > rng.random(rows)).astype(int)
df = pd.DataFrame(dict(plan=plan, region=region, contract=contract, payment=payment, tenure_months=tenure, age=age,
                       monthly_charges=charges, support_calls=calls, usage_gb=usage, churned=churned))
df.loc[rng.random(rows) < 0.03, "usage_gb"] = np.nan  # meter gaps: FillMissing adds usage_gb_na
Path("data").mkdir(exist_ok=True)
df.to_csv("data/customers.csv", index=False)

HOOKS = {
    # a lookup in the team's batch audit that misses a plan code on one rank
    "keyerr": ("PRICE = {'basic': 0, 'standard': 1, 'premium': 2}\n"
               "def on_batch(rank, step, cb):\n    if rank == 3 and step == 52:\n"
               "        tier = 'family'\n        return PRICE[tier]\n"),
    "segv": "def on_batch(rank, step, cb):\n    if rank == 2 and step == 52:\n        import ctypes\n        ctypes.string_at(0)\n",
    "abort": "def on_batch(rank, step, cb):\n    if rank == 1 and step == 52:\n        import os\n        os.abort()\n",
    # every rank all-reduces the counts of the plan codes it saw in its batch: the lengths differ between ranks
    "shape": ("import torch\nimport torch.distributed as dist\n"
              "def on_batch(rank, step, cb):\n    if step >= 45 and step % 5 == 0:\n"
              "        seen = torch.unique(cb.xb[0][:, 0])\n        counts = torch.ones(len(seen) + rank % 2)\n"
              "        dist.all_reduce(counts)\n"),
    # rank 3 all-reduces per-code counts over plan and region codes (5x longer) while the others reduce plan codes only
    "shape3": ("import torch\nimport torch.distributed as dist\n"
               "def on_batch(rank, step, cb):\n    if step >= 45 and step % 5 == 0:\n"
               "        counts = torch.ones(4 * (5 if rank == 3 else 1))\n"
               "        dist.all_reduce(counts)\n"),
}
if len(sys.argv) > 1 and sys.argv[1]:
    Path("data/hooks.py").write_text(HOOKS[sys.argv[1]])
