"""Generate wave AQ (b)'s real runs (sealed batch ``heldout46``): urban air-quality (PM2.5) forecasting with a
distributed Optuna hyper-parameter search on CPU. ``make_air.py`` writes synthetic hourly multi-station PM2.5 series
with weather covariates; ``tune_pm25.py`` is one Optuna worker (or, with ``--procs N``, N workers started with
multiprocessing) that opens a study shared through one storage (``--journal FILE``: JournalStorage on a journal file;
``--storage sqlite:///...``) and runs ``study.optimize``: each trial trains a small GRU/MLP forecaster in-process
(validation MAE reported per epoch, MedianPruner/HyperbandPruner) or, with ``--ddp``, a 2-process gloo DDP training
under ``torchrun`` (``ddp_trial.py``); the best model is copied to ``models/best.pt``. Launch modes: ``xargs -P``,
``launch.sh`` (N background workers, each one's status reported), ``--procs`` (multiprocessing), and a single worker
with ``--ddp`` trials. Each run has one cause made to happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveaq-b-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveaq-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-aq-runs-b.csv``
(split and batch ``heldout46``). The harness is copied from ../waveap_c/generate.py (changes: the scenario list, paths
and names).

    python3 corpus/generators/waveaq_b/generate.py --list
    python3 corpus/generators/waveaq_b/generate.py --scenario NAME
    python3 corpus/generators/waveaq_b/generate.py --all

Needs root (tmpfs mounts, cgroup v1, unshare), gcc, the venv ``/tmp/corpus-venv-aq-b`` (torch 2.13.0 CPU, optuna
5.0.0, cmaes) and, for the version-mismatch run, ``pip install --no-deps --target /tmp/waveaq-b-job/shared-site
optuna==3.0.6 cmaes`` (the older tuning box's site directory). Run it with any Python that has psutil.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-aq-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveaq_b/generate.py"
SPLIT = "heldout46"
JOBS = Path("/tmp/waveaq-b-job")
SCRATCH = Path("/tmp/waveaq-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"aq": Path("/tmp/corpus-venv-aq-b/bin")}
SCRIPTS = ("make_air.py", "aqdata.py", "tune_pm25.py", "ddp_trial.py", "launch.sh", "gapfill.c")
DONE = "; echo \"job exited with $?\""


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "aq"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""  # after stale_ready: SIGKILL the stale job's processes whose command line matches this regex
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # ((regex | seconds, "hup" | "int" | "usr1" | "term" | "kill0" | "cmd:<bash>"[, wait_s]), ...) in order
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log
    linger: bool = False  # after the command's own process is gone, wait for what it started (orphans) to end too
    logfile: str = ""  # keep this file of the job dir (the job's own redirection) as job.log, not the console


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def at(tpl: str, port: int, **kw) -> str:
    tpl = tpl.replace("{port}", str(port))
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", str(v))
    return tpl


DATA = "{py} make_air.py --out data > /dev/null && mkdir -p study"
XA = "seq 0 1 | xargs -P 2 -I{} python tune_pm25.py --worker {} "
LA = "./launch.sh 2 "
MP = "python tune_pm25.py --procs 2 "
DDP = "python tune_pm25.py --ddp --master-port {port} "
JR = "--journal study/pm25.journal "
SQ = "--storage sqlite:///pm25.db "
OK = r"best trial[\s\S]*job exited with 0"
OLD = "/tmp/waveaq-b-job/shared-site"
STALE = (" && {py} -c " + sh_quote(  # an earlier search on this host killed with kill -9 while it held the journal lock
    "import os, signal, subprocess, sys\n"
    "journal = sys.argv[1]\n"
    "lock = journal + '.lock'\n"
    "for attempt in range(40):\n"
    "    p = subprocess.Popen([sys.executable, 'tune_pm25.py', '--journal', journal, '--n-trials', '200'],\n"
    "                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "    while p.poll() is None:\n"
    "        if os.path.exists(journal) and os.path.getsize(journal) > 15000 and os.path.islink(lock):\n"
    "            os.kill(p.pid, signal.SIGKILL)\n"
    "            break\n"
    "    p.wait()\n"
    "    if os.path.islink(lock):\n"
    "        break\n") + " {journal}")
ABS = "/tmp/waveaq-b-job/run/study/pm25.journal"
SCENARIOS = [
    # --- xargs -P: one worker per argument ---------------------------------------------------------------------------
    Scenario("xargs-pm25-healthy", "no_failure", "optuna", XA + JR + "--n-trials 6 --epochs 4" + DONE,
             r"pruned[\s\S]*job exited with 0", prep=DATA),
    Scenario("xargs-pm25-citywide-context", "host_oom_killed", "optuna",
             XA + JR + "--context all-stations --windows 24,168,336 --n-trials 6" + DONE, r"signal 9|Killed",
             prep=DATA, memory=1_500_000_000),
    Scenario("xargs-pm25-rmsprop", "worker_exception", "optuna", XA + JR + "--optimizers adam,rmsprop --n-trials 6" + DONE,
             r"KeyError: 'rmsprop'", prep=DATA),
    Scenario("xargs-pm25-raw-target-sgd", "training_divergence", "optuna",
             XA + JR + "--optimizers sgd --target raw --lr-min 0.3 --lr-max 1.0 --pruner none --n-trials 3" + DONE,
             r"loss nan[\s\S]*failed with value nan", prep=DATA),
    Scenario("xargs-pm25-study-volume", "disk_full", "optuna", XA + JR + "--n-trials 10" + DONE,
             r"No space left|Errno 28", prep=DATA.replace(" && mkdir -p study", ""),
             tmpfs=(("study", "64k", 40_000),)),
    Scenario("xargs-pm25-healthy-after-kill", "no_failure", "optuna",
             XA + "--journal " + ABS + " --n-trials 6 --epochs 4" + DONE,
             r"Forcibly releasing[\s\S]*job exited with 0", prep=DATA + STALE.replace("{journal}", ABS), timeout=300),
    Scenario("xargs-pm25-rerun-after-kill", "silent_hang", "optuna", XA + JR + "--n-trials 6 --epochs 4" + DONE,
             r"taking longer than", prep=DATA + STALE.replace("{journal}", "study/pm25.journal"),
             trigger=((75, "int"),), timeout=300),
    # --- launch.sh: N background workers, each one's status reported -------------------------------------------------
    Scenario("launch-pm25-healthy-new-station", "no_failure", "optuna",
             LA + SQ + "--windows 24,48,336 --n-trials 6 --catch ValueError" + DONE,
             r"Trial \d+ failed[\s\S]*job exited with 0",
             prep=DATA + " && {py} make_air.py --out data --stations 7 --only 7 --hours 240 > /dev/null"),
    Scenario("launch-pm25-gapfill-native", "native_crash", "optuna", LA + JR + "--gap-fill native --n-trials 6" + DONE,
             r"stack smashing|Aborted", prep=DATA + " && {py} make_air.py --out data --only 3 --outage-hours 300 "
             "> /dev/null && gcc -O2 -fstack-protector-strong -shared -fPIC gapfill.c -o libgapfill.so"),
    Scenario("launch-pm25-new-sensor", "worker_exception", "optuna", LA + SQ + "--n-trials 6" + DONE,
             r"ValueError: all the input array dimensions",
             prep=DATA + " && {py} make_air.py --out data --only 4,5 --extra-channels no2 > /dev/null"),
    Scenario("launch-pm25-time-limit", "job_preempted", "optuna", LA + JR + "--n-trials 40" + DONE, r"Trial 4 ",
             prep=DATA, trigger=((r"Trial 4 finished|Trial 4 pruned", "sig:TERM:launch\\.sh|tune_pm25\\.py", 2),)),
    # --- multiprocessing: --procs N ------------------------------------------------------------------------------------
    Scenario("mp-pm25-healthy-cmaes", "no_failure", "optuna",
             MP + JR + "--sampler cmaes --pruner hyperband --n-trials 6 --epochs 4" + DONE, OK, prep=DATA),
    Scenario("mp-pm25-ssh-closed", "terminal_hangup", "optuna", MP + JR + "--n-trials 40" + DONE, r"Trial 4 ",
             prep=DATA, trigger=((r"Trial 4 finished|Trial 4 pruned", "hup", 2),)),
    # --- two hosts on one SQLite study --------------------------------------------------------------------------------
    Scenario("hosts-pm25-tuning-box", "library_version_mismatch", "optuna",
             "python tune_pm25.py --worker 0 " + SQ + "--n-trials 6" + DONE, r"no longer compatible",
             prep=DATA, nodes=((6, f"PYTHONPATH={OLD} python tune_pm25.py --worker 1 " + SQ + "--n-trials 6" + DONE),)),
    # --- trials as 2-process DDP runs under torchrun ------------------------------------------------------------------
    Scenario("ddp-pm25-healthy", "no_failure", "optuna", at(DDP, 30664) + JR + "--n-trials 3 --epochs 2" + DONE, OK,
             prep=DATA),
    Scenario("ddp-pm25-parallel-trials", "port_in_use", "optuna",
             at(DDP, 30665) + JR + "--n-jobs 2 --n-trials 4 --epochs 2" + DONE, r"EADDRINUSE", prep=DATA),
    Scenario("ddp-pm25-cluster-config", "rendezvous_timeout", "optuna",
             at(DDP, 30666) + JR + "--world-size 4 --n-trials 3 --epochs 2" + DONE, r"DistStoreError", prep=DATA,
             timeout=240),
    Scenario("ddp-pm25-station-retired", "collective_mismatch", "optuna",
             at(DDP, 30668) + JR + "--max-steps 0 --n-trials 3 --epochs 2" + DONE, r"collective mismatch",
             prep=DATA.replace("make_air.py --out data", "make_air.py --out data --stations 5"), timeout=240),
    Scenario("ddp-pm25-grad-accum", "batch_size_mismatch", "optuna",
             at(DDP, 30667) + JR + "--accum 3 --batch-sizes 64,128,256 --n-trials 5 --epochs 2" + DONE,
             r"global batch size \d+ != ", prep=DATA, timeout=300),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def alive(pid: int, created: float) -> bool:
    with contextlib.suppress(psutil.Error):
        p = psutil.Process(pid)
        return p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE
    return False


class Tracker:
    """Every process seen below the job's shells (pid, create time), to kill what a run leaves behind."""

    def __init__(self, pids: list[int]) -> None:
        self.roots, self.seen = pids, {}

    def poll(self) -> None:
        for root in self.roots:
            with contextlib.suppress(psutil.Error):
                for c in psutil.Process(root).children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        self.seen.setdefault(c.pid, c.create_time())

    def kill_all(self) -> None:
        for root in self.roots:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(root, signal.SIGKILL)
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                if p.create_time() == created:
                    p.kill()
        for proc in psutil.process_iter():  # what stayed in a job's session (re-parented to init)
            with contextlib.suppress(psutil.Error, ProcessLookupError):
                if proc.pid not in self.roots and os.getsid(proc.pid) in self.roots:
                    proc.kill()




