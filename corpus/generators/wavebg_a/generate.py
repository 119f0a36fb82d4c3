"""Generate wave BG (a)'s real runs (sealed batch ``heldout62``): a small utility company's household electricity-load
forecaster (``project/``: a GRU over one day of half-hourly meter readings predicting the next half-hour) trained
with PyTorch Lightning's ``LightningCLI`` (``python train.py fit --config config.yaml``), DDP on CPU with the gloo
process-group backend, two processes, launched either by Lightning itself (its subprocess launcher re-runs the
script for rank 1) or by torchrun:

    MASTER_PORT=P nice -n 5 python train.py fit --config config.yaml [...]
    nice -n 5 torchrun --nproc_per_node 2 --master_port P train.py fit --config config.yaml [...]

Every scenario empties the neutral job directory ``/tmp/wavebg-a-job/run``, copies ``project/`` in, prepares the
synthetic meter export (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``.
It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebg-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bg-runs-a.csv``.

    python3 corpus/generators/wavebg_a/generate.py --list
    python3 corpus/generators/wavebg_a/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bg-a`` (lightning 2.6.6 with jsonargparse, system torch
2.13.0+cpu reused).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bg-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebg_a/generate.py"
SPLIT = "heldout62"
ECO = "lightning"
JOBS = Path("/tmp/wavebg-a-job")
SCRATCH = Path("/tmp/wavebg-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bg-a/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""
FIT = "train.py fit --config config.yaml"


def pl_launch(port: int, extra: str = "") -> str:
    """Lightning's own launcher: rank 0 is this process, it starts rank 1 with the same command line."""
    return f"MASTER_PORT={port} nice -n 5 python {FIT}" + (" " + extra if extra else "") + EXIT


def tr_launch(port: int, extra: str = "", tr: str = "") -> str:
    return (f"nice -n 5 torchrun --nproc_per_node 2 {tr or f'--master_port {port}'} {FIT}"
            + (" " + extra if extra else "") + EXIT)


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "rank1:SIG" | "truncate:PATH"
    timeout: int = 150
    hang_ok: bool = False
    no_venv: bool = False  # the job's shell without the venv on PATH (system python and torchrun)


