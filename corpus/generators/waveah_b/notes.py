"""What each committed run of wave AH (b) showed (written after the runs; the manifest's notes column)."""

W = ("changedet.py (Siamese change detector: shared conv encoder over two dates of synthetic 5-band 64x64 satellite "
     "tiles, feature differencing, small decoder, BCE + Dice, validation IoU of changed pixels)")

NOTES = {
    "torchrun-siamese-change-healthy":
        f"torchrun 2 ranks gloo, {W}, 5 epochs; IoU rises from 0.60 to 0.79, checkpoints each epoch, finishes "
        "cleanly. evidence: 'epoch 4 val_loss 0.3201 IoU 0.7909', 'all ranks finished', 'job exited with 0'",
    "torchrun-siamese-change-low-sun-scene":
        f"torchrun 2 ranks, {W}, with a compiled cloud-shadow mask (C library via ctypes) whose shadow offset comes "
        "from the scene's sun elevation (0.002 deg): the offset is ~170k pixels, the C loop writes far outside the "
        "tile buffer and both ranks die with SIGSEGV in the dataset's __getitem__ (the ctypes call). evidence: "
        "'Fatal Python error: Segmentation fault', 'File \".../changedet.py\", line 135 in __getitem__', "
        "'exitcode  : -11 (pid: ...)  (SIGSEGV)'",
    "torchrun-siamese-change-session-closed":
        f"torchrun 2 ranks, {W}, 40 epochs started from a terminal; after 40 s SIGHUP to the job's process group "
        "(session closed); torchrun's agent shuts the workers down. evidence: 'Received 1 death signal, shutting "
        "down workers', 'Sending process ... closing signal SIGHUP', 'job exited with 1'",
    "mpspawn-siamese-change-old-head-address":
        f"torch.multiprocessing.spawn 2 ranks, {W}; MASTER_ADDR=10.20.0.14 left from an old cluster head in the "
        "environment instead of the local host; the TCPStore client reaches something at that address that is not "
        "the c10d store (it answers with HTTP), retries for the 45 s store timeout and init_process_group fails on "
        "both ranks. evidence: 'spawning 2 ranks (gloo), MASTER_ADDR=10.20.0.14 MASTER_PORT=29614', 'TCP client "
        "failed to connect/validate to host 10.20.0.14:29614 - retrying', 'DistNetworkError: Ping failed, invalid "
        "value returned from server. Expected: 3920, Got: 1347703880'",
    "mpspawn-siamese-change-second-launch":
        f"torch.multiprocessing.spawn 2 ranks, {W}, launched while an earlier launch of the same training (same "
        "MASTER_PORT 29609) is still running; rank 0 cannot bind the store port. evidence: 'MASTER_PORT=29609', "
        "'The server socket has failed to listen on any local network address. port: 29609, ... EADDRINUSE'",
    "hftrainer-siamese-change-per-tile-norm":
        f"transformers Trainer under torchrun 2 ranks, {W}, with per-tile band standardisation; some second-date "
        "tiles are nodata (all zeros, outside the swath) so their std is 0 and the inputs become NaN; the gradient "
        "norm is NaN from the first logged step and eval_loss NaN every epoch; the run keeps going and exits 0 with "
        "IoU 0. evidence: 'RuntimeWarning: invalid value encountered in divide', 'return (img - m) / s', "
        "\"'grad_norm': 'nan'\", \"'eval_loss': 'nan'\", 'final val IoU 0.0000'",
    "lightning-siamese-change-healthy-nodata-tiles":
        f"Lightning Trainer ddp on CPU with 2 devices, {W}, one DataLoader worker, 5% nodata tiles with fixed "
        "normalisation (harmless), 4 epochs; Lightning's srun hint and deprecation warnings, IoU still low when it "
        "stops, but nothing failed. evidence: '`Trainer.fit` stopped: `max_epochs=4` reached.', 'fit finished: "
        "{...}', 'job exited with 0'",
    "lightning-siamese-change-archive-scenes":
        f"Lightning Trainer ddp 2 devices, {W}, tiles listed from a scene file that mixes sensors; the Landsat 7 "
        "archive scene (LE07_..., 'L7') yields 4-band tiles without SWIR, and default_collate cannot stack them with "
        "5-band tiles; rank 1 raises, rank 0 then sees the connection close. evidence: 'LE07_L2SP_194027_20030718 L7 "
        "32', '[rank1]: RuntimeError: stack expects each tensor to be equal size, but got [5, 64, 64] at entry 0 and "
        "[4, 64, 64] at entry 12', '[rank0]: ... Connection closed by peer' (symptom)",
    "lightning-siamese-change-loader-workers-container":
        f"Lightning Trainer ddp 2 devices, {W}, 2 DataLoader workers per rank and batch 32 in a container whose "
        "/dev/shm is 2 MB; workers cannot put batches in shared memory. evidence: 'tmpfs 2.0M 0 2.0M 0% /dev/shm', "
        "'Caught RuntimeError in DataLoader worker process 0', 'unable to allocate shared memory(shm) for file "
        "</torch_...>: No space left on device (28)'",
    "raytune-siamese-change-asha-sweep-healthy":
        f"Ray Tune ASHA sweep of lr and width, 4 trials x 3 epochs, 1 CPU per trial on this generator's 2-CPU Ray "
        f"cluster, {W}, per-epoch checkpoints; ASHA stops three trials early, the sweep completes. evidence: "
        "'4 TERMINATED' trial table, \"best trial: {'lr': 0.005456625747987032, 'width': 16} iou 0.7336\", "
        "'job exited with 0'",
    "raytune-siamese-change-replay-cache":
        f"Ray Tune sweep, 2 trials, {W}, on a Ray cluster whose memory monitor threshold (RAY_memory_usage_threshold) "
        "was set to 0.317, just above what the shared node used when the cluster started; as the trials started the "
        "node passed the threshold and Ray's memory monitor killed both trial workers; Tune reports the trials as "
        "failed. evidence: 'ray.exceptions.OutOfMemoryError: 2 worker(s) were killed due to the node running low "
        "on memory', '7.49GB used / 23.54GB limit (0.318038)', 'Ray killed 2 worker(s) based on the killing "
        "policy', 'Trial task failed for trial trial_fn_..._00001'",
    "raytrain-siamese-change-three-workers":
        f"Ray Train TorchTrainer, {W}, ScalingConfig(num_workers=3, resources_per_worker={{'CPU': 1}}) on a Ray "
        "cluster with 2 CPUs: the worker group can never be placed; the controller times out after 60 s and "
        "retries, again and again, until Ctrl-C / kill. evidence: 'Attempting to start training worker group of "
        "size 3 with the following resources: [{'CPU': 1}] * 3', 'WorkerGroupStartupTimeoutError: The worker group "
        "startup timed out after 60.0 seconds waiting for 3 workers. Potential causes include: (1) temporary "
        "insufficient cluster resources'",
    "torchrun-siamese-change-geojson-export":
        f"torchrun 2 ranks, {W}, with GeoJSON export of the predicted change polygons on the last rank (pure-Python "
        "polygon tracing at 8x resolution) while rank 0 writes checkpoints, then an epoch-end "
        "dist.monitored_barrier with a 3 s timeout; rank 1 is still tracing polygons when rank 0's barrier times "
        "out; rank 0 raises, rank 1 then sees the connection close and torchrun tears it down. evidence: '[Rank 0]: "
        "Rank 1 failed to pass monitoredBarrier in 3000 ms', '[rank 1] exported 237 change polygons' (after the "
        "timeout), '[rank1]: ... Connection closed by peer' and 'exitcode  : -15 (SIGTERM)' (symptoms)",
}
