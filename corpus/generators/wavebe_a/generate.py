"""Generate wave BE (a)'s real runs (sealed batch ``heldout60``): a climate-science team's precipitation emulator
(``project/train.py``: a small CNN mapping five gridded predictor fields to a precipitation field, PyTorch DDP over
gloo on CPU, DistributedSampler, timestamped per-rank ``print`` lines, ``torch.save`` every epoch) launched with
Open MPI the way HPC-centre tutorials do it; the script reads OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK:
``nice -n 5 mpirun -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=P -x OMP_NUM_THREADS=1 python train.py ...``
(some scenarios add ``--tag-output`` or ``--timeout N``; root runs need OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1, set in
the environment as container users do).

Every scenario empties the neutral job directory ``/tmp/wavebe-a-job/run``, copies ``project/`` in, writes the
synthetic gridded data (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``.
It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebe-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-be-runs-a.csv``.

    python3 corpus/generators/wavebe_a/generate.py --list
    python3 corpus/generators/wavebe_a/generate.py --scenario NAME
    python3 corpus/generators/wavebe_a/generate.py --all

Needs root (tmpfs, cgroup v1, unshare), Debian's openmpi-bin (Open MPI 4.1.4) and the venv ``/tmp/venv-be-a``
(system torch 2.13.0 CPU reused).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-be-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebe_a/generate.py"
SPLIT = "heldout60"
ECO = "mpi"
JOBS = Path("/tmp/wavebe-a-job")
SCRATCH = Path("/tmp/wavebe-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-be-a/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"

BASE = "--data-dir data --epochs 3 --global-batch 32 --batch-per-rank 16 --step-delay 0.1 --timeout 600"


def launch_cmd(port: int, extra: str = "", script: str = "train.py", base: str = BASE, pre: str = "",
               mpi: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 mpirun -np 2 {mpi + ' ' if mpi else ''}-x MASTER_ADDR=127.0.0.1 -x MASTER_PORT={port} "
            f"-x OMP_NUM_THREADS=1 python {script} {base}" + (" " + extra if extra else "")
            + "; echo \"job exited with $?\"")


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "rank1:SIG" | "truncate:PATH"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"training complete[\s\S]*job exited with 0"
E2 = r"epoch 2/\d+ step 4/"  # the second loss line of epoch 2
NOEXIT = "; echo \"job exited with $?\""
PRE = DATA + " && (" + launch_cmd(29735, base=sub(epochs="2")).replace(NOEXIT, "") + ") > /dev/null 2>&1"
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && exec "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
E4 = sub(epochs="4")
# the team's batch script retries the launch (the data staging job may still be copying)
RETRY = ("for attempt in 1 2 3; do echo \"launch attempt $attempt\"; "
         + launch_cmd(29713).replace(NOEXIT, "") + " && break; sleep 10; done; echo \"job exited with $?\"")
SCENARIOS = [
    Scenario("precip-healthy", "no_failure", launch_cmd(29710), OK),
    Scenario("precip-healthy-tagged-resume", "no_failure", launch_cmd(29711, "--resume latest", mpi="--tag-output"),
             r"resuming from[\s\S]*" + OK, prep=PRE.replace("29735", "29736"), timeout=300),
    Scenario("precip-healthy-rerun-done", "no_failure", launch_cmd(29712, "--resume latest"),
             r"nothing to do[\s\S]*" + OK, prep=PRE.replace("29735", "29737").replace("--epochs 2", "--epochs 3"),
             timeout=300),
    Scenario("precip-healthy-staging-retry", "no_failure",
             "({py} prep_data.py --delay 15 > /dev/null 2>&1 &); " + RETRY,
             r"launch attempt 2[\s\S]*" + OK, prep="", timeout=300),
    Scenario("precip-healthy-no-norm-stats", "no_failure", launch_cmd(29714), r"ERROR[\s\S]*" + OK,
             prep=DATA + " --no-stats"),
    Scenario("precip-wide-oom", "host_oom_killed", launch_cmd(29715, "--width 1024", pre=CGJOIN),
             r"job exited with [1-9]", memory=1_000_000_000),
    Scenario("precip-rank-killed", "host_oom_killed", launch_cmd(29716, base=E4), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("precip-ckpt-tmpfs", "disk_full", launch_cmd(29717),
             r"No space|Errno 28|unexpected pos|iostream|file write failed", tmpfs=(("checkpoints", "64k"),)),
    Scenario("precip-loader-shm", "shm_exhausted", SHM + launch_cmd(29718, "--workers 2").replace("; echo", "'; echo"),
             r"job exited with [1-9]"),
    Scenario("precip-rank-stopped", "collective_timeout", launch_cmd(29719, base=sub(epochs="4", timeout="20")),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=200, hang_ok=True),
    Scenario("precip-preempted", "job_preempted", launch_cmd(29720, base=E4), r"job exited with [1-9]",
             trigger=((E2, "mpirun:TERM"),)),
    Scenario("precip-terminal-closed", "terminal_hangup", launch_cmd(29721, base=E4), r"job exited with [1-9]",
             trigger=((E2, "mpirun:HUP"),)),
    Scenario("precip-mpirun-time-limit", "job_preempted", launch_cmd(29722, base=sub(epochs="8"), mpi="--timeout 20"),
             r"job exited with [1-9]", timeout=120),
    Scenario("precip-fill-values", "training_divergence", launch_cmd(29723), r"nan|NaN",
             prep=DATA + " --missing-cells 8"),
    Scenario("precip-missing-z500", "worker_exception", launch_cmd(29724), r"KeyError",
             prep=DATA + " --drop-var z500"),
    Scenario("precip-lr-typo", "worker_exception", launch_cmd(29725, base=sub(lr="2e-3,")), r"invalid float value"),
    Scenario("precip-batch-4-ranks", "batch_size_mismatch", launch_cmd(29726, base=sub(**{"global-batch": "64"})),
             r"global batch 64"),
    Scenario("precip-regrid-xesmf", "library_version_mismatch", launch_cmd(29727, "--regrid conservative"),
             r"No module named"),
    # the nightly export rewrites train_x.npy in place while the job has it memory-mapped
    Scenario("precip-export-rewritten", "native_crash", launch_cmd(29728, base=E4), r"job exited with [1-9]",
             trigger=((E2, "truncate:data/train_x.npy"),)),
    Scenario("precip-skill-map-rank0", "collective_mismatch",
             launch_cmd(29729, "--skill-map", base=sub(timeout="30")), r"job exited with [1-9]",
             timeout=150, hang_ok=True),
    Scenario("precip-port-held", "port_in_use", launch_cmd(29730), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29730", stale_ready="Serving HTTP", timeout=150, hang_ok=True),
    Scenario("precip-stopped-quiet", "silent_hang", launch_cmd(29731, base=E4), E2,
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
                if ".py" in " ".join(v.cmdline()) and "mpirun" not in " ".join(v.cmdline()) and v.environ().get("OMPI_COMM_WORLD_RANK") == local_rank:
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
               TOKENIZERS_PARALLELISM="false", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **s.env)
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
        cgdir = own_memcg() / "wavebe-a-job"
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
                elif action.startswith("mpirun:"):  # the launcher process only (the scheduler's signal to mpirun)
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(proc[0].pid).children(recursive=True):
                            if v.name() in ("mpirun", "orterun", "mpirun.openmpi"):
                                print(f"  {action} {v.pid}", flush=True)
                                v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
                elif action.startswith("rank1:"):  # the rank with OMPI_COMM_WORLD_RANK 1
                    for v in ranks(proc[0].pid, "1"):
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        with contextlib.suppress(psutil.Error):  # the ranks mpirun starts
            kids.update(psutil.Process(proc[0].pid).children(recursive=True))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    t_end = time.time()  # the shell is gone (a signal to the group kills it at once): let mpirun finish its part
    while not timed_out and time.time() - t_end < 30 and any(map(alive, kids)):
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in kids:  # a hung job's workers outlive the group kill (mpirun may put them in their own process groups)
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
        dest = CORPUS / "logs" / f"run-wavebe-a-{s.name}"
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
        key = f"logs/run-wavebe-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
