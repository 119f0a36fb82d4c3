"""What each committed run showed (a manifest note per scenario; written after the runs)."""

_M = ("the DLRover job master started by hand in the background (python -m dlrover.python.master.main --port P "
      "--node_num 1 --job_name cardscore --platform local &) and dlrover-run --nnodes=1 --nproc_per_node=2 pointed at it "
      "(DLROVER_MASTER_ADDR, HOST_PORTS for the workers' MASTER_PORT)")

NOTES = {
    "dlrover-cards-healthy":
        "no_failure: " + _M + ", train_tx.py --epochs 3: 2 gloo ranks, Flash Checkpoint memory saves every 20 steps and a "
        "disk save each epoch (persisted by the agent's async saver). Harmless noise: the master's 'Failed to load "
        "configuration for Kubernetes', the agent's '[ERROR] ... periodical_diagnose_node_failure is not alive', NVML "
        "warnings. evidence: 'epoch 3 done in ...: val loss ... val AUC 0.67..', 'Succeed True in persisting the "
        "checkpoint of step 279', 'finished 3 epochs, 279 steps', 'Succeeded and exit.', 'job exited with 0'",
    "dlrover-cards-healthy-netcheck":
        "no_failure: the same launch with --network-check --auto_config: DLRover's node-check agent runs its check "
        "workers (dlrover.trainer.torch.node_check.nvidia_gpu on this CPU host) through the network-check rendezvous "
        "before training; the check passes and 3 epochs complete. evidence: 'starting node-check workers', 'Network "
        "check time of round 0 is ... and succeed is True.', 'Network check result is True', 'finished 3 epochs, 279 "
        "steps', 'job exited with 0'",
    "dlrover-cards-healthy-resume":
        "no_failure: an earlier 1-epoch job (not logged) left its flash checkpoint (checkpoints/93/rank_0.pt and the "
        "tracker file); this job's DdpCheckpointer.load_checkpoint() finds it and both ranks resume at step 93, epoch 2, "
        "and finish. evidence: 'Load the state dict from checkpoints/93/rank_0.pt', '[rank0] resumed from flash "
        "checkpoint step 93', 'finished 3 epochs, 279 steps', 'job exited with 0'",
    "dlrover-cards-healthy-restart":
        "no_failure (recovered): --max-restarts 2 --save_at_breakpoint; in epoch 2 rank 1 was SIGKILLed from outside "
        "(an operator's stray kill -9). The elastic agent reports the failure, restarts the worker group (2/2 attempts "
        "left), the new workers reload the state from the flash checkpoint in shared memory, and all 4 epochs finish: "
        "scary lines, healthy end. evidence: 'failed (exitcode: -9) local_rank: 1', 'Signal 9 (SIGKILL) received by "
        "PID', 'Worker group FAILED, is failure node: False,2/2 attempts left; will restart worker group.', 'Load the "
        "state dict from the CPU memory buffer.', '[rank1] resumed from flash checkpoint step 120', 'finished 4 "
        "epochs', 'job exited with 0'",
    "standalone-cards-quickstart":
        "library_version_mismatch: the plain quick-start launch dlrover-run --standalone --nnodes=1 --nproc_per_node=2 "
        "with dlrover 0.6.1 on torch 2.13.0: DLRover starts its local job master through torch's SubprocessHandler with "
        "the pre-2.x-numa argument list, and torch 2.13's SubprocessHandler requires numa_options; the launcher dies "
        "before any worker starts. evidence: 'DLRover agent started with: 0.6.1.', 'Start dlrover master with addr', "
        "'TypeError: SubprocessHandler.__init__() missing 1 required positional argument: 'numa_options'', "
        "'job exited with 1'",
    "dlrover-cards-new-merchants":
        "worker_exception: shard tx-01 re-exported with 300 merchants onboarded after the vocabulary (meta.json, 4000 "
        "merchants) was frozen; rank 1's merchant embedding lookup fails; the agent's failure report names rank 1, "
        "rank 0 is SIGTERMed. evidence: '[rank1]: IndexError: index out of range in self', 'failed (exitcode: 1) "
        "local_rank: 1', 'Worker group FAILED, is failure node: False, no attempts(0) left', 'Root Cause (first "
        "observed failure):' rank 1 exitcode 1, 'job exited with 1'",
    "dlrover-cards-one-shard":
        "worker_exception (restarts exhausted): the export wrote only one shard (make_tx.py --shards 1) and the job runs "
        "with --max-restarts 2: rank 1 cannot open its shard, the agent restarts the worker group twice (2/2, then 1/2 "
        "attempts left; each restart finds the training port 30952 still taken and picks another) and the "
        "same error comes back each time until the job fails. evidence: \"[rank1]: FileNotFoundError: [Errno 2] No "
        "such file or directory: 'data/tx-01.npz'\" (three times), 'worker-0 restart 0 fails', 'restart 1 fails', "
        "'restart 2 fails', 'job exited with 1'",
    "dlrover-cards-merchant-history":
        "host_oom_killed: --merchant-history 365 (a year of per-merchant float64 activity kept in memory, ~2.1 GB a "
        "rank) inside a 1.5 GB cgroup-v1 memory cgroup: the kernel OOM killer (Memory cgroup out of memory) kills rank "
        "0 while both ranks build the history; the agent SIGTERMs rank 1. evidence: '[rank0] merchant history: 80 "
        "days' (last progress), 'failed (exitcode: -9) local_rank: 0', 'Signal 9 (SIGKILL) received by PID', "
        "'Root Cause (first observed failure):' rank 0 exitcode -9 (SIGKILL), 'job exited with 1'",
    "dlrover-cards-brand-merge":
        "native_crash: merchant_groups.json re-exported after a brand takeover (make_tx.py --merge-brands 3900:3800) "
        "gives brand 3900 the parent 3800 while 3800 already sits under 3900: a cycle. train_tx.py resolves each "
        "merchant's group with an lru_cache'd recursive function after raising sys.setrecursionlimit to 1,000,000 "
        "(for long franchise chains), so the cycle recurses through the C cache wrapper until the C stack overflows: "
        "both ranks die of SIGSEGV with no Python traceback. evidence: 'failed (exitcode: -11) local_rank: 0', "
        "'Signal 11 (SIGSEGV) received by PID', 'exitcode  : -11 (pid: ...)  (SIGSEGV)' for both ranks, 'job exited "
        "with 1'",
    "dlrover-cards-ckpt-volume":
        "disk_full: checkpoints/ is a 1 MB tmpfs; the epoch-1 flash checkpoint persists, the later ones do not fit: "
        "the agent's async saver (ckpt_saver) fails inside torch.save with PyTorch's ENOSPC symptoms and logs the "
        "failure, while training itself goes on and the job ends 'Succeeded' (exit 0) with no usable checkpoint after "
        "epoch 1. evidence: '[ERROR] [ckpt_saver.py:696:_save_shard] Fail to save the checkpoint shard 0 of rank 0, "
        "error: [enforce fail at inline_container.cc:672] . unexpected pos 2880 vs 2774', 'RuntimeError: "
        "basic_ios::clear: iostream error', 'Rank 0 save checkpoint failed for step 186', 'Succeeded and exit.', 'job "
        "exited with 0'",
    "dlrover-cards-container-shm":
        "shm_exhausted: the job runs in a private mount namespace with a container-sized 256 KB /dev/shm (unshare -m, "
        "tmpfs); Flash Checkpoint's first save_to_memory copies the model and optimizer state into a shared-memory "
        "segment larger than that, and the page fault past the tmpfs limit kills rank 0 with SIGBUS; rank 1 then sees "
        "gloo's connection reset. evidence: '0-0 acquired the lock of shared memory: True for step: 20.', 'failed "
        "(exitcode: -7) local_rank: 0', 'Signal 7 (SIGBUS) received by PID', '[rank1]: RuntimeError: ... Read error "
        "... Connection reset by peer', 'job exited with 1'",
    "dlrover-cards-val-export":
        "collective_mismatch: val.npz re-exported with 6,001 rows (make_tx.py --val-rows 6001); the script splits "
        "validation with np.linspace bounds, so rank 0 scores 3,000 rows and rank 1 3,001 and their all_gather of "
        "scores disagrees on size: gloo aborts rank 0 (SIGABRT). evidence: 'op.preamble.length <= op.nbytes. 6002 vs "
        "6000. Received data size doesn't match expected size. Is there a distributed collective mismatch in your "
        "code?', 'failed (exitcode: -6) local_rank: 0', 'Signal 6 (SIGABRT)', 'job exited with 1'",
    "dlrover-cards-rank-paused":
        "collective_timeout: --pg-timeout 30; in epoch 2 rank 1 was stopped with SIGSTOP from outside (a job-control "
        "suspend of that process); rank 0 waits in DDP's gradient all-reduce until gloo's 30 s timeout, then the agent "
        "tears the group down (rank 1 needs SIGKILL). evidence: '[rank0]: RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete' in "
        "loss.backward(), 'Unable to shutdown process ... via 15, forcefully exiting via 9', 'Root Cause (first "
        "observed failure):' rank 0 exitcode 1, 'job exited with 1'",
    "dlrover-cards-stream-export":
        "silent_hang: the shard export streams through a named pipe (data/tx-01.npz is a FIFO) and the exporter for "
        "shard 1 never started: rank 1 blocks forever in open() of its shard, rank 0 loads its own and waits in DDP's "
        "constructor (gloo timeout --pg-timeout 1800); nothing is printed for 90 s until the user's Ctrl-C (SIGINT to "
        "the job's process group). evidence: '[rank0] loaded 24000 transactions' with no '[rank1] loaded', 'Received "
        "2 death signal, shutting down workers', rank 1's KeyboardInterrupt inside np.load ... open(), rank 0's "
        "'_verify_param_shape_across_processes' 'Connection closed by peer', 'SignalException: Process ... got "
        "signal: 2', 'job exited with 1'",
    "dlrover-cards-time-limit":
        "job_preempted: SIGTERM from outside to the dlrover-run agent process in epoch 3 of a 30-epoch job (a "
        "scheduler's time limit); the agent forwards it to the workers and exits. evidence: 'Received 15 death signal, "
        "shutting down workers', 'Sending process ... closing signal SIGTERM', 'SignalException: Process ... got "
        "signal: 15', 'job exited with 1'",
    "dlrover-cards-ssh-closed":
        "terminal_hangup: SIGHUP to the job's process group (the terminal closing) in epoch 2: the background job "
        "master dies at once, the agent logs the death signal and sends SIGHUP to its workers, then keeps retrying its "
        "reports to the vanished master until its gRPC calls give up; the shell died too (no 'job exited' line). "
        "evidence: 'Received 1 death signal, shutting down workers', 'Sending process ... closing signal SIGHUP', "
        "'Retry N to function._report with failure <_InactiveRpcError', 'ipv4:127.0.0.1:30969: Failed to connect to "
        "remote host: Connection refused'",
    "dlrover-cards-cents-feed":
        "training_divergence: shard tx-00 re-exported from the acquirer's v2 feed with the raw amount in cents instead "
        "of log(1+amount) (make_tx.py --only 0 --amount-cents), trained with --optimizer sgd --lr 0.05: rank 0's "
        "huge inputs blow the shared weights up within a few steps and both ranks hit a NaN loss; the script's check "
        "raises. evidence: '[rank0] epoch 1 step 2/93 loss ...' growing, 'FloatingPointError: loss is nan at epoch 1 "
        "step ...', 'job exited with 1'",
    "dlrover-cards-micro-batch":
        "batch_size_mismatch: --micro-batch 128 (halved to save memory) with the default --global-batch 512 and "
        "--grad-accum 1 on 2 ranks: the script's batch-size check fails on both ranks before training. evidence: "
        "'ValueError: global batch 512 != micro batch 128 * grad accum 1 * world size 2', 'job exited with 1'",
    "dlrover-cards-notebook-port":
        "port_in_use: a colleague's python -m http.server already listens on 30975, the port given to the job master: "
        "the master's gRPC server cannot bind and the master exits; dlrover-run finds the port open, takes the HTTP "
        "server for the master and retries its gRPC calls until they fail. evidence: \"Error in bind for address "
        "'[::]:30975': Address already in use\", 'RuntimeError: Failed to bind to address [::]:30975', 'DLRover master "
        "has already started.', 'Failed parsing HTTP/2 (Expected SETTINGS frame as the first frame, got frame type "
        "79)', 'kill: (...) - No such process', 'job exited with 1'",
    "dlrover-cards-second-node":
        "rendezvous_timeout: the job master for 2 nodes (--node_num 2) and dlrover-run --nnodes=2 --rdzv-conf "
        "join_timeout=60 on this node; the second node's agent never started: the master's rendezvous waits for rank "
        "1 and gives up after 60 s. evidence: 'Waiting nodes(required:2/2) in rendezvous(size:1) are {0: 0}, lacking "
        "ranks(size:1) are [1] for round 0', 'Rendezvous fails with reason {... \"err_type\": \"join-timeout\"', "
        "'RendezvousTimeoutError: Timeout 60s to wait the enough nodes to complete rendezvous.', 'job exited with 1'",
}
