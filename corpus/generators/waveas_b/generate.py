"""Generate wave AS (b)'s real runs (sealed batch ``heldout48``): warehouse robot dispatching trained with Ray RLlib
(new API stack: env runners as Ray actors, a learner group of 2 learners doing torch DDP over gloo on CPU) on a local
Ray cluster. ``make_layouts.py`` writes the warehouse zone layouts; ``dispatch.py`` trains (``algo.train()`` loop or
one ``tune.Tuner`` trial; per-iteration ``episode_return_mean`` and learner loss, checkpoints in the job dir);
``warehouse_env.py`` is the gymnasium environment (registered with ``register_env``); ``planner.c`` (built to
libplanner.so) an optional move planner. Launch modes: ``python dispatch.py`` (``ray.init()`` starts a local
cluster), ``ray start --head ...`` then ``dispatch.py`` with RAY_ADDRESS (a cluster of one node, or two nodes with a
second ``ray start --address``), ``dispatch.py --tune``. Each run has one cause made to happen for real (or none).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveas-b-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveas-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-as-runs-b.csv``
(split and batch ``heldout48``). The harness is copied from ../waveas_b/generate.py (changes: the scenario list, paths
and names, Ray's temp dir under the job dir (RAY_TMPDIR), and every process whose command line names the job dir
killed after each run: this generator's own Ray cluster, never another one).

    python3 corpus/generators/waveas_b/generate.py --list
    python3 corpus/generators/waveas_b/generate.py --scenario NAME
    python3 corpus/generators/waveas_b/generate.py --all

Needs root (tmpfs mounts, cgroup v1), gcc, the venv ``/tmp/corpus-venv-as-b`` (torch 2.13.0 CPU, ray[rllib] 2.60.0,
gymnasium, numpy) and, for one scenario, ``/tmp/waveas-b-scratch/team-venv`` (ray[rllib] 2.58.0). Run it with any
Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-as-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveas_b/generate.py"
SPLIT = "heldout48"
JOBS = Path("/tmp/waveas-b-job")
SCRATCH = Path("/tmp/waveas-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"as": Path("/tmp/corpus-venv-as-b/bin"), "team": Path("/tmp/waveas-b-scratch/team-venv/bin")}
SCRIPTS = ("dispatch.py", "warehouse_env.py", "planner.py", "planner.c", "make_layouts.py")
DATA = "{py} make_sky.py --out data > /dev/null"
DONE = "; echo \"job exited with $?\""
ECO = "rllib"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "as"
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


def at(tpl: str, port: int, **kw) -> str:
    tpl = tpl.replace("{port}", str(port))
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", str(v))
    return tpl


HEAD = ("ray start --head --port={port} --num-cpus={cpus} --include-dashboard=false --node-manager-port=30902 "
        "--object-manager-port=30903 --dashboard-agent-listen-port=30905 "
        "--dashboard-agent-grpc-port=30906 --runtime-env-agent-port=30907 --metrics-export-port=30908 "
        "--min-worker-port=31000 --max-worker-port=31049")
NODE2 = ("ray start --address=127.0.0.1:30901 --num-cpus=2 --resources='{\"sim\": 2}' --node-manager-port=30912 "
         "--object-manager-port=30913 --dashboard-agent-listen-port=30915 --dashboard-agent-grpc-port=30916 "
         "--runtime-env-agent-port=30917 --metrics-export-port=30918 --min-worker-port=31050 --max-worker-port=31099 "
         "--block")
CLU = at(HEAD, 30901, cpus=4) + " && RAY_ADDRESS=127.0.0.1:30901 python dispatch.py "
TWO = (at(HEAD, 30901, cpus=2) + " && sleep 25 && ray status && RAY_ADDRESS=127.0.0.1:30901 python dispatch.py "
       "--runner-resource sim ")
LOC = "python dispatch.py "
LAY = "{py} make_layouts.py --out layouts > /dev/null"
ZONES = "--layout 'layouts/zone-{worker}.json' "
PLAN = "gcc -O2 -shared -fPIC -o libplanner.so planner.c"
# ~/.ray/auth_token (left on this machine) makes `ray start --head` enable token auth, which a driver that connects
# to it does not pick up; the cluster's users switch token auth off
NOAUTH = {"RAY_AUTH_MODE": "disabled"}
OK = r"training finished[\s\S]*job exited with 0"
SCENARIOS = [
    # --- python dispatch.py: ray.init() starts a local cluster --------------------------------------------------------
    Scenario("local-dispatch-healthy-eval", "no_failure", ECO, LOC + ZONES + "--iterations 6 --eval-every 2" + DONE, OK,
             prep=LAY),
    Scenario("local-dispatch-zone-orders", "worker_exception", ECO, LOC + ZONES + "--iterations 6 --runner-failures fail" + DONE,
             r"IndexError", prep=LAY + " && {py} make_layouts.py --out layouts --only 2 --order-shelves 9 > /dev/null"),
    Scenario("local-dispatch-new-fleet", "worker_exception", ECO, LOC + ZONES + "--robots 3 --iterations 6 --runner-failures fail" + DONE,
             r"broadcast|shape|mat1", prep=LAY + " && {py} make_layouts.py --out layouts --only 2 --robots 4 > /dev/null"),
    Scenario("local-dispatch-minibatch", "batch_size_mismatch", ECO,
             LOC + ZONES + "--train-batch-per-learner 200 --minibatch 256 --iterations 6" + DONE,
             r"must be <=", prep=LAY),
    Scenario("local-dispatch-episode-video", "host_oom_killed", ECO, LOC + ZONES + "--record-frames --iterations 6"
             + DONE, r"SIGKILL|OOM|memory|killed", prep=LAY, memory=3_000_000_000, timeout=300),
    Scenario("local-dispatch-big-grid-planner", "native_crash", ECO,
             LOC + "--planner libplanner.so --size 24 --iterations 6" + DONE, r"SIGSEGV|Segmentation", prep=PLAN),
    Scenario("local-dispatch-lr", "training_divergence", ECO, LOC + ZONES + "--lr 1000 --iterations 8" + DONE,
             r"learner_loss=(nan|inf)", prep=LAY),
    # --- ray start --head, then the driver on the cluster ---------------------------------------------------------------
    Scenario("cluster-dispatch-healthy-runner-restart", "no_failure", ECO,
             CLU + ZONES + "--iterations 8" + DONE, OK, env=NOAUTH, prep=LAY,
             trigger=((r"iter 3 ", "sig:KILL:ray::SingleAgentEnvRunner"),)),
    Scenario("cluster-dispatch-checkpoints", "disk_full", ECO, CLU + ZONES + "--iterations 8 --checkpoint-every 1" + DONE,
             r"No space|Errno 28", env=NOAUTH, prep=LAY, tmpfs=(("checkpoints", "5m", 0),),
             trigger=((r"No space left", "int", 60),), timeout=300, hang_ok=True),
    Scenario("cluster-dispatch-runner-cpus", "ray_scheduling_stall", ECO,
             CLU + ZONES + "--cpus-per-runner 6 --iterations 6" + DONE, r"cannot be scheduled|[Ii]nfeasible|fulfill",
             env=NOAUTH, prep=LAY, trigger=((120, "int"),), timeout=200),
    Scenario("cluster-dispatch-time-limit", "job_preempted", ECO, CLU + ZONES + "--iterations 40" + DONE, r"iter 3 ",
             env=NOAUTH, prep=LAY, trigger=((r"iter 3 ", "sig:TERM:python dispatch.py"),), timeout=240),
    Scenario("cluster-dispatch-ssh-closed", "terminal_hangup", ECO, CLU + ZONES + "--iterations 40" + DONE, r"iter 3 ",
             env=NOAUTH, prep=LAY, trigger=((r"iter 3 ", "hup"),), timeout=240, linger=True),
    Scenario("cluster-dispatch-head-port", "port_in_use", ECO, CLU + ZONES + "--iterations 6" + DONE,
             r"already in use|EADDRINUSE|Address already", env=NOAUTH, prep=LAY, stale="{py} -m http.server 30901 --bind 0.0.0.0",
             stale_ready=r"Serving HTTP", timeout=150),
    Scenario("cluster-dispatch-team-env", "library_version_mismatch", ECO,
             CLU.replace("python dispatch.py", "/tmp/waveas-b-scratch/team-venv/bin/python dispatch.py") + ZONES
             + "--iterations 6" + DONE, r"[Vv]ersion mismatch", env=NOAUTH, prep=LAY, timeout=150),
    Scenario("cluster-dispatch-tune-healthy", "no_failure", ECO,
             at(HEAD, 30901, cpus=6) + " && RAY_ADDRESS=127.0.0.1:30901 python dispatch.py " + ZONES
             + "--tune --iterations 6" + DONE, OK,
             env=NOAUTH, prep=LAY),
    # --- two nodes: the head and a simulation node (ray start --address) ------------------------------------------------
    Scenario("twonode-dispatch-healthy-resume", "no_failure", ECO,
             TWO + ZONES + "--restore checkpoints/iter-004 --iterations 4" + DONE, OK,
             env=NOAUTH, prep=LAY + " && {py} dispatch.py " + ZONES + "--iterations 4 > /dev/null 2>&1", nodes=((8, NODE2),), keep=0,
             timeout=300),
    Scenario("twonode-dispatch-sim-node-lost", "peer_process_died", ECO, TWO + ZONES + "--iterations 40" + DONE,
             r"has been marked dead", env=NOAUTH, prep=LAY, nodes=((8, NODE2),), keep=0, trigger=((r"iter 3 ", "kill1"),), timeout=300),
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
    kill_own_ray()
    shutil.rmtree(JOBS / "ray", ignore_errors=True)
    if job.exists():
        for d, *_ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / src)
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", RAY_TMPDIR=str(JOBS / "ray"), PYTHONUNBUFFERED="1", OMPI_ALLOW_RUN_AS_ROOT="1",
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
        cgdir = own_memcg() / f"waveas-b-{s.name}"
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
                                    if "dispatch.py" in " ".join(v.cmdline()) and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    cl = " ".join(v.cmdline())
                                    if "dispatch.py" in cl and v.name().startswith("python") and \
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
                elif action.startswith("sig:"):  # e.g. a scheduler or a user signalling some of the job's processes
                    _, signame, pattern = action.split(":", 2)
                    for v in own_procs():
                        with contextlib.suppress(psutil.Error):
                            if re.search(pattern, " ".join(v.cmdline())) and v.pid not in tracker.roots:
                                print(f"  SIG{signame} {v.pid} {' '.join(v.cmdline())[:80]}", flush=True)
                                v.send_signal(getattr(signal, "SIG" + signame))
                                if pattern.startswith("ray::"):
                                    break  # one actor only
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env)
        if not pending and s.keep >= 0 and procs[s.keep][0].poll() is not None:
            break  # the kept console's job is over; the other node (ray start --block) is stopped with the rest
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
    kill_own_ray()
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
        dest = CORPUS / "logs" / f"run-waveas-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        for fn, data in logs.items():
            (dest / fn).write_bytes(data)
    lines = ", ".join(f"{fn} {len(d.decode(errors='replace').splitlines())} lines" for fn, d in logs.items())
    rcs = ",".join(str(p.returncode) for p, _ in procs)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({lines}, rc {rcs}, {time.time() - start:.0f} s"
          f"{', timed out' if timed_out else ''})", flush=True)
    return ok


def own_procs() -> list:
    """This generator's processes (Ray's raylet, gcs_server, workers...): they inherit RAY_TMPDIR set to the job dir's
    ray folder from the job's environment, or name the job dir on their command line."""
    me, found = os.getpid(), []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.pid != me and (proc.environ().get("RAY_TMPDIR") == str(JOBS / "ray")
                                   or str(JOBS) in " ".join(proc.cmdline())):
                found.append(proc)
    return found


def kill_own_ray() -> None:
    for proc in own_procs():
        with contextlib.suppress(psutil.Error):
            proc.kill()


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def row_key(s: Scenario) -> str:
    return f"logs/run-waveas-b-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveas-b-{s.name}/job.log"


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
