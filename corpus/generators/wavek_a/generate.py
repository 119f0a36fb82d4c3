"""Generate wave K (a)'s real runs (sealed batch ``heldout13``): a keyword-spotting CNN under Open MPI, Slurm and the
DeepSpeed launcher, with causes and mechanisms the earlier generators lack.

The job is ``kws_train.py`` (a small CNN over log-mel feature shards written by ``make_kws_data.py``, data-parallel on
CPU with gloo; per-step logging, evaluation, checkpoints) started by ``mpirun`` (3 ranks; directly or through the
per-rank wrapper ``run_rank.sh``), by ``sbatch --wait kws.sbatch`` (2 tasks through ``srun``) on this folder's one-node
Slurm cluster (``slurm_setup.sh``; four CPUs declared so that two jobs share the node), or by ``deepspeed --num_gpus 2``
on DeepSpeed's CPU accelerator with ``ds_config.json``.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavek-a-job/<name>`` (this folder's scripts are
copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would; for ``sbatch --wait`` jobs the
job's own ``slurm-<id>.out`` is kept. It checks that the expected signature is in the log (else MISSING, nothing
written, exit 1) and writes ``corpus/logs/run-wavek-a-<name>/job.log`` and its row of
``corpus/manifest.d/wave-k-runs-a.csv`` (split and batch ``heldout13``).

A scenario's ``trigger`` acts while the job runs, as a person or another job would: when the console (or the Slurm
output file) first matches a regex, or after a delay, it sends SIGHUP (the terminal closed) or SIGINT to the job's
process group, or runs a command (``scancel``). ``tmpfs`` mounts a small filesystem in the job dir, ``shm`` runs the
job in a private mount namespace with a small ``/dev/shm``, ``memory`` puts it in a cgroup-v1 memory cgroup.

    python corpus/generators/wavek_a/generate.py --list
    python corpus/generators/wavek_a/generate.py --all
    python corpus/generators/wavek_a/generate.py --scenario NAME

Needs root (tmpfs mounts, ``unshare -m``, cgroup v1), Open MPI, Slurm + munge, and the venv ``/tmp/corpus-venv-j``
(torch 2.13.0+cpu, deepspeed 0.19.8). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-k-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavek_a/generate.py"
SPLIT = "heldout13"
JOBS = Path("/tmp/wavek-a-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"j": Path("/tmp/corpus-venv-j/bin")}
SCRIPTS = ("kws_train.py", "make_kws_data.py", "kws.sbatch", "run_rank.sh", "ds_config.json",
           "ds_config_ga2.json")
MPI = "mpirun --allow-run-as-root --oversubscribe"
DATA = "mkdir -p data && {py} make_kws_data.py --out data"
MPIRUN = ("export MASTER_ADDR=127.0.0.1 MASTER_PORT={port} && {mpi} -np 3 -x MASTER_ADDR -x MASTER_PORT "
          "-x OMP_NUM_THREADS {py} kws_train.py ")
DONE = "; echo \"job exited with $?\""
SB = "sbatch --wait kws.sbatch "
SBDONE = "; echo \"sbatch exited with $?\""


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    notes: str = ""
    venv: str = "j"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""  # run the job in a private mount namespace with a /dev/shm tmpfs of this size
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # (regex | seconds, "hup" | "int" | "cmd:<bash>")
    timeout: int = 300
    env: dict = field(default_factory=dict)


def mpirun(port: int, args: str) -> str:
    return MPIRUN.replace("{port}", str(port)) + args + DONE


SCENARIOS = [
    # --- Open MPI mpirun, 3 ranks ------------------------------------------------------------------------------------
    Scenario("mpirun-kws-healthy", "no_failure", "mpi",
             mpirun(29901, "--steps 240 --eval-every 80 --save-every 120 --workers 1"),
             r"job exited with 0", prep=DATA + " --shards 12 --per-shard 500"),
    Scenario("mpirun-kws-embedding-bank-gather-cgroup-oom", "host_oom_killed", "mpi",
             mpirun(29902, "--steps 300 --eval-every 100 --save-every 60 --workers 0 --bank 1200000"),
             r"signal 9|Killed",
             prep=DATA + " --shards 12 --per-shard 500", memory=3_400_000_000),
    Scenario("mpirun-kws-wrapper-per-rank-port", "rendezvous_timeout", "mpi",
             "{mpi} -np 3 -x PATH bash run_rank.sh --steps 240 --timeout-s 60" + DONE,
             r"timed out|Timed out",
             prep=DATA + " --shards 12 --per-shard 500", timeout=240),
    Scenario("mpirun-kws-rank0-tta-eval-straggler", "collective_timeout", "mpi",
             mpirun(29904, "--steps 240 --eval-every 60 --save-every 120 --full-eval-tta 24 --timeout-s 20"),
             r"Timed out waiting|timed out",
             prep=DATA + " --shards 12 --per-shard 500 --val-shards 6"),
    Scenario("mpirun-kws-walltime-timeout-term", "job_preempted", "mpi",
             mpirun(29905, "--steps 3000 --eval-every 250 --save-every 500").replace("&& {mpi}", "&& timeout -s TERM 70 {mpi}"),
             r"job exited with 124",
             prep=DATA + " --shards 12 --per-shard 500"),
    Scenario("mpirun-deepspeed-config-for-two-ranks", "batch_size_mismatch", "mpi",
             "cat ds_config.json; " + mpirun(29906, "--steps 200 --batch 32 --deepspeed-config ds_config.json"),
             r"train_batch_size",
             prep=DATA + " --shards 12 --per-shard 500"),
    Scenario("mpirun-kws-loader-workers-small-shm", "shm_exhausted", "mpi",
             mpirun(29907, "--steps 240 --batch 64 --workers 2"),
             r"No space left on device|Bus error|shared memory",
             prep=DATA + " --shards 12 --per-shard 500", shm="2m"),
    Scenario("mpirun-kws-checkpoint-volume-full", "disk_full", "mpi",
             "df -h ckpt | tail -n 1; " + mpirun(29908, "--steps 300 --width 64 --eval-every 50 --save-every 50"),
             r"No space left on device|iostream error|unexpected pos",
             prep=DATA + " --shards 12 --per-shard 500", tmpfs=(("ckpt", "4m", 0),)),
    # --- Slurm sbatch + srun, 2 tasks --------------------------------------------------------------------------------
    Scenario("slurm-kws-healthy", "no_failure", "slurm",
             SB + "--steps 240 --eval-every 80 --save-every 120 --workers 1" + SBDONE,
             r"srun finished with exit code 0", slurm_out=True, prep=DATA + " --shards 10 --per-shard 500"),
    Scenario("slurm-kws-zlib-shard-ctypes-overflow", "native_crash", "slurm",
             SB + "--steps 240 --eval-every 80 --save-every 120 --zshards" + SBDONE,
             r"Segmentation fault|Aborted|Fatal Python error|signal",
             slurm_out=True, prep=DATA + " --shards 10 --per-shard 500 --zbin --stale-header-shard 3"),
    Scenario("slurm-kws-master-port-second-job", "port_in_use", "slurm",
             SB + "--steps 240 --eval-every 80 --save-every 120" + SBDONE,
             r"EADDRINUSE|Address already in use",
             slurm_out=True,
             prep=DATA + " --shards 10 --per-shard 500 && mkdir -p other && sbatch --ntasks 1 --job-name kws-lr-sweep "
                  "--output other/slurm-%j.out kws.sbatch --steps 5000 --lr 3e-3 > /dev/null && "
                  "for i in $(seq 90); do grep -qs 'step 20/' other/slurm-*.out && break; sleep 1; done"),
    Scenario("slurm-kws-normalize-silent-channel-nan", "training_divergence", "slurm",
             SB + "--steps 240 --eval-every 80 --save-every 120 --normalize" + SBDONE,
             r"loss is nan", slurm_out=True, prep=DATA + " --shards 10 --per-shard 500 --dead-channel 39"),
    Scenario("slurm-kws-val-keyword-not-in-vocab", "worker_exception", "slurm",
             SB + "--steps 240 --eval-every 80 --save-every 120" + SBDONE,
             r"KeyError", slurm_out=True, prep=DATA + " --shards 10 --per-shard 500 --val-new-word wow"),
    Scenario("slurm-kws-augment-fifo-stuck-scancel", "silent_hang", "slurm",
             SB + "--steps 600 --eval-every 200 --save-every 200 --fifo-rank 1 --fifo-step 50" + SBDONE,
             r"CANCELLED", slurm_out=True, prep=DATA + " --shards 10 --per-shard 500 --fifo",
             trigger=(150, "cmd:scancel --name kws-cnn")),
    # meant as a collective-shape mismatch run with TORCH_DISTRIBUTED_DEBUG=DETAIL; both ranks crashed in DDP's
    # constructor before any evaluation (kept as what it is), and the mismatch run below goes without DETAIL
    Scenario("slurm-kws-debug-detail-ddp-init-segv", "native_crash", "slurm",
             "export TORCH_DISTRIBUTED_DEBUG=DETAIL; " + SB +
             "--steps 120 --eval-every 60 --save-every 120 --eval-gather --timeout-s 60" + SBDONE,
             r"Segmentation fault", slurm_out=True,
             prep=DATA + " --shards 10 --per-shard 500 --val-short-last"),
    Scenario("slurm-kws-eval-gather-short-shard", "collective_mismatch", "slurm",
             SB + "--steps 120 --eval-every 60 --save-every 120 --eval-gather --timeout-s 60" + SBDONE,
             r"srun finished with exit code [1-9]", slurm_out=True,
             prep=DATA + " --shards 10 --per-shard 500 --val-short-last"),
    # --- DeepSpeed launcher on the CPU accelerator -----------------------------------------------------------------
    Scenario("deepspeed-kws-healthy", "no_failure", "deepspeed",
             "{bin}/deepspeed --num_gpus 2 --master_port 29950 kws_train.py --deepspeed-config ds_config.json "
             "--batch 32 --steps 200 --eval-every 100 --save-every 100" + DONE,
             r"job exited with 0", prep=DATA + " --shards 10 --per-shard 500"),
    Scenario("deepspeed-kws-grad-accum-healthy", "no_failure", "deepspeed",
             "{bin}/deepspeed --num_gpus 2 --master_port 29952 kws_train.py --deepspeed-config ds_config_ga2.json "
             "--batch 32 --steps 300 --eval-every 150 --save-every 150" + DONE,
             r"job exited with 0", prep=DATA + " --shards 10 --per-shard 500"),
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


def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def slurm_text(job: Path) -> str:
    outs = sorted(glob.glob(str(job / "slurm-*.out")))
    return Path(outs[0]).read_text(errors="replace") if outs else ""


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP disposition even when this generator runs under nohup (which ignores it)
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))

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
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT"):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    cwd_job = job
    cmds = [(0, s.cmd), *s.nodes]
    cg = ""
    if s.memory:
        cgdir = own_memcg() / f"wavek-a-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    outs = [bytearray() for _ in cmds]
    procs: list[tuple[subprocess.Popen, threading.Thread]] = []
    start = time.time()
    tracker = Tracker([])
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
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", action[4:]], cwd=job, env=env)
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
    for p, t in procs:
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
        dest = CORPUS / "logs" / f"run-wavek-a-{s.name}"
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
    return f"logs/run-wavek-a-{s.name}" if s.nodes else f"logs/run-wavek-a-{s.name}/job.log"


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
