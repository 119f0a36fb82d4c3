"""Throughput of ``logsleuth analyze`` and ``logsleuth scan`` on a synthetic archive built from the corpus, against
``grep -E -c -f <all rule patterns>`` on the same bytes.

The archive is what real ones look like: many jobs (one directory each), mostly healthy INFO noise, with the
failure somewhere inside. The noise lines are real lines from the corpus logs (``corpus/manifest.csv``): all of the
healthy logs and, of the failing ones, the part before their first warning or error; only lines that the parser
calls ``info``/``debug`` and that no rule, context pattern or version pattern matches are kept (re-checked after
their numbers are randomised); 90 % of them progress lines (step/epoch/loss/lr/throughput), 10 % set-up chatter, as in a long
run; each job is ``--job-mb`` of that noise followed by one labelled corpus log, so every job's
expected root cause is the corpus label (the benchmark prints how many the scan got right). One extra job holds
one large file (``--big-mb``) for the single-file ``analyze`` figure.

Printed, in one run: analyze MB/s on the large file (one process, one core); scan MB/s with 1 and with all
cores; the peak RSS of any one process (and of the whole process tree) of each; and grep's MB/s. MB = 10**6 bytes.

Usage::

    python benchmarks/throughput.py                 # 1 GB archive under /tmp/logsleuth-bench (built once, reused)
    python benchmarks/throughput.py --size-mb 128   # smaller and quicker
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
MB = 1_000_000
ARCHIVE_VERSION = 5


# ------------------------------------------------------------------------------------------------ archive

def _corpus_entries() -> list[tuple[Path, str]]:
    with open(CORPUS / "manifest.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [(CORPUS / r["file"], r["label"]) for r in rows if (CORPUS / r["file"]).is_file()]


def _quiet_line_checker():
    """A function telling whether a line is healthy noise: info/debug, no rule/context/version match."""
    from logsleuth import load_rules
    from logsleuth.facts import find_versions
    from logsleuth.parse import parse_text

    rules = load_rules()

    def quiet(line: str) -> bool:
        evs = parse_text(line)
        if len(evs) != 1 or evs[0].level not in ("info", "debug") or evs[0].source == "elastic":
            return False
        hits: set[int] = set()
        rules.context_hits(evs[0].text, hits)
        versions: dict[str, str] = {}
        find_versions(evs[0].text, versions)
        return not hits and not versions and not rules.match_event(evs[0])

    return quiet


_PROGRESS = re.compile(r"(?i)\b(?:step|epoch|iter(?:ation)?|loss|lr|it/s|s/it|samples/s|tokens/s|throughput)\b")
PROGRESS_SHARE = 0.9
_TROUBLE = re.compile(r"Traceback|Error|Exception|FAILED|Failure|[Tt]imeout|timed out")


def build_noise(target_bytes: int, seed: int = 0) -> bytes:
    """``target_bytes`` of healthy INFO lines drawn from the corpus (numbers randomised, every line re-checked)."""
    from logsleuth.parse import parse
    from logsleuth.read import iter_lines

    quiet = _quiet_line_checker()
    pool: list[str] = []
    for path, label in _corpus_entries():
        for ev in parse(iter_lines(str(path)), str(path)):
            if label != "no_failure" and (ev.level in ("warning", "error", "fatal") or _TROUBLE.search(ev.text)):
                break  # a failing job's healthy part ends where its trouble starts
            if ev.line == ev.end_line and "\n" not in ev.text and ev.text.strip() and quiet(ev.text):
                pool.append(ev.text)
    steps = [line for line in pool if _PROGRESS.search(line)]
    if not pool or not steps:
        raise SystemExit("no healthy lines found in the corpus")
    rnd = random.Random(seed)
    # numbers are randomised; times and glog/NCCL headers keep their shape so that they still parse
    numbers = re.compile(r"(\d{4}-\d\d-\d\d[ T_]\d\d:\d\d:\d\d(?:[.,]\d+)?|\d\d:\d\d:\d\d(?:[.,]\d+)?"
                         r"|\b[IWEF]\d{4}\b|\d\d-\d\d(?= \d\d:))|(?<![\w.])(\d+)(?![\w])")

    def vary(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1)
        n = len(m.group(2))
        return str(rnd.randrange(10 ** (n - 1) if n > 1 else 0, 10 ** n))

    out: list[str] = []
    size = 0
    while size < target_bytes:
        # a long job prints mostly progress (steps, losses, throughput); set-up chatter is the rest
        line = numbers.sub(vary, rnd.choice(steps if rnd.random() < PROGRESS_SHARE else pool))
        if quiet(line):
            out.append(line)
            size += len(line.encode()) + 1
    return ("\n".join(out) + "\n").encode()


def _noise_slice(noise: bytes, starts: list[int], rnd: random.Random, n: int) -> bytes:
    """About ``n`` bytes of whole noise lines starting at a random line, wrapping around."""
    parts = []
    got = 0
    while got < n:
        s = rnd.choice(starts)
        chunk = noise[s: s + (n - got)]
        cut = chunk.rfind(b"\n") + 1 or len(chunk)
        parts.append(chunk[:cut])
        got += cut
    return b"".join(parts)


def build_archive(directory: Path, size_mb: int, job_mb: float, big_mb: int, seed: int = 0) -> dict:
    """Write the archive (``job-NNNNN/<corpus file name>`` + ``job-big/train.log``) and ``labels.json``."""
    meta_path = directory / "labels.json"
    want = {"version": ARCHIVE_VERSION, "size_mb": size_mb, "job_mb": job_mb, "big_mb": big_mb, "seed": seed}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("params") == want:
            return meta
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    t0 = time.perf_counter()
    noise = build_noise(8 * MB, seed)
    starts = [0] + [m.end() for m in re.finditer(rb"\n", noise)][:-1]
    rnd = random.Random(seed)
    entries = [(p, label) for p, label in _corpus_entries() if label not in ("unknown",)]
    labels: dict[str, str] = {}
    failing = next((p, label) for p, label in entries if label == "cuda_oom")
    big = directory / "job-big" / "train.log"
    big.parent.mkdir()
    with open(big, "wb") as f:
        for _ in range(big_mb):
            f.write(_noise_slice(noise, starts, rnd, MB))
        f.write(failing[0].read_bytes())
    labels[str(big.parent)] = failing[1]
    total = big.stat().st_size
    i = 0
    while total < size_mb * MB:
        src, label = entries[i % len(entries)]
        job = directory / f"job-{i:05d}"
        job.mkdir()
        body = _noise_slice(noise, starts, rnd, int(job_mb * MB * rnd.uniform(0.5, 1.5)))
        data = body + src.read_bytes()
        (job / src.name).write_bytes(data)
        labels[str(job)] = label
        total += len(data)
        i += 1
    meta = {"params": want, "labels": labels, "bytes": total, "jobs": len(labels), "big": str(big),
            "build_seconds": round(time.perf_counter() - t0, 1)}
    meta_path.write_text(json.dumps(meta, indent=1))
    return meta


# ------------------------------------------------------------------------------------------------ measuring

class PeakRSS:
    """Samples the RSS of a process and its descendants every 50 ms (psutil): max of one process, max of the sum."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.one = 0
        self.tree = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                procs = [self.proc, *self.proc.children(recursive=True)]
                rss = []
                for p in procs:
                    try:
                        rss.append(p.memory_info().rss)
                    except psutil.Error:
                        pass
                if rss:
                    self.one = max(self.one, max(rss))
                    self.tree = max(self.tree, sum(rss))
            except psutil.Error:
                pass
            self._stop.wait(0.05)

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


