"""Generate wave J's real runs (sealed batch ``heldout12``): scenario+launcher pairs the earlier generators lack.

Launchers and shapes: Open MPI ``mpirun`` ranks that pack sequences with a C++ extension built at start-up
(``seqpack.cpp`` through ``torch.utils.cpp_extension.load``); ``python -m torch.distributed.run`` / ``torchrun`` on two
"nodes" (two agents on this host) with the c10d rendezvous configured like a Kubeflow PyTorchJob (``PET_*``
variables) or elastic (``--nnodes 1:2``); the Lightning ``Trainer`` (DDP on CPU processes) with DataLoader workers;
Slurm ``sbatch`` + ``srun`` with ``torch.compile`` and two partitions (one preempts the other); Ray Train
(``TorchTrainer``) with bfloat16 autocast and gradient accumulation, and with DataLoader workers in a container-sized
``/dev/shm``; Ray Serve (``serve.run``); the Ray Jobs CLI with a Ray Data actor pool calling the C++ extension;
``accelerate launch`` with DeepSpeed around the Hugging Face ``Trainer``; Lightning Fabric's ``fabric run``.

Each scenario runs one bash command (or, for two-node jobs, one per node, the second started after a delay) in a
fresh job directory ``/tmp/wavej-job/<name>`` (this folder's scripts are copied there) and captures stdout+stderr
combined as ``cmd 2>&1 | tee job.log`` would; for ``sbatch --wait`` jobs the job's own ``slurm-<id>.out`` is kept. It
checks that the expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavej-<name>/job.log`` (two-node jobs: ``node0.log`` and ``node1.log``, the row names the folder) and
its row of ``corpus/manifest.d/wave-j-runs.csv`` (split and batch ``heldout12``).

A scenario's ``trigger`` acts while the job runs, as a person or another job would: when the console (or the Slurm
output file) first matches a regex, or after a delay, it sends SIGHUP (the terminal closed) or SIGINT (Ctrl-C) to the
job's process group, or runs a command (another user's ``sbatch`` into the high-priority partition).

Ray scenarios start this generator's own Ray cluster first (not part of the log: the long-running cluster a user
submits to) on non-default ports with ``--temp-dir /tmp/ray-wavej``, and afterwards stop only it (SIGKILL to the
processes whose command line names ``/tmp/ray-wavej`` and to their descendants; never ``ray stop``). The /dev/shm
scenario's script starts its own local Ray instance (``RAY_TMPDIR=/tmp/wavej-raylocal``) inside the job's mount
namespace. Slurm scenarios need this folder's one-node cluster (``slurm_setup.sh``).

    python corpus/generators/wavej/generate.py --list
    python corpus/generators/wavej/generate.py --all
    python corpus/generators/wavej/generate.py --scenario mpirun-seqpack-long-doc-terminate

Needs root (tmpfs mounts, ``unshare -m``, a cgroup-v1 memory cgroup), Open MPI, Slurm + munge, gcc/g++, and the two
venvs of README.md (``/tmp/corpus-venv-j``, ``/tmp/corpus-venv-j2``). Run it with any Python that has psutil.
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
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-j-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavej/generate.py"
SPLIT = "heldout12"
JOBS = Path("/tmp/wavej-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"j": Path("/tmp/corpus-venv-j/bin"), "j2": Path("/tmp/corpus-venv-j2/bin")}
SCRIPTS = ("seqpack.cpp", "make_corpus.py", "pack_train.py", "compile_train.py", "train.sbatch", "imagedata.py",
           "train_pl_images.py", "ray_train_images.py", "ray_train_bf16.py", "embed_service.py", "finetune_cls.py",
           "fabric_lm.py", "rayjobs/pack_dataset.py")
MPI = "mpirun --allow-run-as-root --oversubscribe"
# this generator's Ray cluster: GCS 6397, dashboard / job API 8277, dashboard agent 52397, Ray client 10097, workers
# 12000-12999, two CPUs (the machine's)
RAY_DIR = "/tmp/ray-wavej"
RAY_START = ("start --head --port 6397 --dashboard-port 8277 --dashboard-host 127.0.0.1 "
             "--dashboard-agent-listen-port 52397 --ray-client-server-port 10097 --min-worker-port 12000 "
             f"--max-worker-port 12999 --temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6397"
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8277 --working-dir ."
DS_CONFIG = """{
  "train_batch_size": 128,
  "train_micro_batch_size_per_gpu": 16,
  "gradient_accumulation_steps": 2,
  "gradient_clipping": 1.0,
  "optimizer": {"type": "AdamW", "params": {"lr": 5e-4, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01}},
  "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 5e-4, "warmup_num_steps": 50, "total_num_steps": "auto"}},
  "zero_optimization": {"stage": 1},
  "steps_per_print": 20,
  "wall_clock_breakdown": false
}
"""
# a Kubeflow PyTorchJob's worker pod environment (the operator sets PET_* for torch.distributed.run)
PET = ("PET_NPROC_PER_NODE=2 PET_RDZV_BACKEND=c10d PET_RDZV_ENDPOINT=127.0.0.1:29810 PET_RDZV_ID=lm-pretrain-7f3c "
       "PET_RDZV_CONF=join_timeout=120 PET_MAX_RESTARTS=0 LOGLEVEL=INFO TORCH_CPP_LOG_LEVEL=INFO")
PACK = "pack_train.py --corpus data/corpus.jsonl --steps 200 --log-every 5 --eval-every 50 --save-every 100"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {submit} {job} are filled in
    expect: str  # regex the log must contain
    notes: str = ""
    venv: str = "j"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""  # run the job in a private mount namespace with a /dev/shm tmpfs of this size
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    ray: dict | None = None  # {"env": {...}}: start this generator's Ray cluster first
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # (regex | seconds, "hup" | "int" | "cmd:<bash>")
    timeout: int = 400
    env: dict = field(default_factory=dict)


SCENARIOS = [
    # --- Open MPI mpirun + a C++ extension built by the job ------------------------------------------------------------
    Scenario("mpirun-seqpack-long-doc-terminate", "native_crash", "mpi",
             "export MASTER_ADDR=127.0.0.1 MASTER_PORT=29801 TORCH_EXTENSIONS_DIR=$PWD/torch_extensions && "
             "{mpi} -np 3 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS -x TORCH_EXTENSIONS_DIR "
             "{py} " + PACK.replace("--steps 200", "--steps 300") + "; echo \"job exited with $?\"",
             r"signal 6 \(Aborted\)",
             prep="mkdir -p data && {py} make_corpus.py --out data/corpus.jsonl --docs 12000 "
                  "--unsplit-source forum-export --unsplit-at 4645 > /dev/null"),
    Scenario("mpirun-seqpack-healthy", "no_failure", "mpi",
             "export MASTER_ADDR=127.0.0.1 MASTER_PORT=29802 TORCH_EXTENSIONS_DIR=$PWD/torch_extensions && "
             "{mpi} -np 3 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS -x TORCH_EXTENSIONS_DIR "
             "{py} " + PACK.replace("--steps 200", "--steps 300") + "; echo \"job exited with $?\"",
             r"job exited with 0",
             prep="mkdir -p data && {py} make_corpus.py --out data/corpus.jsonl --docs 12000 > /dev/null"),
    # --- torch.distributed.run on two nodes, c10d rendezvous ----------------------------------------------------------
    Scenario("pytorchjob-c10d-nnodes-mismatch", "rendezvous_timeout", "pytorch",
             "export TORCH_EXTENSIONS_DIR=$PWD/ext0 && env PET_NNODES=2 " + PET + " {py} -m torch.distributed.run "
             + PACK + "; echo \"job exited with $?\"",
             r"RendezvousTimeoutError|RendezvousClosedError",
             nodes=((5, "export TORCH_EXTENSIONS_DIR=$PWD/ext1 && env PET_NNODES=3 " + PET +
                     " {py} -m torch.distributed.run " + PACK + "; echo \"job exited with $?\""),),
             prep="mkdir -p data && {py} make_corpus.py --out data/corpus.jsonl --docs 12000 > /dev/null",
             timeout=300),
    Scenario("pytorchjob-c10d-healthy", "no_failure", "pytorch",
             "export TORCH_EXTENSIONS_DIR=$PWD/ext0 && env PET_NNODES=2 " + PET.replace("29810", "29811") +
             " {py} -m torch.distributed.run " + PACK + "; echo \"job exited with $?\"",
             r"job exited with 0",
             nodes=((5, "export TORCH_EXTENSIONS_DIR=$PWD/ext1 && env PET_NNODES=2 " + PET.replace("29810", "29811") +
                     " {py} -m torch.distributed.run " + PACK + "; echo \"job exited with $?\""),),
             prep="mkdir -p data && {py} make_corpus.py --out data/corpus.jsonl --docs 12000 > /dev/null",
             timeout=400),
    Scenario("torchrun-elastic-late-node-rejoin", "rendezvous_timeout", "pytorch",
             "export TORCH_EXTENSIONS_DIR=$PWD/ext0 LOGLEVEL=INFO && {bin}/torchrun --nnodes 1:2 --nproc-per-node 2 "
             "--rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29812 --rdzv-id lm-elastic --max-restarts 3 "
             + PACK.replace("--steps 200", "--steps 600") + "; echo \"job exited with $?\"",
             r"DistStoreError|RendezvousTimeoutError|timed out",
             nodes=((75, "export TORCH_EXTENSIONS_DIR=$PWD/ext1 LOGLEVEL=INFO && {bin}/torchrun --nnodes 1:2 "
                     "--nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29812 --rdzv-id lm-elastic "
                     "--max-restarts 3 " + PACK.replace("--steps 200", "--steps 600") +
                     "; echo \"job exited with $?\""),),
             prep="mkdir -p data && {py} make_corpus.py --out data/corpus.jsonl --docs 16000 > /dev/null",
             timeout=420),
    # --- Lightning Trainer (DDP on CPU processes) ----------------------------------------------------------------------
    Scenario("lightning-loader-decode-cache-cgroup-oom", "host_oom_killed", "lightning",
             "{py} train_pl_images.py --epochs 8 --batch 16 --decode-cache; echo \"job exited with $?\"",
             r"is killed by signal: Killed|exited unexpectedly",
             prep="mkdir -p data && {py} train_pl_images.py --make-data 2000 > /dev/null",
             memory=2_400_000_000, timeout=400),
    Scenario("lightning-sklearn-numpy-abi-mismatch", "library_version_mismatch", "lightning",
             "{py} train_pl_images.py --epochs 4 --batch 16; echo \"job exited with $?\"",
             r"numpy.dtype size changed",
             venv="j2", prep="mkdir -p data && {py} train_pl_images.py --make-data 1600 > /dev/null", timeout=300),
    Scenario("lightning-images-healthy", "no_failure", "lightning",
             "{py} train_pl_images.py --epochs 4 --batch 16; echo \"job exited with $?\"",
             r"job exited with 0",
             prep="mkdir -p data && {py} train_pl_images.py --make-data 1600 > /dev/null", timeout=300),
    # --- Slurm: sbatch + srun, torch.compile, two partitions -----------------------------------------------------------
    Scenario("slurm-compile-preempted-by-urgent-partition", "job_preempted", "slurm",
             "sbatch --wait train.sbatch --steps 3000 --step-sleep 0.05; "
             "echo \"sbatch exited with $?\"",
             r"DUE TO PREEMPTION|CANCELLED",
             slurm_out=True,
             trigger=(r"step 300/", "cmd:sbatch --partition urgent --job-name nightly-eval --ntasks 2 "
                                    "--output /dev/null --wrap 'sleep 90'"),
             timeout=500),
    Scenario("slurm-compile-scratch-full", "disk_full", "slurm",
             "SCRATCH=$PWD/scratch MAX_ATTEMPTS=1 sbatch --wait train.sbatch --steps 400; "
             "echo \"sbatch exited with $?\"",
             r"No space left on device",
             slurm_out=True, tmpfs=(("scratch", "64m", 63 * 2**20),), timeout=400),
    Scenario("slurm-compile-healthy", "no_failure", "slurm",
             "sbatch --wait train.sbatch --steps 400; echo \"sbatch exited with $?\"",
             r"training finished at",
             slurm_out=True, timeout=400),
    # --- Ray Train, Ray Serve, Ray Jobs CLI ----------------------------------------------------------------------------
    Scenario("raytrain-bf16-accum-summed-loss-inf", "training_divergence", "ray",
             "{py} ray_train_bf16.py --storage {job}/ray_results --loss-scaling sum --lr 0.02 --log-every 2; echo \"job exited with $?\"",
             r"non-finite loss",
             ray={"env": {}}, env={"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}, timeout=300),
    Scenario("raytrain-container-dev-shm-64m", "shm_exhausted", "ray",
             "{py} ray_train_images.py --records 800 --epochs 3; echo \"job exited with $?\"",
             r"unable to allocate shared memory|No space left on device",
             shm="64m", env={"RAY_TMPDIR": "/tmp/wavej-raylocal"}, timeout=300),
    Scenario("rayserve-replicas-cpu-unschedulable", "ray_scheduling_stall", "ray",
             "{py} embed_service.py --replicas 2 --cpus-per-replica 1.5 --threads 2 --requests 400",
             r"taken more than 30s to be scheduled",
             ray={"env": {}}, env={"RAY_ADDRESS": RAY_ADDRESS}, trigger=(200, "int"), timeout=300),
    Scenario("rayjob-data-seqpack-abort", "native_crash", "ray",
             "{submit} -- python pack_dataset.py --corpus corpus.jsonl --out {job}/packed",
             r"SIGABRT|Aborted|terminate",
             prep="cp seqpack.cpp make_corpus.py pack_dataset.py rayjob/ && cd rayjob && {py} make_corpus.py "
                  "--out corpus.jsonl --docs 20000 --unsplit-source wiki-dump --unsplit-at 13377 > /dev/null",
             ray={"env": {"TORCH_EXTENSIONS_DIR": "{job}/torch_extensions"}}, timeout=400),
    # --- accelerate launch + DeepSpeed + Hugging Face Trainer ----------------------------------------------------------
    Scenario("accelerate-deepspeed-hf-train-batch-size", "batch_size_mismatch", "deepspeed",
             "cat ds_config.json; {bin}/accelerate launch --use_deepspeed --deepspeed_config_file ds_config.json "
             "--num_processes 2 --num_machines 1 --main_process_port 29851 --mixed_precision no --dynamo_backend no "
             "finetune_cls.py --make_data 4000 --output_dir out --do_train --do_eval --per_device_train_batch_size 16 "
             "--gradient_accumulation_steps 2 --learning_rate 5e-4 --num_train_epochs 2 --logging_steps 10 "
             "--eval_strategy steps --eval_steps 50 --report_to none --seed 42; echo \"job exited with $?\"",
             r"mismatch TrainingArguments values|train_batch_size",
             timeout=300),
    # --- Lightning Fabric CLI ------------------------------------------------------------------------------------------
    Scenario("fabric-lm-terminal-closed", "terminal_hangup", "lightning",
             "TORCH_CPP_LOG_LEVEL=INFO {bin}/fabric run --accelerator cpu --strategy ddp --devices 2 --main-port 29860 "
             "fabric_lm.py --corpus data/corpus.jsonl --steps 1000; echo \"job exited with $?\"",
             r"death signal|got signal: 1",
             prep="mkdir -p data && {py} make_corpus.py --out data/corpus.jsonl --docs 8000 > /dev/null",
             trigger=(r"step 150/1000", "hup"), timeout=400),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"submit": SUBMIT, "mpi": MPI, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-wavej, and their descendants."""
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if any(RAY_DIR in part for part in (proc.info["cmdline"] or [])):
                found[proc.pid] = proc
                for c in proc.children(recursive=True):
                    found[c.pid] = c
    return list(found.values())


