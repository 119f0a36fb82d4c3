"""The real-run harness the wave generators share (wave BK on): run one scenario's launch command in a neutral job
directory, fire its triggers (a signal to the launcher or to one rank, when a regex shows in the output or after N
seconds), end a hung job the way a scheduler does (SIGTERM to the launcher, SIGKILL after a grace period), check an
expected signature and write ``corpus/logs/run-<tag>-<name>/job.log`` plus its manifest row.

A wave's ``generate.py`` builds a :class:`Wave` and a list of :class:`Scenario` and calls :func:`main`. Needs root
for tmpfs mounts and cgroup-v1 memory limits; ``psutil`` finds the job's processes by their working directory.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1]
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
MEMCG = Path("/sys/fs/cgroup/memory")
EXIT = '; echo "job exited with $?"'
_LAUNCH_ENV = ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE")


@dataclass
class Scenario:
    """One run. ``cmd`` is bash run in the job dir (``{py}``, ``{bin}``, ``{job}`` filled in); ``expect`` a regex
    its output must contain, else nothing is written. ``trigger``: ((regex | seconds, action), ...) fired in
    order; an action is ``runner:SIG`` (the launcher), ``rankN:SIG`` (the process of global rank N) or
    ``scheduler:SECONDS`` (SIGTERM to the launcher, SIGKILL to the whole job SECONDS later)."""

    name: str
    label: str
    cmd: str
    expect: str
    prep: str = ""  # bash in the job dir before the job, not logged
    stale: str = ""  # a process started before the job and left running (not logged)
    stale_ready: str = ""  # regex in the stale process's output that says it is up
    tmpfs: tuple = ()  # ((dir relative to the job, size), ...)
    memory: int = 0  # bytes: cgroup-v1 memory limit for the whole job
    trigger: tuple = ()
    timeout: int = 90  # seconds before the harness ends the job like a scheduler (TERM, then KILL after 15 s)
    hang_ok: bool = False  # keep the log even when the harness had to end the job
    no_venv: bool = False


@dataclass
class Wave:
    """One collector's settings: ``tag`` like ``wavebk-a`` (logs go to ``run-<tag>-<name>``, the job dir is
    ``/tmp/<tag>-job/run``), the manifest ``fragment`` name, the sealed ``split``, the ``ecosystem`` and the venv's
    ``bin``. ``rank_of(proc)`` returns a process's global rank or None (default: its ``RANK`` env var);
    ``is_runner(proc)`` says whether a child of the job's bash is the launcher (default: any child)."""

    tag: str
    here: Path
    split: str
    ecosystem: str
    bin: Path
    fragment: str
    project: Path | None = None
    rank_of: Callable[[psutil.Process], int | None] | None = None
    is_runner: Callable[[psutil.Process], bool] = field(default=lambda p: True)
    extra_env: dict = field(default_factory=dict)
    runner_recursive: bool = False  # look for the launcher among all descendants of the job's bash, not children
    # files under ``project`` that are another project's code, kept out of this repository (the wave's README says
    # where they come from and how they were patched): the runs need them placed there first
    upstream: tuple[str, ...] = ()

    @property
    def jobs(self) -> Path:
        return Path(f"/tmp/{self.tag}-job")


def multinode_job(node: Callable[[int], str], n: int = 2, late: float = 1, only: tuple | None = None) -> str:
    """Bash that starts ``node(i)`` (one host's launcher command) for each of ``n`` hosts in the background from one
    job shell, node 0 first and ``late`` seconds before the next (1 s between the others), waits for them all and
    prints ``job exited with N``: the first non-zero exit code in node order, else 0. ``only``: the nodes started
    (a node that never comes up)."""
    parts, waits = [], []
    for i in range(n):
        if only is not None and i not in only:
            continue
        parts.append(f"{node(i)} & p{i}=$!; sleep {late if i == 0 else 1}")
        waits.append(f"wait $p{i}; r{i}=$?")
    codes = [f"r{i}" for i in range(n) if only is None or i in only]
    status = codes[-1]
    for c in reversed(codes[:-1]):
        status = f"{c} ? {c} : ({status})"
    return "; ".join(parts + waits) + f"; (exit $(( {status} ))); echo \"job exited with $?\""


def fill(cmd: str, wave: Wave, job: Path) -> str:
    for k, v in {"py": str(wave.bin / "python"), "bin": str(wave.bin), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def _launch(cmd: str, job: Path, env: dict, out: bytearray, cg: Path | None = None):
    def pre() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if cg:
            (cg / "cgroup.procs").write_text(str(os.getpid()))

    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=pre)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def job_procs(job: Path) -> list[psutil.Process]:
    """Processes whose working directory is the job dir (the harness itself excluded)."""
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if v.pid != os.getpid() and v.cwd() == str(job):
                found.append(v)
    return found


def _env_rank(p: psutil.Process) -> int | None:
    r = p.environ().get("RANK")
    return int(r) if r and r.isdigit() else None


def ranks(wave: Wave, job: Path, n: int) -> list[psutil.Process]:
    """The process(es) of global rank ``n``: the outermost ones, so the rank's own helpers that inherit its RANK
    (DataLoader workers, compile workers) are skipped. (Wave BK's first version took the innermost ones and its
    DeepSpeed ``rank1:KILL``/``rank1:STOP`` landed on rank 1's DataLoader worker; its notes say so.)"""
    rank_of = wave.rank_of or _env_rank
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            if rank_of(v) == n:
                found.append(v)
    pids = {v.pid for v in found}
    return [v for v in found if not any(a.pid in pids for a in _ancestors(v))]


