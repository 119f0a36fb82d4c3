"""Generate wave R (a)'s real runs (sealed batch ``heldout20``): a small mask-based speech enhancement model (STFT
magnitude mask from a conv + GRU network, synthetic voiced speech mixed with a noise bank at random SNR, SI-SDR
evaluation) trained under torchrun, Open MPI, Slurm, the DeepSpeed launcher and accelerate launch, with failure
mechanisms the earlier generators lack.

Each scenario runs one bash command in a fresh job directory ``/tmp/waver-a-job/<name>`` (this folder's scripts are
copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would; for ``sbatch --wait`` jobs the
job's own ``slurm-<id>.out`` is kept. It checks that the expected signature is in the log (else MISSING, nothing
written, exit 1) and writes ``corpus/logs/run-waver-a-<name>/job.log`` and its row of
``corpus/manifest.d/wave-r-runs-a.csv`` (split and batch ``heldout20``). The harness is adapted from
../waveq_a/generate.py (prep, triggers, tmpfs, cgroup-v1 memory limit, private /dev/shm).

    bash corpus/generators/waver_a/slurm_setup.sh          # Slurm on ports 6917/6918, config in /tmp/waver-a-slurm
    python corpus/generators/waver_a/generate.py --list
    python corpus/generators/waver_a/generate.py --all
    bash corpus/generators/waver_a/slurm_setup.sh stop

Needs root (tmpfs mounts, cgroup v1, unshare), Open MPI, Slurm + munge, and the venv ``/tmp/corpus-venv-na`` (torch
2.13.0+cpu, deepspeed 0.19.8, accelerate 1.15.0). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-r-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waver_a/generate.py"
SPLIT = "heldout20"
JOBS = Path("/tmp/waver-a-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"na": Path("/tmp/corpus-venv-na/bin")}
SCRIPTS = ("enhance.py", "make_clips.py", "enhance.sbatch")
MPI = "mpirun --allow-run-as-root --oversubscribe"
DATA = "{py} make_clips.py --out data"
DONE = "; echo \"job exited with $?\""
SB = "sbatch --wait enhance.sbatch "
SBDONE = "; echo \"sbatch exited with $?\""
TR = "{bin}/torchrun --nproc-per-node 2 --master-port {port} "
ACC = ("{bin}/accelerate launch --multi_gpu --num_machines 1 --num_processes 2 --mixed_precision no "
       "--dynamo_backend no --main_process_port {port} enhance.py --accelerate ")
DS = "{bin}/deepspeed --num_gpus 2 --master_port {port} enhance.py --deepspeed "
MPIRUN = ("export MASTER_ADDR=127.0.0.1 MASTER_PORT={port} && {mpi} -np {np} -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS "
          "{py} enhance.py ")
DSCFG = ("echo '{\"train_batch_size\": 32, \"train_micro_batch_size_per_gpu\": 16, \"gradient_accumulation_steps\": 1, "
         "\"steps_per_print\": 50, \"gradient_clipping\": 5.0, \"zero_optimization\": {\"stage\": 0}}' > ds_config.json")
@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "na"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # (regex | seconds, "hup" | "int" | "term" | "cmd:<bash>")
    timeout: int = 240
    env: dict = field(default_factory=dict)


def at(tpl: str, port: int, np_: int = 2) -> str:
    return tpl.replace("{port}", str(port)).replace("{np}", str(np_))


A = "--steps 200 --eval-every 50 --save-every 100"
SCENARIOS = [
    # --- torchrun ------------------------------------------------------------------------------------------------
    Scenario("torchrun-masknet-sisdr-finetune-noise-only-clips", "training_divergence", "torchrun",
             at(TR, 29510) + "enhance.py --noise-only-frac 0.1 --sisdr-after 100 " + A + DONE,
             r"Loss is (nan|inf|-inf)", prep=DATA),
    Scenario("torchrun-masknet-stereo-field-recording-in-bank", "worker_exception", "torchrun",
             at(TR, 29512) + "enhance.py " + A + DONE, r"must match the size|size of tensor",
             prep=DATA + " --stereo-recording street-stereo"),
    Scenario("torchrun-masknet-healthy", "no_failure", "torchrun",
             at(TR, 29514) + "enhance.py " + A + DONE, r"done: 200 steps[\s\S]*job exited with 0", prep=DATA),
    Scenario("torchrun-masknet-ssh-session-closed", "terminal_hangup", "torchrun",
             at(TR, 29516) + "enhance.py --steps 2000 --eval-every 200 --save-every 200 --step-sleep 0.02" + DONE,
             r"SIGHUP", prep=DATA, trigger=(r"step 120/", "hup")),
    # --- Open MPI mpirun -------------------------------------------------------------------------------------------
    Scenario("mpirun-masknet-healthy", "no_failure", "mpi", at(MPIRUN, 29520, 3) + A + DONE,
             r"done: 200 steps[\s\S]*job exited with 0", prep=DATA),
    Scenario("mpirun-masknet-loss-history-keeps-graphs-cgroup", "host_oom_killed", "mpi",
             at(MPIRUN, 29522) + "--loss-history --steps 2000 --eval-every 500 --save-every 500" + DONE,
             r"signal 9|Killed", prep=DATA, memory=1_300_000_000, timeout=300),
    Scenario("mpirun-masknet-per-rank-early-stopping", "collective_timeout", "mpi",
             at(MPIRUN, 29524, 3) + "--early-stop-patience 1 --eval-every 20 --save-every 100000 --steps 400 "
             "--timeout-s 20" + DONE, r"[Tt]imed out|Timeout", prep=DATA, timeout=240),
    Scenario("mpirun-masknet-config-world-size-from-other-cluster", "rendezvous_timeout", "mpi",
             at(MPIRUN, 29526) + "--config train_config.json --timeout-s 30 " + A + DONE,
             r"[Tt]imed? ?out|DistStoreError|wait timeout", prep=DATA + " && echo '{\"world_size\": 3, \"lr\": 0.002}' > train_config.json",
             timeout=150),
    # --- Slurm -----------------------------------------------------------------------------------------------------
    Scenario("slurm-masknet-healthy", "no_failure", "slurm", SB + A + SBDONE, r"srun exited with 0", slurm_out=True,
             prep=DATA),
    Scenario("slurm-masknet-smoke-test-time-limit", "job_preempted", "slurm",
             "sbatch --wait --time=00:01:00 enhance.sbatch --steps 1500 --eval-every 250 --save-every 250" + SBDONE,
             r"DUE TO TIME LIMIT", slurm_out=True, prep=DATA, timeout=200),
    Scenario("slurm-masknet-vad-index-deep-pickle", "native_crash", "slurm", SB + "--vad-index " + A + SBDONE,
             r"Segmentation fault|SIGSEGV|signal 11", slurm_out=True, prep=DATA, env={"PYTHONFAULTHANDLER": "1"}),
    # --- DeepSpeed launcher ----------------------------------------------------------------------------------------
    Scenario("deepspeed-masknet-healthy", "no_failure", "deepspeed",
             at(DS, 29530) + "--ds-config ds_config.json " + A + DONE, r"done: 200 steps[\s\S]*job exited with 0",
             prep=DATA + " && " + DSCFG),
    Scenario("deepspeed-masknet-grad-accum-flag-overrides-config", "batch_size_mismatch", "deepspeed",
             at(DS, 29532) + "--ds-config ds_config.json --grad-accum 2 " + A + DONE, r"train_batch_size",
             prep=DATA + " && " + DSCFG),
    Scenario("deepspeed-masknet-engine-checkpoints-small-volume", "disk_full", "deepspeed",
             at(DS, 29534) + "--ds-config ds_config.json --steps 300 --eval-every 50 --save-every 50" + DONE
             + "; df -h ckpt", r"iostream error[\s\S]*100% ", prep=DATA + " && " + DSCFG, tmpfs=(("ckpt", "5m", 0),)),
    # --- accelerate launch -----------------------------------------------------------------------------------------
    Scenario("accelerate-masknet-loader-workers-container-shm", "shm_exhausted", "accelerate",
             at(ACC, 29540) + "--loader-workers 2 --batch 64 --clip-sec 2.0 " + A + DONE,
             r"unable to allocate shared memory", prep=DATA, shm="24m", trigger=(90, "int"), timeout=150),
    Scenario("accelerate-masknet-drain-sigterm", "job_preempted", "accelerate",
             at(ACC, 29542) + "--steps 2000 --eval-every 200 --save-every 200 --step-sleep 0.02" + DONE,
             r"SIGTERM|signal 15|Signals.SIGTERM", prep=DATA, trigger=(r"step 160/", "term")),
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


os.environ["SLURM_CONF"] = "/tmp/waver-a-slurm/slurm.conf"


def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def slurm_text(job: Path) -> str:
    outs = sorted(glob.glob(str(job / "slurm-*.out")))
    return Path(outs[0]).read_text(errors="replace") if outs else ""


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
    job = JOBS / s.name
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
            (job / d / "old-runs").mkdir()
            with open(job / d / "old-runs" / "ckpt-shard-00.pt", "wb") as f:
                f.write(os.urandom(prefill))
    if s.slurm_out and not slurm_ok():
        print(f"MISSING {s.name}: no Slurm controller answers (run slurm_setup.sh)", flush=True)
        return False
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               SLURM_CONF="/tmp/waver-a-slurm/slurm.conf",
               **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT"):
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
    cmds = [(0, s.cmd), *s.nodes]
    cg = ""
    if s.memory:
        cgdir = own_memcg() / f"waver-a-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    outs = [bytearray() for _ in cmds]
    procs: list[tuple[subprocess.Popen, threading.Thread]] = []
    start = time.time()
    tracker = Tracker([stale[0].pid] if stale else [])
    fired = not s.trigger
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
            what, action = s.trigger
            if isinstance(what, (int, float)):
                hit = time.time() - start >= what
            else:
                text = slurm_text(job) if s.slurm_out else outs[0].decode(errors="replace")
                hit = re.search(what, text) is not None
            if hit:
                fired = True
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "hup":
                    os.killpg(procs[0][0].pid, signal.SIGHUP)
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env)
        if not pending and all(p.poll() is not None for p, _ in procs):
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
    if s.slurm_out:
        logs = {"job.log": slurm_text(job).encode()}
    elif len(outs) == 1:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-waver-a-{s.name}"
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
    return f"logs/run-waver-a-{s.name}" if s.nodes else f"logs/run-waver-a-{s.name}/job.log"


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
