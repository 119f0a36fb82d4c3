"""The manifest notes of each committed run (what its log shows), written after the runs."""
NOTES = {
    "mf-bookings-healthy": (
        "no_failure: python flow.py run --epochs 3: start, foreach prepare over 3 parts, join, @parallel train on 2 "
        "nodes (DDP over gloo, 3 epochs with val AUC and checkpoints), join_train, evaluate, report, end; no errors. "
        "evidence: '[rank0] finished 3 epochs (186 steps)', 'Done!', 'job exited with 0'"),
    "mf-bookings-healthy-report": (
        "no_failure: as the healthy run with --calibration-plot True: the optional report step imports matplotlib, "
        "which is not installed; @catch catches the ModuleNotFoundError, prints its traceback, and the flow finishes "
        "(harmless error noise, the model is trained). evidence: '@catch caught an exception from <flow "
        "BookingCancelFlow step report>', 'ModuleNotFoundError: No module named 'matplotlib'', 'Done!'"),
    "mf-bookings-healthy-retry": (
        "no_failure: the prepare foreach reads each part from a feature service (python -m http.server in the "
        "background of the same shell) that only comes up ~2 s after the first prepare tasks start: the first "
        "attempts (and some second ones) fail with Connection refused, @retry(times=3, minutes_between_retries=0) "
        "restarts them, the retries succeed and the flow finishes (a recovered transient fault). evidence: 'urllib.error.URLError: "
        "<urlopen error [Errno 111] Connection refused>', 'Task is starting (retry).', 'Done!'"),
    "mf-bookings-healthy-resume": (
        "no_failure: an earlier, unlogged run of the flow was stopped by timeout -s TERM 24 in train; this job is "
        "python flow.py resume: Metaflow clones start/prepare/join_prepare/launch from that run and re-runs train "
        "to the end. evidence: 'Cloning previously run task', 'cloned!', 'Done!'"),
    "mf-bookings-new-hotels": (
        "worker_exception: shard bookings-01 re-exported with 400 hotels added after the vocabulary in meta.json was "
        "frozen (make_bookings.py --only 1 --hotels-added 400): node 1's hotel embedding lookup raises IndexError in "
        "the train step; node 0 (the control task) then sees the gloo connection close. evidence: '<flow "
        "BookingCancelFlow step train[1] (input: 1)> failed:', 'IndexError: index out of range in self', "
        "'Connection closed by peer'"),
    "mf-bookings-pms-export": (
        "worker_exception: shard bookings-01 re-exported without the lead_time column (make_bookings.py --only 1 "
        "--drop-column lead_time): the prepare foreach task for it raises KeyError in np.load's archive, @retry "
        "retries it 3 times, all fail and the flow stops. evidence: 'KeyError: 'lead_time is not a file in the "
        "archive'', 'Task is starting (retry).', 'Step prepare (task-id 3) failed.'"),
    "mf-bookings-occupancy": (
        "peer_process_died: --occupancy-days 365 makes each train node allocate a per-hotel occupancy table "
        "(~0.39 GiB) inside a 900 MB cgroup-v1 memory cgroup; the kernel OOM killer SIGKILLs node 1 (its death is "
        "not reported in the log: the control task raises first), so the log only shows node 0's gloo peer "
        "dropping. evidence: '[rank0] occupancy history (3001, 17520) (0.39 GiB)', 'Connection closed by peer', "
        "'Step train (task-id 7) failed.'"),
    "mf-bookings-occupancy-loader": (
        "host_oom_killed: --occupancy-days 730 --occupancy-in-loader True: each DataLoader worker builds a ~0.78 GiB "
        "occupancy table in worker_init_fn inside a 1.1 GB cgroup-v1 memory cgroup; the kernel OOM killer kills the "
        "loader workers of both nodes. evidence: 'RuntimeError: DataLoader worker (pid ...) is killed by signal: "
        "Killed.', 'RuntimeError: DataLoader worker (pid(s) ...) exited unexpectedly', 'Task failed.'"),
    "mf-bookings-brand-merge": (
        "native_crash: hotel_chains.json re-exported after a brand takeover (make_bookings.py --merge-groups 37:52) "
        "makes a parent cycle (group-7 -> brand-52 -> group-7); train resolves owner groups with an lru_cache'd "
        "recursive function after sys.setrecursionlimit(1_000_000), the cycle overflows the C stack: the train task "
        "dies of SIGSEGV with no Python traceback. evidence: 'Task failed with a segmentation fault.', 'Step train "
        "(task-id 7) failed.', 'job exited with 1'"),
    "mf-bookings-ckpt-volume": (
        "disk_full: checkpoints/ is a 256 KB tmpfs; rank 0's torch.save of checkpoints/epoch-1.pt (model + Adam "
        "state) runs out of space: PyTorch's writer fails, node 0's train raises and node 1 sees the peer close. "
        "evidence: 'RuntimeError: basic_ios::clear: iostream error', 'unexpected pos 214592 vs 214484', "
        "'Connection closed by peer'"),
    "mf-bookings-container-shm": (
        "shm_exhausted: the job runs in a private mount namespace (unshare -m) with a 32 KB /dev/shm; --loader-workers "
        "2: creating the DataLoader's multiprocessing queue semaphores in /dev/shm fails with ENOSPC on both nodes. "
        "evidence: 'sl = self._semlock = _multiprocessing.SemLock(', 'OSError: [Errno 28] No space left on device', "
        "'Step train (task-id 7) failed.'"),
    "mf-bookings-unknown-lead": (
        "training_divergence: shard bookings-00 re-exported with 2 % of lead times unknown and written as -1 "
        "(make_bookings.py --only 0 --unknown-lead 0.02); prepare's log1p turns them into -inf, the global mean/std "
        "become non-finite and every normalised feature NaN: both nodes' first loss is NaN and the script's check "
        "raises. evidence: 'FloatingPointError: loss is nan at epoch 1 step 1', 'Task failed.'"),
    "mf-bookings-stream-export": (
        "silent_hang: data/bookings-01.npz is a named pipe whose writer (a streaming export) never started: the "
        "prepare task for it blocks in open() and prints nothing; the other parts finish, and after 75 s without "
        "progress the user presses Ctrl-C. evidence: '[1796046721685468/prepare/3 (pid 20849)] Task is starting.' "
        "with no further output from that task, 'Workflow interrupted.', '[KILLED BY ORCHESTRATOR]'"),
    "mf-bookings-time-limit": (
        "job_preempted: the flow is run under a 30 s wall-clock limit (timeout 30 python flow.py run --epochs 20): "
        "SIGTERM reaches the Metaflow runtime in epoch 5 of train and the job ends without Metaflow's own failure "
        "report. evidence: '[rank1] epoch 5 step 40/62 loss 0.5745' as the last line before 'job exited with 124'"),
    "mf-bookings-ssh-closed": (
        "terminal_hangup: SIGHUP to the job's whole process group (the launching terminal closed) in epoch 2 of "
        "train: the shell, the Metaflow runtime and the tasks die at once, the log just stops (no 'job exited' "
        "line). evidence: '[rank0] epoch 2 step 30/62 loss 0.5434' as the last line"),
    "mf-bookings-val-export": (
        "collective_mismatch: the validation set re-exported with 4,001 rows (make_bookings.py --only 9 --val-rows "
        "4001): np.array_split gives the nodes 2,001 and 2,000 scores, and the all_gather of scores after epoch 1 "
        "disagrees on size; gloo aborts node 1. evidence: 'op.preamble.length <= op.nbytes. 4002 vs 4000', 'Is there a "
        "distributed collective mismatch', 'Connection reset by peer'"),
    "mf-bookings-micro-batch": (
        "batch_size_mismatch: --micro-batch 128 with --global-batch 512, grad accum 1 and 2 nodes: both nodes' batch "
        "check raises before the process group starts (Metaflow's log drops the '*' characters of the message). "
        "evidence: 'ValueError: global batch 512 != micro batch 128  grad accum 1  world size 2', 'Step train "
        "(task-id 7) failed.'"),
    "mf-bookings-notebook-port": (
        "port_in_use: a python -m http.server 31116 left running on the host; a single-node run (--nodes 1 "
        "--micro-batch 512) with --master-port 31116: node 0's TCPStore cannot listen. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 31116, useIpv6: false, code: -98, name: EADDRINUSE', 'Step train (task-id 7) failed.'"),
    "mf-bookings-stale-env": (
        "rendezvous_timeout: WORLD_SIZE=4 left exported in the user's shell from an earlier torchrun session (the "
        "flow prefers $WORLD_SIZE over current.parallel.num_nodes), --micro-batch 128 so the batch check passes: "
        "the 2 nodes wait for 4 and the store times out after --pg-timeout 45. evidence: "
        "'world_size=4', 'torch.distributed.DistStoreError: Timed out after 46 seconds waiting for clients. 2/4 "
        "clients joined.', 'DistStoreError: wait timeout after 45000ms'"),
}
