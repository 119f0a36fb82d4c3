"""What each committed run of wave U set B showed (the manifest rows' notes), written after the runs."""

NOTES = {
    "mpspawn-triplet-reid-healthy": (
        "torch.multiprocessing.spawn, 2 ranks, gloo DDP: batch-hard triplet re-id embedder (PK 16x4 per rank), 8 epochs "
        "of 30 steps, rank 0 evaluates retrieval and saves a checkpoint per epoch; healthy. evidence: '[rank 0] epoch 8: "
        "train loss 0.0123 active triplets 0.12 | val recall@1 0.984 recall@5 0.998 mAP 0.951', '[rank 0] done', "
        "'[rank 1] done', 'all ranks finished', 'job exited with 0'"),
    "mpspawn-triplet-reid-shard-ids-as-strings": (
        "mp.spawn 2 ranks; train shard 1 was replaced by a file from a newer export that writes person ids as strings "
        "(P00412), so rank 1's Shard() fails converting the id column with torch.as_tensor before training; rank 0 is "
        "terminated by spawn. Cause: the training code/data on rank 1 (user code raised). evidence: '-- Process 1 "
        "terminated with the following error:', 'shard = Shard(os.path.join(a.data, f\"train-{rank % SHARDS:05d}.npz\"))', "
        "'self.id = torch.as_tensor(z[\"id\"])', \"TypeError: can't convert np.ndarray of type numpy.str_. The only "
        "supported types are: float64, ...\""),
    "mpspawn-triplet-reid-distributed-debug-detail": (
        "mp.spawn 2 ranks with TORCH_DISTRIBUTED_DEBUG=DETAIL set (printed by `env` at the top) to debug collectives: "
        "with DETAIL, torch 2.13's gloo DDP set-up crashed rank 1 in native code right after the shards were loaded "
        "(reproducible; without DETAIL the same run is healthy); spawn then SIGTERMs rank 0. evidence: "
        "'TORCH_DISTRIBUTED_DEBUG=DETAIL', 'Terminating process 24649 via signal SIGTERM', "
        "'torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGSEGV'"),
    "mpspawn-triplet-reid-rank0-kreciprocal-rerank": (
        "mp.spawn 2 ranks, process-group timeout 20 s; after epoch 1 rank 0 alone runs k-reciprocal re-ranking in "
        "plain Python over 1200 val queries + 2400 train distractors (tens of seconds) while rank 1 goes on into "
        "epoch 2 and waits in DDP's collective in the forward; gloo times out on rank 1 after 20 s. evidence: "
        "'[rank 0] k-reciprocal re-ranking: 1200 val queries + 2400 train distractors', '-- Process 1 terminated with "
        "the following error:', 'loss, frac = batch_hard_triplet(model(x), y, a.margin)', 'RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete'"),
    "mpspawn-triplet-reid-hardneg-store-key": (
        "mp.spawn 2 ranks with a TCPStore passed to init_process_group (timeout 1800 s); at epoch 2 rank 0 publishes "
        "mined hard negatives under key hardneg/epoch2 but rank 1 blocks in store.get('hardneg/2') (a key never "
        "set); rank 0 then waits in the next collective. No error, no watchdog: the console stays silent until "
        "the user presses Ctrl-C (twice) and kills it. evidence: '[rank 1] waiting for hard-negative list "
        "hardneg/2', '[rank 0] published hard negatives for epoch 2 to the store', '[rank 0] saved ckpt/epoch2.pt' "
        "then nothing until 'KeyboardInterrupt' in spawn's join (context.join / selectors select)"),
    "mpspawn-triplet-reid-full-gallery-broadcast-cgroup": (
        "mp.spawn 2 ranks in a container-like memory cgroup of 2 GiB; after epoch 1 rank 0 evaluates over the full "
        "6000-sighting gallery with broadcast (N,N,D) float64 distances (~9 GB), and the kernel's cgroup OOM killer "
        "kills it; spawn SIGTERMs rank 1. evidence: '[rank 0] exact retrieval over the full gallery (6000 "
        "sightings)', 'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL', "
        "dmesg (grep'd after the job) 'oom-kill:constraint=CONSTRAINT_MEMCG,... oom_memcg=/waveu-b-mpspawn-triplet-reid-"
        "full-gallery-broadcast-cgroup', 'Memory cgroup out of memory: Killed process 1475 (python) "
        "total-vm:9996176kB, anon-rss:1715088kB'"),
    "mpspawn-triplet-reid-sharded-eval-quality-filter": (
        "mp.spawn 2 ranks; distributed evaluation: each rank embeds the val identities id % world == rank after "
        "dropping sightings below a detector-quality threshold (0.2), then all_gather's the embeddings into "
        "equal-size buffers; the filter leaves 484 sightings on rank 0 and 465 on rank 1, so the ranks' all_gather "
        "payloads differ and gloo aborts rank 1 (SIGABRT); spawn SIGTERMs rank 0. Cause: ranks issued the same "
        "collective with different shapes. evidence: '[rank 1] embedded 465 val sightings (quality >= 0.2)', "
        "'[rank 0] embedded 484 val sightings (quality >= 0.2)', \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", 'what():  [enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length "
        "<= op.nbytes. 30976 vs 29760. Received data size doesn't match expected size. Is there a distributed "
        "collective mismatch in your code?', 'process 1 terminated with signal SIGABRT'"),
    "mpspawn-triplet-reid-master-addr-from-old-node": (
        "mp.spawn 2 ranks with MASTER_ADDR sourced from a stale .env (10.31.7.42, the old training node; printed by "
        "`cat .env`) instead of this host: both ranks' TCPStore clients retry connecting to 10.31.7.42:29624 (whatever "
        "answers there is not a c10d store) until the 30 s store timeout and init_process_group fails on rank 0. "
        "evidence: 'MASTER_ADDR=10.31.7.42', '[c10d] TCP client failed to connect/validate to host 10.31.7.42:29624 - "
        "retrying (try=0, timeout=30000ms ...): Ping failed, invalid value returned from server', '[c10d] TCP client "
        "failed to connect/validate to host 10.31.7.42:29624 - timed out (try=9, timeout=30000ms)', "
        "'torch.distributed.DistNetworkError: Ping failed, invalid value returned from server. Expected: 24999, Got: "
        "1347703880'"),
    "lightning-triplet-reid-resume-healthy": (
        "Lightning 2.6 Trainer, strategy ddp on CPU, 2 processes: 2 epochs, then a second run resumes from "
        "ckpt/last.ckpt to 5 epochs; harmless warnings (srun available but not used, checkpoint directory exists and "
        "is not empty). evidence: 'Restoring states from the checkpoint path at ckpt/last.ckpt', 'Restored all states "
        "from the checkpoint at ckpt/last.ckpt', '[rank 0] epoch 4: val recall@1 0.973 mAP 0.949', 'best checkpoint: "
        ".../ckpt/epoch=4-step=150.ckpt (val_mAP 0.949)', 'job exited with 0' (twice)"),
    "lightning-triplet-reid-exact-euclidean-distance": (
        "Lightning ddp, 2 processes; the batch-hard triplet loss computes pairwise distances as an exact sqrt with no "
        "epsilon ('distance: euclidean (exact sqrt)'), so the zero self-distances on the diagonal give an infinite "
        "sqrt gradient (0 x inf = NaN) in the first backward; weights become NaN and the loss is nan from then on "
        "while the run keeps going (retrieval metrics frozen). evidence: 'distance: euclidean (exact sqrt), margin "
        "0.2, PK 16x4', '[rank 0] step 0: triplet loss 0.2630 active 0.98', '[rank 0] step 10: triplet loss nan "
        "active 0.00', '[rank 0] epoch 1: val recall@1 1.000 mAP 0.272'"),
    "lightning-triplet-reid-master-port-is-ray-dashboard": (
        "Lightning ddp, 2 processes, MASTER_PORT=8411, the port of the Ray dashboard already running on this node; "
        "rank 0's TCPStore cannot listen. evidence: 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 8411, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
        "with 1'"),
    "raytrain-triplet-reid-worker-killed-restored-healthy": (
        "Ray Train 2.60 TorchTrainer (v2), 2 workers x 0.5 CPU on a local 2-CPU cluster, checkpoint each epoch, "
        "FailureConfig(max_failures=2); 45 s in, worker 1's process is SIGKILLed (a lost worker, as on a reclaimed "
        "node); worker 0 sees the gloo connection reset, the controller retries, the new worker group resumes from "
        "the epoch-4 checkpoint and finishes all 6 epochs: alarming lines, healthy run. evidence: 'killed worker 1 "
        "(pid 27499)', '(raylet) A worker died or was killed while executing a task by an unexpected system error', "
        "'Read error [127.0.0.1]:6788: Connection reset by peer', '[FailurePolicy] RETRY', 'Error count: 1 (max "
        "allowed: 2)', '[worker 0] resumed from checkpoint at epoch 4', \"training finished: {'epoch': 6, ... "
        "'val_r1': 0.9833333492279053, 'val_mAP': 0.9480114579200745}\", 'job exited with 0'"),
    "raytrain-triplet-reid-checkpoints-small-volume": (
        "Ray Train TorchTrainer, 2 workers, RunConfig(storage_path) on a 6 MiB scratch volume (df -h printed first); "
        "each epoch's checkpoint also carries float64 gallery embeddings (~2.4 MB), so the third checkpoint upload "
        "(pyarrow copy into storage) fails on rank 0 with ENOSPC and the run is failed (max_failures=0). evidence: "
        "'tmpfs 6.0M 0 6.0M 0% .../scratch', 'storage.py ... persist_current_checkpoint', 'pyarrow.fs.copy_files', "
        "'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device', "
        "'[FailurePolicy] RAISE', 'ray.train.WorkerGroupError: Training failed due to worker errors:'"),
    "raytrain-triplet-reid-use-gpu-config": (
        "Ray Train TorchTrainer with ScalingConfig(use_gpu=True) (the config from a GPU cluster) on a CPU-only local "
        "Ray cluster: the 2 workers ({'CPU': 0.5, 'GPU': 1} each) can never be placed; the controller's worker group "
        "start times out after 60 s and is retried forever; the user presses Ctrl-C twice and the job is killed. "
        "evidence: \"Requesting resources: {'CPU': 0.5, 'GPU': 1} * 2\", \"(autoscaler +25s) Error: No available "
        "node types can fulfill resource request {'CPU': 0.5, 'GPU': 1.0}\", 'WorkerGroupStartupTimeoutError: The "
        "worker group startup timed out after 60.0 seconds waiting for 2 workers', 'Error count: 1 (max allowed: "
        "inf)', 'Received SIGINT. Gracefully aborting the training run'"),
    "raytrain-triplet-reid-ray-air-session-api": (
        "A training script written for Ray 2.6's AIR API (from ray.air import ScalingConfig, session) run with Ray "
        "2.60 (pip list printed first: ray 2.60.0, torch 2.13.0+cpu): the Train v2 TorchTrainer rejects the old "
        "ray.air ScalingConfig class before any worker starts. Cause: code/library version mismatch. evidence: "
        "'ray 2.60.0', 'trainer = TorchTrainer(loop, ...' in ray_legacy_main, \"ValueError: Invalid `ScalingConfig` "
        "type: <class 'ray.air.config.ScalingConfig'>. Use `ray.train.ScalingConfig` instead. See this issue for "
        "more context: https://github.com/ray-project/ray/issues/49454\", 'job exited with 1'"),
    "raytrain-triplet-reid-node-drain-sigterm": (
        "Ray Train TorchTrainer, 2 workers, a 40-epoch run; 60 s in (epoch 13 of 40) the job's process group gets "
        "SIGTERM, as from a node drain / scheduler, and the Ray driver dies on it (Ray's fatal-signal handler "
        "prints the SIGTERM); no error came before it, training was progressing normally. evidence: '[worker 0] "
        "epoch 13 step 380: triplet loss 0.0088 active 0.09' (last progress), '*** SIGTERM received at "
        "time=1795889726 on cpu 0 ***', 'logging.cc:474: *** SIGTERM received at time=1795889726 on cpu 0 ***'"),
    "raytune-triplet-reid-margin-sweep-healthy": (
        "Ray Tune 2.60 grid over the triplet margin (0.1, 0.2, 0.4), one CPU per trial on a 2-CPU local cluster "
        "(two trials at a time, the third PENDING until one finishes), 4 epochs each; healthy. evidence: 'Trial "
        "status: 3 PENDING', 'Trial tune_trainable_bbb02_00002 completed after 4 iterations', 'Trial status: 3 "
        "TERMINATED', 'Current best trial: bbb02_00002 with val_mAP=0.9180821776390076', 'best margin 0.4: val_mAP "
        "0.918', 'job exited with 0'"),
}
