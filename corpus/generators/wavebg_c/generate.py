"""Generate wave BG (c)'s real runs (sealed batch ``heldout62``): a legal-tech startup's contract-clause classifier
(``project/train_clauses.py``: a small BERT built from ``BertConfig``, randomly initialised, no downloads) fine-tuned
with the transformers ``Trainer`` (``log_level="info"``, ``logging_steps=5``) on 2 CPU processes launched with
Hugging Face Accelerate:

    nice -n 5 accelerate launch --config_file accelerate_config.yaml --main_process_port P train_clauses.py \
        --data-dir data --ckpt-dir checkpoints --epochs 3 ...

``accelerate_config.yaml`` (num_processes 2, static rendezvous on 127.0.0.1) makes ``accelerate launch`` run
torch.distributed.run's elastic agent in-process; the Trainer (``use_cpu=True``) joins a gloo process group.

Every scenario empties the neutral job directory ``/tmp/wavebg-c-job/run``, copies ``project/`` in, writes the
synthetic clause export (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with
N``. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebg-c-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bg-runs-c.csv``.

    python3 corpus/generators/wavebg_c/generate.py --list
    python3 corpus/generators/wavebg_c/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bg-c`` (accelerate, transformers; system torch 2.13.0 CPU).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bg-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebg_c/generate.py"
SPLIT = "heldout62"
ECO = "accelerate"
JOBS = Path("/tmp/wavebg-c-job")
SCRATCH = Path("/tmp/wavebg-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bg-c/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"

BASE = "train_clauses.py --data-dir data --ckpt-dir checkpoints --epochs 3"
NOEXIT = "; echo \"job exited with $?\""


def launch_cmd(port: int, extra: str = "", base: str = BASE, pre: str = "", launcher_args: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 accelerate launch --config_file accelerate_config.yaml {launcher_args}"
            f"--main_process_port {port} {base}" + (" " + extra if extra else "") + NOEXIT)


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
    memory: int = 0  # bytes: memory cgroup (v1) limit the launch shell (and so every rank) runs in
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "rank1:SIG"
    timeout: int = 200
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"training finished[\s\S]*job exited with 0"
E2 = r"'epoch': '1\.[1-9]"  # a loss line of epoch 2
E4 = BASE.replace("--epochs 3", "--epochs 4")
CG = "echo $$ > " + str(MEMCG) + "/wavebg-c-job/cgroup.procs; "
RETRY = ("for attempt in 1 2 3; do echo \"launch attempt $attempt\"; "
         + launch_cmd(29897).replace(NOEXIT, "") + " && break; sleep 10; done; echo \"job exited with $?\"")

SCENARIOS = [
    Scenario("clauses-healthy", "no_failure", launch_cmd(29890), OK),
    Scenario("clauses-healthy-resume", "no_failure", launch_cmd(29891, "--resume"),
             r"Resuming training from checkpoint[\s\S]*" + OK,
             prep=DATA + " && (" + launch_cmd(29920, base=BASE.replace("--epochs 3", "--epochs 1")).replace(
                 NOEXIT, "") + ") > /dev/null 2>&1"),
    Scenario("clauses-healthy-no-label-map", "no_failure", launch_cmd(29892), r"ERROR[\s\S]*" + OK,
             prep=DATA + " --no-label-map"),
    Scenario("clauses-healthy-valid-no-assignment", "no_failure", launch_cmd(29893), r"nan[\s\S]*" + OK,
             prep=DATA + " --valid-without assignment"),
    Scenario("clauses-healthy-export-retry", "no_failure",
             "({py} prep_data.py --delay 20 > /dev/null 2>&1 &); " + RETRY,
             r"launch attempt 2[\s\S]*" + OK, prep="", timeout=300),
    # accelerate sees the port taken and, on a single machine, falls back to a free port (a warning, no failure)
    Scenario("clauses-healthy-port-busy", "no_failure", launch_cmd(29894), r"is already in use[\s\S]*" + OK,
             stale="{py} -m http.server --bind 127.0.0.1 29894", stale_ready="Serving HTTP"),
    # the two-node config's node 0: here accelerate refuses the taken port
    Scenario("clauses-port-held-node0", "port_in_use",
             launch_cmd(29909, launcher_args="--num_machines 2 --num_processes 4 --machine_rank 0 "),
             r"another process is utilizing it|EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server --bind 127.0.0.1 29909", stale_ready="Serving HTTP", hang_ok=True),
    # node 0 of the two-node layout started, node 1 never launched
    Scenario("clauses-node1-missing", "rendezvous_timeout",
             launch_cmd(29910, launcher_args="--num_machines 2 --num_processes 4 --machine_rank 0 "
                        "--rdzv_conf timeout=40 "), r"[Tt]imed out|[Tt]imeout", timeout=100, hang_ok=True),
    Scenario("clauses-wide-oom", "host_oom_killed", launch_cmd(29895, "--hidden-size 1024 --layers 6", pre=CG),
             r"job exited with [1-9]", memory=1_200_000_000),
    Scenario("clauses-rank-killed", "host_oom_killed", launch_cmd(29896, base=E4), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("clauses-ckpt-tmpfs", "disk_full", launch_cmd(29898), r"No space|Errno 28|unexpected pos|file write",
             tmpfs=(("checkpoints", "4m"),)),
    Scenario("clauses-rank-stopped", "silent_hang", launch_cmd(29899, base=E4), E2,
             trigger=((E2, "rank1:STOP"),), timeout=120, hang_ok=True),
    Scenario("clauses-preempted", "job_preempted", launch_cmd(29901, base=E4), r"job exited with [1-9]",
             trigger=((E2, "runner:TERM"),)),
    Scenario("clauses-terminal-closed", "terminal_hangup", launch_cmd(29902, base=E4), r"job exited with [1-9]",
             trigger=((E2, "runner:HUP"),)),
    Scenario("clauses-lr-3e3", "training_divergence", launch_cmd(29903, "--lr 3e3"), r"'grad_norm': 'nan'"),
    Scenario("clauses-legacy-row", "worker_exception", launch_cmd(29904), r"KeyError",
             prep=DATA + " --legacy-row 430"),
    Scenario("clauses-index-from-other-shard", "native_crash", launch_cmd(29905), r"job exited with [1-9]",
             prep=DATA + " --index-shift 68719476736"),
    Scenario("clauses-flash-attn", "library_version_mismatch", launch_cmd(29906, "--attn-impl flash_attention_2"),
             r"flash_attn|FlashAttention"),
]


def fill(cmd: str, job: Path) -> str:
    for k, v in {"py": str(BIN / "python"), "bin": str(BIN), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def _default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch(cmd: str, job: Path, env: dict, out: bytearray):
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_signals)

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


def ranks(job: Path, rank: str) -> list[psutil.Process]:
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            if "train_clauses.py" in cl and "bin/accelerate" not in cl and v.environ().get("RANK") == rank:
                found.append(v)
    return found


def alive(k: psutil.Process) -> bool:
    try:
        return k.is_running() and k.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


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
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", HF_HUB_OFFLINE="1", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = None
    if s.memory:
        cg = MEMCG / "wavebg-c-job"
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
    proc = launch(fill(s.cmd, job), job, env, out)
    n_fired, timed_out = 0, False
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action.startswith("runner:"):  # the accelerate launcher only (the scheduler's / terminal's signal)
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(proc[0].pid).children(recursive=True):
                            if "bin/accelerate" in " ".join(v.cmdline()[:2]):
                                print(f"  {action} {v.pid}", flush=True)
                                v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
                elif action.startswith("rank1:"):
                    for v in ranks(job, "1"):
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
        dest = CORPUS / "logs" / f"run-wavebg-c-{s.name}"
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
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebg-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
