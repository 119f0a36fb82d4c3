"""Generate wave AW (b)'s real runs (sealed batch ``heldout52``): a pipeline-integrity team's corrosion-growth
classifier for in-line-inspection (ILI) anomaly records, built as a DVC pipeline (``dvc.yaml``: ``prepare`` ->
``featurize`` -> ``train`` -> ``evaluate``, ``params.yaml``, deps/outs, metrics). The ``train`` stage's cmd is
``torchrun --nproc_per_node=2 ... src/train.py`` (DDP over gloo). ``export_ili.py`` writes the synthetic vendor export.
Launched as ``dvc repro`` (or ``dvc exp run -S ...``) in a fresh git + DVC repository. Each run has one cause made to
happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveaw-b-job/run`` (emptied and refilled
with ``project/``, a ``params.yaml`` and a fresh ``git init`` + ``dvc init`` repository before each run, so no scenario
name appears in a log) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It checks that the
expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-waveaw-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-aw-runs-b.csv`` (split and batch
``heldout52``). The harness is copied from ../waveav_b/generate.py (changes: scenario list, paths, names, the DVC
repository set-up instead of the Airflow home).

    python3 corpus/generators/waveaw_b/generate.py --list
    python3 corpus/generators/waveaw_b/generate.py --scenario NAME
    python3 corpus/generators/waveaw_b/generate.py --all

Needs root (tmpfs mounts, cgroup v1, unshare) and the venv ``/tmp/corpus-venv-aw-b`` (torch 2.13.0 CPU, dvc).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-aw-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveaw_b/generate.py"
SPLIT = "heldout52"
JOBS = Path("/tmp/waveaw-b-job")
SCRATCH = Path("/tmp/waveaw-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"aw": Path("/tmp/corpus-venv-aw-b/bin")}
PROJECT = HERE / "project"
DONE = "; echo \"job exited with $?\""
ECO = "dvc"
TRAIN_MARK = "src/train.py"

# params.yaml as the team keeps it; a scenario overrides keys as "section.key": value
PARAMS = {
    "prepare": {"seed": 17, "val_fraction": 0.2},
    "featurize": {"coating_onehot": True},
    "train": {"nnodes": 1, "master_port": 31900, "seed": 1234, "epochs": 3, "hidden": 256, "num_classes": 5,
              "micro_batch": 32, "grad_accum": 2, "global_batch": 128, "lr": 0.003, "optimizer": "adamw",
              "log_every": 10, "resume": True, "loader_workers": 0, "step_delay": 0.0, "pg_timeout": 300,
              "augment_copies": 0, "sizing_noise": 0.05, "class_weights": False},
    "evaluate": {"min_accuracy": 0.5},
}


def params_yaml(over: dict) -> str:
    out = []
    for sec, kv in PARAMS.items():
        out.append(f"{sec}:")
        kv = dict(kv)
        for k, v in over.items():
            s, key = k.split(".", 1)
            if s == sec:
                if v is None:
                    kv.pop(key, None)
                elif key.startswith("-"):  # a key renamed: "-old=new"
                    old, new = key[1:].split("=")
                    kv = {new if kk == old else kk: vv for kk, vv in kv.items()}
                else:
                    kv[key] = v
        for k, v in kv.items():
            v = str(v).lower() if isinstance(v, bool) else v
            out.append(f"  {k}: {v}")
    return "\n".join(out) + "\n"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "aw"
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
    params: dict = field(default_factory=dict)  # params.yaml overrides, committed before the run
    hang_ok: bool = False  # the job hangs after its failure and never exits: ended by the harness after `timeout`



REPRO = "dvc repro" + DONE
DATA = "{py} export_ili.py > /dev/null"
OK = r"finished \d+ epochs[\s\S]*val accuracy[\s\S]*job exited with 0"
SLOW = {"train.step_delay": 0.1, "train.epochs": 8}
SCENARIOS = [
    Scenario("dvc-ili-healthy", "no_failure", ECO, REPRO, OK, prep=DATA, params={"train.master_port": 31901}),
    Scenario("dvc-ili-healthy-garbled-rows", "no_failure", ECO, REPRO, r"unreadable depth_pct[\s\S]*" + OK,
             prep="{py} export_ili.py --garbled 6 > /dev/null", params={"train.master_port": 31903}),
    # an unlogged 2-epoch repro first (committed), then an experiment with more epochs: prepare/featurize unchanged
    # and skipped, train resumes from the persistent models/ckpt
    Scenario("dvc-ili-healthy-exp-resume", "no_failure", ECO, "dvc exp run -S train.epochs=4" + DONE,
             r"resumed from[\s\S]*finished 4 epochs[\s\S]*job exited with 0",
             prep=DATA + " && dvc repro > /dev/null 2>&1", params={"train.master_port": 31905, "train.epochs": 2}),
    Scenario("dvc-ili-healthy-exp-lr", "no_failure", ECO, "dvc exp run -S train.lr=0.002 -S train.epochs=3" + DONE,
             OK, prep=DATA, params={"train.master_port": 31907}),
    # a notebook's http.server holds the master port; the first repro fails, the team's wrapper re-runs dvc repro
    # after a pause (the server is stopped meanwhile): prepare/featurize are skipped, train runs to the end
    Scenario("dvc-ili-healthy-port-rerun", "no_failure", ECO,
             "dvc repro || { sleep 15; dvc repro; }" + DONE,
             r"failed to reproduce[\s\S]*didn't change, skipping[\s\S]*" + OK, prep=DATA,
             params={"train.master_port": 31909},
             stale="echo $$ > .devserver.pid; exec {py} -m http.server 31909 --bind 127.0.0.1",
             stale_ready=r"Serving HTTP", trigger=((r"failed to reproduce", "cmd:kill $(cat .devserver.pid)"),)),
    Scenario("dvc-ili-new-growth-class", "worker_exception", ECO, REPRO, r"IndexError|out of bounds",
             prep="{py} export_ili.py --new-class 4 > /dev/null", params={"train.master_port": 31911}),
    Scenario("dvc-ili-params-typo", "worker_exception", ECO, REPRO, r"KeyError",
             prep=DATA, params={"train.master_port": 31913, "train.-optimizer=optimiser": 1}),
    Scenario("dvc-ili-augment-oom", "host_oom_killed", ECO, REPRO, r"SIGKILL|-9|Killed", prep=DATA,
             params={"train.master_port": 31915, "train.augment_copies": 16000}, memory=1_200_000_000, timeout=300),
    Scenario("dvc-ili-rerouted-line", "native_crash", ECO, REPRO, r"Segmentation|SIGSEGV|-11|139",
             prep="{py} export_ili.py --loop SEG020:SEG041 > /dev/null", params={"train.master_port": 31917}),
    # the shared DVC cache volume (a small tmpfs, mostly taken by other projects' objects)
    Scenario("dvc-ili-cache-volume", "disk_full", ECO, REPRO, r"No space|Errno 28|ENOSPC", params={"train.master_port": 31919},
             prep=DATA + " && dvc cache dir dvc-cache > /dev/null", tmpfs=(("dvc-cache", "3m", 1_600_000),)),
    Scenario("dvc-ili-container-shm", "shm_exhausted", ECO, REPRO, r"shared memory|No space left|Bus error|shm",
             prep=DATA, params={"train.master_port": 31921, "train.loader_workers": 2}, shm="32k"),
    Scenario("dvc-ili-vendor-sentinel", "training_divergence", ECO, REPRO, r"loss is nan|loss is inf",
             prep="{py} export_ili.py --vendor-sentinel SEG007 > /dev/null",
             params={"train.master_port": 31923, "train.log_every": 2}),
    Scenario("dvc-ili-stopped-rank", "silent_hang", ECO, "timeout 100 dvc repro" + DONE, r"job exited with 124",
             prep=DATA, params={"train.master_port": 31925, "train.pg_timeout": 1800, **SLOW},
             trigger=((r"\[rank1\] epoch 2 step 10", "sig:STOP:RANK=1"),), timeout=200, linger=True),
    Scenario("dvc-ili-rank-paused", "collective_timeout", ECO, REPRO, r"[Tt]imed out|[Tt]imeout", prep=DATA,
             params={"train.master_port": 31927, "train.pg_timeout": 30, **SLOW},
             trigger=((r"\[rank1\] epoch 2 step 10", "sig:STOP:RANK=1"),), timeout=200),
    Scenario("dvc-ili-drain", "job_preempted", ECO, REPRO, r"epoch 3 step", prep=DATA,
             params={"train.master_port": 31929, "train.step_delay": 0.05, "train.epochs": 30},
             trigger=((r"\[rank0\] epoch 3 step 10", "term"),), timeout=200, linger=True),
    Scenario("dvc-ili-ssh-closed", "terminal_hangup", ECO, REPRO, r"epoch 2 step", prep=DATA,
             params={"train.master_port": 31931, "train.step_delay": 0.05, "train.epochs": 30},
             trigger=((r"\[rank0\] epoch 2 step 10", "hup"),), timeout=200, linger=True),
    Scenario("dvc-ili-batch-config", "batch_size_mismatch", ECO, REPRO, r"global batch 128 !=", prep=DATA,
             params={"train.master_port": 31933, "train.micro_batch": 64}),
    Scenario("dvc-ili-notebook-port", "port_in_use", ECO, REPRO,
             r"EADDRINUSE|address already in use|Address already in use", prep=DATA,
             params={"train.master_port": 31935},
             stale="{py} -m http.server 31935 --bind 0.0.0.0", stale_ready=r"Serving HTTP"),
    Scenario("dvc-ili-cron-limit", "job_preempted", ECO, "timeout 45 dvc repro" + DONE, r"job exited with 124",
             prep=DATA, params={"train.master_port": 31937, "train.step_delay": 0.05, "train.epochs": 30},
             timeout=200, linger=True),
    Scenario("dvc-ili-rare-severe", "collective_mismatch", ECO, REPRO, r"[Mm]ismatch",
             prep="{py} export_ili.py --rare-severe 1 > /dev/null",
             params={"train.master_port": 31939, "train.class_weights": True},
             env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    Scenario("dvc-ili-second-host", "rendezvous_timeout", ECO, REPRO, r"[Tt]imeout|[Tt]imed out", prep=DATA,
             params={"train.master_port": 31941, "train.nnodes": 2}, timeout=240),
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
    (job / "params.yaml").write_text(params_yaml(s.params))
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               NO_COLOR="1", COLUMNS="160", DVC_NO_ANALYTICS="1", GIT_AUTHOR_NAME="integrity-ml",
               GIT_AUTHOR_EMAIL="integrity-ml@example.com", GIT_COMMITTER_NAME="integrity-ml",
               GIT_COMMITTER_EMAIL="integrity-ml@example.com", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", *s.unset):
        if k not in s.env:
            env.pop(k, None)
    # the team's repository: git + DVC (local cache), the export, one commit; then the scenario's own preparation
    init = ("git -c init.defaultBranch=main init -q && dvc init -q && dvc config core.autostage true && "
            "git add -A && git commit -qm 'corrosion-growth pipeline'")
    subprocess.run(["bash", "-c", init], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job) + " && git add -A && git commit -qm 'ILI export'"],
                       cwd=job, env=env, check=True, stdout=subprocess.DEVNULL)
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
        cgdir = own_memcg() / "waveaw-b-job"
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
                                    if TRAIN_MARK in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if TRAIN_MARK in cl and v.name().startswith("python") and \
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
                                    if (pattern.startswith("RANK=") and v.name().startswith("python")
                                            and v.environ().get("RANK") == pattern[5:]) or \
                                            (not pattern.startswith("RANK=") and re.search(pattern, " ".join(v.cmdline()))):
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
        dest = CORPUS / "logs" / f"run-waveaw-b-{s.name}"
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
    return f"logs/run-waveaw-b-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveaw-b-{s.name}/job.log"


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
