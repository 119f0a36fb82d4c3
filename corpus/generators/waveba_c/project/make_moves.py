"""Writes the terminal operating system's crane-move export: raw/crane_moves.csv (one row per container move: vessel
call, crane, bay/row/tier, container weight, twin lift, hour, wind, the move time in seconds). Options reproduce
what the export gets wrong."""
import argparse
import csv
import os
import random

CRANES = [f"QC{n:02d}" for n in range(1, 9)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--moves", type=int, default=400, help="moves per vessel call")
    ap.add_argument("--bad-times", type=int, default=0, help="rows whose move time the TOS exports as '--'")
    ap.add_argument("--rename", default="", help="old:new column name")
    ap.add_argument("--stuck-sensor", default="", help="crane whose spreader sensor reports move time 1e39 (float overflow)")
    ap.add_argument("--new-crane", action="store_true", help="a crane commissioned on the last call: one move")
    ap.add_argument("--berth-loop", action="store_true", help="two vessel calls naming each other as previous call")
    a = ap.parse_args()
    rnd = random.Random(5)
    os.makedirs("raw", exist_ok=True)
    cols = ["call_id", "prev_call", "crane", "bay", "row", "tier", "weight_t", "twin", "hour", "wind_ms", "move_s"]
    if a.rename:
        old, new = a.rename.split(":")
        cols = [new if c == old else c for c in cols]
    rows = []
    speed = {c: rnd.uniform(0.85, 1.2) for c in CRANES}
    for k in range(a.calls):
        call = f"V{2600 + k}"
        prev = f"V{2600 + k - 1}" if k else ""
        wind = rnd.uniform(1, 14)
        for m in range(a.moves):
            crane = rnd.choice(CRANES)
            bay, row, tier = rnd.randint(1, 40), rnd.randint(0, 18), rnd.randint(1, 9)
            w = round(rnd.uniform(2, 32), 1)
            twin = int(rnd.random() < 0.2)
            hour = rnd.randint(0, 23)
            t = speed[crane] * (55 + 1.4 * row + 2.5 * abs(tier - 5) + 0.4 * w + 12 * twin + 1.8 * max(wind - 8, 0)
                                + (6 if hour < 6 else 0)) + rnd.gauss(0, 6)
            if a.stuck_sensor == crane and k == a.calls - 1:
                t = 1e39
            rows.append([call, prev, crane, bay, row, tier, w, twin, hour, round(wind, 1),
                         "inf" if t >= 1e39 else round(t, 1)])
    if a.new_crane:
        rows.append([f"V{2600 + a.calls - 1}", f"V{2600 + a.calls - 2}", "QC09", 12, 4, 3, 14.0, 0, 10, 5.0, 71.3])
    if a.berth_loop:
        for r in rows:
            if r[0] == "V2610":
                r[1] = "V2611"
    for i in rnd.sample(range(len(rows)), a.bad_times):
        rows[i][-1] = "--"
    with open("raw/crane_moves.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(cols)
        wr.writerows(rows)
    print(f"wrote {len(rows)} moves")


if __name__ == "__main__":
    main()
