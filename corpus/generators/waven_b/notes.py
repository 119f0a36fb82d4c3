"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-gru-mt-healthy":
        "torch.multiprocessing.spawn, 2 processes, DDP over gloo (tcp:// init): a GRU encoder-decoder translator with "
        "attention (synthetic English-like -> made-up SOV language, 4000 pairs), 4 epochs, dev BLEU/exact-match "
        "all-reduced each epoch; nothing was done to it. evidence: per-rank loss lines falling, 'epoch 3 dev BLEU 99.77 "
        "exact-match 0.998', 'saved translator.pt', 'all processes finished', 'job exited with 0'.",
    "mpspawn-gru-mt-lr-sweep-shared-port":
        "A learning-rate sweep written as a shell loop that starts two mp.spawn translator jobs in the background "
        "(lr 0.003 and 0.001) with the same exported MASTER_PORT=29410; the first job's rank 0 binds the TCPStore, the "
        "second job's rank 0 cannot. evidence: 'launching lr=0.003' / 'launching lr=0.001', then in process 0 of one "
        "job 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29410, ... code: -98, name: EADDRINUSE, message: address already in use', spawn terminating its "
        "sibling via SIGTERM, while the other job trains on to 'all processes finished'.",
    "mpspawn-gru-mt-blank-source-lines":
        "mp.spawn translator (2 processes, gloo) with --mask-specials (attention masks <s>, </s> and padding with -inf) "
        "on a corpus where a few source lines are empty (lost in the sentence split, targets kept): an empty source has "
        "every attention position masked, softmax over all -inf gives NaN, and DDP's gradient all-reduce spreads it to "
        "both ranks; the job keeps running uselessly. evidence: loss 3.22 -> 2.31 -> 1.48 at steps 10-30, then '[rank 1] "
        "epoch 0 step 40 loss nan' on both ranks for every later step, 'epoch 0 dev BLEU 0.00 exact-match 0.000' and the "
        "same for epochs 1-2, yet 'job exited with 0'.",
    "lightning-gru-mt-healthy-reused-ckpt-dir":
        "Lightning 2.6.6 Trainer, strategy='ddp', 2 CPU processes (gloo): the GRU attention translator, 4 epochs, "
        "ModelCheckpoint(save_top_k=2) into a checkpoints/ folder that still held a file from an earlier run; healthy, "
        "with harmless alarming-looking lines. evidence: 'Checkpoint directory ... exists and is not empty' warning, "
        "the srun hint, deprecation warnings, the sanity-check 'epoch 0 val BLEU 0.00 exact 0.000' before training, "
        "then 'epoch 3 val BLEU 99.84 exact 0.995', '`Trainer.fit` stopped: `max_epochs=4` reached.', 'best checkpoint: "
        ".../epoch=3-step=252-v1.ckpt val_loss 0.0091', 'job exited with 0'.",
    "raytrain-gru-mt-healthy":
        "Ray Train TorchTrainer (Ray 2.60, 2 workers x 0.5 CPU, gloo) on this generator's local Ray cluster: the GRU "
        "attention translator, 4 epochs, each reporting metrics and a rank-0 checkpoint; healthy. evidence: 'Started "
        "training worker group of size 2', per-rank loss lines 2.5 -> 0.01, 'Checkpoint successfully created at' x4, "
        "'final metrics: {... 'bleu': 99.8...}', 'job exited with 0' (a core_worker.cc 'E' line about the "
        "PreemptionWatcher actor is harmless).",
    "mpspawn-gru-mt-rank0-beam-eval":
        "mp.spawn translator (2 processes, gloo, init_process_group timeout 20 s) with --beam 16 --dev-size 800: from "
        "epoch 1 rank 0 alone scores its 400 dev sentences with beam search (k=16, one sentence at a time) while rank 1 "
        "does greedy decoding in batches and waits in the dev-metric all_reduce; rank 1's collective times out before "
        "rank 0 arrives. evidence: '[rank 0] beam search (k=16) over 400 dev sentences', then process 1's traceback "
        "through 'evaluate' -> 'dist.all_reduce(stats)' -> 'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:129] "
        "Timed out waiting 20000ms for send operation to complete', spawn terminating process 0 via SIGTERM, 'job "
        "exited with 1'.",
    "raytrain-gru-mt-warmstart-old-vocab":
        "Ray Train TorchTrainer (2 workers x 0.5 CPU, gloo) fine-tuning the translator on a small in-domain set (40 "
        "pairs, seed 7) warm-started with --init-from a checkpoint trained on the 3000-pair corpus; the vocabularies are "
        "rebuilt from the new data, whose target side lacks two words of the old one (68 vs 70 entries), so loading the "
        "old state dict fails on both workers before training. evidence: '[rank 0] corpus 40 pairs (seed 7), src vocab "
        "54, tgt vocab 68', 'RuntimeError: Error(s) in loading state_dict for Seq2Seq: size mismatch for tgt_emb.weight: "
        "copying a param with shape torch.Size([70, 64]) from checkpoint, the shape in current model is "
        "torch.Size([68, 64])' (and out.weight/out.bias) at 'model.load_state_dict(state[\"model\"])' in train_loop, "
        "'ray.train.WorkerGroupError: Training failed due to worker errors', 'job exited with 1'.",
    "raytrain-gru-mt-alignment-dump":
        "Ray Train TorchTrainer (2 workers x 0.5 CPU) of the translator with --keep-attention: rank 0 appends a 256 MiB "
        "fp32 'attention map' tensor to an in-memory list every training step for an alignment viewer, so its worker "
        "grows by ~256 MiB per step; the cluster's memory monitor (RAY_memory_usage_threshold set to the node's use at "
        "start plus 2.5 GiB) kills the worker. evidence: 'Top 10 memory users' with '22721 2.25 ray::RayTrainWorker' "
        "(world_rank 0) far above everything else, 'ray.exceptions.OutOfMemoryError: 5 worker(s) were killed due to the "
        "node running low on memory', 'OOM kill reason: Memory usage 7750651904B exceeded threshold of 7734612992B', "
        "'A worker health check failed' for Rank 0, 'job exited with 1'.",
    "raytune-gru-mt-asha-healthy":
        "Ray Tune (Ray 2.60) with ASHAScheduler (max_t 6, grace 2, reduction 2) over 6 trials of the translator (lr, "
        "hidden width, label smoothing), 2 concurrent, a checkpoint per epoch; healthy. ASHA stops four trials early "
        "(TERMINATED after 1-2 iterations, one at BLEU 0) and after the run a trainable actor prints an 'Exception "
        "ignored in ... WeakSet' traceback ending in 'SystemExit: 1' from Ray's sigterm_handler while being shut down: "
        "harmless. evidence: 'Trial status: 6 TERMINATED', 'best trial config: lr=0.00377 hid=192 smoothing=0.1', "
        "'best trial BLEU 99.86 at epoch 5', 'errors: 0', 'job exited with 0'.",
    "hf-seq2seq-bart-mt-metrics-decode-labels":
        "Hugging Face Seq2SeqTrainer (transformers 5.24, DDP over gloo on 2 CPU processes started with mp.spawn) on a "
        "config-built tiny BART with a WordLevel fast tokenizer, predict_with_generate and a compute_metrics that "
        "decodes the label ids directly; DataCollatorForSeq2Seq pads labels with -100, which the fast tokenizer cannot "
        "decode, so the first evaluation (step 40) raises in the user's metric function. evidence: training loss lines "
        "9.54 -> 6.75, then process 1's traceback 'mt_hf.py, line 48, in compute_metrics: refs = "
        "tok.batch_decode(labels, skip_special_tokens=True)' -> 'OverflowError: number too small to fit in target "
        "type while processing 'ids'', spawn terminating process 0 via SIGTERM, 'job exited with 1'.",
    "raytune-gru-mt-results-volume-full":
        "Ray Tune ASHA sweep of the translator (4 trials, CheckpointConfig(num_to_keep=None): every epoch's "
        "checkpoint with model and Adam state kept) with storage_path on a 3 MiB volume (a tmpfs, 'df -h' printed "
        "first); the checkpoint copies fill it within the first epochs and every trial fails in tune.report, then the "
        "experiment state cannot be saved either. evidence: 'tmpfs 3.0M 0 3.0M 0% .../results', 'Trial task failed for "
        "trial trainable_..._00001' with the traceback through 'mt_tune.py, line 36, in trainable: tune.report(...)' -> "
        "'persist_current_checkpoint' -> 'pyarrow.fs.copy_files' -> 'OSError: [Errno 28] Error writing bytes to file. "
        "Detail: [errno 28] No space left on device' (x4), 'Saving experiment state to storage at ... failed', "
        "'Trial status: 4 ERROR', 'Trials did not complete', 'job exited with 1'.",
    "rayserve-gru-mt-empty-segment":
        "Ray Serve (serve.run, 2 replicas of the GRU translator behind Serve's HTTP proxy on 8531) and a replay of 120 "
        "multi-segment documents; every 37th document has a blank line between paragraphs, the replica splits the text "
        "on newlines and translate_segment reads words[-1] of the empty segment to carry sentence-final punctuation. "
        "evidence: 'request 36: HTTP 500 Internal Server Error', the replica's 'Request failed.' traceback 'mt_serve.py, "
        "line 41, in translate_segment: if words[-1] in (\".\", \"?\", \"!\"):' -> 'IndexError: list index out of "
        "range' (requests 36, 73, 110, on both replicas), 'replay done: 117 ok, 3 failed', 'SystemExit: 3 of 120 "
        "translation requests failed', 'job exited with 1'.",
    "mpspawn-gru-mt-spot-node-reclaimed":
        "mp.spawn translator (2 processes, gloo, 12 epochs planned) whose workers handle SIGTERM by writing a "
        "preemption checkpoint and exiting 143, and whose launcher logs SIGTERM and waits; the job script traps TERM. "
        "After 'epoch 2 dev BLEU' the node agent sent SIGTERM to the whole job (the instance was reclaimed), as a "
        "scheduler preemption does; nothing in the training failed. evidence: 'launcher: SIGTERM received, waiting for "
        "workers to exit', '[rank 0] received SIGTERM at epoch 3 step 187, writing preemption checkpoint', "
        "'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with exit code 143', 'job script: "
        "caught SIGTERM', 'job exited with 1', with healthy loss/BLEU lines up to the signal.",
    "hf-seq2seq-bart-mt-lr-2e3":
        "The same Hugging Face Seq2SeqTrainer BART translator (2 processes via mp.spawn, gloo; labels decoded "
        "correctly this time) launched with --lr 2e3 (a typo for 2e-3): with 20 warm-up steps the logged learning rate "
        "is already 900 at step 10, the first loss 3.8e6, every grad_norm nan, and the weights are NaN from then on; "
        "the run finishes and saves a useless model. evidence: \"{'loss': '3.824e+06', 'grad_norm': 'nan', "
        "'learning_rate': '900', ...}\", later \"'loss': '0', 'grad_norm': 'nan'\" lines, \"'eval_loss': 'nan', "
        "'eval_bleu': '0'\" at every evaluation, 'final eval: {'eval_loss': nan, ...}', 'job exited with 0'.",
    "raytrain-gru-mt-gpu-scaling-config":
        "Ray Train TorchTrainer of the translator with ScalingConfig(num_workers=2, use_gpu=True) (the launch flags of a "
        "GPU cluster) submitted to this CPU-only one-node Ray cluster (2 CPUs, no GPU resource): the worker group can "
        "never be placed; the controller retries every 60 s and the autoscaler keeps reporting the request as "
        "unfulfillable; Ctrl-C twice did not stop the driver and it was killed after 210 s. evidence: 'cluster "
        "resources: {... 'CPU': 2.0 ...}' with no GPU, 'Requesting resources: {'CPU': 1, 'GPU': 1} * 2', '(autoscaler "
        "+16s) Error: No available node types can fulfill resource request {'GPU': 1.0, 'CPU': 1.0}' repeated, 'The "
        "worker group startup timed out after 60.0 seconds waiting for 2 workers' and 'Attempting to start training "
        "worker group of size 2' again, no training output at all.",
}
