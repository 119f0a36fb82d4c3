"""Synthetic hourly electricity load per substation (MW) with daily and weekly seasonality, temperature and holidays.

Writes data/substations.csv (id, kind, capacity_mw, region) and data/load/sub-NN.csv (timestamp, load_mw, temp_c,
holiday). Options describe other exports of the meter data system.
"""
import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

KINDS = ("residential", "commercial", "industrial", "mixed")
REGIONS = ("north", "south", "east", "west")
HOLIDAYS = ("01-01", "05-27", "07-04", "09-02", "11-28", "12-25")


def substation(i: int, start: str, days: int, rng: np.random.Generator, meta: dict) -> pd.DataFrame:
    ts = pd.date_range(start, periods=days * 24, freq="h")
    hour, dow, doy = ts.hour.values, ts.day_of_week.values, ts.day_of_year.values
    holiday = np.isin(ts.strftime("%m-%d"), HOLIDAYS).astype(int)
    season = -np.cos(2 * np.pi * (doy - 15) / 365.25)
    temp = 12 + 11 * season + 6 * np.sin(2 * np.pi * (hour - 9) / 24) + rng.normal(0, 2.5, len(ts)).cumsum() * 0.05
    temp += rng.normal(0, 1.2, len(ts))
    kind = meta["kind"]
    day_shape = {"residential": 0.55 + 0.25 * np.exp(-((hour - 8) / 2.0) ** 2) + 0.45 * np.exp(-((hour - 19) / 2.5) ** 2),
                 "commercial": 0.45 + 0.6 * ((hour >= 8) & (hour <= 18)),
                 "industrial": 0.8 + 0.2 * ((hour >= 6) & (hour <= 22)),
                 "mixed": 0.6 + 0.2 * np.exp(-((hour - 9) / 3.0) ** 2) + 0.3 * np.exp(-((hour - 18) / 3.0) ** 2)}[kind]
    weekend = dow >= 5
    week_shape = np.where(weekend | (holiday == 1), {"residential": 1.08, "commercial": 0.55, "industrial": 0.7,
                                                    "mixed": 0.85}[kind], 1.0)
    hvac = 0.012 * np.maximum(temp - 21, 0) ** 1.5 + 0.008 * np.maximum(14 - temp, 0) ** 1.3
    load = meta["capacity_mw"] * 0.6 * day_shape * week_shape * (1 + hvac) * (1 + rng.normal(0, 0.03, len(ts)))
    return pd.DataFrame({"timestamp": ts.strftime("%Y-%m-%d %H:%M"), "load_mw": load.round(3),
                         "temp_c": temp.round(2), "holiday": holiday})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--substations", type=int, default=24)
    ap.add_argument("--days", type=int, default=150)
    ap.add_argument("--start", default="2024-03-01")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", default="", help="re-export these substations only (comma list of ids)")
    ap.add_argument("--outage-hours", type=int, default=0, help="hours logged as 0 MW (feeder outages)")
    ap.add_argument("--unit", default="MW", choices=["MW", "kW"])
    ap.add_argument("--extra-columns", default="", help="extra meter columns (comma list), e.g. reactive_mvar")
    ap.add_argument("--region", default="", help="override the region of the re-exported substations")
    ap.add_argument("--gap-marker", default="", help="value written for hours the meter did not report")
    ap.add_argument("--gap-hours", type=int, default=0)
    a = ap.parse_args()
    out = Path(a.out)
    (out / "load").mkdir(parents=True, exist_ok=True)
    rng0 = np.random.default_rng(a.seed)
    metas = []
    for i in range(a.substations):
        metas.append({"id": f"sub-{i:02d}", "kind": KINDS[i % 4], "capacity_mw": round(float(rng0.uniform(8, 60)), 1),
                      "region": REGIONS[(i // 4) % 4]})
    only = set(a.only.split(",")) if a.only else None
    if only is None:
        pd.DataFrame(metas).to_csv(out / "substations.csv", index=False)
    for i, meta in enumerate(metas):
        if only is not None and meta["id"] not in only:
            continue
        rng = np.random.default_rng(a.seed * 1000 + i)
        df = substation(i, a.start, a.days, rng, meta)
        if a.outage_hours:
            idx = rng.choice(len(df), a.outage_hours, replace=False)
            df.loc[idx, "load_mw"] = 0.0
        if a.unit == "kW":
            df["load_mw"] = (df["load_mw"] * 1000).round(0)
        for col in filter(None, a.extra_columns.split(",")):
            df[col] = (df["load_mw"] * rng.uniform(0.2, 0.4)).round(3)
        if a.gap_hours:
            idx = rng.choice(len(df), a.gap_hours, replace=False)
            df["load_mw"] = df["load_mw"].astype(object)
            df.loc[idx, "load_mw"] = a.gap_marker
        df.to_csv(out / "load" / f"{meta['id']}.csv", index=False)
    if only is not None and a.region:
        sub = pd.read_csv(out / "substations.csv")
        sub.loc[sub["id"].isin(only), "region"] = a.region
        sub.to_csv(out / "substations.csv", index=False)
    print(json.dumps({"substations": a.substations if only is None else len(only), "days": a.days}))


if __name__ == "__main__":
    main()
