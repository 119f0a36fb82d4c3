"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-lstm-load-forecast-healthy":
        "torch.multiprocessing.spawn, 2 processes, DDP over gloo (tcp:// init): a 2-layer LSTM load forecaster on "
        "synthetic multi-site electricity demand, 6 epochs, validation MAE/sMAPE all-reduced each epoch; nothing was "
        "done to it. evidence: per-rank train_mse lines falling 0.58 -> 0.05, 'epoch 5 val_mae 5.262 MW val_smape "
        "5.98%', 'saved forecaster.pt', 'all processes finished', 'job exited with 0'.",
    "mpspawn-lstm-holdout-smape-numpy":
        "torch.multiprocessing.spawn of the same LSTM forecaster (2 processes, gloo) with --numpy-metrics: rank 0 "
        "computes its validation sums with numpy in float64 and wraps them with torch.from_numpy, rank 1 builds a "
        "float32 tensor, so the two ranks all_reduce tensors of different dtypes (8 vs 4 bytes per element) at the "
        "end of epoch 0. evidence: \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\" / "
        "'op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', then 'process 1 terminated with signal SIGABRT' from spawn.",
    "mpspawn-lstm-calendar-service-no-reply":
        "torch.multiprocessing.spawn of the LSTM forecaster (2 processes, gloo) with --calendar-url: at epoch 2 rank 0 "
        "fetches calendar features over HTTP from a local service that accepts the connection but never answers "
        "(urlopen without a timeout), while rank 1 waits in broadcast_object_list; nothing more is printed, and after "
        "75 s of silence the job was interrupted with SIGINT (Ctrl-C). evidence: the last progress line '[rank 0] "
        "refreshing calendar features from http://127.0.0.1:29399/v1/calendar/ercot' with no 'calendar: N entries' "
        "after it, then the parent's KeyboardInterrupt traceback in spawn's join.",
    "mpspawn-lstm-master-port-from-ray-address":
        "torch.multiprocessing.spawn of the LSTM forecaster on the Ray head node with MASTER_PORT=6431, the port of "
        "the RAY_ADDRESS the user had in the environment, which the running Ray GCS server already listens on; rank 0's "
        "TCPStore cannot bind. evidence: 'RAY_ADDRESS=127.0.0.1:6431 MASTER_PORT=6431', then 'torch.distributed."
        "DistNetworkError: The server socket has failed to listen on any local network address. port: 6431, ... "
        "code: -98, name: EADDRINUSE, message: address already in use' in init_process_group of process 0; 'job "
        "exited with 1'.",
    "lightning-ddpm-shapes-healthy":
        "Lightning Trainer, strategy='ddp', 2 CPU processes: a diffusion-style denoiser (small conv U-Net predicting "
        "the added noise on a DDPM schedule) on synthetic 32x32 shapes, 4 epochs, ModelCheckpoint on val_loss and an "
        "LR monitor; nothing was done to it. Prints Lightning's usual warnings (srun available, tensorboardX, _pytree "
        "deprecation). evidence: val_loss 1.01 -> 0.19, 'best checkpoint: ...ddpm-epoch=2-step=72.ckpt', 'job exited "
        "with 0'.",
    "lightning-ddpm-every-n-steps-keep-all":
        "Lightning DDP denoiser (2 CPU processes) with ModelCheckpoint(every_n_train_steps=4, save_top_k=-1, "
        "save_last=True) writing into a 14 MiB tmpfs checkpoint volume (df shown at the top); every checkpoint is kept "
        "and the volume fills during epoch 0. evidence: \"[rank0]: OSError: [Errno 28] No space left on device: "
        "'/tmp/tmp...' -> '.../checkpoints/ddpm-epoch=0-step=24.ckpt'\" in the checkpoint save; rank 1 then reports "
        "'Connection closed by peer' (a symptom); 'job exited with 1'.",
    "lightning-ddpm-node-drained-sigterm":
        "Lightning DDP denoiser (2 CPU processes), 12 epochs planned; after 'epoch 2 val_loss' was printed the job's "
        "process group got SIGTERM, as a node drain / pod eviction sends it. evidence: '[rank: 0] Received SIGTERM: "
        "15' and '[rank: 1] Received SIGTERM: 15' from Lightning's signal handler right after healthy epoch lines; "
        "no error before it.",
    "raytrain-ctc-commands-healthy":
        "Ray Train TorchTrainer, 2 workers on this generator's local Ray cluster: a speech-command CTC recogniser "
        "(conv front-end + BiGRU) on synthetic tone-coded utterances, features from a small C library (logmel.c, "
        "built with gcc, called through ctypes) in one DataLoader worker per rank, 4 epochs with checkpoints "
        "reported; nothing was done to it (the model is still near the blank plateau after 4 short epochs). "
        "evidence: per-rank ctc_loss lines, 'Checkpoint successfully created', 'final metrics: {'epoch': 3, ...}', "
        "'job exited with 0'.",
    "raytrain-ctc-vad-trimmed-clips":
        "Ray Train CTC job with --trimmed-every 97: some utterances were cut by a VAD pass to fewer samples than one "
        "400-sample analysis window; logmel.c's zero-padding path frees its scratch buffer twice, so glibc aborts "
        "the DataLoader worker processes of both ranks. evidence: '(RayTrainWorker ...) double free or corruption "
        "(out)', '*** SIGABRT received ...', 'Fatal Python error: Aborted' with the stack in ctc_raytrain.py "
        "__getitem__ (the ctypes call), then 'RuntimeError: DataLoader worker (pid(s) N) exited unexpectedly' and "
        "ray.train.WorkerGroupError; 'job exited with 1'.",
    "raytrain-ctc-subsample-8":
        "Ray Train CTC job with --subsample 8 (the conv front-end strides by 8): many utterances now have fewer output "
        "frames than label characters, so nn.CTCLoss (zero_infinity=False) returns inf on the first batch and the "
        "training loop's finite-loss check raises on both ranks. evidence: 'FloatingPointError: CTC loss is inf at "
        "epoch 0 step 0 (output frames [7, 3, 7, 5, 4, 8, ...], label lengths [7, 3, 7, 5, 4, 7, ...])' from both "
        "RayTrainWorkers, then ray.train.WorkerGroupError; 'job exited with 1'.",
    "raytune-pbt-vit-textures-healthy":
        "Ray Tune with PopulationBasedTraining (synch, perturbation_interval 2, lr in 0.003-0.1 and momentum "
        "mutations, checkpoint/restore) over 4 trials of a tiny vision transformer on synthetic texture images, 8 "
        "iterations each; nothing was done to it. Prints Tune's PBT warnings (reuse_actors, num_to_keep <= 2) and "
        "torch's enable_nested_tensor UserWarning. evidence: 'restored from checkpoint' lines after exploits, val_acc "
        "reaching 1.000, 'best val_acc: 1.000', '0 trial(s) errored', 'job exited with 0'.",
    "raydata-clip-grayscale-scans":
        "Ray Data pipeline (read_parquet -> actor-pool map_batches decode/resize/tokenize -> iter_torch_batches) "
        "feeding a tiny CLIP contrastive model, run as a plain driver on the local Ray cluster; the parquet shards "
        "contain a few grayscale images (32x32 bytes instead of 32x32x3) and the UDF reshapes every image to "
        "(32, 32, 3). evidence: 'ray.exceptions.RayTaskError(UserCodeException): ray::MapWorker(MapBatches("
        "Preprocess)).submit()' with 'ValueError: cannot reshape array of size 1024 into shape (32,32,3)' in "
        "Preprocess.__call__; 'job exited with 1'.",
    "rayactors-vit-index-stale-cache-nodes":
        "Ray actors for an offline ViT embedding-index build, each pinned with NodeAffinitySchedulingStrategy("
        "soft=False) to a node id read from nodes.json, a file recorded on an earlier cluster; none of those nodes "
        "exists in the running one-node cluster. evidence: 'cluster nodes: [...]' not containing the pinned ids "
        "printed by 'shard 0: pinning encoder to cache node ...', then 'ray.exceptions.ActorUnschedulableError: The "
        "actor is not schedulable: The node specified via NodeAffinitySchedulingStrategy doesn't exist any more or is "
        "infeasible, and soft=False was specified.'; 'job exited with 1'.",
    "rayserve-forecast-feed-schema-v2":
        "Ray Serve (serve.run, 2 replicas of the LSTM load forecaster behind Serve's HTTP proxy); the telemetry ETL "
        "started beside it writes the feed's latest.json in its new v2 layout ('batch': {'id', 'ingest_ts'}), while "
        "the replicas' check_health still reads meta['ingested_at'], so every replica fails its health check and the "
        "deployment never becomes healthy. evidence: the ServeController's traceback ending in forecast_serve.py "
        "check_health \"KeyError: 'ingested_at'\", 'Replica health check failed.' warnings for each replacement "
        "replica, 'Failed to update the deployments ['LoadForecaster']' and 'RuntimeError: Deploying application "
        "forecast failed' from serve.run; 'job exited with 1'.",
    "accelerate-hf-vit-best-metric-acc":
        "accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) around the Hugging Face Trainer fine-tuning a "
        "config-built tiny ViTForImageClassification on synthetic texture images, with load_best_model_at_end and "
        "metric_for_best_model='acc' while compute_metrics returns 'accuracy'; the first evaluation (step 20) passes, "
        "then the Trainer looks up 'eval_acc' on both ranks. evidence: the eval line with 'eval_accuracy', then "
        "\"[rank0]: KeyError: \"The `metric_for_best_model` training argument is set to 'eval_acc', which is not "
        "found in the evaluation metrics. The available evaluation metrics are: ['eval_loss', 'eval_accuracy', ...]\"\" "
        "(same on rank 1), torch elastic's ChildFailedError summary; 'job exited with 1'.",
    "raytune-pbt-vit-wide-lr-mutations":
        "Ray Tune with PopulationBasedTraining over 4 trials of the tiny ViT (10 iterations, perturbation every 2), "
        "with the lr mutation list widened to 0.01, 0.03, 0.3, 3.0; at the iteration-7 perturbation an exploited trial "
        "was explored to lr=3.0 (SGD, momentum 0.8), its loss went to NaN and the trainable's finite-loss check "
        "raised; the sweep script exits non-zero when a trial errored. evidence: 'restored from checkpoint at iter 7; "
        "lr=3 momentum=0.8', 'iter 8 lr 3 train_loss nan val_loss nan val_acc 0.176', 'FloatingPointError: val_loss "
        "is nan at iter 8 (lr=3.0, momentum=0.8)' in the RayTaskError, 'Trials did not complete: "
        "[train_vit_821ca_00001]', 'sweep failed: 1 of 4 trials errored', 'job exited with 1'.",
    "rayjob-data-clip-view-dedup-cache":
        "Ray Jobs CLI (ray job submit) of the tiny-CLIP Ray Data pipeline with --dedup-cache --res 128: the actor-pool "
        "map_batches UDF keeps a float32 copy of every decoded 128x128 view in a dict that is never cleared (~190 KB "
        "per image, 24k images per epoch), so its MapWorker actors grow until Ray's memory monitor (threshold set to "
        "the machine's use at cluster start plus 6 GiB) kills them; Ray Data restarts them and retries the tasks, so "
        "training crawls (40 steps in ~2.5 minutes) and the user pressed Ctrl-C on the CLI after 170 s. evidence: the "
        "raylet's '7 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other "
        "reasons' (and '4 Workers ...' a minute later), the repeated 'Task MapWorker(MapBatches(Preprocess)).submit "
        "failed ... The actor was restarted' lines, then 'Aborted!' and 'job exited with 1'.",
}
