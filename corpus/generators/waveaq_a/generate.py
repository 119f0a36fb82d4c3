"""Generate wave AQ (a)'s real runs (sealed batch ``heldout46``): motor-insurance claim fraud scoring and claim
severity with scikit-learn trained in parallel over joblib (loky by default, ``backend="multiprocessing"`` through
``parallel_config`` where a user would) and process pools (synthetic policyholder, vehicle and claim-history exports
from ``make_claims.py``; ``train_claims.py`` runs GridSearchCV / RandomizedSearchCV for fraud, cross_validate of a
RandomForest / HistGradientBoosting severity regressor, or a data-parallel gamma GLM whose per-shard gradients are
computed by ``joblib.Parallel``, ``concurrent.futures.ProcessPoolExecutor`` or ``multiprocessing.Pool`` workers and
averaged by the driver). Launch modes: a plain ``python train_claims.py ...``, ``run_fits.sh`` (several fits at once
from one shell script), and ``nohup`` / ``timeout`` in front of either. Each run has one cause made to happen for real
(or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveaq-a-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveaq-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-aq-runs-a.csv``
(split and batch ``heldout46``). The harness is copied from ../waveap_c/generate.py (changes: the scenario list, paths
and names, a ``killchild`` trigger, ``shm_prefill``).

    python3 corpus/generators/waveaq_a/generate.py --list
    python3 corpus/generators/waveaq_a/generate.py --scenario NAME
    python3 corpus/generators/waveaq_a/generate.py --all

Needs root (tmpfs mounts, cgroup v1, unshare), gcc, the venv ``/tmp/corpus-venv-aq-a`` (scikit-learn 1.9.1, joblib
1.6.0, numpy 2.4.6, pandas 3.1.1, scipy, psutil) and, for one scenario, ``/tmp/corpus-venv-aq-a-old`` (scikit-learn
1.2.2, numpy 1.26.4: a colleague's environment). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-aq-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveaq_a/generate.py"
SPLIT = "heldout46"
JOBS = Path("/tmp/waveaq-a-job")
SCRATCH = Path("/tmp/waveaq-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"aq": Path("/tmp/corpus-venv-aq-a/bin"), "old": Path("/tmp/corpus-venv-aq-a-old/bin")}
SCRIPTS = ("make_claims.py", "train_claims.py", "claim_features.py", "vincheck.c", "run_fits.sh")
DATA = "{py} make_claims.py --out data > /dev/null"
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
    shm_prefill: int = 0  # MB already used in that /dev/shm (what earlier jobs left)
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # ((regex | seconds, "hup" | "int" | "usr1" | "term" | "kill0" | "cmd:<bash>"[, wait_s]), ...) in order
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log
    linger: bool = False  # after the command's own process is gone, wait for what it started (orphans) to end too
    logfile: str = ""  # keep this file of the job dir (the job's own redirection) as job.log, not the console


def at(tpl: str, port: int, **kw) -> str:
    tpl = tpl.replace("{port}", str(port))
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", str(v))
    return tpl


PY = "python train_claims.py "
OK = r"saved models/[\s\S]*job exited with 0"
BIG = DATA.replace("--out data", "--out data --policies 30000")
VIN = " && gcc -shared -fPIC -O2 -o libvincheck.so vincheck.c"
OLD = (" && /tmp/corpus-venv-aq-a-old/bin/python train_claims.py cv --model rf --trees 40 --folds 2 --no-quick-check "
       "--model-dir team-models > /dev/null 2>&1")
SCENARIOS = [
    # --- a plain python train_claims.py ... -----------------------------------------------------------------------------
    Scenario("search-fraud-healthy-failed-candidates", "no_failure", "joblib",
             PY + "search --model logreg --search random --n-iter 10 --extra-grid "
             "\"clf__solver=lbfgs,liblinear,saga;clf__penalty=l1,l2\"" + DONE,
             r"FitFailedWarning[\s\S]*saved models/fraud-logreg[\s\S]*job exited with 0", prep=DATA + VIN),
    Scenario("shards-severity-healthy-feature-cache", "no_failure", "joblib",
             PY + "shards --cache --steps 300 --log-every 25 --eval-every 100 --verbose 0" + DONE,
             r"A worker stopped while some jobs[\s\S]*finished 300 steps[\s\S]*job exited with 0", prep=BIG),
    Scenario("shards-severity-feature-cache-pod", "host_oom_killed", "joblib",
             PY + "shards --cache --steps 300 --log-every 25 --eval-every 100 --verbose 0" + DONE,
             r"SIGKILL|Killed|-9", prep=BIG, memory=750_000_000),
    Scenario("search-fraud-classic-cars", "native_crash", "joblib", PY + "search --vin-check native" + DONE,
             r"SIGABRT", prep=DATA.replace("--out data", "--out data --classic-share 0.01") + VIN),
    Scenario("search-fraud-siu-lift", "worker_exception", "joblib",
             PY + "search --scoring lift@10 --backend multiprocessing" + DONE, r"Can't pickle local object",
             prep=DATA + VIN),
    Scenario("search-fraud-broker-feed", "worker_exception", "joblib",
             PY + "search --model logreg --error-score raise" + DONE, r"contains NaN",
             prep=DATA.replace("--out data", "--out data --blank-value-share 0.02") + VIN),
    Scenario("shards-severity-rideshare", "worker_exception", "joblib", PY + "shards --steps 400 --verbose 10" + DONE,
             r"KeyError: 'rideshare'", prep=DATA.replace("--out data", "--out data --uses private,commute,business,rideshare")),
    Scenario("shards-severity-faster-lr", "training_divergence", "joblib",
             PY + "shards --pool futures --steps 400 --lr 1.5" + DONE, r"deviance is (inf|nan)", prep=DATA),
    Scenario("shards-severity-worker-killed", "peer_process_died", "joblib",
             PY + "shards --pool futures --steps 3000 --log-every 25 --eval-every 250" + DONE, r"BrokenProcessPool",
             prep=BIG, trigger=((r"step   75", "killchild:train_claims\\.py", 1),)),
    Scenario("cv-severity-quick-check", "silent_hang", "joblib",
             PY + "cv --model hgb --backend multiprocessing --verbose 5" + DONE, r"MultiprocessingBackend",
             prep=DATA, unset=("OMP_NUM_THREADS",),
             trigger=((r"MultiprocessingBackend", "int", 90), (130, "sig:KILL:train_claims\\.py")), timeout=240),
    Scenario("cv-severity-postcode-forest", "host_oom_killed", "joblib",
             PY + "cv --model rf --expand-postcode --trees 50 --no-quick-check --verbose 5" + DONE,
             r"SIGKILL|Killed|-9", prep=BIG.replace("--out data", "--out data --postcodes 3000"), memory=6_000_000_000),
    Scenario("cv-severity-team-model", "library_version_mismatch", "joblib",
             PY + "cv --model rf --init-from team-models/severity-rf.joblib --trees 40" + DONE,
             r"incompatible dtype", prep=DATA + OLD),
    Scenario("cv-severity-deep-forest", "disk_full", "joblib",
             PY + "cv --model rf --trees 120 --folds 3 --no-quick-check" + DONE, r"No space left on device",
             prep=DATA, tmpfs=(("models", "48m", 30_000_000),)),
    Scenario("cv-severity-container-shm", "shm_exhausted", "joblib",
             PY + "cv --model hgb --expand-postcode --no-quick-check" + DONE, r"No space left on device|Errno 28",
             prep=DATA.replace("--out data", "--out data --policies 26000 --postcodes 7000"), shm="2g"),
    # --- under timeout / nohup, and run_fits.sh (several fits at once) ----------------------------------------------------
    Scenario("timeout-severity-healthy-mp-backend", "no_failure", "joblib",
             "timeout 1800 " + PY + "cv --model rf --model-jobs 2 --backend multiprocessing --trees 60 --verbose 5" + DONE,
             OK, prep=DATA),
    Scenario("timeout-search-time-limit", "job_preempted", "joblib",
             "timeout 60 " + PY + "search --model rf" + DONE, r"job exited with 124", prep=DATA + VIN),
    Scenario("fits-healthy-nohup", "no_failure", "joblib",
             "nohup bash -c './run_fits.sh \"search --search random --n-iter 6 --folds 3\" \"cv --model rf --trees 40 "
             "--folds 3\"; echo \"job exited with $?\"' > fits.log 2>&1",
             r"fit 1 .*status 0[\s\S]*fit 2 .*status 0\njob exited with 0", prep=DATA + VIN,
             trigger=((r"Fitting 3 folds", "hup", 5),), logfile="fits.log", linger=True),
    Scenario("fits-hangup", "terminal_hangup", "joblib",
             "./run_fits.sh \"search --model rf --folds 5\" \"shards --pool mp --steps 3000 --log-every 100 "
             "--eval-every 500\"" + DONE, r"step  200", prep=DATA + VIN, trigger=((r"step  200", "hup", 2),)),
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
        cgdir = own_memcg() / f"waveaq-a-{s.name}"
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
                    fill_shm = (f" && head -c {s.shm_prefill}M /dev/zero > /dev/shm/.prefill-{os.getpid()}"
                                if s.shm_prefill else "")
                    c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm{fill_shm} && {c}")
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
                                    if "train_yield.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "train_yield.py" in cl and v.name().startswith("python") and \
                                            ("--rank 1" in cl or e.get("OMPI_COMM_WORLD_RANK") == "1"):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action.startswith("killchild:"):  # someone's kill -9 of one pool worker (a child of the driver)
                    pattern = action.split(":", 1)[1]
                    done = False
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in sorted(psutil.Process(root).children(recursive=True), key=lambda q: q.pid):
                                with contextlib.suppress(psutil.Error):
                                    par = v.parent()
                                    if not done and par and par.name().startswith("python") and \
                                            re.search(pattern, " ".join(par.cmdline())) and \
                                            re.search(pattern, " ".join(v.cmdline())):
                                        print(f"  SIGKILL {v.pid} (child of {par.pid})", flush=True)
                                        v.kill()
                                        done = True
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
        dest = CORPUS / "logs" / f"run-waveaq-a-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        for fn, data in logs.items():
            (dest / fn).write_bytes(data)
    lines = ", ".join(f"{fn} {len(d.decode(errors='replace').splitlines())} lines" for fn, d in logs.items())
    rcs = ",".join(str(p.returncode) for p, _ in procs)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({lines}, rc {rcs}, {time.time() - start:.0f} s"
          f"{', timed out' if timed_out else ''})", flush=True)
    return ok


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def row_key(s: Scenario) -> str:
    return f"logs/run-waveaq-a-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveaq-a-{s.name}/job.log"


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
