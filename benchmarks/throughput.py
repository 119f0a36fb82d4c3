"""Throughput of ``logsleuth analyze`` and ``logsleuth scan`` on real-looking logs, against ``grep -E`` and ripgrep
with the rules' patterns on the same files, in the same run.

Inputs (``benchmarks/shapes.py``, built once under ``--dir`` and rebuilt when the corpus changes): four shapes of
``--mb`` MB each (trainer-heavy, Ray driver output, NCCL_DEBUG=INFO heavy, a 64-rank torchrun ``--log-dir`` tree),
each ending with a real failing corpus log, and ``--small-jobs`` small job folders.

Printed per shape: ``logsleuth analyze`` (the CLI, ``-f json``, a fresh process, start-up included) MB/s and peak
RSS, the same MB/s past start-up (the wall time of ``analyze`` on a one-line log taken off: what a user with
gigabytes of logs sees) with its ratio to grep, ``grep -E -c -f <patterns>`` (``LC_ALL=C``) and ``rg --no-unicode -c -j1 -f <patterns>`` MB/s and logsleuth's ratio to each,
and whether the expected root cause came out. The grep patterns are the rule regexes in ERE matching the same lines
(``ere``): those that cannot be (lookarounds, backreferences, inline flags, patterns over several lines) are left
out, and a repeat wider than ``WIDE_REPEAT`` (``[^\\n]{0,200}``, ``.{0,400}``) is relaxed to ``{m,}``, a superset of
the lines: GNU grep's DFA expands ``x{0,N}`` into N copies of ``x``, and with a few such repeats unanchored among the
other patterns its states overflow the transition cache, which it then rebuilds again and again (grep ran at ~1 MB/s
on three shapes, so the ratio to grep said nothing). The header line says how many patterns each tool runs and how
many were relaxed. Then: ``analyze`` wall time on a small failing log (median of 5), and
``scan`` of the small jobs with 1 and 2 worker processes (jobs/s, speed-up, right causes). ripgrep's column is
left out when ``rg`` is not installed. MB = 10**6 bytes; one core per measured process.

Usage::

    python benchmarks/throughput.py                     # 300 MB per shape, 2,000 small jobs
    python benchmarks/throughput.py --mb 30 --small-jobs 300 --only trainer,nccl   # quick, while developing
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import shapes  # noqa: E402 - the sibling module, also when run as a script

ROOT = shapes.ROOT
MB = shapes.MB
SHAPES = ("trainer", "ray", "nccl", "torchrun")


CODE = ROOT  # the logsleuth checkout measured (``--code``); the inputs always come from this checkout's corpus


def run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Run ``cmd``; ``(wall seconds, peak RSS MB of that process, result)`` (RSS from ``wait4``'s rusage; a scan's
    worker processes are not included)."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=fo, stderr=fe, cwd=str(CODE),
                                env=dict(os.environ, CI="true", PYTHONPATH=str(CODE), **(env or {})))
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode(errors="replace"), fe.read().decode(errors="replace")
    return wall, usage.ru_maxrss / 1024, subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def rule_patterns() -> list[str]:
    from logsleuth import load_rules

    rules = load_rules()
    return [p for r in rules.rules for p in (*r.spec.match.any, *r.spec.match.all)]


# gnulib dfa.c rebuilds its transition tables past MAX_TRCOUNT (1024) states: see the module docstring
WIDE_REPEAT = 32
_BOUNDED = re.compile(r"\{(\d*),(\d+)\}")
_BRACKET_ESCAPES = {"d": "0-9", "w": "[:alnum:]_", "s": "[:space:]", "n": ""}


def _ere_bracket(body: str) -> str | None:
    """The inside of a regex bracket expression (``^`` kept) as ERE, where a backslash is no escape and a literal
    ``]`` must come first; None when it has no ERE form."""
    negated = body.startswith("^")
    out, close, i = [], False, int(negated)
    while i < len(body):
        c, e = body[i], body[i + 1:i + 2]
        if c == "\\" and e:
            if e in "DWSx":
                return None  # "anything but" inside a bracket; a byte by its code (grep -E has no escapes there)
            close |= e == "]"
            out.append("" if e == "]" else _BRACKET_ESCAPES.get(e, e))
            i += 2
        else:
            close |= c == "]"
            out.append("" if c == "]" else c)
            i += 1
    return "^" * negated + "]" * close + "".join(out)


def ere(pattern: str) -> str | None:
    """A rule regex in POSIX ERE for ``grep -E`` that matches the same lines (a superset where a wide repeat is
    relaxed, see WIDE_REPEAT); None when it cannot be: lookarounds, backreferences, atomic groups, possessive
    quantifiers, inline flags, or a newline outside a bracket (a pattern over several lines)."""
    if re.search(r"\(\?[=!<]|\\[1-9]|\(\?>|[*+?}]\+|\(\?\w*-|\(\?[a-z]*[is][a-z]*\)", pattern):
        return None
    p = _fold_case(pattern.removeprefix("(?m)"))  # grep's ^ and $ are line anchors already
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "[":
            j = i + 1 + (p[i + 1:i + 2] == "^")
            j += p[j:j + 1] == "]"
            while j < len(p) and p[j] != "]":
                j += 1 + (p[j] == "\\")
            body = _ere_bracket(p[i + 1:j])
            if body is None:
                return None
            out.append("." if body == "^" else f"[{body}]")
            i = j + 1
        elif c == "\\" and p[i + 1:i + 2] == "n":
            return None
        elif c == "\\" and p[i + 1:i + 2] == "d":
            out.append("[0-9]")
            i += 2
        elif c == "\\":
            out.append(p[i:i + 2])
            i += 2
        else:
            out.append(c)
            i += 1
    p = "".join(out)
    p = re.sub(r"\(\?P<\w+>", "(", p)
    p = p.replace("(?:", "(")
    p = re.sub(r"([*+?}])\?", r"\1", p)  # lazy quantifiers: same set of matching lines
    return _BOUNDED.sub(lambda m: f"{{{m.group(1) or 0},}}" if _wide_repeat(m.group(0)) else m.group(0), p)


def _fold_case(pattern: str) -> str:
    """``(?i:...)`` groups (grep -E has no inline flags) spelt out: each letter outside a bracket as ``[xX]``."""
    while (start := pattern.find("(?i:")) >= 0:
        out, depth, bracket, i = ["("], 1, False, start + 4
        while depth:
            c = pattern[i]
            if c == "\\" or pattern.startswith("(?P<", i):  # an escape, or a group's name: as is
                end = i + 2 if c == "\\" else pattern.index(">", i) + 1
                out.append(pattern[i:end])
                depth += c == "("
                i = end
                continue
            if bracket:
                bracket = c != "]"
            else:
                bracket = c == "["
                depth += (c == "(") - (c == ")")
            out.append(f"[{c.lower()}{c.upper()}]" if c.isascii() and c.isalpha() and not bracket else c)
            i += 1
        pattern = pattern[:start] + "".join(out) + pattern[i:]
    return pattern


def _wide_repeat(pattern: str) -> bool:
    """Whether ``pattern`` holds a bounded repeat whose upper bound is over WIDE_REPEAT."""
    return any(int(hi) > WIDE_REPEAT for _lo, hi in _BOUNDED.findall(pattern))


def rg_pattern(pattern: str) -> str | None:
    """A rule regex for ripgrep (Rust regex: no lookarounds or backreferences); None when it cannot be."""
    if re.search(r"\(\?[=!<]|\\[1-9]|\(\?>|[*+?}]\+|\\n|\\s", pattern):
        return None  # no lookarounds/backreferences; rg refuses patterns that could match a newline
    return re.sub(r"\(\?P<\w+>", "(", pattern)  # rg joins the patterns into one: names would clash


def baseline(tool: str, pat_file: str, path: str) -> float:
    """Seconds ``grep -E``/``rg`` takes to count matching lines of ``path`` (a file or a tree), one thread."""
    if tool == "grep":
        cmd = ["grep", "-E", "-c", "-r", "-f", pat_file, path]
    else:
        cmd = ["rg", "--no-config", "--no-unicode", "-c", "-j1", "-f", pat_file, path]  # bytes, as grep with LC_ALL=C
    wall, _rss, res = run(cmd, env={"LC_ALL": "C"})
    if res.returncode not in (0, 1):
        raise SystemExit(f"{tool} failed: {res.stderr[-2000:]}")
    return wall


def analyze(path: str) -> dict:
    wall, rss, res = run([sys.executable, "-m", "logsleuth", "analyze", path, "-f", "json"])
    if res.returncode not in (0, 1):
        return {"wall": wall, "rss": rss, "root_cause": f"exit {res.returncode}: {res.stderr.strip()[-200:]}"}
    return {"wall": wall, "rss": rss, "root_cause": json.loads(res.stdout)["root_cause"]["id"]}


SCAN = """
import json, os, resource, sys, time, logsleuth
def cpu():
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))
load, c, t = os.getloadavg()[0], cpu(), time.perf_counter()
df = logsleuth.scan([{path!r}], jobs={jobs})
seconds, cpu_s = time.perf_counter() - t, cpu() - c
expected = json.load(open({meta!r}))["small"]["expected"]
right = sum(expected.get(j) == rc for j, rc in zip(df["job"], df["root_cause"].astype(object)))
print(json.dumps({{"seconds": seconds, "cpu": cpu_s, "load": [load, os.getloadavg()[0]], "jobs": len(df),
                  "right": right, "errors": int(df["error"].notna().sum())}}))
