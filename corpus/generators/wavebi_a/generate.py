"""Generate wave BI (a)'s real runs (sealed batch ``heldout64``): ``ticketrouter`` (``project/``), a support-ticket
queue classifier (TF-IDF features + a 3-layer MLP) trained with skorch's NeuralNetClassifier data-parallel through
skorch's ``AccelerateMixin`` (HF Accelerate, ``Accelerator(cpu=True)``, MULTI_CPU, gloo), two processes launched by

    nice -n 5 accelerate launch --multi_gpu --num_processes 2 --main_process_port P train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebi-a-job/run``, copies ``project/`` in, writes the
synthetic dataset (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``. It
checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebi-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bi-runs-a.csv``.

    python3 corpus/generators/wavebi_a/generate.py --list
    python3 corpus/generators/wavebi_a/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bi-a`` (``--system-site-packages``: system torch 2.13.0+cpu;
skorch 1.4.0, accelerate 1.15.0 installed there).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bi-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebi_a/generate.py"
SPLIT = "heldout64"
ECO = "skorch"
JOBS = Path("/tmp/wavebi-a-job")
SCRATCH = Path("/tmp/wavebi-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bi-a/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""


def acc_launch(port: int, extra: str = "", la: str = "", env: str = "") -> str:
    return (env + f"nice -n 5 accelerate launch --multi_gpu --num_processes 2 {la or f'--main_process_port {port}'} "
            "train.py" + (" " + extra if extra else "") + EXIT)


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
    timeout: int = 150
    hang_ok: bool = False
    no_venv: bool = False


OK = r"training done[\s\S]*job exited with 0"
E3 = r"finished epoch 3 "
LONG = "--max-epochs 60 --patience 100 --epoch-pause 1.0"
SCENARIOS = [
    Scenario("tix-healthy", "no_failure", acc_launch(29610), OK),
    Scenario("tix-healthy-metric-nan", "no_failure", acc_launch(29611, "--extra-metrics --lr 0.05"),
             r"valid_prec_min[\s\S]*nan[\s\S]*" + OK),
    Scenario("tix-healthy-resume", "no_failure", acc_launch(29612, "--resume --max-epochs 10"), OK,
             prep=DATA + " && (nice -n 5 accelerate launch --multi_gpu --num_processes 2 --main_process_port 29619 "
                         "train.py --max-epochs 6) > /dev/null 2>&1"),
    Scenario("tix-healthy-port-taken", "no_failure", acc_launch(29613), r"is already in use[\s\S]*" + OK,
             stale="{py} -m http.server 29613", stale_ready="Serving HTTP", timeout=90),
    Scenario("tix-second-node-missing", "rendezvous_timeout",
             acc_launch(0, la="--num_machines 2 --machine_rank 0 --main_process_ip localhost --main_process_port 29614 "
                              "--rdzv_backend c10d --rdzv_conf join_timeout=30"),
             r"job exited with [1-9]", hang_ok=True, timeout=100),
    Scenario("tix-global-batch", "batch_size_mismatch", acc_launch(29615, "--global-batch-size 256"),
             r"global_batch_size \(256\) must equal"),
    Scenario("tix-blank-ticket", "worker_exception", acc_launch(29616), r"invalid document|job exited with [1-9]",
             prep=DATA + " --append-row 'T199999,email,,billing'"),
    Scenario("tix-lr", "training_divergence", acc_launch(29617, "--lr 1e9 --label-smoothing 0"), r"train_loss is (nan|inf)"),
    Scenario("tix-wide-oom", "host_oom_killed", acc_launch(29618, "--max-features 20000 --ngram-max 3 --hidden 8192"),
             r"job exited with [1-9]", memory=1_500_000_000),
    Scenario("tix-preempted", "job_preempted", acc_launch(29610, LONG), r"job exited with [1-9]",
             trigger=((E3, "runner:TERM"),)),
    Scenario("tix-terminal-closed", "terminal_hangup", acc_launch(29611, LONG), r"job exited with [1-9]",
             trigger=((E3, "runner:HUP"),)),
    Scenario("tix-rank-stopped", "silent_hang", acc_launch(29612, LONG), E3,
             trigger=((E3, "rank1:STOP"),), timeout=80, hang_ok=True),
    Scenario("tix-rank-stopped-timeout", "collective_timeout", acc_launch(29613, LONG + " --dist-timeout 15"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E3, "rank1:STOP"),), hang_ok=True, timeout=110),
    Scenario("tix-ckpt-tmpfs", "disk_full", acc_launch(29615, "--ckpt-log --eval-best"),
             r"(No space|Errno 28|file write failed|unexpected pos)[\s\S]*job exited with [1-9]",
             tmpfs=(("checkpoints", "1m"),), hang_ok=True),
    Scenario("tix-ckpt-on-loss", "silent_hang", acc_launch(29617, "--ckpt-monitor valid_loss_best --max-epochs 40"),
             E3, timeout=80, hang_ok=True),
    Scenario("tix-sbert", "library_version_mismatch", acc_launch(29616, "--text-encoder sbert"), r"No module named"),
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


def rank1(job: Path) -> list[psutil.Process]:
    """The training process of global rank 1 (torch.distributed.run, started by accelerate launch, sets RANK)."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            e = v.environ()
            if "train.py" in cl and "accelerate" not in cl and "distributed.run" not in cl and e.get("RANK") == "1":
                found.append(v)
    return found


def runner(bash_pid: int) -> list[psutil.Process]:
    """The launcher the job script started: accelerate launch."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children():
            if "train.py" in " ".join(v.cmdline()):
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
        cg = own_memcg() / "wavebi-a-job"
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
                    who = runner(proc[0].pid) if action.startswith("runner:") else rank1(job)
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
        dest = CORPUS / "logs" / f"run-wavebi-a-{s.name}"
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
        key = f"logs/run-wavebi-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