def run_child(code: str) -> dict:
    """Run ``code`` in a fresh Python; it prints one JSON object last. Adds wall seconds and peak RSS (MB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=str(ROOT), env=dict(os.environ, CI="true"))
    rss = PeakRSS(proc.pid)
    out, err = proc.communicate()
    rss.stop()
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed ({proc.returncode}):\n{err[-3000:]}")
    res = json.loads(out.strip().splitlines()[-1])
    res.update(wall=time.perf_counter() - t0, rss_one_mb=rss.one / 2**20, rss_tree_mb=rss.tree / 2**20)
    return res


ANALYZE = """
import json, time, logsleuth
rules = logsleuth.load_rules()
t = time.perf_counter()
d = logsleuth.analyze([{path!r}], rules=rules, model={model})
print(json.dumps({{"seconds": time.perf_counter() - t, "bytes": d.stats["bytes"], "lines": d.stats["lines"],
                  "root_cause": d.root_cause}}))
"""

SCAN = """
import json, time, logsleuth
rules = logsleuth.load_rules()
t = time.perf_counter()
df = logsleuth.scan([{path!r}], jobs={jobs}, rules=rules, model={model})
labels = json.load(open({labels!r}))["labels"]
right = sum(labels.get(j) == rc for j, rc in zip(df["job"], df["root_cause"].astype(object)))
print(json.dumps({{"seconds": time.perf_counter() - t, "bytes": int(df["bytes"].sum()), "jobs": len(df),
                  "right": right, "errors": int(df["error"].notna().sum())}}))
