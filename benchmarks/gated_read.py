"""What the proposed fast path would give: ``analyze`` reading through a ``read.LineGate`` (RE2 over whole blocks;
only lines that a rule/context/version/world-size pattern, a warning/error word or a multi-line record start could
concern are decoded and parsed, plus each file's last lines), against ``analyze`` as it is.

It is a measurement for the proposal, not a product path: ``pipeline.iter_lines`` is swapped for a gated reader
inside this process only. It prints MB/s both ways on the given files and which fields of the diagnosis (the
``to_dict`` JSON) differ, job by job, over the corpus and the given archive.

Usage::

    pip install google-re2
    python benchmarks/gated_read.py /tmp/logsleuth-bench/job-big/train.log --archive /tmp/logsleuth-bench
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Words that make a line a warning/error or start a multi-line record for one of logsleuth/parse/*'s recognisers
# (pylog levels and infer_level, NCCL WARN and bare source-location lines, glog/c10d/Ray C++ levels, vLLM/DeepSpeed
# levels, Ray exceptions, elastic summaries, tracebacks). The parse package should own and test this list.
PARSER_GATE = (
    r"WARN", r"ERROR", r"CRITICAL", r"FATAL", r"Error", r"Exception", r"Interrupt", r"Warning", r"Killed", r"Aborted",
    r"Segmentation fault", r"core dumped", r"ray::", r"ray\.exceptions\.", r"torch\.distributed\.elastic",
    r"(?:^|[\]\s:])\[?[WEF]\d{1,4} ", r"\[[WEF] [\w./-]+:\d+\]", r"[WEF] \d+ \d+\]",
    r"\] [\w/.-]+\.(?:cc|c|h|cu|cpp):\d+", r"exitcode", r"Signal ",
)
FACTS_GATE = (r"(?i:version)", r"==", r"(?i:world)", r"nranks", r"clients joined", r"options: size")
BLOCK_STARTS = ("Traceback (most recent call last)", "Root Cause (first observed failure)", "Failures:")
PARSER_GATE += (r"File \"[^\"]+\", line \d+",)  # a traceback printed without its header


def make_gate(rules):
    from logsleuth.read import LineGate

    if rules.prefilter.always:
        raise SystemExit("some rule pattern has no literal factor: no line can be skipped")
    literals = [re.escape(lit) for lit in rules.prefilter.literals]
    return LineGate([*literals, *PARSER_GATE, *FACTS_GATE], BLOCK_STARTS, before=0, after=0, block_after=300,
                    tail=400)


def gated(gate):
    """A context manager swapping pipeline.iter_lines for the gated reader."""
    import contextlib

    import logsleuth.pipeline as pipeline
    from logsleuth.read import iter_lines

    @contextlib.contextmanager
    def cm():
        orig = pipeline.iter_lines
        pipeline.iter_lines = lambda path, stats=None: iter_lines(path, stats, gate)
        try:
            yield
        finally:
            pipeline.iter_lines = orig

    return cm()


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flat(v, key + "."))
        else:
            out[key] = v
    return out


def diff(a, b) -> list[str]:
    from logsleuth.report import to_dict

    fa, fb = _flat(to_dict(a)), _flat(to_dict(b))
    skip = {"stats.seconds", "stats.events"}
    return sorted(k for k in set(fa) | set(fb) if k not in skip and fa.get(k) != fb.get(k))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="large files to time (one job each)")
    ap.add_argument("--archive", type=Path, help="a benchmarks/throughput.py archive: compare every job")
    ap.add_argument("--no-model", action="store_true", help="rules only")
    args = ap.parse_args()
    from collections import Counter

    import logsleuth
    from logsleuth.read import LineGate

    if not LineGate.available():
        raise SystemExit("needs RE2: pip install google-re2")
    rules = logsleuth.load_rules()
    gate = make_gate(rules)
    model = not args.no_model
    for f in args.files:
        t = time.perf_counter()
        full = logsleuth.analyze([f], rules=rules, model=model)
        t_full = time.perf_counter() - t
        with gated(gate):
            t = time.perf_counter()
            fast = logsleuth.analyze([f], rules=rules, model=model)
            t_fast = time.perf_counter() - t
        mb = full.stats["bytes"] / 1e6
        print(f"{f}: {mb:.0f} MB, {full.stats['lines']} lines; analyze {mb / t_full:.2f} MB/s, gated {mb / t_fast:.2f} "
              f"MB/s ({fast.stats['events']} of {full.stats['events']} events parsed); differing fields: "
              f"{diff(full, fast) or 'none'}")
    jobs = []
    with open(ROOT / "corpus" / "manifest.csv", newline="", encoding="utf-8") as fh:
        jobs += [str(ROOT / "corpus" / r["file"]) for r in csv.DictReader(fh) if (ROOT / "corpus" / r["file"]).exists()]
    if args.archive:
        jobs += sorted(str(p) for p in args.archive.iterdir() if p.is_dir())
    fields: Counter[str] = Counter()
    same_cause = 0
    for j in jobs:
        try:
            full = logsleuth.analyze([j], rules=rules, model=model)
            with gated(gate):
                fast = logsleuth.analyze([j], rules=rules, model=model)
        except logsleuth.LogsleuthError:
            continue
        same_cause += (full.root_cause, full.rule_id) == (fast.root_cause, fast.rule_id)
        d = diff(full, fast)
        fields.update(d)
        if d and ("root_cause.id" in d or "first_failure.line" in d):
            print(f"  differs: {j}: {d[:6]}")
    print(f"{len(jobs)} jobs: same root cause and rule in {same_cause}; fields that differ (jobs): "
          f"{dict(fields.most_common()) or 'none'}")


if __name__ == "__main__":
    main()
