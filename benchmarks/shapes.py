"""Benchmark inputs made of real corpus lines: four large log shapes and an archive of small job folders.

Every noise line is a line of a corpus log (``corpus/manifest.csv``) taken from its healthy part (all of a
``no_failure`` log; a failing log up to its first warning/error/traceback line), with its numbers randomised
(times and glog/NCCL headers keep their shape, so they still parse). Each shape ends with one real failing corpus
log, whose label is the cause the benchmark expects:

- ``trainer``: HF Trainer / Lightning progress, loss and tqdm lines -> an HF Trainer rank's IndexError traceback.
- ``ray``: Ray driver output, ``(Actor pid=, ip=)``-prefixed worker lines -> a rollout actor's RayTaskError.
- ``nccl``: ``NCCL_DEBUG=INFO`` init/channel/ring/P2P lines (85 %) among trainer lines -> a watchdog timeout; the
  NCCL lines' own prefixes (host:pid:tid [cudaDev]) are those of one 64-process job (8 nodes x 8 GPUs). Only the
  subsystems NCCL_DEBUG=INFO prints by default: no COLL trace (``_COLL_TRACE``).
- ``torchrun``: a 64-rank ``torchrun --log-dir`` tree (``attempt_0/<local_rank>/{stdout,stderr}.log``) of trainer
  lines, ranks 0-1 ending with a real stalled-rank run's files and its ``error.json``.
- ``small``: ``--small-jobs`` folders, each one single-file corpus job copied as is (cycling through the manifest).

Built under ``<dir>/<key>/`` where ``key`` hashes the corpus (manifest and every file), this file and the sizes:
a corpus change rebuilds, an unchanged corpus reuses. Nothing here is committed.
"""
from __future__ import annotations

import csv
import hashlib
import json
import random
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
MB = 1_000_000
UNIQUE_BYTES = 8 * MB  # distinct randomised material per shape; written in random 1 MB slices of it

# a failing log's healthy part ends at its first line holding one of these
_TROUBLE = re.compile(r"Traceback|Error|Exception|FAILED|Failure|[Tt]imeout|timed out|WARN|ERROR|CRITICAL|FATAL"
                      r"|Killed|Aborted|(?:^|[\]\s:])\[?[WEF]\d{4} |[Ss]ignal|exitcode"
                      r"|\b(?i:nan|inf)\b"  # a NaN/Inf loss is a failure (training_divergence), not noise
                      # a C++ abort, Ray's C++ W/E/F levels, a dead actor, a traceback frame printed without header
                      r"|terminate called|[WEF] \d+ \d+\]|\bdied\b|File \"[^\"]+\", line \d+"
                      # NCCL's return-code trace ("NCCL INFO init.cc:1234 -> 3", NCCLCHECK in src/include/checks.h):
                      # printed only when a call failed, whatever the result code
                      r"|\.(?:cc|cu|h|c|cpp):\d+ -> \d")
# numbers are randomised; times and glog/NCCL headers keep their shape so that they still parse
_NUMBERS = re.compile(r"(\d{4}-\d\d-\d\d[ T_]\d\d:\d\d:\d\d(?:[.,]\d+)?|\d\d:\d\d:\d\d(?:[.,]\d+)?"
                      r"|\b[IWEF]\d{4}\b|\d\d-\d\d(?= \d\d:))|(?<![\w.])(\d+)(?![\w])")
_TRAINER = re.compile(r"(?i)\bloss\b|it/s|s/it|\d+%\||\bepoch\b|\bstep\b|learning_rate|grad_norm|samples_per_second")
_RAY_PREFIX = re.compile(r"^\((?:[\w.:-]+ )?pid=\d+(?:, ip=[\w.:-]+)?\) ")

TAILS = {  # shape -> the real failing log that ends it
    "trainer": "logs/gen-trainer2-hf-forward-indexerror/job.log",
    "ray": "logs/gen-ray-grpo-reward-parse/job.log",
    "nccl": "logs/gh-hiyouga-llamafactory-6269/reduce_scatter_timeout.log",
    "torchrun": "logs/gen-torchrun-logdir-stalled-rank/run1",
}
RANKS = 64


