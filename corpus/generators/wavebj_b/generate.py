"""Generate wave BJ (b)'s real runs (sealed batch ``heldout65``): PPO (TorchRL 0.14.1 ``ClipPPOLoss`` + ``GAE``) on a
gymnasium environment (CartPole-v1 by default) with multi-process data collection: TorchRL's ``MultiSyncCollector``
(or ``MultiAsyncCollector``) with 2 worker processes, one env each, the policy weights shared with the workers;
per-iteration logging (reward, episode length, losses, grad norm), a CSV experiment logger, torch.save checkpoints
every 5 iterations (``project/``: ``train.py``, ``configs/ppo_cartpole.json``):

    nice -n 5 python train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebj-b-job/run``, copies ``project/`` in (some scenarios
run an earlier unlogged job there first), runs the launch and appends the shell's ``job exited with N``. It checks
the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebj-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bj-runs-b.csv``.

    python3 corpus/generators/wavebj_b/generate.py --list
    python3 corpus/generators/wavebj_b/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/venv-bj-b`` (``--system-site-packages``: system torch
2.13.0+cpu; torchrl 0.14.1, tensordict 0.14.3, gymnasium 1.4.0 installed with pip).
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
from dataclasses import dataclass
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-bj-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebj_b/generate.py"
SPLIT = "heldout65"
ECO = "torchrl"
JOBS = Path("/tmp/wavebj-b-job")
SCRATCH = Path("/tmp/wavebj-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bj-b/bin")
PROJECT = HERE / "project"
EXIT = "; echo \"job exited with $?\""
EARLIER = "(nice -n 5 python train.py {a}) > /dev/null 2>&1"


def launch_cmd(extra: str = "", env: str = "") -> str:
    return env + "nice -n 5 python train.py" + (" " + extra if extra else "") + EXIT


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str  # regex the log must contain
    prep: str = ""  # bash in the job dir before the job, not logged
    stale: str = ""
    stale_ready: str = ""
    tmpfs: tuple = ()  # ((dir, size),)
    memory: int = 0  # bytes: memory cgroup (v1) limit for the whole job
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "worker:SIG"
    timeout: int = 90
    hang_ok: bool = False
    no_venv: bool = False


OK = r"training done[\s\S]*job exited with 0"
FAIL = r"job exited with [1-9]"
IT = r"iter {}/"
SHM = ("unshare -m bash -c 'mount -t tmpfs -o size={size} tmpfs /dev/shm && " + "nice -n 5 python train.py{extra}'" + EXIT)
SCENARIOS = [
    Scenario("ppo-healthy", "no_failure", launch_cmd(), OK),
    Scenario("ppo-healthy-resume", "no_failure", launch_cmd("--resume --iterations 40"), r"resumed from[\s\S]*" + OK,
             prep=EARLIER.format(a="--iterations 20")),
    Scenario("ppo-healthy-async", "no_failure", launch_cmd("--collector async --iterations 25"), OK, timeout=150),
    Scenario("ppo-healthy-pendulum", "no_failure",
             launch_cmd("--env-name Pendulum-v1 --frames-per-batch 200 --iterations 40 --ckpt-every 10"),
             r"episode_len nan[\s\S]*" + OK, timeout=150),
    Scenario("ppo-worker-killed", "host_oom_killed", launch_cmd("--iterations 80"), IT.format(12),
             trigger=((IT.format(12), "worker:KILL"), (80, "runner:TERM"), (95, "runner:KILL")), hang_ok=True,
             timeout=110),
    Scenario("ppo-wide-oom", "host_oom_killed", launch_cmd("--hidden 8192"), FAIL, memory=1_500_000_000,
             trigger=((70, "runner:TERM"),), hang_ok=True),
    Scenario("ppo-pendulum-gravity", "worker_exception",
             launch_cmd("--env-name Pendulum-v1 --env-kwargs '{\"g\": \"9.81\"}'"), r"TypeError[\s\S]*" + FAIL,
             trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-lr", "training_divergence", launch_cmd("--lr 50"), r"nan|inf|invalid values",
             trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-sgd", "job_preempted", launch_cmd("--optimizer sgd --lr 0.5 --max-grad-norm 0"),
             r"episode_len nan[\s\S]*received SIGTERM[\s\S]*" + FAIL, trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-ckpt-tmpfs", "disk_full", launch_cmd(), r"No space|Errno 28|iostream error|unexpected pos", tmpfs=(("checkpoints", "200k"),),
             trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-collector-shm", "shm_exhausted", SHM.format(size="64k", extra=""), r"shm|shared memory|Bus error|No space",
             trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-worker-stopped", "silent_hang", launch_cmd("--iterations 80"), IT.format(12),
             trigger=((IT.format(12), "worker:STOP"), (80, "runner:TERM"), (95, "runner:KILL")), hang_ok=True,
             timeout=110),
    Scenario("ppo-preempted", "job_preempted", launch_cmd("--iterations 80"), FAIL,
             trigger=((IT.format(20), "runner:TERM"), (100, "runner:KILL")), hang_ok=True, timeout=110),
    Scenario("ppo-terminal-closed", "terminal_hangup", launch_cmd("--iterations 80"), FAIL,
             trigger=((IT.format(15), "runner:HUP"),), hang_ok=True, timeout=110),
    Scenario("ppo-tensorboard", "library_version_mismatch", launch_cmd("--logger tensorboard"),
             r"tensorboard[\s\S]*" + FAIL, trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-three-workers", "job_preempted", launch_cmd("--num-workers 3"),
             r"not exactly divisible[\s\S]*received SIGTERM[\s\S]*" + FAIL,
             trigger=((85, "runner:TERM"),), hang_ok=True, timeout=110),
    Scenario("ppo-resume-hidden", "worker_exception", launch_cmd("--resume --hidden 128"),
             r"size mismatch[\s\S]*" + FAIL, prep=EARLIER.format(a="--iterations 10"), timeout=120),
]


def fill(cmd: str, job: Path) -> str:
    for k, v in {"py": str(BIN / "python"), "bin": str(BIN), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def _default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch(cmd: str, job: Path, env: dict, out: bytearray, cg: Path | None = None):
    def pre() -> None:
        _default_signals()
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
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if v.pid != os.getpid() and v.cwd() == str(job):
                found.append(v)
    return found


def worker1(job: Path) -> list[psutil.Process]:
    """The second collector worker: the newer of the main process's two multiprocessing spawn children."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            if "spawn_main" in " ".join(v.cmdline()) and "train.py" in " ".join(v.parent().cmdline()):
                found.append(v)
    return sorted(found, key=lambda v: v.pid)[1:2]


