"""Feature building for the load forecaster: calendar, weather, lags and rolling windows per substation."""
import ctypes
from pathlib import Path

import numpy as np
import pandas as pd

KIND_CODES = {"residential": 0, "commercial": 1, "industrial": 2, "mixed": 3}
REGION_CODES = {"north": 0, "south": 1, "east": 2, "west": 3}


def rolling_c(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over `window` hours (excluding the current hour) with the C helper (librolling.so)."""
    lib = ctypes.CDLL(str(Path(__file__).with_name("librolling.so")))
    lib.trailing_mean.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_long, ctypes.c_long,
                                  ctypes.POINTER(ctypes.c_double)]
    x = np.ascontiguousarray(values, dtype=np.float64)
    out = np.empty_like(x)
    lib.trailing_mean(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(x), window,
                      out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
    return out


def build(df: pd.DataFrame, meta: dict, lags, windows, rolling_lib: bool = False, target_unit: str = "MW") -> pd.DataFrame:
    ts = pd.to_datetime(df["timestamp"])
    out = pd.DataFrame({"timestamp": ts})
    out["load_mw"] = df["load_mw"].astype(float) / (1000.0 if target_unit == "kW" else 1.0)
    out["hour"] = ts.dt.hour
    out["dow"] = ts.dt.dayofweek
    out["month"] = ts.dt.month
    out["holiday"] = df["holiday"]
    out["temp_c"] = df["temp_c"]
    out["cooling_dd"] = np.maximum(df["temp_c"] - 21, 0)
    out["heating_dd"] = np.maximum(14 - df["temp_c"], 0)
    out["kind"] = KIND_CODES[meta["kind"]]
    out["region"] = REGION_CODES[meta["region"]]
    out["capacity_mw"] = meta["capacity_mw"]
    for extra in [c for c in df.columns if c not in ("timestamp", "load_mw", "temp_c", "holiday")]:
        out[extra] = df[extra]
    y = out["load_mw"]
    for lag in lags:
        out[f"lag_{lag}h"] = y.shift(lag)
    for w in windows:
        out[f"roll_mean_{w}h"] = rolling_c(y.values, w) if rolling_lib else y.shift(1).rolling(w, min_periods=1).mean()
        out[f"roll_max_{w}h"] = y.shift(1).rolling(w, min_periods=1).max()
    out["substation"] = meta["id"]
    return out
