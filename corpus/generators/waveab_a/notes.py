"""What each committed run showed (the manifest rows' notes), written after the runs."""
W = ("inr.py (conditional SIREN: 3 sine layers x 128, w0 30, a learned code per signal, fitting synthetic 64x64 RGB "
     "signals, signal i on rank i % world, MSE, PSNR per epoch, rank-0 checkpoints; gloo on CPU)")
NOTES = {
    "torchrun-siren-healthy":
        f"torchrun --nproc-per-node 2 of {W}, 10 epochs, with OMP_NUM_THREADS unset (torchrun's boxed warning that it "
        "sets it to 1); healthy. evidence: 'Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
        "default', 'eval epoch 10: mean PSNR 18.12 dB over 4 signals', 'done: 10 epochs, 160 steps', 'job exited with 0'",
    "torchrun-siren-single-channel-export":
        f"torchrun --nproc-per-node 2 of {W}; one of the four signals (signal_001) was exported single-channel (64x64 "
        "instead of 64x64x3) and lands on rank 1, whose target building fails; torchrun then stops rank 0. evidence: "
        "'[rank1]:     rgb.append(torch.from_numpy(img.reshape(-1, 3)))', '[rank1]: ValueError: cannot reshape array "
        "of size 4096 into shape (3)', 'exitcode  : -15 (pid: ...)  (SIGTERM)' for rank 0, 'job exited with 1'",
    "torchrun-siren-rank0-contact-sheet":
        f"torchrun --nproc-per-node 2 of {W} with --preview-res 1536 --pg-timeout 30: after each epoch rank 0 alone "
        "renders a 1536x1536 contact sheet of every signal (36 s) before the eval all-reduce, while rank 1 waits in that "
        "all-reduce and times out after 30 s. evidence: '[rank1]: RuntimeError: [...unbound_buffer.cc:129] Timed out "
        "waiting 30000ms for send operation to complete' in dist.all_reduce(tot), then '[rank0] contact sheet 6144x1536 "
        "-> preview.npy (36.3 s)' and rank 0's 'Connection closed by peer', 'job exited with 1'",
    "torchrun-siren-writer-holds-data-lock":
        f"torchrun --nproc-per-node 2 of {W}; an earlier make_signals.py job (not in this log) was still rendering 3000 "
        "signals into the same data directory and held its exclusive flock on data/.lock, so both ranks blocked taking "
        "the shared lock: no output for 68 s after the first line, then the user pressed Ctrl-C. evidence: only '[rank0] "
        "world 2, ...' at 02:51:30, then at 02:52:38 'Received 2 death signal, shutting down workers' and on both ranks "
        "'fcntl.flock(lk, fcntl.LOCK_SH)  # not while a writer is still rendering the set' / 'KeyboardInterrupt'",
    "mpirun-siren-five-signals-two-ranks":
        f"mpirun -np 2 of {W} with five signals: rank 0 fits three (24 steps/epoch), rank 1 two (16 steps/epoch); after "
        "16 steps rank 1 goes to the eval all-reduce (8 bytes) while rank 0 is still in DDP's gradient all-reduce, and "
        "gloo aborts rank 1 on the size mismatch. evidence: '[rank0] signals [...] (3/5), 12288 coordinates, 24 "
        "steps/epoch' vs '[rank1] ... (2/5), 8192 coordinates, 16 steps/epoch', 'terminate called after throwing an "
        "instance of 'gloo::EnforceNotMet'', 'op.preamble.length <= op.nbytes. 35924 vs 8. Received data size doesn't "
        "match expected size. Is there a distributed collective mismatch in your code?', 'mpirun noticed that process "
        "rank 1 ... exited on signal 6 (Aborted)'",
    "mpirun-siren-sgd-sum-reduction":
        f"mpirun -np 2 of {W} with --optim sgd --loss-reduction sum (MSE summed over 512x3 values instead of averaged, "
        "gradients 1536x larger at lr 1e-3): the loss explodes from the first step and is NaN at step 6 on both ranks. "
        "evidence: 'optimizer sgd lr 0.001, loss reduction sum', 'epoch 1 step 1 loss 98.37672' -> 'step 2 loss "
        "2921.12488' -> 'step 4 loss 23154.95258', 'FloatingPointError: loss is nan at epoch 1 step 6', 'job exited with 1'",
    "mpirun-siren-vendored-siren-utils":
        f"mpirun -np 2 of {W} with --vendored-utils: siren_utils.py, vendored from an older SIREN fork, calls np.alltrue, "
        "removed in NumPy 2.0; the run has numpy 2.4.6. Rank 0 fails in the parameter summary, rank 1 then loses its "
        "peer. evidence: 'numpy 2.4.6' in the header, 'assert np.alltrue(np.isfinite(w))', 'AttributeError: `np.alltrue` "
        "was removed in the NumPy 2.0 release. Use `np.all` instead.', rank 1's 'Connection closed by peer', 'job exited with 1'",
    "accelerate-siren-healthy":
        f"accelerate launch --multi_gpu --num_processes 2 of {W} (Accelerator(cpu=True)), 10 epochs; healthy. evidence: "
        "'eval epoch 10: mean PSNR ... over 4 signals', 'done: 10 epochs, 160 steps', 'job exited with 0'",
    "accelerate-siren-render-2048-cgroup":
        f"accelerate launch of {W} with --render-res 2048 in a 1.5 GB memory cgroup: after epoch 1 every rank renders its "
        "signals at 2048x2048 in one forward pass (4.2M coordinates x 128 hidden units per layer, GBs per activation); "
        "the kernel OOM killer kills rank 0 (no Python traceback), the launcher stops rank 1. evidence: "
        "\"'render_res': 2048\" in the args, no 'rendered ...' line, 'failed (exitcode: -9) local_rank: 0', 'exitcode  : "
        "-9 (pid: ...)  (SIGKILL)', 'Signal 9 (SIGKILL) received by PID', 'job exited with 1'",
    "deepspeed-siren-healthy":
        f"DeepSpeed launcher --num_gpus 2 of {W} with deepspeed.initialize (ZeRO 0, torch Adam, train_batch_size 1024 = "
        "512 x 1 x 2) on the CPU accelerator, 10 epochs; healthy despite the launcher's warnings. evidence: '[WARNING] "
        "[real_accelerator.py:213:get_accelerator] Setting accelerator to CPU', '[WARNING] [runner.py:214:fetch_hostfile] "
        "Unable to find hostfile', 'done: 10 epochs, 160 steps', 'Process ... exits successfully.', 'job exited with 0'",
    "deepspeed-siren-renders-scratch-volume":
        f"DeepSpeed launcher --num_gpus 2 of {W} with --render-res 512 --render-dir renders: rank 0 writes two 768 KB PPM "
        "renders per epoch onto a 4 MB scratch volume already holding 1 MB of an earlier run; the write fails in epoch 3. "
        "evidence: 'renders epoch 1 -> renders/', 'renders epoch 2 -> renders/', '[rank0]:     f.write((im.numpy() * "
        "255).round().astype(np.uint8).tobytes())', '[rank0]: OSError: [Errno 28] No space left on device', 'job exited with 1'",
    "slurm-siren-healthy":
        f"sbatch --wait (2 tasks, srun) of {W}, 10 epochs; healthy. evidence: 'job 1 (inr-siren) partition batch on vm: "
        "2 task(s), WORLD_SIZE 2', 'done: 10 epochs, 160 steps', 'srun exited with 0'",
    "slurm-siren-world-from-gpus-per-node":
        f"sbatch --wait of {W}: inr.sbatch exports WORLD_SIZE as nodes x GPUS_PER_NODE, and GPUS_PER_NODE=4 came from the "
        "GPU cluster's environment, so a 2-task job initialises a world of 4; the two ranks wait for ranks 2 and 3 that "
        "never start until the 45 s timeout. evidence: '2 task(s), WORLD_SIZE 4', 'srun python inr.py --pg-timeout 45', "
        "'waitForInput: socket ... timed out after 45000ms', 'torch.distributed.DistStoreError: wait timeout after 45000ms, "
        "keys: /default_pg/0//cpu//0/0', 'srun exited with 143'",
    "slurm-siren-lr-sweep-array":
        f"sbatch --wait --array=0-1 of {W} as an lr sweep (LR_SWEEP=0.001,0.0003): both array tasks start on the same "
        "node with inr.sbatch's fixed MASTER_PORT 29597; the other task's store held the port, task 0's rank 0 cannot "
        "listen (this log is task 0's). evidence: 'job 4 (inr-siren, array task 0) ... master vm:29597', 'DistNetworkError: "
        "The server socket has failed to listen on any local network address. port: 29597, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'srun exited with 143'",
    "slurm-siren-preempted-by-urgent":
        f"sbatch --wait of {W} for 400 epochs in the preemptable batch partition; after eval epoch 3 a job in the urgent partition "
        "asked for all 4 CPUs and Slurm preempted this one seconds later, in epoch 10 (SIGTERM; the handler checkpoints and stops). evidence: "
        "'slurmstepd-vm: error: *** STEP 5.0 ON vm CANCELLED AT ...', 'received signal 15 (SIGTERM): will checkpoint and "
        "stop after this step', 'stopped on signal at epoch 10 step 145', 'PreemptTime=2026-11-29T02:55:49'",
}
