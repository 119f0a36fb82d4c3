"""What each committed run of wave AK (b) showed (written after the runs; the manifest's notes column)."""

W = ("sep.py (Conv-TasNet-style two-speaker source separator: learned 1-D conv encoder/decoder, temporal conv network "
     "mask estimator with gLN; synthetic mixtures of harmonic tones with vibrato plus coloured noise, 0.5 s at 8 kHz; "
     "permutation-invariant SI-SNR loss; validation SI-SNR improvement all-reduced)")

NOTES = {
    "torchrun-tasnet-anomaly-mode-healthy":
        f"torchrun 2 ranks gloo, {W}, 2 epochs with --detect-anomaly (each training step runs inside "
        "torch.autograd.detect_anomaly()): torch's UserWarning that anomaly detection is enabled on both ranks, "
        "nothing is anomalous; SI-SNR improves, best.pt saved, finishes cleanly. evidence: 'UserWarning: Anomaly "
        "Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.', "
        "'epoch 1 val si-snr 1.95 dB si-snri 1.96 dB', 'all ranks finished', 'job exited with 0'",
    "torchrun-tasnet-room-reverb-aug":
        f"torchrun 2 ranks, {W}, with --reverb 0.5 (room augmentation: a toy shoebox impulse response, direct path "
        "and first-order wall images with amplitude 1/distance, talker positions drawn on a 0.25 m grid that "
        "includes the microphone position). One training clip of rank 0 puts a talker on the microphone: distance "
        "0, NumPy divides by zero (inf), the normalised impulse response is NaN, the mixture is NaN; the loss and "
        "every weight (through DDP's all-reduce) become NaN at the first step that batch is used and stay NaN; "
        "there is no non-finite check, so the run goes on to the end with nan validation and exits 0. evidence: "
        "'epoch 0 step 8/192 loss 10.5575', 'RuntimeWarning: divide by zero encountered in scalar divide', "
        "'h[lag] += (0.7 if k else 1.0) / d', 'RuntimeWarning: invalid value encountered in divide', "
        "'epoch 0 step 16/192 loss nan (si-snr nan dB) grad_norm nan', 'epoch 2 val si-snr nan dB si-snri nan dB', "
        "'job exited with 0'",
    "mpspawn-tasnet-dynamic-mix-container":
        f"torch.multiprocessing.spawn 2 ranks inside a 1500 MB memory cgroup (a container limit), {W}, with "
        "--train-size 2048 --dynamic-mix 40: dynamic mixing implemented by pre-mixing 40 re-pairings of every "
        "training clip up front, a float32 bank of 40 x 1024 x 3 x 4000 samples (about 2 GB) per rank; the kernel "
        "OOM killer (memory cgroup out of memory) SIGKILLs rank 1 while the banks fill, mp.spawn terminates rank 0. "
        "evidence: '[rank 1] dynamic mixing: pre-mixing 40 re-pairings of 1024 clips', 'Terminating process ... via "
        "signal SIGTERM', 'ProcessExitedException: process 1 terminated with signal SIGKILL', 'job exited with 1'",
    "mpspawn-tasnet-shard-refresh":
        f"torch.multiprocessing.spawn 2 ranks, {W}, from two shards with --reload-shards (each rank re-reads its "
        "shard at every epoch start under a shared flock on the shard's lock file, so it never reads a shard the "
        "data pipeline is rewriting) and a 30 s process-group timeout. Shortly after the job started, the data "
        "pipeline began re-rendering shard 01 (40000 clips) while holding its exclusive lock; at the start of epoch "
        "3 rank 1 blocks in flock, rank 0 goes on and waits in DDP's gradient all-reduce until gloo times out. "
        "evidence: 'epoch 2 val si-snr 4.81 dB si-snri 4.82 dB', 'sep.py\", line 384, in train_loop', "
        "'loss.backward()', 'Timed out waiting 30000ms for recv operation to complete', 'Process 0 terminated with "
        "the following error', 'job exited with 1'",
    "mpspawn-tasnet-render-cache-container":
        f"torch.multiprocessing.spawn 2 ranks, {W}, with --train-size 2048 --render-cache /dev/shm/tasnet-cache "
        "(each rank renders its 1024 training mixtures once and saves them as .npy files in a RAM-disk cache) in a "
        "container whose /dev/shm is 64 MB: the two ranks' 48 KB clips fill /dev/shm and np.save fails with ENOSPC "
        "on rank 1. evidence: 'tmpfs 64M 0 64M 0% /dev/shm', 'OSError: [Errno 28] No space left on device', "
        "'np.save(os.path.join(self.render_dir, f\"{i:06d}.npy\"), ...)', 'Process 1 terminated with the following "
        "error', 'job exited with 1'",
    "mpspawn-tasnet-half-shards-mixdown":
        f"torch.multiprocessing.spawn 2 ranks, {W}, from float16 shards with --mix-lib ./libmix.so (mix.c, a "
        "half-precision mixdown helper called through ctypes for every clip); the library was built with "
        "-O3 -march=sapphirerapids (as on a data-prep server with AVX-512 FP16) and this node's AMD EPYC has AVX-512 "
        "but not AVX512-FP16: the first vaddph instruction raises SIGILL in both ranks at their first batch. "
        "evidence: '32 steps/epoch, global batch 16', 'Terminating process ... via signal SIGTERM', "
        "'ProcessExitedException: process 1 terminated with signal SIGILL', 'job exited with 1'",
    "mpspawn-tasnet-project-venv":
        f"torch.multiprocessing.spawn 2 ranks, {W}, run from the project's own venv (torch 2.13.0, numpy 1.24.4) with "
        "--index: the shard index data/index.pkl (a dict holding a NumPy array) was written by the data-prep step in "
        "the shared environment with NumPy 2.4, whose pickles reference numpy._core; NumPy 1.24 has no such module, "
        "so pickle.load fails on both ranks. evidence: 'envs/sep311/lib/python3.11/site-packages/torch/"
        "multiprocessing/spawn.py', 'index = pickle.load(f)', \"ModuleNotFoundError: No module named 'numpy._core'\", "
        "'job exited with 1'",
    "lightning-tasnet-yaml-recipe":
        f"Lightning Trainer (ddp on CPU, 2 processes, gloo), {W}, with --config recipe.yaml: the recipe writes "
        "'lr: 3e-4', which PyYAML (YAML 1.1: a float needs a dot) loads as the string '3e-4'; the options override "
        "the defaults and torch.optim.Adam raises in configure_optimizers on both ranks. evidence: \"config "
        "recipe.yaml: {'epochs': 3, 'batch': 8, 'lr': '3e-4', ...}\", 'sep.py\", line 475, in configure_optimizers', "
        "\"TypeError: '<=' not supported between instances of 'float' and 'str'\", 'job exited with 1'",
    "lightning-tasnet-on-ray-head":
        f"Lightning Trainer (ddp on CPU, 2 processes), {W}, started on a Ray head node (this generator's cluster "
        "running, GCS on port 6551) by a job script that sets MASTER_ADDR/MASTER_PORT from RAY_ADDRESS "
        "(127.0.0.1:6551); rank 0's TCPStore cannot bind the port the Ray GCS server holds. evidence: "
        "'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2', 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 6551, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', 'job exited with 1'",
}

