"""Generate wave AK (c)'s real runs (sealed batch ``heldout40``): a ConvLSTM video frame predictor (synthetic clips of
bouncing squares and discs with occlusion, 10 frames in / 5 frames out, an encoder-forecaster ConvLSTM, MSE + SSIM
loss, validation PSNR all-reduced, rank-0 checkpoints and sample-frame dumps as .npy), trained data-parallel over gloo
under torchrun (elastic restarts, two "nodes" with c10d rendezvous on this machine), torch.multiprocessing.spawn,
accelerate launch, Lightning Trainer and Fabric, and Open MPI mpirun, each run with one cause made to happen for real
(or none, for the healthy runs).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveak-c-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveak-c-<name>/job.log`` and its row of ``corpus/manifest.d/wave-ak-runs-c.csv``
(split and batch ``heldout40``). The harness is copied from ../waveaj_a/generate.py (additions: a ``kill-rank1``
trigger that SIGKILLs rank 1 once (unused in the end), a ``term-mpirun``
trigger, the team site directory with an older NumPy).

    python3 corpus/generators/waveak_c/generate.py --list
    python3 corpus/generators/waveak_c/generate.py --scenario NAME
    python3 corpus/generators/waveak_c/generate.py --all

Needs root (tmpfs mounts, cgroup v1), Open MPI, gcc and the venv ``/tmp/corpus-venv-nc`` (torch 2.13.0+cpu, numpy 2,
lightning, accelerate, psutil), and NumPy 1.24.4 installed with ``pip install --no-deps --target
/tmp/waveak-c-job/site-packages numpy==1.24.4`` for one scenario. Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ak-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveak_c/generate.py"
SPLIT = "heldout40"
TAG = "waveak-c"
JOBS = Path("/tmp/waveak-c-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"nc": Path("/tmp/corpus-venv-nc/bin")}
SCRIPTS = ("convlstm.py", "occl.c")
MPI = "mpirun --allow-run-as-root --oversubscribe"
MK = "{py} convlstm.py make --out data"
DONE = "; echo \"job exited with $?\""
TR = "{bin}/torchrun --nproc-per-node 2 --master-port {port} "
ACC = ("{bin}/accelerate launch --multi_gpu --num_machines 1 --num_processes 2 --mixed_precision no "
       "--dynamo_backend no --main_process_port {port} convlstm.py accelerate ")
MPIRUN = ("export MASTER_ADDR=127.0.0.1 MASTER_PORT={port} && {mpi} -np {np} -x MASTER_ADDR -x MASTER_PORT "
          "-x OMP_NUM_THREADS {py} convlstm.py mpi ")
SITE = "/tmp/waveak-c-job/site-packages"  # the team's shared site directory (NumPy 1.24.4 for an older tool)
HNODE = ("{bin}/torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29809 "
         "--rdzv-id convlstm-0398 convlstm.py ddp --epochs 4")
NODE = ("{bin}/torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29805 "
        "--rdzv-id convlstm-0412 convlstm.py ddp --epochs 4 --keep-last 1")


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "nc"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""  # after stale_ready: SIGKILL the stale job's processes whose command line matches this regex
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False
    trigger: tuple = ()  # ((regex | seconds, action[, wait_s]), ...) in order
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log


def at(tpl: str, port: int, np_: int = 2) -> str:
    return tpl.replace("{port}", str(port)).replace("{np}", str(np_))


OK = r"done: {n} epochs[\s\S]*job exited with 0"
SCENARIOS = [
    # --- torchrun --------------------------------------------------------------------------------------------------
    Scenario("torchrun-2node-convlstm-healthy-late-node", "no_failure", "torchrun",
             HNODE + DONE, OK.format(n=4), nodes=((15, HNODE + DONE),), keep=0, unset=("OMP_NUM_THREADS",),
             timeout=400),
    Scenario("torchrun-convlstm-new-export-shard", "worker_exception", "torchrun",
             "ls -l data; " + at(TR, 29803).replace("--master-port", "--max-restarts 2 --master-port")
             + "convlstm.py ddp --data data --epochs 3" + DONE,
             r"stack expects each tensor to be equal size",
             prep=MK + " --shards 3 && " + MK + " --shards 1 --first-shard 3 --size 48 && " + MK + " --split val --per-shard 48"),
    Scenario("torchrun-2node-convlstm-rolling-checkpoints", "disk_full", "torchrun",
             "df -h ckpt | tail -1; " + NODE + DONE, r"No space left|[Ee]rrno 28|file write failed|unexpected pos",
             nodes=((3, NODE + DONE),), keep=0, tmpfs=(("ckpt", "2m", 0),), timeout=300),
    Scenario("torchrun-convlstm-relabelled-shard", "collective_timeout", "torchrun",
             "ls -l data; " + at(TR, 29807) + "convlstm.py ddp --data data --epochs 3 --pg-timeout 45" + DONE,
             r"\(Pdb\)[\s\S]*([Tt]imed out|[Tt]imeout)",
             prep=MK + " --shards 3 && " + MK + " --shards 1 --first-shard 3 --scale-255 && " + MK + " --split val --per-shard 48",
             timeout=300),
    # --- accelerate launch ------------------------------------------------------------------------------------------
    Scenario("accelerate-convlstm-channels-last-healthy", "no_failure", "accelerate",
             at(ACC, 29816) + "--channels-last --epochs 4" + DONE, OK.format(n=4), timeout=400),
    Scenario("accelerate-convlstm-longer-clips-export", "collective_mismatch", "accelerate",
             "ls -l data; " + at(ACC, 29817) + "--data data --horizon-auto --epochs 3" + DONE,
             r"appears not to match|DDP expects same model|params\[",
             prep=MK + " --shards 1 && " + MK + " --shards 1 --first-shard 1 --frames 20 && " + MK
             + " --shards 1 --first-shard 2 && " + MK + " --split val --per-shard 48"),
    Scenario("accelerate-convlstm-ssh-session", "terminal_hangup", "accelerate",
             at(ACC, 29818) + "--epochs 30" + DONE, r"SIGHUP", trigger=((r"epoch 1 train loss", "hup"),), timeout=300),
    # --- torch.multiprocessing.spawn -------------------------------------------------------------------------------
    Scenario("mpspawn-convlstm-second-experiment", "port_in_use", "pytorch",
             "{py} convlstm.py spawn --epochs 4" + DONE, r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} convlstm.py spawn --epochs 40 --lr 5e-4", stale_ready=r"steps/epoch", timeout=200),
    Scenario("mpspawn-convlstm-background-sample-writer", "silent_hang", "pytorch",
             "{py} convlstm.py spawn --epochs 4 --keep-best --async-samples --port 29812" + DONE, r"KeyboardInterrupt",
             trigger=((r"epoch 1 train loss", "int", 75),), timeout=300),
    Scenario("mpspawn-convlstm-team-site-packages", "library_version_mismatch", "pytorch",
             "{py} convlstm.py spawn --data data --epochs 3 --port 29813" + DONE, r"No module named 'numpy._core'",
             prep=MK + " --format pkl && " + MK + " --split val --per-shard 48 --format pkl", env={"PYTHONPATH": SITE}),
    # --- Lightning Trainer / Fabric ---------------------------------------------------------------------------------
    Scenario("lightning-convlstm-healthy", "no_failure", "lightning",
             "{py} convlstm.py lightning --epochs 3" + DONE, r"fit finished[\s\S]*job exited with 0",
             env={"MASTER_PORT": "29821"}, timeout=400),
    Scenario("lightning-convlstm-antialiased-render", "host_oom_killed", "lightning",
             "{py} convlstm.py lightning --epochs 3 --supersample 8" + DONE, r"Killed|[Ss]ignal 9|SIGKILL|-9|137",
             env={"MASTER_PORT": "29822"}, memory=1_500_000_000, timeout=300),
    Scenario("fabric-convlstm-lars-large-batch", "training_divergence", "lightning",
             "{py} convlstm.py fabric --optimizer lars --lr 0.5 --batch 16 --epochs 3 --log-every 2" + DONE,
             r"loss nan", env={"MASTER_PORT": "29823"}),
    Scenario("fabric-convlstm-occlusion-weighting", "native_crash", "lightning",
             "{py} convlstm.py fabric --data data --occlusion-lib ./libocc.so --epochs 3" + DONE,
             r"Floating point exception|SIGFPE|[Ss]ignal 8|-8|136",
             prep="gcc -O2 -shared -fPIC -o libocc.so occl.c && " + MK + " --ids --min-size 0.3 && " + MK
             + " --split val --per-shard 48 --ids --min-size 0.3", env={"MASTER_PORT": "29824"}),
    # --- Open MPI mpirun ---------------------------------------------------------------------------------------------
    Scenario("mpirun-convlstm-healthy", "no_failure", "mpi", at(MPIRUN, 29841) + "--epochs 4" + DONE, OK.format(n=4),
             timeout=400),
    Scenario("mpirun-convlstm-no-master-port", "rendezvous_timeout", "mpi",
             "export MASTER_ADDR=127.0.0.1 && {mpi} -np 2 -x MASTER_ADDR -x OMP_NUM_THREADS {py} convlstm.py mpi "
             "--epochs 3 --pg-timeout 60" + DONE, r"[Tt]imed out|[Tt]imeout", timeout=300),
    Scenario("mpirun-convlstm-scheduler-preemption", "job_preempted", "mpi",
             at(MPIRUN, 29843) + "--epochs 30 --save-on-term" + DONE, r"SIGTERM|[Ss]ignal 15|signal 15",
             trigger=((r"epoch 1 train loss", "term-mpirun"),), timeout=300),
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


def default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP and SIGINT dispositions even when this generator runs under nohup or in the
    # background (which ignore them), as a job started from a terminal has
    # stdin: an open pipe nobody writes to, like a terminal nobody types into
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=default_signals)

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
        penv = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # the data is made in the project's own venv
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=penv, check=True)
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
        cgdir = own_memcg() / "waveak-c-job"
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
                if action == "hup":
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
                                    if "convlstm.py" in " ".join(v.cmdline()) and "torchrun" not in " ".join(v.cmdline()) \
                                            and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    if "convlstm.py" in " ".join(v.cmdline()) and v.name().startswith("python") and \
                                            "1" in (e.get("RANK"), e.get("OMPI_COMM_WORLD_RANK")):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action == "kill-rank1":  # rank 1's process killed from outside (kill -9), once
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if "convlstm.py" in " ".join(v.cmdline()) and v.environ().get("RANK") == "1" \
                                            and v.name().startswith("python"):
                                        print(f"  kill -9 {v.pid}", flush=True)
                                        v.kill()
                elif action == "term-mpirun":  # the scheduler preempting the job: SIGTERM to mpirun
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if v.name() in ("mpirun", "orterun"):
                                        print(f"  kill -TERM {v.pid} ({v.name()})", flush=True)
                                        v.terminate()
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env)
        if not pending and all(p.poll() is not None for p, _ in procs):
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
        (JOBS / f"last-{s.name}-{i}.log").write_bytes(o)
    if s.slurm_out:
        logs = {"job.log": slurm_text(job, s.expect).encode()}
    elif len(outs) == 1 or s.keep >= 0:
        logs = {"job.log": bytes(outs[max(s.keep, 0)])}
    elif False:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-{TAG}-{s.name}"
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
    return f"logs/run-{TAG}-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-{TAG}-{s.name}/job.log"


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
