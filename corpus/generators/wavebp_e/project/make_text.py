"""Write the synthetic build-log text the small language model trains on (``data/text.txt``) and, with an argument, the
step hook ``data/hooks.py`` the trainer calls (a fault injected at one step of one rank). Not part of the job log."""
import random
import sys
from pathlib import Path

random.seed(5)
svc = ["api", "auth", "billing", "search", "worker", "cron", "gateway"]
verbs = ["compiled", "linked", "tested", "packaged", "uploaded", "cached", "skipped"]
lines = []
for i in range(40000):
    lines.append(f"[{random.choice(svc)}] target //{random.choice(svc)}:{random.choice(['lib', 'bin', 'test'])} "
                 f"{random.choice(verbs)} in {random.randint(1, 999)}ms ({random.randint(1, 64)} actions)")
Path("data").mkdir(exist_ok=True)
Path("data/text.txt").write_text("\n".join(lines) + "\n")

HOOKS = {
    "segv": "def on_step(rank, step):\n    if rank == 2 and step == 30:\n        import ctypes\n        ctypes.string_at(0)\n",
    "abort": "def on_step(rank, step):\n    if rank == 1 and step == 30:\n        import os\n        os.abort()\n",
    "valerr": "def on_step(rank, step):\n    if rank == 3 and step == 35:\n        int('12ms,')\n",
    "memerr": ("def on_step(rank, step):\n    if rank == 1 and step == 30:\n        import resource\n"
               "        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
               "        buf = [bytearray(512 << 20) for _ in range(8)]\n"),
    "slow": "def on_step(rank, step):\n    if rank == 2 and step == 30:\n        import time\n        time.sleep(120)\n",
}
if len(sys.argv) > 1 and sys.argv[1]:
    Path("data/hooks.py").write_text(HOOKS[sys.argv[1]])
