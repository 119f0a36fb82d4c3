"""Generate wave AP (a)'s real runs (sealed batch ``heldout45``): retail demand / stock-out prediction on Dask
distributed (synthetic per-store, per-item daily sales with prices, promotions, holidays and stock from
``make_sales.py``; ``train_demand.py`` builds features with dask.dataframe (a Dask groupby for item price means, pandas
rolling windows per item inside each store's partition) and trains either dask-ml's ``Incremental`` around
scikit-learn's ``SGDClassifier``, dask-ml's ``HyperbandSearchCV``, or a data-parallel numpy MLP whose per-partition
gradients come from ``client.map`` (or from one ``ShardTrainer`` actor per worker) and are averaged on the driver).
Launch modes: ``launch.sh`` (``dask scheduler`` + ``dask worker --nworkers N`` with nannies on this host, then the
client), ``train_demand.py --local 2`` (``LocalCluster(processes=True)`` in the driver), and two "hosts" started
separately (node 0: ``launch.sh -n 1`` with the client waiting for 2 workers; node 1: ``dask worker`` by hand).
Each scenario has one cause made to happen for real (or none, for the healthy runs).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveap-a-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveap-a-<name>/job.log`` (or node0.log/node1.log for a two-host run) and its row
of ``corpus/manifest.d/wave-ap-runs-a.csv`` (split and batch ``heldout45``). The harness is copied from
../waveao_c/generate.py (changes: the scenario list, paths and names, and a ``sig1:`` trigger that signals only the
first matching process).

    python3 corpus/generators/waveap_a/generate.py --list
    python3 corpus/generators/waveap_a/generate.py --scenario NAME
    python3 corpus/generators/waveap_a/generate.py --all --refresh-rows   # rows only

Needs root (tmpfs mounts, cgroup v1), gcc and the venv ``/tmp/corpus-venv-ap-a`` (dask/distributed 2026.8.0, dask-ml
2025.1.0, scikit-learn, pandas, pyarrow, psutil); dask/distributed 2024.12.1 in ``/tmp/waveap-a-job/site-packages``
for one scenario. Run it with the venv's python (psutil).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ap-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveap_a/generate.py"
SPLIT = "heldout45"
JOBS = Path("/tmp/waveap-a-job")
SCRATCH = Path("/tmp/waveap-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"ap": Path("/tmp/corpus-venv-ap-a/bin")}
SCRIPTS = ("make_sales.py", "train_demand.py", "launch.sh", "stock.c")
DATA = "{py} make_sales.py --out data > /dev/null"
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
    shm_fill: int = 0  # bytes already taken in that /dev/shm (what earlier jobs left there)
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


L = "./launch.sh -p {port} -m 1GiB -- "
LOC = "python train_demand.py --local 2 --memory-limit 1GiB --scheduler-port {port} "
NODE0 = "./launch.sh -p {port} -n 1 -m 1GiB -- --wait-workers 2 "
NODE1 = "dask worker tcp://127.0.0.1:{port} --nthreads 1 --memory-limit 1GiB "
OK = r"saved model[\s\S]*job exited with 0"
WORKER_PROC = r"spawn_main"
SCENARIOS = [
    # --- launch.sh: dask scheduler + dask worker --nworkers 2 (nannies) on this host, then the client ---------------------
    Scenario("shell-stockout-healthy", "no_failure", "dask", at(L, 30501) + "--trainer dp --epochs 4 --lr 0.05" + DONE, OK,
             prep=DATA),
    Scenario("shell-stockout-healthy-worker-killed", "no_failure", "dask",
             at(L, 30503) + "--trainer dp --epochs 6 --lr 0.05 --steps 40" + DONE, OK, prep=DATA,
             trigger=((r"epoch 2 step 10/", "sig1:KILL:" + WORKER_PROC),)),
    Scenario("shell-stockout-new-listing", "native_crash", "dask",
             at(L, 30505) + "--trainer dp --epochs 4 --days-cover native" + DONE, r"killed by signal 11[\s\S]*KilledWorker",
             prep=DATA + " && {py} make_sales.py --out data --only store-04 --new-item > /dev/null"
             " && gcc -shared -fPIC -o libstock.so stock.c"),
    Scenario("shell-stockout-promo-planner", "worker_exception", "dask",
             at(L, 30507) + "--trainer incremental --epochs 5" + DONE, r"KeyError: 'bogo'",
             prep=DATA + " && {py} make_sales.py --out data --only store-02 --promo-types bogo > /dev/null"),
    Scenario("shell-stockout-pilot-stores", "worker_exception", "dask",
             at(L, 30515) + "--trainer dp --shards actors --epochs 5" + DONE, r"IndexError",
             prep=DATA.replace("--out data", "--out data --stores 1")),
    Scenario("shell-stockout-ssh-closed", "terminal_hangup", "dask", at(L, 30509) + "--trainer dp --epochs 60" + DONE,
             r"epoch 3 step 5/", prep=DATA, trigger=((r"epoch 3 step 5/", "hup", 1),)),
    Scenario("shell-stockout-node-scratch", "disk_full", "dask",
             "./launch.sh -p 30511 -m 400MiB -l scratch -- --trainer dp --epochs 4" + DONE,
             r"No space left on device", prep=DATA.replace("--out data", "--out data --days 1095 --items 120"),
             tmpfs=(("scratch", "16m", 12_000_000),),
             trigger=((r"Spill to disk failed", "int", 75),), timeout=300),
    # --- LocalCluster(processes=True) started by the training script ----------------------------------------------------
    Scenario("local-stockout-healthy-dashboard-taken", "no_failure", "dask",
             at(LOC, 30530) + "--dashboard :30531 --trainer incremental --epochs 6" + DONE, OK, prep=DATA + " && mkdir models-shared",
             stale="python -m http.server 30531 --bind 127.0.0.1 --directory models-shared",
             stale_ready=r"Serving HTTP"),
    Scenario("local-stockout-hyperband", "library_version_mismatch", "dask",
             at(LOC, 30532) + "--trainer search --max-iter 9" + DONE,
             r"asynchronous Client in a synchronous context", prep=DATA),
    Scenario("local-stockout-scheduler-port", "port_in_use", "dask",
             at(LOC, 30513) + "--dashboard :30514 --trainer incremental --epochs 5" + DONE,
             r"[Aa]ddress already in use",
             prep=DATA, stale="dask scheduler --host 127.0.0.1 --port 30513 --dashboard-address :30514",
             stale_ready=r"Scheduler at"),
    Scenario("local-stockout-assortment-crosses", "host_oom_killed", "dask",
             at(LOC, 30533) + "--cross-item-window 56 --trainer incremental --epochs 5" + DONE,
             r"exceeded 95% memory budget[\s\S]*KilledWorker",
             prep=DATA.replace("--out data", "--out data --days 730 --items 60")),
    Scenario("local-stockout-vmi-store", "training_divergence", "dask",
             at(LOC, 30534) + "--trainer dp --epochs 5 --balance" + DONE, r"loss nan",
             prep=DATA + " && {py} make_sales.py --out data --only store-05 --vmi store-05 > /dev/null"),
    Scenario("local-stockout-container-shm", "shm_exhausted", "dask",
             at(LOC, 30537) + "--trainer dp --epochs 4" + DONE, r"No space left on device", prep=DATA,
             shm="64m", shm_fill=64 * 2**20),
    Scenario("local-stockout-node-reclaimed", "job_preempted", "dask",
             at(LOC, 30535) + "--trainer dp --epochs 60 --steps 40" + DONE, r"epoch 4 step", prep=DATA,
             trigger=((r"epoch 4 step 5/", "sig:TERM:^\\S*python\\S* train_demand\\.py", 1),)),
    Scenario("local-stockout-store-backtest", "silent_hang", "dask",
             at(LOC, 30536) + "--trainer dp --epochs 4 --store-report" + DONE, r"epoch 1/4 done", prep=DATA,
             trigger=((r"epoch 1/4 done", "int", 90), (r"epoch 1/4 done", "sig:KILL:.", 20)), timeout=240),
    # --- two "hosts": node 0 runs the scheduler, one worker and the client; node 1 runs `dask worker` by hand ---------------
    Scenario("hosts-stockout-healthy-late-worker", "no_failure", "dask",
             at(NODE0, 30527) + "--wait-timeout 120 --trainer dp --shards actors --epochs 5" + DONE, r"saved model",
             prep=DATA, nodes=((25, at(NODE1, 30527) + DONE),), trigger=((r"launch.sh: training client exited", "kill1", 5),),
             keep=0),
    Scenario("hosts-stockout-host-lost", "peer_process_died", "dask",
             at(NODE0, 30520) + "--trainer dp --shards actors --epochs 300" + DONE, r"epoch 3 step",
             prep=DATA, nodes=((3, at(NODE1, 30520) + DONE),), trigger=((r"epoch 3 step 5/", "kill1", 1),), keep=0),
    Scenario("hosts-stockout-old-runbook", "rendezvous_timeout", "dask",
             at(NODE0, 30522) + "--wait-timeout 90 --trainer dp --epochs 5" + DONE, r"TimeoutError",
             prep=DATA, nodes=((5, at(NODE1, 30524) + "--death-timeout 120" + DONE),), timeout=300),
    Scenario("hosts-stockout-team-env", "no_failure", "dask",
             at(NODE0, 30525) + "--trainer dp --epochs 5" + DONE, r"[Mm]ismatch|version",
             prep=DATA, nodes=((3, "export PYTHONPATH=/tmp/waveap-a-job/site-packages; " + at(NODE1, 30525) + "--death-timeout 30" + DONE),),
             timeout=240),
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
        cgdir = own_memcg() / f"waveap-a-{s.name}"
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
                    fill_shm = f"head -c {s.shm_fill} /dev/zero > /dev/shm/stale-segment 2>/dev/null; " if s.shm_fill else ""
                    c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {fill_shm}{c}")
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
                                    if "train_demand.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "train_demand.py" in cl and v.name().startswith("python") and \
                                            ("--rank 1" in cl or e.get("OMPI_COMM_WORLD_RANK") == "1"):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action.startswith("sig1:"):  # one process (the first whose command line matches)
                    _, signame, pattern = action.split(":", 2)
                    done1 = False
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if not done1 and re.search(pattern, " ".join(v.cmdline())):
                                        print(f"  SIG{signame} {v.pid} {' '.join(v.cmdline())[:80]}", flush=True)
                                        v.send_signal(getattr(signal, "SIG" + signame))
                                        done1 = True
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
        dest = CORPUS / "logs" / f"run-waveap-a-{s.name}"
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
    return f"logs/run-waveap-a-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveap-a-{s.name}/job.log"


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
