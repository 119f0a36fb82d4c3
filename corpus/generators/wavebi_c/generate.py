"""Generate wave BI (c)'s real runs (sealed batch ``heldout64``): a Ray Tune 2.60 hyper-parameter search (``project/``:
``tune_mlp.py``, ASHA over lr / width / depth / dropout of a small torch MLP on a synthetic churn-style table, function
trainable with ``tune.report`` + checkpoints, one CPU per trial, two trials at a time) on a local one-node Ray cluster
that the job script starts itself:

    ray start --head --port 6390 ... --num-cpus 2 --temp-dir /tmp/ray-bi-c && nice -n 5 python tune_mlp.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebi-c-job/run``, copies ``project/`` in, writes the
synthetic data (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``, then
kills every process of its own Ray cluster by pid. It checks the expected signature (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-wavebi-c-<name>/job.log`` and its row of
``corpus/manifest.d/wave-bi-runs-c.csv``.

    python3 corpus/generators/wavebi_c/generate.py --list
    python3 corpus/generators/wavebi_c/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bi-c`` (``--system-site-packages``: system ray 2.60.0,
torch 2.13.0+cpu, numpy, psutil).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bi-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebi_c/generate.py"
SPLIT = "heldout64"
ECO = "ray-tune"
JOBS = Path("/tmp/wavebi-c-job")
SCRATCH = Path("/tmp/wavebi-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bi-c/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py --rows 4096"
EXIT = "; echo \"job exited with $?\""
OWNER = ("WAVEBI_OWNER", "c")  # marks every process of this helper's own Ray cluster (never printed)
HEAD = ("ray start --head --port 6390 --node-manager-port 6391 --object-manager-port 6392 "
        "--dashboard-agent-listen-port 6393 --dashboard-agent-grpc-port 6394 --metrics-export-port 6395 "
        "--runtime-env-agent-port 6396 --min-worker-port 10100 --max-worker-port 10199 --num-cpus 2 "
        "--include-dashboard false --temp-dir /tmp/ray-bi-c")


def tune_launch(extra: str = "", env: str = "") -> str:
    return f"{HEAD} && {env}nice -n 5 python tune_mlp.py" + (" " + extra if extra else "") + EXIT


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str  # regex the log must contain
    prep: str = DATA  # bash in the job dir before the job, not logged
    stale: str = ""  # a process already running (not logged)
    stale_ready: str = ""
    tmpfs: tuple = ()  # ((dir, size),)
    memory: int = 0  # bytes: memory cgroup (v1) limit for the whole job
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "trial:SIG" | "group:SIG"
    timeout: int = 120
    hang_ok: bool = False
    no_venv: bool = False


OK = r"best val_loss=[\s\S]*job exited with 0"
CK2 = r"Checkpoint successfully created at"
SCENARIOS = [
    Scenario("tune-healthy", "no_failure", tune_launch(), OK),
    Scenario("tune-healthy-retry", "no_failure", tune_launch("--max-failures 2 --max-epochs 14"),
             r"restored trial state[\s\S]*" + OK, trigger=((CK2, "trial:KILL"),)),
    Scenario("tune-healthy-wide", "no_failure", tune_launch("--num-samples 6 --hidden 64,128 --grace-period 2"), OK),
    Scenario("tune-row", "worker_exception", tune_launch(), r"could not convert[\s\S]*job exited with [1-9]",
             prep=DATA + " --append-row '" + ",".join(["0.1"] * 15) + ",n/a,1'"),
    Scenario("tune-lr", "training_divergence", tune_launch("--lr-min 50 --lr-max 400"),
             r"loss is (nan|inf)[\s\S]*job exited with [1-9]"),
    Scenario("tune-wide-oom", "host_oom_killed", tune_launch("--hidden 6144 --layers 3 --num-samples 2"),
             r"job exited with [1-9]|[Kk]illed|OOM|memory", memory=2_000_000_000, hang_ok=True),
    Scenario("tune-ckpt-tmpfs", "disk_full", tune_launch("--hidden 384,512 --layers 2 --ckpt-every 1 --keep-checkpoints 4"),
             r"No space|Errno 28", tmpfs=(("results", "3m"),), hang_ok=True),
    Scenario("tune-preempted", "job_preempted", tune_launch("--num-samples 6 --max-epochs 20"),
             r"job exited with [1-9]", trigger=((CK2, "runner:TERM"),)),
    Scenario("tune-terminal-closed", "terminal_hangup", tune_launch("--num-samples 6 --max-epochs 20"),
             r"job exited with [1-9]", trigger=((CK2, "runner:HUP"),)),
    Scenario("tune-trial-stopped", "silent_hang", tune_launch("--num-samples 3 --max-epochs 14"), CK2,
             trigger=((CK2, "trial:STOP"),), timeout=100, hang_ok=True),
    Scenario("tune-cpus", "ray_scheduling_stall", tune_launch("--cpus-per-trial 4"), r"[Ii]nsufficient|resources|infeasible",
             timeout=100, hang_ok=True),
    Scenario("tune-port-held", "port_in_use", tune_launch(), r"job exited with [1-9]",
             stale="{py} -m http.server 6390", stale_ready="Serving HTTP", hang_ok=True, timeout=60),
    Scenario("tune-packed", "native_crash", tune_launch("--loader packed"), r"SIGSEGV|Segmentation fault",
             prep=DATA + " --index-base 70368744177664", hang_ok=True),
    Scenario("tune-optuna", "library_version_mismatch", tune_launch("--search-alg optuna"), r"[Oo]ptuna must be installed"),
    Scenario("tune-preempted-group", "job_preempted", tune_launch("--num-samples 6 --max-epochs 20 --max-failures 1"),
             r"job exited with [1-9]", trigger=((32, "group:TERM"),)),
    Scenario("tune-healthy-restore", "no_failure", tune_launch("--num-samples 6 --max-epochs 20 --resume"),
             r"restoring experiment[\s\S]*" + OK,
             prep=DATA + f" && {HEAD} > /dev/null 2>&1 && (timeout -s INT 20 nice -n 5 {{py}} tune_mlp.py"
                         " --num-samples 6 --max-epochs 20 > /dev/null 2>&1; true)", timeout=120),
    Scenario("tune-ddp-healthy", "no_failure", tune_launch("--workers 2 --num-samples 1 --max-epochs 8"),
             OK),
    Scenario("tune-ddp-global-batch", "batch_size_mismatch",
             tune_launch("--workers 2 --num-samples 1 --global-batch-size 100"), r"must equal[\s\S]*job exited with [1-9]"),
    Scenario("tune-ddp-worker-stopped", "collective_timeout",
             tune_launch("--workers 2 --num-samples 1 --max-epochs 40 --dist-timeout 20"), r"[Tt]ime(d)? ?out",
             trigger=((r"Checkpoint successfully created at|training_iteration", "trainworker:STOP"),), timeout=110,
             hang_ok=True),
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
    """Every process of this helper's job and its own Ray cluster (marked in the environment it inherits)."""
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if v.pid != os.getpid() and (v.cwd() == str(job) or v.environ().get(OWNER[0]) == OWNER[1]):
                found.append(v)
    return found


