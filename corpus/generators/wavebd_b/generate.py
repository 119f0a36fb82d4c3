"""Generate wave BD (b)'s real runs (sealed batch ``heldout59``): a made-up team's tiny code-completion language model
(``project/train.py``: a small decoder-only transformer sharded with FSDP2 ``fully_shard``, checkpointed with
``torch.distributed.checkpoint`` (DCP), 2 processes over gloo on CPU) launched the way torchtitan-style projects launch
it: ``NGPU=2 RDZV_PORT=P ./run_train.sh [--section.key value ...]`` (torchrun ``--rdzv_backend c10d --role rank --tee 3``,
TOML config ``configs/codecomp_tiny.toml``). Each run has one cause made to happen for real (or none).

Every scenario empties the neutral job directory ``/tmp/wavebd-b-job/run``, copies ``project/`` in, writes the token
shards (``make_tokens.py``, not logged), runs the launch and appends the shell's ``job exited with N``. It checks the
expected signature (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebd-b-<name>/job.log`` and
its row of ``corpus/manifest.d/wave-bd-runs-b.csv``.

    python3 corpus/generators/wavebd_b/generate.py --list
    python3 corpus/generators/wavebd_b/generate.py --scenario NAME
    python3 corpus/generators/wavebd_b/generate.py --all

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/venv-bd-b`` (system torch 2.13.0 CPU, psutil, numpy).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bd-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebd_b/generate.py"
SPLIT = "heldout59"
ECO = "fsdp"
JOBS = Path("/tmp/wavebd-b-job")
SCRATCH = Path("/tmp/wavebd-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bd-b/bin")
PROJECT = HERE / "project"
DATA = "{py} make_tokens.py"


def tr(port: int, extra: str = "", pre: str = "", env: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}NGPU=2 RDZV_PORT={port} {env}nice -n 5 ./run_train.sh" + (" " + extra if extra else "")
            + "; echo \"job exited with $?\"")


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "rank1:SIG"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"Training completed[\s\S]*job exited with 0"
E2 = r"step: +1[5-9] +epoch: 2"  # a step line in epoch 2 (12 steps per epoch)
QUIET = " > /dev/null 2>&1"
PRE1 = DATA + " && NGPU=2 RDZV_PORT={p} ./run_train.sh --training.epochs 1" + QUIET  # an earlier 1-epoch run
PRE2 = DATA + " && NGPU=2 RDZV_PORT={p} ./run_train.sh" + QUIET  # an earlier finished run (not logged)
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && exec env "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
SCENARIOS = [
    Scenario("codecomp-healthy", "no_failure", tr(29642), OK),
    Scenario("codecomp-healthy-resume", "no_failure", tr(29643), r"Loading the checkpoint[\s\S]*" + OK,
             prep=PRE1.replace("{p}", "29660"), timeout=300),
    Scenario("codecomp-healthy-rerun-done", "no_failure", tr(29644), r"nothing to train[\s\S]*" + OK,
             prep=PRE2.replace("{p}", "29661"), timeout=300),
    Scenario("codecomp-healthy-short-shard", "no_failure", tr(29645), r"ERROR[\s\S]*" + OK,
             prep=DATA + " --truncated-shards 1"),
    Scenario("codecomp-healthy-restart", "no_failure", tr(29646, env="MAX_RESTARTS=1 "),
             r"Loading the checkpoint[\s\S]*" + OK, trigger=((r"step: +1[4-9] +epoch: 2", "rank1:KILL"),),
             timeout=300),
    Scenario("codecomp-wide-flavor-oom", "host_oom_killed",
             tr(29647, "--model.dim 1024 --model.n_layers 16 --model.n_heads 16", pre=CGJOIN),
             r"job exited with [1-9]", memory=1_000_000_000),
    Scenario("codecomp-ckpt-tmpfs", "disk_full", tr(29648), r"No space|Errno 28|CheckpointException",
             tmpfs=(("outputs/checkpoint", "2m"),)),
    Scenario("codecomp-workers-shm", "shm_exhausted",
             SHM + tr(29649, "--training.num_workers 2").replace("; echo", "'; echo"), r"job exited with [1-9]"),
    Scenario("codecomp-rank-stopped", "collective_timeout", tr(29650, "--comm.train_timeout_seconds 15"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=150, hang_ok=True),
    Scenario("codecomp-stopped-quiet", "silent_hang", tr(29651, "--comm.train_timeout_seconds 1800"), E2,
             trigger=((E2, "rank1:STOP"),), timeout=75, hang_ok=True),
    Scenario("codecomp-preempted", "job_preempted", tr(29652), r"SIGTERM|signal: 15|death signal",
             trigger=((E2, "term"),)),
    Scenario("codecomp-terminal-closed", "terminal_hangup", tr(29653), r"SIGHUP|signal: 1\b|death signal",
             trigger=((E2, "hup"),)),
    Scenario("codecomp-nan-quality", "training_divergence", tr(29654), r"nan|NaN",
             prep=DATA + " --nan-weights 3"),
    Scenario("codecomp-nested-lineage", "native_crash", tr(29655), r"job exited with [1-9]",
             prep=DATA + " --nested-lineage 200000"),
    # a SIGKILL from outside (no OOM) to local rank 1 in epoch 2, no restarts left
    Scenario("codecomp-rank-killed", "host_oom_killed", tr(29666), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    # dropped (not kept): with --rdzv_backend c10d, torchrun's agent could not bind the held port, fell back to a
    # client of it (the http.server) and waited silently; after 150 s the log held only run_train.sh's trace
    # Scenario("codecomp-port-held", "port_in_use", tr(29656), r"EADDRINUSE|[Aa]ddress already in use",
#            stale="{py} -m http.server 29656", stale_ready="Serving HTTP", timeout=150, hang_ok=True),
    Scenario("codecomp-batch-product", "batch_size_mismatch", tr(29657, "--training.global_batch_size 24"),
             r"global batch size"),
    Scenario("codecomp-second-node-missing", "rendezvous_timeout",
             tr(29658, env="NNODES=2 RDZV_EXTRA='--rdzv-conf join_timeout=30' "), r"[Tt]imeout|[Tt]imed out",
             timeout=150),
    Scenario("codecomp-vocab-grew", "worker_exception", tr(29659), r"index out of range|IndexError",
             prep=DATA + " --vocab 600"),
    Scenario("codecomp-override-typo", "worker_exception", tr(29662, "--training.epoch 1"), r"unknown config option"),
    Scenario("codecomp-resume-reshaped", "worker_exception", tr(29663, "--model.n_layers 6"),
             r"job exited with [1-9]", prep=PRE1.replace("{p}", "29664"), timeout=300),
    # only rank 0 calls dcp.save (a setting for boxes where only node 0 sees the checkpoint share), with the
    # c10d debug wrapper on: rank 0 is in DCP's collectives while rank 1 is in the next step's FSDP all-gather
    Scenario("codecomp-rank0-save", "collective_mismatch",
             tr(29667, "--checkpoint.save_on_rank0_only true", env="TORCH_DISTRIBUTED_DEBUG=DETAIL "),
             r"job exited with [1-9]", timeout=150, hang_ok=True),
    Scenario("codecomp-tensorboard", "library_version_mismatch", tr(29665, "--metrics.enable_tensorboard true"),
             r"[Tt]ensor[Bb]oard"),
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
                if "train.py" in " ".join(v.cmdline()) and v.environ().get("LOCAL_RANK") == local_rank:
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
               TOKENIZERS_PARALLELISM="false", **s.env)
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
        cgdir = own_memcg() / "wavebd-b-job"
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
                elif action.startswith("rank1:"):  # the worker with LOCAL_RANK 1
                    for v in ranks(proc[0].pid, "1"):
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        with contextlib.suppress(psutil.Error):  # the workers torchrun starts in their own sessions
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
    for k in kids:  # a hung job's workers outlive the group kill (torchrun starts them in new sessions)
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
        dest = CORPUS / "logs" / f"run-wavebd-b-{s.name}"
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
        key = f"logs/run-wavebd-b-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
