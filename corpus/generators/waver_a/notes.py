"""What each committed wave R (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("enhance.py (a mask-based single-channel speech enhancement model: synthetic voiced speech mixed with a noise bank "
     "at -5..15 dB SNR, 8 kHz, STFT 256/64, conv + GRU MaskNet of 165k parameters predicting a magnitude mask, noisy "
     "phase, L1 loss on compressed magnitudes, SI-SDR evaluation with each rank scoring its slice and sums "
     "all-reduced, rank-0 checkpoints with retention; gloo on CPU)")

NOTES = {
    "torchrun-masknet-sisdr-finetune-noise-only-clips":
        f"torchrun --nproc-per-node 2 of {W} with --noise-only-frac 0.1 (noise-only clips whose clean target is all "
        "zeros, to teach the model to output silence) and --sisdr-after 100 (fine-tune with negative SI-SDR after an "
        "L1 warm-up): SI-SDR divides by the reference energy, which is 0 for a noise-only clip, so the metric is 0/0; "
        "the evaluation already reports NaN and the first SI-SDR step's loss is NaN on both ranks, which the loop's "
        "finiteness check turns into an error. evidence: 'noise-only fraction 0.1', 'eval @ 50: 64 clips, SI-SDR "
        "noisy nan dB -> enhanced nan dB', 'step 101: switching loss to negative SI-SDR (fine-tuning phase)', "
        "'[rank1] step 101: non-finite loss nan (neg SI-SDR)', 'FloatingPointError: Loss is nan at step 101 on rank 1'.",
    "torchrun-masknet-stereo-field-recording-in-bank":
        f"torchrun --nproc-per-node 2 of {W} with a noise bank that includes a field recording exported as stereo "
        "(shape (240000, 2)); the mixer slices a noise segment and adds it to the mono clean clip, which cannot "
        "broadcast, so building the validation set raises on both ranks before the first step. evidence: 'noise bank: "
        "... street-stereo (240000, 2) @ 8000 Hz', 'noisy = clean + noise' in Mixer.clip (enhance.py line 119), "
        "'RuntimeError: The size of tensor a (8000) must match the size of tensor b (2) at non-singleton dimension 1', "
        "torchrun's ChildFailedError.",
    "torchrun-masknet-healthy":
        f"healthy: torchrun --nproc-per-node 2 of {W}, 200 steps, evals every 50 steps, checkpoints at 100 and 200. "
        "evidence: loss falling from 0.27 to about 0.08, 'eval @ 200: 64 clips, SI-SDR noisy 5.59 dB -> enhanced "
        "12.96 dB (SI-SDRi +7.37 dB)', 'done: 200 steps', 'job exited with 0'.",
    "torchrun-masknet-ssh-session-closed":
        f"torchrun --nproc-per-node 2 of {W} (2000 steps) started from an interactive shell; the terminal session "
        "closed at step 120 and the job's process group got SIGHUP; torchrun's agent takes it as a death signal and "
        "forwards SIGHUP to both workers, and nothing more is printed (the shell that would echo the exit status got "
        "the hangup too). evidence: training lines up to 'step 120/2000', then 'Received 1 death signal, shutting "
        "down workers' and 'Sending process ... closing signal SIGHUP' for both workers as the last lines.",
    "mpirun-masknet-healthy":
        f"healthy: Open MPI mpirun -np 3 of {W} (ranks from OMPI_COMM_WORLD_*, env:// at 127.0.0.1:29520), 200 steps. "
        "evidence: 'rank N/3 (from OMPI_COMM_WORLD_RANK)', loss falling, 'eval @ 200: 64 clips, SI-SDR noisy 5.59 dB "
        "-> enhanced 12.98 dB', 'done: 200 steps' on all three ranks, 'job exited with 0'.",
    "mpirun-masknet-loss-history-keeps-graphs-cgroup":
        f"mpirun -np 2 of {W} with --loss-history inside a 1.3 GB cgroup-v1 memory limit: the loop appends each "
        "step's loss tensor (not loss.item()) to a list for a running mean, which keeps every step's autograd graph "
        "and its buffers alive (about 3 MB per step per rank, measured); after about 100 steps the kernel OOM killer "
        "SIGKILLs rank 0 with no Python traceback and rank 1 then sees the peer close. evidence: '| avg(last 100) "
        "0.2287' on the last progress line (the list grows by one entry per step), 'mpirun noticed that process rank "
        "0 with PID 0 on node vm exited on signal 9 (Killed).', 'job exited with 137'; rank 1's 'Connection closed by "
        "peer' in loss.backward is a consequence.",
    "mpirun-masknet-per-rank-early-stopping":
        f"mpirun -np 3 of {W} with --early-stop-patience 1, evals every 20 steps and a 20 s process-group timeout: "
        "the early-stopping decision uses each rank's own validation slice (21/21/22 clips) and is never agreed "
        "across ranks, so at step 220 rank 0 (no improvement larger than the 1e-3 min-delta) leaves the loop and waits "
        "in the final dist.barrier() while ranks 1 and 2 carry on into DDP's gradient all-reduce of step 221; rank 0's "
        "gloo recv times out after 20 s and the others then lose their peer. evidence: '[rank0] no improvement in val "
        "L1 (0.0730 >= best 0.0740), patience 1/1', '[rank0] early stopping at step 220' with no such line on ranks "
        "1/2, '[rank0]: RuntimeError: [.../unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to "
        "complete', ranks 1/2 'Connection closed by peer', 'job exited with 1'.",
    "mpirun-masknet-config-world-size-from-other-cluster":
        f"mpirun -np 2 of {W} with --config train_config.json whose world_size 3 (copied from a 3-process run) "
        "overrides the launcher's OMPI_COMM_WORLD_SIZE: both ranks init the process group for 3 ranks, the store on "
        "rank 0 waits for a third client that never starts, and both time out after 30 s. evidence: 'run config "
        "train_config.json: {\"world_size\": 3, ...}', 'rank 0/3 (from OMPI_COMM_WORLD_RANK)' under mpirun -np 2 "
        "(ranks 0 and 1 only), 'torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 2/3 "
        "clients joined.', 'DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/0'.",
    "slurm-masknet-healthy":
        f"healthy: sbatch --wait of enhance.sbatch (2 tasks, partition batch, srun --kill-on-bad-exit=1) running {W}, "
        "200 steps; the job's slurm-<id>.out. evidence: the header '... 2 task(s), master vm:29580, time limit "
        "UNLIMITED', loss falling, 'eval @ 200: 64 clips, SI-SDR noisy 5.59 dB -> enhanced 12.96 dB', 'done: 200 "
        "steps', 'srun exited with 0'.",
    "slurm-masknet-smoke-test-time-limit":
        f"sbatch --wait --time=00:01:00 enhance.sbatch --steps 1500 of {W}: the one-minute time limit of a smoke test "
        "was kept for a full run, and Slurm cancels the job at the limit (about step 320 of 1500); the job's "
        "slurm-<id>.out. evidence: header '... time limit 1:00', 'slurmstepd-vm: error: *** JOB 2 ON vm CANCELLED AT "
        "... DUE TO TIME LIMIT ***', 'srun: error: vm: tasks 0-1: Terminated'.",
    "slurm-masknet-vad-index-deep-pickle":
        f"sbatch --wait enhance.sbatch (2 tasks) of {W} with --vad-index: the script raises the recursion limit to "
        "1,000,000 and rank 0 stores in each checkpoint a frame-level voiced/unvoiced index of the validation set built "
        "as a linked chain of nested lists (64000 levels deep); pickling it in torch.save recurses once per level in "
        "C and overflows the C stack, so rank 0 dies of SIGSEGV at the first checkpoint (PYTHONFAULTHANDLER=1 was "
        "exported for the job). evidence: 'vad index: 64 validation clips, 9736 voiced/unvoiced runs', 'Fatal Python "
        "error: Segmentation fault' with the Python stack torch/serialization.py persistent_id/_save/save <- "
        "enhance.py line 351 in main, 'srun: error: vm: task 0: Segmentation fault', 'srun exited with 143'; rank 1's "
        "'Connection closed by peer' and Slurm's cancellation of task 1 are consequences.",
    "deepspeed-masknet-healthy":
        f"healthy despite alarming lines: the DeepSpeed launcher (--num_gpus 2, CPU accelerator) running {W} through "
        "deepspeed.initialize with ds_config.json (train_batch_size 32 = 16 x 1 x 2, ZeRO stage 0, clipping 5.0), 200 "
        "steps with engine checkpoints at 100 and 200. evidence: the launcher's '[WARNING] ... Setting accelerator to "
        "CPU. If you have GPU or other accelerator, we were unable to detect it.' and 'Unable to find hostfile, will "
        "proceed with training with local resources only.' are harmless on a CPU node; loss falling, 'eval @ 200: 64 "
        "clips, SI-SDR noisy 5.59 dB -> enhanced 12.96 dB', 'done: 200 steps', 'job exited with 0'.",
    "deepspeed-masknet-grad-accum-flag-overrides-config":
        f"the DeepSpeed launcher (--num_gpus 2) of {W} with ds_config.json (train_batch_size 32, micro batch 16, "
        "gradient_accumulation_steps 1) and the script's --grad-accum 2, which overwrites gradient_accumulation_steps "
        "in the loaded config without recomputing train_batch_size; DeepSpeed's batch check fails in "
        "deepspeed.initialize on both ranks. evidence: 'deepspeed config: {\"train_batch_size\": 32, "
        "\"train_micro_batch_size_per_gpu\": 16, \"gradient_accumulation_steps\": 2, ...}', 'AssertionError: Check "
        "batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * "
        "world_size 32 != 16 * 2 * 2'.",
    "deepspeed-masknet-engine-checkpoints-small-volume":
        f"the DeepSpeed launcher (--num_gpus 2) of {W} saving an engine checkpoint (engine.save_checkpoint, model + "
        "optimizer states, about 2 MB each, never pruned) every 50 steps into ckpt/, a 5 MB volume (tmpfs): the third "
        "save fills it and torch.save's zip writer fails on rank 0 with a stream error rather than an errno; the job's "
        "command then runs 'df -h ckpt'. evidence: 'saved deepspeed checkpoint ckpt/step50' and '.../step100', then in "
        "save_checkpoint at step 150 '[rank0]: RuntimeError: basic_ios::clear: iostream error' and '[enforce fail at "
        "inline_container.cc:...] . unexpected pos ...', 'job exited with 1', and df's 'tmpfs 5.0M 5.0M 0 100% "
        ".../ckpt'; rank 1's 'Connection closed by peer' is a consequence.",
    "accelerate-masknet-loader-workers-container-shm":
        f"accelerate launch --num_processes 2 of {W} with --loader-workers 2 --batch 64 --clip-sec 2.0 in a container "
        "whose /dev/shm is 24 MB (a private tmpfs): each loader worker returns a batch of complex spectrograms plus "
        "waveforms (about 25 MB) through shared memory, prefetch 4; the workers' queue feeder threads cannot allocate "
        "the shm segments, the batches never arrive and both ranks wait in next(loader) without a step; the user "
        "pressed Ctrl-C after 90 s. evidence: 'DataLoader: 2 workers, prefetch 4, batches of 64 complex "
        "spectrograms', repeated 'RuntimeError: unable to allocate shared memory(shm) for file </torch_...>: No space "
        "left on device (28)' from multiprocessing/queues.py _feed -> torch reduce_storage -> _share_fd_cpu_, no "
        "'step 1/' line, then 'Received 2 death signal' and both ranks' KeyboardInterrupt (the interrupt is the "
        "user's, not the cause).",
    "accelerate-masknet-drain-sigterm":
        f"accelerate launch --num_processes 2 of {W} (2000 steps): the node was drained at step 160 and the job's "
        "process group got SIGTERM; accelerate's torch elastic agent raises SignalException and the workers are "
        "stopped. evidence: training lines to 'step 160/2000', then 'Received 15 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process ... got signal: 15'.",
}
