"""Generate wave AL (b)'s real runs (sealed batch ``heldout41``): a tabular click-through-rate model on TensorFlow
(synthetic Criteo-layout click logs: 13 count features and 26 hashed categorical features into one embedding table, a
DCN-style cross network beside an MLP, binary cross entropy, validation AUC aggregated over workers; the chief writes
tf.train.CheckpointManager checkpoints and a SavedModel), trained with tf.distribute.MultiWorkerMirroredStrategy (Keras
model.fit or a custom loop with strategy.run + GradientTape), workers as separate processes on localhost ports started
by a TF_CONFIG launcher script (``run_workers.sh``) or by Open MPI ``mpirun`` (each rank builds its TF_CONFIG from the
OMPI environment). Each run has one cause made to happen for real (or none, for the healthy runs).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveal-b-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would (or, with ``logfile``, keeps the file the job's command line redirected its output to;
with ``nodes`` and ``keep``, keeps one "host"'s console). It checks that the expected signature is in the log (else
MISSING, nothing written, exit 1) and writes ``corpus/logs/run-waveal-b-<name>/job.log`` and its row of
``corpus/manifest.d/wave-al-runs-b.csv`` (split and batch ``heldout41``). The harness is copied from
../waveak_a/generate.py (changes: the worker-signal triggers ``term-workers`` and ``kill-worker1`` find the job's
``ctr.py`` processes by their TF_CONFIG / Open MPI rank; a ``cleanup`` command; TF_USE_LEGACY_KERAS=1 in the job's
environment unless a scenario removes it).

    python3 corpus/generators/waveal_b/generate.py --list
    python3 corpus/generators/waveal_b/generate.py --scenario NAME
    python3 corpus/generators/waveal_b/generate.py --all

Needs root (tmpfs mounts, cgroup v1), Open MPI, tmux and the venv ``/tmp/corpus-venv-al-b`` (``pip install
tensorflow-cpu numpy psutil tf-keras``: tensorflow 2.21.0, tf-keras 2.21.0, keras 3.15.1, numpy 2.4.6). Run it with
any Python that has psutil.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import json
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
FRAGMENT = CORPUS / "manifest.d" / "wave-al-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveal_b/generate.py"
SPLIT = "heldout41"
JOBS = Path("/tmp/waveal-b-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"alb": Path("/tmp/corpus-venv-al-b/bin")}
SCRIPTS = ("ctr.py", "make_ctr.py", "run_workers.sh")
MPI = "mpirun --allow-run-as-root --oversubscribe"
DATA = "{py} make_ctr.py --out data"
DONE = "; echo \"job exited with $?\""
RW = "./run_workers.sh -p {port} -- ctr.py "  # TF_CONFIG launcher: 2 workers on localhost:{port}, {port}+1
MPIRUN = "{mpi} -np {np} {py} ctr.py --port-base {port} "
TMUX = "tmux -L ctr"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "alb"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""  # after stale_ready: SIGKILL the stale job's processes whose command line matches this regex
    stale_int: bool = False  # after stale_ready: Ctrl-C (SIGINT to the stale job's process group), then 3 s
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False
    trigger: tuple = ()  # ((regex | seconds, action[, wait_s]), ...) in order
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log
    linger: bool = False  # after the command's own process is gone, wait for what it started (orphans) to end too
    logfile: str = ""  # keep this file of the job dir (the job's own redirection) as job.log, not the console
    cleanup: str = ""  # bash run in the job dir after the run (not logged)


def at(tpl: str, port: int, np_: int = 2) -> str:
    return tpl.replace("{port}", str(port)).replace("{np}", str(np_))


A = "--epochs 3"
H = "--epochs 4"  # healthy runs: longer
OK = r"\[worker 0\] done: 4 epochs[\s\S]*job exited with 0"
SCENARIOS = [
    # --- TF_CONFIG launcher script (run_workers.sh) ------------------------------------------------------------------
    Scenario("workers-ctr-healthy", "no_failure", "tensorflow",
             at(RW, 29601) + "--loop fit --backup-dir backup " + H + DONE, r"cuInit[\s\S]*" + OK, prep=DATA),
    Scenario("workers-ctr-spot-restart", "no_failure", "tensorflow",
             at(RW.replace("-p {port}", "-p {port} -r 1"), 29606) + "--loop fit --backup-dir backup " + H + DONE,
             r"restarting all workers[\s\S]*" + OK, prep=DATA,
             trigger=((r"\[worker 1\] epoch 2 step 20", "kill-worker1", 1),), timeout=400),
    Scenario("workers-ctr-custom-loop-healthy", "no_failure", "tensorflow",
             at(RW, 29608) + "--loop ctl --preemption-handler " + H + DONE, OK, prep=DATA),
    Scenario("workers-ctr-title-feature", "worker_exception", "tensorflow", at(RW, 29612) + "--loop fit " + A + DONE,
             r"Expect \d+ fields but have \d+", prep=DATA + " --free-text 1"),
    Scenario("workers-ctr-fewer-collisions", "host_oom_killed", "tensorflow",
             at(RW, 29625) + "--loop fit --hash-buckets 2000000 " + A + DONE, r"exited with 137|Killed",
             prep=DATA, memory=3_000_000_000, timeout=300),
    Scenario("workers-ctr-spot-preemption", "job_preempted", "tensorflow",
             at(RW, 29627) + "--loop ctl --preemption-handler --tf-log-level INFO --epochs 30" + DONE, r"[Pp]reempt|SIGTERM|termination",
             prep=DATA, trigger=((r"\[worker 1\] epoch 2 step 20", "term-workers", 1),), timeout=300),
    Scenario("workers-ctr-serving-export", "disk_full", "tensorflow",
             at(RW, 29638) + "--loop fit --export-dir models " + A + DONE,
             r"No space left on device|RESOURCE_EXHAUSTED|ResourceExhausted", prep=DATA, tmpfs=(("models", "8m", 5_500_000),)),
    # --- Open MPI mpirun (TF_CONFIG built from OMPI_COMM_WORLD_RANK/SIZE) ---------------------------------------------
    Scenario("mpirun-ctr-healthy-3-ranks", "no_failure", "tensorflow",
             at(MPIRUN.replace("-np {np}", "-np {np} --tag-output"), 29603, 3) + "--loop ctl --global-batch 240 " + H + DONE,
             r"done: 4 epochs[\s\S]*job exited with 0", prep=DATA + " --shards 6 --rows 2000 --val-shards 3 --val-rows 1000"),
    Scenario("mpirun-ctr-new-export", "training_divergence", "tensorflow",
             at(MPIRUN, 29610) + "--loop ctl " + A + DONE, r"loss is nan|loss is -?inf", prep=DATA + " --neg-counts 3 --neg-rate 0.0004"),
    Scenario("mpirun-ctr-metrics-file", "worker_exception", "tensorflow",
             at(MPIRUN, 29614) + "--loop ctl --metrics-json metrics.json " + A + DONE, r"not JSON serializable", prep=DATA),
    Scenario("mpirun-ctr-export-best", "collective_mismatch", "tensorflow",
             at(MPIRUN, 29616) + "--loop ctl --export-best " + A + DONE, r"Collective instance \d+ expected", prep=DATA),
    Scenario("mpirun-ctr-3-ranks", "batch_size_mismatch", "tensorflow",
             at(MPIRUN, 29620, 3) + "--loop ctl " + A + DONE, r"not divisible by `num_replicas_in_sync`",
             prep=DATA + " --shards 6 --rows 2000"),
    Scenario("mpirun-ctr-third-cross-layer", "silent_hang", "tensorflow",
             at(MPIRUN, 29623) + "--loop ctl --cross-layers 3 " + A + DONE,
             r"Delete them and start from scratch\? \[y/N\]", timeout=300,
             prep=DATA + " && " + at(MPIRUN, 29623) + "--loop ctl --epochs 1 > /dev/null 2>&1",
             trigger=((180, "int"),)),
    Scenario("mpirun-ctr-streamed-shard", "collective_timeout", "tensorflow",
             at(MPIRUN, 29625) + "--loop ctl --allreduce-timeout 30 " + A + DONE,
             r"Collective has timed out", timeout=240,
             prep=DATA + " && rm data/train/part-00003.tsv && mkfifo data/train/part-00003.tsv"),
    Scenario("mpirun-ctr-new-image", "library_version_mismatch", "tensorflow",
             at(MPIRUN, 29629) + "--loop fit " + A + DONE, r"PerReplica|unsupported type", prep=DATA,
             unset=("TF_USE_LEGACY_KERAS",)),
    Scenario("mpirun-ctr-tmux-session", "terminal_hangup", "tensorflow",
             TMUX + " new-session -d -s ctr -x 200 -y 50 'cd {job} && " + at(MPIRUN, 29636)
             + "--loop ctl --epochs 30 > train.log 2>&1" + DONE + " >> train.log'; while " + TMUX
             + " has-session -t ctr 2>/dev/null; do sleep 1; done; sleep 20",
             r"SIGTERM caught|[Hh]angup|SIGHUP", prep=DATA, logfile="train.log",
             trigger=((r"\[worker 1\] epoch 2 step 20", "cmd:" + TMUX + " kill-session -t ctr", 1),),
             cleanup=TMUX + " kill-server 2>/dev/null", timeout=300),
    # --- port taken, rendezvous -------------------------------------------------------------------------------------
    Scenario("workers-ctr-rerun", "port_in_use", "tensorflow",
             at(RW, 29630) + "--loop fit " + A + DONE, r"Could not start gRPC server|[Aa]ddress already in use",
             prep=DATA + " && printf 'localhost:29630\\nlocalhost:29631\\nlocalhost:29632\\n' > workers.txt",
             stale="./run_workers.sh -n 2 -f workers.txt -- ctr.py --loop fit " + A,
             stale_ready=r"Waiting for 1/3 tasks", stale_int=True),
    Scenario("workers-ctr-two-hosts", "rendezvous_timeout", "tensorflow",
             "./run_workers.sh -n 1 -i 0 -f cluster.txt -- ctr.py --loop fit --register-timeout 60 " + A + DONE,
             r"Deadline Exceeded|DeadlineExceeded", prep=DATA + " && printf 'localhost:29633\\nlocalhost:29634\\n' > "
             "cluster.txt && printf 'localhost:29601\\nlocalhost:29602\\n' > workers.txt",
             nodes=((3, "./run_workers.sh -n 1 -i 1 -f workers.txt -- ctr.py --loop fit --register-timeout 60 " + A
                     + DONE),), keep=1, trigger=((130, "kill0"),), timeout=200),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"mpi": MPI, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
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


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP disposition even when this generator runs under nohup (which ignores it)
    # stdin: an open pipe nobody writes to, like a terminal nobody types into
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))

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
        shutil.copy2(HERE / src, job / Path(src).name)
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
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", TF_USE_LEGACY_KERAS="1", PYTHON=str(b / "python"), **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG", *s.unset):
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
        if s.stale_int:  # the user pressing Ctrl-C in the terminal of the earlier job
            print("  stale: SIGINT to its process group", flush=True)
            os.killpg(stale[0].pid, signal.SIGINT)
            time.sleep(3)
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
        cgdir = own_memcg() / f"waveal-b-{s.name}"
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
                elif action in ("term-workers", "kill-worker1"):  # the scheduler / the host, by worker process
                    sig = signal.SIGTERM if action == "term-workers" else signal.SIGKILL
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if "ctr.py" not in " ".join(v.cmdline()) or not v.name().startswith("python"):
                                        continue
                                    e = v.environ()
                                    idx = json.loads(e["TF_CONFIG"])["task"]["index"] if "TF_CONFIG" in e else \
                                        int(e.get("OMPI_COMM_WORLD_RANK", -1))
                                    if action == "term-workers" or idx == 1:
                                        print(f"  {sig.name} -> {v.pid} (worker {idx})", flush=True)
                                        v.send_signal(sig)
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
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
    if s.cleanup:
        subprocess.run(["bash", "-c", fill(s.cleanup, s, job)], cwd=job, env=env)
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
        (JOBS / f"last-{s.name}-{i}.log").write_bytes(o)
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
        dest = CORPUS / "logs" / f"run-waveal-b-{s.name}"
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
    return f"logs/run-waveal-b-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveal-b-{s.name}/job.log"


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
