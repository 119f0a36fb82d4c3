"""Write synthetic check-in logs over a city grid for the next-POI recommender.

data/pois.tsv                 poi_id, row, col, lat, lon, category
data/checkins/part-NN.tsv     user_id, ts (unix seconds, local time), poi_id, lat, lon  (users split over parts)

Users have a home and a work cell; their day follows time-of-day routines (home -> coffee -> work -> lunch near work
-> work -> evening venue -> home), with exploration of nearby venues.
"""
import argparse
import math
import random
from pathlib import Path

CATS = ["home", "coffee", "office", "restaurant", "bar", "gym", "park", "shop", "museum", "station"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--grid", type=int, default=16)
    ap.add_argument("--pois", type=int, default=1000)
    ap.add_argument("--users", type=int, default=800)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--days", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", default="", help="write only this part (a re-export), e.g. part-03")
    ap.add_argument("--iso-time", action="store_true", help="timestamps as ISO 8601 strings")
    ap.add_argument("--travellers", type=int, default=0, help="extra users seen only outside the city area")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    out = Path(a.out)
    (out / "checkins").mkdir(parents=True, exist_ok=True)
    lat0, lon0, step = 52.48, 13.30, 0.012
    pois = []
    for p in range(a.pois):
        r, c = rnd.randrange(a.grid), rnd.randrange(a.grid)
        cat = CATS[p % len(CATS)]
        pois.append((p, r, c, lat0 + (r + rnd.random()) * step, lon0 + (c + rnd.random()) * step, cat))
    if not a.only:
        with open(out / "pois.tsv", "w") as f:
            f.write("poi_id\trow\tcol\tlat\tlon\tcategory\n")
            for p in pois:
                f.write(f"{p[0]}\t{p[1]}\t{p[2]}\t{p[3]:.6f}\t{p[4]:.6f}\t{p[5]}\n")
    by_cat = {k: [p for p in pois if p[5] == k] for k in CATS}

    def near(cat, r, c, radius=2.5):
        cands = [p for p in by_cat[cat] if math.hypot(p[1] - r, p[2] - c) <= radius]
        return rnd.choice(cands or by_cat[cat])

    t0 = 1_767_225_600  # 2026-01-01 00:00 local
    parts = {i: [] for i in range(a.parts)}
    for u in range(a.users):
        part = u % a.parts
        home = rnd.choice(by_cat["home"])
        work = rnd.choice(by_cat["office"])
        fav = {k: near(k, home[1], home[2]) for k in ("coffee", "bar", "gym", "park", "shop")}
        lunch = [near("restaurant", work[1], work[2]) for _ in range(3)]
        rows = []
        for d in range(a.days):
            day = t0 + d * 86400
            weekend = (d % 7) in (5, 6)
            plan = []
            if not weekend:
                plan += [(7.5, home), (8.2, fav["coffee"] if rnd.random() < 0.7 else near("coffee", work[1], work[2])),
                         (9.0, work), (12.3, rnd.choice(lunch)), (13.2, work)]
                ev = rnd.random()
                if ev < 0.35:
                    plan.append((19.0, fav["gym"]))
                elif ev < 0.7:
                    plan.append((20.0, fav["bar"] if rnd.random() < 0.6 else near("bar", work[1], work[2])))
                plan.append((22.5, home))
            else:
                plan += [(10.0, home), (11.0, fav["park"]), (13.5, near("restaurant", home[1], home[2])),
                         (15.0, near(rnd.choice(["museum", "shop"]), home[1], home[2], 4)), (21.0, home)]
            for hour, p in plan:
                if rnd.random() < 0.15:
                    continue
                if rnd.random() < 0.1:
                    p = near(p[5], p[1], p[2], 3)
                ts = int(day + hour * 3600 + rnd.gauss(0, 900))
                rows.append((u, ts, p[0], p[3] + rnd.gauss(0, 1e-4), p[4] + rnd.gauss(0, 1e-4)))
        parts[part].extend(rows)
    for k in range(a.travellers):
        u = a.users + k
        part = int(a.only.split("-")[1]) if a.only else u % a.parts
        for j in range(rnd.randint(3, 8)):  # the airport, 25 km outside the city grid
            p = rnd.choice(by_cat["station"])
            parts[part].append((u, t0 + rnd.randrange(a.days * 86400), p[0], 52.3667 + rnd.gauss(0, 2e-3),
                                13.5033 + rnd.gauss(0, 2e-3) + 0.2))
    import datetime as dt
    for i, rows in parts.items():
        name = f"part-{i:02d}"
        if a.only and name != a.only:
            continue
        rows.sort(key=lambda r: (r[0], r[1]))
        with open(out / "checkins" / f"{name}.tsv", "w") as f:
            f.write("user_id\tts\tpoi_id\tlat\tlon\n")
            for u, ts, p, la, lo in rows:
                t = dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if a.iso_time else ts
                f.write(f"{u}\t{t}\t{p}\t{la:.6f}\t{lo:.6f}\n")


if __name__ == "__main__":
    main()