def runner(bash_pid: int) -> list[psutil.Process]:
    """The trainer process (train.py) the job script started (inside unshare when there is one)."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children(recursive=True):
            cl = " ".join(v.cmdline())
            if "train.py" in cl and "spawn_main" not in cl and "unshare" not in cl and not cl.startswith("bash"):
                found.append(v)
    return found[:1]


def run(s: Scenario) -> bool:
    job = JOBS / "run"
    if job.exists():
        subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
        shutil.rmtree(job)
    job.mkdir(parents=True)
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    home = JOBS / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="120")
    run_env = dict(env, PATH=os.environ["PATH"]) if s.no_venv else env
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=200)
        for v in job_procs(job):
            with contextlib.suppress(psutil.Error):
                v.kill()
        shutil.rmtree(job / "logs", ignore_errors=True)
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = None
    if s.memory:
        cg = own_memcg() / "wavebj-b-job"
        cg.mkdir(exist_ok=True)
        (cg / "memory.limit_in_bytes").write_text(str(s.memory))
    stale = None
    if s.stale:
        stale_out = bytearray()
        stale = launch(fill(s.stale, job), job, env, stale_out)
        t0 = time.time()
        while not re.search(s.stale_ready, stale_out.decode(errors="replace")) and time.time() - t0 < 60:
            time.sleep(0.5)
        time.sleep(1)
    out = bytearray()
    start = time.time()
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
        run_env.pop(k, None)
    proc = launch(fill(s.cmd, job), job, run_env, out, cg)
    n_fired, timed_out = 0, False
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action.startswith("truncate:"):  # another job rewrites the file in place
                    with open(job / action.split(":", 1)[1], "r+b") as f:
                        f.truncate(4096)
                else:
                    who = runner(proc[0].pid) if action.startswith("runner:") else worker1(job)
                    for v in who:
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
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
    subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", str(cg)], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebj-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(out)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {proc[0].returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:40} {s.label}")
        return
    sys.path.insert(0, str(HERE))
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebj-b-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
