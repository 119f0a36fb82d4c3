"""Generate part C of wave F (sealed batch ``heldout8``): real runs on CPU whose failure shapes the earlier waves
lack: an empty evaluation shard raising while the other ranks wait in the metrics all_reduce, predictions
all_gathered without padding, a learning-rate warmup to a peak that is too high (NaN after a few hundred steps,
checked by the script or left unchecked under DeepSpeed's WarmupLR), a straggler caught by ``monitored_barrier``,
a Lightning master port held by another program, kernel OOM kills of a Lightning rank and of an accelerate
DataLoader worker in a memory-limited cgroup, a second node that never starts (accelerate c10d rendezvous,
``torch.multiprocessing.spawn`` store), Ray Tune trials killed by Ray's memory monitor or waiting for GPUs that a
CPU cluster does not have, and healthy runs of torchrun, Lightning, accelerate and Ray Tune.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavef-job/<name>`` (this folder's scripts are
copied there), captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would, checks that the expected
signature is in the output (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavef-<name>/job.log`` and its row of ``corpus/manifest.d/wave-f-runs.csv``.

    python corpus/generators/wavef/generate.py --list
    python corpus/generators/wavef/generate.py --all
    python corpus/generators/wavef/generate.py --scenario torchrun-eval-empty-shard

Needs root (a tmpfs mount, a cgroup-v1 memory cgroup under this process's own) and the venv of
corpus/generators/wavec/README.md (accelerate, lightning, deepspeed next to the running interpreter; torch and ray
from the system site-packages).
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
from dataclasses import dataclass
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-f-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavef/generate.py"
SPLIT = "heldout8"
JOBS = Path("/tmp/wavef-job")
BIN = Path(sys.executable).parent
ACC = "{bin}/accelerate launch --multi_gpu --num_machines 1 --mixed_precision no --dynamo_backend no"
MEMCG = Path("/sys/fs/cgroup/memory")
SCRIPTS = ("job.py", "spawn.py", "train_pl.py", "train_acc.py", "ds_train.py", "ray_tune.py", "ray_actors.py")
# Ray's memory monitor threshold set 3 GiB above what the (shared) machine uses when the run starts
RAY_THRESHOLD = ("$({py} -c 'import psutil; m = psutil.virtual_memory(); "
                 "print(round((m.total - m.available + 3 * 2**30) / m.total, 3))')")

DS_CONFIGS = {
    "ds_warmup.json": '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 1,\n'
                      ' "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": 0.0001, "warmup_max_lr": 5.0,\n'
                      '               "warmup_num_steps": 1000, "warmup_type": "linear"}},\n'
                      ' "steps_per_print": 100}\n',
}


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {acc} are filled in
    expect: str  # regex the output must contain
    notes: str
    tmpfs: str = ""  # size of a tmpfs mounted at ./ckpt
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    signal_after: tuple = ()  # (regex or seconds since start, signal, SIGKILL the job this many s later or 0)
    timeout: int = 240


SCENARIOS = [
    # --- the training code raises on one rank while preparing a collective's input ----------------------------
    Scenario("torchrun-eval-empty-shard", "worker_exception", "pytorch",
             "torchrun --standalone --nproc-per-node 3 job.py --steps 45 --eval-every 40 --eval-size 2",
             r"ZeroDivisionError",
             "torchrun 3 ranks (gloo, CPU), logging-module lines per rank: the evaluation at step 40 splits a 2-record "
             "eval set by hand (records[rank::world]); rank 2 gets no record and raises ZeroDivisionError computing "
             "its mean eval loss, the tensor it would all_reduce; ranks 0 and 1 wait in that all_reduce, see the "
             "connection close, and torchrun reports rank 2 as the first failure"),
    Scenario("torchrun-ragged-allgather", "collective_mismatch", "pytorch",
             "torchrun --standalone --nproc-per-node 3 job.py --steps 50 --eval-every 40 --eval-size 8 --ragged-gather",
             r"collective mismatch|doesn't match expected size",
             "torchrun 3 ranks (gloo): at step 40 each rank all_gathers its eval predictions without padding; the "
             "8-record eval set gives shards of 3, 3 and 2, so the ranks pass tensors of different sizes; gloo's "
             "enforce fails ('Received data size doesn't match expected size. Is there a distributed collective "
             "mismatch') and aborts a rank (SIGABRT), the others see their peer go"),
    # --- divergence for real: LR warmup to a peak that is too high -------------------------------------------
    Scenario("torchrun-warmup-nan-check", "training_divergence", "pytorch",
             "torchrun --standalone --nproc-per-node 2 job.py --steps 200 --epochs 3 --warmup 900 --peak-lr 0.25 "
             "--check-finite --eval-every 50 --log-every 2 --sleep 0",
             r"FloatingPointError: loss is nan",
             "torchrun 2 ranks (gloo), SGD momentum 0.9 with a linear LR warmup from 0.01 towards 0.25 over 900 steps "
             "(a peak that is too high for this model): the loss grows and turns NaN after a few hundred steps; the "
             "script's finite check raises FloatingPointError('loss is nan at step N') and torchrun stops the job"),
    Scenario("deepspeed-warmuplr-loss-explodes", "training_divergence", "deepspeed",
             "cat ds_warmup.json; {bin}/deepspeed --num_gpus 2 --master_port 29861 ds_train.py --ds-config ds_warmup.json "
             "--steps 700 --log-every 5",
             r"loss \d{4,}\.\d+ lr",
             "DeepSpeed launcher + deepspeed.initialize (CPU accelerator, gloo), 2 processes, a three-Linear-layer "
             "regression with client SGD (momentum 0.9) and the config's WarmupLR scheduler towards warmup_max_lr 5.0 "
             "over 1000 steps (far too high): the loss falls to ~0.2 by step 50, then climbs as the LR grows and reaches "
             "thousands to ~1e5 by step 700 (it did not reach NaN/inf in this run); nothing checks it, the ranks "
             "log to step 700 and the launcher reports both processes exit successfully"),
    # --- a straggler caught by monitored_barrier ---------------------------------------------------------------
    Scenario("deepspeed-monitored-barrier-straggler", "collective_timeout", "deepspeed",
             "{bin}/deepspeed --num_gpus 3 --master_port 29862 job.py --steps 40 --eval-every 20 "
             "--straggler-rank 2 --straggler-sleep 90 --barrier-timeout 20",
             r"failed to pass monitoredBarrier",
             "DeepSpeed launcher, 3 processes of the gloo script: at the end of the epoch rank 2 spends 90 s "
             "'uploading epoch artifacts' before the end-of-epoch dist.monitored_barrier(timeout=20 s); rank 0's "
             "monitored_barrier raises 'Rank 2 failed to pass monitoredBarrier in 20000 ms', the launcher kills the "
             "other processes"),
    # --- ports, rendezvous -------------------------------------------------------------------------------------
    Scenario("lightning-master-port-held", "port_in_use", "lightning",
             "{py} -m http.server 29863 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 2; "
             "MASTER_ADDR=127.0.0.1 MASTER_PORT=29863 {py} train_pl.py --devices 2 --epochs 2; "
             "echo \"job exited with $?\"; kill %1",
             r"[Aa]ddress already in use|EADDRINUSE",
             "Lightning Trainer DDP 2 CPU processes with MASTER_PORT=29863 exported by the job script while another "
             "program (an HTTP server) listens on 127.0.0.1:29863: rank 0's TCPStore cannot bind the port", timeout=150),
    Scenario("accelerate-second-machine-missing", "rendezvous_timeout", "accelerate",
             "{acc} --num_processes 4 --num_machines 2 --machine_rank 0 --main_process_ip 127.0.0.1 "
             "--main_process_port 29864 --rdzv_backend c10d --rdzv_conf join_timeout=40 train_acc.py --steps 30; "
             "echo \"job exited with $?\"",
             r"RendezvousTimeoutError|[Tt]imed out|TimeoutError",
             "accelerate launch --num_machines 2 --num_processes 4 with the c10d rendezvous (join_timeout=40): only "
             "machine 0 is started (machine 1's job never began), its agent waits in the rendezvous and gives up "
             "after 40 s", timeout=200),
    Scenario("mpspawn-second-node-missing", "rendezvous_timeout", "pytorch",
             "MASTER_ADDR=127.0.0.1 MASTER_PORT=29865 {py} spawn.py --nnodes 2 --node-rank 0 --nprocs 2 --steps 30 "
             "--timeout 30",
             r"DistStoreError|[Tt]imed out|TimeoutError",
             "a hand-written 2-node launch with torch.multiprocessing.spawn (2 processes per node, world_size 4, "
             "init_process_group timeout 30 s): only node 0 runs (node 1's script never started); node 0's ranks "
             "wait for the others in the store and time out", timeout=200),
    # --- host memory ------------------------------------------------------------------------------------------
    Scenario("lightning-cgroup-oom", "host_oom_killed", "lightning",
             "{py} train_pl.py --devices 2 --epochs 6 --leak-rank 1 --leak-step 40",
             r"feature cache",
             "Lightning Trainer DDP 2 CPU processes inside a cgroup-v1 memory cgroup limited to 1.6 GB (a container "
             "limit): from step 40 rank 1 keeps a 64 MiB feature cache per step until the kernel OOM killer SIGKILLs "
             "it (no Python error from rank 1); rank 0 loses its peer in the next collective",
             memory=1_600_000_000, timeout=180),
    Scenario("accelerate-loader-worker-cgroup-oom", "host_oom_killed", "accelerate",
             "{acc} --num_processes 2 --main_process_port 29866 train_acc.py --steps 60 --workers 2 --leak-rank 1",
             r"killed by signal|exited unexpectedly|exitcode\s*: -9",
             "accelerate launch 2 CPU processes, 2 DataLoader workers per rank, inside a memory cgroup limited to "
             "1.8 GB: rank 1's workers keep every record they load (8 MiB each) in a module-level cache until the "
             "kernel OOM killer SIGKILLs a worker; the rank raises 'DataLoader worker (pid N) is killed by signal: "
             "Killed.' and the launcher stops the other rank", memory=1_800_000_000, timeout=180),
    Scenario("raytune-memory-monitor", "host_oom_killed", "ray",
             "RAY_memory_usage_threshold=" + RAY_THRESHOLD + " RAY_memory_monitor_refresh_ms=250 "
             "{py} ray_tune.py --iters 40 --trials 4 --cache-mb 128 --sleep 0.3",
             r"low on memory|OutOfMemoryError|memory usage threshold",
             "Ray Tune lr sweep, 4 trials (1 CPU each) on a 2-CPU local Ray cluster, each trial keeps a 128 MiB "
             "'replay buffer' per iteration; RAY_memory_usage_threshold is set 3 GiB above the node's usage at start: "
             "within seconds Ray's memory monitor kills the running trial workers ('OutOfMemoryError: N worker(s) were "
             "killed due to the node running low on memory ... exceeded threshold', with its top-memory-users table, "
             "which lists whatever else ran on the shared machine) and Tune's controller fails: tuner.fit() raises "
             "'RuntimeError: Caught unexpected exception: N worker(s) were killed due to the node running low on "
             "memory'", timeout=300),
    # --- Ray scheduling ----------------------------------------------------------------------------------------
    Scenario("raytune-gpu-trials-pending", "ray_scheduling_stall", "ray",
             "{py} ray_tune.py --iters 20 --trials 3 --gpus-per-trial 1",
             r"PENDING|[Ii]nsufficient|cannot be scheduled|[Ii]nfeasible|resources",
             "Ray Tune lr sweep, 3 trials each asking for 1 CPU + 1 GPU on a CPU-only local Ray cluster: no trial "
             "can be placed: the trials stay PENDING, the autoscaler reports 'No available node types can fulfill "
             "resource request' and Tune warns after 60 s that no trial has started; the user interrupts the driver "
             "(SIGINT) after 100 s, Tune saves the experiment state and the script's get_best_result() raises "
             "RuntimeError 'No best trial found'",
             signal_after=(100.0, signal.SIGINT, 40), timeout=240),
    # =========================== second round ===========================================================
    Scenario("lightning-epoch-end-straggler", "collective_timeout", "lightning",
             "{py} train_pl.py --devices 2 --epochs 3 --slow-rank 1 --slow-seconds 90 --pg-timeout 30",
             r"[Tt]imed out|[Tt]imeout",
             "Lightning Trainer DDP 2 CPU processes, DDPStrategy(timeout=30 s): at the end of epoch 0 rank 1 spends "
             "90 s 'exporting embeddings' in on_train_epoch_end while rank 0 starts epoch 1 and waits in DDP's "
             "gradient all_reduce; after 30 s gloo fails rank 0's all_reduce ('Application timeout caused pair closure') and the job stops", timeout=200),
    Scenario("rayactors-cgroup-oom", "host_oom_killed", "ray",
             "{py} ray_actors.py --workers 2 --iters 60 --leak-rank 1 --cache-mb 96 --sleep 0.2",
             r"OOM|SIGKILL|died|exits unexpectedly|ActorDiedError",
             "plain Ray actors (2 Learner actors, 1 CPU each) driven by a parameter-averaging loop, the whole local "
             "Ray cluster inside a cgroup-v1 memory cgroup limited to 2.5 GB: learner 1 keeps 96 MiB of rollout "
             "history per iteration until the kernel OOM killer SIGKILLs its worker process; the driver, waiting in "
             "ray.get, gets ActorDiedError", memory=2_500_000_000, timeout=240),
    Scenario("rayactors-strict-spread-pg", "ray_scheduling_stall", "ray",
             "{py} ray_actors.py --workers 2 --iters 30 --strategy STRICT_SPREAD --pg-timeout 90",
             r"not ready after|PENDING|cannot be scheduled|[Ii]nfeasible",
             "plain Ray actors: 2 Learner actors placed through a placement group with 2 x {CPU: 1} bundles and "
             "strategy STRICT_SPREAD (one bundle per node) on a single-node local cluster: the group can never be "
             "placed; the driver waits 90 s for pg.ready() and raises TimeoutError with the placement group table "
             "(state PENDING); Ray itself prints nothing about it in the driver's output", timeout=200),
    Scenario("lightning-corrupt-record-collate", "worker_exception", "lightning",
             "{py} train_pl.py --devices 2 --epochs 4 --bad-record 1000",
             r"stack expects each tensor to be equal size",
             "Lightning Trainer DDP 2 CPU processes, 4 epochs: training record 1000 has an empty target (a corrupt "
             "row); with shuffling, the batch holding it fails in default_collate on one rank (rank 0 in this run, "
             "epoch 0: 'RuntimeError: stack "
             "expects each tensor to be equal size'); the other rank loses its peer and the job stops", timeout=150),
    Scenario("raytune-unknown-optimizer-trials", "worker_exception", "ray",
             "{py} ray_tune.py --iters 15 --trials 2 --optimizers sgd,adamw,lamb --sleep 0.1",
             r"KeyError: 'lamb'",
             "Ray Tune sweep over 2 learning rates x 3 optimizer names on a 2-CPU local Ray cluster; the trainable "
             "builds the optimizer from a dict that has no 'lamb' entry: the 2 lamb trials raise KeyError: 'lamb' at "
             "start and end in ERROR while the 4 others finish; Tune logs 'Trials did not complete: [...]', the script "
             "prints the best of the finished trials and the driver exits 0",
             timeout=300),
    # --- healthy runs ------------------------------------------------------------------------------------------
    Scenario("torchrun-healthy-eval", "no_failure", "pytorch",
             "torchrun --standalone --nproc-per-node 3 job.py --steps 60 --epochs 2 --eval-every 20 --log-every 2; "
             "echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: torchrun 3 ranks (gloo, CPU), 2 epochs of 60 steps, an all_reduced evaluation every 20 steps "
             "and an end-of-epoch monitored_barrier; exits 0"),
    Scenario("lightning-healthy-val-ckpt", "no_failure", "lightning",
             "{py} train_pl.py --devices 2 --epochs 4; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Lightning Trainer DDP 2 CPU processes, 4 epochs, validation every 16 steps with sync_dist, "
             "ModelCheckpoint(top 2 by val_loss), TQDM progress bar and a logging line every 2 steps; exits 0"),
    Scenario("accelerate-healthy-grad-accum", "no_failure", "accelerate",
             "{acc} --num_processes 2 --main_process_port 29867 train_acc.py --steps 60 --accum 2 --workers 2; "
             "echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: accelerate launch 2 CPU processes, gradient accumulation 2, 2 DataLoader workers per rank, "
             "a reduced mean loss per update, save_state at the end; exits 0"),
    Scenario("raytune-healthy-sweep", "no_failure", "ray",
             "{py} ray_tune.py --iters 20 --trials 4 --sleep 0.1; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Ray Tune lr sweep, 4 trials x 20 iterations (1 CPU each) on a 2-CPU local Ray cluster, "
             "trial status tables and forwarded trial logs; prints the best trial and exits 0", timeout=300),
]


def fill(cmd: str) -> str:
    for k, v in {"acc": ACC, "py": sys.executable, "bin": str(BIN)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def kill_job(pid: int) -> None:
    """SIGKILL the job's process group and every descendant (``timeout`` and Ray start groups of their own)."""
    with contextlib.suppress(psutil.Error):
        procs = psutil.Process(pid).children(recursive=True)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        for c in procs:
            with contextlib.suppress(psutil.Error):
                c.kill()


