"""Generate wave BF (b)'s real runs (sealed batch ``heldout61``): a made-up team pretraining a small GPT-style
code-completion model on synthetic source-code tokens (``project/train.py``) with pipeline parallelism in plain
PyTorch -- ``torch.distributed.pipelining`` (manual stage split, ``PipelineStage`` + ``ScheduleGPipe`` /
``Schedule1F1B``, microbatches) -- 2 stages over gloo on CPU, launched with torchrun:
``nice -n 5 torchrun --nproc-per-node 2 --master-port P train.py ...`` (some scenarios use ``--nnodes``
``--rdzv-backend c10d`` or ``--max-restarts``). The last pipeline stage prints the loss lines; validation shows a tqdm
bar; each stage saves its own checkpoint every epoch.

Every scenario empties the neutral job directory ``/tmp/wavebf-b-job/run``, copies ``project/`` in, writes the
synthetic token data (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``.
It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebf-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bf-runs-b.csv``.

    python3 corpus/generators/wavebf_b/generate.py --list
    python3 corpus/generators/wavebf_b/generate.py --scenario NAME
    python3 corpus/generators/wavebf_b/generate.py --all

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/venv-bf-b`` (system torch 2.13.0 CPU reused, tqdm, a
``torchrun`` entry point).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bf-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebf_b/generate.py"
SPLIT = "heldout61"
ECO = "pytorch-parallel"
JOBS = Path("/tmp/wavebf-b-job")
SCRATCH = Path("/tmp/wavebf-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bf-b/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"

BASE = "--epochs 3 --step-delay 0.1 --pg-timeout 600"


def launch_cmd(port: int, extra: str = "", base: str = BASE, pre: str = "", tr: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 torchrun {tr + ' ' if tr else ''}--nproc-per-node 2 --master-port {port} train.py {base}"
            + (" " + extra if extra else "") + "; echo \"job exited with $?\"")


def sub(**kv: str) -> str:
    """BASE with some flags' values replaced (flag -> new value)."""
    b = BASE
    for k, v in kv.items():
        flag = "--" + k
        m = re.search(rf"{flag} \S+", b)
        b = b[:m.start()] + f"{flag} {v}" + b[m.end():] if m else b + f" {flag} {v}"
    return b


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
    memory: int = 0  # bytes: memory cgroup (v1) limit for the job ({cg} in the command)
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "rank1:SIG" | "torchrun:SIG" | "truncate:PATH"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"training complete[\s\S]*job exited with 0"
E2 = r"iter 24: epoch 2/"  # the second loss line of epoch 2
NOEXIT = "; echo \"job exited with $?\""
PRE = DATA + " && (" + launch_cmd(29840, base=sub(epochs="2")).replace(NOEXIT, "") + ") > /dev/null 2>&1"
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && exec "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
E4 = sub(epochs="4")
SCENARIOS = [
    Scenario("codegpt-healthy", "no_failure", launch_cmd(29810), OK),
    Scenario("codegpt-healthy-1f1b-resume", "no_failure", launch_cmd(29811, "--schedule 1f1b --resume latest"),
             r"resumed from[\s\S]*" + OK, prep=PRE, timeout=300),
    Scenario("codegpt-healthy-rerun-done", "no_failure", launch_cmd(29812, "--resume latest"),
             r"nothing to train[\s\S]*job exited with 0", prep=PRE.replace("29840", "29841").replace("--epochs 2", "--epochs 3"),
             timeout=300),
    Scenario("codegpt-healthy-no-meta", "no_failure", launch_cmd(29813), r"ERROR[\s\S]*" + OK,
             prep=DATA + " --no-meta"),
    # the team debugging a slow step: distributed debug and C++ INFO logging on, the run itself is fine
    Scenario("codegpt-healthy-debug-logging", "no_failure", launch_cmd(29814), OK,
             env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL", "TORCH_CPP_LOG_LEVEL": "INFO"}),
    Scenario("codegpt-wide-oom", "host_oom_killed", launch_cmd(29815, "--n-embd 2048 --n-head 16", pre=CGJOIN),
             r"job exited with [1-9]", memory=1_000_000_000),
    Scenario("codegpt-rank-killed", "host_oom_killed", launch_cmd(29816, base=E4), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("codegpt-ckpt-tmpfs", "disk_full", launch_cmd(29817),
             r"No space|Errno 28|unexpected pos|iostream|file write failed", tmpfs=(("checkpoints", "4m"),)),
    Scenario("codegpt-loader-shm", "shm_exhausted",
             SHM + launch_cmd(29818, "--num-workers 2").replace("; echo", "'; echo"), r"job exited with [1-9]"),
    Scenario("codegpt-stage-stopped", "collective_timeout", launch_cmd(29819, base=sub(epochs="4", **{"pg-timeout": "20"})),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=200, hang_ok=True),
    Scenario("codegpt-preempted", "job_preempted", launch_cmd(29820, base=E4), r"job exited with [1-9]",
             trigger=((E2, "torchrun:TERM"),)),
    Scenario("codegpt-terminal-closed", "terminal_hangup", launch_cmd(29821, base=E4), r"job exited with [1-9]",
             trigger=((E2, "torchrun:HUP"),)),
    Scenario("codegpt-lr-blowup", "training_divergence", launch_cmd(29822, "--lr 30"), r"nan|NaN|inf"),
    Scenario("codegpt-bad-token-ids", "worker_exception", launch_cmd(29823), r"IndexError|index out of range",
             prep=DATA + " --corrupt 50"),
    Scenario("codegpt-batch-config", "batch_size_mismatch",
             launch_cmd(29824, base=sub(**{"global-batch-size": "18", "micro-batch-size": "4"})), r"not divisible"),
    Scenario("codegpt-wandb-missing", "library_version_mismatch", launch_cmd(29825, "--wandb"), r"No module named"),
    Scenario("codegpt-second-node-missing", "rendezvous_timeout",
             launch_cmd(29826).replace("--nproc-per-node 2 --master-port 29826",
                                       "--nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint "
                                       "127.0.0.1:29826 --rdzv-id codegpt-pp --rdzv-conf join_timeout=30"),
             r"job exited with [1-9]", timeout=200),
    Scenario("codegpt-1f1b-one-microbatch", "worker_exception",
             launch_cmd(29827, "--schedule 1f1b", base=sub(**{"global-batch-size": "4"})), r"job exited with [1-9]"),
    Scenario("codegpt-early-stop-debug", "collective_mismatch", launch_cmd(29828, "--early-stop 1",
                                                                            base=sub(**{"pg-timeout": "30"})),
             r"job exited with [1-9]", env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, timeout=150, hang_ok=True),
    # the nightly tokenizer job rewrites train.bin in place while the job has it memory-mapped
    Scenario("codegpt-shard-rewritten", "native_crash", launch_cmd(29829, base=E4), r"job exited with [1-9]",
             trigger=((E2, "truncate:data/codetok/train.bin"),)),
    Scenario("codegpt-stopped-quiet", "silent_hang", launch_cmd(29830, base=E4), E2,
             trigger=((E2, "rank1:STOP"),), timeout=60, hang_ok=True),
]


def fill(cmd: str, job: Path, cg: str = "") -> str:
    for k, v in {"py": str(BIN / "python"), "bin": str(BIN), "job": str(job), "cg": cg}.items():
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


def launch(cmd: str, job: Path, env: dict, out: bytearray):
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_signals)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def ranks(root: int, local_rank: str) -> list[psutil.Process]:
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(root).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if ".py" in " ".join(v.cmdline()) and "torchrun" not in " ".join(v.cmdline()) and v.environ().get("RANK") == local_rank:
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
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", WANDB_MODE="offline",
               **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = ""
    if s.memory:
        cgdir = own_memcg() / "wavebf-b-job"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
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
    proc = launch(fill(s.cmd, job, cg), job, env, out)
    n_fired, timed_out = 0, False
    kids: set[psutil.Process] = set()
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "term":
                    os.killpg(proc[0].pid, signal.SIGTERM)
                elif action == "hup":
                    os.killpg(proc[0].pid, signal.SIGHUP)
                elif action.startswith("truncate:"):  # another job rewrites a file in place
                    with open(job / action.split(":", 1)[1], "r+b") as f:
                        f.truncate(4096)
                elif action.startswith("torchrun:"):  # the launcher process only (the scheduler's signal to torchrun)
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(proc[0].pid).children(recursive=True):
                            if "bin/torchrun" in " ".join(v.cmdline()):
                                print(f"  {action} {v.pid}", flush=True)
                                v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
                elif action.startswith("rank1:"):  # the worker with RANK=1 (the last pipeline stage)
                    for v in ranks(proc[0].pid, "1"):
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        with contextlib.suppress(psutil.Error):  # the workers torchrun starts
            kids.update(psutil.Process(proc[0].pid).children(recursive=True))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    t_end = time.time()  # the shell is gone (a signal to the group kills it at once): let torchrun finish its part
    while not timed_out and time.time() - t_end < 30 and any(map(alive, kids)):
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in kids:  # a hung job's workers outlive the group kill (a stopped worker ignores the group kill until killed)
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
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebf-b-{s.name}"
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
        key = f"logs/run-wavebf-b-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
