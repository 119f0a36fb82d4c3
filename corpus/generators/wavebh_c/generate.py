"""Generate wave BH (c)'s real runs (sealed batch ``heldout63``): an inspection line's surface-defect image classifier
(``project/``: a small CNN over 32x32 camera crops in an image-folder tree, four classes) trained with a script in the
shape of torchvision's reference recipe ``references/classification/train.py`` (``utils.MetricLogger`` /
``SmoothedValue`` progress lines, DistributedSampler, DDP, EMA model, checkpoint per epoch, ``--resume``), DDP on CPU
with the gloo backend, launched by torchrun:

    nice -n 5 torchrun --nproc_per_node 2 --master_port P train.py --dist-backend gloo [...]

Every scenario empties the neutral job directory ``/tmp/wavebh-c-job/run``, copies ``project/`` in, writes the images
(``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``. It checks the expected
signature (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebh-c-<name>/job.log`` and its row
of ``corpus/manifest.d/wave-bh-runs-c.csv``.

    python3 corpus/generators/wavebh_c/generate.py --list
    python3 corpus/generators/wavebh_c/generate.py --scenario NAME

Needs root (tmpfs, a private mount namespace via unshare, cgroup v1) and the venv ``/tmp/venv-bh-c`` (system torch
2.13.0+cpu reused; pillow 13.0.0 and torchvision 0.28.0 installed with --no-deps; a ``torchrun`` entry point in the
venv's bin so the ranks run the venv's python).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bh-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebh_c/generate.py"
SPLIT = "heldout63"
ECO = "torchvision"
JOBS = Path("/tmp/wavebh-c-job")
SCRATCH = Path("/tmp/wavebh-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bh-c/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""
TRAIN = "train.py --dist-backend gloo"


def tr(port: int, extra: str = "", rdzv: str = "", nproc: int = 2) -> str:
    return (f"nice -n 5 torchrun --nproc_per_node {nproc} {rdzv or f'--master_port {port}'} {TRAIN}"
            + (" " + extra if extra else ""))


def tr_launch(port: int, extra: str = "", rdzv: str = "") -> str:
    return tr(port, extra, rdzv) + EXIT


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
    no_venv: bool = False


OK = r"job exited with 0"
E2 = r"Epoch: \[2\]  \[ 4/"
NN = ("--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:{p} --rdzv-id defects-{p} --node-rank {r} "
      "--rdzv-conf join_timeout={t}")
SCENARIOS = [
    Scenario("img-healthy-ema", "no_failure", tr_launch(29700, "--model-ema --amp"),
             r"Training time[\s\S]*" + OK),
    Scenario("img-healthy-skip-truncated", "no_failure", tr_launch(29701, "--skip-bad-images --model-ema"),
             r"skipping unreadable image[\s\S]*Training time[\s\S]*" + OK, prep=DATA + " --truncated 3"),
    Scenario("img-healthy-resume", "no_failure",
             tr_launch(29702, "--model-ema --resume output/checkpoint.pth --epochs 6"),
             r"Resumed from[\s\S]*Training time[\s\S]*" + OK,
             prep=DATA + " && " + tr(29740, "--epochs 3") + " > /dev/null 2>&1"),
    Scenario("img-healthy-two-nodes", "no_failure",
             "(" + tr(0, "", NN.format(p=29703, r=1, t=60), nproc=1) + " &) ; "
             + tr(0, "", NN.format(p=29703, r=0, t=60), nproc=1) + EXIT + "; sleep 3",
             r"Training time[\s\S]*" + OK),
    Scenario("img-truncated-upload", "worker_exception", tr_launch(29704), r"UnidentifiedImageError|cannot identify",
             prep=DATA + " --truncated 3"),
    Scenario("img-crop-448-upscaled-cgroup", "host_oom_killed", tr_launch(29705, "--train-crop-size 448 --val-crop-size 448 -b 64"),
             r"job exited with [1-9]", memory=1_500_000_000, hang_ok=True),
    Scenario("img-small-shm", "shm_exhausted",
             "unshare -m bash -c 'mount -t tmpfs -o size=512k tmpfs /dev/shm && " + tr(29706, "-j 4") + "'" + EXIT,
             r"job exited with [1-9]", hang_ok=True),
    Scenario("img-ckpt-tmpfs", "disk_full", tr_launch(29707, "--width 96 --model-ema"),
             r"No space|Errno 28|file write failed|unexpected pos", tmpfs=(("output", "3m"),), hang_ok=True),
    Scenario("img-preempted", "job_preempted", tr_launch(29708, "--epochs 8"), r"job exited with [1-9]",
             trigger=((E2, "runner:TERM"),)),
    Scenario("img-terminal-closed", "terminal_hangup", tr_launch(29709, "--epochs 8"), r"job exited with [1-9]",
             trigger=((E2, "runner:HUP"),)),
    Scenario("img-rank-stopped", "silent_hang", tr_launch(29710, "--epochs 8"), E2,
             trigger=((E2, "rank1:STOP"),), timeout=75, hang_ok=True),
    Scenario("img-rank-stopped-timeout", "collective_timeout", tr_launch(29711, "--epochs 8 --dist-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=110, hang_ok=True),
    Scenario("img-lr-typo", "training_divergence", tr_launch(29712, "--lr 5e4"), r"Loss is (nan|inf)"),
    Scenario("img-second-node-missing", "rendezvous_timeout",
             tr(0, "", NN.format(p=29713, r=0, t=30)) + EXIT, r"job exited with [1-9]", hang_ok=True, timeout=120),
    Scenario("img-port-held", "port_in_use", tr_launch(29714), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29714", stale_ready="Serving HTTP", hang_ok=True, timeout=120),
    Scenario("img-global-batch", "batch_size_mismatch", tr_launch(29715, "--global-batch-size 128 -b 32"),
             r"global batch size"),
    Scenario("img-healthy-three-ranks", "no_failure", tr(29717, "--label-smoothing 0.1", nproc=3) + EXIT,
             r"might bias the results[\s\S]*Training time[\s\S]*" + OK),
    Scenario("img-val-new-class", "worker_exception", tr_launch(29718), r"out of bounds",
             prep=DATA + " && mkdir -p data/val/rust && cp data/val/scratch/cam1_0000*.png data/val/rust/"),
    Scenario("img-decoded-cache-rebuilt", "native_crash", tr_launch(29719, "--decoded-cache -j 0 --epochs 8"),
             r"job exited with [1-9]", prep=DATA + " --cache",
             trigger=((E2, "truncate:data/train_u8.npy"),), hang_ok=True, timeout=100),
    Scenario("img-resnet18", "library_version_mismatch", tr_launch(29716, "--model resnet18"),
             r"does not exist|undefined symbol|libc10_cuda"),
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
    """The training process of global rank 1: a child of torchrun with RANK=1 (not its DataLoader workers)."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            if v.environ().get("RANK") == "1" and "torchrun" in " ".join(v.parent().cmdline()):
                found.append(v)
    return found


def runner(bash_pid: int) -> list[psutil.Process]:
    """The launcher the job script started: torchrun, or the Lightning rank-0 process."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children():
            if "torchrun" in " ".join(v.cmdline()):
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
        cg = own_memcg() / "wavebh-c-job"
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
        dest = CORPUS / "logs" / f"run-wavebh-c-{s.name}"
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
        key = f"logs/run-wavebh-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
