"""Generate wave AL (c)'s real runs (sealed batch ``heldout41``): an online handwriting (pen stroke) recogniser
(synthetic pen trajectories of a small alphabet drawn from Bezier templates with jitter; a 1-D conv + bidirectional LSTM
encoder trained with CTC over the character sequence; greedy-decoding character error rate averaged over ranks; rank 0
saves ``.pdparams``), trained data-parallel with PaddlePaddle on the CPU (gloo) under ``python -m
paddle.distributed.launch`` (one node, two nodes, Fleet collective mode) and ``paddle.distributed.spawn``, each run with
one cause made to happen for real (or none, for the healthy runs).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveal-c-job/run`` (emptied and refilled
with ``strokes.py`` before each run, so no scenario name appears in a log) and captures stdout+stderr combined as ``cmd
2>&1 | tee job.log`` would. For launcher runs it also keeps the launcher's per-rank files (``log/workerlog.N``) next to
the console. It checks that the expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-waveal-c-<name>/`` (``job.log``, plus ``workerlog.N`` for launcher runs) and its row of
``corpus/manifest.d/wave-al-runs-c.csv`` (split and batch ``heldout41``). The harness is copied from
../waveak_a/generate.py (addition: ``workerlogs``, the launcher's log directory whose ``workerlog.*`` files are kept).

    python3 corpus/generators/waveal_c/generate.py --list
    python3 corpus/generators/waveal_c/generate.py --scenario NAME
    python3 corpus/generators/waveal_c/generate.py --all

Needs root (tmpfs mounts, cgroup v1, a private /dev/shm), util-linux ``unshare``, and the venv ``/tmp/corpus-venv-al-c``
(``python -m venv``; ``pip install paddlepaddle numpy psutil``: paddlepaddle 3.3.1, numpy 2.4.6), and protobuf 3.19.6
installed with ``pip install --no-deps --target /tmp/waveal-c-job/site-packages protobuf==3.19.6`` for one scenario.
Run it with the venv's Python (it has psutil).
"""
from __future__ import annotations