def manifest() -> list[dict[str, str]]:
    with open(CORPUS / "manifest.csv", newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if (CORPUS / r["file"]).exists()]


def corpus_key(*parts: object) -> str:
    """A hash of the corpus (manifest and every file under ``corpus/logs``), this builder's source and ``parts``."""
    h = hashlib.sha256()
    h.update(Path(__file__).read_bytes())
    h.update((CORPUS / "manifest.csv").read_bytes())
    for p in sorted((CORPUS / "logs").rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(CORPUS)).encode() + b"\0" + p.read_bytes())
    h.update(repr(parts).encode())
    return h.hexdigest()[:16]


def _files(entry: str) -> list[Path]:
    p = CORPUS / entry
    return sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".log", ".out", ".err", ".txt")) \
        if p.is_dir() else [p]


def _rule_matcher():  # noqa: ANN202
    """A function telling whether a rule concerns a line (such a line is no healthy noise): one of its regexes
    matches it, or the line parsed alone states a typed fact (rules on facts, e.g. Slurm's oom-kill verdict)."""
    import regex

    from logsleuth import load_rules
    from logsleuth.factlayer import facts_of
    from logsleuth.factlayer.reason import FactStream
    from logsleuth.parse import parse_text

    rules = load_rules()
    # a rule that counts only matches among its file's last lines (``tail_lines``: NCCL's P2P channel lines for a hang
    # in P2P set-up) does not concern a line in the middle of a log: such lines stay noise (NCCL_DEBUG=INFO's channel
    # lines are most of a single-node job's NCCL output)
    pats = [
        regex.compile(p)
        for r in rules.rules
        if r.spec.tail_lines is None
        for p in (*r.spec.match.any, *r.spec.match.all)
    ]

    def matches(line: str) -> bool:
        # any typed fact counts, not only those a rule fires on alone: facts that take several lines to mean something
        # (consecutive overflow skips, reason.OverflowRun) would otherwise be assembled from randomised noise
        if any(p.search(line) for p in pats) or any(facts_of(ev) for ev in parse_text(line)):
            return True
        # nor a line whose repetition is a fact: the noise repeats slices of its pool, and a job's stream of facts reads
        # some lines as events that happen once (Celery's "Task <name>[<id>] received" twice is a redelivered task,
        # reason.CeleryRedelivered)
        stream = FactStream()
        return any(stream.facts(ev, {}) for ev in parse_text(f"{line}\n{line}"))

    return matches


def _fact_records(lines: list[str]) -> set[int]:
    """0-based indexes of ``lines`` inside a multi-line record that states a fact as a whole (a handled traceback:
    its header and frames alone state nothing, its ``Type: message`` line does)."""
    from logsleuth.factlayer import facts_of
    from logsleuth.parse import parse_text

    if not any("Traceback (most recent call last)" in ln for ln in lines):
        return set()
    out: set[int] = set()
    for ev in parse_text("\n".join(lines)):
        if ev.end_line > ev.line and facts_of(ev):
            out.update(range(ev.line - 1, ev.end_line))
    return out


def healthy_lines() -> list[str]:
    """Every line of the corpus logs' healthy parts (see the module docstring) that no rule matches, outside
    tracebacks that state a fact as a whole. A traceback's lines drawn one by one would leave its header and frames
    in the noise without the exception line that ends it, a shape no real log has (and every such header opens a
    record the reader keeps reading for hundreds of lines)."""
    matches = _rule_matcher()
    out: list[str] = []
    for row in manifest():
        for f in _files(row["file"]):
            part: list[str] = []
            for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
                if row["label"] != "no_failure" and _TROUBLE.search(line):
                    break
                part.append(line)
            skip = _fact_records(part)
            out += [ln for i, ln in enumerate(part) if i not in skip and ln.strip() and not matches(ln)]
    return out


