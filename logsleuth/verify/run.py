"""Run the probe under the real ``torchrun`` launcher, capture every rank's output, and read it back.

``run_probe(config, log_dir)`` starts ``python -m torch.distributed.run ... probe.py`` in its own session with
``NCCL_DEBUG=INFO`` (and ``NCCL_DEBUG_SUBSYS``), has torchrun write each local rank's stdout/stderr to files
(``--log-dir``/``--redirects 3``), writes the launcher's own output to ``launcher.log``, and enforces a hard
wall-clock limit: past it the launcher and every worker are killed (SIGKILL, the whole process tree), so a hang
never freezes the terminal. The captured files then go through the normal analysis pipeline
(``logsleuth.analyze(files, rules=...)``) and the probe's own JSON lines give the bandwidth results and how far
each rank got (``start`` -> ``init_start`` -> ``init_done`` -> ``op_start`` ... -> ``done``), from which the
runner states what a hang or a missing rank means.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LogsleuthError
from . import probe as probe_module

PROBE_PATH = Path(probe_module.__file__).resolve()
PROBE_MARK = probe_module.PREFIX + " {"
DEFAULT_NCCL_SUBSYS = "INIT,BOOTSTRAP,ENV,NET,GRAPH"
MAX_EVIDENCE_CHARS = 400


class VerifyError(LogsleuthError):
    """The probe could not be launched (bad arguments, no torch, unusable log directory)."""


@dataclass(frozen=True)
class ProbeConfig:
    """How to launch one probe run.

    Attributes:
        backend: ``auto`` | ``nccl`` | ``gloo``.
        nproc_per_node: ranks on this node (None: the visible GPUs for nccl/auto with GPUs, else 2).
        nnodes: torchrun's ``--nnodes`` (``"1"`` single node; ``"2"`` or ``"2:4"`` multi-node).
        node_rank: torchrun's ``--node-rank`` (static rendezvous).
        rdzv_endpoint: ``host:port`` of the rendezvous (multi-node); rdzv_backend/rdzv_id as torchrun.
        master_addr, master_port: a static rendezvous on this address/port (single node); without them and
            without ``rdzv_endpoint`` the run is ``--standalone`` (torchrun picks a free port).
        timeout: hard wall-clock limit of the run, seconds; the launcher and all workers are killed past it.
        pg_timeout: process-group timeout inside the probe, seconds (None: a third of ``timeout``, at least 5 s),
            shorter than ``timeout`` so the backend's own timeout error is logged before the hard kill.
        min_bytes, max_bytes, factor: message sizes (None: the probe's defaults, 8 B..256 MiB on nccl, ..4 MiB on gloo).
        ops: collectives to run (subset of ``probe.OPS``).
        env: extra environment for the probe (e.g. ``NCCL_SOCKET_IFNAME``); a value of None removes the variable.
        inject: fault injection for tests (``hang@R``, ``absent@R``, ``corrupt@R``).
    """

    backend: str = "auto"
    nproc_per_node: int | None = None
    nnodes: str = "1"
    node_rank: int | None = None
    rdzv_endpoint: str | None = None
    rdzv_backend: str = "c10d"
    rdzv_id: str = "logsleuth-verify"
    master_addr: str | None = None
    master_port: int | None = None
    timeout: float = 120.0
    pg_timeout: float | None = None
    min_bytes: int | None = None
    max_bytes: int | None = None
    factor: int | None = None
    ops: tuple[str, ...] = probe_module.OPS
    env: Mapping[str, str | None] = field(default_factory=dict)
    inject: str = "none"

    def replace(self, **changes: Any) -> ProbeConfig:
        return dataclasses.replace(self, **changes)

    @property
    def multi_node(self) -> bool:
        return self.nnodes.split(":")[-1] != "1"

    @property
    def effective_pg_timeout(self) -> float:
        return self.pg_timeout if self.pg_timeout is not None else max(5.0, round(self.timeout / 3, 1))


@dataclass(frozen=True)
class Result:
    """One (op, size) measurement, as rank 0 reported it (times averaged over ranks, nccl-tests' ``-a 1``).

    Attributes:
        op: collective name; bytes: message size S in bytes (nccl-tests' definition per op); iters: timed iterations;
        time_us: mean time of one op in microseconds; algbw_gbps = S/t and busbw_gbps = algbw x factor, GB/s
        (1e9 B/s); wrong: wrong elements over all ranks; world_size: ranks taking part.
    """

    op: str
    bytes: int
    iters: int
    time_us: float
    algbw_gbps: float
    busbw_gbps: float
    wrong: int
    world_size: int


@dataclass(frozen=True)
class RankState:
    """How far one local rank got, from its probe lines. ``last`` is its last probe record, ``last_line`` the
    last line it printed anywhere (``path:line: text``)."""

    local_rank: int
    rank: int | None
    started: bool
    init_started: bool
    init_done: bool
    done: bool
    ops_started: int
    last: dict[str, Any]
    last_line: str | None
    info: dict[str, Any]


@dataclass(frozen=True)
class Finding:
    """What the runner concludes from the probe's own lines: a taxonomy id (None for a probe-level fault such as
    wrong results), one summary sentence, and evidence lines (``path:line: text``)."""

    root_cause: str | None
    summary: str
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbeRun:
    """One finished (or killed) probe run.

    Attributes:
        name: the run's label (``probe``, ``ifname-eth0``...); config: how it was launched; command: argv.
        env_overrides: the variables set or removed for it (None = removed).
        returncode: the launcher's exit status (None when killed at the hard limit); timed_out: killed at the limit.
        seconds: wall time; log_dir: where its files are; files: the captured files, rank files then launcher.log.
        results: bandwidth measurements; ranks: per-local-rank progress; diagnosis: the analyzer's ``Diagnosis``
        of the captured files (None when there was nothing to analyse); findings: the runner's conclusions.
    """

    name: str
    config: ProbeConfig
    command: tuple[str, ...]
    env_overrides: dict[str, str | None]
    returncode: int | None
    timed_out: bool
    seconds: float
    log_dir: Path
    files: tuple[Path, ...]
    results: tuple[Result, ...]
    ranks: tuple[RankState, ...]
    diagnosis: Any
    findings: tuple[Finding, ...]

    @property
    def completed(self) -> bool:
        """Every local rank ran every collective to the end and the launcher exited 0."""
        return self.returncode == 0 and not self.timed_out and bool(self.ranks) and all(r.done for r in self.ranks)

    @property
    def wrong(self) -> int:
        return sum(r.wrong for r in self.results)

    @property
    def ok(self) -> bool:
        """Completed with correct results."""
        return self.completed and self.wrong == 0

    @property
    def backend(self) -> str | None:
        for r in self.ranks:
            if r.info.get("backend"):
                return str(r.info["backend"])
        return None if self.config.backend == "auto" else self.config.backend

    @property
    def causes(self) -> tuple[str, ...]:
        """Root causes this run shows, best first: the runner's findings (from the probe's own progress lines,
        the most specific for a probe), then the analyzer's root cause when it found a failure."""
        out: list[str] = [f.root_cause for f in self.findings if f.root_cause]
        d = self.diagnosis
        if d is not None and d.verdict == "failure":
            out.append(d.root_cause)
        return tuple(dict.fromkeys(out))


def default_nproc(backend: str) -> int:
    """Ranks per node when not given: one per visible GPU for nccl/auto (when torch sees GPUs), else 2."""
    if backend in ("auto", "nccl"):
        try:
            import torch

            n = torch.cuda.device_count()
        except Exception:  # noqa: BLE001 - no CUDA runtime
            n = 0
        if n > 0:
            return n
        if backend == "nccl":
            raise VerifyError("backend nccl needs GPUs, but torch sees none (use --backend gloo on CPU)")
    return 2


def launcher_args(cfg: ProbeConfig, nproc: int) -> list[str]:
    """torchrun's arguments for ``cfg`` (everything before the script)."""
    args = ["--nproc-per-node", str(nproc), "--max-restarts", "0", "--monitor-interval", "0.5"]
    if cfg.multi_node or cfg.rdzv_endpoint:
        if not cfg.rdzv_endpoint and not (cfg.master_addr and cfg.master_port):
            raise VerifyError("a multi-node probe needs --rdzv-endpoint HOST:PORT (as given to torchrun on every node)")
        args += ["--nnodes", cfg.nnodes]
        if cfg.node_rank is not None:
            args += ["--node-rank", str(cfg.node_rank)]
        if cfg.rdzv_endpoint:
            join = max(5, int(cfg.timeout / 2))
            args += [
                "--rdzv-backend",
                cfg.rdzv_backend,
                "--rdzv-endpoint",
                cfg.rdzv_endpoint,
                "--rdzv-id",
                cfg.rdzv_id,
                "--rdzv-conf",
                f"join_timeout={join}",
            ]
        else:
            args += ["--master-addr", str(cfg.master_addr), "--master-port", str(cfg.master_port)]
    elif cfg.master_port is not None:
        args += [
            "--nnodes",
            "1",
            "--node-rank",
            "0",
            "--master-addr",
            cfg.master_addr or "127.0.0.1",
            "--master-port",
            str(cfg.master_port),
        ]
    else:
        args += ["--standalone", "--nnodes", "1"]
    return args


def probe_args(cfg: ProbeConfig) -> list[str]:
    """The probe script's arguments for ``cfg``."""
    args = [
        "--backend",
        cfg.backend,
        "--ops",
        ",".join(cfg.ops),
        "--pg-timeout",
        str(cfg.effective_pg_timeout),
        "--inject",
        cfg.inject,
    ]
    for flag, value in (("--min-bytes", cfg.min_bytes), ("--max-bytes", cfg.max_bytes), ("--factor", cfg.factor)):
        if value is not None:
            args += [flag, str(value)]
    return args


def probe_env(cfg: ProbeConfig, base: Mapping[str, str] | None = None) -> tuple[dict[str, str], dict[str, str | None]]:
    """(environment for the launcher, the overrides applied): NCCL_DEBUG=INFO, no NCCL_DEBUG_FILE, NCCL_DEBUG_SUBSYS
    unless the user chose one, unbuffered Python, then ``cfg.env``."""
    env = dict(os.environ if base is None else base)
    # NCCL_DEBUG_FILE would send NCCL's lines elsewhere: they must land in the captured per-rank output
    overrides: dict[str, str | None] = {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_FILE": None, "PYTHONUNBUFFERED": "1"}
    if "NCCL_DEBUG_SUBSYS" not in env:
        overrides["NCCL_DEBUG_SUBSYS"] = DEFAULT_NCCL_SUBSYS
    overrides.update(cfg.env)
    for k, v in overrides.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env, overrides


RUN_TAG = "LOGSLEUTH_VERIFY_RUN"  # set in every probe process's environment: the run's log directory


def tagged_processes(tag: str) -> list[Any]:
    """Live processes whose environment carries ``RUN_TAG=tag`` (this run's launcher and workers, even after
    they were re-parented)."""
    import psutil

    out = []
    for p in psutil.process_iter():
        try:
            if p.environ().get(RUN_TAG) == tag:
                out.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            continue
    return out


def kill_tree(pid: int, tag: str | None = None) -> None:
    """SIGKILL ``pid``, every descendant, and every process tagged with ``tag`` (torchrun starts each worker in
    its own session, so killing the launcher's process group alone would leave the workers running)."""
    import psutil

    procs = []
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        pass
    if tag:
        known = {p.pid for p in procs}
        procs += [p for p in tagged_processes(tag) if p.pid not in known]
    for p in procs:
        try:
            p.send_signal(signal.SIGKILL)
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(procs, timeout=10)


def run_probe(cfg: ProbeConfig, log_dir: str | os.PathLike[str], *, name: str = "probe", rules: Any = None) -> ProbeRun:
    """Launch one probe run, wait at most ``cfg.timeout`` seconds, then analyse what it printed.

    Args:
        cfg: how to launch it.
        log_dir: a directory for this run's files (created; must be empty or absent).
        name: label of the run in reports.
        rules: a loaded ``RuleSet`` for the analysis (default: the built-in rules).

    Returns:
        The ``ProbeRun`` (never raises for a failing probe: failures are what it reports).

    Raises:
        VerifyError: the launcher could not be started (bad arguments, unusable ``log_dir``).
    """
    run_dir = Path(log_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VerifyError(f"cannot create the log directory ({exc.strerror})", str(run_dir)) from exc
    if any(run_dir.iterdir()):
        raise VerifyError("log directory is not empty", str(run_dir))
    nproc = cfg.nproc_per_node or default_nproc(cfg.backend)
    ranks_dir = run_dir / "ranks"
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        *launcher_args(cfg, nproc),
        "--log-dir",
        str(ranks_dir),
        "--redirects",
        "3",
        str(PROBE_PATH),
        *probe_args(cfg),
    ]
    env, overrides = probe_env(cfg)
    tag = str(run_dir.resolve())
    env[RUN_TAG] = tag
    launcher_log = run_dir / "launcher.log"
    t0 = time.monotonic()
    timed_out = False
    with open(launcher_log, "wb") as out:
        try:
            proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True
            )
        except OSError as exc:
            raise VerifyError(f"cannot start torchrun: {exc}") from exc
        try:
            returncode: int | None = proc.wait(timeout=cfg.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_tree(proc.pid, tag)
            proc.wait()
            returncode = None
        except BaseException:
            kill_tree(proc.pid, tag)  # Ctrl-C or any error here: leave no worker behind
            proc.wait()
            raise
    # a launcher that exited normally has already stopped its workers; sweep any straggler of this run
    for p in tagged_processes(tag):
        kill_tree(p.pid)
    seconds = round(time.monotonic() - t0, 2)
    rank_files = sorted(
        ranks_dir.glob("**/attempt_*/*/std*.log"),
        key=lambda p: (int(p.parent.name) if p.parent.name.isdigit() else 0, p.name != "stdout.log"),
    )
    files = tuple(p for p in [*rank_files, launcher_log] if p.stat().st_size > 0)
    results, ranks = read_probe_output(rank_files, nproc)
    diagnosis = _analyze(files, rules)
    run = ProbeRun(
        name, cfg, tuple(cmd), overrides, returncode, timed_out, seconds, run_dir, files, results, ranks, diagnosis, ()
    )
    return dataclasses.replace(run, findings=tuple(runner_findings(run)))


def _analyze(files: Sequence[Path], rules: Any) -> Any:
    """The analyzer's diagnosis of the captured files (None when they hold no log line)."""
    if not files:
        return None
    from ..errors import InputError
    from ..pipeline import analyze

    try:
        return analyze([str(p) for p in files], rules=rules)
    except InputError:
        return None


def read_probe_output(rank_files: Sequence[Path], nproc: int) -> tuple[tuple[Result, ...], tuple[RankState, ...]]:
    """Parse the probe's JSON lines from the per-rank files torchrun captured.

    Args:
        rank_files: ``.../attempt_N/<local_rank>/{stdout,stderr}.log`` files.
        nproc: local ranks expected (a rank with no file at all is reported as never started).

    Returns:
        (rank 0's results in order, one ``RankState`` per local rank 0..nproc-1).
    """
    by_rank: dict[int, list[Path]] = {}
    for p in rank_files:
        if p.parent.name.isdigit():
            by_rank.setdefault(int(p.parent.name), []).append(p)
    results: list[Result] = []
    states = []
    for lr in range(nproc):
        recs: list[dict[str, Any]] = []
        files = sorted(by_rank.get(lr, []), key=lambda p: p.name != "stdout.log")
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as f:
                for i, line in enumerate(f, 1):
                    k = line.find(PROBE_MARK)
                    if k < 0:
                        continue
                    try:
                        rec = json.loads(line[k + len(probe_module.PREFIX) + 1 :])
                    except json.JSONDecodeError:
                        continue
                    rec["_where"] = f"{path}:{i}"
                    recs.append(rec)
        # the last thing the rank printed: its stderr's tail (a traceback) when there is one, else its stdout's
        last_line = None
        for path in files:
            last_line = _last_nonblank(path) or last_line
        phases = [r.get("name") for r in recs if r.get("ev") == "phase"]
        info = next((r for r in recs if r.get("ev") == "start"), {})
        for r in recs:
            if r.get("ev") == "result":
                results.append(
                    Result(
                        str(r["op"]),
                        int(r["bytes"]),
                        int(r["iters"]),
                        float(r["time_us"]),
                        float(r["algbw_gbps"]),
                        float(r["busbw_gbps"]),
                        int(r["wrong"]),
                        int(r["world_size"]),
                    )
                )
        states.append(
            RankState(
                local_rank=lr,
                rank=info.get("rank"),
                started=bool(recs),
                init_started="init_start" in phases,
                init_done="init_done" in phases,
                done=any(r.get("ev") == "done" for r in recs),
                ops_started=phases.count("op_start"),
                last=recs[-1] if recs else {},
                last_line=last_line,
                info={k: v for k, v in info.items() if k not in ("ev", "_where")},
            )
        )
    return tuple(results), tuple(states)


def _last_nonblank(path: Path) -> str | None:
    last = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                last = f"{path}:{i}: {line.rstrip()[:MAX_EVIDENCE_CHARS]}"
    return last


def _describe(state: RankState) -> str:
    who = f"rank {state.rank}" if state.rank is not None else f"local rank {state.local_rank}"
    last = state.last
    if not state.started:
        return f"{who} printed nothing (never started)"
    if state.done:
        return f"{who} finished"
    if last.get("ev") == "result":
        return f"{who} had finished {last.get('op')} of {last.get('bytes')} B"
    if last.get("ev") == "phase" and last.get("name") == "op_start":
        return f"{who} was in {last.get('op')} of {last.get('bytes')} B"
    if last.get("ev") == "phase":
        return f"{who}'s last step was {last.get('name')}"
    return f"{who}'s last record was {last.get('ev')}"


def progress(run: ProbeRun) -> str:
    """Where each local rank stopped, in one sentence."""
    return "where each rank stopped: " + "; ".join(_describe(s) for s in run.ranks) + "."


_INIT_TIMEOUT = re.compile(r"wait timeout after \d+ ?ms|Socket Timeout|timed out|Timed out|DistStoreError")


def runner_findings(run: ProbeRun) -> list[Finding]:
    """What the probe's own lines say about a failed, hung or wrong run (empty for a healthy run).

    - killed at the hard limit: ``rendezvous_timeout`` when some rank never finished init_process_group,
      else ``collective_timeout``, naming where each rank stopped;
    - failed before every rank reached init_process_group while another waited for it in init:
      ``rendezvous_timeout``;
    - wrong results: a probe-level finding with the op and size.
    """
    out: list[Finding] = []
    ranks = run.ranks
    ev = tuple(s.last_line for s in ranks if s.last_line)
    limit = f"{run.config.timeout:g} s"
    if run.timed_out:
        if not any(r.started for r in ranks):
            out.append(
                Finding(
                    "rendezvous_timeout",
                    f"No worker started within the hard limit ({limit}): the launcher never completed "
                    f"the rendezvous (another node missing, or the endpoint unreachable).",
                    tuple(_tail(run.log_dir / "launcher.log", 3)),
                )
            )
        elif not all(r.init_done for r in ranks):
            missing = [s for s in ranks if not s.init_done]
            out.append(
                Finding(
                    "rendezvous_timeout",
                    "Killed at the hard limit ("
                    + limit
                    + ") with init_process_group unfinished: "
                    + "; ".join(_describe(s) for s in missing)
                    + ".",
                    ev,
                )
            )
        else:
            behind = min(r.ops_started for r in ranks)
            laggards = [s for s in ranks if s.ops_started == behind]
            out.append(
                Finding(
                    "collective_timeout",
                    f"A collective never completed: killed at the hard limit ({limit}) after every rank "
                    f"initialised; "
                    + "; ".join(_describe(s) for s in ranks)
                    + ". "
                    + (
                        "Lagging: " + ", ".join(_describe(s) for s in laggards) + "."
                        if len(laggards) < len(ranks)
                        else ""
                    ),
                    ev,
                )
            )
        return out
    if run.returncode not in (0, None):
        never = [s for s in ranks if not s.init_started]
        waiting = [s for s in ranks if s.init_started and not s.init_done]
        timed = [s for s in waiting if s.last_line and _INIT_TIMEOUT.search(s.last_line)]
        if waiting and (never or timed):
            parts = [_describe(s) for s in never] + [
                f"{_describe(s)}: init_process_group gave up waiting for its peers" for s in waiting
            ]
            out.append(
                Finding(
                    "rendezvous_timeout",
                    "Not every rank reached the process-group rendezvous: " + "; ".join(parts) + ".",
                    ev,
                )
            )
    for r in run.results:
        if r.wrong:
            out.append(
                Finding(
                    None,
                    f"Wrong results: {r.op} of {r.bytes} B returned {r.wrong} wrong elements "
                    f"over all ranks (data corrupted between ranks).",
                    (),
                )
            )
    return out


def _tail(path: Path, n: int) -> list[str]:
    if not path.exists():
        return []
    lines = [
        (i, ln.rstrip())
        for i, ln in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if ln.strip()
    ]
    return [f"{path}:{i}: {t[:MAX_EVIDENCE_CHARS]}" for i, t in lines[-n:]]
