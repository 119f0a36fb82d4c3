"""Write the synthetic click logs the CTR job trains on (not logged): data/clicks-part-0K.pt, 6 shards of 12,000
impressions each (user id, item id, a bag of 1-4 category ids, 8 dense features, clicked 0/1), plus data/meta.json.

usage: make_data.py [FAULT]   FAULT: badid (one impression near the end of shard 4 carries an item id from a newer, larger catalogue),
segv (data/transforms.py, the team's feature transform, crashes in native code on trainer 2's 40th batch),
emptybags (a few hundred impressions without categories: harmless)."""
import json
import sys
from pathlib import Path

import torch

USERS, ITEMS, CATS, ROWS, SHARDS = 20000, 5000, 200, 12000, 6
fault = sys.argv[1] if len(sys.argv) > 1 else ""
out = Path("data")
out.mkdir(exist_ok=True)
g = torch.Generator().manual_seed(7)
user_bias = torch.randn(USERS, generator=g) * 0.8
item_bias = torch.randn(ITEMS, generator=g) * 0.8
cat_w = torch.randn(CATS, generator=g) * 0.5
dense_w = torch.randn(8, generator=g) * 0.4
for k in range(SHARDS):
    users = torch.randint(0, USERS, (ROWS,), generator=g)
    items = torch.randint(0, ITEMS, (ROWS,), generator=g)
    lens = torch.randint(1, 5, (ROWS,), generator=g)
    if fault == "emptybags" and k == 2:
        lens[torch.randint(0, ROWS, (317,), generator=g)] = 0
    cats = torch.randint(0, CATS, (int(lens.sum()),), generator=g)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lens.cumsum(0)[:-1]])
    dense = torch.randn(ROWS, 8, generator=g)
    score = user_bias[users] + item_bias[items] + dense @ dense_w - 0.6
    bag = torch.zeros(ROWS).index_add_(0, torch.repeat_interleave(torch.arange(ROWS), lens), cat_w[cats])
    score = score + bag
    clicked = (torch.rand(ROWS, generator=g) < torch.sigmoid(score)).float()
    if fault == "badid" and k == 4:
        items[11517] = ITEMS + 123  # one impression logged against the newer item catalogue
    torch.save({"users": users, "items": items, "cats": cats, "lens": lens, "dense": dense, "clicked": clicked},
               out / f"clicks-part-{k:02d}.pt")
(out / "meta.json").write_text(json.dumps({"users": USERS, "items": ITEMS, "categories": CATS, "shards": SHARDS,
                                           "rows_per_shard": ROWS, "dense_features": 8}))
if fault == "segv":
    (out / "transforms.py").write_text('''"""Feature transform for the dense columns (log-scaling the counters), fast path through libm."""
import ctypes
import os

import torch

_calls = 0


def transform(dense):
    global _calls
    _calls += 1
    if os.environ.get("RANK") == "2" and _calls == 40:
        ctypes.string_at(0)  # the libm fast path reads a stale buffer pointer
    return torch.sign(dense) * torch.log1p(dense.abs())
''')