NOTES.update({
    "torchrun-tasnet-dataset-level-norm":
        f"torchrun 2 ranks, {W}, from four shards with --input-norm dataset: rank 0 computes the mean mixture RMS and "
        "writes it to cache/level-stats-<key>.json while the other ranks poll for that file; the cache key is a hash "
        "of the shard files the rank itself reads, so rank 1 (shards 01 and 03) waits for a different file than "
        "rank 0 (shards 00 and 02) wrote, forever and without output, while rank 0 waits in its first DDP gradient "
        "all-reduce (default 30 min timeout). The user presses Ctrl-C after about 75 silent seconds. evidence: "
        "\"[rank 1] waiting for rank 0's level statistics (cache/level-stats-e57fa8660a.json)\", '[rank 0] wrote "
        "cache/level-stats-4a1b823ee9.json (mean rms 0.2352)', '32 steps/epoch' (no step line follows), 'Received 2 "
        "death signal, shutting down workers', '[rank1]:   File ... line 330, in level_stats', "
        "'[rank1]: KeyboardInterrupt', 'job exited with 1'",
    "lightning-tasnet-early-stopping-healthy":
        f"Lightning Trainer (ddp on CPU, 2 processes, gloo) with one DataLoader worker each, {W}, 8 epochs with "
        "EarlyStopping on val_si_snri (patience 1, min_delta 0.5 dB; it never triggered, the metric kept improving); "
        "Lightning's tips, model summary and a pytree deprecation message on both ranks; finishes normally. "
        "evidence: '`isinstance(treespec, LeafSpec)` is deprecated', '`Trainer.fit` stopped: `max_epochs=8` "
        "reached.', \"fit finished: {'train_loss': tensor(-7.4909), 'val_si_snri': tensor(6.1400)}\", "
        "'job exited with 0'",
    "hftrainer-tasnet-best-model-healthy":
        f"transformers Trainer under torchrun 2 ranks (gloo), {W}, 3 epochs, eval and save per epoch with "
        "save_total_limit 1 and load_best_model_at_end; DDP's find_unused_parameters warning from reducer.cpp on "
        "both ranks (harmless); eval loss (negative SI-SNR) falls every epoch, finishes normally. evidence: "
        "'Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
        "parameters', \"{'eval_loss': '0.2095', ... 'epoch': '3'}\", 'training finished', 'job exited with 0'",
    "hftrainer-tasnet-long-run":
        f"transformers Trainer under torchrun 2 ranks, {W}, a 20-epoch run started from an SSH terminal in the "
        "foreground; during epoch 2 the terminal closed and the job's foreground process group got SIGHUP: torchrun "
        "shuts down its workers and exits with SignalException (signal 1). evidence: \"{'loss': '0.1285', ... "
        "'epoch': '2'}\", 'Received 1 death signal, shutting down workers', 'Sending process ... closing signal "
        "SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process ... got signal: 1', "
        "'job exited with 1'",
    "raytune-tasnet-asha-sweep-healthy":
        f"Ray Tune on this generator's 2-CPU Ray cluster, {W}, an ASHA sweep of 4 trials (1 CPU each) over lr and "
        "hidden width, 3 epochs, 256 training clips; ASHA stops two trials after their first epoch (normal); the "
        "sweep finishes and prints the best trial. evidence: 'Trial status: 4 TERMINATED', 'Current best trial: "
        "d9aba_00002 with si_snri=3.766...', \"best trial: {'lr': 0.0017984670349478868, 'hidden': 64} si_snri "
        "3.77\", 'job exited with 0'",
    "raytrain-tasnet-vad-trimmed-val":
        f"Ray Train TorchTrainer (2 workers x 1 CPU, gloo), {W}, from shards where the validation shard read by "
        "rank 1 (val-01) was exported trimmed to the active region by an energy VAD (-35 dBFS over 10 ms frames) "
        "from recordings at levels down to -50 dB: the quietest clips have no frame above the threshold and are "
        "stored with 0 samples; at the first validation the encoder Conv1d gets an empty clip on worker rank 1 and "
        "the controller fails the run. evidence: 'val-01.npz', '(RayTrainWorker ...) Error in training function:', "
        "'sep.py\", line 306, in evaluate', \"RuntimeError: Calculated padded input size per channel: (0). Kernel "
        "size: (16). Kernel size can't be greater than actual input size\", '[Rank 1 Error Snippet]:', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors', 'job exited with 1'",
    "raytrain-tasnet-checkpoints-volume":
        f"Ray Train TorchTrainer (2 workers x 1 CPU), {W}, 8 epochs with a ray.train.Checkpoint (model + Adam "
        "state) reported by rank 0 every epoch and storage_path on a 2 MB volume (results/); no num_to_keep, so "
        "every checkpoint is kept; persisting the third checkpoint runs out of space. evidence: 'tmpfs 2.0M 0 2.0M "
        "0% /tmp/waveak-b-job/run/results', 'Checkpoint successfully created at: ... checkpoint_...', "
        "'persist_current_checkpoint', 'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space "
        "left on device', 'ray.train.WorkerGroupError: Training failed due to worker errors', 'job exited with 1'",
    "rayjob-tasnet-queue-stop":
        f"A Ray job (ray job submit, tailing its logs) running Ray Train TorchTrainer (2 workers x 1 CPU), {W}, 30 "
        "epochs; in epoch 2 the cluster's job queue manager preempted it from another terminal with `ray job stop` "
        "(SIGTERM to the entrypoint): the driver reports SIGTERM, the job ends STOPPED and the client says so. "
        "evidence: \"Job 'tasnet-train-0412' submitted successfully\", 'epoch 2 batch 8 loss 0.3278', '*** SIGTERM "
        "received at time=... on cpu 0 ***', \"WARN cli.py:85 -- Job 'tasnet-train-0412' was stopped\", "
        "'job exited with 0'",
})

