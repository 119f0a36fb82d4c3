"""Per-partition feature engineering for the churn model (shipped to the workers with Client.upload_file)."""
import ctypes
import os

import numpy as np

_LIB = None


def _planhash():
    global _LIB
    if _LIB is None:
        _LIB = ctypes.CDLL(os.path.abspath("libplanhash.so"))
        _LIB.ph_bucket.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_long, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_int32)]
    return _LIB


def add_features(df, regions, nbuckets):
    out = df.copy()
    out["charge_per_month_tenure"] = df["monthly_charges"] / (df["tenure_months"] + 1)
    out["calls_per_gb"] = df["support_calls"] / (df["data_usage_gb"] + 0.1)
    out["is_monthly"] = (df["contract"] == "monthly").astype("int8")
    out["is_two_year"] = (df["contract"] == "two_year").astype("int8")
    out["region_idx"] = np.array([regions[r] for r in df["region"]], dtype="int16")
    vals = df["plan_code"].to_numpy(dtype=object, na_value=None)
    codes = (ctypes.c_char_p * len(vals))(*[v and v.encode() for v in vals])
    bucket = np.zeros(len(vals), dtype=np.int32)
    _planhash().ph_bucket(codes, len(vals), nbuckets, bucket.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)))
    out["plan_bucket"] = bucket
    return out.drop(columns=["contract", "region", "plan_code"])
