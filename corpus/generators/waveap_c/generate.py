"""Generate wave AP (c)'s real runs (sealed batch ``heldout45``): crop-yield regression from satellite-like
multispectral field patches with MindSpore data-parallel training on CPU (synthetic 5-band patches with weather
covariates and the crop from ``make_fields.py``; ``train_yield.py`` trains a small CNN with ``Model.train``,
``ParallelMode.DATA_PARALLEL`` gradient all-reduce over MindSpore's CPU collectives, a ``mindspore.dataset`` pipeline
with a ``map`` op computing NDVI, ``LossMonitor``/``TimeMonitor``/``ModelCheckpoint`` callbacks and a validation-RMSE
callback all-reduced across ranks). Launch modes: ``msrun --join=True`` (worker logs tailed to the console),
``msrun`` with its ``--log_dir`` files pasted after the run (``tail -n +1 msrun_logs/*.log``), and the dynamic
cluster's environment variables (``launch_cluster.sh``: MS_ROLE=MS_SCHED/MS_WORKER, MS_WORKER_NUM, MS_SCHED_HOST,
MS_SCHED_PORT; or two "hosts" started separately). Each run has one cause made to happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveap-c-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveap-c-<name>/job.log`` (or node0.log/node1.log) and its row of
``corpus/manifest.d/wave-ap-runs-c.csv`` (split and batch ``heldout45``). The harness is copied from
../waveao_c/generate.py (changes: the scenario list, paths and names).

    python3 corpus/generators/waveap_c/generate.py --list
    python3 corpus/generators/waveap_c/generate.py --scenario NAME
    python3 corpus/generators/waveap_c/generate.py --all

Needs root (tmpfs mounts, cgroup v1, unshare) and the venv ``/tmp/corpus-venv-ap-c`` (mindspore 2.10.0, numpy 1.26.4).
Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ap-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveap_c/generate.py"
SPLIT = "heldout45"
JOBS = Path("/tmp/waveap-c-job")
SCRATCH = Path("/tmp/waveap-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"ap": Path("/tmp/corpus-venv-ap-c/bin")}
SCRIPTS = ("make_fields.py", "train_yield.py", "launch_cluster.sh", "join_cluster.sh")
DATA = "{py} make_fields.py --out data --per-region 320 > /dev/null"
DONE = "; echo \"job exited with $?\""


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "ap"
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


def at(tpl: str, port: int, **kw) -> str:
    tpl = tpl.replace("{port}", str(port))
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", str(v))
    return tpl


MS = "msrun --worker_num=2 --local_worker_num=2 --master_port={port} --log_dir=msrun_logs --join=True train_yield.py "
# msrun's console not kept (run in the background); the user pastes the log folder after the run
LOGS = ("msrun --worker_num=2 --local_worker_num=2 --master_port={port} --log_dir=msrun_logs --join=True "
        "train_yield.py {args} > /dev/null 2>&1; rc=$?; tail -n +1 msrun_logs/*.log; echo \"job exited with $rc\"")
ENV = "./launch_cluster.sh 2 {port} "
OK = r"finished in[\s\S]*job exited with 0"
NPY = "{py} make_fields.py --out data --per-region 320 --format npy > /dev/null"
HANG_SVC = ("python -c \"import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
            "s.bind(('127.0.0.1', 30604)); s.listen(8); print('agronomy service listening', flush=True); "
            "time.sleep(100000)\"")
CACHED = (" && mkdir -p weather-cache && for r in 01 03; do echo '{\"scale\": [1.0, 1.0, 1.02, 0.98]}' "
          "> weather-cache/region-$r.json; done")
PREV = (" && msrun --worker_num=2 --local_worker_num=2 --master_port=30606 --log_dir=prev_logs --join=True train_yield.py "
        "--epochs 1 > /dev/null 2>&1")
SCENARIOS = [
    # --- msrun --join=True: the workers' logs tailed to the console -----------------------------------------------------
    Scenario("msrun-yield-healthy", "no_failure", "mindspore", at(MS, 30585) + "--epochs 3 --augment" + DONE, OK,
             prep=DATA),
    Scenario("msrun-yield-new-crop", "worker_exception", "mindspore", at(MS, 30586) + "--epochs 3" + DONE,
             r"KeyError", prep=DATA + " && {py} make_fields.py --out data --per-region 320 --only 04 "
             "--crops maize,wheat,soy,sorghum > /dev/null"),
    Scenario("msrun-yield-fine-patches", "worker_exception", "mindspore", at(MS, 30587) + "--epochs 3" + DONE,
             r"MatMul|shape|Shape", prep=DATA.replace("--per-region 320", "--per-region 320 --patch 24")),
    Scenario("msrun-yield-drought-year", "training_divergence", "mindspore",
             at(MS, 30588) + "--epochs 3 --log-target" + DONE, r"loss is NAN or INF",
             prep=DATA + " && {py} make_fields.py --out data --per-region 320 --only 02 --failed-fields 0.04 > /dev/null"),
    Scenario("msrun-yield-drone-grid", "host_oom_killed", "mindspore",
             at(MS, 30589) + "--epochs 3 --upsample 8 --patch 128" + DONE, r"-9|Killed|killed",
             prep=DATA, memory=1_500_000_000),
    Scenario("msrun-yield-frequent-ckpt", "disk_full", "mindspore",
             at(MS, 30590) + "--epochs 3 --ckpt-every 5 --keep-ckpt 20" + DONE, r"No space|space|Errno 28|write",
             prep=DATA, tmpfs=(("checkpoints", "1m", 400_000),)),
    Scenario("msrun-yield-time-limit", "job_preempted", "mindspore", at(MS, 30591) + "--epochs 40" + DONE,
             r"epoch: 2 step", prep=DATA, trigger=((r"epoch: 2 step: 10", "sig:TERM:bin/msrun |train_yield\\.py", 2),)),
    Scenario("msrun-yield-ssh-closed", "terminal_hangup", "mindspore", at(MS, 30592) + "--epochs 40" + DONE,
             r"epoch: 2 step", prep=DATA, trigger=((r"epoch: 2 step: 10", "hup", 2),)),
    Scenario("msrun-yield-second-experiment", "port_in_use", "mindspore", at(MS, 30593) + "--epochs 3 --lr 0.003" + DONE,
             r"in use|bind|Bind", prep=DATA,
             stale="msrun --worker_num=2 --local_worker_num=2 --master_port=30593 --log_dir=earlier_logs --join=True "
                   "train_yield.py --epochs 40 --ckpt-dir earlier-ckpt", stale_ready=r"epoch: 1 step: 10", timeout=240),
    Scenario("msrun-yield-small-shm", "shm_exhausted", "mindspore", at(MS, 30595) + "--epochs 3 --loader-workers 2 --max-rowsize 16" + DONE,
             r"shared memory", prep=DATA, shm="64m"),
    Scenario("msrun-yield-data-refresh", "native_crash", "mindspore", at(MS, 30597) + "--epochs 6 --mmap" + DONE,
             r"-7|Bus error|SIGBUS", prep=NPY,
             trigger=((r"epoch: 2 step: 10", "cmd:{py} make_fields.py --out data --per-region 100 --format npy "
                       "--only 02 > /dev/null"),)),
    Scenario("msrun-yield-third-host", "rendezvous_timeout", "mindspore",
             "msrun --worker_num=3 --local_worker_num=2 --master_port=30599 --log_dir=msrun_logs --join=True "
             "--cluster_time_out=90 train_yield.py --epochs 3" + DONE, r"time|Time", prep=DATA, timeout=240),
    Scenario("msrun-yield-weather-service", "silent_hang", "mindspore",
             at(MS, 30609) + "--epochs 3 --weather-api http://127.0.0.1:30610" + DONE, r"fetching weather",
             prep=DATA, stale=HANG_SVC.replace("30604", "30610"), stale_ready=r"listening",
             trigger=((r"fetching weather", "int", 120),), timeout=300),
    # --- msrun, then the log folder pasted ------------------------------------------------------------------------------
    Scenario("logs-yield-healthy-three-workers", "no_failure", "mindspore",
             LOGS.replace("--worker_num=2 --local_worker_num=2", "--worker_num=3 --local_worker_num=3").replace(
                 "{port}", "30596").replace("{args}", "--epochs 3 --mp --workers 2 --batch-size 24"), r"finished in[\s\S]*job exited with 0",
             prep=DATA.replace("--per-region 320", "--regions 6 --per-region 240")),
    Scenario("logs-yield-more-map-workers", "worker_exception", "mindspore",
             LOGS.replace("{port}", "30600").replace("{args}", "--epochs 3 --mp --workers 4"),
             r"num_parallel_workers exceeds", prep=DATA),
    Scenario("logs-yield-new-sensor", "collective_mismatch", "mindspore",
             LOGS.replace("{port}", "30598").replace("{args}", "--epochs 3"), r"rank 1\] regions.*6 bands",
             prep=DATA + " && {py} make_fields.py --out data --per-region 320 --only 02,04 --rededge > /dev/null",
             timeout=240),
    Scenario("logs-yield-team-site", "library_version_mismatch", "mindspore",
             LOGS.replace("{port}", "30594").replace("{args}", "--epochs 2"), r"NumPy 1\.x", prep=DATA,
             env={"PYTHONPATH": "/tmp/waveap-c-job/site-packages"}, timeout=240),
    # --- the dynamic cluster by environment variables ------------------------------------------------------------------
    Scenario("env-yield-healthy-late-worker", "no_failure", "mindspore",
             "LOCAL_WORKERS=1 " + at(ENV, 30601) + "--epochs 3" + DONE, r"finished in", prep=DATA,
             nodes=((25, "./join_cluster.sh 2 127.0.0.1 30601 1 --epochs 3" + DONE),)),
    Scenario("env-yield-healthy-resume", "no_failure", "mindspore",
             at(ENV, 30605) + "--epochs 2 --resume checkpoints/yieldnet-1_20.ckpt --ckpt-dir finetuned" + DONE, OK,
             prep=DATA + PREV),
    Scenario("env-yield-weather-service", "collective_timeout", "mindspore",
             at(ENV, 30603) + "--epochs 3 --weather-api http://127.0.0.1:30604" + DONE, r"fetching weather",
             prep=DATA + CACHED, stale=HANG_SVC, stale_ready=r"listening",
             trigger=((r"fetching weather", "int", 150),), timeout=300),
    Scenario("hosts-yield-host-lost", "peer_process_died", "mindspore",
             "LOCAL_WORKERS=1 " + at(ENV, 30607) + "--epochs 30" + DONE, r"epoch: 2 step", prep=DATA,
             nodes=((3, "./join_cluster.sh 2 127.0.0.1 30607 1 --epochs 30" + DONE),),
             trigger=((r"epoch: 2 step: 10", "kill1", 2),), keep=0, timeout=300),
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
        cgdir = own_memcg() / f"waveap-c-{s.name}"
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
        dest = CORPUS / "logs" / f"run-waveap-c-{s.name}"
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
    return f"logs/run-waveap-c-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveap-c-{s.name}/job.log"


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