def stop_ray() -> None:
    for _ in range(5):
        procs = ray_procs()
        if not procs:
            return
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        time.sleep(1)


def start_ray(spec: dict, env: dict, job: Path, venv: str) -> None:
    renv = dict(env)
    renv.pop("RAY_ADDRESS", None)
    renv.update({k: v.replace("{job}", str(job)) for k, v in spec["env"].items()})
    for attempt in range(4):  # a start right after the previous cluster was killed sometimes fails; retry
        stop_ray()
        time.sleep(3)
        r = subprocess.run(f"{VENVS[venv] / 'ray'} {RAY_START}", shell=True, env=renv, capture_output=True,
                           text=True, timeout=120)
        if r.returncode == 0:
            break
        print(f"  ray start failed (attempt {attempt + 1}): {r.stderr.strip().splitlines()[-1:]}", flush=True)
    else:
        raise SystemExit("ray start failed")
    for _ in range(60):  # the job API answers once the dashboard and its agent are up
        with contextlib.suppress(Exception):
            with urllib.request.urlopen("http://127.0.0.1:8277/api/jobs/", timeout=2) as resp:
                if resp.status == 200:
                    break
        time.sleep(1)
    time.sleep(5)
    print("  ray cluster up", flush=True)


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
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)

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
    (job / "rayjob").mkdir()
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / Path(src).name)
    (job / "ds_config.json").write_text(DS_CONFIG)
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
               HF_HOME=str(job / "hf_home"), HF_HUB_OFFLINE="1", RAY_AUTH_MODE="disabled",
               TORCH_EXTENSIONS_DIR=str(job / "torch_extensions"), **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "RAY_ADDRESS"):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    if s.ray is not None:
        start_ray(s.ray, env, job, s.venv)
    cwd_job = job / "rayjob" if s.name.startswith("rayjob-") else job
    cmds = [(0, s.cmd), *s.nodes]
    cg = ""
    if s.memory:
        cgdir = own_memcg() / f"wavej-{s.name}"
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
    if s.slurm_out:
        ids = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout.split()
        if ids:  # this host's one-node cluster, started for these runs: cancel what the run left queued or running
            subprocess.run(["scancel", *ids])
    tracker.kill_all()
    for p, t in procs:
        p.wait()
        t.join(5)
    if s.ray is not None:
        stop_ray()
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
        dest = CORPUS / "logs" / f"run-wavej-{s.name}"
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
    return f"logs/run-wavej-{s.name}" if s.nodes else f"logs/run-wavej-{s.name}/job.log"


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
    from notes import NOTES  # noqa: E402  (what each committed run showed; written after the runs)

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
