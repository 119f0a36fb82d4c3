"""What each committed run of generate.py showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-intents-healthy": (
        "healthy: torch.multiprocessing.spawn, 3 processes, DDP over gloo on CPU (torch 2.13.0+cpu), a bag-of-embeddings "
        "intent classifier trained 400 steps on a 12000-utterance JSONL file; each rank prints its shard sizes, step lines "
        "every 10 steps with falling loss, an eval (sums reduced with all_reduce) and a rank-0 checkpoint every 100 steps, "
        "'done: 400 steps' on all ranks and 'all processes finished'; job exited with 0. Nothing was done to it. Full log."),
    "mpspawn-eval-batches-rank-skips-reduce": (
        "launcher: torch.multiprocessing.spawn, 3 processes, DDP over gloo on CPU, the intent classifier. Cause made real: "
        "the eval set (250 rows) is split into whole 64-row batches per rank, which leaves rank 2 with 0 eval rows; the "
        "eval code skips the metric all_reduce on a rank whose shard is empty, so at step 100 rank 2 goes on to the next "
        "training step's DDP gradient all_reduce while ranks 0 and 1 are in the 3-element eval all_reduce: the ranks "
        "issue different collectives. Evidence: '[rank 2] pid ... 0 eval rows', '[rank 2] eval shard empty at step 100, "
        "skipping', then \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\" / \"what(): [enforce "
        "fail at ... gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 9948 vs 8. Received data size doesn't "
        "match expected size. Is there a distributed collective mismatch in your code?\"; spawn.py terminates the others "
        "and raises ProcessExitedException: process 1 terminated with signal SIGABRT (the abort is gloo's reaction, a "
        "symptom); job exited with 1. Full log."),
    "mpspawn-rank0-mc-eval-barrier": (
        "launcher: torch.multiprocessing.spawn, 3 processes, DDP over gloo on CPU with init_process_group(timeout=45 s), "
        "the intent classifier on a 24000-utterance file. Cause made real: at step 200 only rank 0 runs a Monte-Carlo "
        "dropout evaluation of the full 10000-row eval set (100 stochastic passes per utterance) while ranks 1 and 2 wait "
        "for it in dist.barrier(); the evaluation takes longer than the process-group timeout, so the barrier never "
        "completes. Evidence: normal step lines to step 200, '[rank 0] mc-eval step 200: 500/10000 utterances, 3.9 s' ... "
        "'6000/10000 utterances, 44.8 s' (still going), then spawn.py 'Terminating process ... via signal SIGTERM' and "
        "'-- Process 2 terminated with the following error:' with a traceback through 'dist.barrier()' in worker ending "
        "in 'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 45000ms for send operation to "
        "complete'; job exited with 1. Full log."),
    "mpspawn-loader-workers-tiny-dev-shm": (
        "launcher: torch.multiprocessing.spawn, 2 processes, DDP over gloo on CPU, the intent classifier with 2 DataLoader "
        "worker processes per rank and batches of 512. Cause made real: the job runs in a private mount namespace whose "
        "/dev/shm is a 256 KiB tmpfs (a container started with a tiny --shm-size), too small for the batches the loader "
        "workers hand over in shared memory. Evidence: right after the shard lines, 'Process 1 terminated with the "
        "following error:' ... 'RuntimeError: Caught RuntimeError in DataLoader worker process 0.' and, from the worker's "
        "collate (collate_tensor_fn -> _new_shared), 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_..._0>: No space left on device (28)'; job exited with 1. No training step ran. Full log."),
    "lightning-ddp-spawn-headlines-healthy": (
        "healthy: Lightning 2.6.6 Trainer, accelerator cpu, devices 2, strategy ddp_spawn (torch.multiprocessing.spawn, "
        "gloo), a GRU news-topic classifier over a 12000-row headline CSV, 2 epochs with ModelCheckpoint and "
        "LearningRateMonitor. Usual warnings only (the srun hint, LeafSpec deprecation, persistent_workers suggestions); "
        "'`Trainer.fit` stopped: `max_epochs=2` reached.', the final progress line with val_acc, the best checkpoint path "
        "(its score prints None in the parent process); job exited with 0. Nothing was done to it. Full log."),
    "lightning-ddp-spawn-new-topic-label": (
        "launcher: Lightning 2.6.6 Trainer, strategy ddp_spawn on 2 CPU processes, the GRU headline classifier built for "
        "5 topics. Cause made real: the CSV also holds 40 rows of a topic id 5 that the labelling tool added later; the "
        "model head has 5 outputs. Evidence: during the sanity-check validation, spawn.py terminates the other process "
        "and raises ProcessRaisedException '-- Process 0 terminated with the following error:' with a traceback through "
        "pl_spawn.py validation_step -> torch.nn.functional.cross_entropy ending in 'IndexError: Target 5 is out of "
        "bounds.'; job exited with 1. Full log."),
    "fabric-keep-all-checkpoints-disk-full": (
        "launcher: Lightning Fabric 2.6.6 (Fabric(strategy='ddp', devices=2).launch(), gloo on CPU), a 3.3M-parameter "
        "character-level Transformer LM that writes a full checkpoint (model + AdamW state, about 40 MB) with fabric.save "
        "every 20 steps and keeps all of them. Cause made real: the checkpoint directory is a 150 MB volume that already "
        "holds 40 MB from a previous run (the job's first line, df: 110M available); the third checkpoint does not fit. "
        "Evidence: 'saved ckpt/step-00020.ckpt', 'saved ckpt/step-00040.ckpt', step 60 val loss, then a [rank0] traceback "
        "through fabric.save -> _atomic_save -> fsspec transaction commit -> shutil.move ending in \"OSError: [Errno 28] "
        "No space left on device: '/tmp/tmp...' -> '.../ckpt/step-00060.ckpt'\"; rank 1 then fails in a barrier with "
        "gloo 'Connection closed by peer' (symptom); job exited with 1. Full log."),
    "accelerate-hf-trainer-old-accelerate": (
        "launcher: accelerate launch (accelerate 0.26.1, --num_processes 2 on a CPU-only host, which accelerate runs "
        "through its simple launcher) around a Hugging Face Trainer text-classification script, in a venv that layers "
        "its own accelerate 0.26.1 over a shared package tree holding transformers 5.24 (a .pth file adds the shared "
        "site-packages after the venv's own). Cause made real: the installed transformers needs accelerate>=1.1.0 and "
        "the venv's older accelerate wins. Evidence: a traceback from finetune_cls.py parse_args_into_dataclasses -> "
        "TrainingArguments.__post_init__ -> _setup_devices ending in 'ImportError: Using the `Trainer` with `PyTorch` "
        "requires `accelerate>=1.1.0`: Please run `pip install transformers[torch]` or `pip install "
        "'accelerate>=1.1.0'`', then accelerate's simple_launcher raising subprocess.CalledProcessError (symptom); job "
        "exited with 1. Full log."),
    "rayjob-tune-churn-sweep-healthy": (
        "healthy: Ray Jobs CLI (ray job submit --working-dir .) to a local Ray 2.60 cluster, entrypoint a Ray Tune grid "
        "sweep (3 learning rates, ASHAScheduler) of an MLP churn classifier trained with SGD and a hand-written binary "
        "focal loss on standardised features; per-epoch trial lines with train_loss/val_loss/val_auc, Tune status tables "
        "ending 'Trial status: 3 TERMINATED', 'best trial config: lr=0.01 ...', \"Job 'raysubmit_...' succeeded\"; job "
        "exited with 0. Usual warning only (TensorboardX logger not installed). Nothing was done to it. Full log."),
    "rayjob-tune-churn-raw-features-nan": (
        "launcher: Ray Jobs CLI to a local Ray 2.60 cluster, entrypoint the same Ray Tune sweep (lr 1e-3, 3e-3, 1e-2) of "
        "the churn MLP with the hand-written focal loss, but on the raw feature columns (minutes, billing amounts in the "
        "hundreds, not standardised). Cause made real: the logits blow up within a few SGD steps, sigmoid saturates to "
        "exactly 0/1 and log(1-p) * 0 turns the loss into NaN in every trial; the training loop's guard raises. Evidence: "
        "'Trial task failed for trial train_churn_..._00000' with 'ray.exceptions.RayTaskError(FloatingPointError)' and "
        "'FloatingPointError: train loss is nan at epoch 0 batch 10 (lr=0.001, width=64)' (batch 2 for the other two "
        "trials), 'Trial status: 3 ERROR', then the script's get_best_result raising 'RuntimeError: No best trial found "
        "for the given metric: val_loss ... all values reported for this metric are NaN' (symptom) and \"Job "
        "'raysubmit_...' failed\"; job exited with 1. Full log."),
    "rayserve-ctypes-tokenizer-null-query": (
        "launcher: a driver script that deploys a Ray Serve application (serve.run, 2 replicas of a semantic-search "
        "deployment) on a local Ray 2.60 cluster and replays a 3000-query log through the deployment handle; the replica "
        "tokenises with libfasttok.so, a C tokenizer built with gcc at job start and called through ctypes. Cause made "
        "real: the query log holds records whose query is null (the voice-search path logs no transcript); ctypes passes "
        "None as a NULL char*, and strlen(NULL) in fasttok_encode crashes the replica process. Evidence: '(ServeReplica:"
        "search:Searcher pid=...) *** SIGSEGV received at time=...', 'Fatal Python error: Segmentation fault' with the "
        "Python stack 'serve_search.py, line 86 in encode' / 'line 94 in __call__', Serve's 'will not be considered for "
        "future requests because it has died', the driver's 'ray.exceptions.ActorDiedError: The actor died unexpectedly "
        "before finishing this task.' ('Worker unexpectedly exits with a connection error code 2. End of file', "
        "symptom); job exited with 1. Full log."),
    "rayserve-activation-cache-memory-monitor": (
        "launcher: a driver script that deploys the Ray Serve semantic-search application (2 replicas) on a local Ray "
        "2.60 cluster started with RAY_memory_usage_threshold=0.35 (the memory monitor's kill threshold), and replays "
        "12000 queries. Cause made real: --cache-activations keeps every layer's activations plus a per-item "
        "contribution map (about 10 MB) per query in an unbounded dict in each replica, so the replicas grow until node "
        "memory crosses the threshold and Ray's memory monitor kills workers (both a replica and the Serve controller "
        "were selected). Evidence: the driver's 'ray.exceptions.OutOfMemoryError: 2 worker(s) were killed due to the "
        "node running low on memory. Memory on the node ... was 8.34GB used / 23.54GB limit (0.354469)', 'OOM kill "
        "reason: Memory usage 8947113984B exceeded threshold of 8846621696B (35.0% of ... limit)', 'Ray killed 2 "
        "worker(s) based on the killing policy' with the 'Selected to kill' entries (a SERVE_REPLICA actor with about "
        "2.3 GB); job exited with 1. Full log."),
    "rayactors-pg-bundle-custom-resource": (
        "launcher: a driver on a local Ray 2.60 cluster (2 CPUs, no custom resources) that creates a PACK placement group "
        "of 4 bundles for feature-extraction actors and waits for it with a 90 s timeout. Cause made real: every bundle "
        "asks for {'CPU': 0.5, 'local_nvme': 1}, a custom resource no node in the cluster advertises. Evidence: the "
        "bundle line 'placement group ...: 4 bundles {'CPU': 0.5, 'local_nvme': 1}, strategy PACK', the autoscaler's "
        "repeated 'Error: No available node types can fulfill resource request {'local_nvme': 1.0, 'CPU': 0.5}. Add "
        "suitable node types to this cluster to resolve this issue.', 'placement group not ready after 90 s: state "
        "PENDING' and 'TimeoutError: placement group feature-extract (4 x {...}, PACK) was not created within 90 s'; "
        "no actor ran; job exited with 1. Full log."),
    "raytrain-reviews-cnn-healthy": (
        "healthy: Ray Train TorchTrainer (Ray 2.60, gloo on CPU, 2 workers x 0.5 CPU) on a local Ray cluster, a text-CNN "
        "sentiment model over a 6000-review JSONL file read through a DataLoader with 2 worker processes per Ray Train "
        "worker; 3 epochs of step lines (each worker line appears twice: Ray Train prints it and forwards it), "
        "'Checkpoint successfully created at:' / 'Reporting training result N' every epoch, 'final metrics: {...}', "
        "'checkpoint: ...'; job exited with 0. The usual core_worker.cc error-level line about the PreemptionWatcher "
        "actor's constructor arguments in the object store is printed at start. Nothing was done to it. Full log."),
    "raytrain-reviews-loader-worker-rating-string": (
        "launcher: Ray Train TorchTrainer (2 workers, gloo on CPU) on a local Ray cluster, the review text-CNN with 2 "
        "DataLoader worker processes per Ray Train worker. Cause made real: one record of the review export (index "
        "4242) carries its star rating as the string '2/5' (the older export format) instead of an int, and "
        "__getitem__ parses it with int(). Evidence: after step 40, '(RayTrainWorker pid=...) Error in training "
        "function:' with 'ValueError: Caught ValueError in DataLoader worker process 1.' and the original traceback "
        "through ray_train_reviews.py __getitem__ 'stars = int(rec[\"stars\"])' ending in \"ValueError: invalid literal "
        "for int() with base 10: '2/5'\"; the TrainController's '[FailurePolicy] RAISE', 'Error count: 1 (max allowed: "
        "0)', 'ray.train.WorkerGroupError: Training failed due to worker errors: [Rank 1 Error Snippet]' repeating it, "
        "and the driver raising the same WorkerGroupError; job exited with 1. Full log."),
    "raytrain-deepspeed-reviews-batch-config": (
        "launcher: Ray Train TorchTrainer (2 workers, gloo on CPU) on a local Ray cluster whose training function calls "
        "deepspeed.initialize with a JSON config (printed as the job's first lines) on the review text-CNN. Cause made "
        "real: the config was written for 4 workers (train_batch_size 64 = 16 micro x 1 accumulation x 4) but the job "
        "runs 2. Evidence: DeepSpeed's 'Setting accelerator to CPU' warnings, then on both workers 'Error in training "
        "function:' with a traceback through deepspeed/runtime/config.py _configure_train_batch_size ending in "
        "'AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
        "gradient_acc_step * world_size 64 != 16 * 1 * 2', repeated by the TrainController's 'ray.train.WorkerGroupError:"
        " Training failed due to worker errors: [Rank 0,1 Error Snippet]' and by the driver; no step ran; job exited "
        "with 1. Full log."),
    "raytrain-reviews-driver-evicted-sigterm": (
        "launcher: Ray Train TorchTrainer (2 workers, gloo on CPU) driver on a local Ray cluster, the review text-CNN for "
        "6 epochs. Cause made real: while the job ran (after the first 'epoch 1 step' line, 23 s in) the job's whole "
        "process group got SIGTERM, as a scheduler or a pod eviction delivers it; the launching shell was terminated "
        "too, so no exit line follows. Evidence: normal step lines, the epoch-0 checkpoint and 'epoch 1 step 100' lines, "
        "then the driver's '*** SIGTERM received at time=... on cpu 1 ***' with 'PC: @ ...' and the logging.cc:474 "
        "copies of the same lines, which end the log. Full log."),
    "fabric-two-nodes-second-never-started": (
        "launcher: Lightning Fabric 2.6.6 (Fabric(num_nodes=2, devices=2, strategy=DDPStrategy(timeout=60 s)).launch(), "
        "gloo on CPU) with MASTER_ADDR=127.0.0.1 MASTER_PORT=29733 NODE_RANK=0: node 0 of a two-node job. Cause made "
        "real: the second node's job was never started, so only 2 of the 4 ranks reach the store. Evidence: 'node 0 of 2, "
        "master 127.0.0.1:29733', 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4' and 'GLOBAL_RANK: 1, MEMBER: "
        "2/4', then after 61 s 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 2/4 "
        "clients joined.' on rank 0, and rank 1's TCPStore 'recvValueWithTimeout failed ... Failed to recv, got 0 bytes' "
        "C++ frames and 'torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed.' "
        "(the store's host exited, a symptom); no training step ran; job exited with 1. Full log."),
}
