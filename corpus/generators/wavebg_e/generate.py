"""Generate wave BG (e)'s real runs (sealed batch ``heldout62``): a small streaming-music service's next-song
recommender (``project/train.py``: user / history / candidate-track / artist embedding bags and an MLP, DLRM style,
sparse embedding gradients with SparseAdam, Adam for the MLP) trained data parallel (DDP, gloo, CPU) with

    nice -n 5 torchrun --nproc_per_node 2 --rdzv-backend c10d --rdzv-endpoint localhost:P train.py ...

TorchRec was the plan, but fbgemm-gpu-cpu 1.9.0 (the newest CPU build, needed by torchrec 1.9.2) does not load with
torch 2.13.0 (undefined symbol), so the workload is plain PyTorch DDP with nn.EmbeddingBag(sparse=True).

Every scenario empties the neutral job directory ``/tmp/wavebg-e-job/run``, copies ``project/`` in, writes the
synthetic listening-session export (``prep_data.py``, not logged), runs the launch and appends the shell's ``job
exited with N``. It checks the expected signature (else prints MISSING, writes nothing, exit 1) and writes
``corpus/logs/run-wavebg-e-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bg-runs-e.csv``.

    python3 corpus/generators/wavebg_e/generate.py --list
    python3 corpus/generators/wavebg_e/generate.py --scenario NAME
    python3 corpus/generators/wavebg_e/generate.py --all

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bg-e`` (system torch 2.13.0+cpu; torchrec 1.9.2 and
fbgemm-gpu-cpu 1.9.0 installed with --no-deps; a ``torchrun`` entry point for the venv's python).
"""
from __future__ import annotations

import argparse
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bg-runs-e.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebg_e/generate.py"
SPLIT = "heldout62"
ECO = "pytorch"
JOB = Path("/tmp/wavebg-e-job/run")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bg-e/bin")
PROJECT = HERE / "project"
DATA = "python prep_data.py"
BASE = "train.py --config config.json --data-dir data --ckpt-dir checkpoints --epochs 3 --step-delay 0.1"
EXIT = "; echo \"job exited with $?\""


def launch(port: int, extra: str = "", pre: str = "", tr: str = "") -> str:
    return (f"{pre}nice -n 5 torchrun --nproc_per_node 2 --rdzv-backend c10d --rdzv-endpoint localhost:{port}"
            f"{(' ' + tr) if tr else ''} {BASE}" + (" " + extra if extra else ""))


def cfg_edit(expr: str) -> str:
    return (" && python -c \"import json; c = json.load(open('config.json')); " + expr
            + "; json.dump(c, open('config.json', 'w'), indent=2)\"")


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str
    prep: str = DATA
    stale: str = ""
    tmpfs: tuple = ()
    memory: int = 0
    trigger: tuple = ()  # ((regex, action),): "rank1:SIG" | "launcher:SIG"
    timeout: int = 120
    hang_ok: bool = False
    shm: str = ""  # size of a private /dev/shm for the job (unshare -m)


OK = r"training finished[\s\S]*job exited with 0"
E2 = r"epoch 2/\d+ step 16/"
RETRY = ("for attempt in 1 2 3; do echo \"launch attempt $attempt\"; " + launch(29973)
         + " && break; sleep 10; done" + EXIT)