# NCCL's COLL trace, one line per collective call per rank: ``INFO(NCCL_COLL, "%s: opCount %lx sendbuff %p ...")`` in
# ``ncclEnqueueCheck`` (src/enqueue.cc). An INFO line is printed only when one of its subsystem flags is in
# NCCL_DEBUG_SUBSYS, whose default is INIT,BOOTSTRAP,ENV (INIT,ENV before; ``ncclDebugMask`` in src/debug.cc), so
# NCCL_DEBUG=INFO alone never prints it. The few corpus logs run with NCCL_DEBUG_SUBSYS=COLL (or ALL) hold so many calls
# that they made a quarter of this shape's lines.
_COLL_TRACE = re.compile(r": opCount [0-9a-f]+ sendbuff ")


def _nccl_info_lines() -> list[str]:
    """NCCL INFO lines of every corpus log (NCCL prints them at init whatever happens later), no trouble words, none
    from a subsystem NCCL_DEBUG=INFO leaves out by default (the COLL trace)."""
    matches = _rule_matcher()
    out = []
    for row in manifest():
        for f in _files(row["file"]):
            out += [ln for ln in f.read_text(encoding="utf-8", errors="replace").splitlines()
                    if "NCCL INFO" in ln and not _COLL_TRACE.search(ln) and not _TROUBLE.search(ln)
                    and not matches(ln)]
    return out


# NCCL's own prefix (``src/debug.cc``: "%s:%d:%d [%d] NCCL ", host, pid, tid, cudaDev)
_NCCL_PREFIX = re.compile(r"[^\s:\[\]()]+:\d+:\d+ \[\d+\](?= NCCL )")
NCCL_HOSTS, NCCL_GPUS = 8, 8  # the ``nccl`` shape's job: 8 nodes of 8 GPUs, one process per GPU


def _job_processes(rnd: random.Random) -> list[str]:
    """NCCL prefixes of one job's processes: ``NCCL_HOSTS`` x ``NCCL_GPUS`` processes (host, pid, cudaDev), each
    printing from three threads (main, proxy, progress), as a real job's NCCL_DEBUG=INFO output does."""
    out = []
    for h in range(NCCL_HOSTS):
        for g in range(NCCL_GPUS):
            pid = rnd.randrange(1000, 400000)
            out += [f"gpu-node-{h:02d}:{pid}:{pid + t} [{g}]" for t in (0, rnd.randrange(50, 900), rnd.randrange(900, 2000))]
    return out


def _randomised(pools: list[tuple[list[str], float]], nbytes: int, rnd: random.Random,
                matches=None, processes: list[str] | None = None) -> bytes:  # noqa: ANN001 - _rule_matcher's function
    """``nbytes`` of lines drawn from ``pools`` (``(lines, share)``), numbers randomised. A line that a rule concerns
    once its numbers are randomised (``matches``: a Megatron ``loss scale: 65536.0`` drawn as ``0.0``, DeepSpeed's
    "OVERFLOW! ... reducing to 32768" drawn as "to 2", a time line moved years) is drawn again: noise stays healthy.
    With ``processes``, an NCCL line's own prefix is one of them (a job has a fixed set of processes; randomised
    hosts and pids would make every line a new process)."""
    def vary(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1)
        n = len(m.group(2))
        return str(rnd.randrange(10 ** (n - 1) if n > 1 else 0, 10 ** n))

    shares = [s for _, s in pools]
    out: list[str] = []
    size = 0
    while size < nbytes:
        lines = rnd.choices(pools, weights=shares)[0][0]
        line = _NUMBERS.sub(vary, rnd.choice(lines))
        if processes:
            line = _NCCL_PREFIX.sub(lambda _m: rnd.choice(processes), line, count=1)
        if matches is not None and matches(line):
            continue
        out.append(line)
        size += len(line.encode()) + 1
    return ("\n".join(out) + "\n").encode()


def _write_noise(f, unique: bytes, nbytes: int, rnd: random.Random) -> None:  # noqa: ANN001 - a binary file
    """``nbytes`` of whole lines: random 1 MB slices of ``unique``."""
    starts = [0] + [m.end() for m in re.finditer(rb"\n", unique)][:-1]
    written = 0
    while written < nbytes:
        s = rnd.choice(starts)
        chunk = unique[s: s + min(MB, nbytes - written)]
        cut = chunk.rfind(b"\n") + 1 or len(chunk)
        f.write(chunk[:cut])
        written += cut


