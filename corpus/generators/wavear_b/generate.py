"""Generate wave AR (b)'s real runs (sealed batch ``heldout47``): speech keyword spotting (synthetic log-mel features
of a dozen keywords in background noise, a small CNN) trained data-parallel (gloo, CPU) inside submitit jobs.
``make_keywords.py`` writes the feature shards; ``kws_train.py`` is the submitted function (every task of a job sets
up torch.distributed from ``submitit.helpers.TorchDistributedEnvironment``; ``KwsTrainer`` is its
``submitit.helpers.Checkpointable`` form); ``submit_kws.py`` is the driver (``LocalExecutor``/``AutoExecutor``,
``submit`` or ``map_array``, waits on ``job.results()``); ``kws_app.py`` + ``conf/`` is the Hydra 1.3 app (model/optim
groups) swept with ``-m hydra/launcher=submitit_local`` (hydra-submitit-launcher). Each run has one cause made to
happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/wavear-b-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would: the driver's console, ``job exited with N``, then the job's own submitit log files
as the user pastes them (``tail -n +1 <folder>/*/*_log.*``). It checks that the expected signature is in the log (else
MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavear-b-<name>/job.log`` and its row of
``corpus/manifest.d/wave-ar-runs-b.csv`` (split and batch ``heldout47``). The harness is copied from
../waveaq_c/generate.py (changes: the scenario list, paths and names, ``sig:NAME:VAR=value`` signals the python
processes whose environment has VAR=value, ``stale_wait``).

    python3 corpus/generators/wavear_b/generate.py --list
    python3 corpus/generators/wavear_b/generate.py --scenario NAME
    python3 corpus/generators/wavear_b/generate.py --all

Needs root (tmpfs mounts, cgroup v1, unshare) and the venv ``/tmp/corpus-venv-ar-b`` (torch 2.13.0 CPU, submitit,
hydra-core, hydra-submitit-launcher, numpy). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ar-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavear_b/generate.py"
SPLIT = "heldout47"
JOBS = Path("/tmp/wavear-b-job")
SCRATCH = Path("/tmp/wavear-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"ar": Path("/tmp/corpus-venv-ar-b/bin")}
SCRIPTS = ("make_keywords.py", "kws_train.py", "submit_kws.py", "kws_app.py", "kwsdelta.c", "conf")
DATA = "{py} make_clicks.py --out data > /dev/null"
DONE = "; echo \"job exited with $?\""
ECO = "submitit"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "ar"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_wait: float = 0  # after stale_ready: seconds more before this job starts
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
    after: str = ""  # the user's next command in the same terminal once the job is over (pasting the job's log files)
    watch: str = ""  # glob (in the job dir) of the job's log files that triggers also look at
    hang_ok: bool = False  # the job hangs after its failure and never exits: ended by the harness after `timeout`


def at(tpl: str, port: int, **kw) -> str:
    tpl = tpl.replace("{port}", str(port))
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", str(v))
    return tpl


DATA = "{py} make_keywords.py > /dev/null"
DONE = "; echo \"job exited with $?\""
ECO = "submitit"
S = "python submit_kws.py --cluster local --master-port {port} "
PASTE = "tail -n +1 kws_jobs/*/*_log.*"
HPASTE = "tail -n +1 multirun/*/*/.submitit/*/*_log.*"
H = "python kws_app.py -m hydra/launcher=submitit_local "
LOGS = "kws_jobs/*/*_log.out"
OK = r"job exited with 0[\s\S]*Job completed successfully"
ADAMW = ("printf 'name: adamw\\nlr: 0.002\\nweight_decay: ${model.weight_decay}\\n' > conf/optim/adamw.yaml")
SCENARIOS = [
    # --- submit_kws.py: LocalExecutor, one job of 2 tasks (DDP over gloo) ----------------------------------------
    Scenario("local-kws-healthy", "no_failure", ECO, at(S, 30781) + "--epochs 4" + DONE, OK, prep=DATA, after=PASTE),
    Scenario("local-kws-healthy-requeue", "no_failure", ECO,
             at(S, 30782) + "--epochs 6 --requeue --timeout-min 1.5 --signal-delay-s 40" + DONE,
             r"job exited with 0[\s\S]*Requeued job", prep=DATA, after=PASTE, timeout=420),
    Scenario("local-kws-healthy-term-notice", "no_failure", ECO, at(S, 30811) + "--epochs 4" + DONE,
             r"job exited with 0[\s\S]*Bypassing signal SIGTERM[\s\S]*Job completed successfully", prep=DATA,
             watch=LOGS, trigger=((r"\[rank 0\] epoch 2 step 10", "sig:TERM:submitit\\.core\\._submit"),),
             after=PASTE),
    Scenario("local-kws-new-keywords", "worker_exception", ECO, at(S, 30783) + "--epochs 4" + DONE,
             r"IndexError|out of bounds", prep=DATA + " && {py} make_keywords.py --only 1 --new-keywords marvin,sheila"
             " > /dev/null", after=PASTE),
    Scenario("local-kws-earlier-checkpoints", "silent_hang", ECO, at(S, 30784) + "--epochs 4" + DONE,
             r"overwrite\? \[y/N\]", prep=DATA + " && {py} submit_kws.py --cluster local --master-port 30809 --epochs 1"
             " --folder earlier_jobs/%j > /dev/null 2>&1", trigger=((95, "int"),), after=PASTE, timeout=200),
    Scenario("local-kws-augment-copies", "host_oom_killed", ECO, at(S, 30785) + "--epochs 4 --augment-copies 8" + DONE,
             r"has not produced any output", prep=DATA, memory=1_400_000_000, after=PASTE),
    Scenario("local-kws-long-recordings", "native_crash", ECO, at(S, 30786) + "--epochs 4 --deltas native" + DONE,
             r"-11|SIGSEGV|Segmentation|signal", prep=DATA + " && {py} make_keywords.py --only 1 --frames 160 > /dev/null"
             " && gcc -O2 -shared -fPIC -o libkwsdelta.so kwsdelta.c", after=PASTE),
    Scenario("local-kws-time-limit", "job_preempted", ECO,
             at(S, 30787) + "--epochs 30 --timeout-min 1 --signal-delay-s 15" + DONE,
             r"timed-out and not checkpointable", prep=DATA, after=PASTE, timeout=240),
    Scenario("local-kws-claimed-checkpoints", "rendezvous_timeout", ECO, at(S, 30788) + "--epochs 4 --dist-timeout 60"
             + DONE, r"timed out|Timed out|TimeoutError", prep=DATA,
             stale="{py} submit_kws.py --cluster local --master-port 30808 --epochs 40 --folder earlier_jobs/%j",
             stale_ready=r"submitted job", stale_wait=12, trigger=((140, "int"),), after=PASTE, timeout=260),
    Scenario("local-kws-requeue-metrics", "worker_exception", ECO,
             at(S, 30807) + "--epochs 8 --requeue --metrics-csv metrics.csv --timeout-min 1 --signal-delay-s 20" + DONE,
             r"[Cc]annot pickle", prep=DATA, after=PASTE, timeout=300),
    Scenario("local-kws-team-env", "library_version_mismatch", ECO,
             at(S, 30810) + "--epochs 4 --python /tmp/corpus-venv-ar-b-team/bin/python" + DONE,
             r"pkg_resources", prep=DATA, after=PASTE, timeout=200),
    Scenario("local-kws-http-port", "port_in_use", ECO, at(S, 30789) + "--epochs 4" + DONE,
             r"EADDRINUSE|Address already in use|address already in use", prep=DATA,
             stale="{py} -m http.server 30789 --directory data", stale_ready=r"Serving HTTP", after=PASTE,
             timeout=240, hang_ok=True),
    Scenario("local-kws-full-val", "collective_timeout", ECO,
             at(S, 30790) + "--epochs 4 --val data-full/val.npz --dist-timeout 15" + DONE,
             r"Timed out|timed out|Timeout", prep=DATA + " && {py} make_keywords.py --out data-full --shards 0 --val 24000"
             " > /dev/null", after=PASTE, timeout=300),
    Scenario("local-kws-ckpt-volume", "disk_full", ECO, at(S, 30791) + "--epochs 4" + DONE,
             r"No space|Errno 28|unexpected pos|iostream", prep=DATA, tmpfs=(("checkpoints", "1m", 0),), after=PASTE),
    Scenario("local-kws-task-killed", "peer_process_died", ECO, at(S, 30792) + "--epochs 6" + DONE,
             r"Connection closed by peer[\s\S]*\[rank 1\] epoch 2 step", prep=DATA, watch=LOGS,
             trigger=((r"\[rank 1\] epoch 2 step 20", "sig:KILL:SUBMITIT_LOCAL_GLOBALID=1"),), after=PASTE),
    Scenario("local-kws-loader-workers", "shm_exhausted", ECO, at(S, 30793) + "--epochs 4 --workers 2 --batch-size 128"
             + DONE, r"shared memory|shm|Bus error|No space left", prep=DATA, shm="2m", after=PASTE),
    Scenario("local-kws-ssh-closed", "terminal_hangup", ECO, at(S, 30806) + "--epochs 20" + DONE,
             r"\[rank 0\] epoch 2 step", prep=DATA, watch=LOGS, trigger=((r"\[rank 0\] epoch 2 step 10", "hup", 1),),
             after=PASTE),
    # --- submit_kws.py --sweep-lr: a job array (map_array) of single-task jobs -------------------------------------
    Scenario("array-kws-gated-recorder", "training_divergence", ECO,
             at(S, 30794) + "--tasks 1 --sweep-lr 0.02,0.05 --epochs 3" + DONE,
             r"FloatingPointError|loss is nan", prep=DATA + " && {py} make_keywords.py --only 1 --noise-gate 0.05 > /dev/null",
             after=PASTE, timeout=400),
    Scenario("array-kws-healthy-sweep", "no_failure", ECO,
             at(S, 30797) + "--tasks 1 --sweep-lr 0.01,0.03,0.1 --epochs 3" + DONE, OK, prep=DATA, after=PASTE,
             timeout=400),
    # --- Hydra multirun with hydra-submitit-launcher (submitit_local), 2 tasks per sweep job ----------------------
    Scenario("hydra-kws-healthy-sweep", "no_failure", ECO, H + "optim=sgd,adam dist.base_port=30800" + DONE,
             r"job exited with 0[\s\S]*Job completed successfully", prep=DATA, after=HPASTE, timeout=400),
    Scenario("hydra-kws-three-tasks", "batch_size_mismatch", ECO,
             H + "optim=sgd,adam hydra.launcher.tasks_per_node=3 dist.base_port=30802" + DONE,
             r"global_batch_size 128 != batch_size", prep=DATA, after=HPASTE),
    Scenario("hydra-kws-adamw", "worker_exception", ECO, H + "optim=adam,adamw dist.base_port=30804" + DONE,
             r"InterpolationKeyError|Interpolation key", prep=DATA + " && " + ADAMW, after=HPASTE, timeout=400),
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
    for src in SCRIPTS:
        if (HERE / src).is_dir():
            shutil.copytree(HERE / src, job / src)
        else:
            shutil.copy(HERE / src, job / Path(src).name)
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
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
        time.sleep(s.stale_wait)
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
        cgdir = own_memcg() / f"wavear-b-{s.name}"
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
                if s.watch:
                    text += "\n".join(Path(f).read_text(errors="replace") for f in glob.glob(str(job / s.watch)))
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
                                    if "submitit" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "submitit" in cl and v.name().startswith("python") and \
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
                                    var, _, val = pattern.partition("=")
                                    if (val and v.name().startswith("python") and v.environ().get(var) == val) or \
                                            (not val and re.search(pattern, " ".join(v.cmdline()))):
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
    if s.after:
        outs[0].extend(subprocess.run(["bash", "-c", fill(s.after, s, job)], cwd=job, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT).stdout)
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
        dest = CORPUS / "logs" / f"run-wavear-b-{s.name}"
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
    return f"logs/run-wavear-b-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-wavear-b-{s.name}/job.log"


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