def rank1(job: Path, kind: str = "trial") -> list[psutil.Process]:
    """One running trial worker (the oldest ray:: actor process running train_churn)."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            if cl.startswith("ray::") and ("train_churn" in cl or "ImplicitFunc" in cl or "RayTrainWorker" in cl):
                found.append(v)
    if kind == "trainworker":
        found = [v for v in found if "RayTrainWorker" in " ".join(v.cmdline())]
    found.sort(key=lambda v: v.create_time())
    return found[:1]


def runner(bash_pid: int) -> list[psutil.Process]:
    """The Tune driver the job script started."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children(recursive=True):
            if "tune_mlp.py" in " ".join(v.cmdline()):
                found.append(v)
    return found


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
    env = dict(os.environ, **{OWNER[0]: OWNER[1]}, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
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
        cg = own_memcg() / "wavebi-c-job"
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
                    if action.startswith("group:"):  # the scheduler signals the whole job step
                        who = [v for v in job_procs(job) if v.pid != proc[0].pid and v.name() != "bash"]
                    else:
                        who = runner(proc[0].pid) if action.startswith("runner:") else rank1(job, action.split(":")[0])
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
        dest = CORPUS / "logs" / f"run-wavebi-c-{s.name}"
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
        key = f"logs/run-wavebi-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
