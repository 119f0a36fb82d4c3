"""Feature engineering shared by training and scoring."""
import ctypes
import os

import numpy as np

CATS = ["apparel", "shoes", "home", "toys", "garden", "electronics"]
N_BUCKETS = 16
_lib = None


def _skuhash():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(os.path.join(os.getcwd(), "lib", "libskuhash.so"))
        _lib.sku_bucket.argtypes = [ctypes.c_char_p, ctypes.c_uint]
        _lib.sku_bucket.restype = ctypes.c_uint
    return _lib


def featurize(batch: dict) -> dict:
    lib = _skuhash()
    price = np.asarray(batch["price"], dtype=np.float32)
    qty = np.asarray(batch["qty"], dtype=np.float32)
    days = np.asarray(batch["days_to_ship"], dtype=np.float32)
    disc = np.asarray(batch["discount"], dtype=np.float32)
    cat = np.zeros((len(price), len(CATS)), dtype=np.float32)
    for i, c in enumerate(batch["category"]):
        cat[i, CATS.index(c)] = 1.0
    bucket = np.zeros((len(price), N_BUCKETS), dtype=np.float32)
    for i, s in enumerate(batch["sku"]):
        sb = s.encode() if s is not None else None
        bucket[i, lib.sku_bucket(sb, N_BUCKETS)] = 1.0
    x = np.concatenate([np.log1p(price)[:, None], qty[:, None] / 6, days[:, None] / 30, disc[:, None], cat, bucket],
                       axis=1)
    return {"x": x, "y": np.asarray(batch["returned"], dtype=np.float32)}


N_FEATURES = 4 + len(CATS) + N_BUCKETS