def _ancestors(p: psutil.Process) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        return p.parents()
    return []


def runners(wave: Wave, bash_pid: int) -> list[psutil.Process]:
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children(recursive=wave.runner_recursive):
            with contextlib.suppress(psutil.Error):
                if wave.is_runner(v):
                    found.append(v)
    return found


def _umount_all(job: Path) -> None:
    subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])


def run(wave: Wave, s: Scenario) -> bool:
    """Run ``s`` once; write its log and return True when ``s.expect`` is found (and the job ended by itself or
    ``s.hang_ok``)."""
    job = wave.jobs / "run"
    if job.exists():
        _umount_all(job)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    if wave.project:
        shutil.copytree(wave.project, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    home = wave.jobs / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{wave.bin}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="120", **wave.extra_env)
    for k in _LAUNCH_ENV:
        env.pop(k, None)
    run_env = dict(env, PATH=os.environ["PATH"]) if s.no_venv else env
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, wave, job)], cwd=job, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        for v in job_procs(job):
            with contextlib.suppress(psutil.Error):
                v.kill()
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = None
    if s.memory:
        cg = own_memcg() / f"{wave.tag}-job"
        cg.mkdir(exist_ok=True)
        (cg / "memory.limit_in_bytes").write_text(str(s.memory))
    stale = None
    if s.stale:
        stale_out = bytearray()
        stale = _launch(fill(s.stale, wave, job), job, env, stale_out)
        t0 = time.time()
        while not re.search(s.stale_ready, stale_out.decode(errors="replace")) and time.time() - t0 < 60:
            time.sleep(0.5)
        time.sleep(1)
    out = bytearray()
    start = time.time()
    proc = _launch(fill(s.cmd, wave, job), job, run_env, out, cg)
    n_fired, timed_out, kill_at = 0, False, None

    def signal_runner(sig: int) -> None:
        for v in runners(wave, proc[0].pid):
            with contextlib.suppress(psutil.Error):
                print(f"  signal {sig} -> launcher {v.pid}", flush=True)
                v.send_signal(sig)

    while True:
        now = time.time() - start
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = now >= what if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                who, arg = action.split(":", 1)
                print(f"  trigger: {action} after {now:.0f} s", flush=True)
                if who == "scheduler":
                    signal_runner(signal.SIGTERM)
                    kill_at = now + float(arg)
                elif who == "runner":
                    signal_runner(getattr(signal, "SIG" + arg))
                elif who.startswith("rank"):
                    for v in ranks(wave, job, int(who[4:])):
                        with contextlib.suppress(psutil.Error):
                            print(f"  SIG{arg} -> rank {who[4:]} pid {v.pid}", flush=True)
                            v.send_signal(getattr(signal, "SIG" + arg))
                else:
                    raise SystemExit(f"unknown trigger action {action!r}")
        if proc[0].poll() is not None:
            break
        if kill_at is None and now > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s: SIGTERM to the launcher", flush=True)
            signal_runner(signal.SIGTERM)
            kill_at = now + 15
        if kill_at is not None and now > kill_at:
            break
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in job_procs(job):
        with contextlib.suppress(psutil.Error):
            k.send_signal(signal.SIGCONT)
            k.kill()
    if stale:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stale[0].pid, signal.SIGKILL)
    proc[0].wait()
    proc[1].join(5)
    time.sleep(0.5)
    _umount_all(job)
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", str(cg)], stderr=subprocess.DEVNULL)
    scratch = Path(f"/tmp/{wave.tag}-scratch")
    scratch.mkdir(exist_ok=True)
    (scratch / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-{wave.tag}-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(out)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {proc[0].returncode}, "
          f"{time.time() - start:.0f} s{', ended by the harness' if timed_out else ''})", flush=True)
    return ok


def main(wave: Wave, scenarios: Sequence[Scenario], argv: Sequence[str] | None = None) -> None:
    """``--list``, ``--scenario NAME`` (repeatable), ``--all``, ``--refresh-rows`` (rewrite the manifest rows of
    logs already present from ``notes.py``'s NOTES, no runs). Exits 1 when a chosen scenario came out MISSING."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true")
    a = ap.parse_args(argv)
    if a.list:
        for s in scenarios:
            print(f"{s.name:40} {s.label}")
        return
    missing = [f for f in wave.upstream if wave.project is None or not (wave.project / f).exists()]
    if missing and not a.refresh_rows:
        sys.exit(f"{wave.tag}: place the upstream code its README names under {wave.project} first: {', '.join(missing)}")
    sys.path.insert(0, str(wave.here))
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    fragment = CORPUS / "manifest.d" / wave.fragment
    source = str((wave.here / "generate.py").relative_to(CORPUS.parent))
    bad = 0
    for s in [s for s in scenarios if a.all or s.name in a.scenario]:
        key = f"logs/run-{wave.tag}-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(wave, s)
        bad += not ok
        rows = read_fragment(fragment)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, source, NOTES[s.name], wave.split, wave.ecosystem, wave.split]
        write_fragment(fragment, rows, HEADER)
    sys.exit(1 if bad else 0)
