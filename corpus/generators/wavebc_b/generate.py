"""Generate wave BC (b)'s real runs (sealed batch ``heldout58``): a dairy cooperative's next-day milk-yield forecaster
(``project/train.py``) written with **Keras 3 on the PyTorch backend** (``KERAS_BACKEND=torch``) and trained
multi-process data parallel the way Keras's guide "Multi-GPU distributed training with PyTorch" does it: the launcher
process starts one worker per process with ``torch.multiprocessing.start_processes(..., start_method="fork")``, each
worker joins a gloo process group (CPU), wraps the Keras functional model in ``torch.nn.parallel.
DistributedDataParallel``, reads its shard through a ``DistributedSampler`` and trains with a Keras loss and a Keras
optimizer (``optimizer.apply``). Launch: ``nice -n 5 python train.py --step-delay 0.15 --master-port P [...]``.
Each run has one cause made to happen for real (or none).

Every scenario empties the neutral job directory ``/tmp/wavebc-b-job/run``, copies ``project/`` in, writes the
sensor export (``make_herd.py``, not logged) and any earlier run (not logged), runs the launch with stdout+stderr
captured and appends the shell's ``job exited with N``. It checks the expected signature (else MISSING, nothing
written, exit 1) and writes ``corpus/logs/run-wavebc-b-<name>/job.log`` and its row of
``corpus/manifest.d/wave-bc-runs-b.csv``.

    python3 corpus/generators/wavebc_b/generate.py --list
    python3 corpus/generators/wavebc_b/generate.py --scenario NAME
    python3 corpus/generators/wavebc_b/generate.py --all

Needs root (tmpfs, unshare -m, cgroup v1) and the venv ``/tmp/corpus-venv-bc-b`` (torch 2.13.0 CPU, keras, psutil).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bc-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebc_b/generate.py"
SPLIT = "heldout58"
ECO = "keras"
JOBS = Path("/tmp/wavebc-b-job")
SCRATCH = Path("/tmp/wavebc-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/corpus-venv-bc-b/bin")
PROJECT = HERE / "project"
DATA = "{py} make_herd.py"


def job(port: int, args: str = "", pre: str = "", env: str = "") -> str:
    """The team's launch line, then the shell's exit line."""
    return (f"{pre}{env}nice -n 5 {{py}} train.py --step-delay 0.15 --master-port {port}"
            + (" " + args if args else "") + "; echo \"job exited with $?\"")


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "rank:N:SIG"
    timeout: int = 180
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"finished \d+ epochs[\s\S]*job exited with 0"
E2 = r"\[rank1\] \S+ Epoch 2/\d+ step 20/"
EARLIER = DATA + " && nice -n 5 {py} train.py --master-port 29689 --epochs 2 > /dev/null 2>&1"  # not logged
CG_JOIN = "echo $BASHPID > {cg}/cgroup.procs; "
SCENARIOS = [
    Scenario("kr-milk-healthy", "no_failure", job(29650), OK),
    Scenario("kr-milk-healthy-meter-err", "no_failure", job(29651), r"ERROR[\s\S]*" + OK,
             prep=DATA + " --bad-meter 4"),
    Scenario("kr-milk-healthy-resume", "no_failure", job(29652, "--epochs 4 --resume"), r"resumed from[\s\S]*" + OK,
             prep=EARLIER),
    Scenario("kr-milk-healthy-rerun-done", "no_failure", job(29653, "--epochs 2 --resume"),
             r"nothing to do[\s\S]*" + OK, prep=EARLIER),
    Scenario("kr-milk-healthy-h5-export", "no_failure", job(29654, "--export models/milk-forecaster.h5"),
             r"legacy[\s\S]*" + OK, prep=DATA + " && mkdir -p models"),
    Scenario("kr-milk-cgroup-oom", "host_oom_killed", job(29655, "--cache-copies 4000", pre=CG_JOIN),
             r"SIGKILL|exitcode -9|job exited with 1", memory=1_300_000_000),
    Scenario("kr-milk-ckpt-disk-full", "disk_full", job(29656), r"No space|Errno 28", tmpfs=(("checkpoints", "16k"),)),
    # dropped (24 scenarios were too many; kr-milk-shm-batches kept): /dev/shm a 16 KiB tmpfs: the DataLoader could
    # not create its queue's semaphore (SemLock: OSError: [Errno 28] No space left on device)
    # Scenario("kr-milk-shm-small", "shm_exhausted",
    # "unshare -m bash -c 'mount -t tmpfs -o size=16k tmpfs /dev/shm && exec nice -n 5 {py} train.py "
    # "--step-delay 0.15 --master-port 29657 --workers 2'; echo \"job exited with $?\"",
    # r"shared memory|shm|[Bb]us error|SemLock[\s\S]*No space left"),
    Scenario("kr-milk-water-overflow", "training_divergence", job(29658), r"loss is (nan|-?inf)",
             prep=DATA + " --water-overflow NL0117"),
    Scenario("kr-milk-pedigree-cycle", "native_crash", job(29659), r"SIGSEGV|Segmentation|Fatal Python",
             prep=DATA + " --dam-cycle"),
    Scenario("kr-milk-port-held", "port_in_use", job(29660), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29660", stale_ready="Serving HTTP"),
    Scenario("kr-milk-rank-stopped", "collective_timeout", job(29661, "--epochs 6 --pg-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank:1:STOP"),), timeout=200),
    Scenario("kr-milk-preempted", "job_preempted", job(29662, "--epochs 8"), r"SIGTERM",
             trigger=((E2, "term"),)),
    Scenario("kr-milk-terminal-closed", "terminal_hangup", job(29663, "--epochs 8"), r"SIGHUP",
             trigger=((E2, "hup"),)),
    Scenario("kr-milk-second-node-missing", "rendezvous_timeout", job(29664, "--nnodes 2 --pg-timeout 30"),
             r"[Tt]imed out|[Tt]imeout"),
    Scenario("kr-milk-new-pen", "collective_mismatch", job(29665, "--pen-balance"), r"[Mm]ismatch",
             prep=DATA + " --new-pen", env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    Scenario("kr-milk-new-sensor", "worker_exception", job(29666, "--init-model models/milk-2025.keras"),
             r"job exited with [1-9]",
             prep=EARLIER + " && mkdir -p models && cp checkpoints/milk-epoch02.keras models/milk-2025.keras && "
                            "rm -rf checkpoints && {py} make_herd.py --new-sensor"),
    Scenario("kr-milk-save-best", "worker_exception", job(29667, "--save-best"), r"AttributeError"),
    Scenario("kr-milk-keras2-config", "library_version_mismatch", job(29668), r"not recognized",
             prep=DATA + " && sed -i 's/\"learning_rate\"/\"lr\"/' config/train.json"),
    Scenario("kr-milk-keras2-ckpt-path", "library_version_mismatch", job(29669), r"Invalid filepath extension",
             prep=DATA + " && sed -i 's/milk-epoch{epoch:02d}.keras/milk-epoch{epoch:02d}/' config/train.json"),
    # the imports sorted (as an import sorter does): `import keras` now runs before KERAS_BACKEND is set
    Scenario("kr-milk-import-order", "library_version_mismatch", job(29670), r"job exited with [1-9]",
             prep=DATA + " && {py} -c \"import re; s = open('train.py').read(); "
                         "s = s.replace('import keras\\n', '', 1).replace('import os\\n', 'import keras\\nimport os\\n', 1); "
                         "open('train.py', 'w').write(s)\""),
    # /dev/shm 256 KiB: room for the DataLoader's semaphores, not for the batches its workers share
    Scenario("kr-milk-shm-batches", "shm_exhausted",
             "unshare -m bash -c 'mount -t tmpfs -o size=256k tmpfs /dev/shm && exec nice -n 5 {py} train.py "
             "--step-delay 0.15 --master-port 29672 --workers 2 --batch-size 2048'; echo \"job exited with $?\"",
             r"shared memory|shm|[Bb]us error|No space left"),
    # TORCH_DISTRIBUTED_DEBUG=DETAIL (to debug the pen weights): both ranks die in DistributedDataParallel(model)
    Scenario("kr-milk-debug-detail", "native_crash", job(29673), r"SIGSEGV|Segmentation",
             env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    Scenario("kr-milk-stopped-quiet", "silent_hang", job(29671, "--epochs 8 --pg-timeout 1800"), E2,
             trigger=((E2, "rank:1:STOP"),), timeout=70, hang_ok=True),
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


def job_pythons(root: int) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """(launchers, workers): the job's train.py launcher (python) and its direct children, the ranks (pid order)."""
    def is_train(v: psutil.Process) -> bool:
        cl = v.cmdline()
        return bool(cl) and "python" in Path(cl[0]).name and "train.py" in cl

    procs = []
    with contextlib.suppress(psutil.Error):
        procs = [v for v in psutil.Process(root).children(recursive=True) if is_train(v)]
    pids = {v.pid for v in procs}
    launchers = [v for v in procs if v.ppid() not in pids]
    lp = {v.pid for v in launchers}
    workers = [v for v in procs if v.ppid() in lp]
    return launchers, sorted(workers, key=lambda v: v.pid)


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
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "KERAS_BACKEND", "WORLD_SIZE", "RANK"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL)
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = ""
    if s.memory:
        cgdir = own_memcg() / "wavebc-b-job"
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
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                launchers, workers = job_pythons(proc[0].pid)
                if action == "term":  # the scheduler's SIGTERM to every process of the training job
                    for v in launchers + workers:
                        with contextlib.suppress(psutil.Error):
                            v.send_signal(signal.SIGTERM)
                elif action == "hup":  # the terminal closing: SIGHUP to the job's whole process group
                    os.killpg(proc[0].pid, signal.SIGHUP)
                elif action.startswith("rank:"):
                    _, r, sig = action.split(":")
                    v = workers[int(r)]
                    print(f"  SIG{sig} {v.pid}", flush=True)
                    v.send_signal(getattr(signal, "SIG" + sig))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    if stale:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stale[0].pid, signal.SIGKILL)
    proc[0].wait()
    proc[1].join(5)
    for d, _ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebc-b-{s.name}"
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
        key = f"logs/run-wavebc-b-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
