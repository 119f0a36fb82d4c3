"""Manifest notes for wave AW (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("dagster job execute -f defs.py -j rail_delay_training -c run_config.yaml (Dagster 1.13.29, multiprocess "
     "executor, SQLite DAGSTER_HOME; ops extract_movements -> attach_network -> build_features -> train_model running "
     "torchrun --nproc-per-node 2, DDP over gloo on CPU, as a subprocess -> evaluate_model)")
NOISE = "Dagster's SupersessionWarning for `dagster job execute`"
NOTES = {
    "dagster-rail-healthy": (
        f"no_failure: {W}, 3 epochs, every step succeeds and the run succeeds; only noise is {NOISE}. evidence: "
        "'[rank0] finished 3 epochs, val acc 0.879', 'model passed the accuracy gate, ready to publish', "
        "'job exited with 0'"),
    "dagster-rail-healthy-garbled-rows": (
        f"no_failure: {W}; the dispatch export has 5 movements with an unreadable departure time that extract_movements "
        f"logs at ERROR level and drops; training and the run succeed ({NOISE}). evidence: \"movement M00000-728: "
        "unreadable departure time '0000-00-00T??:??', dropped\", 'kept 2395 movements (5 dropped)', "
        "'job exited with 0'"),
    "dagster-rail-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 31805 makes the first torchrun fail with "
        "EADDRINUSE; the op's RetryPolicy (max_retries=1, delay 10 s) retries it, the server is stopped meanwhile and "
        "the retry trains to the end; the run succeeds (recovered fault). evidence: 'name: EADDRINUSE, message: "
        "address already in use', 'Execution of step \"train_model\" failed and has requested a retry in 10 seconds.', "
        "'RUN_SUCCESS - Finished execution of run for \"rail_delay_training\".'"),
    "dagster-rail-healthy-resume": (
        f"no_failure: {W}; an unlogged 2-epoch run first, then a new run with epochs=5, resume=true in run_config.yaml: "
        "both ranks resume from checkpoints/last.pt and finish; the run succeeds. evidence: '[rank0] resumed from checkpoints/last.pt (epoch 2)', '[rank0] finished 5 epochs, val acc 0.902', "
        "'job exited with 0'"),
    "dagster-rail-healthy-loader-workers": (
        f"no_failure: {W}; run_config.yaml sets loader_workers: 2 (DataLoader worker processes per rank, normal "
        f"/dev/shm) and 4 epochs; training and the run succeed ({NOISE}). evidence: '[rank0] finished 4 epochs, val "
        "acc 0.879', 'model passed the accuracy gate, ready to publish', 'job exited with 0'"),
    "dagster-rail-new-delay-class": (
        f"worker_exception: {W}; the dispatch export carries a new delay class 'CANX' that build_features appends as "
        "class 5 while the model head has 5 classes; F.cross_entropy raises IndexError on the ranks, torchrun fails, "
        "the step is retried once (same error), evaluate_model is not executed and the run fails. evidence: "
        "'[rank0]: IndexError: Target 5 is out of bounds.', 'dagster._core.definitions.events.Failure: torchrun "
        "exited with code 1'"),
    "dagster-rail-renamed-column": (
        f"worker_exception: {W}; the dispatch export renamed crew_hours_left to crew_hrs_remaining; extract_movements "
        "raises KeyError, Dagster skips the downstream steps and the run fails before any training. evidence: "
        "\"KeyError: 'crew_hours_left'\", \"Dependencies for step attach_network failed: ['extract_movements']. Not "
        "executing.\""),
    "dagster-rail-optimizer-typo": (
        f"worker_exception: {W}; run_config.yaml sets optimizer: \"adamW\" (the trainer knows adamw/sgd); both ranks "
        "raise ValueError, the step is retried once (same error) and the run fails. evidence: \"[rank0]: ValueError: "
        "unknown optimizer 'adamW'\""),
    "dagster-rail-config-key-typo": (
        f"worker_exception: {W}; run_config.yaml has the key `epoch` instead of `epochs` for train_model; Dagster's "
        "config schema check rejects the run config before any step runs (a config error of the job itself, no "
        "dedicated id). evidence: 'dagster._core.errors.DagsterInvalidConfigError: Error in config for job "
        "rail_delay_training', 'Error 1: Received unexpected config entry \"epoch\" at path "
        "root:ops:train_model:config.'"),
    "dagster-rail-augment-oom": (
        f"host_oom_killed: {W}; the job runs in a cgroup-v1 memory cgroup limited to 1.4 GB and augment_copies=16000 "
        "makes each rank build ~2.4 GB of jittered copies; the kernel OOM killer SIGKILLs rank 1, torchrun stops rank "
        "0 and the step and run fail (RAIL_TRAIN_RETRIES=0). evidence: 'failed (exitcode: -9) local_rank: 1', "
        "'traceback : Signal 9 (SIGKILL) received by PID'"),
    "dagster-rail-network-cycle": (
        f"native_crash: {W}; the network register reparents DIV00 under SUBD001, a cycle; attach_network's recursive "
        "region lookup (recursion limit raised to 1e6) overflows the C stack and the step's worker process dies with "
        "SIGSEGV; Dagster reports the crashed child, skips the downstream steps and fails the run. evidence: "
        "'Multiprocess executor: child process for step attach_network was terminated by signal 11 (SIGSEGV).', "
        "'raise ChildProcessCrashException(pid=process.pid, exit_code=process.exitcode)'"),
    "dagster-rail-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs (a tiny node-local volume); rank 0's torch.save of the epoch "
        "checkpoint fails, the step and run fail (RAIL_TRAIN_RETRIES=0). evidence: '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', 'unexpected pos 64768 vs 64656'"),
    "dagster-rail-container-shm": (
        f"shm_exhausted: {W}; the job runs in a mount namespace whose /dev/shm is a 32 KiB tmpfs (a container's "
        "default-sized shm); Dagster's multiprocess executor cannot create its semaphores (multiprocessing SemLock in "
        "/dev/shm) in the first step's worker, every step is skipped and the run fails. evidence: 'In process 14384: "
        "OSError: [Errno 28] No space left on device', 'sl = self._semlock = _multiprocessing.SemLock('"),
    "dagster-rail-zero-crew-hours": (
        f"training_divergence: {W}; yard YD007's terminal reports crew_hours_left=0, build_features' dwell-per-crew-hour "
        "ratio divides by zero (numpy RuntimeWarnings) and the standardised features carry inf/NaN; the loss is NaN "
        "from the first step and the trainer's check raises on both ranks; the run fails. evidence: 'RuntimeWarning: "
        "divide by zero encountered in divide', '[rank0]: FloatingPointError: loss is nan at epoch 1 step 1'"),
    "dagster-rail-stopped-rank": (
        f"silent_hang: {W}; rank 1 is SIGSTOPped at epoch 2 (process group timeout 1800 s, so gloo never times out); "
        "rank 0 waits in its next collective without a word until the op's own timeout_s=75 ends torchrun; the step "
        "and run fail. evidence: '[rank1] epoch 2 step 10 loss 0.8234' (the last line of rank 1), 'torchrun still running "
        "after 75 s, terminating it', 'Failure: training did not finish within timeout_s=75'"),
    "dagster-rail-rank-paused": (
        f"collective_timeout: {W}; rank 1 is SIGSTOPped at epoch 2 with a 30 s process-group timeout; rank 0's gloo "
        "recv times out, torchrun fails and the run fails. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/"
        "third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to "
        "complete'"),
    "dagster-rail-node-drain": (
        f"job_preempted: {W}; at epoch 3 the 'scheduler' sends SIGTERM to the job's process group (node drain); "
        "Dagster forwards it to its step workers, skips evaluate_model and marks the run failed as interrupted (no "
        "'job exited' line: the shell itself died). evidence: '[rank0] epoch 3 step 10 loss 0.5010', 'Multiprocess executor: received termination signal - "
        "forwarding to active child processes', 'Execution was interrupted unexpectedly.'"),
    "dagster-rail-ssh-closed": (
        f"terminal_hangup: {W} from an interactive SSH shell; the session is closed during epoch 2 and the whole "
        "process group gets SIGHUP: the CLI, the step worker, torchrun and the ranks die at once and the console just "
        "stops (no 'job exited' line, no RUN_FAILURE or RUN_SUCCESS event). evidence: '[rank1] epoch 2 step 10 loss 0.8234' (last "
        "line)"),
    "dagster-rail-batch-config": (
        f"batch_size_mismatch: {W}; run_config.yaml sets micro_batch: 64 with the default global_batch 128 and "
        "grad_accum 2 on 2 ranks; the trainer's batch check raises on both ranks, the step is retried once (same "
        "error) and the run fails. evidence: '[rank0]: ValueError: global batch 128 != micro batch 64 x grad accum 2 "
        "x world size 2'"),
    "dagster-rail-notebook-port": (
        f"port_in_use: {W}; a python -m http.server (someone's notebook/file server) holds the master port 31839 for "
        "the whole run; torchrun's store cannot listen, the retry fails the same way and the run fails. evidence: "
        "'port: 31839, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'"),
    "dagster-rail-cron-limit": (
        f"job_preempted: {W} under the cron wrapper `timeout 45`; the limit SIGTERMs the run at epoch ~3 of 30; Dagster "
        "forwards the termination to its step workers and marks the run failed as interrupted. evidence: "
        "'Multiprocess executor: received termination signal - forwarding to active child processes', "
        "'job exited with 124'"),
    "dagster-rail-rare-class": (
        f"collective_mismatch: {W} with class_weights and TORCH_DISTRIBUTED_DEBUG=DETAIL; the export has only 2 "
        "movements of class XL, so one rank's shard has no XL and its torch.bincount is 4 long while the other's is 5: "
        "the all_reduce shapes differ and the debug wrapper raises on both ranks. evidence: 'RuntimeError: Detected "
        "mismatch between collectives on ranks.', 'TensorShape=[4]'"),
    "dagster-rail-second-host": (
        f"rendezvous_timeout: {W} with nnodes: 2 in run_config.yaml while the second host's job was never started; "
        "torchrun's store on node 0 waits 60 s for the other node and times out; the run fails. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.'"),
}