def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def slurm_text(job: Path, expect: str = "") -> str:
    outs = [Path(o).read_text(errors="replace") for o in sorted(glob.glob(str(job / "slurm-*.out")))]
    for o in outs:
        if expect and re.search(expect, o):
            return o
    return outs[0] if outs else ""


def _default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP disposition even when this generator runs under nohup (which ignores it)
    # stdin: an open pipe nobody writes to, like a terminal nobody types into
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_signals)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def run(s: Scenario) -> bool:
    job = JOBS / "run"  # one neutral directory for every scenario: no scenario name inside a log
    if job.exists():
        for d, *_ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / Path(src).name)
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
    if s.slurm_out and not slurm_ok():
        print(f"MISSING {s.name}: no Slurm controller answers (run slurm_setup.sh)", flush=True)
        return False
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", *s.unset):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    cwd_job = job
    stale = None
    if s.stale:  # another job already running on this host (its console is not kept)
        stale_out = bytearray()
        stale = launch(fill(s.stale, s, job), job, env, stale_out)
        t_stale = time.time()
        while not re.search(s.stale_ready, stale_out.decode(errors="replace")):
            if stale[0].poll() is not None or time.time() - t_stale > 120:
                print(f"  stale job not ready: {stale_out.decode(errors='replace')[-2000:]}", flush=True)
                break
            time.sleep(0.5)
        if s.stale_kill:  # the launcher killed with kill -9, its ranks left running (and holding their ports)
            for v in psutil.Process(stale[0].pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    if re.search(s.stale_kill, " ".join(v.cmdline())):
                        print(f"  stale: SIGKILL {v.pid} {' '.join(v.cmdline())[:100]}", flush=True)
                        v.kill()
            time.sleep(2)
    cmds = [(0, s.cmd), *s.nodes]
    cg = ""
    if s.memory:
        cgdir = own_memcg() / f"waveaq-b-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    outs = [bytearray() for _ in cmds]
    procs: list[tuple[subprocess.Popen, threading.Thread]] = []
    start = time.time()
    tracker = Tracker([stale[0].pid] if stale else [])
    fired = not s.trigger
    debuggers: list[subprocess.Popen] = []
    n_fired = 0
    hit_at = 0.0
    pending = list(enumerate(cmds))
    timed_out = False
    while True:
        for i, (delay, cmd) in list(pending):
            if time.time() - start >= delay:
                c = fill(cmd, s, job)
                if cg:
                    c = f"echo $$ > {cg}/cgroup.procs; {c}"
                if s.shm:  # a container-sized /dev/shm: a private mount namespace with its own tmpfs there
                    c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {c}")
                procs.append(launch(c, cwd_job, env, outs[i]))
                tracker.roots.append(procs[-1][0].pid)
                pending.remove((i, (delay, cmd)))
        tracker.poll()
        if not fired:
            what, action, *later = s.trigger[n_fired]
            if isinstance(what, (int, float)):
                hit = time.time() - start >= what
            else:
                text = slurm_text(job) if s.slurm_out else outs[0].decode(errors="replace")
                if s.logfile and (job / s.logfile).exists():
                    text = (job / s.logfile).read_text(errors="replace")
                hit = re.search(what, text) is not None
            if hit and later and not hit_at:
                hit_at = time.time()
                print(f"  trigger seen after {hit_at - start:.0f} s, {action} in {later[0]} s", flush=True)
            if hit and later:
                hit = time.time() - hit_at >= later[0]
            if hit:
                n_fired += 1
                fired = n_fired == len(s.trigger)
                hit_at = 0.0
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "kill-root":  # the terminal program holding the job's pseudo-terminal is gone
                    procs[0][0].kill()
                elif action == "hup":
                    os.killpg(procs[0][0].pid, signal.SIGHUP)
                elif action == "kill0":  # the first node's host lost: everything on it gone at once
                    with contextlib.suppress(psutil.Error):
                        victims = psutil.Process(procs[0][0].pid).children(recursive=True)
                        for v in victims:
                            with contextlib.suppress(psutil.Error):
                                v.kill()
                    os.killpg(procs[0][0].pid, signal.SIGKILL)
                elif action == "kill1":  # the second node's host lost: everything on it gone at once
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(procs[1][0].pid).children(recursive=True):
                            with contextlib.suppress(psutil.Error):
                                v.kill()
                    os.killpg(procs[1][0].pid, signal.SIGKILL)
                elif action == "usr1":  # the user asking every rank for a stack dump (faulthandler)
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if "tune_pm25.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "tune_pm25.py" in cl and v.name().startswith("python") and \
                                            ("--rank 1" in cl or e.get("OMPI_COMM_WORLD_RANK") == "1"):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
                elif action.startswith("sig:"):  # e.g. a scheduler or a user signalling every training process
                    _, signame, pattern = action.split(":", 2)
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if re.search(pattern, " ".join(v.cmdline())):
                                        print(f"  SIG{signame} {v.pid}", flush=True)
                                        v.send_signal(getattr(signal, "SIG" + signame))
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env)
        if not pending and all(p.poll() is not None for p, _ in procs):
            if not s.linger or not any(alive(pid, ct) for pid, ct in tracker.seen.items()):
                break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    if s.slurm_out or s.name.startswith("slurm"):
        ids = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout.split()
        if ids:  # this host's one-node cluster, started for these runs: cancel what the run left queued or running
            subprocess.run(["scancel", *ids])
    for d in debuggers:
        d.kill()
        d.wait()
    tracker.kill_all()
    for p, t in procs + ([stale] if stale else []):
        p.wait()
        t.join(5)
    for d, *_ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    for i, o in enumerate(outs):
        (job / f"console{i}.log").write_bytes(o)  # kept for a look at a MISSING run
        SCRATCH.mkdir(exist_ok=True)
        (SCRATCH / f"last-{s.name}-{i}.log").write_bytes(o)
    if s.slurm_out:
        logs = {"job.log": slurm_text(job, s.expect).encode()}
    elif s.logfile:
        logs = {"job.log": (job / s.logfile).read_bytes() if (job / s.logfile).exists() else b""}
    elif len(outs) == 1 or s.keep >= 0:
        logs = {"job.log": bytes(outs[max(s.keep, 0)])}
    elif False:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-waveaq-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        for fn, data in logs.items():
            (dest / fn).write_bytes(data)
    lines = ", ".join(f"{fn} {len(d.decode(errors='replace').splitlines())} lines" for fn, d in logs.items())
    rcs = ",".join(str(p.returncode) for p, _ in procs)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({lines}, rc {rcs}, {time.time() - start:.0f} s"
          f"{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-waveaq-b-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveaq-b-{s.name}/job.log"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:48} {s.label:26} {s.ecosystem}")
        return
    try:
        from notes import NOTES  # noqa: E402  (what each committed run showed; written after the runs)
    except ImportError:
        NOTES = {}

    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = row_key(s)
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