"""


def ere(pattern: str) -> str | None:
    """A rule regex in POSIX ERE for ``grep -E`` (named/non-capturing groups, \\d); None when it cannot be."""
    if re.search(r"\(\?[=!<]|\\[1-9]|\(\?>|[*+?}]\+|\(\?\w*-", pattern):
        return None  # lookarounds, backreferences, atomic groups, possessive quantifiers
    p = re.sub(r"\(\?P<\w+>", "(", pattern)
    p = p.replace("(?:", "(").replace(r"\d", "[0-9]")
    p = re.sub(r"\(\?i:", "(", p)  # case-insensitive groups: grep -E has no inline flags (kept case-sensitive)
    p = re.sub(r"([*+?}])\?", r"\1", p)  # lazy quantifiers: same set of matching lines
    return p


def grep_baseline(archive: Path, patterns: list[str]) -> dict:
    usable = [e for e in (ere(p) for p in patterns) if e is not None]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(usable) + "\n")
        pat_file = f.name
    try:
        t0 = time.perf_counter()
        proc = subprocess.run(["grep", "-E", "-c", "-r", "-f", pat_file, str(archive)], capture_output=True, text=True,
                              env=dict(os.environ, LC_ALL="C"))
        seconds = time.perf_counter() - t0
    finally:
        os.unlink(pat_file)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"grep failed: {proc.stderr[-2000:]}")
    hits = sum(int(line.rsplit(":", 1)[1]) for line in proc.stdout.splitlines() if ":" in line)
    return {"seconds": seconds, "patterns": len(usable), "of": len(patterns), "matching_lines": hits}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=1000, help="archive size in MB (10**6 bytes); default 1000")
    ap.add_argument("--job-mb", type=float, default=8.0, help="average noise per job in MB (default 8)")
    ap.add_argument("--big-mb", type=int, default=None, help="size of the single large file (default: size/8, 16..128)")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "logsleuth-bench",
                    help="where the archive is built (reused when its parameters match)")
    ap.add_argument("--jobs", type=int, default=None, help="'all cores' worker count (default: all CPUs)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here as JSON")
    ap.add_argument("--no-model", action="store_true", help="rules only (the classifier is not loaded)")
    args = ap.parse_args()
    big_mb = args.big_mb or max(16, min(128, args.size_mb // 8))
    cores = args.jobs or len(os.sched_getaffinity(0))

    print(f"building/reusing a {args.size_mb} MB archive in {args.dir} ...", file=sys.stderr)
    meta = build_archive(args.dir, args.size_mb, args.job_mb, big_mb)
    archive_mb = meta["bytes"] / MB
    print(f"archive: {meta['jobs']} jobs, {archive_mb:.0f} MB (large file {big_mb} MB)", file=sys.stderr)

    sys.path.insert(0, str(ROOT))
    from logsleuth import load_rules

    rules = load_rules()
    patterns = [p for r in rules.rules for p in (*r.spec.match.any, *r.spec.match.all)]

    results: dict[str, dict] = {}
    print("analyze, one large file ...", file=sys.stderr)
    results["analyze"] = run_child(ANALYZE.format(path=meta["big"], model=not args.no_model))
    for name, jobs in (("scan_1", 1), (f"scan_{cores}", cores)):
        print(f"scan, {jobs} worker(s) ...", file=sys.stderr)
        results[name] = run_child(SCAN.format(path=str(args.dir), jobs=jobs, labels=str(args.dir / "labels.json"),
                                              model=not args.no_model))
    print("grep -E -c -f <rule patterns> ...", file=sys.stderr)
    results["grep"] = grep_baseline(args.dir, patterns)

    def mbps(r: dict, nbytes: float) -> float:
        return nbytes / MB / r["seconds"]

    a = results["analyze"]
    s1, sn, g = results["scan_1"], results[f"scan_{cores}"], results["grep"]
    speedup = s1["seconds"] / sn["seconds"]
    print()
    print(f"logsleuth throughput on {os.uname().nodename} ({cores} cores, load average {os.getloadavg()[0]:.1f} at the "
          f"end), archive {archive_mb:.0f} MB, {meta['jobs']} jobs, {len(rules)} rules, "
          f"classifier {'off' if args.no_model else 'on'}")
    print(f"{'what':42} {'MB/s':>9} {'seconds':>9} {'peak RSS one/all MB':>20}")
    rows = [
        (f"analyze, one {a['bytes'] / MB:.0f} MB file, 1 core", mbps(a, a["bytes"]), a["seconds"], a),
        ("scan, 1 core", mbps(s1, s1["bytes"]), s1["seconds"], s1),
        (f"scan, {cores} cores", mbps(sn, sn["bytes"]), sn["seconds"], sn),
    ]
    for label, rate, secs, r in rows:
        print(f"{label:42} {rate:9.2f} {secs:9.1f} {r['rss_one_mb']:9.0f} /{r['rss_tree_mb']:6.0f}")
    print(f"{'grep -E -c -f (' + str(g['patterns']) + '/' + str(g['of']) + ' patterns), LC_ALL=C':42} "
          f"{archive_mb / g['seconds']:9.2f} {g['seconds']:9.1f}")
    print(f"scan speed-up 1 -> {cores} cores: {speedup:.2f}x (linear: {cores}x; {cores / speedup:.2f}x off linear)")
    print(f"scan diagnoses matching the corpus label: {sn['right']}/{sn['jobs']} jobs ({sn['errors']} errors)")
    if args.json:
        args.json.write_text(json.dumps({"archive": {k: meta[k] for k in ("bytes", "jobs")}, "cores": cores,
                                         **results}, indent=1))


if __name__ == "__main__":
    main()
