"""Generate wave M (a)'s real runs (sealed batch ``heldout15``): a mixture-of-experts time-series forecaster with
expert parallelism under torchrun, Open MPI, Slurm, the DeepSpeed launcher and accelerate launch, with mechanisms the
earlier generators lack.

The job is ``moe_forecast.py``: a patch transformer over hourly multi-sensor series (per-window normalisation,
patch embedding, one self-attention block written out by hand) whose feed-forward block is a top-1 routed mixture
of experts; the experts are sharded across ranks and tokens travel to their expert's rank and back through
``all_to_all_single`` (a count exchange first, or fixed-capacity buffers with ``--static-capacity``); dense gradients
are averaged with ``all_reduce``. Data are the site shards written by ``make_series.py`` (optionally with scattered
gaps, a flat-lined gateway, a short export or a sensor that stopped reporting). gloo on CPU. The job is started by
``torchrun`` (one "node" with ``--log-dir``/``--tee``/``--max-restarts`` and the c10d rendezvous, or two "nodes" on
this host whose consoles become ``node0.log``/``node1.log``), ``mpirun -np 3``, ``sbatch --wait moe.sbatch`` (2 tasks
through ``srun``) on this folder's one-node Slurm cluster (``slurm_setup.sh``), ``deepspeed --num_gpus 2`` on
DeepSpeed's CPU accelerator (``deepspeed.init_distributed``), or ``accelerate launch`` with 2 CPU processes.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavem-a-job/<name>`` (this folder's scripts are
copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would; for ``sbatch --wait`` jobs the
job's own ``slurm-<id>.out`` is kept. It checks that the expected signature is in the log (else MISSING, nothing
written, exit 1) and writes ``corpus/logs/run-wavem-a-<name>/job.log`` (or one file per node) and its row of
``corpus/manifest.d/wave-m-runs-a.csv`` (split and batch ``heldout15``).

``prep`` runs before the job and is not logged (data; for one scenario an earlier short run whose checkpoint is then
cut short, as an interrupted copy leaves it). A scenario's ``trigger`` acts while the job runs, as a person or the
cluster admin would: when the console (or the Slurm output file) first matches a regex, or after a delay, it sends
SIGINT (Ctrl-C) to the job's process group, or runs a command (``scontrol requeuehold`` then ``scancel``).
``tmpfs`` mounts a small filesystem in the job dir, ``memory`` puts the job in a cgroup-v1 memory cgroup. The job's
stdin is an open pipe nobody writes to. The harness is adapted from ../wavel_a/generate.py.

    python corpus/generators/wavem_a/generate.py --list
    python corpus/generators/wavem_a/generate.py --all
    python corpus/generators/wavem_a/generate.py --scenario NAME

Needs root (tmpfs mounts, cgroup v1), Open MPI, Slurm + munge (``slurm_setup.sh``; ``slurm_setup.sh stop``
afterwards), and the venv ``/tmp/corpus-venv-j`` (torch 2.13.0+cpu, deepspeed 0.19.8, accelerate 1.15.0). Run it
with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-m-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavem_a/generate.py"
SPLIT = "heldout15"
JOBS = Path("/tmp/wavem-a-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"j": Path("/tmp/corpus-venv-j/bin")}
SCRIPTS = ("moe_forecast.py", "make_series.py", "moe.sbatch")
MPI = "mpirun --allow-run-as-root --oversubscribe"
DATA = "{py} make_series.py --out data"
DONE = "; echo \"job exited with $?\""
SB = "sbatch --wait moe.sbatch "
SBDONE = "; echo \"sbatch exited with $?\""
TR = "{bin}/torchrun --nproc-per-node 2 --master-port {port} "
ACC = ("{bin}/accelerate launch --multi_gpu --num_machines 1 --num_processes 2 --mixed_precision no "
       "--dynamo_backend no --main_process_port {port} moe_forecast.py --accelerate ")
DS = "{bin}/deepspeed --num_gpus 2 --master_port {port} moe_forecast.py --deepspeed "
MPIRUN = ("export MASTER_ADDR=127.0.0.1 MASTER_PORT={port} && {mpi} -np 3 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS "
          "{py} moe_forecast.py ")


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "j"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # (regex | seconds, "hup" | "int" | "cmd:<bash>")
    timeout: int = 240
    env: dict = field(default_factory=dict)


def at(tpl: str, port: int) -> str:
    return tpl.replace("{port}", str(port))


def node(r: int, port: int, args: str, rdzv_id: str = "") -> str:
    if rdzv_id:
        launch = ("{bin}/torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:%d "
                  "--rdzv-id %s --rdzv-conf join_timeout=60 " % (port, rdzv_id))
    else:
        launch = ("{bin}/torchrun --nnodes 2 --node-rank %d --nproc-per-node 1 --master-addr 127.0.0.1 "
                  "--master-port %d " % (r, port))
    return launch + "moe_forecast.py " + args + DONE


SCENARIOS = [
    # --- torchrun ------------------------------------------------------------------------------------------------
    Scenario("torchrun-2node-moe-forecast-healthy", "no_failure", "torchrun",
             node(0, 29410, "--steps 400 --eval-every 100 --save-every 200"), r"job exited with 0", prep=DATA,
             nodes=((3, node(1, 29410, "--steps 400 --eval-every 100 --save-every 200")),)),
    Scenario("torchrun-2node-moe-rdzv-id-per-node", "rendezvous_timeout", "torchrun",
             node(0, 29412, "--steps 400 --eval-every 100", "moe-fcst-20261128-a"), r"job exited with [1-9]",
             prep=DATA, nodes=((3, node(1, 29412, "--steps 400 --eval-every 100", "moe-fcst-20261128-b")),),
             timeout=200),
    Scenario("torchrun-moe-static-capacity-tee-logdir", "collective_mismatch", "torchrun",
             at(TR, 29414).replace("--master-port", "--log-dir logs --tee 3 --master-port") +
             "moe_forecast.py --steps 400 --eval-every 100 --save-every 200 --static-capacity" + DONE,
             r"job exited with [1-9]", prep=DATA),
    Scenario("torchrun-moe-restarts-resume-copied-ckpt", "worker_exception", "torchrun",
             "ls -l ckpt; {bin}/torchrun --nnodes 1 --nproc-per-node 2 --max-restarts 2 --rdzv-backend c10d "
             "--rdzv-endpoint 127.0.0.1:29416 --rdzv-id moe-resume moe_forecast.py --steps 400 --eval-every 100 "
             "--save-every 200 --resume" + DONE, r"job exited with [1-9]",
             # a checkpoint from an earlier run of this job, copied from the old cluster's storage by a transfer
             # that was interrupted (the dense file is cut short); not part of the log
             prep=DATA + " && {bin}/torchrun --nproc-per-node 2 --master-port 29417 moe_forecast.py --steps 100 "
             "--eval-every 100 --save-every 100 > /dev/null 2>&1 && truncate -s 60K ckpt/step-000100-dense.pt"),
    # --- Open MPI mpirun, 3 ranks --------------------------------------------------------------------------------
    Scenario("mpirun-moe-forecast-healthy-noisy", "no_failure", "mpi",
             at(MPIRUN, 29420) + "--steps 300 --eval-every 100 --save-every 150 --warn-noisy --gap-policy ffill" + DONE,
             r"job exited with 0", prep=DATA + " --gaps"),
    Scenario("mpirun-moe-socket-ifname-from-cloud-image", "nccl_network_config", "mpi",
             "export GLOO_SOCKET_IFNAME=ens5 && " + at(MPIRUN, 29422).replace("-x OMP_NUM_THREADS",
             "-x OMP_NUM_THREADS -x GLOO_SOCKET_IFNAME") + "--steps 300 --eval-every 100 --save-every 150" + DONE,
             r"job exited with [1-9]", prep=DATA),
    Scenario("mpirun-moe-atomic-save-small-tmpdir", "disk_full", "mpi",
             "df -h scratch | tail -n 1; export TMPDIR=$PWD/scratch && " + at(MPIRUN, 29424).replace(
                 "-x OMP_NUM_THREADS", "-x OMP_NUM_THREADS -x TMPDIR") +
             "--steps 300 --eval-every 100 --save-every 150 --atomic-save" + DONE,
             r"No space left on device", prep=DATA, tmpfs=(("scratch", "2m", 0),)),
    Scenario("mpirun-moe-resume-from-torchrun-run", "worker_exception", "mpi",
             "ls -l ckpt; " + at(MPIRUN, 29426) + "--steps 400 --eval-every 100 --save-every 200 --resume" + DONE,
             r"job exited with [1-9]",
             # the checkpoint of an earlier 2-rank torchrun run of this job (not part of the log)
             prep=DATA + " && {bin}/torchrun --nproc-per-node 2 --master-port 29427 moe_forecast.py --steps 200 "
             "--eval-every 100 --save-every 200 > /dev/null 2>&1"),
    Scenario("mpirun-moe-skip-idle-experts", "collective_mismatch", "mpi",
             at(MPIRUN, 29428) + "--steps 300 --eval-every 100 --save-every 150 --skip-idle-experts --timeout-s 60"
             + DONE, r"job exited with [1-9]", prep=DATA, timeout=200),
    # --- Slurm sbatch + srun, 2 tasks ------------------------------------------------------------------------------
    Scenario("slurm-moe-forecast-healthy", "no_failure", "slurm",
             SB + "--steps 400 --eval-every 100 --save-every 200" + SBDONE, r"srun exited with 0", slurm_out=True,
             prep=DATA),
    Scenario("slurm-moe-requeue-hold", "job_preempted", "slurm",
             SB + "--steps 20000 --eval-every 500 --save-every 1000 --step-sleep 0.02" + SBDONE,
             r"SIGTERM|CANCELLED|requeue", slurm_out=True, prep=DATA,
             env={"SBATCH_REQUEUE": "1", "SBATCH_OPEN_MODE": "append"},
             trigger=(r"step 600/", "cmd:id=$(squeue -h -o %i | head -n 1); scontrol requeuehold $id; sleep 25; "
                      "scancel $id"), timeout=200),
    Scenario("slurm-moe-short-site-export", "worker_exception", "slurm",
             SB + "--steps 400 --eval-every 100 --save-every 200" + SBDONE, r"srun exited with [1-9]",
             slurm_out=True, prep=DATA + " --short-shard 3"),
    # --- DeepSpeed launcher on the CPU accelerator ----------------------------------------------------------------
    Scenario("deepspeed-moe-forecast-healthy", "no_failure", "deepspeed",
             at(DS, 29430) + "--steps 400 --eval-every 100 --save-every 200" + DONE, r"job exited with 0", prep=DATA),
    Scenario("deepspeed-moe-gap-fill-val-sensor-dead", "collective_timeout", "deepspeed",
             at(DS, 29432) + "--steps 400 --eval-every 100 --save-every 200 --gap-policy ffill --timeout-s 30" + DONE,
             r"job exited with [1-9]", prep=DATA + " --gaps --dead-sensor-shard 1", timeout=200),
    Scenario("deepspeed-moe-mase-stuck-gateway", "training_divergence", "deepspeed",
             at(DS, 29434) + "--steps 400 --eval-every 100 --save-every 200 --loss mase" + DONE,
             r"job exited with [1-9]", prep=DATA + " --stuck-sensor-shard 2"),
    # --- accelerate launch, 2 CPU processes -------------------------------------------------------------------------
    Scenario("accelerate-moe-ten-week-lookback-cgroup", "host_oom_killed", "accelerate",
             at(ACC, 29442) + "--steps 400 --eval-every 100 --save-every 200 --lookback 1680 --patch 4" + DONE,
             r"SIGKILL|-9", prep=DATA, memory=4_000_000_000),
    Scenario("accelerate-moe-gap-fill-val-ctrl-c", "silent_hang", "accelerate",
             at(ACC, 29444) + "--steps 400 --eval-every 100 --save-every 200 --gap-policy ffill" + DONE,
             r"SIGINT|KeyboardInterrupt", prep=DATA + " --gaps --dead-sensor-shard 1", trigger=(90, "int")),
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
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
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
        cgdir = own_memcg() / f"wavem-a-{s.name}"
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
        dest = CORPUS / "logs" / f"run-wavem-a-{s.name}"
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
    return f"logs/run-wavem-a-{s.name}" if s.nodes else f"logs/run-wavem-a-{s.name}/job.log"


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
