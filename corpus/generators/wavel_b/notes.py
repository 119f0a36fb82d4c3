"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-sage-citations-healthy":
        "torch.multiprocessing.spawn, 2 processes, DDP over gloo (tcp:// init): a GraphSAGE-style node classifier on a "
        "synthetic 20k-node citation graph, 40 full-graph epochs, all-reduced loss/accuracy every 5 epochs; nothing "
        "was done to it. evidence: epoch lines down to loss ~0.01 / val_acc 0.997, 'saved sage.pt', 'all processes "
        "finished', 'job exited with 0'.",
    "mpspawn-sage-world-size-from-old-env":
        "torch.multiprocessing.spawn of the same GraphSAGE DDP job with 2 processes, but WORLD_SIZE=3 was left in the "
        "environment from an earlier 3-process configuration, so the script's init_process_group(world_size=3) waited "
        "for a third rank that was never started (60 s process-group timeout). evidence: '[rank 0] init_process_group "
        "... world_size=3' with only ranks 0 and 1 starting, the c10d 'waitForInput ... timed out after 60000ms' "
        "warnings and 'torch.distributed.DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//cpu//0/0' "
        "in init_process_group; spawn then SIGTERMs the other process.",
    "lightning-ncf-recsys-healthy":
        "Lightning Trainer, strategy='ddp', 2 CPU processes: a neural collaborative-filtering recommender (user/item "
        "embedding tables + MLP) on 60k synthetic implicit-feedback interactions, 4 epochs, torchmetrics AUROC, "
        "ModelCheckpoint and a finite-loss EarlyStopping; nothing was done to it. Prints Lightning's usual _pytree "
        "deprecation warnings. evidence: val_auc rising 0.48 -> 0.81, 'best checkpoint ... epoch=3', 'job exited "
        "with 0'.",
    "lightning-ncf-16-true-adam":
        "The same Lightning DDP recommender run with precision='16-true' (parameters and optimizer state in fp16, no "
        "loss scaler) and Adam's default eps=1e-8, which underflows to 0 in fp16: embedding rows with zero gradient "
        "get 0/0 updates and the weights turn NaN within the first 25 steps. evidence: '[rank N] epoch 0 step 25 loss "
        "nan' on both ranks onwards (step 0 was 0.70), val_auc stuck near 0.5; the trainer stops after epoch 0 and "
        "the shell still reports 'job exited with 0'.",
    "lightning-ncf-metrics-push-no-reply":
        "The same Lightning DDP recommender with a callback on rank 0 that POSTs the epoch metrics to a metrics "
        "gateway (urllib, no timeout); the gateway (a local listener) accepted the connection but never answered, so "
        "rank 0 blocked in the push and rank 1 waited in the next step's gradient all-reduce; no watchdog fired (30 "
        "min default). After 100 s with no output the operator pressed Ctrl-C. evidence: the last progress line is "
        "'pushing epoch 0 metrics to http://127.0.0.1:29569/metrics/job/ncf' after '[rank 1] epoch 0 step 100', then "
        "nothing until 'Detected KeyboardInterrupt, attempting graceful shutdown ...' and 'job exited with 1'.",
    "lightning-ncf-pinned-old-torchmetrics":
        "The same Lightning DDP recommender run from a venv where an old requirements pin installed torchmetrics "
        "0.8.2 next to lightning 2.6.6 / torch 2.13; the model's setup() imports the torchmetrics>=0.10 API. "
        "evidence: the pip list lines 'torchmetrics 0.8.2' and 'lightning 2.6.6', then on both ranks 'ImportError: "
        "cannot import name 'BinaryAUROC' from 'torchmetrics.classification' (/tmp/wavel-b-venv/...)' raised from "
        "recsys_pl.py setup.",
    "raytrain-hf-gpt-chars-healthy":
        "Local Ray cluster, Ray Train TorchTrainer (2 CPU workers, gloo) running the Hugging Face Trainer "
        "(prepare_trainer + RayTrainReportCallback) on a config-built tiny GPT-2 character LM, 120 steps with eval "
        "every 40 and checkpoints every 60, rank 0 printing one greedy sample after each eval; nothing was done to "
        "it. Prints the DeepSpeed accelerator and DDP find_unused_parameters warnings and a constructor-args-in-object-"
        "store core_worker error line that Ray Train always emits. evidence: loss 2.8 -> 1.5, 'Checkpoint successfully "
        "created', 'training finished: {...}', 'job exited with 0'.",
    "raytrain-hf-gpt-rank0-long-samples":
        "The same Ray Train + HF Trainer GPT LM with TorchConfig(timeout_s=20) and rank 0 greedily decoding three "
        "6000-character samples after every evaluation (eval every 30 steps, no checkpoint at step 30), so rank 1 "
        "went on to the next step's DDP all-reduce and waited longer than the gloo timeout for rank 0. evidence: "
        "'[sample step 30] ...' lines from rank 0 only, then rank 1 'RuntimeError: [.../gloo/transport/tcp/"
        "unbound_buffer.cc:129] Timed out waiting 20000ms for send operation to complete' and 'Training failed due "
        "to worker errors: [Rank 1 Error Snippet]'.",
    "raytrain-hf-gpt-worker-memory-reservation":
        "The same Ray Train GPT LM asked for resources_per_worker={'CPU': 1, 'memory': 9 GiB} for 2 workers on a "
        "one-node cluster with 14.9 GiB of schedulable memory, so the worker group's placement group could never be "
        "placed; FailureConfig(controller_failure_limit=1) let the controller retry the start once. evidence: "
        "'Attempting to start training worker group of size 2 with the following resources: [{'CPU': 1, 'memory': "
        "9663676416.0}] * 2' and 'The worker group startup timed out after 60.0 seconds waiting for 2 workers ... "
        "(2) infeasible resource request ...' (twice), then the driver's ControllerError.",
    "rayjob-data-loans-healthy":
        "Ray Jobs CLI (ray job submit) on a local Ray cluster: a Ray Data tabular pipeline for a loan-default model "
        "(8 parquet shards, 200k rows, an actor-pool map_batches encoder, encoded features written to a parquet "
        "feature store and read back, an MLP trained 4 epochs from iter_torch_batches); nothing was done to it. "
        "Prints Ray Data's concurrency-deprecated and actor-pool-underused warnings. evidence: epoch lines with "
        "val_acc ~0.71, 'saved loan_mlp.pt', \"Job 'raysubmit_...' succeeded\", 'job exited with 0'.",
    "rayjob-data-loans-feature-store-full":
        "The same Ray Data loan pipeline via ray job submit, writing the encoded features to a feature-store volume "
        "(a 12 MB tmpfs already holding 8 MB from a previous export). evidence: the 'df -h' line (4.0M free), then "
        "'An exception was raised from a task of operator \"Write\"' and 'OSError: [Errno 28] Error writing bytes to "
        "file. Detail: [errno 28] No space left on device' from ray::Write() (pyarrow _filesystemdataset_write); the "
        "job fails and the CLI exits 1.",
    "raydata-loans-region-missing-from-vocab":
        "The same Ray Data loan pipeline run as a plain driver; the newest parquet shard contains a region value "
        "('northeast', stored truncated as 'northea' in the export) that is not in the category vocabulary the "
        "encoder actors load, so the Encoder UDF's vocabulary lookup raises. evidence: 'ray.exceptions.RayTaskError"
        "(UserCodeException): ray::MapWorker(MapBatches(Encoder)).submit()' with 'KeyError: 'northea'' from "
        "loans_data.py __call__, 'job exited with 1'.",
    "raydata-loans-driver-pod-evicted":
        "The same Ray Data loan pipeline as a plain driver training for 30 epochs; during epoch 2 the driver's process "
        "group got SIGTERM, as a Kubernetes pod eviction sends it (the harness sent it on seeing 'epoch 2 step 80'). "
        "evidence: the last training line 'epoch 2 step 80 ...', then Ray's handler '*** SIGTERM received at time=... "
        "on cpu 0 ***' and the log ends (no 'job exited' line: the shell was terminated too).",
    "raycollective-sage-community-label-space":
        "Ray actors in a placement group training the GraphSAGE model with gradients all-reduced through "
        "ray.util.collective (gloo); the graph was partitioned by community and each actor sized its output layer "
        "from the labels present in its own partition (6 vs 12 classes), so the ranks all-reduced gradients of "
        "different shapes. evidence: '[worker 0] ... 6 classes, 18054 params' vs '[worker 1] ... 12 classes, 19596 "
        "params', then 'Unhandled exception: N4gloo13EnforceNotMetE. what(): [enforce fail at .../gloo/transport/tcp/"
        "pair.cc:456] op.preamble.length <= op.nbytes. 3072 vs 1536', SIGABRT / 'Fatal Python error: Aborted' in the "
        "actor and ActorDiedError in the driver.",
    "raycollective-sage-embedding-snapshots":
        "The same Ray-collective GraphSAGE job (round-robin partitions, healthy training) with a per-epoch snapshot of "
        "hidden embeddings kept in each actor (40 copies of a 20k x 128 tensor per epoch), on a cluster started with "
        "RAY_memory_usage_threshold=0.4; memory grew until Ray's memory monitor killed an actor. evidence: "
        "'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory', 'OOM kill "
        "reason: Memory usage 10205212672B exceeded threshold of 10110426112B (40.0% ...)', 'Ray killed 1 worker(s) "
        "based on the killing policy' after epoch 5.",
    "rayserve-ranker-http-port-held":
        "Ray Serve on a local Ray cluster: serve.start(http_options={'port': 8420}) for a two-tower ranking "
        "deployment while another process (a docs preview python -m http.server) already listened on "
        "127.0.0.1:8420, so Serve's HTTP proxy could not bind. evidence: ProxyActor 'OSError: [Errno 98] Address "
        "already in use', 'Failed to start proxy HTTP server', 'RuntimeError: Failed to bind to address "
        "'127.0.0.1:8420'' and the driver's RayTaskError from ProxyActor.ready(); 'job exited with 1'.",
}
