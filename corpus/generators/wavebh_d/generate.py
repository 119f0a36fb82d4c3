"""Generate wave BH (d)'s real runs (sealed batch ``heldout63``): a small online retailer's order-return classifier
(``project/``: an MLP over order features) on a real local Ray 2.60 cluster started with ``ray start --head`` (4 logical
CPUs, 200 MB object store) and then either trained with Ray Train's ``TorchTrainer`` (2 workers, gloo) fed by Ray Data
(``train.py``), or scored nightly by Ray Data ``map_batches`` with an actor pool (``score.py``):

    ray start --head --port 6400 ... && nice -n 5 python train.py [...]; echo "job exited with $?"

Every scenario empties the neutral job directory ``/tmp/wavebh-d-job/run``, copies ``project/`` in, prepares the
synthetic order export (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``.
Afterwards the harness kills every process whose cwd is the job directory (the Ray head and its workers), so no
``ray stop`` output is in the log. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebh-d-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bh-runs-d.csv``.

    python3 corpus/generators/wavebh_d/generate.py --list
    python3 corpus/generators/wavebh_d/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bh-d`` (system ray 2.60.0, torch 2.13.0+cpu reused).
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
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-bh-runs-d.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebh_d/generate.py"
SPLIT = "heldout63"
ECO = "ray-data"
JOBS = Path("/tmp/wavebh-d-job")
SCRATCH = Path("/tmp/wavebh-d-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bh-d/bin")
PROJECT = HERE / "project"
DATA = "RETURNS_INIT_MODEL=1 {py} prep_data.py"
EXIT = "; echo \"job exited with $?\""
HEAD = ("ray start --head --port 6400 --num-cpus 4 --object-store-memory 200000000 --temp-dir /tmp/wavebh-d-job/ray "
        "--include-dashboard false --disable-usage-stats --node-manager-port 6401 --object-manager-port 6402 "
        "--dashboard-agent-listen-port 6404 --metrics-export-port 6405 --dashboard-agent-grpc-port 6406 "
        "--runtime-env-agent-port 6407 --min-worker-port 6420 --max-worker-port 6499")


def train(extra: str = "") -> str:
    return f"{HEAD} && nice -n 5 python train.py" + (" " + extra if extra else "") + EXIT


def score(extra: str = "") -> str:
    return f"{HEAD} && nice -n 5 python score.py" + (" " + extra if extra else "") + EXIT


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "driver:SIG" | "rank1:SIG"
    timeout: int = 150
    hang_ok: bool = False


OK = r"job exited with 0"
E1 = r"Reporting training result 2:"
SCENARIOS = [
    Scenario("returns-healthy", "no_failure", train(), r"INFO returns.train: finished[\s\S]*" + OK),
    Scenario("returns-score-healthy-blank-qty", "no_failure", score("--skip-bad-rows"),
             r"row skipped[\s\S]*scored \d+ orders[\s\S]*" + OK, prep=DATA + " --qty-blank 3"),
    Scenario("returns-score-healthy-fx-late", "no_failure", score("--fx"),
             r"missing after 4 s[\s\S]*scored \d+ orders[\s\S]*" + OK,
             prep=DATA + "; (cd / && sleep 35 && echo '{\"EUR\": 1.08}' > {job}/data/fx_rates.json.tmp && "
             "mv {job}/data/fx_rates.json.tmp {job}/data/fx_rates.json) > /dev/null 2>&1 &"),
    # the four scoring actors take all 4 CPUs, the read task never gets one; the harness kills the job at 150 s
    Scenario("returns-score-wide-pool", "ray_scheduling_stall", score("--concurrency 4 --batch-size 128"),
             r"Active & requested resources: 5/4 CPU", hang_ok=True),
    Scenario("returns-legacy-export", "worker_exception", train(), r"JSONDecodeError|ArrowInvalid",
             prep=DATA + " --legacy-export 2"),
    Scenario("returns-marketplace-feed", "native_crash", train(), r"SIGSEGV|[Ss]egmentation|signal 11|-11",
             prep=DATA + " --no-sku 1", hang_ok=True, timeout=120),
    Scenario("returns-wide-mlp", "host_oom_killed", train("--hidden 12288"),
             r"job exited with [1-9]|[Mm]emory|OOM|SIGKILL", memory=3_000_000_000, hang_ok=True, timeout=150),
    Scenario("returns-worker-killed", "host_oom_killed", train("--epochs 6 --step-sleep 0.1"),
             r"job exited with [1-9]|died|ActorDied", trigger=((E1, "rank1:KILL"),), hang_ok=True, timeout=140),
    Scenario("returns-preempted", "job_preempted", train("--epochs 6 --step-sleep 0.1"),
             r"job exited with [1-9]", trigger=((E1, "driver:TERM"),), hang_ok=True, timeout=120),
    Scenario("returns-terminal-closed", "terminal_hangup", train("--epochs 6 --step-sleep 0.1"),
             r"job exited with [1-9]", trigger=((E1, "driver:HUP"),), hang_ok=True, timeout=120),
    Scenario("returns-rank-stopped", "silent_hang", train("--epochs 6 --step-sleep 0.1"), E1,
             trigger=((E1, "rank1:STOP"),), hang_ok=True, timeout=95),
    Scenario("returns-ckpt-tmpfs", "disk_full", train("--hidden 1024 --ckpt-dir /tmp/wavebh-d-job/run/results"),
             r"No space|Errno 28", tmpfs=(("results", "6m"),), hang_ok=True, timeout=130),
    Scenario("returns-lr-sweep", "training_divergence", train("--lr 400"), r"'train_loss': (nan|inf|\d\.\d+e\+\d\d)", hang_ok=True),
    Scenario("returns-big-workers", "ray_scheduling_stall", train("--cpus-per-worker 3"),
             r"cannot be scheduled|[Ii]nfeasible|insufficient|[Pp]ending|[Ww]aiting", hang_ok=True, timeout=80),
    Scenario("returns-score-healthy-pool3", "no_failure", score("--concurrency 3"),
             r"scored \d+ orders[\s\S]*" + OK),
    Scenario("returns-port-held", "port_in_use", train(), r"[Aa]ddress already in use|already|in use|bind",
             stale="{py} -m http.server 6400", stale_ready="Serving HTTP", hang_ok=True, timeout=60),
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


def rank1(job: Path, text: str) -> list[psutil.Process]:
    """The Ray Train worker actor of world rank 1: the pid the TrainController prints for world_rank=1."""
    m = re.search(r"pid=(\d+)\) world_rank=1,", text)
    if not m:
        return []
    with contextlib.suppress(psutil.Error):
        return [psutil.Process(int(m.group(1)))]
    return []


def runner(bash_pid: int) -> list[psutil.Process]:
    """The driver the job script started (python train.py / score.py)."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children():
            cl = " ".join(v.cmdline())
            if "train.py" in cl or "score.py" in cl:
                found.append(v)
    return found


def run(s: Scenario) -> bool:
    job = JOBS / "run"
    if job.exists():
        subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
        shutil.rmtree(job)
    shutil.rmtree(JOBS / "ray", ignore_errors=True)
    job.mkdir(parents=True)
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    home = JOBS / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="120")
    run_env = env
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
        cg = own_memcg() / "wavebh-d-job"
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
                if True:
                    who = runner(proc[0].pid) if action.startswith("driver:") else rank1(job, out.decode(errors="replace"))
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
        dest = CORPUS / "logs" / f"run-wavebh-d-{s.name}"
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
        key = f"logs/run-wavebh-d-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
