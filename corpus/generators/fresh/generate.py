"""Generate the fresh held-out batch of real failure logs (native crashes, host allocation failures, diverging
loss, full filesystem on checkpoint save, healthy runs) under real launchers: torchrun, a plain shell, accelerate
launch, Lightning's DDP launcher and the DeepSpeed launcher, all on CPU with gloo.

Each scenario runs one shell command in a fresh job directory ``/tmp/fresh-job/<name>`` (the scripts are copied
there as ``train.py`` / ``train_pl.py`` / ``train_acc.py``), captures stdout+stderr combined as ``cmd 2>&1 | tee
job.log`` would, checks that the injected fault's signature is in the output (else MISSING, exit 1) and writes
``corpus/logs/fresh-<name>/job.log`` plus the rows of ``corpus/manifest.d/fresh-gen-<wave>.csv``.

    python corpus/generators/fresh/generate.py --list
    python corpus/generators/fresh/generate.py --wave a          # every wave-A scenario
    python corpus/generators/fresh/generate.py --scenario torchrun-segv

Needs root for the ``disk-*`` scenarios (a private 2-4 MiB tmpfs is mounted as the checkpoint directory and
unmounted afterwards). accelerate, lightning and deepspeed are looked up next to the running interpreter
(``python -m venv --system-site-packages`` + ``pip install accelerate lightning deepspeed`` is enough).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
LOGS = CORPUS / "logs"
SOURCE = "corpus/generators/fresh/generate.py"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem")
SPLIT = {"a": "heldout3", "b": "heldout4"}
JOBS = Path("/tmp/fresh-job")
BIN = Path(sys.executable).parent
DISK_FULL = r"No space left|file write failed|iostream error|unexpected pos|Errno 28|requested and \d+ written"
TR = "torchrun --nproc-per-node {n} --standalone"


@dataclass
class Scenario:
    name: str
    wave: str
    label: str
    ecosystem: str
    cmd: str  # run by bash in the job dir; {py} {bin} {tr2} {tr3} {tr4} are filled in
    expect: str  # regex the output must contain
    notes: str
    tmpfs: str = ""  # size of a tmpfs mounted at ./ckpt for the run
    timeout: int = 240


def _s(*a, **k) -> Scenario:
    return Scenario(*a, **k)


SCENARIOS = [
    # --- native crashes -------------------------------------------------------------------------------------
    _s("torchrun-segv", "a", "native_crash", "pytorch",
       "{tr4} train.py --steps 30 --fault segv --fault-rank 2 --fault-step 14", r"exitcode\s*: -11",
       "torchrun 4 ranks (gloo, CPU): rank 2 reads address 0 through ctypes.string_at at step 14 -> SIGSEGV; torchrun reports exitcode -11 and SIGTERMs the others"),
    _s("torchrun-abort", "a", "native_crash", "pytorch",
       "{tr2} train.py --steps 30 --fault abort --fault-rank 1 --fault-step 9", r"exitcode\s*: -6",
       "torchrun 2 ranks: rank 1 calls os.abort() at step 9 -> SIGABRT (exitcode -6)"),
    _s("torchrun-sigbus", "a", "native_crash", "pytorch",
       "{tr3} train.py --steps 30 --fault sigbus --fault-rank 0 --fault-step 11", r"exitcode\s*: -7",
       "torchrun 3 ranks: rank 0 touches an mmap'd shard file after it was truncated -> SIGBUS (exitcode -7)"),
    _s("torchrun-fatal-python", "a", "native_crash", "pytorch",
       "{tr2} train.py --steps 30 --fault fatal --fault-rank 1 --fault-step 17", r"Fatal Python error: Segmentation fault",
       "torchrun 2 ranks, faulthandler enabled: rank 1 segfaults in ctypes.string_at at step 17; faulthandler prints 'Fatal Python error: Segmentation fault' and the thread stacks"),
    _s("shell-segv", "a", "native_crash", "shell",
       "MASTER_ADDR=127.0.0.1 MASTER_PORT=29911 RANK=0 WORLD_SIZE=1 {py} train.py --steps 30 --fault segv --fault-rank 0 --fault-step 21; echo \"train.py exited with status $?\"",
       r"Segmentation fault|status 139",
       "single process started by a bash script (no launcher): SIGSEGV through ctypes.string_at(0) at step 21; bash reports the signal and the exit status 139"),
    _s("accelerate-segv", "a", "native_crash", "accelerate",
       "{bin}/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no train_acc.py --steps 30 --fault segv --fault-rank 1 --fault-step 12",
       r"SIGSEGV|-11", "accelerate launch 2 CPU processes: rank 1 segfaults (ctypes.string_at(0)) at step 12"),
    _s("lightning-segv-faulthandler", "a", "native_crash", "lightning",
       "PYTHONFAULTHANDLER=1 {py} train_pl.py --devices 2 --steps 30 --fault segv --fault-rank 1 --fault-step 10",
       r"Fatal Python error: Segmentation fault",
       "Lightning Trainer, DDP on 2 CPU processes (Lightning's own subprocess launcher), PYTHONFAULTHANDLER=1: rank 1 segfaults (ctypes.string_at(0)) in training_step at step 10; faulthandler prints 'Fatal Python error: Segmentation fault' with the stacks; rank 0 then loses its peer in the next sync"),
    _s("lightning-segv-silent", "a", "peer_process_died", "lightning",
       "{py} train_pl.py --devices 2 --steps 30 --fault segv --fault-rank 1 --fault-step 10", r"(closed|reset) by peer",
       "Lightning Trainer DDP 2 CPU processes, no faulthandler: rank 1 segfaults (injected) at step 10 but Lightning's subprocess launcher prints nothing about the child's signal; the only failure in the log is rank 0's gloo 'Connection closed/reset by peer' (the taxonomy's peer_process_died: the first failure itself is not in the log)"),
    _s("deepspeed-abort", "a", "native_crash", "deepspeed",
       "{bin}/deepspeed --num_gpus 2 train.py --steps 30 --fault abort --fault-rank 0 --fault-step 8", r"return code = -6",
       "DeepSpeed launcher (CPU accelerator), 2 processes running the gloo script: rank 0 calls os.abort() at step 8 (SIGABRT); rank 1 then loses its peer; the launcher kills both and reports return code -6 on the command line of the last process it looped over (local_rank=1), not of the one that aborted"),
    # --- host memory (MemoryError family) ---------------------------------------------------------------------
    _s("torchrun-memoryerror", "a", "host_oom_killed", "pytorch",
       "{tr2} train.py --steps 30 --fault memoryerror --fault-rank 1 --fault-step 10", r"MemoryError",
       "torchrun 2 ranks: rank 1 asks for a 64 GiB bytearray on a 23 GiB host (no overcommit of that size) -> Python MemoryError; host memory, no OOM killer line"),
    _s("torchrun-numpy-alloc", "a", "host_oom_killed", "pytorch",
       "{tr3} train.py --steps 30 --fault numpy --fault-rank 0 --fault-step 6", r"Unable to allocate",
       "torchrun 3 ranks: rank 0 builds a 300k x 300k float32 numpy matrix -> numpy ArrayMemoryError 'Unable to allocate 335. GiB'"),
    _s("torchrun-torch-alloc-ulimit", "a", "host_oom_killed", "pytorch",
       "ulimit -v 12000000; {tr2} train.py --steps 30 --fault torch-alloc --fault-rank 1 --fault-step 13", r"can't allocate memory",
       "torchrun 2 ranks under ulimit -v 12000000 (KiB): rank 1 torch.empty of 48 GiB -> DefaultCPUAllocator: can't allocate memory"),
    # --- divergence -------------------------------------------------------------------------------------------
    _s("torchrun-nan-check", "a", "training_divergence", "pytorch",
       "{tr2} train.py --steps 40 --lr 30 --nan-check raise", r"Loss is NaN",
       "torchrun 2 ranks: SGD lr=30 makes the MSE loss explode to inf/nan within a few steps; the training loop's finiteness check raises ValueError('Loss is NaN or Inf ...') on every rank"),
    _s("torchrun-log-zero", "a", "training_divergence", "pytorch",
       "{tr4} train.py --steps 30 --fault log-zero --fault-step 9 --nan-check exit", r"Loss is (nan|inf)",
       "torchrun 4 ranks: from step 9 the loss takes log of saturated sigmoid outputs (log 0 = -inf); the loop prints 'Loss is inf/nan, stopping training' and sys.exit(1) (the check DINO/MAE-style loops use)"),
    _s("torchrun-scale-collapse", "a", "training_divergence", "pytorch",
       "{tr2} train.py --steps 60 --fault scale-collapse --fault-step 5 --nan-check none", r"fell below",
       "torchrun 2 ranks with torch.amp.GradScaler('cpu'): from step 5 an overflowing loss term makes every gradient inf, GradScaler skips the step and halves the scale each step (65536 -> below 1e-4); the loop raises when the scale falls below 1e-4"),
    _s("torchrun-nan-unchecked", "a", "training_divergence", "pytorch",
       "{tr3} train.py --steps 40 --lr 40 --nan-check none", r"loss nan",
       "torchrun 3 ranks: lr=40 diverges to nan loss at once and nothing checks it: the job logs 'loss nan' for every remaining step and exits 0 (diverged run, finished uselessly)"),
    _s("lightning-nan-earlystop", "a", "training_divergence", "lightning",
       "{py} train_pl.py --devices 2 --steps 60 --samples 512 --lr 40 --early-stop", r"not finite",
       "Lightning Trainer DDP 2 CPU processes, lr=40: loss becomes nan; EarlyStopping(check_finite=True) on train_loss reports the metric is not finite and stops the run"),
    # --- disk full ---------------------------------------------------------------------------------------------
    _s("torchrun-disk-torchsave", "a", "disk_full", "pytorch",
       "{tr2} train.py --steps 30 --hidden 4096 --lr 0.002 --ckpt-dir ckpt --ckpt-every 5", DISK_FULL,
       "torchrun 2 ranks: rank 0 torch.save()s a 0.56 MB checkpoint every 5 steps into ./ckpt, a 2 MiB tmpfs; the fourth save (step 20) hits ENOSPC and torch 2.13 reports it only as 'basic_ios::clear: iostream error' then '[enforce fail at inline_container.cc] unexpected pos' (no errno text)", tmpfs="2m"),
    _s("torchrun-disk-json", "a", "disk_full", "pytorch",
       "{tr3} train.py --steps 30 --ckpt-dir ckpt --ckpt-every 5 --fault disk-json", r"No space left on device",
       "torchrun 3 ranks: rank 0 writes trainer_state.json + checkpoint every 5 steps into ./ckpt, a 1 MiB tmpfs; json.dump fails with OSError [Errno 28] No space left on device", tmpfs="1m"),
    _s("lightning-disk-ckpt", "a", "disk_full", "lightning",
       "{py} train_pl.py --devices 2 --steps 40 --hidden 2048 --lr 0.002 --ckpt-dir ckpt", DISK_FULL,
       "Lightning Trainer DDP 2 CPU processes, ModelCheckpoint(every_n_train_steps=10) into ./ckpt, a 1 MiB tmpfs -> checkpoint save fails (no space)", tmpfs="1m"),
    _s("accelerate-disk-save-state", "a", "disk_full", "accelerate",
       "{bin}/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no train_acc.py --steps 30 --hidden 4096 --lr 0.002 --ckpt-dir ckpt --ckpt-every 10",
       DISK_FULL,
       "accelerate launch 2 CPU processes: accelerator.save_state() every 10 steps into ./ckpt, a 1 MiB tmpfs -> the save fails (no space)", tmpfs="1m"),
    # --- healthy -----------------------------------------------------------------------------------------------
    _s("torchrun-healthy-ckpt", "a", "no_failure", "pytorch",
       "{tr4} train.py --steps 30 --ckpt-dir ckpt --ckpt-every 10", r"training finished",
       "healthy: torchrun 4 ranks, 30 steps, checkpoints every 10 steps into a 16 MiB tmpfs, exits 0", tmpfs="16m"),
    _s("lightning-healthy", "a", "no_failure", "lightning",
       "{py} train_pl.py --devices 2 --steps 30", r"max_steps=30|Trainer.fit. stopped",
       "healthy: Lightning Trainer DDP 2 CPU processes, 30 steps, exits 0"),
    # ===================================== wave B (heldout4) =====================================================
    _s("torchrun-sigill", "a", "native_crash", "pytorch",
       "{tr3} train.py --steps 30 --fault sigill --fault-rank 2 --fault-step 16", r"exitcode\s*: -4",
       "torchrun 3 ranks: rank 2 jumps into a page holding one undefined instruction (ud2), as a kernel built for a newer instruction set does -> SIGILL (exitcode -4)"),
    _s("torchrun-bad-free", "a", "native_crash", "pytorch",
       "{tr2} train.py --steps 30 --fault bad-free --fault-rank 0 --fault-step 7", r"free\(\): invalid pointer",
       "torchrun 2 ranks: rank 0 calls libc free() on a pointer it does not own (as a buggy extension does); glibc prints 'free(): invalid pointer' and aborts (exitcode -6)"),
    _s("deepspeed-segv", "b", "native_crash", "deepspeed",
       "{bin}/deepspeed --num_gpus 3 train.py --steps 30 --fault segv --fault-rank 1 --fault-step 11", r"return code = -11",
       "DeepSpeed launcher (CPU accelerator), 3 processes of the gloo script: rank 1 segfaults (ctypes.string_at(0)) at step 11; the launcher kills the rest and reports return code -11"),
    _s("mpspawn-segv", "a", "native_crash", "pytorch",
       "MASTER_PORT=29651 {py} spawn.py --nprocs 3 --steps 30 --fault segv --fault-rank 2 --fault-step 9", r"SIGSEGV",
       "torch.multiprocessing.spawn with 3 processes (no launcher): rank 2 segfaults at step 9; the parent raises ProcessExitedException 'process 2 terminated with signal SIGSEGV'"),
    _s("accelerate-abort", "b", "native_crash", "accelerate",
       "{bin}/accelerate launch --multi_gpu --num_processes 3 --num_machines 1 --mixed_precision no --dynamo_backend no train_acc.py --steps 30 --fault abort --fault-rank 2 --fault-step 14",
       r"SIGABRT|-6", "accelerate launch, 3 CPU processes (gloo): rank 2 calls os.abort() at step 14 -> SIGABRT; torchrun (inside accelerate) reports exitcode -6"),
    _s("ray-actor-segv", "b", "native_crash", "ray",
       "{py} ray_actor.py --fault segv --fault-step 6 --steps 12", r"ActorDiedError|SIGSEGV",
       "local Ray cluster: the learner actor segfaults (ctypes.string_at(0)) in its 6th train_step; Ray reports the actor's death and the driver's ray.get raises ActorDiedError", timeout=300),
    _s("accelerate-nan", "a", "training_divergence", "accelerate",
       "{bin}/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no train_acc.py --steps 40 --lr 30",
       r"Loss is (nan|inf)", "accelerate launch, 2 CPU processes: SGD lr=30 diverges within a few steps; the loop's check raises ValueError('Loss is nan ...') on both ranks"),
    _s("lightning-nan-unchecked", "b", "training_divergence", "lightning",
       "{py} train_pl.py --devices 2 --steps 40 --lr 40", r"loss nan",
       "Lightning Trainer DDP 2 CPU processes, lr=40, no EarlyStopping: the loss goes inf then nan from step 3 and the run keeps training until max_steps, exits 0 (a diverged run that finished uselessly)"),
    _s("torchrun-inf-batch", "b", "training_divergence", "pytorch",
       "{tr4} train.py --steps 30 --fault inf-batch --fault-rank 3 --fault-step 15 --nan-check raise", r"Loss is NaN",
       "torchrun 4 ranks: one sample of rank 3's step-15 batch holds inf (a corrupt record), rank 3's loss is nan and the loop's finiteness check raises ValueError('Loss is NaN or Inf ...') there; the other ranks then lose their peer in the gradient all_reduce"),
    _s("deepspeed-nan", "b", "training_divergence", "deepspeed",
       "{bin}/deepspeed --num_gpus 2 train.py --steps 40 --lr 30 --nan-check exit", r"Loss is (nan|inf)",
       "DeepSpeed launcher, 2 processes of the gloo script, lr=30: the loss diverges to inf/nan and the loop prints 'Loss is nan, stopping training' and exits 1; the launcher reports return code 1"),
    _s("torchrun-disk-numpy", "b", "disk_full", "pytorch",
       "{tr2} train.py --steps 30 --ckpt-dir ckpt --ckpt-every 10 --fault disk-numpy", DISK_FULL,
       "torchrun 2 ranks: rank 0 np.save()s 1.6 MB of eval predictions with each checkpoint into ./ckpt, a 2 MiB tmpfs; the second save hits ENOSPC, which numpy reports only as 'OSError: 200000 requested and N written' (no errno text)", tmpfs="2m"),
    _s("torchrun-disk-logfile", "b", "disk_full", "pytorch",
       "{tr2} train.py --steps 150 --sleep 0.01 --log-file ckpt/train_rank{rank}.log", DISK_FULL,
       "torchrun 2 ranks, 150 steps, each rank's logging also goes to a FileHandler under ./ckpt, a 4 KiB tmpfs: once it is full every record prints '--- Logging error ---' with OSError [Errno 28] No space left on device; training itself finishes", tmpfs="4k"),
    _s("shell-tee-full", "b", "disk_full", "shell",
       "{tr2} train.py --steps 40 2>&1 | tee ckpt/console.log", r"No space left on device",
       "torchrun 2 ranks piped through 'tee ckpt/console.log' where ./ckpt is a 4 KiB tmpfs: tee reports 'No space left on device' and the console copy of the log is lost; the job itself finishes", tmpfs="4k"),
    _s("deepspeed-disk-torchsave", "b", "disk_full", "deepspeed",
       "{bin}/deepspeed --num_gpus 2 train.py --steps 30 --hidden 4096 --lr 0.002 --ckpt-dir ckpt --ckpt-every 5", DISK_FULL,
       "DeepSpeed launcher, 2 processes of the gloo script: rank 0 torch.save()s a 0.56 MB checkpoint every 5 steps into a 2 MiB tmpfs; the fourth save hits ENOSPC (torch reports 'iostream error' / 'unexpected pos'); the launcher reports return code 1", tmpfs="2m"),
    _s("deepspeed-memoryerror", "b", "host_oom_killed", "deepspeed",
       "{bin}/deepspeed --num_gpus 2 train.py --steps 30 --fault memoryerror --fault-rank 0 --fault-step 12", r"MemoryError",
       "DeepSpeed launcher, 2 processes: rank 0 asks for a 64 GiB bytearray on a 23 GiB host -> Python MemoryError (host memory; no OOM killer line); the launcher reports return code 1"),
    _s("mpspawn-numpy-alloc", "b", "host_oom_killed", "pytorch",
       "MASTER_PORT=29652 {py} spawn.py --nprocs 2 --steps 30 --fault numpy --fault-rank 1 --fault-step 5", r"Unable to allocate",
       "torch.multiprocessing.spawn 2 processes: rank 1 builds a 300k x 300k float32 matrix -> numpy ArrayMemoryError 'Unable to allocate 335. GiB'; the parent re-raises it as ProcessRaisedException"),
    _s("ray-actor-abort", "b", "native_crash", "ray",
       "{py} ray_actor.py --fault abort --fault-step 8 --steps 12", r"ActorDiedError|SIGABRT",
       "local Ray cluster: the learner actor calls os.abort() (SIGABRT) in its 8th train_step; the driver's ray.get raises ActorDiedError", timeout=300),
    _s("shell-abort", "b", "native_crash", "shell",
       "MASTER_ADDR=127.0.0.1 MASTER_PORT=29912 RANK=0 WORLD_SIZE=1 {py} train.py --steps 30 --fault abort --fault-rank 0 --fault-step 13; echo \"train.py exited with status $?\"",
       r"Aborted|status 134", "single process started by a bash script: os.abort() at step 13 (SIGABRT); bash reports 'Aborted' and exit status 134"),
    _s("deepspeed-sigbus", "b", "native_crash", "deepspeed",
       "{bin}/deepspeed --num_gpus 2 train.py --steps 30 --fault sigbus --fault-rank 1 --fault-step 10", r"return code = -7",
       "DeepSpeed launcher, 2 processes: rank 1 touches an mmap'd shard after the file was truncated -> SIGBUS; launcher reports return code -7"),
    _s("lightning-abort-faulthandler", "b", "native_crash", "lightning",
       "PYTHONFAULTHANDLER=1 {py} train_pl.py --devices 2 --steps 30 --fault abort --fault-rank 0 --fault-step 12",
       r"Fatal Python error: Aborted",
       "Lightning Trainer DDP 2 CPU processes with PYTHONFAULTHANDLER=1: rank 0 calls os.abort() in training_step at step 12; faulthandler prints 'Fatal Python error: Aborted' and the stacks"),
    _s("accelerate-memoryerror", "b", "host_oom_killed", "accelerate",
       "{bin}/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no train_acc.py --steps 30 --fault memoryerror --fault-rank 1 --fault-step 9",
       r"MemoryError", "accelerate launch 2 CPU processes: rank 1 asks for a 64 GiB bytearray on a 23 GiB host -> Python MemoryError; torchrun (inside accelerate) reports exitcode 1"),
    _s("mpspawn-nan", "b", "training_divergence", "pytorch",
       "MASTER_PORT=29654 {py} spawn.py --nprocs 2 --steps 40 --lr 30 --nan-check raise", r"Loss is NaN",
       "torch.multiprocessing.spawn 2 processes, SGD lr=30: the loss diverges and the loop's check raises ValueError('Loss is NaN or Inf ...'); the parent re-raises it as ProcessRaisedException"),
    _s("mpspawn-disk", "b", "disk_full", "pytorch",
       "MASTER_PORT=29655 {py} spawn.py --nprocs 2 --steps 30 --ckpt-dir ckpt --ckpt-every 5 --fault disk-json", DISK_FULL,
       "torch.multiprocessing.spawn 2 processes: rank 0 writes trainer_state.json + checkpoint every 5 steps into a 1 MiB tmpfs; the write fails with [Errno 28] No space left on device", tmpfs="1m"),
    _s("ray-actor-nan", "b", "training_divergence", "ray",
       "{py} ray_actor.py --lr 20 --steps 40", r"loss is (nan|inf)",
       "local Ray cluster, learner actor with SGD lr=20: the loss diverges to inf/nan and the driver's finiteness check raises RuntimeError('learner loss is nan ...')", timeout=300),
    _s("accelerate-healthy", "b", "no_failure", "accelerate",
       "{bin}/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no train_acc.py --steps 40 --ckpt-dir ckpt --ckpt-every 20",
       r"training finished", "healthy: accelerate launch 2 CPU processes, 40 steps, save_state at 20 and 40 into a 16 MiB tmpfs, exits 0", tmpfs="16m"),
    _s("deepspeed-healthy", "a", "no_failure", "deepspeed",
       "{bin}/deepspeed --num_gpus 3 train.py --steps 30", r"training finished",
       "healthy: DeepSpeed launcher (CPU accelerator), 3 processes of the gloo script, 30 steps, exits 0"),
    _s("mpspawn-healthy", "a", "no_failure", "pytorch",
       "MASTER_PORT=29653 {py} spawn.py --nprocs 2 --steps 40", r"training finished",
       "healthy: torch.multiprocessing.spawn 2 processes, 40 steps, exits 0"),
    _s("ray-actor-healthy", "b", "no_failure", "ray",
       "{py} ray_actor.py --steps 15", r"training finished",
       "healthy: local Ray cluster, one learner actor, 15 train_step calls, driver shuts Ray down, exits 0", timeout=300),
]


def fill(cmd: str) -> str:
    py = sys.executable
    subs = {"py": py, "bin": str(BIN), "tr2": TR.format(n=2), "tr3": TR.format(n=3), "tr4": TR.format(n=4)}
    for k, v in subs.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        subprocess.run(["umount", str(job / "ckpt")], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src, dst in (("workload.py", "train.py"), ("train_pl.py", "train_pl.py"), ("train_acc.py", "train_acc.py"),
                     ("spawn.py", "spawn.py"), ("ray_actor.py", "ray_actor.py")):
        shutil.copy(HERE / src, job / dst)
    if s.tmpfs:
        (job / "ckpt").mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={s.tmpfs}", "tmpfs", str(job / "ckpt")], check=True)
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    try:
        p = subprocess.run(["bash", "-c", fill(s.cmd)], cwd=job, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=s.timeout)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + b"\n[generator: timed out]\n"
    finally:
        if s.tmpfs:
            subprocess.run(["umount", str(job / "ckpt")])
    ok = re.search(s.expect, out.decode(errors="replace")) is not None
    (job / "output.log").write_bytes(out)  # kept for a look at a MISSING run
    if ok:
        dest = LOGS / f"fresh-{s.name}"
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "job.log").write_bytes(out)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(out.splitlines())} lines)", flush=True)
    return ok


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wave", choices=sorted(SPLIT))
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.wave} {s.name:32} {s.label}")
        return
    chosen = [s for s in SCENARIOS if s.name in a.scenario or (a.wave and s.wave == a.wave)]
    bad = 0
    for s in chosen:
        ok = run(s)
        bad += not ok
        frag = CORPUS / "manifest.d" / f"fresh-gen-{s.wave}.csv"
        rows = read_fragment(frag)
        key = f"logs/fresh-{s.name}/job.log"
        if ok:
            rows[key] = [key, s.label, SOURCE, s.notes, SPLIT[s.wave], s.ecosystem]
        write_fragment(frag, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