def build(directory: Path, mb: int, small_jobs: int, seed: int = 0) -> dict:
    """Build (or reuse) every input under ``directory/<key>``; returns ``meta`` (paths, expected labels, bytes)."""
    key = corpus_key(mb, small_jobs, seed)
    out = directory / key
    meta_path = out / "meta.json"
    if meta_path.exists():
        return json.loads(meta_path.read_text())
    if directory.exists():  # older builds (another corpus or size) go
        for old in directory.iterdir():
            shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink()
    out.mkdir(parents=True)
    rnd = random.Random(seed)
    labels = {r["file"]: r["label"] for r in manifest()}
    healthy = healthy_lines()
    trainer = [ln for ln in healthy if _TRAINER.search(ln)]
    ray = [ln for ln in healthy if _RAY_PREFIX.match(ln)]
    nccl = _nccl_info_lines()
    pools = {
        "trainer": [(trainer, 0.9), (healthy, 0.1)],
        "ray": [(ray, 0.9), (healthy, 0.1)],
        "nccl": [(nccl, 0.85), (trainer, 0.15)],
        "torchrun": [(trainer, 0.9), (healthy, 0.1)],
    }
    meta: dict = {"key": key, "mb": mb, "shapes": {}, "pool_lines": {k: len(v[0][0]) for k, v in pools.items()}}
    matches = _rule_matcher()
    for shape, pool in pools.items():
        unique = _randomised(pool, UNIQUE_BYTES, rnd, matches, _job_processes(rnd) if shape == "nccl" else None)
        tail = CORPUS / TAILS[shape]
        if shape != "torchrun":
            path = out / f"{shape}.log"
            with open(path, "wb") as f:
                _write_noise(f, unique, mb * MB, rnd)
                f.write(tail.read_bytes())
            size = path.stat().st_size
        else:
            path = out / "torchrun-run"
            real = {p.relative_to(tail): p for p in tail.rglob("*") if p.is_file() and "attempt_0" in p.parts}
            per_file = mb * MB // (2 * RANKS)
            for r in range(RANKS):
                for stream in ("stdout.log", "stderr.log"):
                    rel = Path("attempt_0") / str(r) / stream
                    (path / rel).parent.mkdir(parents=True, exist_ok=True)
                    with open(path / rel, "wb") as f:
                        _write_noise(f, unique, per_file, rnd)
                        if rel in real:
                            f.write(real[rel].read_bytes())
            for rel, p in real.items():  # error.json files
                if not (path / rel).exists():
                    shutil.copyfile(p, path / rel)
            size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        meta["shapes"][shape] = {"path": str(path), "bytes": size, "expected": labels[TAILS[shape]],
                                 "tail": TAILS[shape]}
    # small job folders: one corpus job each, as is
    small = out / "small"
    rows = [r for r in manifest() if r["label"] != "unknown" and (CORPUS / r["file"]).is_file()]
    expected = {}
    for i in range(small_jobs):
        row = rows[i % len(rows)]
        src = CORPUS / row["file"]
        job = small / f"job-{i:05d}"
        job.mkdir(parents=True)
        shutil.copyfile(src, job / src.name)
        expected[str(job)] = row["label"]
    meta["small"] = {"path": str(small), "jobs": small_jobs, "expected": expected,
                     "bytes": sum(p.stat().st_size for p in small.rglob("*") if p.is_file())}
    # a small failing log for the start-up figure: the shortest single-file failing corpus log of 5+ lines
    short = min((r for r in rows if r["label"] != "no_failure"
                 and len((CORPUS / r["file"]).read_bytes().splitlines()) >= 5),
                key=lambda r: (CORPUS / r["file"]).stat().st_size)
    meta["tiny"] = {"path": str(CORPUS / short["file"]), "expected": short["label"],
                    "lines": len((CORPUS / short["file"]).read_text(errors="replace").splitlines())}
    meta_path.write_text(json.dumps(meta, indent=1))
    return meta