def kill_leftovers(sid: int) -> None:
    """SIGKILL what the job left behind in its session after the shell exited (a rank whose launcher died first,
    orphaned and re-parented to init, e.g. a Lightning rank 1 still connecting to a store that never answers)."""
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if proc.pid != sid and os.getsid(proc.pid) == sid:
                proc.kill()


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        subprocess.run(["umount", str(job / "ckpt")], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / src)
    for name, text in DS_CONFIGS.items():
        (job / name).write_text(text)
    if s.tmpfs:
        (job / "ckpt").mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={s.tmpfs}", "tmpfs", str(job / "ckpt")], check=True)
    cmd, cg = fill(s.cmd), ""
    if s.memory:
        cgdir = own_memcg() / f"wavef-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
        cmd = f"echo $$ > {cg}/cgroup.procs; {cmd}"
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    out = bytearray()
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    start, fired = time.time(), 0.0
    while p.poll() is None and time.time() - start < s.timeout:
        time.sleep(0.2)
        if s.signal_after and not fired:
            when, sig, kill_after = s.signal_after
            due = (time.time() - start >= when) if isinstance(when, float) else re.search(when, out.decode(errors="replace"))
            if due:
                fired = time.time()
                os.killpg(p.pid, sig)
        elif fired and time.time() - fired >= s.signal_after[2]:
            break
    if p.poll() is None:
        kill_job(p.pid)
    p.wait()
    kill_leftovers(p.pid)
    reader.join(5)
    if s.tmpfs:
        subprocess.run(["umount", str(job / "ckpt")])
    if cg:
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    if s.ecosystem == "ray":  # a driver killed by the generator leaves the local cluster running
        subprocess.run([shutil.which("ray") or "ray", "stop", "--force"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None
    (job / "output.log").write_bytes(out)  # kept for a look at a MISSING run
    if ok:
        dest = CORPUS / "logs" / f"run-wavef-{s.name}"
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, {len(out)} bytes, "
          f"rc {p.returncode}, {time.time() - start:.0f} s)", flush=True)
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
            print(f"{s.name:40} {s.label:22} {s.ecosystem}")
        return
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        ok = (CORPUS / "logs" / f"run-wavef-{s.name}" / "job.log").exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        key = f"logs/run-wavef-{s.name}/job.log"
        if ok:
            rows[key] = [key, s.label, SOURCE, s.notes, SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
