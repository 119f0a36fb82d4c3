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
}
