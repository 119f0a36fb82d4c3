"""What each committed wave AL (b) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "ctr.py (tabular click-through-rate model on TensorFlow 2.21 / tf-keras 2.21: synthetic Criteo-layout click logs, " \
    "13 log1p count features and 26 categorical features hashed into one 52000 x 8 embedding table, a DCN cross network " \
    "beside a 64-32 MLP, binary cross entropy, validation AUC aggregated over workers; MultiWorkerMirroredStrategy, " \
    "workers as separate processes on localhost ports; the chief writes tf.train.CheckpointManager checkpoints and a " \
    "SavedModel, non-chief workers write to worker_tmp_N and delete it)"
RW = "run_workers.sh (the team's TF_CONFIG launcher: one background process per worker, TF_CONFIG built from a port " \
     "base or a workers file, waits for them and reports non-zero exits)"
MPI = "Open MPI mpirun (each rank builds its TF_CONFIG from OMPI_COMM_WORLD_RANK/SIZE and --port-base)"
NOTES = {
    # --- TF_CONFIG launcher
    "workers-ctr-healthy":
        f"{RW}, 2 workers, {W}, Keras model.fit with BackupAndRestore, 4 epochs: trains to the end; every worker prints "
        "TensorFlow's start-up noise on a CPU node with the CUDA-enabled wheel (harmless) and val AUC falls after epoch "
        "2 (overfitting, not a failure). evidence: 'E0000 ... cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA "
        "error: Failed call to cuInit: UNKNOWN ERROR (303)', '[worker 0] eval epoch 4: loss 0.2282 val_loss 0.6984 "
        "val_auc 0.7870', '[worker 0] exported SavedModel to export/ctr_model', '[worker 0] done: 4 epochs', 'job exited "
        "with 0'",
    "workers-ctr-spot-restart":
        f"{RW} with '-r 1' (restart the whole group once on failure), 2 workers, {W}, model.fit with BackupAndRestore, 4 "
        "epochs. Worker 1's process was SIGKILLed from outside in epoch 2 (a spot-instance reclaim); worker 0's "
        "coordination service saw its heartbeats stop and its collective aborted; the launcher restarted both workers, "
        "BackupAndRestore resumed from the epoch-1 backup and the job finished. Healthy: the job succeeded after a "
        "harmless restart. evidence: 'The following tasks are unhealthy (stopped sending heartbeats):', "
        "'./run_workers.sh: line 30: 13710 Killed', 'run_workers: worker 1 (pid 13710) exited with 137', 'run_workers: restarting all workers (1/1)', '[worker 0] done: 4 epochs', 'job exited with 0'",
    "workers-ctr-custom-loop-healthy":
        f"{RW}, 2 workers, {W}, custom training loop (strategy.run + GradientTape, distribute_datasets_from_function) "
        "with tf.distribute.experimental.PreemptionCheckpointHandler installed (no preemption came), 4 epochs: trains to "
        "the end; the SavedModel export prints tf-keras's compiled-metrics WARNING on each worker (harmless). evidence: "
        "'[worker 0] preemption handler installed (checkpoint on SIGTERM)', 'WARNING:tensorflow:Compiled the loaded "
        "model, but the compiled metrics have yet to be built.', '[worker 0] eval epoch 4: loss 0.2277 val_loss 0.6770 "
        "val_auc 0.7855 (47 steps, 2.4 s)', '[worker 0] done: 4 epochs', 'job exited with 0'",
    "workers-ctr-title-feature":
        f"{RW}, 2 workers, {W}, model.fit. Shard part-00001 (read by worker 1) came from an export that put the raw ad "
        "title into C26, and some titles contain a tab: tf.io.decode_csv in the input pipeline fails on worker 1 (a "
        "bad record in the training data); worker 0's all-reduce is aborted once worker 1 stops sending heartbeats. "
        "evidence: 'InvalidArgumentError: Graph execution error:', 'Error in user-defined function passed to "
        "ParallelMapDatasetV2:4 transformation with iterator: Iterator::Root::Prefetch::Rebatch::Prefetch::ParallelMapV2: "
        "Expect 40 fields but have 41 in record 5', worker 0 'The following tasks are unhealthy (stopped sending "
        "heartbeats):', 'job exited with 1'",
    "workers-ctr-fewer-collisions":
        f"{RW}, 2 workers, {W}, model.fit with --hash-buckets 2000000 (to cut hash collisions; the table becomes 52M x "
        "8 floats, 1.66 GB per worker before Adam slots) inside a 3 GB memory cgroup: the kernel OOM killer SIGKILLs "
        "both workers while the model is built, no Python traceback. evidence: 'hash_buckets=2000000', "
        "'./run_workers.sh: line 30: 20174 Killed', 'run_workers: worker 0 (pid 20174) exited with 137', 'run_workers: "
        "worker 1 (pid 20175) exited with 137', 'job exited with 137'",
    "workers-ctr-spot-preemption":
        f"{RW}, 2 workers, {W}, custom loop with tf.distribute.experimental.PreemptionCheckpointHandler and the Python "
        "TF logger at INFO, 30 epochs. In epoch 2 SIGTERM was sent to both worker processes (the spot instance being "
        "reclaimed); the handler agreed a step with the other worker, saved a checkpoint and exited with its exit code "
        "42. evidence: 'INFO:tensorflow:Termination caught in main thread on preempted worker', "
        "'INFO:tensorflow:PreemptionCheckpointHandler: Starting saving a checkpoint.', "
        "'INFO:tensorflow:PreemptionCheckpointHandler: checkpoint saved. Exiting.', 'run_workers: worker 0 (pid 20573) "
        "exited with 42', 'job exited with 42'",
    "workers-ctr-serving-export":
        f"{RW}, 2 workers, {W}, model.fit, 3 epochs, with --export-dir models: a 8 MB volume that already holds 5.5 MB "
        "of earlier model versions. Training and the per-epoch checkpoints (on another disk) succeed; the final "
        "SavedModel export (variables with the Adam slots) runs out of space on both workers (the chief's directory and "
        "worker 1's worker_tmp_1 on the same volume). evidence: '[worker 0] eval epoch 3: loss 0.3380 val_loss 0.5727 "
        "val_auc 0.8096', 'OP_REQUIRES failed at save_restore_v2_ops.cc:163 : RESOURCE_EXHAUSTED: "
        "models/ctr_model/variables/variables_temp/part-00000-of-00001.data-00000-of-00001.tempstate...; No space left "
        "on device', 'tensorflow.python.framework.errors_impl.ResourceExhaustedError: "
        "{{function_node __wrapped__SaveV2_dtypes_50_device_/job:worker/replica:0/task:0/device:CPU:0}}', 'job exited "
        "with 1'",
    "workers-ctr-rerun":
        f"{RW}, 2 workers, {W}, model.fit on ports 29630/29631. The previous attempt had been launched with a workers "
        "file listing three workers while only two were started; it hung at the coordination service ('Waiting for 1/3 "
        "tasks to connect') and was stopped with Ctrl-C: the launcher script died, but its two TensorFlow workers, "
        "blocked in C++ waiting for the missing task, ignored the SIGINT and kept listening on the ports. The rerun's "
        "workers cannot start their gRPC servers. evidence: 'E0000 ... add_port.cc:83] Failed to add port to server: "
        "No address added out of total 1 resolved for '0.0.0.0:29630'', 'grpc_server_lib.cc:618] UNKNOWN: Could not "
        "start gRPC server', 'tensorflow.python.framework.errors_impl.UnknownError: Could not start gRPC server', "
        "'job exited with 1'",
    "workers-ctr-two-hosts":
        f"a two-host job (two launches of {RW}, one worker each) of {W}, model.fit, with --register-timeout 60 (the "
        "coordination service's cluster_register_timeout). Host A's launch used a fresh cluster file (workers on "
        "29633/29634); host B's launch used an old workers.txt that still listed the cluster on 29601/29602. Worker 1 "
        "(this log, host B's console) tries to register with a coordination leader at localhost:29601 that nobody "
        "serves and gives up after the register timeout; host A's worker 0 waited for task 1 until it was killed. "
        "evidence: '[worker 1] cluster: {\"worker\": [\"localhost:29601\", \"localhost:29602\"]}', "
        "'BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Deadline Exceeded', 'RPC: "
        "/tensorflow.CoordinationService/RegisterTask', 'tensorflow.python.framework.errors_impl.DeadlineExceededError: "
        "Deadline Exceeded', 'run_workers: worker 1 (pid 5052) exited with 1', 'job exited with 1'",
    # --- Open MPI
    "mpirun-ctr-healthy-3-ranks":
        f"{MPI} with --tag-output, 3 ranks, {W}, custom loop, global batch 240 over 6 training shards, 4 epochs: trains "
        "to the end (tagged, sometimes fragmented output lines). evidence: '[1,0]<stdout>:[worker 0] eval epoch 4: loss "
        "0.2124 val_loss 0.6374 val_auc 0.7978 (50 steps, 5.8 s)', 'done: 4 epochs', 'job exited with 0'",
    "mpirun-ctr-new-export":
        f"{MPI}, 2 ranks, {W}, custom loop. Shard part-00003 (worker 1) came from a new export that writes unknown "
        "counts as the sentinels -1/-2 in I2/I3 (a few rows); log1p(-1) = -inf and log1p(-2) = NaN in the dense "
        "features, the first batch holding one makes the loss NaN, and the loop's finiteness check stops both workers "
        "(the loss is reduced over workers) at step 9. evidence: '[worker 1] epoch 1 step 9: loss is nan, stopping', "
        "'[worker 0] epoch 1 step 9: loss is nan, stopping', 'job exited with 3'",
    "mpirun-ctr-metrics-file":
        f"{MPI}, 2 ranks, {W}, custom loop with --metrics-json metrics.json: after epoch 1 the chief dumps the history "
        "with json.dump, but val_loss/val_auc are numpy float32 values from metric.result().numpy(): TypeError on "
        "worker 0; worker 1's next all-reduce fails with 'Socket closed'. evidence: '[worker 0] saved checkpoint "
        "ckpt/ckpt-1', 'TypeError: Object of type float32 is not JSON serializable' (in run_ctl, json.dump), worker 1 "
        "'UnavailableError: ... Collective ops is aborted by: Socket closed', 'job exited with 1'",
    "mpirun-ctr-export-best":
        f"{MPI}, 2 ranks, {W}, custom loop with --export-best: when val AUC improves, only the chief calls "
        "model.save(); under MultiWorkerMirroredStrategy saving reads the metric variables through a collective, so "
        "the chief issues an int64 collective while worker 1 has moved on to epoch 2's float all-reduce: TensorFlow's "
        "collective executor finds the two members disagree. evidence: '[worker 0] saved checkpoint ckpt/ckpt-1', "
        "'BaseCollectiveExecutor::StartAbort INTERNAL: Collective instance 563 expected type 0 and data_type 9 but got "
        "type 0 and data_type 1', 'tensorflow.python.framework.errors_impl.InternalError: {{function_node "
        "__wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0}} Collective ops is "
        "aborted by:', 'job exited with 1'",
    "mpirun-ctr-3-ranks":
        f"{MPI}, 3 ranks, {W}, custom loop with the default --global-batch 256: "
        "input_context.get_per_replica_batch_size() rejects a global batch that the 3 replicas cannot split, on every "
        "rank. evidence: 'ValueError: The `global_batch_size` 256 is not divisible by `num_replicas_in_sync` 3', "
        "'job exited with 1'",
    "mpirun-ctr-new-image":
        f"{MPI}, 2 ranks, {W}, model.fit, from an environment where tf.keras resolves to Keras 3 (keras 3.15.1, the "
        "default since TensorFlow 2.16; TF_USE_LEGACY_KERAS not set) while the training code is written for Keras 2's "
        "multi-worker fit (tf-keras): Keras 3's trainer cannot take the PerReplica batches MultiWorkerMirroredStrategy "
        "produces. evidence: '[worker 0] tensorflow 2.21.0, tf.keras is keras._tf_keras.keras, numpy 2.4.6', "
        "'.../site-packages/keras/src/trainers/epoch_iterator.py:74: UserWarning: `shuffle=True` was passed', "
        "\"ValueError: Attempt to convert a value ({'dense': PerReplica:{\", \"}}) with an unsupported type (<class "
        "'dict'>) to a Tensor.\", 'job exited with 1'",
    "mpirun-ctr-streamed-shard":
        f"{MPI}, 2 ranks, {W}, custom loop with --allreduce-timeout 30 (CommunicationOptions timeout_seconds). Worker "
        "1's second training shard, part-00003.tsv, is a named pipe that a streaming exporter should feed, and the "
        "exporter was not running: worker 1's input pipeline (filling its shuffle buffer) blocks opening the pipe "
        "before its first batch and prints nothing; worker 0's first all-reduce times out after 30 s and mpirun stops "
        "worker 1 (TensorFlow's notifier logs the SIGTERM). evidence: '[worker 1] training shards ['part-00001.tsv', "
        "'part-00003.tsv']', 'BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Collective has timed out during "
        "execution.', 'tensorflow.python.framework.errors_impl.DeadlineExceededError: "
        "{{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0}} "
        "Collective has timed out during execution.', 'preemption_notifier.cc:90] SIGTERM caught', 'job exited with 1'",
    "mpirun-ctr-tmux-session":
        f"{MPI}, 2 ranks, {W}, custom loop, 30 epochs, started inside a tmux session as 'mpirun ... > train.log 2>&1; "
        "echo \"job exited with $?\" >> train.log' (the log is train.log). During training the tmux session was "
        "killed (the terminal gone: SIGHUP to the pane's processes). mpirun prints nothing about the hangup; it sends "
        "SIGTERM to both ranks, whose TensorFlow preemption notifier logs it, and the job is gone; there is no job-exited "
        "line because the pane's shell died with the session. evidence: last progress '[worker 1] epoch 3 step 30 loss "
        "0.3592', 'preemption_notifier.cc:90] SIGTERM caught at 2026-11-29T17:34:51', nothing after",
    "mpirun-ctr-third-cross-layer":
        f"{MPI}, 2 ranks, {W}, custom loop with --cross-layers 3, rerun in a directory whose ckpt/ holds the "
        "checkpoint and config.json of an earlier 2-layer run. The chief asks on stdin whether to delete the old "
        "checkpoints and waits for an answer that never comes (a batch launch, nobody typing); worker 1 waits in the "
        "broadcast that initialises the next variables (no collective timeout set). Nothing is printed for 3 minutes "
        "(compare the glog timestamps); then the user presses Ctrl-C: mpirun closes the chief's stdin (EOFError at the "
        "prompt) and worker 1's broadcast fails with 'Socket closed'. Cause: the job hung silently at an interactive "
        "prompt; the errors come from the Ctrl-C. evidence: '[worker 0] ckpt/ holds checkpoints of another model "
        "configuration (cross_layers 2 -> 3). Delete them and start from scratch? [y/N]', about 180 s without output, "
        "'EOFError: EOF when reading a line', worker 1 'UnavailableError: {{function_node "
        "__wrapped__CollectiveBcastRecv_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: "
        "Socket closed', 'job exited with 1'",
}
