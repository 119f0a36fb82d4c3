"""Rebuild corpus/manifest.csv from the per-source fragments in corpus/manifest.d/*.csv.

Each generator (torchrun/, ray/) and each batch of public-thread logs keeps its own fragment, so regenerating
one source never touches another's rows. Run: ``python corpus/generators/merge_manifest.py``.
"""
from __future__ import annotations

import csv
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent
FIELDS = ["file", "label", "source", "notes", "split"]
# split: "dev" (the rules were written from these logs) or "heldout" (collected after the rules were frozen, to
# measure how rules and classifier generalise; no rule may be tuned on them). Empty in a fragment means "dev".


def merged_rows() -> list[dict[str, str]]:
    """All fragment rows, one per file (a later fragment wins), sorted by file."""
    rows: dict[str, dict[str, str]] = {}
    for frag in sorted((CORPUS / "manifest.d").glob("*.csv")):
        with open(frag, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                rows[r["file"]] = {k: (r.get(k) or "") for k in FIELDS}
                rows[r["file"]]["split"] = rows[r["file"]]["split"] or "dev"
    return [rows[k] for k in sorted(rows)]


def main() -> None:
    rows = merged_rows()
    with open(CORPUS / "manifest.csv", "w", newline="", encoding="utf-8") as out:
        w = csv.DictWriter(out, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {CORPUS / 'manifest.csv'}")


if __name__ == "__main__":
    main()
