"""Manifest notes for wave AY (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("ray start --head (local Ray 2.60.0 cluster, 4 CPUs) then python train_driver.py: pandas cleaning in the driver, "
     "ray.train.torch.TorchTrainer (Ray Train V2) with ScalingConfig(num_workers=2, use_gpu=False) and "
     "TorchConfig(backend='gloo'), DDP on CPU, ray.train.report with metrics + Checkpoint, RunConfig(storage_path, "
     "FailureConfig(max_failures=0)); parcel carrier's delivery-delay predictor")
WG = "'ray.train.WorkerGroupError: Training failed due to worker errors:'"
NOTES = {
    "ray-parcel-healthy": (
        f"no_failure: {W}, 3 epochs; both workers train, rank 0 reports a checkpoint each epoch, the driver's accuracy "
        "gate passes; the TrainController's transient 'Failed to send resource request' traceback and the "
        "PlacementGroupCleaner's repeated 'Failed to query Ray Train Controller actor state' warnings are Ray's own "
        "noise on a loaded 2-core host. evidence: \"2026-12-01 03:22:51,286 INFO parcels.delay: training finished: "
        "{'epoch': 3, 'train_loss': 0.7315, 'val_acc': 0.6733, 'epoch_s': 0.3}\", '2026-12-01 03:22:51,287 INFO "
        "parcels.delay: delay model passed the accuracy gate, ready to publish', 'job exited with 0'"),
    "ray-parcel-gcs-port": (
        "port_in_use: the team's job script runs ray start --head --port 33401 while a python -m http.server (left "
        "over on the dev box) holds port 33401; the GCS server cannot bind its gRPC port, ray start fails with "
        "RuntimeError: Failed to start GCS and the driver never runs. evidence: '[2026-12-01 03:23:14,644 W 16191 "
        "16191] rpc_client.h:153: Failed to connect to GCS at address 192.0.2.2:33401 within 5 seconds.', "
        "'RuntimeError: Failed to start GCS.  Last 1 lines of error files:', 'job exited with 1'"),
    "ray-parcel-healthy-garbled-scans": (
        f"no_failure: {W}; the export holds 6 parcels with an unreadable first scan time that the driver's cleaning "
        "logs at ERROR level and drops; training and the accuracy gate succeed. evidence: \"2026-12-01 03:24:29,864 "
        "ERROR parcels.delay: parcel P0000005 from depot D15: unreadable first scan time '--T::', dropped\", "
        "\"2026-12-01 03:25:45,919 INFO parcels.delay: training finished: {'epoch': 3, 'train_loss': 0.7349, "
        "'val_acc': 0.6438, 'epoch_s': 0.5}\", 'job exited with 0'"),
    "ray-parcel-unknown-outcome": (
        f"worker_exception: {W}; the export holds one parcel whose outcome is 'returned_to_sender', which the model "
        "does not know; both RayTrainWorkers raise KeyError while building features, the TrainController gives up "
        "(max_failures=0) and trainer.fit() raises WorkerGroupError in the driver. evidence: '  Error count: 1 (max "
        f"allowed: 0)', {WG}, \"KeyError: 'returned_to_sender'\", 'job exited with 1'"),
    "ray-parcel-healthy-worker-retry": (
        "no_failure: ray start --head then python train_driver.py (Ray Train V2 TorchTrainer, 2 gloo CPU workers, "
        "ray.train.report with Checkpoint), launched with --max-failures 2 (FailureConfig(max_failures=2)), 5 epochs; "
        "the rank-1 RayTrainWorker process is SIGKILLed once in epoch 2 (a transient loss, not OOM); rank 0 sees the "
        "gloo connection reset, the TrainController's failure policy retries, starts a new worker group that restores "
        "the latest reported checkpoint and training finishes and passes the gate (recovered fault). evidence: "
        "'A worker died or was killed while executing a task by an unexpected system error.', "
        "'[FailurePolicy] RETRY', '  Error count: 1 (max allowed: 2)', 'resumed from checkpoint (epoch 1)', "
        "'2026-12-01 03:30:18,713 INFO parcels.delay: delay model passed the accuracy gate, ready to publish', "
        "'job exited with 0'"),
    "ray-parcel-batch-config": (
        f"batch_size_mismatch: {W}; launched with --micro-batch 64 while the global batch is 128 with grad accum 2 on "
        "2 workers; both RayTrainWorkers' config check raises ValueError, the TrainController gives up "
        "(max_failures=0) and trainer.fit() raises WorkerGroupError. evidence: 'ValueError: global batch 128 != micro "
        f"batch 64 x grad accum 2 x world size 2', '  Error count: 1 (max allowed: 0)', {WG}, 'job exited with 1'"),
    "ray-parcel-zero-distance": (
        f"training_divergence: {W}; depot D07's route distances come out of the export as 0 km, the log-distance "
        "feature is -inf, the loss is NaN on the first step and the workers' finite-loss check raises "
        "FloatingPointError; the TrainController gives up (max_failures=0) and trainer.fit() raises WorkerGroupError. "
        "evidence: '/tmp/waveay-c-job/run/train_driver.py:75: RuntimeWarning: divide by zero encountered in log', "
        f"'FloatingPointError: loss is nan at epoch 1 step 1', {WG}, 'job exited with 1'"),
    "ray-parcel-handover-loop": (
        f"native_crash: {W}; the hub handover table has a loop (H041 <-> H048); the workers' lru_cache recursion "
        "over the handover chain (recursion limit raised to 1e6) overflows the C stack of the training thread and "
        "both RayTrainWorker processes die with SIGSEGV (the same feature code run alone in a thread exits 139, "
        "'Segmentation fault'); Ray forwards no signal name or Python fatal-error text, only that the workers' "
        "processes died (SYSTEM_ERROR, connection EOF) and the health check failed; trainer.fit() raises "
        "WorkerGroupError with ActorDiedError. evidence: 'A worker died or was killed while executing a task by an "
        "unexpected system error.', 'A worker health check failed.', 'ray.exceptions.ActorDiedError: The actor died "
        "unexpectedly before finishing this task.', 'The actor is dead because its worker process has died. Worker exit "
        "type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.', "
        "'job exited with 1'"),
    "ray-parcel-rank-paused": (
        "collective_timeout: ray start --head then python train_driver.py (Ray Train V2 TorchTrainer, 2 gloo CPU "
        "workers, FailureConfig(max_failures=0)) with --pg-timeout 30 (TorchConfig(timeout_s=30)) and a per-step "
        "delay, 8 epochs; the rank-1 RayTrainWorker process is SIGSTOPped in epoch 2; rank 0's gloo recv in the DDP "
        "all-reduce times out after 30 s, the TrainController fails the run (its process-group shutdown also times "
        "out) and trainer.fit() raises WorkerGroupError with rank 0's error. The TrainController's "
        "GetTimeoutError tracebacks earlier in the log are its transient resource-request noise. evidence: "
        "'RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
        "waiting 30000ms for recv operation to complete', 'Torch process group shutdown timed out after 30 seconds', "
        f"{WG}, 'job exited with 1'"),
    "ray-parcel-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run of the same run name (not in this log), --epochs 5 --resume "
        "reruns it with the same RunConfig(name, storage_path): Ray Train restores the latest checkpoint and the "
        "workers train epochs 3-5; the gate passes. evidence: '2026-12-01 03:40:28,145 INFO parcels.delay: resuming "
        "run parcel-delay from /tmp/waveay-c-job/run/ray_results', 'resumed from checkpoint (epoch 2)', "
        "\"2026-12-01 03:41:05,351 INFO parcels.delay: training finished: {'epoch': 5, 'train_loss': 0.6116, "
        "'val_acc': 0.7067, 'epoch_s': 0.4}\", 'job exited with 0'"),
    "ray-parcel-time-limit": (
        f"job_preempted: {W}, a 30-epoch run with a per-step delay; in epoch 3 the whole job's process group (the "
        "job shell, the driver and the Ray daemons started by ray start) gets SIGTERM, as a node agent or scheduler "
        "time limit sends it; the driver's core worker logs the SIGTERM and dies, the shell dies too (no 'job exited' "
        "line). evidence: '*** SIGTERM received at time=1796096528 on cpu 0 ***', '[2026-12-01 03:42:08,279 E 30678 "
        "30678] logging.cc:474: *** SIGTERM received at time=1796096528 on cpu 0 ***'"),
    "ray-parcel-ssh-closed": (
        f"terminal_hangup: {W}, a 30-epoch run started from an SSH session; in epoch 3 the session closes and the "
        "job's process group (shell, driver, Ray daemons) gets SIGHUP; the driver and the shell die at once without "
        "a message (Python's default SIGHUP action), so the log simply stops after the epoch-2 report (this batch's "
        "one scenario whose only evidence is that output stopped; no 'job exited' line). evidence: '[rank0] epoch 2 "
        "done: train loss 0.8502 val acc 0.593', \"Reporting training result 2: TrainingReport(checkpoint=None, "
        "metrics={'epoch': 2, 'train_loss': 0.8502, 'val_acc': 0.5933, 'epoch_s': 2.1}, validation=False) from rank "
        "1\""),
    "ray-parcel-ckpt-volume": (
        f"disk_full: {W}, 4 epochs with --storage on the team's 64 KiB checkpoint volume (a small tmpfs); after the "
        "first reported checkpoint the TrainController cannot write its checkpoint-manager snapshot (pyarrow write, "
        "errno 28), fails with ControllerError (max_failures=0) and trainer.fit() raises it in the driver. evidence: "
        "'Error in control loop iteration: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on "
        "device', 'ray.train.ControllerError: Training failed due to controller error:', 'job exited with 1'"),
    "ray-parcel-rare-outcome": (
        f"collective_mismatch: {W}; launched with --class-weights and TORCH_DISTRIBUTED_DEBUG=DETAIL in the job's "
        "environment (inherited by the Ray workers), on an export that holds a single 'late_2plus' parcel; the "
        "per-worker outcome bincount has 2 entries on one rank and 3 on the other, so the all_reduce shapes differ "
        "and torch's debug wrapper reports the mismatch on both ranks; trainer.fit() raises WorkerGroupError. "
        "evidence: 'RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[2], TensorDtypes=Double', "
        f"{WG}, 'job exited with 1'"),
    "ray-parcel-augment-oom": (
        f"host_oom_killed: {W}; launched with --augment-copies 16000 (jittered float64 copies of the training set "
        "built up front) with the whole job, Ray included, in a 2.5 GB cgroup-v1 memory cgroup; the kernel OOM killer "
        "kills the rank-0 RayTrainWorker (dmesg at the time: 'Memory cgroup out of memory: Killed process 4852 "
        "(ray::RayTrainWo)', not part of the log); Ray's log only says the worker process died unexpectedly and lists "
        "the OOM killer among the common causes; trainer.fit() raises WorkerGroupError with ActorDiedError. "
        "evidence: 'augmentation: built 0 of 16000 copies', 'A worker died or was killed while executing a task by an "
        "unexpected system error.', 'The actor is dead because its worker process has died. Worker exit type: "
        "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. Some "
        "common causes include: (1) the process was killed by the OOM killer due to high memory usage', "
        "'job exited with 1'"),
    "ray-parcel-container-shm": (
        f"shm_exhausted: {W}; launched with --loader-workers 2 inside a container-sized /dev/shm (a private mount "
        "namespace with a 32 KiB tmpfs there); ray start warns that the object store falls back from /dev/shm, then "
        "both workers' DataLoader fails to create its multiprocessing semaphores/queues in /dev/shm (Errno 28); "
        "trainer.fit() raises WorkerGroupError. evidence: 'WARNING: The object store is using /tmp/waveay-c-job/ray "
        "instead of /dev/shm because /dev/shm has only 32768 bytes available.', 'OSError: [Errno 28] No space left on "
        f"device', {WG}, 'job exited with 1'"),
    "ray-parcel-cpu-request": (
        f"ray_scheduling_stall: {W}; launched with --cpus-per-worker 3, so the 2 workers ask for 3 CPUs each on the "
        "4-CPU head node: the worker group's placement group can never be placed; the TrainController times out "
        "starting the worker group after 60 s, reports it and keeps attempting; the run makes no progress and the "
        "harness ends it after 120 s (no 'job exited' line). evidence: \"Requesting resources: {'CPU': 3.0} * 2\", "
        "'Error in control loop iteration: The worker group startup timed out after 60.0 seconds waiting for 2 "
        "workers.', 'ray.train.v2._internal.exceptions.WorkerGroupStartupTimeoutError: The worker group startup timed "
        "out after 60.0 seconds waiting for 2 workers.', \"Attempting to start training worker group of size 2 with "
        "the following resources: [{'CPU': 3.0}] * 2\""),
    "ray-parcel-optimizer-typo": (
        f"worker_exception: {W}; launched with --optimizer adamW (a typo of adamw); both RayTrainWorkers raise "
        "ValueError while building the optimizer, the TrainController gives up (max_failures=0) and trainer.fit() "
        f"raises WorkerGroupError. evidence: \"ValueError: unknown optimizer 'adamW'\", {WG}, 'job exited with 1'"),
    "ray-parcel-renamed-column": (
        "worker_exception: ray start --head (local Ray 2.60.0 cluster) then python train_driver.py; the scanner "
        "export renamed column weight_kg to weight_lb; the driver's pandas cleaning (before ray.init and any Ray "
        "Train work) raises KeyError and the driver exits 1 after ray start succeeded. evidence: "
        "'KeyError: \"[\'weight_kg\'] not in index\"', 'job exited with 1'"),
    "ray-parcel-cron-limit": (
        f"job_preempted: {W}, a 30-epoch run; the team's job script (ray start + driver) is wrapped in `timeout 60` "
        "(the dev box's cron time limit); after 60 s timeout sends SIGTERM, the driver's core worker logs it and "
        "dies mid-training (epoch 9), the shell reports timeout's exit code 124. evidence: '*** SIGTERM received at "
        "time=1796097155 on cpu 0 ***', '[2026-12-01 03:52:35,832 E 8681 8681] logging.cc:474: *** SIGTERM received "
        "at time=1796097155 on cpu 0 ***', 'job exited with 124'"),
}
