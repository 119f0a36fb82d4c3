"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-ftt-claims-healthy":
        "torch.multiprocessing.spawn, 2 processes, DDP over gloo (env:// init): an FT-Transformer (numeric-feature "
        "tokenizer, categorical embeddings, CLS token, 2-layer Transformer encoder) classifying insurance claims on a "
        "synthetic 4000-row table, 8 epochs; nothing was done to it. evidence: the numeric column summary with sane "
        "ranges, per-rank loss lines, 'epoch 7 val loss 0.6134 AUC 0.7146', 'saved ft_claims.pt', 'all workers "
        "finished', 'job exited with 0'.",
    "mpspawn-ftt-claims-raw-export-sentinel":
        "The same mp.spawn FT-Transformer run with --raw-export: the warehouse export encodes unknown income as FLT_MAX "
        "(3.4e38) in 2% of rows; the float32 column mean/std overflow to inf, standardisation turns those rows into NaN "
        "and the loss is NaN from the first logged step on both ranks; the job runs to the end uselessly. evidence: "
        "numpy 'RuntimeWarning: overflow encountered in reduce', 'tab_core.py:54: RuntimeWarning: invalid value "
        "encountered in divide', the summary line 'income min 6650 median 4.027e+04 max 3.403e+38', then '[rank 0] "
        "epoch 0 step 10 loss nan' and every later step, 'val loss nan AUC nan', yet 'job exited with 0'.",
    "mpprocess-ftt-claims-stale-world-size":
        "Two mp.Process DDP workers (gloo, env:// init, timeout 60 s) started by a job script that first sources "
        "cluster.env, a leftover of a 3-node layout that still exports WORLD_SIZE=3; the script takes world size from "
        "WORLD_SIZE and starts only --nprocs 2, so the TCPStore waits for a third client that never comes. evidence: "
        "'WORLD_SIZE=3' printed from cluster.env, 'launching 2 workers with process', c10d 'waitForInput ... timed out "
        "after 60000ms', 'DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//cpu//0/0' on rank 1, "
        "'DistStoreError: Timed out after 61 seconds waiting for clients. 2/3 clients joined.' on rank 0, both workers "
        "exit 1.",
    "mpprocess-ftt-claims-rank0-early-stop":
        "Two mp.Process DDP workers (gloo, timeout 45 s) where early stopping is decided on rank 0 alone (only rank 0 "
        "evaluates, then breaks out of the epoch loop): rank 0 goes to the final dist.barrier() while rank 1 starts the "
        "next epoch and waits in DDP's gradient all-reduce, so the ranks are desynchronised until gloo's timeout. "
        "evidence: '[rank 0] epoch 1 val AUC 0.6950 (best 0.6903)', '[rank 0] early stopping at epoch 1' with no rank-1 "
        "line after it, 45 s of silence, rank 1 in loss.backward() 'RuntimeError: ... unbound_buffer.cc:78] Timed out "
        "waiting 45000ms for recv operation to complete', rank 0 in dist.barrier() 'Connection closed by peer', both "
        "workers exit 1.",
    "mpspawn-ftt-claims-mmap-cache-refresh":
        "mp.spawn FT-Transformer (2 processes, gloo) reading its numeric features from a .npy cache mapped with "
        "np.load(mmap_mode='r'); before epoch 3 rank 0 'refreshes' the cache by np.save-ing a deduplicated, half-size "
        "array over the same path while the old mapping is still in use, so the next read beyond the new end of file "
        "faults. evidence: 'feature cache mapped: .../train_num.npy (4000, 6) float32', '[rank 0] feature cache "
        "refreshed: 2000 rows', 'Fatal Python error: Bus error' with the stack at tab_spawn.py line 64 (the cache read), "
        "'Terminating process ... via signal SIGTERM', 'ProcessExitedException: process 0 terminated with signal "
        "SIGBUS', 'job exited with 1'.",
    "lightning-ftt-claims-healthy":
        "Lightning 2.6.6 Trainer, strategy='ddp', 2 CPU processes (gloo): the FT-Transformer claims classifier, 6 epochs, "
        "cosine LR, ModelCheckpoint(monitor='val_auc', save_top_k=2); nothing was done to it. evidence: the srun hint and "
        "litlogger tip, 'Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2', 'distributed_backend=gloo', the model "
        "summary, per-rank loss lines, 'epoch 5 val AUC 0.7163', '`Trainer.fit` stopped: `max_epochs=6` reached.', "
        "'best checkpoint: .../epoch=5-step=192.ckpt', 'job exited with 0'.",
    "lightning-ftt-claims-ckpt-volume-full":
        "Lightning Trainer (ddp, 2 CPU processes) with ModelCheckpoint(every_n_train_steps=10, save_top_k=-1) writing "
        "into a 1 MiB checkpoint volume (a tmpfs standing in for a small quota'd mount): every checkpoint is kept and the "
        "volume fills. evidence: 'df -h' line 'tmpfs 1.0M 0 1.0M 0% .../ckpt', training to step 50, then rank 0 in "
        "model_checkpoint.py _save_checkpoint -> trainer.save_checkpoint 'OSError: [Errno 28] No space left on device: "
        "'/tmp/tmp...' -> '.../ckpt/ft-epoch=1-step=60.ckpt'', rank 1 'RuntimeError: ... Connection closed by peer', "
        "'job exited with 1'.",
    "lightning-ftt-claims-report-server-on-master-port":
        "A job script that first serves its reports folder with 'python -m http.server $MASTER_PORT' (the user reused the "
        "exported MASTER_PORT variable for the report server) and then starts the Lightning ddp run (2 CPU processes) "
        "with the same MASTER_PORT=29470: rank 0 cannot bind the TCPStore. evidence: 'serving reports/ on port 29470', "
        "'Serving HTTP on 0.0.0.0 port 29470', 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2', then "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29470, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited with 1'.",
    "hf-trainer-ftt-claims-healthy":
        "Hugging Face Trainer (transformers 5.24, DDP over gloo, 2 CPU processes started with mp.spawn) on the "
        "FT-Transformer claims classifier wrapped as a plain nn.Module returning {'loss', 'logits'}, 4 epochs, eval and "
        "save every epoch, compute_metrics with ROC AUC; healthy. evidence: the find_unused_parameters reducer warning "
        "on both ranks (harmless), loss dicts falling 0.697 -> ~0.61, eval dicts each epoch with eval_auc ~0.70, "
        "'train_runtime' summary, 'final eval: {... 'eval_auc': 0.709...}', 'all ranks finished', 'job exited with 0'.",
    "hf-trainer-ftt-claims-val-codes-refit":
        "Hugging Face Trainer (DDP over gloo, mp.spawn, 2 processes) on the claims FT-Transformer where the validation "
        "extract (from the current warehouse, with 4 occupations added after the training extract) has its categories "
        "encoded by a second Encoder fitted on the validation split itself, so its codes run past the training "
        "embedding tables (occupation codes up to 33 for a 30-row table). Training is fine; the first epoch-end "
        "evaluation fails. evidence: 'categorical cardinalities [12, 7, 30, 5]', three loss dicts, then process 0's "
        "traceback through trainer._maybe_log_save_evaluate -> evaluation_loop -> tab_hf.py forward -> tab_core.py "
        "line 81 (the categorical embedding lookup) -> F.embedding 'IndexError: index out of range in self', spawn "
        "terminating the other process, 'job exited with 1'.",
    "hf-trainer-ftt-claims-rank0-final-evaluate":
        "Hugging Face Trainer (DDP over gloo, mp.spawn, 2 processes) on the claims FT-Transformer; training and the "
        "per-epoch evaluations (all ranks) are fine, but the final trainer.evaluate() is called under 'if rank == 0' "
        "only: its gather_for_metrics all_gather is a collective that rank 1 never issues (rank 1 saves the model and "
        "exits), so rank 0 waits for a peer that has left. evidence: 4 epochs of loss/eval dicts, the 'train_runtime' "
        "summary, then process 0's traceback at tab_hf.py line 70 'print(f\"final eval: {trainer.evaluate()}\"...' -> "
        "evaluation_loop -> accelerate gather_for_metrics -> torch.distributed.all_gather 'RuntimeError: ... "
        "pair.cc:553] Connection closed by peer', no error from rank 1, 'job exited with 1'.",
    "hf-trainer-ftt-claims-small-shm-loader":
        "Hugging Face Trainer (DDP over gloo, mp.spawn, 2 processes) on a 40000-row claims table with "
        "dataloader_num_workers=2, run in a container-like mount namespace whose /dev/shm is a 1 MiB tmpfs: when the "
        "first epoch's DataLoader starts its worker processes, creating the index queue's POSIX semaphore in /dev/shm "
        "fails. evidence: the 'df -h /dev/shm' line 'tmpfs 1.0M 0 1.0M 0% /dev/shm', 'train 40000 rows', then process 0's "
        "traceback trainer.train -> get_batch_samples -> accelerate data_loader __iter__ -> torch dataloader "
        "_MultiProcessingDataLoaderIter.__init__ -> multiprocessing Queue -> BoundedSemaphore -> "
        "_multiprocessing.SemLock 'OSError: [Errno 28] No space left on device', 'job exited with 1'.",
    "raytrain-ftt-claims-healthy":
        "Ray Train TorchTrainer (Ray 2.60, 2 workers x 0.5 CPU, gloo) on this generator's local Ray cluster: the "
        "FT-Transformer claims classifier, 5 epochs, each epoch reported with a rank-0 checkpoint (num_to_keep=2); "
        "healthy, with an alarming-looking but harmless core_worker error line. evidence: 'Requesting resources: "
        "{'CPU': 0.5} * 2', 'Setting up process group for: env:// [rank=0, world_size=2]', the TrainController's "
        "'core_worker.cc:2465: Actor with class name: 'PreemptionWatcher' ... has constructor arguments in the object "
        "store and max_restarts > 0' (an informational E-level line), per-rank loss lines, 'Reporting training result "
        "5', 'final metrics: {'epoch': 4, ... 'val_auc': 0.7146...}', 'checkpoint: Checkpoint(...)', 'job exited with 0'.",
    "raytrain-ftt-claims-strict-spread":
        "Ray Train TorchTrainer of the claims model with ScalingConfig(num_workers=2, resources_per_worker={'CPU': 0.5}, "
        "placement_strategy='STRICT_SPREAD') (the setting of a multi-node cluster) submitted to a one-node, 2-CPU "
        "cluster: the two bundles must land on different nodes, so the placement group is never placed although the "
        "CPUs are free; Train v2 retries forever until the user presses Ctrl-C twice and kills it. evidence: 'cluster "
        "resources: {... 'CPU': 2.0}' with one node, 'Requesting resources: {'CPU': 0.5} * 2', repeated "
        "'WorkerGroupStartupTimeoutError: The worker group startup timed out after 60.0 seconds waiting for 2 workers. "
        "Potential causes include: ... (2) infeasible resource request where the provided `ScalingConfig` cannot be "
        "satisfied', '[FailurePolicy] RETRY', 'Error count: 1 (max allowed: inf)', 'Attempting to start training worker "
        "group' again, then 'Received SIGINT. Gracefully aborting the training run' twice and no training line at all.",
    "rayactor-ftt-claims-stats-self-call":
        "Ray actors and tasks on this generator's local Ray cluster: a ColumnStats actor (max_concurrency=1) keeps running "
        "numeric-column statistics for the claims table; after a warm-up of plain add() calls, 16 scoring tasks each call "
        "its add_and_normalise(), which inside the actor does ray.get(self_handle.stats.remote()) on its own handle: the "
        "nested call queues behind the method that is waiting for it, so the actor deadlocks and the driver's ray.get "
        "waits forever with nothing printed; the user presses Ctrl-C after ~80 s. evidence: 'streaming 16 shards ... "
        "through the column-statistics actor', 'warm-up shard 4: 15000 rows seen (0.0s)', then no 'shard N: mean |z|' "
        "line at all, the driver's KeyboardInterrupt traceback in 'for i, score in ray.get(refs):' (ray._raylet "
        "CoreWorker.get_objects) timestamped 11:00:00 against the 10:58:40 start, 'task_manager.cc:1545: Failed to push "
        "error to driver for task ...' lines, 'job exited with 1'.",
    "lightning-ftt-claims-spot-sigterm":
        "Lightning Trainer (ddp, 2 CPU processes) planned for 15 epochs, run by a job script that traps SIGTERM; during "
        "epoch 4 the node is reclaimed and SIGTERM reaches the whole process group (the spot-instance notice). Lightning's "
        "signal connector catches it on both ranks and training stops early without an error. evidence: 'epoch 3 val "
        "AUC 0.7159' (epoch 4 of 15), '[rank: 0] Received SIGTERM: 15', '[rank: 1] Received SIGTERM: 15', 'job script: "
        "caught SIGTERM', no '`Trainer.fit` stopped: `max_epochs=15` reached.' and no best-checkpoint line, 'job exited "
        "with 0'.",
    "raytune-ftt-claims-feature-crosses":
        "Ray Tune grid (lr x width, 4 trials, 2 concurrent, 1 CPU each) of the claims model with --crosses 2 on 20000 "
        "rows: each trial first materialises pairwise numeric x one-hot feature crosses of order 2 (6 x 54 levels x 54 = "
        "17496 float64 columns, ~2.8 GB per trial); two trials doing this at once push the node over Ray's memory-monitor "
        "threshold (set to this machine's use at start plus 2.5 GiB) and the raylet kills both trial workers. evidence: "
        "'[rank 0] building crosses: 6 numeric x 54 levels x order 2', 'cross order 1: 324 columns, 0.05 GiB' in both "
        "trials and no order-2 line, then 'ray.exceptions.OutOfMemoryError: 2 worker(s) were killed due to the node "
        "running low on memory ... OOM kill reason: Memory usage 5142953984B exceeded threshold of 5105856000B', 'Top 10 "
        "memory users' led by two 'ray::ImplicitFunc.train' at ~1 GB, 'RuntimeError: Caught unexpected exception: 2 "
        "worker(s) were killed ...', 'job exited with 1'.",
}
