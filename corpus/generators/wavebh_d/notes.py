"""Manifest notes per scenario, written after the runs; evidence is quoted exactly from each job.log (the part of a
line after Ray's colored `(Actor pid=N)` prefix)."""
_ENV = "ray 2.60.0 (local head via ray start, 4 CPUs, 200 MB object store), torch 2.13.0+cpu gloo, CPU"
_TRAIN = (f"{_ENV}; Ray Data read_json+map_batches(featurize) feeding TorchTrainer 2 workers; "
          "`ray start --head --port 6400 ... && python train.py")
_SCORE = (f"{_ENV}; Ray Data read_json -> map_batches(featurize) -> map_batches(Scorer) actor pool -> write_parquet; "
          "`ray start --head --port 6400 ... && python score.py")

NOTES = {
    "returns-healthy": (
        f"no_failure: {_TRAIN}`; 3 epochs, a checkpoint per epoch, exit 0. Scary but harmless: gcs_server/raylet "
        "E lines about the metrics exporter agent, PlacementGroupCleaner 'Failed to query Ray Train Controller "
        "actor state' repeated, a RayDeprecationWarning, tqdm missing. evidence: 'Failed to establish connection to "
        "the metrics exporter agent. Metrics will not be exported.', "
        "'INFO returns.train: finished: {'epoch': 2, 'train_loss': 0.4798097077836382, 'steps': 47}', "
        "'job exited with 0'"),
    "returns-score-healthy-blank-qty": (
        f"no_failure: {_SCORE} --skip-bad-rows`; the export has 3 orders with a blank quantity; the lenient "
        "featurizer logs a WARNING per row and drops them, scoring finishes, exit 0. evidence: "
        "'order O0200050: unparseable qty np.float64(nan), row skipped', "
        "'INFO returns.score: scored 5997 orders, mean p_return 0.518, observed return rate 0.261', "
        "'job exited with 0'"),
    "returns-legacy-export": (
        f"worker_exception: {_TRAIN}`; two rows of shard part-005 re-exported by the old ERP connector carry the "
        "quantity as text ('3 pcs'), so pyarrow's JSON reader rejects the file, Ray Data falls back to python json "
        "which raises on the JSON-lines file; the ReadArrowJSON task error reaches both RayTrainWorkers through the "
        "SplitCoordinator and TorchTrainer fails. evidence: "
        "'json.decoder.JSONDecodeError: Extra data: line 2 column 1 (char 157)', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'job exited with 1'"),
    "returns-marketplace-feed": (
        f"native_crash: {_TRAIN}`; one marketplace order has \"sku\": null, featurize passes None through ctypes "
        "to the C helper lib/libskuhash.so (sku_bucket -> strlen(NULL)) and the MapBatches(featurize) worker "
        "segfaults; Ray Data retries the read/map task, every retry segfaults again, training never gets a batch; "
        "the harness killed the job after 120 s (no 'job exited' line). evidence: "
        "'Fatal Python error: Segmentation fault', "
        "'  File \"/tmp/wavebh-d-job/run/features.py\", line 33 in featurize', "
        "'A worker died or was killed while executing a task by an unexpected system error.'"),
    "returns-score-wide-pool": (
        f"ray_scheduling_stall: {_SCORE} --concurrency 4 --batch-size 128`; the scoring actor pool of 4 actors x 1 "
        "CPU takes all 4 CPUs of the cluster, so the ReadArrowJSON task that feeds it can never be scheduled "
        "(backpressured, 5/4 CPU requested); no progress for two minutes, the harness killed the job at 150 s (no "
        "'job exited' line). evidence: 'INFO logging_progress.py:227 -- Active & requested resources: 5/4 CPU, "
        "0.0B/95.4MiB object store', 'Tasks: 1 [backpressured:tasks(ResourceBudget)]; Actors: 0; Queued blocks: 7 "
        "(0.0B); Resources: 1.0 CPU, 0.0B object store', 'INFO logging_progress.py:225 -- Total Progress: 0/?'"),
    "returns-wide-mlp": (
        f"host_oom_killed: {_TRAIN} --hidden 12288`; the whole job ran in a cgroup-v1 memory cgroup limited to "
        "3.0 GB; the 12288-wide MLP (params + grads + momentum per worker, two workers) does not fit, the kernel "
        "OOM killer kills the rank-0 RayTrainWorker process while it builds and wraps the model, before the first logged step, and Ray Train fails the run. "
        "evidence: 'A worker died or was killed while executing a task by an unexpected system error.', "
        "'The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit "
        "detail: Worker unexpectedly exits with a connection error code 2. End of file.', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'job exited with 1'"),
    "returns-score-healthy-fx-late": (
        f"no_failure: {_SCORE} --fx`; the finance job publishes data/fx_rates.json ~35 s after the export, the "
        "fx map_batches task waits 4 s, logs a WARNING and raises ConnectionError, Ray retries it "
        "(max_retries=10, retry_exceptions=[ConnectionError]) until the file is there; scoring finishes, exit 0; "
        "also a RayDeprecationWarning for ray_remote_args. evidence: "
        "'fx table /tmp/wavebh-d-job/run/data/fx_rates.json missing after 4 s', "
        "'INFO returns.score: scored 6000 orders, mean p_return 0.518, observed return rate 0.261', "
        "'job exited with 0'"),
    "returns-worker-killed": (
        f"host_oom_killed: {_TRAIN} --epochs 6 --step-sleep 0.1`; right after both ranks reported epoch 1, the "
        "harness (standing in for a node-level memory killer / operator) sent SIGKILL to the world_rank=1 "
        "RayTrainWorker process from outside; the raylet reports the dead worker and Ray Train fails the run. "
        "evidence: '- (ip=192.0.2.2, pid=27014) world_rank=1, local_rank=1, node_rank=0', "
        "'A worker died or was killed while executing a task by an unexpected system error.', "
        "'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.'"),
    "returns-preempted": (
        f"job_preempted: {_TRAIN} --epochs 6 --step-sleep 0.1`; after epoch 1 was reported the harness, acting as "
        "the batch scheduler reclaiming the node, sent SIGTERM to the driver (python train.py); Ray's handler in "
        "the driver prints the SIGTERM and the process aborts (exit 134), the workers' last lines are mid epoch 2. "
        "evidence: '[2026-12-02 06:24:00,319 E 28089 28089] logging.cc:474: *** SIGTERM received at time=1796192640 "
        "on cpu 0 ***', 'bash: line 1: 28089 Aborted                 nice -n 5 python train.py --epochs 6 "
        "--step-sleep 0.1', 'job exited with 134'"),
    "returns-terminal-closed": (
        f"terminal_hangup: {_TRAIN} --epochs 6 --step-sleep 0.1`; after epoch 1 was reported the harness sent "
        "SIGHUP to the driver (python train.py), as a closed SSH terminal delivers it to its foreground job; the "
        "driver has no SIGHUP handler and dies at once (exit 129) while the dataset for epoch 2 is starting. "
        "evidence: 'bash: line 1: 29350 Hangup                  nice -n 5 python train.py --epochs 6 "
        "--step-sleep 0.1', 'job exited with 129'"),
    "returns-rank-stopped": (
        f"silent_hang: {_TRAIN} --epochs 6 --step-sleep 0.1`; after epoch 1 was reported the harness sent SIGSTOP "
        "to the world_rank=1 RayTrainWorker (pid 30456); rank 0 blocks in the next gloo allreduce (timeout 1800 s), "
        "no error, only the PlacementGroupCleaner's periodic lines follow; the harness killed the job at 95 s (no "
        "'job exited' line). evidence: '- (ip=192.0.2.2, pid=30456) world_rank=1, local_rank=1, node_rank=0', "
        "'Reporting training result 2: TrainingReport(checkpoint=None, metrics={'epoch': 1, 'train_loss': "
        "0.5043255331668448, 'steps': 47}, validation=False) from rank 1', 'rank 1 epoch 1 step 40 loss 0.4407'"),
    "returns-ckpt-tmpfs": (
        f"disk_full: {_TRAIN} --hidden 1024 --ckpt-dir /tmp/wavebh-d-job/run/results`; the results directory is a "
        "6 MB tmpfs and each rank-0 checkpoint of the 1024-wide MLP is ~4 MB; epoch 0's checkpoint fits, epoch 1's "
        "upload (Ray Train persist_current_checkpoint -> pyarrow.fs.copy_files) fails with ENOSPC in the rank-0 "
        "RayTrainWorker and the run fails. evidence: "
        "'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'job exited with 1'"),
    "returns-lr-sweep": (
        f"training_divergence: {_TRAIN} --lr 400`; a learning rate from a sweep config that is four orders of "
        "magnitude too high (SGD momentum 0.9): the epoch-0 mean BCE loss explodes to 2.5e16 on rank 1 and the "
        "model never recovers (74 after 3 epochs vs 0.48 for the same run at lr 0.05); no NaN, so the loop's "
        "finite check does not fire and the job 'finishes' with exit 0 and a useless model. evidence: "
        "\"metrics={'epoch': 0, 'train_loss': 2.4895557104750732e+16, 'steps': 47}\", "
        "'rank 1 epoch 2 step 40 loss 45.5674', "
        "\"INFO returns.train: finished: {'epoch': 2, 'train_loss': 74.02058133419524, 'steps': 47}\""),
    "returns-big-workers": (
        f"ray_scheduling_stall: {_TRAIN} --cpus-per-worker 3`; two Ray Train workers x 3 CPUs on a 4-CPU "
        "cluster cannot be placed; the TrainController waits, reports WorkerGroupStartupTimeoutError after 60 s and "
        "the job makes no further progress; the harness killed the job at 80 s (no "
        "'job exited' line). evidence: \"Requesting resources: {'CPU': 3.0} * 2\", "
        "'Error in control loop iteration: The worker group startup timed out after 60.0 seconds waiting for 2 "
        "workers.', 'ray.train.v2._internal.exceptions.WorkerGroupStartupTimeoutError: The worker group startup "
        "timed out after 60.0 seconds waiting for 2 workers.'"),
    "returns-port-held": (
        f"port_in_use: {_ENV}; `ray start --head --port 6400 ... && python train.py`; another service "
        "(python -m http.server 6400) already listens on the GCS port, so the GCS server cannot bind, ray start "
        "waits for it, times out and raises, the driver never runs. evidence: "
        "'Check failed: server_ Failed to start the grpc server. The specified port is 6400.', "
        "'gcs_client.cc:210: Failed to get cluster ID from GCS server: TimedOut: Timed out while waiting for GCS "
        "to become available.', 'RuntimeError: Failed to start GCS.  Last 1 lines of error files:', "
        "'job exited with 1'"),
    "returns-score-healthy-pool3": (
        f"no_failure: {_SCORE} --concurrency 3`; 3 scoring actors + 1 read task fit the 4 CPUs; the progress "
        "report shows backpressured operators and pending actors at first, the driver prints an E-level "
        "core_worker warning about actor constructor arguments, and scoring finishes, exit 0. evidence: "
        "\"core_worker.cc:2465: Actor with class name: 'MapWorker(MapBatches(featurize)->MapBatches(Scorer))' and "
        "ID: 'd43a6b545ecf47018b89cac601000000' has constructor arguments in the object store and max_restarts > "
        "0.\", 'Tasks: 1 [backpressured:tasks(ResourceBudget)]; Actors: 0; Queued blocks: 7 (0.0B); Resources: "
        "1.0 CPU, 0.0B object store', "
        "'INFO returns.score: scored 6000 orders, mean p_return 0.518, observed return rate 0.261', "
        "'job exited with 0'"),
}
