"""Measure one or more corpus batches the way a user meets them: ``logsleuth.analyze`` per manifest row, with the
built-in rules and the shipped model (no cross-validation, no retraining).

Prints, per batch: failures named right (top-1 over logs whose label is a cause), healthy logs flagged (label
``no_failure`` answered with anything else), a per-ecosystem line, and every miss as ``file expected -> got``.
This is the figure README's "Fresh batches" table reports for a batch measured blind.

    python corpus/generators/merge_manifest.py --include-sealed    # only for the one blind measurement
    python corpus/measure.py corpus heldout10 [--json out.json]
    python corpus/generators/merge_manifest.py                     # seal it again (or unseal in the fragment)

Rows are selected by the manifest's ``batch`` column (falling back to ``split``).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path)
    ap.add_argument("batches", nargs="+", help="batch names (manifest 'batch' column), e.g. heldout9")
    ap.add_argument("--no-model", action="store_true", help="rules only")
    ap.add_argument("--json", type=Path, help="write every row's answer here")
    args = ap.parse_args(argv)

    import logsleuth
    from logsleuth.rules import load_rules

    rules = load_rules()
    rows = [
        r
        for r in csv.DictReader(open(args.corpus / "manifest.csv", encoding="utf-8"))
        if (r.get("batch") or r.get("split")) in args.batches
    ]
    if not rows:
        print(f"no manifest rows in batches {args.batches} (sealed? merge with --include-sealed)", file=sys.stderr)
        return 2
    out = []
    for r in rows:
        try:
            d = logsleuth.analyze([str(args.corpus / r["file"])], rules=rules, model=not args.no_model)
            got, conf, method = d.root_cause, d.confidence, d.method
        except logsleuth.LogsleuthError as exc:
            got, conf, method = "error", 0.0, str(exc)
        out.append({**r, "got": got, "confidence": conf, "method": method})

    for batch in args.batches:
        mine = [o for o in out if (o.get("batch") or o.get("split")) == batch]
        fails = [o for o in mine if o["label"] != "no_failure"]
        healthy = [o for o in mine if o["label"] == "no_failure"]
        right = sum(o["got"] == o["label"] for o in fails)
        flagged = sum(o["got"] != "no_failure" for o in healthy)
        pct = 100.0 * right / len(fails) if fails else 0.0
        print(f"{batch}: failures {right}/{len(fails)} = {pct:.1f}%  healthy flagged {flagged}/{len(healthy)}")
        eco: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        for o in mine:
            e = eco[o.get("ecosystem") or "unknown"]
            e[1] += 1
            e[0] += o["got"] == o["label"]
        print("  by ecosystem: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(eco.items(), key=lambda x: -x[1][1])))
        for o in mine:
            if o["got"] != o["label"]:
                print(f"  MISS {o['file']}: {o['label']} -> {o['got']} ({o['method']}, {o['confidence']:.2f})")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
