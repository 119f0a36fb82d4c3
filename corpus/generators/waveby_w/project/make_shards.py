"""Write a small sharded tar dataset with webdataset.ShardWriter: 12 shards x 64 samples of 16 float features + label."""
import os
import numpy as np
import webdataset as wds

os.makedirs("shards", exist_ok=True)
rng = np.random.default_rng(0)
w_true = rng.normal(size=16).astype("float32")
with wds.ShardWriter("shards/train-%06d.tar", maxcount=64) as sink:
    for i in range(768):
        x = rng.normal(size=16).astype("float32")
        y = int(x @ w_true > 0)
        sink.write({"__key__": f"s{i:05d}", "x.npy": x, "cls": y})
