"""Manifest notes for wave BB (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("TensorFlow 2.21.0 (tensorflow-cpu) tf.distribute.MultiWorkerMirroredStrategy (RING collectives over gRPC) with "
     "Keras model.fit (tf_keras 2.21.0, verbose=2, BackupAndRestore + ModelCheckpoint + TerminateOnNaN), 2 workers on "
     "CPU started by the team's launch.sh ('./launch.sh P0 P1 --step-delay 0.05 ...', one TF_CONFIG per worker, both "
     "workers' output on one console); retail store hourly footfall forecaster (tabular MLP)")
NOTES = {
    "tf-footfall-healthy": (
        f"no_failure: {W}, 3 epochs; the usual startup noise (cuInit error on a CPU host), coordination service "
        "connects both workers, per-epoch validation and checkpoints, both workers finish. evidence: "
        "'[worker0] 13:43:49 finished 3 epochs this run, last val_mae 0.30869290232658386', "
        "'launch.sh: worker 1 exited with code 0', 'job exited with 0'"),
    "tf-footfall-healthy-garbled-counter": (
        f"no_failure: {W}; 3 rows of the export carry footfall 'n/a' (read as NaN); each worker logs them at ERROR "
        "and drops them, training succeeds. evidence: '[worker0] 13:27:16 ERROR row 2339 (store-04 day 19 hour 20): "
        "footfall np.float64(nan) is not a number, dropped', '[worker1] 13:27:46 finished 3 epochs this run, last "
        "val_mae 0.3039700984954834', 'job exited with 0'"),
    "tf-footfall-healthy-resume": (
        f"no_failure: {W}; an earlier 6-epoch run of the same job (not in this log) was SIGKILLed after epoch 2; "
        "rerun with '--epochs 4', BackupAndRestore restores the backup and fit starts at epoch 3. evidence: "
        "'Epoch 3/4', '[worker0] 13:29:11 finished 2 epochs this run, last val_mae 0.26895925402641296', "
        "'job exited with 0'"),
    "tf-footfall-healthy-late-worker": (
        f"no_failure: {W}; WORKER1_START_DELAY=20: worker 1 starts 20 s after worker 0, whose coordination service "
        "waits for it, then both train; after worker 1 exits first, worker 0 logs an ERROR-level StartAbort about "
        "the finished task's missing heartbeats and still exits 0. evidence: 'I0000 00:00:1796131763.504111   24765 "
        "coordination_service.cc:502] Waiting for 1/2 tasks to connect.', 'launch.sh: started worker 1 (pid 24872) "
        "on localhost:30013', 'E0000 00:00:1796131829.533952   24764 base_collective_executor.cc:252] "
        "BaseCollectiveExecutor::StartAbort UNAVAILABLE: Error reported from /job:worker/task:1: The following tasks "
        "are unhealthy (stopped sending heartbeats):', '[worker0] 13:30:32 finished 3 epochs this run, last val_mae "
        "0.28211575746536255', 'job exited with 0'"),
    "tf-footfall-renamed-column": (
        f"worker_exception: {W}; the export renamed footfall_lag7 to lag7_footfall; both workers raise KeyError "
        "while building the features. evidence: 'KeyError: \"[\\'footfall_lag7\\'] not in index\"', "
        "'launch.sh: worker 0 exited with code 1', 'job exited with 1'"),
    "tf-footfall-cli-typo": (
        f"worker_exception: {W}; launched with '--batch_size 128' (the script takes --batch-size); argparse rejects "
        "it on both workers (exit 2). evidence: 'train.py: error: unrecognized arguments: --batch_size 128', "
        "'launch.sh: worker 0 exited with code 2', 'job exited with 2'"),
    "tf-footfall-stuck-counter": (
        f"training_divergence: {W}; store-03's door counter writes 3.4e38 from day 40; the loss is inf in the first "
        "batch and Keras' TerminateOnNaN stops training on both workers; the job still exits 0. evidence: "
        "'Batch 0: Invalid loss, terminating training', '91/91 - 2s - loss: inf - mae: "
        "106249996919948132498379627441422336.0000 - val_loss: inf - val_mae: "
        "364285703725536454280158722656305152.0000 - 2s/epoch - 22ms/step', 'job exited with 0'"),
    "tf-footfall-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 32 KiB tmpfs; ModelCheckpoint's h5 save after epoch 1 fails with ENOSPC "
        "on the chief and in worker 1's temporary copy; worker 1 then loses the coordination service. evidence: "
        "\"OSError: [Errno 28] Can't close file (file write failed: time = Tue Dec  1 13:31:34 2026\", "
        "\", filename = 'checkpoints/footfall-epoch01.h5', file descriptor = 12, errno = 28, error message = 'No "
        "space left on device', buf = 0x55c67dd3bbf0, total write size = 2048, bytes this sub-write = 2048, offset = "
        "4096)\", 'job exited with 1'"),
    "tf-footfall-cache-oom": (
        f"host_oom_killed: {W}; '--cache-copies 4000' in a 1.2 GB cgroup-v1 memory cgroup; the kernel OOM killer "
        "kills both workers while they build the in-memory copies (dmesg: 'Memory cgroup out of memory: Killed "
        "process 27280 (python)' and 27278). evidence: '[worker0] 13:31:54 caching 4000 augmented copies of 2940 "
        "rows', './launch.sh: line 18: 27278 Killed                  TF_CONFIG=\"{\\\"cluster\\\": $CLUSTER, "
        "\\\"task\\\": {\\\"type\\\": \\\"worker\\\", \\\"index\\\": $i}}\" python train.py \"$@\"', "
        "'launch.sh: worker 0 exited with code 137', 'job exited with 137'"),
    "tf-footfall-worker-sigkill": (
        f"host_oom_killed: {W}, 6 epochs; worker 1 SIGKILLed from outside in epoch 2 (kill -9, no OOM); worker 0's "
        "CollectiveReduceV2 fails with UnavailableError (connection reset by peer). evidence: "
        "'tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:', 'Collective ops is "
        "aborted by: recvmsg:Connection reset by peer', './launch.sh: line 18: 27510 Killed                  "
        "TF_CONFIG=\"{\\\"cluster\\\": $CLUSTER, \\\"task\\\": {\\\"type\\\": \\\"worker\\\", \\\"index\\\": $i}}\" "
        "python train.py \"$@\"', 'launch.sh: worker 1 exited with code 137', 'job exited with 137'"),
    "tf-footfall-region-loop": (
        f"native_crash: {W}; regions.csv records store-04 and north as each other's parent; the lru_cache region "
        "lookup recurses (recursion limit raised to 1e6) until the C stack overflows: SIGSEGV on both workers. "
        "evidence: './launch.sh: line 18: 28033 Segmentation fault      TF_CONFIG=\"{\\\"cluster\\\": $CLUSTER, "
        "\\\"task\\\": {\\\"type\\\": \\\"worker\\\", \\\"index\\\": $i}}\" python train.py \"$@\"', "
        "'launch.sh: worker 0 exited with code 139', 'job exited with 139'"),
    "tf-footfall-node-drain": (
        f"job_preempted: {W}, 8 epochs; SIGTERM to the job's whole process group in epoch 2 (a node drain): "
        "launch.sh's trap forwards it, TF's preemption notifier logs it, the shell dies (no 'job exited' line) and "
        "the harness then ends the workers at once (as a drain's SIGKILL would). evidence: 'launch.sh: caught "
        "signal, stopping workers 28319 28321', 'W0000 00:00:1796131980.327803   28419 preemption_notifier.cc:90] "
        "SIGTERM caught at 2026-12-01T13:33:00.327801551+00:00'"),
    "tf-footfall-ci-budget": (
        f"no_failure: {W}, 12 epochs; the launch is wrapped in 'timeout 30' (a CI time budget); timeout sends "
        "SIGTERM to launch.sh, whose trap forwards it to both workers; TF's preemption notifier catches it and "
        "training goes on to finish all 12 epochs; only timeout's exit status 124 remains. evidence: 'launch.sh: "
        "caught signal, stopping workers 29079 29081', 'W0000 00:00:1796132012.275811   29320 "
        "preemption_notifier.cc:90] SIGTERM caught at 2026-12-01T13:33:32.275807987+00:00', '[worker1] 13:34:53 "
        "finished 12 epochs this run, last val_mae 0.2180304229259491', 'launch.sh: worker 0 exited with code 0', "
        "'job exited with 124'"),
    "tf-footfall-healthy-rerun": (
        f"no_failure: {W}; rerun of a 2-epoch job that had finished (not in this log): BackupAndRestore had removed "
        "its backup at the end of that run, so fit starts again at epoch 1 and overwrites the checkpoints. evidence: "
        "'[worker0] 13:37:31 finished 2 epochs this run, last val_mae 0.32643312215805054', '[worker1] 13:37:37 "
        "finished 2 epochs this run, last val_mae 0.32643312215805054', 'job exited with 0'"),
    "tf-footfall-dashboard-port": (
        f"port_in_use: {W}; a 'python -m http.server 30033' (a dashboard left running) holds worker 1's port; "
        "worker 1's gRPC server cannot bind and MultiWorkerMirroredStrategy fails on it; worker 0 keeps waiting for "
        "task 1 at the coordination service and the harness ends the job after 60 s (no 'job exited' line). "
        "evidence: \"E0000 00:00:1796132266.286766    2181 add_port.cc:83] Failed to add port to server: No address "
        "added out of total 1 resolved for '0.0.0.0:30033'\", 'E0000 00:00:1796132266.289022    2181 "
        "grpc_server_lib.cc:618] UNKNOWN: Could not start gRPC server', 'tensorflow.python.framework.errors_impl."
        "UnknownError: Could not start gRPC server'"),
    "tf-footfall-new-store": (
        f"collective_mismatch: {W}; a store opened on the last day has one row, so only worker 0's shard has it and "
        "its one-hot store features are 17 wide against worker 1's 16; the first-layer kernels differ and the "
        "strategy's variable broadcast aborts with a shape mismatch on both workers. evidence: '[worker0] 13:38:46 "
        "2940 train rows, 421 val rows, 17 features', 'E0000 00:00:1796132326.757731    2802 "
        "base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort INVALID_ARGUMENT: Shape mismatch in the "
        "collective instance 103. Op at device /job:worker/replica:0/task:0/device:CPU:0 expected shape [17,64] but "
        "another member in the group expected shape [16,64]. This is likely due to different input shapes at "
        "different members of the collective op.', 'job exited with 1'"),
    "tf-footfall-unmapped-store": (
        f"worker_exception: {W}; a store opened on the last day (one row, in worker 0's shard only) is missing from "
        "regions.csv; worker 0's region lookup raises KeyError before the model is built, and worker 1, waiting in "
        "the strategy's variable broadcast, sees the socket close. evidence: \"KeyError: 'store-98'\", "
        "'tensorflow.python.framework.errors_impl.UnavailableError: {{function_node "
        "__wrapped__CollectiveBcastRecv_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is "
        "aborted by: Socket closed', 'job exited with 1'"),
    "tf-footfall-ssh-closed": (
        f"terminal_hangup: {W}, 8 epochs; SIGHUP to the job's process group in epoch 2 (the SSH session running "
        "launch.sh in the foreground closed); launch.sh traps only TERM/INT and TF has no SIGHUP handler, so the "
        "shell, launch.sh and both workers die at once and the log just stops after the last step lines (no "
        "'job exited' line). evidence: '[worker1] 13:44:21 epoch 2 step 40/91 loss 0.9453 mae 0.9725', '[worker0] "
        "13:44:21 epoch 2 step 40/91 loss 0.9453 mae 0.9725'"),
    "tf-footfall-worker-stopped": (
        f"collective_timeout: {W}, 6 epochs, '--collective-timeout 20'; worker 1 SIGSTOPped in epoch 2; about 8 s "
        "later the coordination service's heartbeat check reports task 1 unhealthy and worker 0's "
        "CollectiveReduceV2 is aborted (before the 20 s collective timeout); launch.sh then waits for the stopped "
        "worker 1 and the harness ends the job after 70 s (no 'job exited' line). evidence: 'E0000 "
        "00:00:1796132693.898420   12512 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort "
        "UNAVAILABLE: Error reported from /job:worker/task:1: The following tasks are unhealthy (stopped sending "
        "heartbeats):', 'tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:', "
        "'launch.sh: worker 0 exited with code 1'"),
    "tf-footfall-backup-volume": (
        f"disk_full: {W}; backup/ (BackupAndRestore's directory) is a 16 KiB tmpfs; the epoch-1 backup (a TF "
        "checkpoint, SaveV2) fails with ENOSPC on both workers. evidence: 'W0000 00:00:1796132792.385012   17051 "
        "op_kernel.cc:1858] OP_REQUIRES failed at save_restore_v2_ops.cc:163 : RESOURCE_EXHAUSTED: "
        "backup/chief/ckpt-1_temp/part-00000-of-00001.data-00000-of-00001.tempstate12530163963005942508; No space "
        "left on device', 'tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node "
        "__wrapped__SaveV2_dtypes_25_device_/job:worker/replica:0/task:0/device:CPU:0}} "
        "backup/chief/ckpt-1_temp/part-00000-of-00001.data-00000-of-00001.tempstate12530163963005942508; No space "
        "left on device [Op:SaveV2]', 'job exited with 1'"),
    "tf-footfall-keras3-env": (
        f"library_version_mismatch: {W}; the launching shell exports TF_USE_LEGACY_KERAS=0 (left from another "
        "project), so tf.keras is Keras 3.15.1 instead of tf_keras; the script's Keras 2 style ModelCheckpoint path "
        "is rejected by Keras 3 on both workers. evidence: 'ValueError: When using `save_weights_only=True` in "
        "`ModelCheckpoint`, the filepath provided must end in `.weights.h5` (Keras weights format). Received: "
        "filepath=checkpoints/footfall-epoch{epoch:02d}.h5', 'launch.sh: worker 0 exited with code 1', "
        "'job exited with 1'"),
    "tf-footfall-chief-sigkill": (
        f"host_oom_killed: {W}, 6 epochs; worker 0 (the chief, which runs the coordination service) SIGKILLed from "
        "outside in epoch 2 (kill -9, no OOM); worker 1's CollectiveReduceV2 fails with UnavailableError "
        "(connection reset by peer). evidence: './launch.sh: line 18: 18905 Killed                  "
        "TF_CONFIG=\"{\\\"cluster\\\": $CLUSTER, \\\"task\\\": {\\\"type\\\": \\\"worker\\\", "
        "\\\"index\\\": $i}}\" python train.py \"$@\"', 'launch.sh: worker 0 exited with code 137', "
        "'tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:', 'Collective ops is "
        "aborted by: recvmsg:Connection reset by peer', 'job exited with 1'"),
}