"""


def scan(path: str, jobs: int, meta_file: str) -> dict:
    wall, rss, res = run([sys.executable, "-c", SCAN.format(path=path, jobs=jobs, meta=meta_file)])
    if res.returncode != 0:
        raise SystemExit(f"scan failed: {res.stderr[-3000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out.update(wall=wall, rss=rss)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=300, help="MB (10**6 bytes) per shape; default 300")
    ap.add_argument("--small-jobs", type=int, default=2000, help="small job folders for the scan figure")
    ap.add_argument("--only", default=",".join(SHAPES), help="comma-separated shapes to measure")
    ap.add_argument("--skip-scan", action="store_true", help="leave out the small-log and scan figures")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "logsleuth-bench-shapes",
                    help="where the inputs are built (reused while the corpus is unchanged)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here as JSON")
    ap.add_argument("--code", type=Path, default=ROOT,
                    help="the logsleuth checkout to measure (e.g. a worktree of an older commit), same inputs")
    args = ap.parse_args()
    global CODE
    CODE = args.code.resolve()

    print(f"building/reusing inputs in {args.dir} ...", file=sys.stderr)
    t0 = time.perf_counter()
    meta = shapes.build(args.dir, args.mb, args.small_jobs)
    print(f"inputs ready ({time.perf_counter() - t0:.0f} s): {meta['key']}", file=sys.stderr)
    meta_file = str(args.dir / meta["key"] / "meta.json")
    have_rg = shutil.which("rg") is not None
    patterns = rule_patterns()
    results: dict = {"mb": args.mb, "shapes": {}, "rg": have_rg}
    with tempfile.TemporaryDirectory() as tmp:
        grep_file, rg_file = os.path.join(tmp, "grep.txt"), os.path.join(tmp, "rg.txt")
        grep_pats = [e for e in map(ere, patterns) if e is not None]
        rg_pats = [e for e in map(rg_pattern, patterns) if e is not None]
        Path(grep_file).write_text("\n".join(grep_pats) + "\n")
        Path(rg_file).write_text("\n".join(rg_pats) + "\n")
        relaxed = sum(1 for p in patterns if ere(p) is not None and _wide_repeat(p))
        results["patterns"] = {"rules": len(patterns), "grep": len(grep_pats), "rg": len(rg_pats),
                               "grep_relaxed": relaxed}
        # the fixed cost every ``analyze`` pays before its first line (interpreter, imports, rule and gate caches,
        # the shipped model): a one-line log, median of 3, in the same environment as the shapes. The shapes' MB/s
        # include it, as a user's one run does; "past start-up" leaves it out, as a user with gigabytes sees it
        one = os.path.join(tmp, "one.log")
        Path(one).write_text("starting\n")
        analyze(one)
        results["startup"] = statistics.median(analyze(one)["wall"] for _ in range(3))
        for shape in args.only.split(","):
            s = meta["shapes"][shape]
            print(f"{shape}: analyze ...", file=sys.stderr)
            a = analyze(s["path"])
            g = baseline("grep", grep_file, s["path"])
            r = baseline("rg", rg_file, s["path"]) if have_rg else None
            results["shapes"][shape] = {"bytes": s["bytes"], "expected": s["expected"], **a, "grep": g, "rg": r}
    if not args.skip_scan:
        tiny = meta["tiny"]
        # start-up as a user's second run sees it: bytecode compiled (an installed package has it; this
        # environment may set PYTHONDONTWRITEBYTECODE) and logsleuth's caches warm (rules, templates, gates)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        analyze(tiny["path"])
        walls = []
        for _ in range(5):
            a = analyze(tiny["path"])
            walls.append(a["wall"])
        results["tiny"] = {"lines": tiny["lines"], "median": statistics.median(walls), "walls": walls,
                           "right": a["root_cause"] == tiny["expected"]}
        for jobs in (1, 2):
            print(f"scan of {meta['small']['jobs']} small jobs, {jobs} process(es) ...", file=sys.stderr)
            results[f"scan_{jobs}"] = scan(meta["small"]["path"], jobs, meta_file)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def report(res: dict) -> None:
    print(f"\nlogsleuth {res['mb']} MB per shape, patterns: {res['patterns']['rules']} rule regexes "
          f"({res['patterns']['grep']} expressible for grep -E, {res['patterns'].get('grep_relaxed', 0)} of them "
          f"with a wide repeat relaxed, {res['patterns']['rg']} for rg); "
          f"load average {os.getloadavg()[0]:.1f}")
    start = res.get("startup", 0.0)
    print(f"analyze start-up (a one-line log, median of 3): {start:.2f} s wall; 'past' columns leave it out")
    print(f"{'shape':10} {'MB':>6} {'MB/s':>7} {'RSS MB':>7} {'grep MB/s':>10} {'ratio':>6} {'rg MB/s':>8} "
          f"{'ratio':>6} {'past MB/s':>9} {'ratio':>6}  cause")
    for shape, r in res["shapes"].items():
        mb = r["bytes"] / MB
        rate = mb / r["wall"]
        grep_rate = mb / r["grep"]
        rg = f"{mb / r['rg']:8.0f} {rate / (mb / r['rg']):6.3f}" if r["rg"] else f"{'-':>8} {'-':>6}"
        ok = "right" if r["root_cause"] == r["expected"] else f"WRONG ({r['root_cause']}, want {r['expected']})"
        past = mb / max(r["wall"] - start, 1e-3)
        print(f"{shape:10} {mb:6.0f} {rate:7.2f} {r['rss']:7.0f} {grep_rate:10.0f} {rate / grep_rate:6.3f} {rg} "
              f"{past:9.2f} {past / grep_rate:6.3f}  {ok}")
    if "tiny" in res:
        t = res["tiny"]
        print(f"analyze, a {t['lines']}-line failing log: {t['median']:.2f} s wall (median of 5), "
              f"cause {'right' if t['right'] else 'WRONG'}")
        s1, s2 = res["scan_1"], res["scan_2"]
        print(f"scan, {s1['jobs']} small jobs: 1 process {s1['jobs'] / s1['seconds']:.1f} jobs/s "
              f"(peak RSS {s1['rss']:.0f} MB), 2 processes {s2['jobs'] / s2['seconds']:.1f} jobs/s, speed-up "
              f"{s1['seconds'] / s2['seconds']:.2f}x; right causes {s2['right']}/{s2['jobs']}, errors {s2['errors']}")
        # on a shared machine the wall-time ratio says as much about the neighbours as about the scan: CPU seconds
        # (all processes of the scan) and the load average around each run tell them apart
        print("  CPU s (1 / 2 processes): {:.2f} / {:.2f}; load average 1: {:.1f}->{:.1f}, 2: {:.1f}->{:.1f}".format(
            s1["cpu"], s2["cpu"], *s1["load"], *s2["load"]))


if __name__ == "__main__":
    main()