SCENARIOS = [
    Scenario("songs-healthy", "no_failure", launch(29970) + EXIT, OK),
    Scenario("songs-healthy-backend-fallback", "no_failure", launch(29971, "--embedding-backend auto") + EXIT,
             r"falling back[\s\S]*undefined symbol[\s\S]*" + OK),
    Scenario("songs-healthy-resume", "no_failure", launch(29972, "--resume --epochs 4") + EXIT,
             r"resumed from[\s\S]*" + OK,
             prep=DATA + " && (" + launch(29990, "--epochs 2") + ") > /dev/null 2>&1"),
    Scenario("songs-healthy-export-retry", "no_failure", "(python prep_data.py --delay 12 > /dev/null 2>&1 &); " + RETRY,
             r"launch attempt 2[\s\S]*" + OK, prep="", timeout=150),
    Scenario("songs-torchrec-backend", "library_version_mismatch",
             launch(29974, "--embedding-backend torchrec") + EXIT, r"undefined symbol[\s\S]*job exited with [1-9]"),
    Scenario("songs-port-held", "port_in_use", launch(29975) + EXIT, r"job exited with [1-9]|EADDRINUSE|in use",
             stale="python -m http.server 29975", timeout=100, hang_ok=True),
    Scenario("songs-wide-embeddings-oom", "host_oom_killed", launch(29976, "--emb-dim 8192") + EXIT,
             r"job exited with [1-9]", memory=1_300_000_000),
    Scenario("songs-rank-killed", "host_oom_killed", launch(29977) + EXIT, r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("songs-ckpt-tmpfs", "disk_full", launch(29978) + EXIT, r"No space|Errno 28|unexpected pos|file write",
             tmpfs=(("checkpoints", "4m"),)),
    Scenario("songs-lr-typo", "training_divergence", launch(29979, "--lr 1e30") + EXIT, r"loss is nan"),
    Scenario("songs-malformed-row", "worker_exception", launch(29980) + EXIT, r"ValueError[\s\S]*job exited with [1-9]",
             prep=DATA + " --bad-row 2500"),
    Scenario("songs-batch-config", "batch_size_mismatch", launch(29981) + EXIT, r"not divisible",
             prep=DATA + cfg_edit("c['grad_accum'] = 3")),
    Scenario("songs-fast-collate", "native_crash", launch(29982, "--fast-collate") + EXIT, r"SIGSEGV|Signals.SIGSEGV|-11",
             prep=DATA + " --empty-history 2900"),
    Scenario("songs-rank-stopped", "silent_hang", launch(29983, "--timeout 600") + EXIT, E2,
             trigger=((E2, "rank1:STOP"),), timeout=75, hang_ok=True),
    Scenario("songs-rank-stopped-timeout", "collective_timeout", launch(29984, "--timeout 20") + EXIT,
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=110, hang_ok=True),
    Scenario("songs-preempted", "job_preempted", launch(29985) + EXIT, r"job exited with [1-9]",
             trigger=((E2, "launcher:TERM"),)),
    Scenario("songs-terminal-closed", "terminal_hangup", launch(29986) + EXIT, r"job exited with [1-9]",
             trigger=((E2, "launcher:HUP"),)),
    Scenario("songs-second-node-missing", "rendezvous_timeout",
             launch(29987, tr="--nnodes 2 --rdzv-conf join_timeout=30") + EXIT, r"job exited with [1-9]",
             timeout=120),
    Scenario("songs-loader-workers-shm", "shm_exhausted", launch(29988, "--num-workers 2") + EXIT,
             r"unable to allocate shared memory", shm="256k", timeout=60, hang_ok=True),
]


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no memory cgroup")


def find_rank(root: psutil.Process, rank: str):
    for c in root.children(recursive=True):
        try:
            if "train.py" in " ".join(c.cmdline()) and c.environ().get("RANK") == rank:
                return c
        except psutil.Error:
            pass
    return None


def find_launcher(root: psutil.Process):
    for c in root.children(recursive=True):
        try:
            if "torchrun" in " ".join(c.cmdline()[:2]):
                return c
        except psutil.Error:
            pass
    return None


def act(proc: subprocess.Popen, action: str) -> None:
    who, sig = action.split(":")
    root = psutil.Process(proc.pid)
    target = find_rank(root, "1") if who == "rank1" else find_launcher(root)
    if target is None:
        print(f"trigger {action}: no target", file=sys.stderr)
        return
    os.kill(target.pid, getattr(signal, "SIG" + sig))


def run(sc: Scenario) -> bool:
    if JOB.parent.exists():
        subprocess.run(["bash", "-c", f"umount {JOB}/checkpoints 2>/dev/null; true"])
        shutil.rmtree(JOB.parent)
    shutil.copytree(PROJECT, JOB)
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("VIRTUAL_ENV", None)
    if sc.prep:
        subprocess.run(["bash", "-c", sc.prep], cwd=JOB, env=env, check=True, stdout=subprocess.DEVNULL)
    mounts = []
    for d, size in sc.tmpfs:
        (JOB / d).mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(JOB / d)], check=True)
        mounts.append(JOB / d)
    stale = None
    if sc.stale:
        stale = subprocess.Popen(["bash", "-c", sc.stale], cwd=JOB, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(2)
    cg = None
    cmd = sc.cmd
    if sc.memory:
        cg = own_memcg() / "wavebg-e-job"
        cg.mkdir(exist_ok=True)
        (cg / "memory.limit_in_bytes").write_text(str(sc.memory))
        try:
            (cg / "memory.memsw.limit_in_bytes").write_text(str(sc.memory))
        except OSError:
            pass
        cmd = f"echo $$ > {cg}/cgroup.procs; " + cmd
    if sc.shm:
        inner = f"mount -t tmpfs -o size={sc.shm} tmpfs /dev/shm && {cmd}"
        cmd = "unshare -m bash -c " + "'" + inner.replace("'", "'\\''") + "'"
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=JOB, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    out: list[bytes] = []
    pending = list(sc.trigger)

    def reader():
        for line in proc.stdout:
            out.append(line)
            text = b"".join(out).decode(errors="replace")
            while pending and re.search(pending[0][0], text):
                _, action = pending.pop(0)
                threading.Thread(target=act, args=(proc, action)).start()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    hung = False
    try:
        proc.wait(timeout=sc.timeout)
    except subprocess.TimeoutExpired:
        hung = True
        for c in psutil.Process(proc.pid).children(recursive=True):
            try:
                c.send_signal(signal.SIGCONT)
                c.send_signal(signal.SIGKILL)
            except psutil.Error:
                pass
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    t.join(timeout=10)
    if stale:
        os.killpg(stale.pid, signal.SIGTERM)
        stale.wait()
    for m in mounts:
        subprocess.run(["umount", str(m)])
    if cg is not None:
        time.sleep(1)
        try:
            cg.rmdir()
        except OSError as e:
            print(f"cgroup rmdir: {e}", file=sys.stderr)
    log = b"".join(out).decode(errors="replace")
    if hung and not sc.hang_ok:
        print(f"{sc.name}: MISSING (hung)\n{log[-3000:]}")
        return False
    if not re.search(sc.expect, log):
        print(f"{sc.name}: MISSING ({sc.expect!r})\n{log[-3000:]}")
        return False
    dest = CORPUS / "logs" / f"run-wavebg-e-{sc.name}"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "job.log").write_text(log)
    sys.path.insert(0, str(HERE))
    from notes import NOTES  # noqa: E402
    rows = read_fragment(FRAGMENT)
    f = f"logs/run-wavebg-e-{sc.name}/job.log"
    note = NOTES.get(sc.name, f"{sc.label}: (notes pending)")
    rows[f] = [f, sc.label, SOURCE, note, SPLIT, ECO, SPLIT]
    write_fragment(FRAGMENT, rows, HEADER)
    print(f"{sc.name}: ok ({len(log.splitlines())} lines{', harness killed after %ds' % sc.timeout if hung else ''})")
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name}\t{s.label}")
        return 0
    names = [s.name for s in SCENARIOS] if a.all else a.scenario
    ok = True
    for n in names:
        ok &= run(next(s for s in SCENARIOS if s.name == n))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
