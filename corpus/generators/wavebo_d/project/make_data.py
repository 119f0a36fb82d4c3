"""Write the synthetic click log (user id, item id, clicked) the recommender trains on, and, with an argument, the
step hook ``data/hooks.py`` the run imports (a fault injected at one step of one rank). Not part of the job log."""
import sys
from pathlib import Path

import numpy as np

rng = np.random.default_rng(7)
n = 24000
users = rng.integers(0, 500, n)
items = rng.integers(0, 800, n)
affinity = np.sin(users * 0.37) * np.cos(items * 0.11)
clicked = (affinity + rng.normal(0, 0.4, n) > 0.1).astype(np.float32)
Path("data").mkdir(exist_ok=True)
np.savez("data/clicks.npz", users=users, items=items, clicked=clicked)

HOOKS = {
    "segv": "def on_step(rank, step, **kw):\n    if rank == 3 and step == 60:\n        import ctypes\n        ctypes.string_at(0)\n",
    "keyerr": "SEGMENTS = {'new': 0, 'returning': 1}\n\ndef on_step(rank, step, **kw):\n    if rank == 1 and step == 70:\n        return SEGMENTS['dormant']\n",
    "shape": "import torch\nimport torch.distributed as dist\n\ndef on_step(rank, step, **kw):\n    if step == 50:\n        t = torch.ones(12 if rank == 2 else 8)\n        dist.all_reduce(t)\n",
    "mem": "import numpy as np\nHELD = []\n\ndef on_step(rank, step, **kw):\n    if rank == 2 and step >= 40:\n        HELD.append(np.ones(256 * 1024 * 1024 // 8))\n",
    "lr": "def on_step(rank, step, optimizer=None, **kw):\n    if step == 45:\n        for g in optimizer.param_groups:\n            g['lr'] = g['lr'] * 1e7\n",
    "once": "from pathlib import Path\n\ndef on_step(rank, step, root='.', **kw):\n    flag = Path(root) / 'data' / '.seen'\n    if rank == 0 and step == 90 and not flag.exists():\n        flag.write_text('1')\n        raise ConnectionError('feature store read failed: upstream returned 503')\n",
}
if len(sys.argv) > 1 and sys.argv[1]:
    Path("data/hooks.py").write_text(HOOKS[sys.argv[1]])
