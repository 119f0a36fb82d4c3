"""Generate wave BJ (c)'s real runs (sealed batch ``heldout65``): a tiny GPT-2 language model (``project/``: built
from a ``GPT2Config``, 2 layers, n_embd 64, a local byte-level BPE tokenizer trained by ``prep_data.py``, no Hub
access) trained by the Hugging Face ``Trainer`` inside a Ray Train ``TorchTrainer`` (Ray 2.60, Train v2 controller)
with 2 CPU workers (``prepare_trainer`` + ``RayTrainReportCallback``), on a single-node Ray cluster that the job
script ``launch.sh`` starts with ``ray start --head`` (ports 6410-6418, worker ports 10300-10399,
``--temp-dir /tmp/ray-bj-c``):

    nice -n 5 bash launch.sh [train.py options]

Every scenario empties the neutral job directory ``/tmp/wavebj-c-job/run``, copies ``project/`` in, writes the
synthetic corpus and tokenizer (``prep_data.py``, not logged), runs the launch and appends the shell's
``job exited with N``. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebj-c-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bj-runs-c.csv``. After each
run it kills the job's own processes (its session, and processes whose command line names ``/tmp/ray-bj-c``), by
pid; it never runs ``ray stop``.

    python3 corpus/generators/wavebj_c/generate.py --list
    python3 corpus/generators/wavebj_c/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bj-c`` (``--system-site-packages``: system torch 2.13.0+cpu
and ray 2.60.0; transformers, datasets, accelerate installed in the venv; ``bin/ray`` there is the system ray
console script with the venv's python, so Ray's workers run the venv's interpreter).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bj-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebj_c/generate.py"
SPLIT = "heldout65"
ECO = "ray-transformers"
JOBS = Path("/tmp/wavebj-c-job")
RAY_TMP = "/tmp/ray-bj-c"
SCRATCH = Path("/tmp/wavebj-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bj-c/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""


def launch_cmd(extra: str = "", env: str = "") -> str:
    return env + "nice -n 5 bash launch.sh" + (" " + extra if extra else "") + EXIT


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "rank1:SIG"
    timeout: int = 120
    hang_ok: bool = False
    no_venv: bool = False


OK = r"training finished at step[\s\S]*fit finished[\s\S]*job exited with 0"
R2 = r"Reporting training result 2"
LONG = "--max-steps 3000 --save-steps 20 --eval-steps 20"
SCENARIOS = [
    Scenario("ray-healthy", "no_failure", launch_cmd(), OK),
    Scenario("ray-healthy-retry", "no_failure", launch_cmd("--max-steps 300 --save-steps 20 --max-failures 2"),
             r"\[FailurePolicy\] RETRY[\s\S]*" + OK, trigger=((r"Reporting training result 1", "rank1:KILL"),),
             timeout=260),
    Scenario("ray-bad-row", "worker_exception", launch_cmd(), r"TypeError[\s\S]*job exited with [1-9]",
             prep=DATA + " --extra-at 1377 --extra-row '{\"id\": 1377, \"text\": null}'"),
    Scenario("ray-global-batch", "batch_size_mismatch", launch_cmd("--global-batch-size 32"),
             r"must equal[\s\S]*job exited with [1-9]"),
    Scenario("ray-ckpt-tmpfs", "disk_full", launch_cmd("--save-steps 10"), r"No space|Errno 28",
             tmpfs=(("ray_results", "3m"),), hang_ok=True),
    Scenario("ray-rank-killed", "host_oom_killed", launch_cmd(LONG), r"job exited with [1-9]",
             trigger=((R2, "rank1:KILL"),)),
    Scenario("ray-preempted", "job_preempted", launch_cmd(LONG), r"job exited with [1-9]",
             trigger=((R2, "runner:TERM"),)),
    Scenario("ray-terminal-closed", "terminal_hangup", launch_cmd(LONG), r"job exited with [1-9]",
             trigger=((R2, "runner:HUP"),)),
    Scenario("ray-rank-stopped", "silent_hang", launch_cmd(LONG), R2,
             trigger=((R2, "rank1:STOP"), (45, "runner:TERM")), timeout=220, hang_ok=True),
    Scenario("ray-rank-stopped-timeout", "collective_timeout", launch_cmd(LONG + " --dist-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((R2, "rank1:STOP"),), timeout=220, hang_ok=True),
    Scenario("ray-cpus-per-worker", "ray_scheduling_stall", launch_cmd("--cpus-per-worker 3"),
             r"[Ii]nsufficient|cannot be scheduled|[Ii]nfeasible|pending", trigger=((100, "runner:TERM"),),
             timeout=130, hang_ok=True),
    Scenario("ray-tensorboard", "library_version_mismatch", launch_cmd("--report-to tensorboard"),
             r"[Tt]ensor[Bb]oard[\s\S]*job exited with [1-9]"),
    Scenario("ray-lr", "training_divergence", launch_cmd("--lr 3e4 --max-steps 60"), r"(loss|grad_norm) is (nan|inf)"),
    Scenario("ray-wide-oom", "host_oom_killed", launch_cmd("--n-embd 1024 --n-layer 8 --max-steps 20"),
             r"job exited with [1-9]", memory=3_000_000_000, hang_ok=True),
    Scenario("ray-port-held", "port_in_use", launch_cmd(), r"The specified port is 6410[\s\S]*job exited with [1-9]",
             stale="{py} -m http.server 6410", stale_ready="Serving HTTP", hang_ok=True, timeout=60),
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


def job_procs(job: Path, sid: int = 0) -> list[psutil.Process]:
    """This job's processes: cwd in the job dir, in the job's session, or naming this job's Ray temp dir."""
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if v.pid == os.getpid():
                continue
            if (sid and os.getsid(v.pid) == sid) or RAY_TMP in " ".join(v.cmdline()) or v.cwd() == str(job):
                found.append(v)
    return found


def rank1(out: bytearray) -> list[psutil.Process]:
    """The Ray Train worker of world rank 1, by the pid the TrainController printed for it (latest group)."""
    pids = re.findall(r"pid=(\d+)\) world_rank=1,", out.decode(errors="replace"))
    found = []
    if pids:
        with contextlib.suppress(psutil.Error):
            found.append(psutil.Process(int(pids[-1])))
    return found


def runner(bash_pid: int) -> list[psutil.Process]:
    """The driver the job script started: `python train.py`."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children(recursive=True):
            cl = v.cmdline()
            if len(cl) > 1 and cl[1] == "train.py":
                found.append(v)
    return found


def run(s: Scenario) -> bool:
    job = JOBS / "run"
    if job.exists():
        subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
        shutil.rmtree(job)
    shutil.rmtree(RAY_TMP, ignore_errors=True)
    job.mkdir(parents=True)
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    home = JOBS / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="120",
               RAY_COLOR_PREFIX="0")
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
        cg = own_memcg() / "wavebj-c-job"
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
    n_fired, timed_out, last = 0, False, start
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - last >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                last = time.time()
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action.startswith("truncate:"):  # another job rewrites the file in place
                    with open(job / action.split(":", 1)[1], "r+b") as f:
                        f.truncate(4096)
                else:
                    who = runner(proc[0].pid) if action.startswith("runner:") else rank1(out)
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
    time.sleep(1)
    for k in job_procs(job, proc[0].pid):
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
        dest = CORPUS / "logs" / f"run-wavebj-c-{s.name}"
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
        key = f"logs/run-wavebj-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
