"""Generate wave BG (b)'s real runs (sealed batch ``heldout62``): a small e-commerce search team's query-intent model
(``project/train.py``: a 2-layer transformer encoder over tokenized search queries, 8 intents) trained with PyTorch
tensor parallelism on DTensor (``init_device_mesh("cpu", (dp, tp))``, ``parallelize_module`` with
ColwiseParallel/RowwiseParallel on the 'tp' dim, FSDP2 ``fully_shard`` on the 'dp' dim when dp > 1), gloo, launched
with torchrun's c10d rendezvous, checkpoints with ``torch.distributed.checkpoint``:

    nice -n 5 torchrun --nnodes 1 --nproc_per_node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:P \
        train.py --config configs/intent_small.json --data-dir data --ckpt-dir checkpoints --max-steps 60

Every scenario empties the neutral job directory ``/tmp/wavebg-b-job/run``, copies ``project/`` in, runs the data
export and native build (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``.
It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebg-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bg-runs-b.csv``.

    python3 corpus/generators/wavebg_b/generate.py --list
    python3 corpus/generators/wavebg_b/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1), gcc, and the venv ``/tmp/venv-bg-b`` (system torch 2.13.0+cpu, with a ``torchrun``
entry script in its bin).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bg-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebg_b/generate.py"
SPLIT = "heldout62"
ECO = "pytorch-parallel"
JOBS = Path("/tmp/wavebg-b-job")
SCRATCH = Path("/tmp/wavebg-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bg-b/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"

BASE = "train.py --config configs/intent_small.json --data-dir data --ckpt-dir checkpoints --max-steps 60"
BASE_2D = ("train.py --config configs/intent_small_2d.json --data-dir data --ckpt-dir checkpoints --max-steps 40 "
           "--dp 2 --tp 2")


def launch_cmd(port: int, extra: str = "", base: str = BASE, nproc: int = 2, nnodes: str = "1", pre: str = "",
               rdzv: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 torchrun --nnodes {nnodes} --nproc_per_node {nproc} --rdzv-backend c10d "
            f"--rdzv-endpoint 127.0.0.1:{port}{rdzv} {base}" + (" " + extra if extra else "")
            + "; echo \"job exited with $?\"")


def cfg_edit(src: str, dst: str, expr: str) -> str:
    """Prep step: write configs/dst from configs/src edited with a Python expression on ``c``."""
    return (f" && {{py}} -c \"import json; c = json.load(open('configs/{src}')); " + expr
            + f"; json.dump(c, open('configs/{dst}', 'w'), indent=2)\"")


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
    memory: int = 0  # bytes: memory cgroup (v1) limit for the job's shell and everything it starts
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "rank1:SIG"
    timeout: int = 150
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"Training completed[\s\S]*job exited with 0"
S25 = r"\[rank0\][^\n]*step:  25 "
NOEXIT = "; echo \"job exited with $?\""
RETRY = ("for attempt in 1 2 3; do echo \"launch attempt $attempt\"; "
         + launch_cmd(29856).replace(NOEXIT, "") + " && break; sleep 8; done; echo \"job exited with $?\"")
SCENARIOS = [
    Scenario("intent-healthy", "no_failure", launch_cmd(29852), OK),
    Scenario("intent-healthy-2d", "no_failure", launch_cmd(29853, base=BASE_2D, nproc=4),
             r"ERROR[\s\S]*recall \(local shard\) nan[\s\S]*" + OK, prep=DATA + " --no-intent-names --valid 32",
             timeout=200),
    Scenario("intent-healthy-resume", "no_failure", launch_cmd(29854, "--resume --max-steps 60"),
             r"Loading the checkpoint[\s\S]*" + OK,
             prep=DATA + " && (" + launch_cmd(29855, "--max-steps 40").replace(NOEXIT, "") + ") > /dev/null 2>&1"),
    Scenario("intent-healthy-rerun-done", "no_failure", launch_cmd(29871, "--resume"),
             r"nothing to train[\s\S]*" + OK,
             prep=DATA + " && (" + launch_cmd(29872).replace(NOEXIT, "") + ") > /dev/null 2>&1"),
    Scenario("intent-resume-wider-ffn", "worker_exception",
             launch_cmd(29873, "--resume", base=BASE.replace("intent_small", "intent_ffn512")),
             r"Error", prep=DATA + " && (" + launch_cmd(29874, "--max-steps 40").replace(NOEXIT, "")
             + ") > /dev/null 2>&1" + cfg_edit("intent_small.json", "intent_ffn512.json", "c.update(ffn_dim=512)")),
    Scenario("intent-healthy-export-retry", "no_failure",
             "({py} prep_data.py --delay 20 > /dev/null 2>&1 &); " + RETRY,
             r"launch attempt 2[\s\S]*" + OK, prep="", timeout=200),
    Scenario("intent-port-held", "port_in_use", launch_cmd(29857, rdzv=" --rdzv-conf is_host=true"), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29857", stale_ready="Serving HTTP", hang_ok=True),
    Scenario("intent-two-node-flags", "rendezvous_timeout",
             launch_cmd(29858, nnodes="2", rdzv=" --rdzv-conf join_timeout=40"), r"job exited with [1-9]",
             timeout=150),
    Scenario("intent-wide-oom", "host_oom_killed", launch_cmd(29859, base=BASE.replace("intent_small", "intent_xl")),
             r"job exited with [1-9]", memory=1_400_000_000,
             prep=DATA + cfg_edit("intent_small.json", "intent_xl.json",
                                  "c.update(vocab_size=65536, dim=1024, ffn_dim=8192, n_heads=16)")),
    Scenario("intent-ckpt-tmpfs", "disk_full", launch_cmd(29860), r"No space|Errno 28|unexpected pos|write",
             tmpfs=(("checkpoints", "3m"),)),
    Scenario("intent-lr-typo", "training_divergence", launch_cmd(29861, "--lr 1e3"), r"non-finite loss"),
    Scenario("intent-bad-export-row", "worker_exception", launch_cmd(29862), r"ValueError",
             prep=DATA + " --bad-row 731"),
    Scenario("intent-2d-batch-config", "batch_size_mismatch",
             launch_cmd(29863, base=BASE_2D.replace("intent_small_2d", "intent_small"), nproc=4),
             r"global batch size"),
    Scenario("intent-per-intent-report", "collective_mismatch",
             launch_cmd(29864, "--per-intent-report --dist-timeout 60", base=BASE_2D, nproc=4),
             r"job exited with [1-9]", timeout=200),
    Scenario("intent-rank-stopped-timeout", "collective_timeout",
             launch_cmd(29865, "--dist-timeout 20"), r"[Tt]imed out", trigger=((S25, "rank1:STOP"),),
             timeout=150, hang_ok=True),
    Scenario("intent-rank-stopped", "silent_hang", launch_cmd(29866), S25, trigger=((S25, "rank1:STOP"),),
             timeout=80, hang_ok=True),
    Scenario("intent-preempted", "job_preempted", launch_cmd(29867), r"job exited with [1-9]",
             trigger=((S25, "runner:TERM"),)),
    Scenario("intent-terminal-closed", "terminal_hangup", launch_cmd(29868), r"job exited with [1-9]",
             trigger=((S25, "runner:HUP"),)),
    Scenario("intent-offset-bytes", "native_crash", launch_cmd(29869), r"SIGSEGV|Signal 11",
             prep=DATA + " --bad-offset 402"),
    Scenario("intent-old-qnorm", "library_version_mismatch", launch_cmd(29870), r"undefined symbol",
             prep=DATA + " --qnorm native/qnorm_v1.c"),
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


def launch(cmd: str, job: Path, env: dict, out: bytearray, cg: Path | None = None):
    def pre() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if cg is not None:
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


def ranks(job: Path, rank: str) -> list[psutil.Process]:
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            if "train.py" in cl and "torchrun" not in cl and v.environ().get("RANK") == rank:
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
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for v in job_procs(job):  # what an unlogged earlier run left behind
            with contextlib.suppress(psutil.Error):
                if "prep_data" not in " ".join(v.cmdline()):
                    v.kill()
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = None
    if s.memory:
        cg = own_memcg() / "wavebg-b-job"
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
    proc = launch(fill(s.cmd, job), job, env, out, cg)
    n_fired, timed_out = 0, False
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action.startswith("runner:"):  # the torchrun launcher only (the scheduler's / terminal's signal)
                    for v in job_procs(job):
                        with contextlib.suppress(psutil.Error):
                            if "bin/torchrun" in " ".join(v.cmdline()[:2]):
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
        dest = CORPUS / "logs" / f"run-wavebg-b-{s.name}"
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
        key = f"logs/run-wavebg-b-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
