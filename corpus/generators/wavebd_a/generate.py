"""Generate wave BD (a)'s real runs (sealed batch ``heldout59``): a speech team's keyword-spotting model
(``project/train.py``: a small conv net over log-mel frames, plain PyTorch DDP over gloo on CPU, DistributedSampler,
DataLoader workers, ``logging`` + rank-0 ``print``, ``torch.save`` every epoch) launched the way old repos launch it,
with the legacy launcher:
``nice -n 5 python -m torch.distributed.launch --nproc_per_node 2 --use-env --master_port P train.py ...``
(a few scenarios without ``--use-env``, so the script gets ``--local-rank`` from the launcher).

Every scenario empties the neutral job directory ``/tmp/wavebd-a-job/run``, copies ``project/`` in, writes the
feature export (``prep_features.py``, not logged), runs the launch and appends the shell's ``job exited with N``.
It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebd-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bd-runs-a.csv``.

    python3 corpus/generators/wavebd_a/generate.py --list
    python3 corpus/generators/wavebd_a/generate.py --scenario NAME
    python3 corpus/generators/wavebd_a/generate.py --all

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/venv-bd-a`` (system torch 2.13.0 CPU reused).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bd-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebd_a/generate.py"
SPLIT = "heldout59"
ECO = "pytorch"
JOBS = Path("/tmp/wavebd-a-job")
SCRATCH = Path("/tmp/wavebd-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bd-a/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_features.py"

BASE = "--data-dir data --epochs 3 --batch-size 64 --micro-batch 32 --workers 2 --step-delay 0.1 --pg-timeout 600"


def launch_cmd(port: int, extra: str = "", script: str = "train.py", base: str = BASE, pre: str = "",
               use_env: bool = True, launcher: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 {{py}} -m torch.distributed.launch --nproc_per_node 2 {'--use-env ' if use_env else ''}"
            f"{launcher + ' ' if launcher else ''}--master_port {port} {script} {base}"
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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "rank1:SIG" | "truncate:PATH"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"Training finished\.[\s\S]*job exited with 0"
E2 = r"Epoch \[2/\d+\] Step \[4/"  # the first loss line of epoch 2
PRE = DATA + " && (" + launch_cmd(29630, base=sub(epochs="2")).replace("; echo \"job exited with $?\"", "") + \
    ") > /dev/null 2>&1"  # an earlier run (not logged)
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && exec "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
E4 = sub(epochs="4")
SCENARIOS = [
    Scenario("kws-healthy", "no_failure", launch_cmd(29610), OK),
    Scenario("kws-healthy-local-rank-arg", "no_failure", launch_cmd(29611, use_env=False),
             r"local rank 0[\s\S]*" + OK),
    Scenario("kws-healthy-resume", "no_failure", launch_cmd(29612, "--resume auto"),
             r"resumed from[\s\S]*" + OK, prep=PRE.replace("29630", "29631"), timeout=300),
    Scenario("kws-healthy-rerun-done", "no_failure", launch_cmd(29613, "--resume auto"),
             r"nothing to train[\s\S]*" + OK, prep=PRE.replace("29630", "29632").replace("--epochs 2", "--epochs 3"),
             timeout=300),
    # the feature copy is still running when the job starts; the launcher's own restarts (--max_restarts 3) retry
    Scenario("kws-healthy-late-features", "no_failure",
             "({py} prep_features.py --delay 15 > /dev/null 2>&1 &); " + launch_cmd(29614, launcher="--max_restarts 3"),
             r"FileNotFoundError[\s\S]*" + OK, prep=""),
    Scenario("kws-wide-oom", "host_oom_killed", launch_cmd(29615, "--width 256", pre=CGJOIN),
             r"job exited with [1-9]", memory=1_500_000_000),
    Scenario("kws-rank-killed", "host_oom_killed", launch_cmd(29616, base=E4), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("kws-ckpt-tmpfs", "disk_full", launch_cmd(29617),
             r"No space|Errno 28|unexpected pos|iostream|file write failed", tmpfs=(("checkpoints", "96k"),)),
    Scenario("kws-workers-shm", "shm_exhausted", SHM + launch_cmd(29618).replace("; echo", "'; echo"),
             r"job exited with [1-9]"),
    Scenario("kws-rank-stopped", "collective_timeout", launch_cmd(29619, base=sub(epochs="4", **{"pg-timeout": "20"})),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=200, hang_ok=True),
    Scenario("kws-preempted", "job_preempted", launch_cmd(29620, base=E4), r"SIGTERM|signal: 15",
             trigger=((E2, "term"),)),
    Scenario("kws-terminal-closed", "terminal_hangup", launch_cmd(29621, base=E4), r"SIGHUP|signal: 1\b",
             trigger=((E2, "hup"),)),
    Scenario("kws-dead-mic-clips", "training_divergence", launch_cmd(29622), r"nan|NaN|-inf",
             prep=DATA + " --silent-clips 4"),
    Scenario("kws-port-held", "port_in_use", launch_cmd(29623), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29623", stale_ready="Serving HTTP", timeout=150, hang_ok=True),
    Scenario("kws-finetune-old-script", "library_version_mismatch",
             launch_cmd(29624, script="finetune.py", base="--data_dir data --epochs 1 --step_delay 0.1",
                        use_env=False), r"unrecognized arguments"),
    Scenario("kws-batch-accum", "batch_size_mismatch", launch_cmd(29625, base=sub(**{"batch-size": "128"})),
             r"--batch-size 128"),
    # the two-node launch (static rendezvous on node 0's master port) started on the first node only
    Scenario("kws-second-node-missing", "rendezvous_timeout",
             launch_cmd(29626, launcher="--nnodes 2 --node_rank 0 --master_addr 127.0.0.1 --rdzv_conf timeout=30"),
             r"[Tt]imeout|[Tt]imed out", timeout=200),
    Scenario("kws-specaugment", "library_version_mismatch", launch_cmd(29627, "--augment specaugment"), r"No module named"),
    # the nightly feature refresh rewrites train_feats.npy in place while the job has it memory-mapped
    Scenario("kws-feats-rewritten", "native_crash", launch_cmd(29628, base=E4), r"job exited with [1-9]",
             trigger=((E2, "truncate:data/train_feats.npy"),)),
    Scenario("kws-vendor-keyword", "worker_exception", launch_cmd(29629), r"KeyError",
             prep=DATA + " --extra-keyword hey_computer"),
    Scenario("kws-lr-typo", "worker_exception", launch_cmd(29633, base=sub(lr="3e-3,")), r"invalid float value"),
    # the team's confusion-matrix logging gathers predictions inside the rank-0-only block. A first try with
    # TORCH_DISTRIBUTED_DEBUG=DETAIL (not kept): both ranks died with SIGSEGV before the first step
    Scenario("kws-confusion-rank0", "collective_mismatch",
             launch_cmd(29635, "--confusion-matrix", base=sub(**{"pg-timeout": "30"})), r"job exited with [1-9]",
             timeout=150, hang_ok=True),
    Scenario("kws-stopped-quiet", "silent_hang", launch_cmd(29634, base=E4), E2,
             trigger=((E2, "rank1:STOP"),), timeout=70, hang_ok=True),
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
                if ".py" in " ".join(v.cmdline()) and "launch" not in " ".join(v.cmdline()) and v.environ().get("LOCAL_RANK") == local_rank:
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
        cgdir = own_memcg() / "wavebd-a-job"
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
        dest = CORPUS / "logs" / f"run-wavebd-a-{s.name}"
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
        key = f"logs/run-wavebd-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
