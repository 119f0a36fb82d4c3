"""Generate wave BE (c)'s real runs (sealed batch ``heldout60``): a retail team's demand-forecasting MLP on synthetic
store sales (``project/tune_demand.py``), tuned with **Ray Tune** (``Tuner`` over a search space, ASHA, ``tune.report``
with checkpoints, ``FailureConfig``, ``RunConfig(storage_path=...)``, ``Tuner.restore``). With ``--workers 2`` each trial
is itself a 2-worker ``ray.train.torch.TorchTrainer`` over gloo (Tune over Train, Ray Train V2's way: the trainer runs
inside a function trainable and forwards its reports with ``TuneReportCallback``).

Every scenario empties the neutral job directory ``/tmp/wavebe-c-job/run``, copies ``project/`` in, writes the sales
export (``make_sales.py``, not logged), runs the launch (``nice -n 5 python tune_demand.py ...``: the script starts a
local Ray instance with ``ray.init``) and appends the shell's ``job exited with N``. It checks the expected signature
(else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebe-c-<name>/job.log`` and its row of
``corpus/manifest.d/wave-be-runs-c.csv``.

    python3 corpus/generators/wavebe_c/generate.py --list
    python3 corpus/generators/wavebe_c/generate.py --scenario NAME
    python3 corpus/generators/wavebe_c/generate.py --all

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/venv-be-c`` (system torch 2.13.0 CPU and ray 2.60.0 reused).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-be-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebe_c/generate.py"
SPLIT = "heldout60"
ECO = "ray"
JOBS = Path("/tmp/wavebe-c-job")
SCRATCH = Path("/tmp/wavebe-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-be-c/bin")
PROJECT = HERE / "project"
DATA = "{py} make_sales.py"

BASE = "--data data/sales.csv --num-samples 3 --epochs 2 --step-delay 0.02"


def launch_cmd(extra: str = "", base: str = BASE, pre: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 {{py}} tune_demand.py {base}" + (" " + extra if extra else "")
            + "; echo \"job exited with $?\"")


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str  # regex the log must contain
    prep: str = DATA  # bash in the job dir before the job, not logged
    stale: str = ""
    stale_ready: str = ""
    tmpfs: tuple = ()  # ((dir, size),)
    memory: int = 0  # bytes: memory cgroup (v1) limit for the job ({cg} in the command)
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "proc:REGEX:SIG"
    timeout: int = 200
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"Tuning finished\.[\s\S]*job exited with 0"
E1 = r"epoch 1 valid WAPE"
DIST = "--workers 2 --num-samples 1 --max-concurrent 1"
PRE = DATA + " && (timeout -s INT 32 nice -n 5 {py} tune_demand.py " + BASE.replace("--epochs 2", "--epochs 4") + \
    ") > /dev/null 2>&1; true"  # an earlier run, interrupted with Ctrl-C (not logged)
DONE = DATA + " && (nice -n 5 {py} tune_demand.py " + BASE + ") > /dev/null 2>&1"  # a finished run (not logged)
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=256k tmpfs /dev/shm && exec "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
SCENARIOS = [
    Scenario("dmd-healthy", "no_failure", launch_cmd(), OK),
    Scenario("dmd-healthy-train-workers", "no_failure", launch_cmd(DIST), OK, timeout=240),
    Scenario("dmd-healthy-restore", "no_failure", launch_cmd("--resume", base=BASE.replace("--epochs 2", "--epochs 4")),
             r"Restoring experiment[\s\S]*" + OK, prep=PRE, timeout=240),
    Scenario("dmd-healthy-rerun-done", "no_failure", launch_cmd("--resume"), r"Restoring experiment[\s\S]*" + OK,
             prep=DONE, timeout=240),
    # the sales export is still being copied when the job starts; Tune's own trial retries (max_failures) recover.
    # Not in the batch: with --delay 22 the export arrived before the first trial (no retry, not kept); the rerun
    # with --delay 38 was not made before the deadline
    Scenario("dmd-healthy-late-export", "no_failure",
             "({py} make_sales.py --delay 38 > /dev/null 2>&1 &); " + launch_cmd("--max-failures 30"),
             r"FileNotFoundError[\s\S]*" + OK, prep=""),
    Scenario("dmd-missing-promo-column", "worker_exception", launch_cmd(), r"KeyError",
             prep=DATA + " --drop-column promo_depth"),
    Scenario("dmd-hidden-typo", "worker_exception", launch_cmd("--hidden 32,64;128".replace(";", "\\;")),
             r"ValueError"),
    Scenario("dmd-promo-gaps-nan", "training_divergence", launch_cmd(), r"Loss is nan",
             prep=DATA + " --missing-promo-days 3"),
    Scenario("dmd-holiday-calendar", "library_version_mismatch", launch_cmd("--calendar holidays"),
             r"No module named"),
    Scenario("dmd-wide-oom", "host_oom_killed", launch_cmd("--hidden 4096 --num-samples 2", pre=CGJOIN),
             r"job exited with", memory=1_600_000_000, timeout=200, hang_ok=True),
    Scenario("dmd-trial-killed", "host_oom_killed", launch_cmd("--epochs 4"), r"job exited with [1-9]",
             trigger=((E1, "proc:^ray::ImplicitFunc:KILL"),)),
    Scenario("dmd-results-tmpfs", "disk_full", launch_cmd("--storage {job}/ray_results --hidden 256"),
             r"No space|Errno 28", tmpfs=(("ray_results", "160k"),)),
    Scenario("dmd-preempted", "job_preempted", launch_cmd("--epochs 4"), r"job exited with|SIGTERM",
             trigger=((E1, "term"),), hang_ok=True),
    Scenario("dmd-terminal-closed", "terminal_hangup", launch_cmd("--epochs 4"), r".", trigger=((E1, "hup"),),
             hang_ok=True),
    Scenario("dmd-train-worker-stopped", "collective_timeout",
             launch_cmd(DIST + " --epochs 4 --pg-timeout 20"), r"[Tt]imed out|[Tt]imeout",
             trigger=((E1, "proc:RayTrainWorker:STOP"),), timeout=200, hang_ok=True),
    Scenario("dmd-batch-odd", "batch_size_mismatch", launch_cmd(DIST + " --batch-size 63"), r"not divisible"),
    # two Tune-over-Train trials one after the other: the first trial's placement group is not released (its
    # PlacementGroupCleaner cannot query the controller's state), the second trial's worker group never starts
    Scenario("dmd-train-trials-serial", "ray_scheduling_stall", launch_cmd(DIST.replace("-samples 1", "-samples 2")),
             r"worker group startup timed out", timeout=140, hang_ok=True),
    Scenario("dmd-lag-recursion", "native_crash", launch_cmd("--lag-depth 400000"), r"job exited with"),
    # meant as a /dev/shm failure; the run did not fail (Ray's object store fell back to /tmp/ray): kept as healthy
    Scenario("dmd-loader-shm", "no_failure", SHM + launch_cmd("--loader-workers 2").replace("; echo", "'; echo"),
             r"job exited with"),
    # run but not kept: dmd-terminal-closed is already the batch's one log whose only evidence is that output stopped
    Scenario("dmd-trial-stopped-quiet", "silent_hang", launch_cmd("--epochs 4"), E1,
             trigger=((E1, "proc:^ray::ImplicitFunc:STOP"),), timeout=75, hang_ok=True),
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


def workers(root: int) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        return psutil.Process(root).children(recursive=True)
    return []


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
               TOKENIZERS_PARALLELISM="false", RAY_ADDRESS="local", **s.env)
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
        cgdir = own_memcg() / "wavebe-c-job"
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
                elif action.startswith("proc:"):  # the last-started Ray worker whose title matches
                    pat, sig = action[5:].rsplit(":", 1)
                    vs = [v for v in workers(proc[0].pid) if re.search(pat, " ".join(v.cmdline()))]
                    for v in sorted(vs, key=lambda v: v.pid)[-1:]:
                        print(f"  {action} {v.pid} {' '.join(v.cmdline())[:60]}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + sig))
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
        dest = CORPUS / "logs" / f"run-wavebe-c-{s.name}"
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
        key = f"logs/run-wavebe-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
