"""Manifest notes for wave BC (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Ray Train TorchTrainer (ray 2.60.0, Train V2) on a real two-node Ray cluster: two Linux network namespaces, "
     "skl-ray-head 10.78.0.1 ('ray start --head --port 6390 --num-cpus 1') and skl-ray-w1 10.78.0.2 ('ray start "
     "--address 10.78.0.1:6390 --num-cpus 1') on one veth link; the driver 'python train.py --address "
     "10.78.0.1:6390' on the head, ScalingConfig(num_workers=2) so one RayTrainWorker per node, DDP over gloo on CPU "
     "(torch 2.13.0+cpu), RunConfig with FailureConfig and CheckpointConfig(num_to_keep=2), ray.train.report per "
     "epoch; the launch script's console (both ray start outputs and the driver); airline flight arrival-delay "
     "regressor on per-flight schedule/weather rows")
NOTES = {
    "skl-delay-healthy": (
        f"no_failure: {W}; 3 epochs, both workers train, rank 0 reports a checkpoint each epoch, the driver prints "
        "the result. evidence: \"training finished: {'epoch': 3, 'train_loss': 2.8405044078826904, 'val_mae_min': "
        "4.911802768707275}\", 'job exited with 0'"),
    "skl-delay-healthy-worker-retry": (
        f"no_failure: {W}; FailureConfig(max_failures=2), 4 epochs; in epoch 2 the RayTrainWorker on skl-ray-w1 is "
        "SIGKILLed from outside (no OOM); rank 0's gloo read fails (Connection reset by peer), the controller's "
        "failure policy retries (error count 1 of 2), a new worker group restores the epoch-1 checkpoint and the run "
        "finishes. evidence: 'RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] "
        "Read error [10.78.0.2]:47275: Connection reset by peer.', '[FailurePolicy] RETRY', '  Error count: 1 (max "
        "allowed: 2)', '[rank 1] resumed from checkpoint at epoch 1', \"training finished: {'epoch': 4, 'train_loss': "
        "2.9101765155792236, 'val_mae_min': 4.876768589019775}\", 'job exited with 0'"),
    "skl-delay-healthy-late-worker-node": (
        f"no_failure: {W}; the worker node's start script runs 20 s after the head's (its output is not in this "
        "console); the controller requests 2 x 1 CPU, waits until skl-ray-w1 joins (within the worker group's "
        "startup timeout), then trains 3 epochs. evidence: \"Requesting resources: {'CPU': 1} * 2\", 'Started "
        "training worker group of size 2: ', 'job exited with 0'"),
    "skl-delay-metar-gaps": (
        "worker_exception: " + W + "; planned as a healthy run: 3 flights have temperature -9999 (METAR gaps), each "
        "worker prints one line per flight and drops it; the drop leaves gaps in the frame's index and the "
        "rotation-delay feature indexes positional arrays with index labels, so both workers raise IndexError while "
        "building features, max_failures=0. evidence: 'flight SK293 2026-10-02 GEG->PHX: temp_c -9999.0 is a METAR "
        "gap sentinel, dropped', 'IndexError: index 23997 is out of bounds for axis 0 with size 23997', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'job exited with 1'"),
    "skl-delay-worker-node-lost": (
        f"peer_process_died: {W}; 8 epochs, max_failures=0; in epoch 2 every process on skl-ray-w1 (raylet, agents, "
        "the training worker) is SIGKILLed at once, the host lost; the head's worker sees its gloo connection reset "
        "by 10.78.0.2 and the controller cannot reach the dead actor. evidence: 'RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [10.78.0.2]:4304: "
        "Connection reset by peer. This is typically caused by a remote worker hanging or bugs in the application. "
        "Check the logs of the remote worker before reporting an error. GLHF! 🏖️', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'job exited with 1'"),
    "skl-delay-link-down": (
        f"collective_timeout: {W}; TorchConfig(timeout_s=30), 8 epochs; in epoch 2 the link between the nodes goes "
        "down (ip link set eth0 down on skl-ray-w1); the head's worker times out in gloo after 30 s, the controller "
        "fails the run; Ray marks the worker node dead only afterwards (missed heartbeats). evidence: 'RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms "
        "for recv operation to complete', 'Torch process group shutdown timed out after 30 seconds', 'job exited "
        "with 1'"),
    "skl-delay-cpu-infeasible": (
        f"ray_scheduling_stall: {W}; resources_per_worker={{'CPU': 2}} on nodes of 1 CPU each: the placement "
        "group can never be placed; the autoscaler reports no node type can fulfil it, the worker group start times "
        "out after 60 s and the controller retries for ever (max allowed: inf); the harness ended the job after "
        "120 s (no 'job exited' line). evidence: \"Error: No available node types can fulfill resource request "
        "{'CPU': 2.0}. Add suitable node types to this cluster to resolve this issue.\", "
        "'ray.train.ControllerError: Training failed due to controller error:'"),
    "skl-delay-worker-node-missing": (
        f"ray_scheduling_stall: {W}; only the head was started (the worker node's ray start never ran): 2 workers "
        "of 1 CPU on a 1-CPU cluster; the worker group start times out after 60 s and the controller retries; the "
        "harness ended the job after 120 s (no 'job exited' line). evidence: 'Error in control loop iteration: The "
        "worker group startup timed out after 60.0 seconds waiting for 2 workers.', '  Error count: 1 (max allowed: "
        "inf)'"),
    "skl-delay-ray-oom": (
        f"host_oom_killed: {W}; skl-ray-w1 started with RAY_memory_usage_threshold just above the machine's use, "
        "'--cache-copies 2500' (about 2.5 GB of jittered feature copies per worker); Ray's memory monitor kills the "
        "training worker on 10.78.0.2. evidence: 'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to "
        "the node running low on memory.', 'Ray killed 1 worker(s) based on the killing policy', 'job exited with 1'"),
    "skl-delay-w1-cgroup-oom": (
        f"host_oom_killed: {W}; skl-ray-w1's ray start (so its raylet and workers) in a 1.2 GB cgroup-v1 memory "
        "cgroup, '--cache-copies 2500'; the kernel OOM killer kills the training worker on 10.78.0.2 while it builds "
        "the cache; Ray reports the worker process died (SYSTEM_ERROR). evidence: 'The actor is dead because its "
        "worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a "
        "connection error code 2. End of file. Some common causes include: (1) the process was killed by the OOM "
        "killer due to high memory usage', 'job exited with 1'"),
    "skl-delay-ckpt-disk-full": (
        f"disk_full: {W}; the run's storage_path (results/) is a 96 KiB tmpfs; persisting a checkpoint in "
        "ray.train.report runs out of space. evidence: 'OSError: [Errno 28] Error writing bytes to file. Detail: "
        "[errno 28] No space left on device', 'job exited with 1'"),
    "skl-delay-new-station-retries": (
        f"worker_exception: {W}; FailureConfig(max_failures=2); a flight to BZN, a station missing from the stations "
        "table: both workers raise KeyError building the hub feature, the controller retries twice, the same error "
        "each time, then gives up. evidence: \"KeyError: 'BZN'\", '  Error count: 3 (max allowed: 2)', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'job exited with 1'"),
    "skl-delay-rank-stopped": (
        f"collective_timeout: {W}; TorchConfig(timeout_s=20), 8 epochs; in epoch 2 the RayTrainWorker on skl-ray-w1 "
        "is SIGSTOPped (stuck, alive, holding its connections); the head's worker times out in gloo after 20 s and "
        "the controller fails the run. evidence: 'RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms "
        "for recv operation to complete', 'Torch process group shutdown timed out after 30 seconds', 'job exited "
        "with 1'"),
    "skl-delay-driver-sighup": (
        f"terminal_hangup: {W}; 8 epochs; in epoch 2 SIGHUP goes to the launch script's whole process group (the "
        "terminal it ran in closing): the launch shell and the driver die at once, nothing reports it and the "
        "console just stops in the middle of epoch 2 (no 'job exited' line). evidence: '[rank 1] 16:52:31 epoch 2 "
        "step 20/85 loss 3.5259'"),
    "skl-delay-visibility-nan": (
        f"training_divergence: {W}; 5 flights have visibility -9999 (METAR gaps the loader does not check): "
        "log1p gives NaN, the feature standardisation spreads it to every row and the loss is NaN on step 1; the "
        "finite-loss check raises on both workers. evidence: 'RuntimeWarning: invalid value encountered in log1p', "
        "'FloatingPointError: loss is nan at epoch 1 step 1', 'ray.train.WorkerGroupError: Training failed due to "
        "worker errors:', 'job exited with 1'"),
    "skl-delay-gcs-port-held": (
        f"port_in_use: {W}; a 'python -m http.server 6390' left running on skl-ray-head holds the GCS port; 'ray "
        "start --head --port 6390' cannot start the GCS grpc server and fails, the launch script stops before the "
        "worker node and the driver. evidence: \"Check failed: server_ Failed to start the grpc server. The "
        "specified port is 6390.\", 'RuntimeError: Failed to start GCS.  Last 1 lines of error files:', 'job exited "
        "with 1'"),
    "skl-delay-w1-small-shm": (
        f"shm_exhausted: {W}; skl-ray-w1's /dev/shm is a 64 KiB tmpfs (ray start warns and puts its object store "
        "in the temp dir), '--loader-workers 2 --batch-size 2048': the DataLoader worker process on 10.78.0.2 cannot "
        "allocate shared memory for its first batch. evidence: 'WARNING: The object store is using "
        "/tmp/wavebc-c-ray/w1 instead of /dev/shm because /dev/shm has only 65536 bytes available.', 'RuntimeError: "
        "Caught RuntimeError in DataLoader worker process 0.', 'RuntimeError: unable to allocate shared memory(shm) "
        "for file </torch_443_1176420205_0>: No space left on device (28)', 'job exited with 1'"),
    "skl-delay-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run of the same run name (not in this log), '--epochs 4 "
        "--resume' reruns under the same RunConfig name and storage_path: Ray Train restores the latest checkpoint "
        "and both workers train epochs 3-4. evidence: 'resuming run delaynet-sep from /tmp/wavebc-c-job/run/results', "
        "'[rank 0] resumed from checkpoint at epoch 2', \"training finished: {'epoch': 4, 'train_loss': "
        "2.9222412109375, 'val_mae_min': 4.869144916534424}\", 'job exited with 0'"),
    "skl-delay-healthy-rerun-done": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log) the same job is rerun with '--epochs 2 "
        "--resume': the controller finds the run snapshot, both workers restore the epoch-2 checkpoint, no epoch is "
        "left and the run ends at once with the restored metrics. evidence: \"A run snapshot was found in storage "
        "folder at: '/tmp/wavebc-c-job/run/results/delaynet-sep'\", '[rank 1] resumed from checkpoint at epoch 2', "
        "\"training finished: {'epoch': 2, 'train_loss': 2.386026382446289, 'val_mae_min': 4.9721574783325195}\", "
        "'job exited with 0'"),
    "skl-delay-v1-resume-api": (
        f"library_version_mismatch: {W}; after an earlier 2-epoch run (not in this log), the team's older resume "
        "path '--resume-from latest' passes TorchTrainer(resume_from_checkpoint=...), an argument of the Ray Train "
        "V1 API that this Ray version's Train V2 rejects: the driver raises before any training starts. evidence: "
        "'resuming from /tmp/wavebc-c-job/run/results/delaynet-sep/checkpoint_2026-12-01_17-00-45.582388', "
        "'    raise DeprecationWarning(_RESUME_FROM_CHECKPOINT_DEPRECATION_WARNING)', 'DeprecationWarning: "
        "`resume_from_checkpoint` is deprecated and will be removed in an upcoming release.', 'job exited with 1'"),
    "skl-delay-unknown-tails": (
        f"native_crash: {W}; the export's tail numbers are all 'UNKNOWN', so the rotation-delay feature sees one "
        "24,000-leg rotation; its recursive lru_cache helper (recursion limit raised to 1e6) overflows the C stack "
        "and both training workers die of SIGSEGV while building features (PYTHONFAULTHANDLER=1 set, but no stack "
        "dump reaches the console; the same code on the same data outside Ray exits with 139); Ray reports both "
        "worker processes dead with SYSTEM_ERROR. evidence: 'A worker died or was killed while executing a task by "
        "an unexpected system error.', 'The actor is dead because its worker process has died. Worker exit type: "
        "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.', "
        "'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.', 'job exited with "
        "1'"),
}
