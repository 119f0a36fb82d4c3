"""Manifest notes for wave AT (b)'s runs: the label first, how the cause was made real, then evidence lines copied
from the committed logs. Written after the runs."""
W = ("celery -A tasks worker --concurrency 2 --loglevel INFO (prefork, Redis broker and result backend) in the "
     "background of the job's shell, then python driver.py (group of 4 prep_station tasks, chord of 4 train_trial "
     "tasks with pick_best as callback, then train_final which runs torchrun --nproc-per-node=2, gloo on CPU)")
NOTES = {
    "quakes-healthy": (
        f"no_failure. {W}; the whole pipeline finishes (exit 0). Harmless noise: Celery's SecurityWarning about "
        "running the worker as root, and the worker's warm shutdown when the shell stops it. evidence: "
        "\"SecurityWarning: You're running the worker with superuser privileges: this is\", "
        "'pipeline finished in 40 s', 'job exited with 0'"),
    "quakes-healthy-late-export": (
        f"no_failure. {W}; station 3's file was still being exported when the job started (make_quakes.py --only 3 "
        "--delay 9 in the background): prep_station raised FileNotFoundError, autoretry_for retried it 4 s later and "
        "it succeeded; the pipeline finishes. evidence: \"retry: Retry in 4s: FileNotFoundError(2, 'No such file or "
        "directory')\", 'job exited with 0'"),
    "quakes-healthy-requeue": (
        f"no_failure. {W}; train_trial has acks_late and reject_on_worker_lost (QUAKES_REQUEUE_LOST=1): one prefork "
        "pool process was SIGKILLed from outside during trial 1; Celery logs the lost worker at ERROR, the message is "
        "requeued, trial 1 runs again and the pipeline finishes. evidence: \"Process 'ForkPoolWorker-1' pid:23126 "
        "exited with 'signal 9 (SIGKILL)'\", 'WorkerLostError: Worker exited prematurely: signal 9 (SIGKILL) Job: 5.', "
        "'pipeline finished in 30 s'"),
    "quakes-healthy-resume": (
        f"no_failure. {W}; an earlier (unlogged) run with --trial-epochs 1 left checkpoints/trial-N/last.pt; this run "
        "(--trial-epochs 3) resumes every trial from epoch 1 and finishes. evidence: 'trial 0: resumed from "
        "checkpoints/trial-0/last.pt (epoch 1)', 'job exited with 0'"),
    "quakes-healthy-memory-recycle": (
        f"no_failure. {W}, the worker with --max-memory-per-child 120000 (KiB): every pool process exceeds it after "
        "one task and is replaced (billiard recycles them silently; new ForkPoolWorker-N numbers appear); the "
        "pipeline finishes; harmless noise: the root SecurityWarning. evidence: 'pipeline finished in', 'job exited with 0'"),
    "quakes-station-key": (
        f"worker_exception: station 2 re-exported with the waveform array under the key 'traces' instead of "
        f"'waveforms' (make_quakes.py --only 2 --key traces); {W}: prep_station raises KeyError in the worker, the "
        "group result re-raises it in the driver. evidence: \"raised unexpected: KeyError('waveforms is not a file in "
        "the archive')\", 'x = z[\"waveforms\"]', 'job exited with 1'"),
    "quakes-rename-cycle": (
        "native_crash: inventory.json re-exported with a station rename cycle (KBR -> KBR1 -> KBR); prep_station "
        "resolves codes with an lru_cache'd recursive function under sys.setrecursionlimit(1_000_000), overflowing "
        f"the C stack of the pool process: SIGSEGV, no Python traceback from it. {W}. evidence: \"Process "
        "'ForkPoolWorker-2' pid:20472 exited with 'signal 11 (SIGSEGV)'\", 'billiard.exceptions.WorkerLostError: "
        "Worker exited prematurely: signal 11 (SIGSEGV) Job: 0.'"),
    "quakes-augment-oom": (
        f"host_oom_killed: driver.py --augment 160 (160 time-shifted copies of the training windows per trial) with "
        f"the whole job in a 1 GB cgroup-v1 memory cgroup; the kernel OOM killer kills the pool processes building "
        f"the augmented set; the chord fails. {W}. evidence: \"Process 'ForkPoolWorker-2' pid:20488 exited with "
        "'signal 9 (SIGKILL)'\", \"celery.exceptions.ChordError: Dependency 56868635-2c4b-4e2c-bce6-d41607ccce70 "
        "raised WorkerLostError('Worker exited prematurely: signal 9 (SIGKILL) Job: 4.')\""),
    "quakes-ckpt-volume": (
        f"disk_full: checkpoints/ is a 128 KB tmpfs; {W}: the trials' torch.save of last.pt runs out of space "
        "(PyTorch's ENOSPC symptoms, no errno text), the trial tasks fail and the chord fails. evidence: "
        "'RuntimeError: basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 3904 vs 3824'"),
    "quakes-gappy-export": (
        "training_divergence (NaN from bad inputs): station 1 re-exported with telemetry gaps written as NaN samples "
        f"in 40 windows (make_quakes.py --only 1 --gaps 40); normalisation spreads NaN over those windows; {W}: every "
        "trial's finite-loss check raises in its first steps. evidence: 'station 1: 800 windows, 302 with a P onset, "
        "peak |v| nan', 'FloatingPointError: trial 0: loss is nan at epoch 1 step 1'"),
    "quakes-final-queue": (
        f"silent_hang: {W}, the driver run with QUAKES_FINAL_QUEUE=gpu (task_routes sends train_final to a 'gpu' "
        "queue) while the only worker consumes 'celery': the final task is never picked up, the driver waits in "
        "result.get() with no output until `timeout 100` kills it (exit 124). evidence: 'final: submitted 1 node "
        "task(s), group', 'job exited with 124'"),
    "quakes-preempted": (
        f"job_preempted: {W} with --step-delay 0.1; during the trials SIGTERM to the job's whole process group from "
        "outside (a scheduler stopping the job): the driver and the shell die at once, the worker starts its warm "
        "shutdown; no 'job exited' line. evidence: 'trial 1 epoch 1 step 20/40 loss 0.6294', 'worker: Warm shutdown "
        "(MainProcess)'"),
    "quakes-ssh-closed": (
        f"terminal_hangup: {W} with --step-delay 0.1; during the trials SIGHUP to the job's process group (the "
        "terminal closing): the driver and the shell die, the worker (SIGHUP = restart for a Celery worker) "
        "re-executes itself; no 'job exited' line. evidence: 'Restarting celery worker'"),
    "quakes-trial-time-limit": (
        f"job_preempted (a time limit): train_trial's hard time_limit is 15 s (QUAKES_TRIAL_TIME_LIMIT=15); "
        f"driver.py --augment 24 makes each trial take longer; {W}: Celery kills the pool process at the limit "
        "(TimeLimitExceeded) and the chord fails. evidence: 'Hard time limit (15s) exceeded for tasks.train_trial'"),
    "quakes-final-port": (
        f"port_in_use: a colleague's python -m http.server holds port 31225, the torchrun master port of train_final; "
        f"{W}: torchrun's TCPStore cannot bind, the task raises CalledProcessError. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 31225, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'"),
    "quakes-two-nodes": (
        "rendezvous_timeout: driver.py --nodes 2 sends one train_final task per node (torchrun --nnodes=2, c10d "
        "rendezvous, join_timeout=40), but the worker was started with --concurrency 1: node 1's task waits in the "
        "worker behind node 0's, whose torchrun times out waiting for the second node; node 1 then times out alone. "
        "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "quakes-rank-stopped": (
        f"collective_timeout: {W}, train_final with --pg-timeout 20 --step-delay 0.3; rank 1 SIGSTOPped from outside "
        "after epoch 1 step 10: rank 0's gloo all-reduce times out, torchrun kills rank 1 (SIGKILL) and the task "
        "fails. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete'"),
    "quakes-extra-windows": (
        "collective_mismatch: station 1 re-exported with 5 extra windows (805); rank 1's validation split is 321 "
        f"windows against rank 0's 320 and the all_gather of predictions disagrees on size; {W}. evidence: '[rank1] "
        "stations [1, 3]: 1284 train / 321 val windows', \"op.preamble.length <= op.nbytes. 642 vs 640. Received data "
        "size doesn't match expected size. Is there a distributed collective mismatch in your code\""),
    "quakes-micro-batch": (
        f"batch_size_mismatch: train_final run with --micro-batch 32 while the global batch is 128 with 2 ranks and "
        f"grad accum 1; train_final.py's check raises on both ranks; {W}. evidence: '[rank0]: ValueError: global "
        "batch 128 != micro batch 32 * grad accum 1 * world size 2'"),
    "quakes-container-shm": (
        f"shm_exhausted: the job runs in a private mount namespace with a 64 KB /dev/shm (unshare -m, tmpfs); {W}: "
        "the Celery pool's semaphores take part of it and each DDP rank's DataLoader (num_workers=1) cannot create "
        "its queue's semaphore in /dev/shm. evidence: '[rank0]:     sl = self._semlock = _multiprocessing.SemLock(', "
        "'[rank0]: OSError: [Errno 28] No space left on device'"),
    "quakes-fresh-venv": (
        "library_version_mismatch (a dependency missing from the environment): a fresh venv with pip install torch "
        "celery redis numpy (redis-py installed by itself, not as celery[redis]) got celery 5.7.0, kombu 5.7.0 and "
        "redis 8.1.0 without packaging, which kombu 5.7.0 declares only under its redis extra and whose Redis "
        "transport imports it: the worker and the driver both fail to load the transport. evidence: 'from packaging.version import "
        "Version', \"ModuleNotFoundError: No module named 'packaging'\""),
}
