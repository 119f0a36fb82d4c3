"""Generate wave AN (c)'s real runs (sealed batch ``heldout43``): federated keystroke-dynamics authentication with
Flower (flwr 1.42.0). Each organisation (a Flower client) holds synthetic typing-timing exports of its own users; a
small verification MLP (numpy) scores whether two repetitions of a passphrase were typed by the same person; the
server aggregates with FedAvg/FedProx/FedAdam, evaluates the equal error rate on its own validation users and saves a
checkpoint per round. Two launch modes: ``run_federation.sh`` (the older ``start_server``/``start_client`` gRPC API,
server and clients as background processes of one shell script, or a client per "host" console) and
``run_deployment.sh`` (the deployment engine: ``flower-superlink``, one ``flower-supernode`` per organisation and
``flwr run`` of the ``keyfl`` Flower App), each run with one cause made to happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/wavean-c-job/run`` (emptied and refilled
with this folder's scripts before each run) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It
checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavean-c-<name>/job.log`` and its row of ``corpus/manifest.d/wave-an-runs-c.csv`` (split and batch
``heldout43``). The harness is copied from ../waveam_a/generate.py.

    python3 corpus/generators/wavean_c/generate.py --list
    python3 corpus/generators/wavean_c/generate.py --scenario NAME
    python3 corpus/generators/wavean_c/generate.py --all

Needs root (tmpfs mounts, cgroup v1), gcc, the venv ``/tmp/corpus-venv-an-c`` (flwr 1.42.0, numpy, psutil) and, for one
scenario, ``/tmp/corpus-venv-an-c-org`` (flwr 1.20.0, numpy). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-an-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavean_c/generate.py"
SPLIT = "heldout43"
JOBS = Path("/tmp/wavean-c-job")
SCRATCH = Path("/tmp/wavean-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"an": Path("/tmp/corpus-venv-an-c/bin"), "org": Path("/tmp/corpus-venv-an-c-org/bin")}
SCRIPTS = ("keystroke_fl.py", "make_typing.py", "keymap.c", "run_federation.sh", "run_deployment.sh", "pyproject.toml",
           "keyfl", "flwr_home")
DATA = "{py} make_typing.py --out data --orgs 4 > /dev/null"
DONE = "; echo \"job exited with $?\""
FED = "FL_PORT={port} ./run_federation.sh "
DEP = "FL_LINK_PORT={port} ./run_deployment.sh "


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "an"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): another "host"'s command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False
    trigger: tuple = ()  # ((regex | seconds, action[, wait_s]), ...) in order
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()
    keep: int = -1  # with nodes: keep only this node's console, as job.log
    linger: bool = False
    logfile: str = ""


def at(tpl: str, port: int, **kw) -> str:
    tpl = tpl.replace("{port}", str(port))
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", str(v))
    return tpl


OK = r"done: \d+ rounds, final validation EER 0\.0[\s\S]*job exited with 0"
SITE = "/tmp/wavean-c-job/site-packages"  # the team's shared site directory (protobuf 4.25.9)
CLIENT = "{py} keystroke_fl.py client --server 127.0.0.1:{port} --data data/{org}.csv "
SCENARIOS = [
    # --- start_server / start_client (run_federation.sh: server and clients in the background of one script) ------
    Scenario("fed-typing-healthy", "no_failure", "flower", at(FED, 30301) + "'--rounds 8' ''" + DONE, OK, prep=DATA),
    Scenario("fed-typing-healthy-fedprox-dropout", "no_failure", "flower",
             at(FED, 30303) + "'--rounds 8 --strategy fedprox --min-clients 3 --accept-failures' '' "
             "org-1 org-2 org-3 org-4" + DONE, r"^(?=[\s\S]*Killed)[\s\S]*" + OK, prep=DATA,
             trigger=((r"\[org-4\] round 3 local epoch 1", "sig:KILL:org-4\\.csv"),)),
    Scenario("fed-typing-all-impostors", "host_oom_killed", "flower",
             at(FED, 30305) + "'--rounds 8' '--all-impostor-pairs'" + DONE, r"Killed|signal 9|-9", memory=1_300_000_000,
             prep=DATA + " && {py} make_typing.py --out data --only org-3 --users-override 50 > /dev/null"),
    Scenario("fed-typing-key-travel", "native_crash", "flower",
             "gcc -O2 -shared -fPIC -o libkeymap.so keymap.c -lm && " + at(FED, 30307) +
             "'--rounds 8 --layout-features' '--layout-features'" + DONE, r"Segmentation fault",
             prep=DATA + " && {py} make_typing.py --out data --only org-2 --return-name Enter > /dev/null"),
    Scenario("fed-typing-consortium", "rendezvous_timeout", "flower",
             at(FED, 30309) + "'--rounds 8 --min-clients 4 --join-timeout 60'" + " ''" + DONE,
             r"organisations joined within", prep=DATA),
    Scenario("fed-typing-round-deadline", "collective_timeout", "flower",
             at(FED, 30313) + "'--rounds 8 --round-timeout 4' '--hard-negatives'" + DONE, r"client failure",
             prep=DATA + " && {py} make_typing.py --out data --only org-3 --users-override 150 > /dev/null"),
    Scenario("fed-typing-new-keylogger", "no_failure", "flower", at(FED, 30315) + "'--rounds 6' ''" + DONE,
             r"overflow encountered[\s\S]*" + OK, prep=DATA + " && {py} make_typing.py --out data --only org-2 --unit ms > /dev/null"),
    Scenario("fed-typing-sensor-dropouts", "training_divergence", "flower", at(FED, 30311) + "'--rounds 6' ''" + DONE,
             r"EER nan", prep=DATA + " && {py} make_typing.py --out data --only org-1 --blank-every 53 --blank-as nan"
             " > /dev/null"),
    Scenario("fed-typing-audit-updates", "disk_full", "flower",
             at(FED, 30317) + "'--rounds 10 --hidden 128 --keep-client-updates --save-dir /tmp/wavean-c-job/run/ckpt' "
             "''" + DONE, r"No space left on device|Errno 28", prep=DATA, tmpfs=(("ckpt", "3m", 1_500_000),)),
    Scenario("fed-typing-nightly-sync", "silent_hang", "flower",
             at(FED, 30319) + "'--rounds 30' '--wait-for-sync --refresh-data'" + DONE, r"round 2: aggregated",
             prep=DATA, trigger=((r"round 2: aggregated", "cmd:touch data/org-2.sync.lock"), (95, "int")),
             timeout=200),
    Scenario("fed-typing-team-site", "library_version_mismatch", "flower", at(FED, 30321) + "'--rounds 8' ''" + DONE,
             r"protobuf|google", prep=DATA, env={"PYTHONPATH": SITE}),
    # --- one console per "host": the server's console kept -----------------------------------------------------------
    Scenario("hosts-typing-healthy-mixed-versions", "no_failure", "flower",
             at(FED, 30323) + "'--rounds 8' '' org-1 org-2" + DONE, OK, prep=DATA,
             nodes=((8, at(CLIENT, 30323, org="org-3").replace("{py}", "/tmp/corpus-venv-an-c-org/bin/python") + DONE),)),
    Scenario("hosts-typing-host-lost", "peer_process_died", "flower",
             "{py} keystroke_fl.py server --address 127.0.0.1:30325 --rounds 30" + DONE, r"client failure",
             prep=DATA, keep=0,
             nodes=((3, " & ".join(at(CLIENT, 30325, org=o) for o in ("org-1", "org-2", "org-3")) + "; wait" + DONE),),
             trigger=((r"round 3: aggregated", "sig:KILL:org-2\\.csv", 1),)),
    # --- deployment engine: flower-superlink, flower-supernode per organisation, flwr run -------------------------------
    Scenario("deploy-typing-healthy-fedadam", "no_failure", "flower",
             at(DEP, 30331) + "--run-config 'strategy=\"fedadam\" num-server-rounds=5 server-lr=0.005'" + DONE,
             r"All logs for run ID[\s\S]*flwr run exited with 0", prep=DATA, timeout=400),
    Scenario("deploy-typing-export-glitch", "worker_exception", "flower",
             at(DEP, 30331) + "--run-config num-server-rounds=5" + DONE, r"could not convert|ValueError",
             prep=DATA + " && {py} make_typing.py --out data --only org-2 --blank-every 97 > /dev/null", timeout=300),
    Scenario("deploy-typing-second-link", "no_failure", "flower",
             at(DEP, 30331) + "--run-config num-server-rounds=5" + DONE, r"[Aa]ddress already in use|Errno 98",
             prep=DATA, stale="FLWR_HOME=$PWD/flwr_home flower-superlink --insecure --port 30331",
             stale_ready=r"Uvicorn running", timeout=200),
    Scenario("deploy-typing-node-drain", "job_preempted", "flower",
             at(DEP, 30331) + "--run-config num-server-rounds=30" + DONE, r"round 3|ROUND 3", prep=DATA,
             trigger=((r"\[ROUND 3\]", "sig:TERM:flower-|flwr|keystroke", 2),), linger=True, timeout=400),
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




def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def slurm_text(job: Path, expect: str = "") -> str:
    outs = [Path(o).read_text(errors="replace") for o in sorted(glob.glob(str(job / "slurm-*.out")))]
    for o in outs:
        if expect and re.search(expect, o):
            return o
    return outs[0] if outs else ""


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
        (shutil.copytree if (HERE / src).is_dir() else shutil.copy)(HERE / src, job / Path(src).name)
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
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", FLWR_TELEMETRY_ENABLED="0", OMPI_ALLOW_RUN_AS_ROOT="1",
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
        cgdir = own_memcg() / f"wavean-c-{s.name}"
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
                                    if "keystroke_fl.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    if "keystroke_fl.py" in " ".join(v.cmdline()) and v.name().startswith("python") and \
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
                elif action.startswith("sig:"):  # e.g. a scheduler or a user signalling every training process
                    _, signame, pattern = action.split(":", 2)
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if re.search(pattern, " ".join(v.cmdline())):
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
        SCRATCH.mkdir(exist_ok=True)
        (SCRATCH / f"last-{s.name}-{i}.log").write_bytes(o)
    if s.slurm_out:
        logs = {"job.log": slurm_text(job, s.expect).encode()}
    elif s.logfile:
        logs = {"job.log": (job / s.logfile).read_bytes() if (job / s.logfile).exists() else b""}
    elif len(outs) == 1 or s.keep >= 0:
        logs = {"job.log": bytes(outs[max(s.keep, 0)])}
    elif False:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-wavean-c-{s.name}"
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
    return f"logs/run-wavean-c-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-wavean-c-{s.name}/job.log"


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
