"""Synthetic keystroke-dynamics exports, one CSV per organisation plus the server's validation users.

Every user types the shared passphrase ``.tie5Roanl`` + Return many times; each repetition gives hold times
(H.<key>), keydown-keydown latencies (DD.<a>.<b>) and keyup-keydown latencies (UD.<a>.<b>), in seconds, as the
enrolment tool exports them. A user's rhythm is a personal profile (per-key hold times and per-digraph latencies)
plus log-normal session noise, so repetitions of one user are closer to each other than to other users'.
"""
from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

KEYS = ["period", "t", "i", "e", "five", "Shift.r", "o", "a", "n", "l", "Return"]


def header(keys=KEYS) -> list[str]:
    cols = ["subject", "sessionIndex", "rep"]
    for i, k in enumerate(keys):
        cols.append(f"H.{k}")
        if i + 1 < len(keys):
            cols += [f"DD.{k}.{keys[i + 1]}", f"UD.{k}.{keys[i + 1]}"]
    return cols


def user_rows(rng, subject: str, reps: int, unit: float = 1.0) -> list[list]:
    n = len(KEYS)
    hold = rng.uniform(0.06, 0.14, n)
    gap = rng.uniform(0.05, 0.35, n - 1)
    rows = []
    for r in range(reps):
        session, rep = r // 10 + 1, r % 10 + 1
        h = hold * rng.lognormal(0, 0.12, n)
        g = gap * rng.lognormal(0, 0.18, n - 1)
        row = [subject, session, rep]
        for i in range(n):
            row.append(round(h[i] * unit, 4))
            if i + 1 < n:
                dd = h[i] + g[i] - 0.04
                row += [round(dd * unit, 4), round((dd - h[i]) * unit, 4)]
        rows.append(row)
    return rows


def write(path: Path, rows, cols) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--orgs", type=int, default=4)
    ap.add_argument("--users", type=int, default=12, help="users per organisation")
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--only", default="", help="re-export only this organisation (e.g. org-3)")
    ap.add_argument("--unit", choices=["s", "ms"], default="s")
    ap.add_argument("--users-override", type=int, default=0)
    ap.add_argument("--blank-every", type=int, default=0, help="leave a cell empty every N rows (export glitch)")
    ap.add_argument("--blank-as", default="", help="what the export tool writes for a missing timing")
    ap.add_argument("--return-name", default="Return")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    unit = 1000.0 if a.unit == "ms" else 1.0
    for o in range(1, a.orgs + 1):
        name = f"org-{o}"
        if a.only and a.only != name:
            continue
        rng = np.random.default_rng(a.seed * 100 + o)
        rows = []
        for u in range(a.users_override or a.users):
            rows += user_rows(rng, f"{name}-s{u:03d}", a.reps, unit)
        if a.blank_every:
            for i in range(a.blank_every - 1, len(rows), a.blank_every):
                rows[i][3 + (i % 31)] = a.blank_as
        keys = KEYS[:-1] + [a.return_name]
        write(out / f"{name}.csv", rows, header(keys))
    if not a.only:
        rng = np.random.default_rng(a.seed)
        rows = []
        for u in range(16):
            rows += user_rows(rng, f"val-s{u:03d}", 20)
        write(out / "validation.csv", rows, header())


if __name__ == "__main__":
    main()
