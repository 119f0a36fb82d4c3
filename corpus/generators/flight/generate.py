"""Generate real torchrun/gloo hang jobs, with and without PyTorch Flight Recorder dumps, for the corpus.

Every variant runs the real ``torchrun`` on ``workload.py`` (gloo, CPU) with ``TORCH_FR_BUFFER_SIZE`` set, so torch
records each collective; dumps are written to ``TORCH_FR_DUMP_TEMP_FILE<rank>`` (see workload.py). The job
directory ``corpus/logs/gen-flight-hangs/<scenario>-<variant>/`` gets the console output (``job.log``, what
``torchrun ... 2>&1 | tee job.log`` captures), the dumps under ``fr/`` and, for ``--log-dir`` variants, torchrun's
per-rank tree. Rows go to ``corpus/manifest.d/flight.csv``; each row's notes name the culprit rank.

Usage::

    python corpus/generators/flight/generate.py --all
    python corpus/generators/flight/generate.py --variant stall_pickle_ws3_rank2

A variant whose output lacks its expected signature, or whose dumps are missing/too large, is reported as
MISSING and the generator exits non-zero.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import copy_logdir, fill, read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
MANIFEST = CORPUS / "manifest.d" / "flight.csv"
FRAGMENT_HEADER = ("file", "label", "source", "notes", "split")
SOURCE = "corpus/generators/flight/generate.py"
PY = sys.executable
TORCHRUN = str(Path(PY).with_name("torchrun")) if Path(PY).with_name("torchrun").exists() else "torchrun"
FR_PREFIX = "nccl_trace_rank_"
BUFFER = "40"  # ring-buffer entries per rank: keeps each dump well under 100 KB
MAX_DUMP_BYTES = 100_000


@dataclass
class Variant:
    scenario: str
    name: str
    label: str
    notes: str
    nproc: int
    args: list[str]
    expect: str  # regex the captured output must show
    dumps: int = 0  # how many dump files the job must leave
    silence_kill: float = 0.0  # send SIGTERM to `kill_target` once the output has been silent this long
    kill_after: float = 0.0  # or: send it this many seconds after the start (when the console shows no worker output)
    kill_target: str = "agent"  # agent | group | none (SIGKILL the group without a trace: log copied while running)
    logdir: bool = False
    timeout: float = 90.0
    env: dict[str, str] = field(default_factory=dict)

    @property
    def dir(self) -> str:
        return f"logs/gen-flight-hangs/{self.scenario}-{self.name}"  # one group: one generator, one workload

    @property
    def rel(self) -> str:
        """The manifest entry: the job directory when it holds several files (dumps, --log-dir), else its log."""
        return self.dir if self.dumps or self.logdir else f"{self.dir}/job.log"


def W(*a: str) -> list[str]:
    return list(a)


VARIANTS: list[Variant] = [
    # collective timeouts with dumps: the stalled rank is behind in sequence ids
    Variant("stall", "stall_pickle_ws3_rank2", "collective_timeout",
            "culprit rank 2: stops 60s before step 3's gradient all_reduce (pg timeout 10s); ranks 0,1 time out; pickle dumps",
            3, W("--scenario", "stall", "--fail-rank", "2", "--fail-step", "3", "--fr-format", "pickle"),
            r"Timed out waiting \d+ms", dumps=3),
    Variant("stall", "stall_json_ws3_rank1", "collective_timeout",
            "culprit rank 1: stops 60s at step 4 micro-step 2 (pg timeout 10s); ranks 0,2 time out; JSON dumps only",
            3, W("--scenario", "stall", "--fail-rank", "1", "--fail-step", "4", "--fail-micro", "1", "--fr-format", "json"),
            r"Timed out waiting \d+ms", dumps=3),
    Variant("stall", "stall_both_ws4_rank0", "collective_timeout",
            "culprit rank 0: stops 60s at step 2 (pg timeout 10s); ranks 1-3 time out; pickle and JSON dumps",
            4, W("--scenario", "stall", "--fail-rank", "0", "--fail-step", "2", "--fr-format", "both"),
            r"Timed out waiting \d+ms", dumps=8),
    Variant("subgroup", "pair_stall_ws4_rank2", "collective_timeout",
            "culprit rank 2: new_group([1,2]) pair; rank 2 never reaches the pair's all_reduce at step 3; rank 1 waits in "
            "the pair group, ranks 0,3 in the default group; pickle dumps",
            4, W("--scenario", "subgroup_stall", "--fail-rank", "2", "--fail-step", "3", "--fr-format", "pickle"),
            r"Timed out waiting \d+ms", dumps=4),
    Variant("no-dump", "frozen_rank1_ws3", "collective_timeout",
            "culprit rank 1: its process is frozen (SIGSTOP) at step 3, so it never writes a dump; ranks 0,2 time out and dump",
            3, W("--scenario", "freeze", "--fail-rank", "1", "--fail-step", "3", "--fr-format", "pickle"),
            r"Timed out waiting \d+ms", dumps=2, timeout=120),
    # a rank issues another collective at the same sequence id
    Variant("mismatch", "skip_grad_sync_ws4_rank1", "collective_mismatch",
            "odd rank 1: skips the first layer's gradient all_reduce at step 3, so its next all_reduce meets the others' "
            "larger one; gloo aborts rank 1 (EnforceNotMet, SIGABRT) before it can dump; ranks 0,2,3 dump on SIGTERM",
            4, W("--scenario", "skip", "--fail-rank", "1", "--fail-step", "3", "--fr-format", "pickle"),
            r"Is there a distributed collective mismatch", dumps=3),
    Variant("mismatch", "broadcast_vs_allreduce_ws3_rank2", "collective_mismatch",
            "odd rank 2: calls broadcast where the others call all_reduce at step 2; JSON dumps only",
            3, W("--scenario", "op", "--fail-rank", "2", "--fail-step", "2", "--fr-format", "json"),
            r"collective failed on rank", dumps=3),
    Variant("mismatch", "short_bucket_size_ws4_rank2", "collective_mismatch",
            "odd rank 2: all_reduces a gradient bucket cut short (4 elements) at step 3 where the others reduce the "
            "whole layer; gloo aborts rank 2 (EnforceNotMet) before it can dump; the others dump on SIGTERM; JSON dumps",
            4, W("--scenario", "size", "--fail-rank", "2", "--fail-step", "3", "--fr-format", "json"),
            r"Is there a distributed collective mismatch", dumps=3),
    # silent hangs: no watchdog (pg timeout 600s), the job is killed from outside or still running
    Variant("silent", "sigterm_ws3_rank2", "silent_hang",
            "silent-first rank 2: stops before step 3 (pg timeout 600s, no dumps); the others block in all_reduce; "
            "SIGTERM to torchrun after 15s without output, as a watchdog script or `timeout` would",
            3, W("--scenario", "stall", "--fail-rank", "2", "--fail-step", "3", "--pg-timeout", "600",
                 "--stall-seconds", "600", "--fr-format", "none"),
            r"SIGTERM", silence_kill=15),
    Variant("silent", "sigterm_ws4_rank1_micro", "silent_hang",
            "silent-first rank 1: prints micro-step 1 of step 5 then stops (pg timeout 600s); the others finish their "
            "micro-steps and block; SIGTERM to torchrun after 15s without output",
            4, W("--scenario", "stall", "--fail-rank", "1", "--fail-step", "5", "--fail-micro", "1", "--pg-timeout",
                 "600", "--stall-seconds", "600", "--fr-format", "none", "--accum", "3"),
            r"SIGTERM", silence_kill=15),
    Variant("silent", "group_sigterm_ws2_rank0", "silent_hang",
            "silent-first rank 0: stops before step 4 (pg timeout 600s); SIGTERM to the whole process group after 15s "
            "without output, as scancel does",
            2, W("--scenario", "stall", "--fail-rank", "0", "--fail-step", "4", "--pg-timeout", "600",
                 "--stall-seconds", "600", "--fr-format", "none"),
            r"SIGTERM|death signal", silence_kill=15, kill_target="group"),
    Variant("silent", "logdir_ws3_rank0", "silent_hang",
            "silent-first rank 0: torchrun --log-dir --redirects 3 (per-rank files); rank 0 stops before step 3 (pg "
            "timeout 600s); SIGTERM to torchrun after 15s without output",
            3, W("--scenario", "stall", "--fail-rank", "0", "--fail-step", "3", "--pg-timeout", "600",
                 "--stall-seconds", "600", "--fr-format", "none"),
            r"SIGTERM", kill_after=25, logdir=True),
    Variant("silent", "still_running_ws3_rank1", "silent_hang",
            "silent-first rank 1: stops at step 3 micro-step 2 (pg timeout 600s); the log is copied after 15s without "
            "output while the job still runs (then it is killed without a trace)",
            3, W("--scenario", "stall", "--fail-rank", "1", "--fail-step", "3", "--fail-micro", "1", "--pg-timeout",
                 "600", "--stall-seconds", "600", "--fr-format", "none"),
            r"step 3 micro 2/2", silence_kill=15, kill_target="none"),
]


def run_variant(v: Variant, port: int) -> tuple[bytes, Path]:
    """Run one variant in a fresh temp dir; return (captured console output, job dir)."""
    job = Path(tempfile.mkdtemp(prefix="flight-job-"))
    shutil.copy(HERE / "workload.py", job / "train.py")
    (job / "fr").mkdir()
    cmd = [TORCHRUN, "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--nnodes", "1",
           "--nproc-per-node", str(v.nproc)]
    if v.logdir:
        cmd += ["--log-dir", "{logdir}", "--redirects", "3"]
    cmd += ["train.py", *v.args]
    cmd = fill(cmd, {"logdir": str(job / "logs")})
    env = {k: val for k, val in os.environ.items()
           if k not in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "TORCH_DISTRIBUTED_DEBUG")}
    env.update({"OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "TORCH_FR_BUFFER_SIZE": BUFFER,
                "TORCH_FR_DUMP_TEMP_FILE": str(job / "fr" / FR_PREFIX), **v.env})
    proc = subprocess.Popen(cmd, cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    chunks: list[bytes] = []
    last_output = [time.monotonic()]

    def reader() -> None:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            chunks.append(line)
            last_output[0] = time.monotonic()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    start = time.monotonic()
    deadline = start + v.timeout
    fired = False
    snapshot: bytes | None = None
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
        now = time.monotonic()
        due = (v.silence_kill and now - last_output[0] >= v.silence_kill) or (v.kill_after and now - start >= v.kill_after)
        if due and not fired:
            fired = True
            if v.kill_target == "agent":
                os.kill(proc.pid, signal.SIGTERM)
            elif v.kill_target == "group":
                os.killpg(proc.pid, signal.SIGTERM)
            else:  # the log as it is while the job still runs; then end the job without adding to the copy
                snapshot = b"".join(chunks)
                os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        print(f"  !! {v.name}: wall-clock limit {v.timeout}s hit, process group killed", file=sys.stderr)
    proc.wait()
    t.join(timeout=5)
    try:  # a frozen (SIGSTOPped) rank left behind by torchrun
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return (snapshot if snapshot is not None else b"".join(chunks)), job


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        for v in VARIANTS:
            print(f"{v.scenario:10} {v.name:36} {v.label}")
        return 0
    chosen = VARIANTS if args.all else [v for v in VARIANTS if v.name in set(args.variant)]
    if not chosen:
        ap.error("give --all or --variant NAME (see --list)")
    rows = read_fragment(MANIFEST)
    bad = []
    for v in chosen:
        port = 29900 + VARIANTS.index(v)
        t0 = time.monotonic()
        out, job = run_variant(v, port)
        dest = CORPUS / v.dir
        if v.logdir:
            copy_logdir(job, dest, out)
            (dest / "console.log").rename(dest / "job.log")
        else:
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            (dest / "job.log").write_bytes(out)
        dumps = sorted((job / "fr").iterdir())
        if dumps:
            (dest / "fr").mkdir()
            for d in dumps:
                shutil.copy(d, dest / "fr" / d.name)
        shutil.rmtree(job, ignore_errors=True)
        text = "\n".join(p.read_text("utf-8", "replace") for p in sorted(dest.rglob("*.log")))
        ok = bool(re.search(v.expect, text)) and len(dumps) == v.dumps and all(
            d.stat().st_size < MAX_DUMP_BYTES for d in (dest / "fr").glob("*"))
        print(f"{'ok     ' if ok else 'MISSING'} {v.rel:58} {v.label:20} dumps={len(dumps)} "
              f"{time.monotonic() - t0:5.1f}s", flush=True)
        if ok:
            rows[v.rel] = [v.rel, v.label, SOURCE, v.notes, "dev"]
        else:
            bad.append(v.rel)
            rows.pop(v.rel, None)
    write_fragment(MANIFEST, rows, FRAGMENT_HEADER)
    if bad:
        print(f"{len(bad)} variant(s) failed their checks: {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