import argparse
import contextlib
import glob
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
FRAGMENT = CORPUS / "manifest.d" / "wave-al-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveal_c/generate.py"
SPLIT = "heldout41"
JOBS = Path("/tmp/waveal-c-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"c": Path("/tmp/corpus-venv-al-c/bin")}
SCRIPTS = ("strokes.py",)
MPI = ""
DATA = "{py} strokes.py make --out data"
DONE = "; echo \"job exited with $?\""
LAUNCH = "{py} -m paddle.distributed.launch --nproc_per_node 2 strokes.py "
FLEET = "{py} -m paddle.distributed.launch --nproc_per_node 3 strokes.py --fleet "
SPAWN = "{py} strokes.py --spawn 2 "
NODE = "{py} -m paddle.distributed.launch --nnodes 2 --nproc_per_node 1 --master 127.0.0.1:{port} --log_dir {log} strokes.py "


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "c"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""  # after stale_ready: SIGKILL the stale job's processes whose command line matches this regex
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # ((regex | seconds, "hup" | "int" | "usr1" | "term" | "kill1" | "cmd:<bash>"[, wait_s]), ...)
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log
    linger: bool = False  # after the command's own process is gone, wait for what it started (orphans) to end too
    logfile: str = ""  # keep this file of the job dir (the job's own redirection) as job.log, not the console
    workerlogs: str = ""  # the launcher's --log_dir: its workerlog.* files are kept next to job.log


def at(tpl: str, port: int = 0, log: str = "log") -> str:
    return tpl.replace("{port}", str(port)).replace("{log}", log)


H = "--epochs 6"  # healthy runs
A = "--epochs 4"
OK = r"done: 6 epochs[\s\S]*job exited with 0"
SITE = "/tmp/waveal-c-job/site-packages"  # the team's shared site directory (protobuf 3.19.6 for an old exporter)
SCENARIOS = [
    # --- paddle.distributed.launch, one node -------------------------------------------------------------------------
    Scenario("launch-strokes-healthy", "no_failure", "paddlepaddle", LAUNCH + "--workers 2 " + H + DONE, OK,
             prep=DATA, workerlogs="log"),
    Scenario("launch-strokes-tablet-export", "worker_exception", "paddlepaddle", LAUNCH + A + DONE, r"KeyError",
             prep=DATA + " --capitalised train-01", workerlogs="log"),
    Scenario("launch-strokes-direction-features", "training_divergence", "paddlepaddle",
             LAUNCH + "--direction " + A + DONE, r"loss nan[\s\S]*not finite", prep=DATA + " --dots train-01",
             workerlogs="log"),
    Scenario("launch-strokes-mmap-shards", "native_crash", "paddlepaddle", LAUNCH + "--mmap --epochs 12" + DONE,
             r"Bus error|SIGBUS|code -7", prep=DATA,
             trigger=((r"epoch 2 step 10/", "cmd:" + DATA + " --per-shard 60 > /dev/null 2>&1", 0),),
             workerlogs="log", timeout=200),
    Scenario("launch-strokes-lexicon", "silent_hang", "paddlepaddle",
             LAUNCH + "--lexicon 'lexicon/*.txt' " + A + DONE, r"train shards[\s\S]*(KeyboardInterrupt|signal 2|SIGINT)",
             prep=DATA, trigger=((r"rank 0: train shards", "int", 75),), workerlogs="log", timeout=200),
    Scenario("launch-strokes-fixed-port", "port_in_use", "paddlepaddle",
             "{py} -m paddle.distributed.launch --ips 127.0.0.1 --start_port 29511 --nproc_per_node 2 strokes.py " + A
             + DONE, r"29511[\s\S]*(Abort|SIGABRT|code -6|Address already in use)", prep=DATA,
             stale="cd /tmp && {py} -m http.server 29511", stale_ready=r"Serving HTTP", workerlogs="log"),
    Scenario("launch-strokes-per-char-recall", "collective_mismatch", "paddlepaddle", LAUNCH + "--per-char " + A + DONE,
             r"Abort|SIGABRT|code -6|Connection reset|TIMEOUT", prep=DATA + " --letters val-01:abcdefgh",
             workerlogs="log"),
    Scenario("launch-strokes-shm-loader", "shm_exhausted", "paddlepaddle",
             LAUNCH + "--workers 3 --batch-size 64 " + A + DONE, r"shared memory|shm|Bus error|BUS error|No space",
             prep=DATA + " --rate train-00:120,train-01:120,train-02:120,train-03:120", shm="32m", workerlogs="log"),
    # --- paddle.distributed.launch, two nodes (node 0's console and log directory kept) ------------------------------
    Scenario("launch-strokes-two-nodes-healthy", "no_failure", "paddlepaddle", at(NODE, 29521) + H + DONE, OK,
             prep=DATA, nodes=((3, at(NODE, 29521, "log1") + H + DONE),), keep=0, workerlogs="log"),
    Scenario("launch-strokes-two-nodes-lost-node", "peer_process_died", "paddlepaddle", at(NODE, 29523) + "--epochs 12"
             + DONE, r"Connection reset|Connection closed|TIMEOUT|Read error|failed", prep=DATA,
             nodes=((3, at(NODE, 29523, "log1") + "--epochs 12" + DONE),), keep=0, workerlogs="log",
             trigger=((r"eval epoch 2", "kill1", 2),), timeout=240),
    # --- Fleet collective mode under the launcher ----------------------------------------------------------------------
    Scenario("fleet-strokes-healthy-3-ranks", "no_failure", "paddlepaddle", FLEET + H + DONE, OK,
             prep=DATA + " --train-shards 6 --per-shard 160 --val-shards 3 --val-per-shard 40", workerlogs="log"),
    Scenario("fleet-strokes-time-limit", "job_preempted", "paddlepaddle",
             "timeout 45 " + FLEET + "--epochs 40" + DONE, r"signal 15|SIGTERM|Terminat",
             prep=DATA + " --train-shards 6 --per-shard 160 --val-shards 3 --val-per-shard 40", workerlogs="log"),
    # --- paddle.distributed.spawn --------------------------------------------------------------------------------------
    Scenario("spawn-strokes-resume", "no_failure", "paddlepaddle", SPAWN + "--resume " + H + DONE,
             r"resumed from[\s\S]*" + OK, prep=DATA + " && " + SPAWN + "--epochs 2 > /dev/null 2>&1"),
    Scenario("spawn-strokes-transcribed-val", "worker_exception", "paddlepaddle", SPAWN + A + DONE,
             r"ZeroDivisionError", prep=DATA + " --erased val-01"),
    Scenario("spawn-strokes-node-scratch", "disk_full", "paddlepaddle", SPAWN + "--ckpt-dir scratch/ckpt " + A + DONE,
             r"No space left|[Ee]rrno 28", prep=DATA, tmpfs=(("scratch", "1m", 0),)),
    Scenario("spawn-strokes-proximity-channel", "host_oom_killed", "paddlepaddle", SPAWN + "--proximity " + A + DONE,
             r"SIGKILL|[Ss]ignal 9|Killed", prep=DATA + " --rate train-01:1000", memory=1_600_000_000, timeout=300),
    Scenario("spawn-strokes-beam-search", "collective_timeout", "paddlepaddle", SPAWN + "--beam 16 " + A + DONE,
             r"TIMEOUT|[Tt]imed out|[Tt]imeout", prep=DATA + " --rate val-01:600", timeout=400),
    Scenario("spawn-strokes-shared-site", "library_version_mismatch", "paddlepaddle", SPAWN + A + DONE,
             r"cannot import name 'builder'", prep=DATA, env={"PYTHONPATH": SITE}),
    Scenario("spawn-strokes-ssh-session", "terminal_hangup", "paddlepaddle", SPAWN + "--epochs 40" + DONE,
             r"eval epoch 1", prep=DATA, trigger=((r"eval epoch 1", "hup", 3),), timeout=200),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"mpi": MPI, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def alive(pid: int, created: float) -> bool:
    with contextlib.suppress(psutil.Error):
        p = psutil.Process(pid)
        return p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE
    return False


class Tracker:
    """Every process seen below the job's shells (pid, create time), to kill what a run leaves behind."""

    def __init__(self, pids: list[int]) -> None:
        self.roots, self.seen = pids, {}

    def poll(self) -> None:
        for root in self.roots:
            with contextlib.suppress(psutil.Error):
                for c in psutil.Process(root).children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        self.seen.setdefault(c.pid, c.create_time())

    def kill_all(self) -> None:
        for root in self.roots:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(root, signal.SIGKILL)
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                if p.create_time() == created:
                    p.kill()
        for proc in psutil.process_iter():  # what stayed in a job's session (re-parented to init)
            with contextlib.suppress(psutil.Error, ProcessLookupError):
                if proc.pid not in self.roots and os.getsid(proc.pid) in self.roots:
                    proc.kill()




def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def slurm_text(job: Path, expect: str = "") -> str:
    outs = [Path(o).read_text(errors="replace") for o in sorted(glob.glob(str(job / "slurm-*.out")))]
    for o in outs:
        if expect and re.search(expect, o):
            return o
    return outs[0] if outs else ""


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP disposition even when this generator runs under nohup (which ignores it)
    # stdin: an open pipe nobody writes to, like a terminal nobody types into
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def run(s: Scenario) -> bool:
    job = JOBS / "run"  # one neutral directory for every scenario: no scenario name inside a log
    if job.exists():
        for d, *_ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / Path(src).name)
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
    if s.slurm_out and not slurm_ok():
        print(f"MISSING {s.name}: no Slurm controller answers (run slurm_setup.sh)", flush=True)
        return False
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", *s.unset):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    cwd_job = job
    stale = None
    if s.stale:  # another job already running on this host (its console is not kept)
        stale_out = bytearray()
        stale = launch(fill(s.stale, s, job), job, env, stale_out)
        t_stale = time.time()
        while not re.search(s.stale_ready, stale_out.decode(errors="replace")):
            if stale[0].poll() is not None or time.time() - t_stale > 120:
                print(f"  stale job not ready: {stale_out.decode(errors='replace')[-2000:]}", flush=True)
                break
            time.sleep(0.5)
        if s.stale_kill:  # the launcher killed with kill -9, its ranks left running (and holding their ports)
            for v in psutil.Process(stale[0].pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    if re.search(s.stale_kill, " ".join(v.cmdline())):
                        print(f"  stale: SIGKILL {v.pid} {' '.join(v.cmdline())[:100]}", flush=True)
                        v.kill()
            time.sleep(2)
    cmds = [(0, s.cmd), *s.nodes]
    cg = ""
    if s.memory:
        cgdir = own_memcg() / f"waveal-c-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    outs = [bytearray() for _ in cmds]
    procs: list[tuple[subprocess.Popen, threading.Thread]] = []
    start = time.time()
    tracker = Tracker([stale[0].pid] if stale else [])
    fired = not s.trigger
    debuggers: list[subprocess.Popen] = []
    n_fired = 0
    hit_at = 0.0
    pending = list(enumerate(cmds))
    timed_out = False
    while True:
        for i, (delay, cmd) in list(pending):
            if time.time() - start >= delay:
                c = fill(cmd, s, job)
                if cg:
                    c = f"echo $$ > {cg}/cgroup.procs; {c}"
                if s.shm:  # a container-sized /dev/shm: a private mount namespace with its own tmpfs there
                    c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {c}")
                procs.append(launch(c, cwd_job, env, outs[i]))
                tracker.roots.append(procs[-1][0].pid)
                pending.remove((i, (delay, cmd)))
        tracker.poll()
        if not fired:
            what, action, *later = s.trigger[n_fired]
            if isinstance(what, (int, float)):
                hit = time.time() - start >= what
            else:
                text = slurm_text(job) if s.slurm_out else outs[0].decode(errors="replace")
                if s.logfile and (job / s.logfile).exists():
                    text = (job / s.logfile).read_text(errors="replace")
                hit = re.search(what, text) is not None
            if hit and later and not hit_at:
                hit_at = time.time()
                print(f"  trigger seen after {hit_at - start:.0f} s, {action} in {later[0]} s", flush=True)
            if hit and later:
                hit = time.time() - hit_at >= later[0]
            if hit:
                n_fired += 1
                fired = n_fired == len(s.trigger)
                hit_at = 0.0
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "kill-root":  # the terminal program holding the job's pseudo-terminal is gone
                    procs[0][0].kill()
                elif action == "hup":
                    os.killpg(procs[0][0].pid, signal.SIGHUP)
                elif action == "kill0":  # the first node's host lost: everything on it gone at once
                    with contextlib.suppress(psutil.Error):
                        victims = psutil.Process(procs[0][0].pid).children(recursive=True)
                        for v in victims:
                            with contextlib.suppress(psutil.Error):
                                v.kill()
                    os.killpg(procs[0][0].pid, signal.SIGKILL)
                elif action == "kill1":  # the second node's host lost: everything on it gone at once
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(procs[1][0].pid).children(recursive=True):
                            with contextlib.suppress(psutil.Error):
                                v.kill()
                    os.killpg(procs[1][0].pid, signal.SIGKILL)
                elif action == "usr1":  # the user asking every rank for a stack dump (faulthandler)
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if "strokes.py" in " ".join(v.cmdline()) and "paddle.distributed.launch" not in " ".join(v.cmdline()) \
                                            and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    if "strokes.py" in " ".join(v.cmdline()) and v.name().startswith("python") and \
                                            "1" in (e.get("RANK"), e.get("OMPI_COMM_WORLD_RANK")):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env)
        if not pending and all(p.poll() is not None for p, _ in procs):
            if not s.linger or not any(alive(pid, ct) for pid, ct in tracker.seen.items()):
                break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    if s.slurm_out or s.name.startswith("slurm"):
        ids = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout.split()
        if ids:  # this host's one-node cluster, started for these runs: cancel what the run left queued or running
            subprocess.run(["scancel", *ids])
    for d in debuggers:
        d.kill()
        d.wait()
    tracker.kill_all()
    for p, t in procs + ([stale] if stale else []):
        p.wait()
        t.join(5)
    for d, *_ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    for i, o in enumerate(outs):
        (job / f"console{i}.log").write_bytes(o)  # kept for a look at a MISSING run
        (JOBS / f"last-{s.name}-{i}.log").write_bytes(o)
    if s.slurm_out:
        logs = {"job.log": slurm_text(job, s.expect).encode()}
    elif s.logfile:
        logs = {"job.log": (job / s.logfile).read_bytes() if (job / s.logfile).exists() else b""}
    elif len(outs) == 1 or s.keep >= 0:
        logs = {"job.log": bytes(outs[max(s.keep, 0)])}
        if s.workerlogs:  # the launcher's per-rank files (its --log_dir), next to its console
            for w in sorted(glob.glob(str(job / s.workerlogs / "workerlog.*"))):
                logs[Path(w).name] = Path(w).read_bytes()
    elif False:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-waveal-c-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        for fn, data in logs.items():
            (dest / fn).write_bytes(data)
    lines = ", ".join(f"{fn} {len(d.decode(errors='replace').splitlines())} lines" for fn, d in logs.items())
    rcs = ",".join(str(p.returncode) for p, _ in procs)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({lines}, rc {rcs}, {time.time() - start:.0f} s"
          f"{', timed out' if timed_out else ''})", flush=True)
    return ok


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def row_key(s: Scenario) -> str:
    return f"logs/run-waveal-c-{s.name}" if s.workerlogs or (s.nodes and s.keep < 0) else f"logs/run-waveal-c-{s.name}/job.log"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:48} {s.label:26} {s.ecosystem}")
        return
    try:
        from notes import NOTES  # noqa: E402  (what each committed run showed; written after the runs)
    except ImportError:
        NOTES = {}

    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = row_key(s)
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