NOTES["torchrun-tasnet-sync-best"] = (
    f"torchrun 2 ranks, {W}, with --sync-best: after each validation rank 0 decides whether the epoch is the best "
    "one and all-reduces that flag so that every rank agrees, but the all_reduce sits inside rank 0's "
    "`if rank == 0:` block; rank 1 goes straight on to the next epoch's DDP gradient all-reduce, and gloo's size "
    "check aborts rank 0 (a 60692-byte message where it expects 4 bytes); torchrun reports rank 0 SIGABRT as the "
    "root cause, rank 1 saw the connection reset. evidence: 'epoch 0 val si-snr -0.15 dB si-snri -0.14 dB', "
    "\"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. "
    "60692 vs 4. Received data size doesn't match expected size. Is there a distributed collective mismatch in your "
    "code?', '[rank1]: RuntimeError: ... Connection reset by peer', 'exitcode  : -6 (pid: ...)  (SIGABRT)', "
    "'job exited with 1'")

NOTES["torchrun-2node-tasnet-node0-log"] = (
    "torchrun 2 nodes x 1 process (both on this machine, static rendezvous on 127.0.0.1:29965, --rdzv-conf "
    f"timeout=60), {W}; node 1's launch script first renders its own data set (8 shards x 8000 mixtures) and only then "
    "starts torchrun, which takes longer than the rendezvous timeout; only node 0's console is kept: its agent's "
    "store gives up waiting for the second client before any worker started. evidence: 'static_tcp_rendezvous.py\", "
    "line 67, in next_rendezvous', 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for "
    "clients. 1/2 clients joined.', 'job exited with 1'")
