"""Generate wave BF (c)'s real runs (sealed batch ``heldout61``): a made-up team's RLHF loop on Ray that teaches a
tiny math-tutoring policy to answer in fewer tokens (``project/tutorrlhf``: an OpenRLHF/verl-style PPO driver that
makes a placement group, starts 2 ``PolicyTrainer`` actors forming a torch.distributed gloo group on CPU, a
``RolloutWorker`` and a ``RewardWorker``; per-step metrics from the driver, per-rank lines from the actors with Ray's
``(PolicyTrainer pid=N)`` prefixes). Launched the way its users do, from the job directory:
``nice -n 5 python -m tutorrlhf.main_ppo --trainer.dist-port P ...`` (``ray.init()`` starts a private local Ray
instance for the run and shuts it down at the end).

Every scenario empties the neutral job directory ``/tmp/wavebf-c-job/run``, copies ``project/`` in, writes the
prompt set (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with N``. It checks
the expected signature (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebf-c-<name>/job.log``
and its row of ``corpus/manifest.d/wave-bf-runs-c.csv``.

    python3 corpus/generators/wavebf_c/generate.py --list
    python3 corpus/generators/wavebf_c/generate.py --scenario NAME
    python3 corpus/generators/wavebf_c/generate.py --all

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bf-c`` (system torch 2.13.0 CPU and ray 2.60.0 reused).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bf-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebf_c/generate.py"
SPLIT = "heldout61"
ECO = "ray-rlhf"
JOBS = Path("/tmp/wavebf-c-job")
SCRATCH = Path("/tmp/wavebf-c-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bf-c/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
NOEXIT = "; echo \"job exited with $?\""


def launch_cmd(port: int, extra: str = "", pre: str = "", exit_line: bool = True) -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 python -m tutorrlhf.main_ppo --trainer.dist-port {port}"
            + (" " + extra if extra else "") + (NOEXIT if exit_line else ""))


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
    trigger: tuple = ()  # ((regex, action), ...): "driver:SIG" | "group:SIG" | "pid:<regex with a pid group>:SIG"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"training finished[\s\S]*job exited with 0"
S3 = r"\nstep:3 - "
R1 = r"\[rank 1\] PolicyTrainer up on pid (\d+)"
RW = r"RewardWorker up on pid (\d+)"
RO = r"RolloutWorker up on pid (\d+)"
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
E3 = "--trainer.total-epochs 3"


def pre_run(port: int, extra: str) -> str:
    return DATA + " && " + launch_cmd(port, extra, exit_line=False) + " > /dev/null 2>&1"


SCENARIOS = [
    Scenario("tutor-healthy", "no_failure", launch_cmd(29901), OK),
    Scenario("tutor-healthy-resume", "no_failure", launch_cmd(29902, "--trainer.resume-mode auto"),
             r"resuming from[\s\S]*" + OK, prep=pre_run(29930, "--trainer.total-epochs 1"), timeout=300),
    Scenario("tutor-healthy-rerun-done", "no_failure", launch_cmd(29903, "--trainer.resume-mode auto"),
             r"nothing to do[\s\S]*" + OK, prep=pre_run(29931, ""), timeout=300),
    Scenario("tutor-healthy-reward-restarted", "no_failure", launch_cmd(29904, E3), OK,
             trigger=((S3, "pid:" + RW + ":KILL"),)),
    # the team's new container runtime gives /dev/shm only 64 MiB: Ray puts its object store in /tmp and warns
    Scenario("tutor-healthy-small-shm", "no_failure",
             "unshare -m bash -c 'mount -t tmpfs -o size=64m tmpfs /dev/shm && exec "
             + launch_cmd(29921, exit_line=False) + "'" + NOEXIT, OK),
    Scenario("tutor-pg-pending", "ray_scheduling_stall",
             launch_cmd(29905, "--trainer.cpus-per-trainer 3 --trainer.pg-ready-timeout 40"),
             r"job exited with [1-9]"),
    # the launch line copied from the team's InfiniBand cluster script, where the gloo interface is ib0
    Scenario("tutor-gloo-ifname-ib0", "nccl_network_config", launch_cmd(29922, pre="GLOO_SOCKET_IFNAME=ib0 "),
             r"ib0"),
    Scenario("tutor-pg-8-cpus", "ray_scheduling_stall",
             launch_cmd(29923, "--trainer.cpus-per-trainer 8 --trainer.pg-ready-timeout 45"), r"job exited with [1-9]"),
    Scenario("tutor-big-policy-oom", "host_oom_killed", launch_cmd(29906, "--actor.hidden 2048", pre=CGJOIN),
             r"job exited with [1-9]", memory=3_000_000_000),
    Scenario("tutor-trainer-killed", "host_oom_killed", launch_cmd(29907, E3), r"job exited with [1-9]",
             trigger=((S3, "pid:" + R1 + ":KILL"),)),
    Scenario("tutor-reward-no-reference", "worker_exception", launch_cmd(29908), r"KeyError",
             prep=DATA + " --drop-field reference"),
    Scenario("tutor-rollout-stopped", "silent_hang", launch_cmd(29909, E3 + " --trainer.ray-get-timeout 25"),
             r"GetTimeoutError", trigger=((S3, "pid:" + RO + ":STOP"),)),
    Scenario("tutor-trainer-stopped", "collective_timeout", launch_cmd(29910, E3 + " --trainer.dist-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((S3, "pid:" + R1 + ":STOP"),), hang_ok=True),
    Scenario("tutor-batch-48", "batch_size_mismatch", launch_cmd(29911, "--data.rollout-batch-size 48"),
             r"must be divisible"),
    Scenario("tutor-preempted", "job_preempted", launch_cmd(29912, E3), r"job exited with [1-9]",
             trigger=((S3, "driver:TERM"),)),
    Scenario("tutor-terminal-closed", "terminal_hangup", launch_cmd(29913, E3), r"step:3",
             trigger=((S3, "group:HUP"),), hang_ok=True),
    Scenario("tutor-port-held", "port_in_use", launch_cmd(29914), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29914", stale_ready="Serving HTTP", hang_ok=True),
    Scenario("tutor-empty-references", "training_divergence", launch_cmd(29915), r"nan|inf",
             prep=DATA + " --empty-refs 4"),
    Scenario("tutor-rouge-reward", "library_version_mismatch", launch_cmd(29916, "--reward.fn rouge"),
             r"No module named"),
    Scenario("tutor-nested-worked-answer", "native_crash", launch_cmd(29917), r"job exited with [1-9]",
             prep=DATA + " --nested 200000"),
    Scenario("tutor-log-kl", "collective_mismatch", launch_cmd(29918, "--actor.log-kl --trainer.dist-timeout 30"),
             r"job exited with [1-9]", hang_ok=True),
    Scenario("tutor-ckpt-tmpfs", "disk_full", launch_cmd(29919), r"job exited with [1-9]",
             tmpfs=(("checkpoints", "600k"),)),
    Scenario("tutor-lr-typo", "worker_exception", launch_cmd(29920, "--actor.lr 1e-6,"), r"invalid float value"),
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


def alive(k: psutil.Process) -> bool:
    try:
        return k.is_running() and k.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def descendants(pid: int) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).children(recursive=True)
    return []


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
               PYTHONUNBUFFERED="1", NO_COLOR="1", RAY_COLOR_PREFIX="0", COLUMNS="160",
               TOKENIZERS_PARALLELISM="false", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RAY_ADDRESS"):
        env.pop(k, None)
    pre_kids: set[psutil.Process] = set()
    if s.prep:
        pp = subprocess.Popen(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
        while pp.poll() is None:
            pre_kids.update(descendants(pp.pid))
            time.sleep(0.3)
        if pp.returncode:
            raise SystemExit(f"prep failed ({pp.returncode})")
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = ""
    if s.memory:
        cgdir = own_memcg() / "wavebf-c-job"
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
            if re.search(what, out.decode(errors="replace")):
                n_fired += 1
                if not action.startswith("pid:"):
                    print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                sig = getattr(signal, "SIG" + action.rsplit(":", 1)[1])
                if action.startswith("group:"):  # the terminal's process group (shell, driver, Ray's daemons)
                    os.killpg(proc[0].pid, sig)
                elif action.startswith("driver:"):  # the driver process only (the scheduler's signal)
                    for v in descendants(proc[0].pid):
                        with contextlib.suppress(psutil.Error):
                            if "tutorrlhf.main_ppo" in " ".join(v.cmdline()):
                                print(f"  {action} {v.pid}", flush=True)
                                v.send_signal(sig)
                elif action.startswith("pid:"):  # the actor whose pid the log names
                    m = re.search(action[4:].rsplit(":", 1)[0], out.decode(errors="replace"))
                    if m is None:  # Ray forwards that actor's line later: wait for it
                        n_fired -= 1
                    else:
                        pid = int(m.group(1))
                        print(f"  {action} {pid}", flush=True)
                        os.kill(pid, sig)
        kids.update(descendants(proc[0].pid))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    t_end = time.time()  # let Ray's own shutdown finish its part
    while not timed_out and time.time() - t_end < 20 and any(map(alive, kids)):
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in kids | pre_kids:  # Ray's daemons and workers left behind (by pid, only those this run started)
        with contextlib.suppress(psutil.Error):
            if k.status() == psutil.STATUS_STOPPED:
                k.send_signal(signal.SIGCONT)
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
        dest = CORPUS / "logs" / f"run-wavebf-c-{s.name}"
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
    sys.path.insert(0, str(HERE))
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebf-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
