"""Per-shard feature engineering and the gamma-GLM gradient, run in the pool workers."""
import numpy as np

USE_RISK = {"private": 1.0, "commute": 1.15, "business": 1.35}
_CACHE = {}


def encode_shard(shard, scale):
    """Feature engineering for one shard of raw claim rows (runs in the worker)."""
    X = np.column_stack([
        (shard.age.values - 45) / 15,
        (shard.vehicle_age.values - 10) / 6,
        np.log(shard.sum_insured.values) - 9.8 if scale else shard.sum_insured.values / 1e4,
        shard.annual_mileage.values / 1e4 if scale else shard.annual_mileage.values / 1e3,
        [USE_RISK[u] for u in shard.vehicle_use],
        shard.report_delay_days.values / 10,
        shard.witness.values, shard.police_report.values, shard.prior_claims.values,
        (shard.claim_type.values == "theft"), (shard.claim_type.values == "fire"),
        (shard.claim_type.values == "glass"), (shard.claim_type.values == "collision"),
        np.ones(len(shard)),
    ]).astype(np.float64)
    return X, shard.amount.values.astype(np.float64)


def shard_grad(shard, w, scale, cache):
    """Gamma deviance gradient with log link: mean over the shard of (1 - y/mu) * x."""
    key = (id(shard), hash(w.tobytes()))
    if cache:
        if key not in _CACHE:
            _CACHE[key] = encode_shard(shard, scale)
        X, y = _CACHE[key]
    else:
        X, y = encode_shard(shard, scale)
    mu = np.exp(X @ w)
    r = 1 - y / mu
    dev = 2 * np.mean(y / mu - np.log(y / mu) - 1)
    return X.T @ r / len(y), dev, len(y)
