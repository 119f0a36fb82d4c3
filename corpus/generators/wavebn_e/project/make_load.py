"""Synthetic hourly feeder-load export (data/load.csv) for the day-ahead forecaster; optional step hook (data/hooks.py)."""
import math
import os
import random
import sys

random.seed(5)
os.makedirs("data", exist_ok=True)
with open("data/load.csv", "w") as f:
    f.write("feeder,hour,temp_c,load_mw\n")
    for feeder in range(24):
        base = 3 + feeder % 5
        for h in range(24 * 120):
            temp = 12 + 10 * math.sin(2 * math.pi * (h % 24 - 9) / 24) + random.gauss(0, 2)
            load = base * (1 + 0.35 * math.sin(2 * math.pi * (h % 24 - 7) / 24)) + 0.05 * max(temp - 18, 0) ** 2
            f.write(f"{feeder},{h},{temp:.2f},{load + random.gauss(0, 0.1):.3f}\n")
HOOKS = {
    "segv": "def on_step(step, rank):\n    if step == 120 and rank == 3:\n        import ctypes\n        ctypes.string_at(0)\n",
    "typeerr": "def on_step(step, rank):\n    if step == 130 and rank == 2:\n        return sum(['feeder', 3])\n",
    "abort": "def on_step(step, rank):\n    if step == 110 and rank == 1:\n        import os\n        os.abort()\n",
}
for a in sys.argv[1:]:
    if a in HOOKS:
        open("data/hooks.py", "w").write(HOOKS[a])
