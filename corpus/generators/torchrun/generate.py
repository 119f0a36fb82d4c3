"""Generate real torchrun / torch.distributed (gloo, CPU) logs for the logsleuth corpus.

Every variant runs the real launcher (``torchrun`` or ``python -m torch.distributed.run``), or
the training script by hand with the env:// variables where the scenario needs processes that
torchrun cannot produce. The combined stdout+stderr is captured exactly as
``torchrun ... 2>&1 | tee job.log`` would capture it and written to
``corpus/logs/gen-torchrun-<scenario>/<variant>/job.log``; ``--log-dir`` variants also copy the
per-rank tree torchrun wrote. Rows go to ``corpus/manifest.d/torchrun.csv``.

Usage::

    python corpus/generators/torchrun/generate.py --all
    python corpus/generators/torchrun/generate.py --scenario rank-raises
    python corpus/generators/torchrun/generate.py --list

Each variant carries the regex of the failure signature it must show; a run whose log does
not show it is reported as MISSING (and exits non-zero) instead of being silently kept.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
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

CORPUS = HERE.parents[1]  # .../corpus
LOGS = CORPUS / "logs"
MANIFEST = CORPUS / "manifest.d" / "torchrun.csv"
FRAGMENT_HEADER = ("file", "label", "source", "notes")
SOURCE = "corpus/generators/torchrun/generate.py"
WORKLOAD = HERE / "workload.py"
PY = sys.executable
TORCHRUN = str(Path(PY).with_name("torchrun")) if Path(PY).with_name("torchrun").exists() else "torchrun"
BASE_PORT = 29700


@dataclass
class Signal:
    """Send ``sig`` to ``target`` once ``after`` (a regex) shows up in the output.

    target: ``agent`` (the launcher process), ``group`` (the launcher's whole process group,
    as a terminal hangup or ``scancel`` does) or ``rank:N`` (the worker whose
    ``starting worker pid=`` line names rank N).
    """

    sig: int
    after: str | None  # None: fire ``delay`` seconds after the start instead
    target: str = "agent"
    delay: float = 0.0


@dataclass
class Side:
    """A process started next to the logged one (another 'node' or rank); output discarded."""

    cmd: list[str]
    env: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Variant:
    scenario: str
    name: str
    label: str
    notes: str
    cmd: list[str]
    expect: str
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    busy_port: bool = False
    signal: Signal | None = None
    side: list[Side] = field(default_factory=list)
    wrap_small_shm: str = ""  # tmpfs size for a private /dev/shm (needs root + unshare)
    logdir: bool = False  # the variant passes --log-dir {logdir}; copy the tree

    @property
    def group(self) -> str:
        return f"gen-torchrun-logdir-{self.scenario}" if self.logdir else f"gen-torchrun-{self.scenario}"

    @property
    def rel(self) -> str:
        # one directory per job (what ``logsleuth scan --group-by dir`` expects); the group dir keeps one source together
        return f"logs/{self.group}/{self.name}" + ("" if self.logdir else "/job.log")


def T(*args: str) -> list[str]:
    return [TORCHRUN, *args]


def M(*args: str) -> list[str]:
    return [PY, "-m", "torch.distributed.run", *args]


def by_hand(rank: int, world: int, port: str = "{port}") -> dict[str, str]:
    return {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "WORLD_SIZE": str(world),
            "RANK": str(rank), "LOCAL_RANK": str(rank)}


DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
TRAIN = "{train}"
STANDALONE = ["--standalone"]

VARIANTS: list[Variant] = [
    # 1. healthy runs ------------------------------------------------------------------
    Variant("healthy", "ws2_standalone", "no_failure",
            "torchrun --standalone, 2 workers, 24 steps, OMP_NUM_THREADS unset (torchrun prints its warning), finishes normally",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--steps", "24"),
            env={"OMP_NUM_THREADS": ""}, expect=r"training finished in"),
    Variant("healthy", "ws4_debug_detail", "no_failure",
            "4 workers with TORCH_DISTRIBUTED_DEBUG=DETAIL and LOGLEVEL=INFO launcher logging, finishes normally",
            T(*STANDALONE, "--nproc-per-node", "4", TRAIN, "--steps", "12"),
            env={**DETAIL, "LOGLEVEL": "INFO"}, expect=r"training finished in"),
    Variant("healthy", "ws2_static_tee_loader", "no_failure",
            "static rendezvous (--master-port), --tee 3 prefixes, DataLoader num_workers=2; finishes normally",
            T("--nnodes", "1", "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", "{port}",
              "--tee", "3", TRAIN, "--steps", "16", "--num-workers", "2"),
            expect=r"\[default0\]:.*training finished in"),
    Variant("healthy", "ws3_c10d_prefix", "no_failure",
            "python -m torch.distributed.run, c10d rendezvous, TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE + --tee 3; finishes",
            M("--nnodes", "1", "--nproc-per-node", "3", "--rdzv-backend", "c10d", "--rdzv-endpoint",
              "127.0.0.1:{port}", "--rdzv-id", "exp-0412", "--tee", "3", TRAIN, "--steps", "12"),
            env={"TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": "[${rank}]:"},
            expect=r"\[0\]:.*training finished in"),
    # 2. one rank raises in user code ---------------------------------------------------------
    Variant("rank-raises", "ws2_rank1_valueerror", "worker_exception",
            "rank 1 raises ValueError at step 3 while rank 0 waits in all_reduce; rank 0 sees gloo 'Connection closed by peer'",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "exception", "--exc", "ValueError",
              "--fail-rank", "1", "--fail-step", "3"),
            expect=r"ValueError: Expected a non-empty batch"),
    Variant("rank-raises", "ws4_rank2_indexerror_tee", "worker_exception",
            "4 workers with --tee 3, OMP_NUM_THREADS unset; rank 2 raises IndexError at step 2, the others hit gloo connection errors",
            T(*STANDALONE, "--nproc-per-node", "4", "--tee", "3", TRAIN, "--scenario", "exception", "--exc",
              "IndexError", "--fail-rank", "2", "--fail-step", "2"),
            env={"OMP_NUM_THREADS": ""}, expect=r"IndexError: list index out of range"),
    Variant("rank-raises", "ws2_rank0_keyerror_record", "worker_exception",
            "rank 0 raises KeyError at step 4 under @record, so the elastic summary carries error_file and the traceback",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "exception",
              "--exc", "KeyError", "--fail-rank", "0", "--fail-step", "4", "--record-errors"),
            expect=r"KeyError: 'label_smoothing_target'"),
    Variant("rank-raises", "ws4_rank3_assert_detail", "worker_exception",
            "4 workers, TORCH_DISTRIBUTED_DEBUG=DETAIL; rank 3 fails an assert at step 5",
            T(*STANDALONE, "--nproc-per-node", "4", TRAIN, "--scenario", "exception", "--exc", "AssertionError",
              "--fail-rank", "3", "--fail-step", "5"),
            env=DETAIL, expect=r"AssertionError: sequence length"),
    Variant("rank-raises", "run1", "worker_exception",
            "torchrun --log-dir --redirects 3, 3 workers, @record; rank 1 raises IndexError at step 3; per-rank files + error.json + console.log",
            T(*STANDALONE, "--nproc-per-node", "3", "--log-dir", "{logdir}", "--redirects", "3", TRAIN,
              "--scenario", "exception", "--exc", "IndexError", "--fail-rank", "1", "--fail-step", "3",
              "--record-errors"),
            expect=r"IndexError", logdir=True),
    # 3. workers that never arrive ------------------------------------------------------------
    Variant("missing-workers", "env_store_2_of_3", "rendezvous_timeout",
            "by hand: WORLD_SIZE=3 but only ranks 0 and 1 started (python + env://, 8s timeout); log is rank 0 (store master)",
            [PY, TRAIN, "--pg-timeout", "8"], env=by_hand(0, 3),
            side=[Side([PY, TRAIN, "--pg-timeout", "8"], by_hand(1, 3), delay=1.0)],
            expect=r"Timed out after \d+ seconds waiting for clients\. 2/3 clients joined"),
    Variant("missing-workers", "static_nnodes2_only_node0", "rendezvous_timeout",
            "torchrun static rendezvous --nnodes 2 --node-rank 0, node 1 never started, --rdzv-conf timeout=10",
            T("--nnodes", "2", "--node-rank", "0", "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
              "--master-port", "{port}", "--rdzv-conf", "timeout=10", TRAIN),
            expect=r"waiting for clients\. 1/2 clients joined"),
    Variant("missing-workers", "c10d_nnodes2_only_one", "rendezvous_timeout",
            "torchrun --nnodes 2 --rdzv-backend c10d, only one node started, join_timeout=10, LOGLEVEL=INFO",
            T("--nnodes", "2", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
              "127.0.0.1:{port}", "--rdzv-id", "job-5521", "--rdzv-conf", "join_timeout=10", TRAIN),
            env={"LOGLEVEL": "INFO"}, expect=r"RendezvousTimeoutError"),
    Variant("missing-workers", "env_rank1_no_master", "rendezvous_timeout",
            "by hand: rank 1 of 2 with MASTER_PORT where nothing listens (rank 0 never started), 8s timeout",
            [PY, TRAIN, "--pg-timeout", "8"], env=by_hand(1, 2),
            expect=r"client socket has timed out after \d+ms while trying to connect"),
    Variant("missing-workers", "static_node1_no_master", "rendezvous_timeout",
            "torchrun --nnodes 2 --node-rank 1 pointing at a master that never started, --rdzv-conf timeout=10",
            T("--nnodes", "2", "--node-rank", "1", "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
              "--master-port", "{port}", "--rdzv-conf", "timeout=10", TRAIN),
            expect=r"client socket has timed out after \d+ms while trying to connect"),
    # 4. collective never completes -----------------------------------------------------------
    Variant("stalled-rank", "ws2_rank1_sleeps", "collective_timeout",
            "rank 1 blocks 25s at step 3 (pg timeout 10s) while rank 0 waits in all_reduce",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "stall", "--fail-rank", "1",
              "--fail-step", "3", "--pg-timeout", "10", "--stall-seconds", "25"),
            expect=r"Timed out waiting \d+ms for recv operation to complete"),
    Variant("stalled-rank", "ws4_rank2_sleeps_detail", "collective_timeout",
            "4 workers, DETAIL debug; rank 2 blocks 25s at step 4 (pg timeout 10s)",
            T(*STANDALONE, "--nproc-per-node", "4", TRAIN, "--scenario", "stall", "--fail-rank", "2",
              "--fail-step", "4", "--pg-timeout", "10", "--stall-seconds", "25"),
            env=DETAIL, expect=r"Timed out|timed out|monitoredBarrier"),
    Variant("stalled-rank", "ws2_uneven_extra_step", "collective_timeout",
            "uneven shards: rank 1 has one batch more; rank 0 waits in the final barrier while rank 1 is in all_reduce (10s)",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "uneven", "--fail-rank", "1",
              "--pg-timeout", "10"),
            expect=r"Timed out waiting \d+ms for recv operation to complete"),
    Variant("stalled-rank", "ws3_uneven_monitored_barrier", "collective_timeout",
            "uneven shards, 3 workers: rank 1 has one batch more; the others reach monitored_barrier (10s)",
            T(*STANDALONE, "--nproc-per-node", "3", TRAIN, "--scenario", "uneven", "--fail-rank", "1",
              "--pg-timeout", "10", "--final-sync", "monitored_barrier"),
            expect=r"Rank 1 failed to pass monitoredBarrier"),
    Variant("stalled-rank", "run1", "collective_timeout",
            "torchrun --log-dir --tee 3, 2 workers; rank 1 blocks 25s at step 3 (pg timeout 10s); per-rank files + console.log",
            T(*STANDALONE, "--nproc-per-node", "2", "--log-dir", "{logdir}", "--tee", "3", TRAIN,
              "--scenario", "stall", "--fail-rank", "1", "--fail-step", "3", "--pg-timeout", "10",
              "--stall-seconds", "25", "--record-errors"),
            expect=r"Timed out waiting \d+ms for recv", logdir=True),
    # 5. ranks issue different collectives ------------------------------------------------------
    Variant("mismatched-collectives", "ws2_shape_detail", "collective_mismatch",
            "DETAIL debug; at step 3 rank 1 all_reduces one flattened bucket while rank 0 reduces per-parameter",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "mismatch_shape", "--fail-rank", "1",
              "--fail-step", "3", "--pg-timeout", "10"),
            env=DETAIL, expect=r"Detected mismatch between collectives on ranks"),
    Variant("mismatched-collectives", "ws4_broadcast_vs_allreduce_detail", "collective_mismatch",
            "DETAIL debug, 4 workers; at step 2 rank 1 calls broadcast while the others call all_reduce",
            T(*STANDALONE, "--nproc-per-node", "4", TRAIN, "--scenario", "mismatch_op", "--fail-rank", "1",
              "--fail-step", "2", "--pg-timeout", "10"),
            env=DETAIL, expect=r"Detected mismatch between collectives on ranks"),
    Variant("mismatched-collectives", "ws2_size_mismatch_nodebug", "collective_mismatch",
            "no debug mode; rank 1 has one batch more, so its gradient all_reduce meets rank 0's 1-element metric all_reduce; gloo aborts",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "uneven", "--fail-rank", "1",
              "--pg-timeout", "10", "--final-sync", "metric"),
            expect=r"gloo::EnforceNotMet"),
    # 6. busy master port -----------------------------------------------------------------------
    Variant("busy-port", "static_master_port", "port_in_use",
            "another process already listens on --master-port; torchrun static rendezvous",
            T("--nnodes", "1", "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", "{port}",
              TRAIN), busy_port=True, expect=r"EADDRINUSE|address already in use"),
    Variant("busy-port", "c10d_endpoint_is_host", "port_in_use",
            "c10d rendezvous endpoint port already taken, --rdzv-conf is_host=1",
            T("--nnodes", "1", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
              "127.0.0.1:{port}", "--rdzv-conf", "is_host=1", TRAIN),
            busy_port=True, expect=r"EADDRINUSE|address already in use"),
    Variant("busy-port", "env_rank0_master_port", "port_in_use",
            "by hand: rank 0 of 2 (python + env://) with MASTER_PORT already taken",
            [PY, TRAIN, "--pg-timeout", "8"], env=by_hand(0, 2), busy_port=True,
            expect=r"EADDRINUSE|address already in use"),
    # 7. SIGKILL (what the kernel OOM killer sends) ---------------------------------------------
    Variant("sigkill", "ws2_rank1_self_sigkill", "host_oom_killed",
            "rank 1 sends itself SIGKILL at step 3, as the kernel OOM killer would; elastic reports exitcode -9",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "sigkill", "--fail-rank", "1",
              "--fail-step", "3"),
            expect=r"exitcode: -9"),
    Variant("sigkill", "ws4_rank2_killed_outside_tee", "host_oom_killed",
            "4 workers with --tee 3; the generator sends SIGKILL to rank 2 from outside after step 4, as the OOM killer would",
            T(*STANDALONE, "--nproc-per-node", "4", "--tee", "3", TRAIN, "--steps", "400", "--step-sleep", "0.1"),
            signal=Signal(signal.SIGKILL, r"step 4 loss", "rank:2"), expect=r"exitcode: -9"),
    Variant("sigkill", "ws2_dataloader_worker_sigkill", "host_oom_killed",
            "a DataLoader worker (num_workers=2) of rank 1 gets SIGKILL, as the OOM killer would",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--scenario", "loader_sigkill", "--num-workers", "2",
              "--fail-rank", "1", "--fail-step", "3"),
            expect=r"DataLoader worker \(pid \d+\) is killed by signal: Killed"),
    # 8. SIGTERM from outside (scheduler preemption) --------------------------------------------
    Variant("sigterm", "ws2_agent_sigterm", "job_preempted",
            "SIGTERM sent to the torchrun agent from outside after step 10, as a scheduler preemption does",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--steps", "400", "--step-sleep", "0.1"),
            signal=Signal(signal.SIGTERM, r"step 10 loss", "agent"), expect=r"got signal: 15"),
    Variant("sigterm", "ws4_group_sigterm_c10d", "job_preempted",
            "c10d rendezvous, 4 workers, LOGLEVEL=INFO; SIGTERM sent to the whole process group (agent + workers) after step 6, as scancel does",
            T("--nnodes", "1", "--nproc-per-node", "4", "--rdzv-backend", "c10d", "--rdzv-endpoint",
              "127.0.0.1:{port}", "--rdzv-id", "job-8812", TRAIN, "--steps", "400", "--step-sleep", "0.1"),
            env={"LOGLEVEL": "INFO"},
            signal=Signal(signal.SIGTERM, r"step 6 loss", "group"), expect=r"got signal: 15|death signal"),
    Variant("sigterm", "run1", "job_preempted",
            "torchrun --log-dir --redirects 3, 2 workers; SIGTERM to the agent after step 8; per-rank files + console.log",
            T(*STANDALONE, "--nproc-per-node", "2", "--log-dir", "{logdir}", "--redirects", "3", TRAIN,
              "--steps", "400", "--step-sleep", "0.1", "--record-errors"),
            signal=Signal(signal.SIGTERM, None, "agent", delay=9.0),
            expect=r"got signal: 15", logdir=True),
    # 9. SIGHUP (terminal closed) ------------------------------------------------------------------
    Variant("sighup", "ws2_agent_sighup", "terminal_hangup",
            "SIGHUP sent to the torchrun agent after step 8, as when the ssh session/terminal closes",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--steps", "400", "--step-sleep", "0.1"),
            signal=Signal(signal.SIGHUP, r"step 8 loss", "agent"), expect=r"got signal: 1\b"),
    Variant("sighup", "ws2_group_sighup_tee", "terminal_hangup",
            "--tee 3; SIGHUP sent to the whole foreground process group after step 5 (terminal hangup)",
            T(*STANDALONE, "--nproc-per-node", "2", "--tee", "3", TRAIN, "--steps", "400", "--step-sleep", "0.1"),
            signal=Signal(signal.SIGHUP, r"step 5 loss", "group"), expect=r"got signal: 1\b|death signal"),
    # 10. /dev/shm too small -------------------------------------------------------------------------
    Variant("small-shm", "ws2_loader_shm_1m", "shm_exhausted",
            "DataLoader num_workers=2 with 256 KiB samples inside unshare -m with a 1 MiB tmpfs on /dev/shm; DataLoader timeout=10",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--num-workers", "2", "--sample-bytes", "262144",
              "--batch-size", "8", "--loader-timeout", "10"),
            wrap_small_shm="1m", expect=r"No space left on device"),
    Variant("small-shm", "ws2_loader_shm_2m_file_system", "shm_exhausted",
            "as above with 64 KiB samples, 2 MiB /dev/shm and sharing strategy file_system",
            T(*STANDALONE, "--nproc-per-node", "2", TRAIN, "--num-workers", "2", "--sample-bytes", "65536",
              "--batch-size", "8", "--loader-timeout", "10", "--sharing-strategy", "file_system"),
            wrap_small_shm="2m", expect=r"No space left on device"),
]


def _pid_of_rank(text: str, rank: int) -> int | None:
    m = re.search(rf"\[rank{rank}\] INFO train: starting worker pid=(\d+)", text)
    return int(m.group(1)) if m else None


def run_variant(v: Variant, port: int) -> tuple[bytes, Path]:
    """Run one variant; return (captured combined output, job dir)."""
    job = Path(tempfile.mkdtemp(prefix="torchrun-job-"))
    shutil.copy(WORKLOAD, job / "train.py")
    subs = {"train": "train.py", "port": str(port), "logdir": str(job / "logs")}
    cmd = fill(v.cmd, subs)
    env = dict(os.environ)
    for k in ("TORCH_DISTRIBUTED_DEBUG", "LOGLEVEL", "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE", "MASTER_ADDR",
              "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(k, None)
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.update({k: val.replace("{port}", str(port)) for k, val in v.env.items()})
    for k in [k for k, val in v.env.items() if val == ""]:
        env.pop(k)  # "" means: leave unset, as a user who never exported it
    if v.wrap_small_shm:
        inner = " ".join(_shq(c) for c in cmd)
        cmd = ["unshare", "-m", "sh", "-c",
               f"mount -t tmpfs -o size={v.wrap_small_shm} tmpfs /dev/shm && exec {inner}"]

    holder = None
    if v.busy_port:
        holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        holder.bind(("0.0.0.0", port))
        holder.listen(16)

    sides = []
    for s in v.side:
        senv = dict(env)
        senv.update({k: val.replace("{port}", str(port)) for k, val in s.env.items()})
        sides.append((s, senv))

    proc = subprocess.Popen(cmd, cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    side_procs = []
    for s, senv in sides:
        time.sleep(s.delay)
        side_procs.append(subprocess.Popen(fill(s.cmd, subs), cwd=job, env=senv, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL, start_new_session=True))

    chunks: list[bytes] = []
    fired = threading.Event()

    def reader() -> None:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            chunks.append(line)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    start = time.monotonic()
    deadline = start + v.timeout
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
        if v.signal and not fired.is_set():
            text = b"".join(chunks).decode("utf-8", "replace")
            if v.signal.after is None:
                due = time.monotonic() - start >= v.signal.delay
            else:
                due = bool(re.search(v.signal.after, text))
                if due:
                    time.sleep(v.signal.delay)
            if due:
                _send(v.signal, proc, text)
                fired.set()
    timed_out = proc.poll() is None
    if timed_out:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    t.join(timeout=5)
    for sp in side_procs:
        try:
            sp.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(sp.pid, signal.SIGKILL)
            sp.wait()
    if holder is not None:
        holder.close()
    if timed_out:
        print(f"  !! {v.name}: wall-clock limit {v.timeout}s hit, process group killed", file=sys.stderr)
    return b"".join(chunks), job


def _send(sig: Signal, proc: subprocess.Popen, text: str) -> None:
    if sig.target == "agent":
        os.kill(proc.pid, sig.sig)
    elif sig.target == "group":
        os.killpg(proc.pid, sig.sig)
    elif sig.target.startswith("rank:"):
        pid = _pid_of_rank(text, int(sig.target.split(":")[1]))
        if pid is None:
            raise RuntimeError(f"no pid line for {sig.target}")
        os.kill(pid, sig.sig)


def _shq(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def key_line(text: str, expect: str) -> str:
    for line in text.splitlines():
        if re.search(expect, line):
            return line.strip()[:240]
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--all", action="store_true")
    g.add_argument("--scenario", action="append", help="scenario name (repeatable)")
    g.add_argument("--list", action="store_true")
    ap.add_argument("--variant", action="append", help="only these variant names")
    args = ap.parse_args()

    scenarios = sorted({v.scenario for v in VARIANTS})
    if args.list:
        for v in VARIANTS:
            print(f"{v.scenario:24} {v.name:40} {v.label}")
        return 0
    chosen = VARIANTS if args.all else [v for v in VARIANTS if v.scenario in set(args.scenario)]
    if args.scenario and not chosen:
        print(f"unknown scenario; known: {', '.join(scenarios)}", file=sys.stderr)
        return 2
    if args.variant:
        chosen = [v for v in chosen if v.name in set(args.variant)]

    rows = {} if args.all else read_fragment(MANIFEST)
    rows = {k: r for k, r in rows.items() if (CORPUS / k).exists()}
    results = []
    for v in chosen:
        port = BASE_PORT + VARIANTS.index(v)
        t0 = time.monotonic()
        out, job = run_variant(v, port)
        text = out.decode("utf-8", "replace")
        dest = CORPUS / v.rel
        if v.logdir:
            copy_logdir(job, dest, out)
            text = "\n".join(p.read_text("utf-8", "replace") for p in sorted(dest.rglob("*")) if p.is_file())
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(out)
        shutil.rmtree(job, ignore_errors=True)
        line = key_line(text, v.expect)
        ok = bool(line)
        results.append((v, ok, line, time.monotonic() - t0))
        print(f"{'ok     ' if ok else 'MISSING'} {v.rel:62} {v.label:20} {time.monotonic() - t0:5.1f}s  {line[:110]}",
              flush=True)
        if ok:
            rows[v.rel] = [v.rel, v.label, SOURCE, v.notes]
        else:
            rows.pop(v.rel, None)
    write_fragment(MANIFEST, rows, FRAGMENT_HEADER)
    bad = [v.rel for v, ok, _, _ in results if not ok]
    if bad:
        print(f"{len(bad)} variant(s) did not show their signature: {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
