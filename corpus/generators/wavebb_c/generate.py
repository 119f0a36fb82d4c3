"""Generate wave BB (c)'s real runs (sealed batch ``heldout57``): a retail team's hourly store-footfall forecaster (a
small Keras MLP over the store door-counter export) trained with TensorFlow's ``tf.distribute.MultiWorkerMirroredStrategy``
and Keras ``model.fit`` (tf_keras, ``TF_USE_LEGACY_KERAS=1``), 2 workers on CPU talking gRPC on localhost, each started
with its own ``TF_CONFIG`` by the team's ``launch.sh`` (``./launch.sh PORT0 PORT1 [train.py args]``; both workers'
output goes to the one console). ``make_footfall.py`` writes the synthetic export. Each run has one cause made to
happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/wavebb-c-job/run`` (emptied and refilled
with ``project/`` before each run, so no scenario name appears in a log; HOME is ``/tmp/wavebb-c-job/home``, emptied
too) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is
in the log (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebb-c-<name>/job.log`` and its row of
``corpus/manifest.d/wave-bb-runs-c.csv`` (split and batch ``heldout57``). The harness is copied from the wave BA (a)
harness (changes: scenario list, paths, names, worker matching by TF_CONFIG's task index).

    python3 corpus/generators/wavebb_c/generate.py --list
    python3 corpus/generators/wavebb_c/generate.py --scenario NAME
    python3 corpus/generators/wavebb_c/generate.py --all

Needs root (tmpfs mounts, cgroup v1) and the venv ``/tmp/corpus-venv-bb-c`` (tensorflow-cpu 2.21.0, tf_keras 2.21.0).
Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bb-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebb_c/generate.py"
SPLIT = "heldout57"
JOBS = Path("/tmp/wavebb-c-job")
SCRATCH = Path("/tmp/wavebb-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"bb": Path("/tmp/corpus-venv-bb-c/bin")}
PROJECT = HERE / "project"
DATA = "{py} make_footfall.py"
DONE = "; echo \"job exited with $?\""
ECO = "tensorflow"



@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "bb"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""  # after stale_ready: SIGKILL the stale job's processes whose command line matches this regex
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    trigger: tuple = ()  # ((regex | seconds, "hup" | "int" | "kill1" | "sig:NAME:pattern" | "cmd:<bash>"[, wait_s]), ...)
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log
    linger: bool = False  # after the command's own process is gone, wait for what it started (orphans) to end too
    logfile: str = ""  # keep this file of the job dir (the job's own redirection) as job.log, not the console
    hang_ok: bool = False  # the job hangs after its failure and never exits: ended by the harness after `timeout`


# the team's command line from the job dir: launch.sh starts both workers (niced: a shared box)
def tf(p0: int, args: str = "", wrap: str = "", pre: str = "") -> str:
    return (f"{pre}{wrap}nice -n 5 ./launch.sh {p0} {p0 + 1} --step-delay 0.05" + (" " + args if args else "") + DONE)


OK = r"finished \d+ epochs this run[\s\S]*job exited with 0"
W1E2 = r"\[worker1\] \S+ epoch 2 step 40/"
# an earlier run of the same job (not logged), stopped hard once epoch 2's checkpoint is written (a host reboot)
INTERRUPTED = (" && (setsid ./launch.sh {p0} {p1} --step-delay 0.05 --epochs 6 > /dev/null 2>&1 & pid=$!; "
               "while [ ! -e checkpoints/footfall-epoch02.h5 ]; do sleep 0.3; done; sleep 1; kill -KILL -- -$pid; "
               "sleep 2)")
SCENARIOS = [
    Scenario("tf-footfall-healthy", "no_failure", ECO, tf(30002), OK, prep=DATA),
    Scenario("tf-footfall-healthy-garbled-counter", "no_failure", ECO, tf(30006), r"ERROR row[\s\S]*" + OK,
             prep=DATA + " --garbled 3"),
    Scenario("tf-footfall-healthy-resume", "no_failure", ECO, tf(30008, "--epochs 4"), r"Epoch [34]/4[\s\S]*" + OK,
             prep=DATA + INTERRUPTED.replace("{p0}", "30010").replace("{p1}", "30011")),
    Scenario("tf-footfall-healthy-late-worker", "no_failure", ECO, tf(30012, pre="WORKER1_START_DELAY=20 "),
             r"Waiting for 1/2 tasks[\s\S]*" + OK, prep=DATA, timeout=200),
    Scenario("tf-footfall-healthy-rerun", "no_failure", ECO, tf(30040, "--epochs 2"), OK,
             prep=DATA + " && (" + tf(30042, "--epochs 2") + ") > /dev/null 2>&1"),
    Scenario("tf-footfall-renamed-column", "worker_exception", ECO, tf(30014), r"KeyError",
             prep=DATA + " --rename footfall_lag7:lag7_footfall"),
    Scenario("tf-footfall-cli-typo", "worker_exception", ECO, tf(30016, "--batch_size 128"),
             r"unrecognized arguments", prep=DATA),
    Scenario("tf-footfall-stuck-counter", "training_divergence", ECO, tf(30018), r"Invalid loss|nan|inf",
             prep=DATA + " --stuck-counter store-03"),
    Scenario("tf-footfall-ckpt-volume", "disk_full", ECO, tf(30020),
             r"No space|Errno 28|[Uu]nable to", prep=DATA, tmpfs=(("checkpoints", "32k", 0),)),
    Scenario("tf-footfall-backup-volume", "disk_full", ECO, tf(30046),
             r"No space|Errno 28|[Uu]nable to|RESOURCE_EXHAUSTED|[Ff]ailed", prep=DATA, tmpfs=(("backup", "16k", 0),),
             timeout=120, hang_ok=True),
    Scenario("tf-footfall-keras3-env", "library_version_mismatch", ECO, tf(30048), r"Error", prep=DATA,
             env={"TF_USE_LEGACY_KERAS": "0"}, timeout=120, hang_ok=True),
    Scenario("tf-footfall-cache-oom", "host_oom_killed", ECO, tf(30022, "--cache-copies 4000"),
             r"exited with code 137|Killed", prep=DATA, memory=1_200_000_000, timeout=300),
    Scenario("tf-footfall-worker-sigkill", "host_oom_killed", ECO, tf(30024, "--epochs 6"), W1E2, prep=DATA,
             trigger=((W1E2, "sig:KILL:TASK=1"),), timeout=200),
    Scenario("tf-footfall-chief-sigkill", "host_oom_killed", ECO, tf(30000, "--epochs 6"), W1E2, prep=DATA,
             trigger=((W1E2, "sig:KILL:TASK=0"),), timeout=120, hang_ok=True),
    Scenario("tf-footfall-region-loop", "native_crash", ECO, tf(30026), r"139|Segmentation|SIGSEGV|-11",
             prep=DATA + " --region-loop store-04:north"),
    Scenario("tf-footfall-node-drain", "job_preempted", ECO, tf(30028, "--epochs 8"), W1E2, prep=DATA,
             trigger=((W1E2, "term"),), timeout=120),
    Scenario("tf-footfall-ssh-closed", "terminal_hangup", ECO, tf(30044, "--epochs 8"), W1E2, prep=DATA,
             trigger=((W1E2, "hup"),), timeout=120),
    Scenario("tf-footfall-ci-budget", "no_failure", ECO, tf(30030, "--epochs 12", wrap="timeout 30 "),
             r"job exited with 124", prep=DATA, timeout=120, linger=True),
    Scenario("tf-footfall-dashboard-port", "port_in_use", ECO, tf(30032),
             r"[Aa]ddress already in use|EADDRINUSE|Could not start", prep=DATA,
             stale="{py} -m http.server 30033 --bind 127.0.0.1", stale_ready=r"Serving HTTP", timeout=60, hang_ok=True),
    Scenario("tf-footfall-new-store", "collective_mismatch", ECO, tf(30034), r"[Ss]hape|mismatch|[Ii]ncompatible",
             prep=DATA + " --new-store store-99", timeout=120, hang_ok=True),
    Scenario("tf-footfall-unmapped-store", "worker_exception", ECO, tf(30038), r"KeyError",
             prep=DATA + " --new-store store-98 --unmapped", timeout=120, hang_ok=True),
    Scenario("tf-footfall-worker-stopped", "collective_timeout", ECO, tf(30036, "--epochs 6 --collective-timeout 20"),
             W1E2, prep=DATA, trigger=((W1E2, "sig:STOP:TASK=1"),), timeout=70, hang_ok=True),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
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




def _default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP disposition even when this generator runs under nohup (which ignores it)
    # stdin: an open pipe nobody writes to, like a terminal nobody types into
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_signals)

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
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
    home = JOBS / "home"  # the developer's home, emptied for every scenario
    home.mkdir(parents=True, exist_ok=True)
    for p in home.iterdir():
        if True:
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    b = VENVS[s.venv]
    env = dict(os.environ, HOME=str(home), PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               NO_COLOR="1", COLUMNS="160", **s.env)
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
        cgdir = own_memcg() / "wavebb-c-job"
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
                text = "\n".join(o.decode(errors="replace") for o in outs)
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
                                    if "train.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "train.py" in cl and v.name().startswith("python") and \
                                            ("--rank 1" in cl or e.get("OMPI_COMM_WORLD_RANK") == "1"):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
                elif action.startswith("sig:"):  # e.g. a scheduler or a user signalling every training process
                    _, signame, pattern = action.split(":", 2)
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if (pattern.startswith("TASK=") and v.name().startswith("python")
                                            and f'"index": {pattern[5:]}}}' in v.environ().get("TF_CONFIG", "")) or \
                                            (not pattern.startswith("TASK=") and re.search(pattern, " ".join(v.cmdline()))):
                                        print(f"  SIG{signame} {v.pid}", flush=True)
                                        v.send_signal(getattr(signal, "SIG" + signame))
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
        SCRATCH.mkdir(exist_ok=True)
        (SCRATCH / f"last-{s.name}-{i}.log").write_bytes(o)
    if s.logfile:
        logs = {"job.log": (job / s.logfile).read_bytes() if (job / s.logfile).exists() else b""}
    elif len(outs) == 1 or s.keep >= 0:
        logs = {"job.log": bytes(outs[max(s.keep, 0)])}
    elif False:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebb-c-{s.name}"
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
    return f"logs/run-wavebb-c-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-wavebb-c-{s.name}/job.log"


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
