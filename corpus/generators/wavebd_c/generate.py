"""Generate wave BD (c)'s real runs (sealed batch ``heldout59``): a made-up agritech team's crop-disease classifier
(``project/``: CropNet, a small conv net on 3x32x32 leaf patches, 5 disease classes) trained with the OpenMMLab
MMEngine ``Runner`` as 2-process DDP over gloo on CPU, launched the way OpenMMLab repos launch it:
``nice -n 5 torchrun --nproc_per_node 2 --master_port P tools/train.py configs/cropnet_leafdx_5cls.py --launcher pytorch
[--cfg-options ...] [--resume [CKPT]] [--amp]``. Each run has one cause made to happen for real (or none).

Every scenario empties the neutral job directory ``/tmp/wavebd-c-job/run``, copies ``project/`` in, writes the leaf
patches (``tools/make_leaves.py``, not logged), runs the launch and appends the shell's ``job exited with N``. It checks
the expected signature (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebd-c-<name>/job.log``
and its row of ``corpus/manifest.d/wave-bd-runs-c.csv``.

    python3 corpus/generators/wavebd_c/generate.py --list
    python3 corpus/generators/wavebd_c/generate.py --scenario NAME
    python3 corpus/generators/wavebd_c/generate.py --all

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/venv-bd-c`` (torch 2.13.0 CPU, mmengine 0.10.7).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bd-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebd_c/generate.py"
SPLIT = "heldout59"
ECO = "openmmlab"
JOBS = Path("/tmp/wavebd-c-job")
SCRATCH = Path("/tmp/wavebd-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bd-c/bin")
PROJECT = HERE / "project"
DATA = "{py} tools/make_leaves.py"

CFG = "configs/cropnet_leafdx_5cls.py"


def tr(port: int, extra: str = "", pre: str = "", nodes: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 torchrun --nproc_per_node 2 " + (nodes or f"--master_port {port}") +
            f" tools/train.py {CFG} --launcher pytorch" + (" " + extra if extra else "") + "; echo \"job exited with $?\"")


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


OK = r"Saving checkpoint at 3 epochs[\s\S]*job exited with 0"
E2 = r"Epoch\(train\) \[2\]\[10/"  # a loss line in epoch 2
NOWO = "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 "  # the team's workaround for resuming with mmengine 0.10.7 on torch 2.13
PRE1 = DATA + " && (" + tr(29697, "--cfg-options train_cfg.max_epochs=1").replace("; echo \"job exited with $?\"", "") + \
    ") > /dev/null 2>&1"  # an earlier 1-epoch run (not logged)
PRE3 = DATA + " && (" + tr(29698).replace("; echo \"job exited with $?\"", "") + ") > /dev/null 2>&1"  # a finished run
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && exec "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
LONG = "--cfg-options train_cfg.max_epochs=4"
SCENARIOS = [
    Scenario("leaf-healthy", "no_failure", tr(29670), OK),
    Scenario("leaf-healthy-resume", "no_failure", tr(29671, "--resume", pre=NOWO),
             r"[Rr]esumed[\s\S]*" + OK, prep=PRE1, timeout=300),
    Scenario("leaf-healthy-rerun-done", "no_failure", tr(29672, "--resume", pre=NOWO),
             r"[Rr]esumed[\s\S]*job exited with 0", prep=PRE3, timeout=300),
    Scenario("leaf-healthy-missing-tiles", "no_failure", tr(29673), r"is not in train_images[\s\S]*" + OK,
             prep=DATA + " --missing-tiles 3"),
    Scenario("leaf-healthy-workers", "no_failure",
             tr(29674, "--cfg-options train_dataloader.num_workers=2 train_dataloader.persistent_workers=True"), OK),
    Scenario("leaf-wide-oom", "host_oom_killed",
             tr(29675, "--cfg-options model.width=1024 model.depth=3", pre=CGJOIN), r"job exited with [1-9]",
             memory=1_500_000_000),
    Scenario("leaf-rank-killed", "host_oom_killed", tr(29676, LONG), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("leaf-ckpt-tmpfs", "disk_full", tr(29677), r"No space|Errno 28|unexpected pos|iostream",
             tmpfs=(("work_dirs", "160k"),)),
    Scenario("leaf-workers-shm", "shm_exhausted",
             SHM + tr(29678, "--cfg-options train_dataloader.num_workers=2").replace("; echo", "'; echo"),
             r"job exited with [1-9]"),
    Scenario("leaf-rank-stopped", "collective_timeout", tr(29679, LONG + " env_cfg.dist_cfg.timeout=20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=150, hang_ok=True),
    Scenario("leaf-stopped-quiet", "silent_hang", tr(29680, LONG), E2, trigger=((E2, "rank1:STOP"),), timeout=80,
             hang_ok=True),
    Scenario("leaf-preempted", "job_preempted", tr(29681, LONG), r"SIGTERM|signal: 15|Signals.SIGTERM",
             trigger=((E2, "term"),)),
    Scenario("leaf-terminal-closed", "terminal_hangup", tr(29682, LONG), r"SIGHUP|signal: 1\b",
             trigger=((E2, "hup"),)),
    Scenario("leaf-cloud-masked", "training_divergence", tr(29683), r"nan|NaN", prep=DATA + " --cloud-masked 40"),
    Scenario("leaf-shard-rewritten", "native_crash", tr(29684, LONG), r"job exited with [1-9]",
             trigger=((E2, "truncate"),)),
    Scenario("leaf-num-classes", "worker_exception", tr(29685, "--cfg-options model.num_classes=4"), r"out of bounds"),
    Scenario("leaf-model-typo", "worker_exception", tr(29686, "--cfg-options model.type=CropNett"), r"CropNett"),
    Scenario("leaf-resume-missing", "worker_exception",
             tr(29687, "--resume work_dirs/cropnet_leafdx_5cls/epoch_3.pth"), r"job exited with [1-9]"),
    Scenario("leaf-resume-weights-only", "library_version_mismatch", tr(29688, "--resume"),
             r"weights_only|Weights only", prep=PRE1.replace("29697", "29696"), timeout=300),
    Scenario("leaf-launcher-cpu-build", "library_version_mismatch",
             tr(29689, "--cfg-options env_cfg.cpu_dist_init=False"), r"_cuda_setDevice"),
    Scenario("leaf-per-field-metric", "collective_mismatch", tr(29690, "--cfg-options val_evaluator.per_field=True "
             "env_cfg.dist_cfg.timeout=60"), r"job exited with [1-9]", prep=DATA + " --late-field", timeout=200),
    Scenario("leaf-amp-cpu", "worker_exception", tr(29691, "--amp"), r"AmpOptimWrapper|AmpOptimizerWrapper"),
    Scenario("leaf-second-node-missing", "rendezvous_timeout",
             tr(29692, nodes="--nnodes 2 --rdzv_backend c10d --rdzv_endpoint localhost:29692 --rdzv_id leafdx "
                "--rdzv_conf join_timeout=30"), r"[Tt]imeout|[Tt]imed out", timeout=150),
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
                if "tools/train.py" in " ".join(v.cmdline()) and v.environ().get("LOCAL_RANK") == local_rank:
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
        cgdir = own_memcg() / "wavebd-c-job"
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
                elif action == "truncate":  # the data-prep job rewrites the image shard under the running job
                    os.truncate(job / "data/leaves/train_images.npy", 4096)
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
        dest = CORPUS / "logs" / f"run-wavebd-c-{s.name}"
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
        from notes import notes  # noqa: E402
        NOTES = notes({s.name: s.label for s in SCENARIOS})
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebd-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
