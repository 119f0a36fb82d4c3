"""Write the synthetic SQL query log the small language model trains on, and, with an argument, the step hook
``data/hooks.py`` the trainer's callback imports (a fault injected at one step of one rank). Not part of the job log."""
import random
import sys
from pathlib import Path

random.seed(11)
tables = ["orders", "users", "events", "payments", "sessions", "items", "refunds", "clicks"]
cols = ["id", "user_id", "created_at", "amount", "status", "country", "device", "price", "qty"]
ops = ["=", ">", "<", ">=", "<=", "!="]
lines = []
for _ in range(6000):
    t, a, b = random.choice(tables), random.choice(cols), random.choice(cols)
    q = f"SELECT {a}, COUNT(*) FROM {t} WHERE {b} {random.choice(ops)} {random.randint(0, 999)} GROUP BY {a};"
    if random.random() < 0.3:
        q = f"UPDATE {t} SET {a} = {random.randint(0, 99)} WHERE {b} {random.choice(ops)} {random.randint(0, 999)};"
    lines.append(q)
Path("data").mkdir(exist_ok=True)
Path("data/queries.txt").write_text("\n".join(lines) + "\n")

HOOKS = {
    "segv": "def on_step(rank, step, **kw):\n    if rank == 2 and step == 30:\n        import ctypes\n        ctypes.string_at(0)\n",
    "keyerr": "SHARDS = {'us-east': 0, 'eu-west': 1}\n\ndef on_step(rank, step, **kw):\n    if rank == 1 and step == 35:\n        return SHARDS['ap-south']\n",
    "shape": "import torch\nimport torch.distributed as dist\n\ndef on_step(rank, step, **kw):\n    if step == 25:\n        t = torch.ones(16 if rank == 3 else 10)\n        dist.all_reduce(t)\n",
}
if len(sys.argv) > 1 and sys.argv[1]:
    Path("data/hooks.py").write_text(HOOKS[sys.argv[1]])
