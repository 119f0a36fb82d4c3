"""What each committed run showed (written after the runs): the manifest ``notes`` column, keyed by scenario name."""

_W = ("Real run: ECG rhythm classification (ecg.py: 8 s single-lead strips at 250 Hz synthesised beat by beat from "
      "P/Q/R/S/T waves with baseline wander, mains hum and noise; 6 classes normal/brady/tachy/afib/pvc/vtach, vtach "
      "at 0.4 %; 0.6 s moving-average baseline removal + z-score; RhythmNet = 3 strided Conv1d+BN blocks, BiGRU, mean "
      "pool, linear, 82k parameters; cross-entropy, AdamW, one-cycle LR; confusion matrix all-reduced each epoch -> "
      "val acc / macro-F1 / per-class recall; rank-0 checkpoints last.pt/best.pt; gloo on CPU)")

NOTES: dict[str, str] = {
    "mpspawn-ecg-rhythm-healthy":
        _W + ", torch.multiprocessing.spawn, 2 ranks, 8 epochs: trains to the end. evidence: macro-F1 rising to "
        "'epoch 8 eval: val acc 0.938 | macro-F1 0.916 | 96 strips', 'training done: 128 steps, best macro-F1 0.939', "
        "'all ranks finished', 'job exited with 0'.",
    "mpspawn-ecg-rhythm-lead-off-segments-dropped":
        _W + ", spawn, 2 ranks, --drop-lead-off: cutting the lead-off (flat-line) parts out of each strip leaves one "
        "training strip only 64 samples long, shorter than the reflect padding (75 samples each side) of the 0.6 s "
        "baseline-removal filter, so its __getitem__ raises on rank 1 in epoch 1 and spawn terminates rank 0. "
        "evidence: 'drop_lead_off=True', '-- Process 1 terminated with the following error:', traceback through "
        "'ecg.py ... in train' -> DataLoader -> 'ecg.py, line 100, in __getitem__' -> 'in remove_baseline' -> "
        "'F.pad', 'RuntimeError: Argument #4: Padding size should be less than the corresponding input dimension, "
        "but got: padding (75, 75) at dimension 2 of input [1, 1, 64]', 'job exited with 1'.",
    "torchrun-3ranks-ecg-rhythm-healthy-omp-unset":
        _W + ", torchrun 3 ranks, 6 epochs, OMP_NUM_THREADS unset so torchrun prints its 'Setting OMP_NUM_THREADS "
        "environment variable for each process to be 1 in default' banner (alarming-looking, harmless); the run "
        "completes. evidence: 'epoch 6 eval: val acc 0.688 | macro-F1 0.463', 'training done: 60 steps, best "
        "macro-F1 0.537', 'all ranks finished', 'job exited with 0'.",
    "torchrun-ecg-rhythm-balanced-class-weights":
        _W + ", torchrun 2 ranks, --class-weights balanced: each rank computes inverse-frequency class weights from "
        "its own shard and normalises them by their sum; rank 1's shard holds no vtach strip, so 1/0 = inf makes the "
        "sum inf and its weights become 0 ... 0 nan; its weighted cross-entropy is NaN from the first step, the NaN "
        "gradients are all-reduced into both replicas, and the run keeps going to the end with a NaN loss and a model "
        "stuck predicting one class (exit 0). evidence: '[rank 1] shard class counts: ... vtach=0', '[rank 1] class "
        "weights: 0.000 0.000 0.000 0.000 0.000 nan', 'epoch 1 step 8/96 loss nan (avg nan)', every epoch 'val acc "
        "0.448 | macro-F1 0.124' with 'per-class recall: normal=1.00 brady=0.00 ...', 'job exited with 0'.",
    "torchrun-ecg-rhythm-ssh-session-closed":
        _W + ", torchrun 2 ranks, a long run (100 epochs) started in the foreground of an SSH session; after 50 s "
        "(epoch 7) the session closes and the job's process group gets SIGHUP. evidence: normal epochs up to 'epoch 7 "
        "eval: val acc 0.552', 'Received 1 death signal, shutting down workers', 'Sending process ... closing signal "
        "SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process ... got signal: 1', 'job "
        "exited with 1'.",
    "torchrun-ecg-rhythm-pod-deleted":
        _W + ", torchrun 2 ranks, a long run (100 epochs) as the main process of a Kubernetes pod; after 55 s "
        "(epoch 7) the pod is deleted and the container runtime sends SIGTERM to the launcher, which forwards it to "
        "the ranks. evidence: normal epochs up to 'epoch 7 eval: val acc 0.552', 'Received 15 death signal, shutting "
        "down workers', 'Sending process ... closing signal SIGTERM', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process ... got signal: 15', 'job exited with 1'.",
    "torchrun-ecg-rhythm-misclassified-strips-small-volume":
        _W + ", torchrun 2 ranks, --dump-misclassified with misclassified/ on a 1 MB volume: after each eval rank 0 "
        "writes every misclassified validation strip as a 2000-row CSV; epoch 1's 18 files fit, epoch 2's do not and "
        "the write fails, then rank 1 loses its peer in the epoch-end barrier (symptom). evidence: 'tmpfs 1.0M 0 "
        "1.0M 0% /tmp/waveaf-b-job/run/misclassified', '[rank 0] wrote 18 misclassified strips to "
        "misclassified/epoch01/', rank 0 traceback at 'w.writerows(...)' -> 'OSError: [Errno 28] No space left on "
        "device', rank 1 'Connection closed by peer ... This is typically caused by a remote worker crashing', rank 1 "
        "SIGTERM'd by torchrun, 'job exited with 1'.",
    "lightning-ecg-rhythm-healthy-warnings":
        _W + ", Lightning Trainer (strategy ddp, 2 CPU processes, ModelCheckpoint on val_acc), 5 epochs: harmless "
        "noise on the way (the SLURM plugin's 'The `srun` command is available on your system but is not used' hint, "
        "a '`isinstance(treespec, LeafSpec)` is deprecated' warning from each rank, the sanity-check eval printed as "
        "a first 'epoch 0 eval'), then a normal run. evidence: 'All distributed processes registered. Starting with 2 "
        "processes', 'epoch 4 eval: val acc 0.854', '`Trainer.fit` stopped: `max_epochs=5` reached.', 'fit finished: "
        "best val_acc 0.854', 'job exited with 0'.",
    "raytune-ecg-rhythm-asha-sweep-healthy":
        _W + ", Ray Tune on a local 2-CPU Ray cluster: 4 single-process trials (1 CPU each) over lr (log-uniform) and "
        "GRU width, ASHA (max_t 4, grace 1, reduction 2) stops three trials after 2 epochs (TERMINATED, an early stop "
        "by design, not an error). evidence: 'Scheduler AsyncHyperBandScheduler', 'Trial status: 4 TERMINATED', the "
        "final table with iter 4 for one trial and 2 for the others, 'best trial: lr=5.05e-04 hidden=64 val acc "
        "0.438', '4 trials, 0 errored', 'job exited with 0'.",
    "raydata-ecg-rhythm-spectrogram-stage-num-gpus":
        _W + ", Ray Data pipeline on a local 2-CPU, GPU-less Ray cluster: range -> map_batches(synth) -> "
        "map_batches(Spectro, num_gpus=1, concurrency=1) (a stateful spectrogram stage copied from a GPU box), then "
        "single-process training over iter_torch_batches; the stage's actor asks for 1 GPU, can never be placed, and "
        "the dataset makes no progress until the user presses Ctrl-C after 100 s. evidence: 'Execution plan of "
        "Dataset ... -> ActorPoolMapOperator[MapBatches(Spectro)]', 'Active & requested resources: ... (pending: 1 "
        "CPU, 1 GPU)' repeated every 10 s, 'MapBatches(Spectro): 0/1' with 'Actors: 1 (running=0, restarting=0, "
        "pending=1 ...)', '(autoscaler +9s) Error: No available node types can fulfill resource request {'GPU': 1.0, "
        "'CPU': 1.0}', no 'epoch 1' line, 'KeyboardInterrupt' in streaming_executor get_output_blocking, 'job exited "
        "with 1'.",
    "torchrun-ecg-rhythm-holter-report-rank0":
        _W + ", torchrun 2 ranks, --rhythm-report 8000 --pg-timeout 30: after the first eval rank 0 alone runs a "
        "pure-Python Pan-Tompkins R-peak detector over 8000 held-out Holter strips for a heart-rate/SDNN report, which "
        "takes far longer than the 30 s process-group timeout; rank 1 waits in the epoch-end barrier and gloo times "
        "out, then torchrun SIGTERMs rank 0 (symptom). evidence: 'pg_timeout=30s', '[rank 0] rhythm report (R-peak "
        "detection on 8000 held-out Holter strips):' with no per-class lines after it, rank 1 'dist.barrier()' -> "
        "'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to "
        "complete', 'Root Cause (first observed failure): ... rank : 1', 'job exited with 1'.",
    "raytune-ecg-rhythm-sweep-space-from-config":
        _W + ", Ray Tune on a local 2-CPU Ray cluster, 4 trials with the search space read from "
        "configs/rhythm_sweep.json, whose keys were renamed (GRU width now 'gru_width') while the trainable still "
        "reads config['hidden']: every trial raises KeyError before its first report, Tune marks all 4 ERROR and the "
        "driver's get_best_result then fails (symptom). evidence: the printed config '{\"lr\": {...}, \"gru_width\": "
        "{\"choice\": [32, 64, 96]} }', 'search space from configs/rhythm_sweep.json: {... 'gru_width': ...}', four "
        "'ray.exceptions.RayTaskError(KeyError): ray::ImplicitFunc.train()' tracebacks ending 'model = "
        "RhythmNet(config[\"hidden\"])' / 'KeyError: 'hidden'', 'Trial trainable_... errored after 0 iterations', "
        "'Number of errored trials: 4', 'RuntimeError: No best trial found for the given metric: val_acc', 'job "
        "exited with 1'.",
}
