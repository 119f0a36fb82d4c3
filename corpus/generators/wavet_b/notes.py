"""What each committed run of wave T set B showed: the manifest rows' notes (written after the runs)."""

W = ("PointNet-style point-cloud shape classifier (6 synthetic shape classes, 2400 training scans x 256 points, "
     "shared 1x1-conv MLP + global max pool, 19.4K parameters, Adam)")

NOTES = {
    "mpspawn-pointnet-healthy":
        f"healthy: {W} under torch.multiprocessing.spawn, 2 ranks, DDP over gloo on CPU, 8 epochs with a "
        "DistributedSampler; loss falls, validation accuracy rises to about 0.98, a checkpoint per epoch, all ranks "
        "finish. evidence: '[rank 0] epoch 8: train loss 0.1523 val loss 0.0700 val acc 0.983', "
        "'[rank 0] saved ckpt/epoch8.pt', 'all ranks finished', 'job exited with 0'",
    "mpspawn-pointnet-classes-counted-per-shard":
        f"{W} under torch.multiprocessing.spawn, 2 ranks, DDP over gloo. Cause made real: each rank sizes the "
        "classifier head from the number of distinct labels in its own data shard (np.unique on its rank::world "
        "slice) instead of the global class list; the shards hold different label sets (rank 0 sees 4 classes, "
        "rank 1 sees 3), so the two ranks build models with different head shapes and DDP's construction-time "
        "parameter-shape check across processes fails. Cause: ranks disagree on the tensors they reduce "
        "(collective mismatch). evidence: '[rank 1] 2400 clouds, shard 1200, 3 classes', "
        "'[rank 0] 2400 clouds, shard 1200, 4 classes', '_verify_param_shape_across_processes', "
        "'RuntimeError: [1]: params[12] in this process with sizes [3, 64] appears not to match sizes of the same "
        "param in process 0.', 'job exited with 1'",
    "mpspawn-pointnet-sweep-two-runs-one-port":
        f"a small learning-rate sweep in one job script: two torch.multiprocessing.spawn runs of the {W} "
        "(lr 1e-3 and lr 3e-3, 2 ranks each) started in the background at the same time, both inheriting the job's "
        "MASTER_PORT=29608. The first run's rank 0 binds the TCPStore on 29608; the second run's rank 0 cannot "
        "listen there and its init_process_group fails, while the first run trains to the end. Cause: the "
        "rendezvous port is already in use. evidence: '[lr3e-3] starting 2 processes with "
        "torch.multiprocessing.spawn', '-- Process 0 terminated with the following error:', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29608, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'[lr1e-3] all ranks finished'",
    "mpspawn-pointnet-spot-reclaim-sigterm":
        f"{W} under torch.multiprocessing.spawn, 2 ranks, 60 epochs planned; the ranks install a SIGTERM handler that "
        "writes a preemption checkpoint. After 40 s the job's whole process group gets SIGTERM from outside (a "
        "spot/preemptible instance being reclaimed, as a scheduler would): both ranks log the signal at step 144, "
        "save ckpt/preempt-rank*.pt and exit 143; the spawn parent dies on the signal, so no exit line follows. "
        "Cause: the job was preempted (external SIGTERM), not a code fault. evidence: '[rank 0] epoch 4 step 140: "
        "loss 0.2407', '[rank 0] received SIGTERM at step 144: writing ckpt/preempt-rank0.pt and exiting', "
        "'[rank 1] received SIGTERM at step 144: writing ckpt/preempt-rank1.pt and exiting'",
    "mpspawn-pointnet-mmap-shard-rewritten-sigbus":
        f"{W} under torch.multiprocessing.spawn, 2 ranks, reading the training shard data/train_x.npy through "
        "np.load(mmap_mode='r'). 12 s into training another process (the export step, started in the background by "
        "the same job script) rewrites the shard in place with only 300 clouds: np.save truncates the same file, so "
        "the ranks' memory maps now extend past the end of the file and the next read of a cloud beyond it faults. "
        "Rank 0 dies on SIGBUS in native code, no Python traceback from the rank. Cause: a native crash (bus error "
        "on a truncated memory-mapped file). evidence: 'ls -l data' showing '7372928 ... train_x.npy' before and "
        "'921728 ... train_x.npy' after, 'wrote 300 training clouds (256 points) and 240 validation clouds to "
        "data/', 'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGBUS', "
        "'job exited with 1'",
    "mpspawn-pointnet-world-size-from-config":
        f"{W} under torch.multiprocessing.spawn with nprocs=2 but world_size=3 (taken from a config written for a "
        "3-device machine), init_process_group timeout 30 s: the two ranks that exist wait in the store for a third "
        "that is never started, and the rendezvous times out. Cause: not every rank reached the rendezvous. "
        "evidence: '[rank 0] init_process_group(gloo, world_size=3, 127.0.0.1:29624)', '[c10d] waitForInput: "
        "socket ... timed out after 30000ms', 'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: "
        "/default_pg/0//cpu//0/0', 'job exited with 1'",
    "lightning-pointnet-resume-healthy":
        f"healthy: {W} as a LightningModule, Lightning 2.6.6 Trainer(accelerator='cpu', devices=2, strategy='ddp'), "
        "ModelCheckpoint(val_acc, save_last) and LearningRateMonitor: a first run of 2 epochs, then a second run "
        "that resumes from ckpt/last.ckpt to 5 epochs. Alarming-looking but harmless lines: the 'Checkpoint "
        "directory ... exists and is not empty' warning, 'Restoring states from the checkpoint path', the "
        "DataLoader num_workers tips. Both runs exit 0. evidence: 'Restored all states from the checkpoint at "
        "ckpt/last.ckpt', '[rank 0] epoch 4: val_loss 0.1515 val_acc 0.971', '`Trainer.fit` stopped: "
        "`max_epochs=5` reached.', 'job exited with 0'",
    "lightning-pointnet-cache-lock-around-barrier":
        f"{W} as a LightningModule under Lightning 2.6.6 Trainer(devices=2, strategy='ddp', gloo, default 30 min "
        "process-group timeout). Cause made real: LightningModule.setup() takes an exclusive fcntl.flock on "
        "cache/.lock, builds a point cache, and calls trainer.strategy.barrier() while still holding the lock. "
        "Rank 1 gets the lock first and waits in the barrier; rank 0 blocks in flock and never reaches it. Nothing "
        "times out and nothing more is printed; after a minute of silence the person at the terminal presses Ctrl-C. "
        "Cause: a silent hang (a deadlock between a file lock and a barrier), no watchdog names it. evidence: "
        "'All distributed processes registered. Starting with 2 processes', '[rank 1] waiting for cache lock', "
        "'[rank 1] building point cache in cache/', '[rank 0] waiting for cache lock' then no output until "
        "'Detected KeyboardInterrupt, attempting graceful shutdown ...', 'job exited with 1'",
    "lightning-pointnet-pl1-trainer-arguments":
        f"{W}: a training script written for PyTorch Lightning 1.x run in a venv with lightning / "
        "pytorch-lightning 2.6.6 (the job prints pip list first): the Trainer is built with the 1.x arguments "
        "gpus=0, num_processes=2, accelerator='ddp_cpu', progress_bar_refresh_rate=20, which 2.x removed, so the "
        "Trainer constructor rejects them before any training. Cause: the script and the installed library version "
        "do not match. evidence: 'lightning                          2.6.6', 'trainer = L.Trainer(**kw)', "
        "\"TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'\", 'job exited with 1'",
    "raytrain-pointnet-variable-scans-short-one":
        "PointNet point-cloud classifier on raw variable-size scans (300-600 points each) under Ray Train "
        "TorchTrainer (Ray 2.60, 2 workers x 0.5 CPU, gloo, prepare_data_loader / prepare_model) on a local 2-CPU "
        "Ray cluster. The Dataset subsamples 256 points per scan with rng.choice(len(p), 256, replace=False); scan "
        "1500 of the export has only 180 points (a truncated scan), so the worker whose shard holds it raises "
        "ValueError in __getitem__; the TrainController reports the worker group error and the driver re-raises it. "
        "Cause: the training code raised on one worker (bad record). evidence: '(RayTrainWorker pid=...) Error in "
        "training function:', 'p = p[self.rng.choice(len(p), NPTS, replace=False)]', 'ValueError: Cannot take a "
        "larger sample than population when replace is False', 'ray.train.WorkerGroupError: Training failed due to "
        "worker errors:', '[Rank 1 Error Snippet]:', 'job exited with 1'",
    "raytune-pointnet-healthy":
        f"healthy: a Ray Tune grid sweep (lr 1e-3, 3e-3; 1 CPU per trial, 4 epochs each) of the {W} on a local "
        "2-CPU Ray 2.60 cluster: both trials start (the first status table shows them PENDING for a moment, "
        "which is normal), report every epoch and finish TERMINATED; the best trial is printed. evidence: "
        "'Trial status: 2 PENDING' (start-up), 'Trial tune_trainable_..._00001 completed after 4 iterations', "
        "'Trial status: 2 TERMINATED', 'best lr 0.003: val_acc 0.983', 'job exited with 0'",
    "raytune-pointnet-trial-memory-request":
        f"a Ray Tune grid sweep (lr 1e-3, 3e-3) of the {W} on a local Ray 2.60 cluster with 2 CPUs and about 23 GB "
        "of RAM, no autoscaler node types. Cause made real: the trainable is wrapped in tune.with_resources({'cpu': "
        "1, 'memory': 64 GiB}) (a value copied from a big-node config), which no node can satisfy; both trials stay "
        "PENDING, the autoscaler reports the request as unfulfillable every ~35 s, and after 100 s the user presses "
        "Ctrl-C. Cause: Ray cannot place the trials (infeasible resource request). evidence: 'Trial status: 2 "
        "PENDING' repeated, '(autoscaler +5s) Error: No available node types can fulfill resource request "
        "{'memory': 68719476736.0, 'CPU': 1.0}. Add suitable node types to this cluster to resolve this issue.', "
        "'Stop signal received (e.g. via SIGINT/Ctrl+C), ending Ray Tune run', 'Experiment has been interrupted'",
    "mpspawn-pointnet-preprocess-cache-scratch-full":
        f"{W} under torch.multiprocessing.spawn, 2 ranks, gloo. Before training rank 0 writes a preprocessed cache "
        "(normalised clouds + normals, 4 augmentations, 14.1 MiB each) to a 24 MiB scratch volume (tmpfs) while "
        "rank 1 waits at a barrier; the second file does not fit and the write fails, rank 0's process raises and "
        "spawn ends the job. Cause: the scratch filesystem ran out of space. evidence: 'tmpfs 24M 0 24M 0% "
        ".../scratch' (df -h), '[rank 0]   .../scratch/pc-cache/clouds-aug0.f32: 14.1 MiB', 'f.write(arr.tobytes())', "
        "'OSError: [Errno 28] No space left on device', 'job exited with 1'",
    "lightning-pointnet-degenerate-scan-nan":
        f"{W} as a LightningModule, Lightning 2.6.6 Trainer(devices=2, strategy='ddp', gloo). Cause made real: scan "
        "777 of the export is a failed scan with every point at the origin; the per-cloud normalisation divides by "
        "the cloud's largest radius, which is 0, so the batch holding it is 0/0 = NaN; the NaN loss and gradients "
        "(all-reduced by DDP) poison the weights and BatchNorm statistics of both ranks, and training runs on "
        "uselessly with NaN loss and chance accuracy (1/6) to the end, exiting 0. Cause: numerical divergence from "
        "a bad input record. evidence: '[rank 0] step 0: loss 1.8250', 'pc.py:93: invalid value encountered in "
        "divide', 'NaN or Inf found in input tensor.', '[rank 0] step 10: loss nan', '[rank 0] epoch 2: val_loss "
        "nan val_acc 0.167', 'job exited with 0'",
    "raytrain-pointnet-healthy":
        f"healthy: {W} under Ray Train TorchTrainer (Ray 2.60, Train v2, 2 workers x 0.5 CPU, gloo, "
        "prepare_data_loader / prepare_model) on a local 2-CPU Ray cluster, 5 epochs, a report per epoch; both "
        "workers' losses fall, val_acc reaches about 0.98, fit() returns without error. Alarming-looking but "
        "harmless: the TrainController's 'core_worker.cc:2465: Actor with class name: 'PreemptionWatcher' ... has "
        "constructor arguments in the object store and max_restarts > 0' error-level line. evidence: 'Started "
        "training worker group of size 2', 'Reporting training result 5: TrainingReport(checkpoint=None, "
        "metrics={'epoch': 5, ...', 'training finished: results in .../results/pointnet, error: None', "
        "'job exited with 0'",
}
