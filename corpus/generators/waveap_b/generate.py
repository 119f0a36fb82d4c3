"""Generate wave AP (b)'s real runs (sealed batch ``heldout45``): warehouse control with Stable-Baselines3, the
environments stepped in worker processes (``SubprocVecEnv``, start method fork / forkserver / spawn).

Workload: ``make_warehouse.py`` writes a warehouse's exports (layout with each SKU's shelf slot, recent pick orders,
the SKU master with demand model, mean daily demand, dispersion, lead time, unit cost); ``warehouse_env.py`` holds two
gymnasium environments (``PickEnv``: an order-picking robot on a grid; ``InventoryEnv``: daily reorder quantities for
one SKU, demand drawn by ``demand.c`` -> ``libdemand.so`` through ctypes); ``train_warehouse.py`` trains PPO / A2C /
SAC with ``make_vec_env(..., vec_env_cls=SubprocVecEnv)`` or a ``SubprocVecEnv`` of one SKU per environment,
optional ``VecMonitor`` / ``VecCheckNan`` / ``VecNormalize``, ``CheckpointCallback`` and an ``EvalCallback`` with its
own environment processes, SB3's stdout/csv logger tables, and saves the policy. Under torchrun the processes form a
gloo group and run a small population-based loop (every few rollouts all-gather the recent mean episode reward, all
take the best copy's weights by broadcast). ``run_seeds.sh`` trains several seeds at once; ``evaluate_policy.py``
evaluates a saved policy. Launch modes: ``python train_warehouse.py`` (one learner, env worker processes),
``./run_seeds.sh "SEEDS" ...`` (several learners), ``torchrun --nproc-per-node 2`` (population exchange over gloo).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveap-b-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveap-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-ap-runs-b.csv``
(split and batch ``heldout45``). The harness is copied from ../waveao_c/generate.py (changes: the scenario list,
paths and names, a second venv, the ``killworker`` trigger).

    python3 corpus/generators/waveap_b/generate.py --list
    python3 corpus/generators/waveap_b/generate.py --scenario NAME
    python3 corpus/generators/waveap_b/generate.py --all

Needs root (tmpfs mounts, cgroup v1), gcc, the venv ``/tmp/corpus-venv-ap-b`` (torch 2.13.0+cpu, stable-baselines3
2.9.2, gymnasium 1.4.0, numpy 2.4, tensorboard) and ``/tmp/corpus-venv-ap-b-eval`` (the same with numpy 1.26.4).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ap-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveap_b/generate.py"
SPLIT = "heldout45"
JOBS = Path("/tmp/waveap-b-job")
SCRATCH = Path("/tmp/waveap-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"ap": Path("/tmp/corpus-venv-ap-b/bin"), "ev": Path("/tmp/corpus-venv-ap-b-eval/bin")}
SCRIPTS = ("make_warehouse.py", "warehouse_env.py", "train_warehouse.py", "evaluate_policy.py", "run_seeds.sh", "demand.c")
DATA = "{py} make_warehouse.py --out data > /dev/null && gcc -O2 -shared -fPIC -o libdemand.so demand.c -lm"
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



PY = "python train_warehouse.py "
TR = "torchrun --nproc-per-node 2 --master-port {port} train_warehouse.py "
SEEDS = "./run_seeds.sh \"1 2\" "
OK = r"saved policy[\s\S]*job exited with 0"
PREV = " && {py} train_warehouse.py --timesteps 4096 --eval-every 0 --ckpt-every 0 --out prev {extra}> /dev/null"
INV = "--task inventory "
SCENARIOS = [
    # --- one learner, SubprocVecEnv workers ------------------------------------------------------------------------
    Scenario("sub-pick-healthy", "no_failure", "stable-baselines3",
             PY + "--timesteps 16000 --eval-vec dummy" + DONE, OK, prep=DATA),
    Scenario("sub-pick-healthy-resume", "no_failure", "stable-baselines3",
             PY + "--timesteps 8192 --start-method forkserver --resume prev/warehouse_pick.zip --vec-monitor" + DONE,
             OK, prep=DATA + PREV.replace("{extra}", "")),
    Scenario("sub-inventory-lumpy-sku", "native_crash", "stable-baselines3",
             PY + INV + "--n-steps 64 --timesteps 12000 --start-method forkserver" + DONE,
             r"Segmentation fault|Bus error", env={"PYTHONFAULTHANDLER": "1"},
             prep=DATA + " && {py} make_warehouse.py --out data --add-sku SKU-0103,negbin,40,0.02,2,12.0 > /dev/null",
             timeout=200),
    Scenario("sub-inventory-bulk-sku", "silent_hang", "stable-baselines3",
             PY + INV + "--n-steps 64 --timesteps 40000" + DONE, r"KeyboardInterrupt",
             prep=DATA + " && {py} make_warehouse.py --out data --add-sku SKU-0108,poisson,900,,1,0.2 > /dev/null",
             trigger=((r"Logging to", "int", 90), (r"Logging to", "sig:KILL:train_warehouse", 20)), timeout=260),
    Scenario("sub-pick-order-export", "worker_exception", "stable-baselines3",
             PY + "--timesteps 16000 --start-method spawn" + DONE, r"KeyError",
             prep=DATA + " && {py} make_warehouse.py --out data --add-order-sku A131 > /dev/null", timeout=200),
    Scenario("sub-pick-new-layout-resume", "worker_exception", "stable-baselines3",
             PY + "--timesteps 8192 --obs grid --layout data/layout-9.json --resume prev/warehouse_pick.zip" + DONE,
             r"Observation spaces do not match",
             prep=DATA + PREV.replace("{extra}", "--obs grid ")
             + " && {py} make_warehouse.py --out data --size 9 --layout-name layout-9.json --orders-name orders-9.csv"
             " > /dev/null"),
    Scenario("sub-pick-camera-grid", "host_oom_killed", "stable-baselines3",
             PY + "--obs grid --layout data/layout-hall.json --n-steps 2048 --batch-size 256 --timesteps 40000" + DONE,
             r"Killed|137",
             prep=DATA + " && {py} make_warehouse.py --out data --size 96 --layout-name layout-hall.json"
             " --orders-name orders-hall.csv > /dev/null", memory=1_200_000_000, timeout=300),
    Scenario("sub-inventory-price-sentinel", "training_divergence", "stable-baselines3",
             PY + INV + "--n-steps 64 --timesteps 40000" + DONE, r"found invalid values",
             prep=DATA + " && {py} make_warehouse.py --out data --add-sku SKU-0116,poisson,15,,2,1.7976931348623157e308"
             " > /dev/null", timeout=300),
    Scenario("sub-inventory-sac-keep-buffer", "disk_full", "stable-baselines3",
             PY + INV + "--algo sac --n-envs 2 --timesteps 12000 --ckpt-every 2000 --save-replay-buffer"
             " --ckpt-dir scratch/ckpt" + DONE,
             r"No space left on device", prep=DATA, tmpfs=(("scratch", "6m", 3_000_000),), timeout=300),
    Scenario("sub-pick-worker-killed", "peer_process_died", "stable-baselines3",
             PY + "--timesteps 400000" + DONE, r"EOFError|ConnectionResetError|BrokenPipeError",
             prep=DATA, trigger=((r"Eval num_timesteps=8000", "killworker", 3),), timeout=200),
    Scenario("eval-pick-analysis-box", "library_version_mismatch", "stable-baselines3",
             "python evaluate_policy.py --policy prev/warehouse_pick.zip" + DONE, r"numpy\._core|numpy",
             prep=DATA.replace("{py}", "/tmp/corpus-venv-ap-b/bin/python")
             + PREV.replace("{extra}", "").replace("{py}", "/tmp/corpus-venv-ap-b/bin/python"), venv="ev"),
    # --- several learners from a shell script -----------------------------------------------------------------------
    Scenario("seeds-inventory-healthy", "no_failure", "stable-baselines3",
             SEEDS + INV + "--algo a2c --n-steps 8 --lr 7e-4 --start-method forkserver --timesteps 12000" + DONE,
             r"seed 2 finished with exit code 0[\s\S]*job exited with 0", prep=DATA, timeout=300),
    Scenario("seeds-pick-time-limit", "job_preempted", "stable-baselines3",
             SEEDS + "--timesteps 400000" + DONE, r"caught SIGTERM", prep=DATA,
             trigger=((r"Eval num_timesteps=8000", "sig:TERM:run_seeds\\.sh|train_warehouse\\.py", 5),), linger=True,
             timeout=300),
    # --- torchrun: population exchange over gloo ----------------------------------------------------------------------
    Scenario("torchrun-pick-healthy-pbt", "no_failure", "stable-baselines3",
             at(TR, 30551) + "--timesteps 8000 --n-envs 2 --n-steps 100 --eval-every 4000 --start-method spawn" + DONE,
             OK, prep=DATA, timeout=300),
    Scenario("torchrun-pick-layout-mix", "collective_mismatch", "stable-baselines3",
             at(TR, 30553) + "--timesteps 8000 --n-envs 2 --n-steps 96 --exchange-every 2 --obs grid"
             " --layouts data/layout.json,data/layout-9.json" + DONE, r"collective mismatch|preamble",
             prep=DATA + " && {py} make_warehouse.py --out data --size 9 --layout-name layout-9.json"
             " --orders-name orders-9.csv > /dev/null", timeout=200),
    Scenario("torchrun-pick-ssh-closed", "terminal_hangup", "stable-baselines3",
             at(TR, 30555) + "--timesteps 400000 --n-envs 2" + DONE, r"exchange 2 at", prep=DATA,
             trigger=((r"exchange 2 at", "hup", 2),), timeout=200),
    Scenario("torchrun-pick-dashboard-port", "port_in_use", "stable-baselines3",
             at(TR, 30557) + "--timesteps 8000 --n-envs 2" + DONE, r"EADDRINUSE|address already in use|Address already in use",
             prep=DATA + " && mkdir -p runs", stale="tensorboard --logdir runs --port 30557 --bind_all",
             stale_ready=r"TensorBoard|http", timeout=200),
    Scenario("torchrun-pick-cluster-script", "rendezvous_timeout", "stable-baselines3",
             "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:30559"
             " --rdzv-conf join_timeout=45 train_warehouse.py --timesteps 8000 --n-envs 2" + DONE,
             r"RendezvousTimeoutError|timed out|Timeout", prep=DATA, timeout=200),
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
        cgdir = own_memcg() / f"waveap-b-{s.name}"
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
                                    if "train_warehouse.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "train_warehouse.py" in cl and v.name().startswith("python") and \
                                            ("--rank 1" in cl or e.get("OMPI_COMM_WORLD_RANK") == "1"):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action == "killworker":  # someone's kill -9 on one environment worker of the learner
                    workers = []
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    par = v.parent()
                                    if "train_warehouse.py" in " ".join(v.cmdline()) and par \
                                            and par.name().startswith("python") \
                                            and "train_warehouse.py" in " ".join(par.cmdline()):
                                        workers.append(v)
                    if workers:  # the first environment worker (the lowest pid)
                        v = min(workers, key=lambda w: w.pid)
                        print(f"  SIGKILL worker {v.pid}", flush=True)
                        with contextlib.suppress(psutil.Error):
                            v.kill()
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
        dest = CORPUS / "logs" / f"run-waveap-b-{s.name}"
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
    return f"logs/run-waveap-b-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveap-b-{s.name}/job.log"


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

    chosen = SCENARIOS if a.all else [s for n in a.scenario for s in SCENARIOS if s.name == n]
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