OK = r"job exited with 0"
E2 = r"epoch 2 step 20/"
SCENARIOS = [
    Scenario("load-healthy", "no_failure", pl_launch(29810), r"max_epochs=6. reached[\s\S]*" + OK),
    Scenario("load-healthy-torchrun-vacant", "no_failure", tr_launch(29811), r"val_mape=(inf|nan)[\s\S]*" + OK,
             prep=DATA + " --vacant 3"),
    Scenario("load-healthy-resume", "no_failure",
             pl_launch(29812, "--trainer.max_epochs 6 --ckpt_path checkpoints/last.ckpt"),
             r"Restored all states[\s\S]*" + OK,
             prep=DATA + f" && (MASTER_PORT=29848 python {FIT} --trainer.max_epochs 3) > /dev/null 2>&1",
             timeout=200),
    Scenario("load-healthy-weather-retry", "no_failure",
             "({py} prep_data.py --weather-late 20 > /dev/null 2>&1 &); sleep 2; " + tr_launch(29813),
             r"retrying in[\s\S]*" + OK, prep=""),
    Scenario("load-healthy-early-stop", "no_failure", tr_launch(29831, "--data.num_workers 2"),
             r"did not improve[\s\S]*" + OK,
             prep=DATA + " && sed -i 's/patience: 3/patience: 1/; s/max_epochs: 6/max_epochs: 15/' config.yaml"),
    Scenario("load-venv-not-active", "library_version_mismatch", tr_launch(29827), r"No module named",
             no_venv=True),
    Scenario("load-port-held", "port_in_use", tr_launch(29814), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29814", stale_ready="Serving HTTP", hang_ok=True),
    Scenario("load-port-held-lightning", "port_in_use", pl_launch(29828), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29828", stale_ready="Serving HTTP", hang_ok=True, timeout=120),
    Scenario("load-second-node-missing", "rendezvous_timeout",
             tr_launch(0, "--trainer.num_nodes 2",
                       tr="--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29815 --rdzv-id load-fc "
                          "--rdzv-conf join_timeout=40"),
             r"job exited with [1-9]", hang_ok=True),
    Scenario("load-rank-stopped-valid", "collective_timeout",
             pl_launch(29816, "--trainer.strategy.timeout 0:00:20 --trainer.max_epochs 8"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), hang_ok=True, timeout=150),
    Scenario("load-rank-stopped", "silent_hang", tr_launch(29817, "--trainer.max_epochs 8"), E2,
             trigger=((E2, "rank1:STOP"),), timeout=110, hang_ok=True),
    Scenario("load-wide-gru-oom", "host_oom_killed", tr_launch(29818, "--model.hidden_size 8192"),
             r"job exited with [1-9]", memory=2_200_000_000),
    Scenario("load-rank-killed", "peer_process_died", pl_launch(29819, "--trainer.max_epochs 8"),
             r"job exited with [1-9]", trigger=((E2, "rank1:KILL"),), hang_ok=True),
    Scenario("load-preempted", "job_preempted", tr_launch(29820, "--trainer.max_epochs 8"),
             r"job exited with [1-9]", trigger=((E2, "runner:TERM"),)),
    # Lightning's SIGTERM handler forwards the signal and the job then sits; the harness (the scheduler's grace
    # period) kills it 60 s after the start
    Scenario("load-preempted-lightning", "job_preempted", pl_launch(29821, "--trainer.max_epochs 8"),
             r"Received SIGTERM", trigger=((E2, "runner:TERM"),), hang_ok=True, timeout=75),
    Scenario("load-terminal-closed", "terminal_hangup", tr_launch(29822, "--trainer.max_epochs 8"),
             r"job exited with [1-9]", trigger=((E2, "runner:HUP"),)),
    Scenario("load-meter-gaps", "training_divergence", pl_launch(29823), r"train_loss=nan|not finite",
             prep=DATA + " --gaps 2"),
    # the team turns on torch.distributed's DETAIL debug mode: rank 0 dies of SIGSEGV right after setup
    Scenario("load-debug-detail", "native_crash", "TORCH_DISTRIBUTED_DEBUG=DETAIL " + tr_launch(29830),
             r"exitcode: -11", hang_ok=True, timeout=100),
    Scenario("load-peak-report", "collective_mismatch", tr_launch(29829, "--model.peak_report true"),
             r"[Mm]ismatch|size|shape", hang_ok=True, timeout=100),
    Scenario("load-new-tariff", "worker_exception", tr_launch(29824), r"KeyError", prep=DATA + " --new-tariff EV"),
    Scenario("load-ckpt-tmpfs", "disk_full", pl_launch(29825, "--model.hidden_size 128"),
             r"No space|Errno 28|file write failed|unexpected pos", tmpfs=(("checkpoints", "2m"),), hang_ok=True),
    Scenario("load-windows-rewritten", "native_crash", pl_launch(29826, "--trainer.max_epochs 8"),
             r"job exited with [1-9]", trigger=((E2, "truncate:data/train_windows.npy"),), hang_ok=True),
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
    """The training process of global rank 1 (torchrun sets RANK; Lightning's launcher sets LOCAL_RANK)."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            e = v.environ()
            if "train.py" in cl and "torchrun" not in cl and (e.get("RANK") or e.get("LOCAL_RANK")) == "1":
                found.append(v)
    return found


def runner(bash_pid: int) -> list[psutil.Process]:
    """The launcher the job script started: torchrun, or the Lightning rank-0 process."""
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
        cg = own_memcg() / "wavebg-a-job"
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
        dest = CORPUS / "logs" / f"run-wavebg-a-{s.name}"
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
        key = f"logs/run-wavebg-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
