"""Manifest notes for wave AV (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("airflow dags test dga_fault_training (Airflow 3.3.2, SQLite metadata DB; extract_samples -> attach_assets -> "
     "build_features @tasks -> train_classifier BashOperator running torchrun --nproc-per-node 2, DDP over gloo on "
     "CPU -> evaluate_model)")
NOTES = {
    "airflow-dga-healthy": (
        f"no_failure: {W}, 3 epochs, every task succeeds and the DAG run is marked successful; only noise is Airflow's "
        "graphviz UserWarning and a starlette/httpx deprecation warning. evidence: '[rank0] finished 3 epochs, val acc "
        "0.992', 'model passed the accuracy gate, ready to publish'"),
    "airflow-dga-healthy-garbled-rows": (
        f"no_failure: {W}; the monitor export has 5 rows with an unreadable timestamp that extract_samples logs at "
        "ERROR level and drops; training and the DAG run succeed. evidence: \"sample S000000: unreadable timestamp "
        "'##########', dropped\", 'kept 2395 samples (5 dropped)', 'job exited with 0'"),
    "airflow-dga-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 31705 makes the first torchrun fail with "
        "EADDRINUSE; Airflow marks the task up_for_retry (retries=1, retry_delay 10 s), the server is stopped "
        "meanwhile and the retry trains to the end; the DAG run succeeds (recovered fault). evidence: 'name: "
        "EADDRINUSE, message: address already in use', 'new_state=up_for_retry', '[rank0] finished 3 epochs, val acc "
        "0.992'"),
    "airflow-dga-healthy-resume": (
        f"no_failure: {W}; an unlogged 2-epoch run first, then a new DAG run with conf epochs=5, resume=true: both "
        "ranks resume from checkpoints/last.pt and finish; the DAG run succeeds. evidence: '[rank0] resumed from "
        "checkpoints/last.pt (epoch 2)', '[rank0] finished 5 epochs'"),
    "airflow-dga-healthy-sigterm-retry": (
        f"no_failure: {W}; at epoch 3 the job's process group (bash + airflow) gets SIGTERM from outside; Airflow's "
        "task runner SIGTERMs the BashOperator's torchrun (got signal: 15), the task goes up_for_retry and, since the "
        "airflow process outlives the killed shell, the retry trains 30 epochs and the DAG run is marked successful "
        "(no 'job exited' line: the shell itself died). evidence: 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 22750 got signal: 15', 'new_state=up_for_retry', '[rank0] finished 30 epochs, val "
        "acc 0.992'"),
    "airflow-dga-new-fault-code": (
        f"worker_exception: {W}; the export carries a new engineer fault code 'D1/T3' that build_features appends as "
        "class 7 while the model head has the 7 IEC classes; F.cross_entropy raises IndexError on both ranks, the "
        "task fails, is retried once (same error) and the DAG run fails. evidence: '[rank0]: IndexError: Target 7 is "
        "out of bounds.', 'Bash command failed. The command returned a non-zero exit code 1.'"),
    "airflow-dga-renamed-column": (
        f"worker_exception: {W}; the monitor vendor's export renamed h2_ppm to hydrogen_ppm; extract_samples raises "
        "KeyError; the downstream tasks are listed as unrunnable for a few seconds and never run; the DAG run fails. evidence: \"KeyError: "
        "'h2_ppm'\", 'DagRun failed'"),
    "airflow-dga-optimizer-typo": (
        f"worker_exception: {W}; conf typo optimizer=adamW; the trainer raises ValueError on both ranks, the task is "
        "retried once and fails again. evidence: \"[rank0]: ValueError: unknown optimizer 'adamW'\""),
    "airflow-dga-augment-oom": (
        f"host_oom_killed: {W}; conf augment_copies=16000 (each rank builds float64 noise copies of its samples up "
        "front) with the whole job in a 1.2 GB cgroup-v1 memory cgroup; the kernel OOM killer SIGKILLs rank 1, "
        "torchrun stops rank 0, the task fails (retries 0 via AIRFLOW_VAR_DGA_TRAIN_RETRIES). evidence: 'failed "
        "(exitcode: -9) local_rank: 1 (pid: 18459)', 'exitcode  : -9 (pid: 18459)  (SIGKILL)'"),
    "airflow-dga-asset-cycle": (
        f"native_crash: {W}; an asset-register revision re-parents substation SUB03 under bay BAY012, which makes a "
        "parent cycle; attach_assets' lru_cache'd recursive walk (recursion limit raised to 1,000,000) overflows the C "
        "stack and the in-process airflow dags test dies of SIGSEGV mid-task (no Airflow failure lines). evidence: "
        "'Segmentation fault      airflow dags test dga_fault_training 2026-11-30', 'job exited with 139'"),
    "airflow-dga-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KB tmpfs; rank 0's torch.save fails at the first checkpoint "
        "(PyTorch's iostream error / unexpected pos), rank 1 sees the peer close. evidence: '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 66176 vs 66068'"),
    "airflow-dga-container-shm": (
        f"shm_exhausted: {W}; the job runs in unshare -m with a 32 KB /dev/shm and conf loader_workers=2; the "
        "DataLoader's worker queues cannot create their semaphores in /dev/shm on both ranks. evidence: 'sl = "
        "self._semlock = _multiprocessing.SemLock(', '[rank0]: OSError: [Errno 28] No space left on device'"),
    "airflow-dga-below-detection": (
        f"training_divergence: {W}; monitor M007 writes -1 for gases below its detection limit; np.log gives NaN "
        "features (numpy RuntimeWarning in build_features) and the loss is NaN at the first step; the trainer's "
        "finite-loss check stops both ranks. evidence: 'invalid value encountered in log', '[rank0]: "
        "FloatingPointError: loss is nan at epoch 1 step 1'"),
    "airflow-dga-stopped-rank": (
        f"silent_hang: {W}; process-group timeout 1800 s, retries 0, execution_timeout 75 s (Airflow Variable "
        "dga_train_timeout_s); rank 1 SIGSTOPped at epoch 2 step 10; no output until Airflow's execution_timeout "
        "fires, SIGTERMs the torchrun process group and fails the task. evidence: '[error    ] Process timed out', "
        "'airflow.sdk.exceptions.AirflowTaskTimeout: Timeout, PID: 20094'"),
    "airflow-dga-rank-paused": (
        f"collective_timeout: {W}; process-group timeout 30 s; rank 1 SIGSTOPped at epoch 2 step 10; rank 0's gloo "
        "recv times out and the task fails. evidence: 'Timed out waiting 30000ms for recv operation to complete'"),
    "airflow-dga-batch-config": (
        f"batch_size_mismatch: {W}; conf micro_batch=64 with global_batch 128, grad_accum 2, 2 ranks; the trainer's "
        "check raises on both ranks, the retry fails the same way. evidence: '[rank0]: ValueError: global batch 128 "
        "!= micro batch 64 x grad accum 2 x world size 2'"),
    "airflow-dga-notebook-port": (
        f"port_in_use: {W}; a python -m http.server holds the master port 31737; torchrun's store fails with "
        "EADDRINUSE on the try and on the retry; the DAG run fails. evidence: 'port: 31737, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use'"),
    "airflow-dga-ssh-closed": (
        f"terminal_hangup: {W}, 30 epochs; at epoch 2 the job's process group (the interactive shell and airflow) "
        "gets SIGHUP as the SSH session closes; the shell and airflow die at once, nothing more is printed (no 'job "
        "exited' line); the log stops mid-epoch. evidence: '[rank0] epoch 2 step 10 loss 0.8261'"),
    "airflow-dga-time-limit": (
        f"job_preempted: {W}, 30 epochs, retries 0 (AIRFLOW_VAR_DGA_TRAIN_RETRIES); at epoch 3 the harness "
        "(\"scheduler\") sends SIGTERM to the job's process group (bash + airflow); the shell dies (no 'job exited' "
        "line), Airflow's task runner forwards SIGTERM to torchrun, the task fails and the DAG run fails. evidence: "
        "'Sending SIGTERM signal to process group', 'torch.distributed.elastic.multiprocessing.api.SignalException: "
        "Process 27317 got signal: 15'"),
    "airflow-dga-cron-limit": (
        f"job_preempted: {W}, 30 epochs, retries 0; the cron wrapper's wall-clock limit `timeout 40` SIGTERMs airflow "
        "mid-training; Airflow SIGTERMs torchrun, the task and DAG run fail, timeout exits 124. evidence: "
        "'Process 27564 got signal: 15', 'job exited with 124'"),
    "airflow-dga-second-host": (
        f"rendezvous_timeout: {W}; conf nnodes=2 but the second host never starts; torchrun's static rendezvous "
        "store times out (--rdzv-conf timeout=60), retries 0. evidence: 'torch.distributed.DistStoreError: Timed out "
        "after 61 seconds waiting for clients. 1/2 clients joined.'"),
    "airflow-dga-rare-fault": (
        f"collective_mismatch: {W}; export with only 2 T3 samples and conf class_weights=true; the per-shard bincount "
        "lengths differ (6 vs 7) so the ranks all-reduce different shapes; TORCH_DISTRIBUTED_DEBUG=DETAIL reports it, "
        "retries 0. evidence: '[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is "
        "running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[6]'"),
}
