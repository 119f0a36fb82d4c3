"""What each committed run showed: the manifest rows' notes (written after the runs, from their logs)."""
W = ("sr.py: ESPCN-style single-image super-resolution (26.8K parameters at x2, conv-tanh-conv-tanh-conv + pixel "
     "shuffle) on synthetic 64x64 textures, 48px HR crops, antialiased bicubic LR inputs, L1 loss, PSNR/SSIM vs the "
     "bicubic baseline on the validation set after each epoch, rank-0 checkpoints, gloo on CPU")
NOTES = {
    "torchrun-espcn-healthy-omp-unset":
        f"torchrun, 2 ranks, 8 epochs, OMP_NUM_THREADS unset; {W}. No failure: the only alarming line is torchrun's "
        "OMP_NUM_THREADS warning. evidence: `Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
        "default`; `eval epoch 8: PSNR 22.55 dB SSIM 0.8808`; `done: 8 epochs, 400 steps`; `job exited with 0`.",
    "torchrun-espcn-x4-crop-from-x3-config":
        f"torchrun, 2 ranks, --scale 4 --crop 42; {W}. Cause: the HR crop size 42 was kept from an x3 config; at x4 "
        "the LR input is floor(42/4)=10 px, the pixel-shuffle output 40x40 against a 42x42 target, so the L1 loss "
        "fails on every rank at the first step. evidence: `UserWarning: Using a target size (torch.Size([16, 3, 42, "
        "42])) that is different to the input size (torch.Size([16, 3, 40, 40]))`; `[rank0]: RuntimeError: The size "
        "of tensor a (40) must match the size of tensor b (42) at non-singleton dimension 3`; `sr.py FAILED`; "
        "`job exited with 1`.",
    "torchrun-espcn-psnr-percentiles-odd-val":
        f"torchrun, 2 ranks, --gather-psnr; {W}. Cause: the validation export has 201 images, split 101/100 over the "
        "two ranks; per-image PSNR tensors of different lengths go into dist.all_gather (which needs equal shapes), "
        "gloo's size check aborts rank 1 and rank 0 then loses its peer. evidence: `val 101/201` and `val 100/201`; "
        "`terminate called after throwing an instance of 'gloo::EnforceNotMet'`; `op.preamble.length <= op.nbytes. "
        "202 vs 200. Received data size doesn't match expected size. Is there a distributed collective mismatch in "
        "your code?`; rank 0 `Connection reset by peer` (symptom); `exitcode  : -6 (pid: ...)  (SIGABRT)`.",
    "torchrun-2node-espcn-run-id-from-clock":
        f"torchrun, two 1-process nodes (two consoles: node0.log, node1.log) with c10d rendezvous on 127.0.0.1:29531, "
        f"join_timeout 30 s; {W}. Cause: the launch script builds --rdzv-id from the clock (`sr-$(date +%H%M%S)`) on "
        "each node, and node 1 was started 3 s after node 0, so the two agents wait in two different rendezvous on "
        "the same store until both time out. evidence: node0 `torchrun rendezvous id sr-003923`, node1 `torchrun "
        "rendezvous id sr-003926`; `torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError` on node 0; "
        "node 1 `recvValueWithTimeout failed ... remote=...:29531` after node 0's store went away; `job exited with 1` "
        "on both.",
    "torchrun-espcn-patch-bank-cgroup":
        f"torchrun, 2 ranks, --patch-bank 2, job in a 1.2 GB memory cgroup; {W}. Cause: each rank pre-extracts every "
        "overlapping 48px crop at stride 2 into one float32 tensor (64800 crops, 1.67 GiB per rank), beyond the "
        "cgroup's limit: the kernel OOM killer SIGKILLs rank 1 while the bank is being built. evidence: `building "
        "patch bank: 64800 crops of 48px (stride 2), 1.67 GiB` (both ranks); `failed (exitcode: -9) local_rank: 1`; "
        "`exitcode  : -9 (pid: ...)  (SIGKILL)` as the root cause; rank 0 `(SIGTERM)` (torchrun's clean-up); "
        "`job exited with 1`.",
    "mpirun-espcn-healthy-3-ranks":
        f"Open MPI mpirun, 3 ranks, 8 epochs; {W}. No failure. evidence: `world 3`; `eval epoch 8: PSNR 21.85 dB SSIM "
        "0.8671`; `done: 8 epochs, 264 steps`; `job exited with 0`.",
    "mpirun-espcn-previous-run-still-on-port":
        f"Open MPI mpirun, 2 ranks, MASTER_PORT=29521; {W}. Cause: an earlier training job (torchrun --master-port "
        "29521, started before and still running on the node) holds the port; rank 0's TCPStore cannot listen and "
        "mpirun aborts the job. evidence: `in init_process_group` -> `_create_c10d_store` -> `TCPStore(`; "
        "`torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29521, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use`; `mpirun detected "
        "that one or more processes exited with non-zero status`; `job exited with 1`.",
    "mpirun-espcn-vendored-edsr-loader":
        f"Open MPI mpirun, 2 ranks, --edsr-loader; {W}. Cause: batch helpers vendored from EDSR-PyTorch do `from "
        "torch._six import container_abcs, int_classes, string_classes`; torch._six was removed in torch 2.x and this "
        "is torch 2.13. evidence: `torch 2.13.0+cpu`; `File \".../edsr_utils.py\", line 5, in <module>`; `from "
        "torch._six import container_abcs, int_classes, string_classes`; `ModuleNotFoundError: No module named "
        "'torch._six'` (both ranks); `job exited with 1`.",
    "mpirun-espcn-rank0-self-ensemble-eval":
        f"Open MPI mpirun, 2 ranks, --self-ensemble 200 --pg-timeout 30; {W}. Cause: after each epoch's validation "
        "rank 0 alone runs an x8 geometric self-ensemble on 200 references upscaled to 512x512 (about a minute on "
        "CPU) while rank 1 goes on into the next epoch; rank 1's DDP gradient all-reduce waits longer than the 30 s "
        "process-group timeout. evidence: args `'self_ensemble': 200` and `'pg_timeout': 30`; rank 0's last line "
        "`eval epoch 1: PSNR 18.19 dB`; rank 1 `in main loss.backward()` -> `RuntimeError: [.../gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete`; rank 0 then `received "
        "signal 15 (SIGTERM)` from mpirun's clean-up (symptom); `job exited with 1`.",
    "accelerate-espcn-healthy":
        f"accelerate launch, 2 processes, 8 epochs; {W}. No failure. evidence: `eval epoch 8: PSNR 22.55 dB SSIM "
        "0.8808`; `done: 8 epochs, 400 steps`; `job exited with 0`.",
    "accelerate-espcn-save-state-small-volume":
        f"accelerate launch, 2 processes, --save-state (accelerate save_state into ckpt/epoch_N each epoch); {W}. "
        "Cause: ckpt/ is a 1 MB volume already holding 620 KB of an old run's files; epoch 1's state (~357 KB) fits, "
        "epoch 2's model.safetensors does not. evidence: `saved state ckpt/epoch_1`; `[rank0]: safetensors."
        "_safetensors_rust.SafetensorError: Error while serializing: I/O error: No space left on device (os error "
        "28)`; rank 1 `Connection closed by peer` (symptom); `job exited with 1`.",
    "accelerate-espcn-ssh-session-closed":
        f"accelerate launch, 2 processes, 30 epochs; {W}. Cause: the terminal/SSH session running the launch closed "
        "during epoch 3: the launcher got SIGHUP (signal 1), forwarded it to the workers and everything died; no "
        "`job exited` line follows because the shell went too. evidence: `eval epoch 2: PSNR 20.73 dB`; `torch/"
        "distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers`; `Sending "
        "process ... closing signal SIGHUP` (both ranks); the log ends there.",
    "deepspeed-espcn-config-from-4gpu-node":
        f"DeepSpeed launcher, 2 processes, --deepspeed with ds_config.json; {W}. Cause: the DeepSpeed config was "
        "written for a 4-GPU node (train_batch_size 64, micro batch 16, gradient accumulation 1) and launched with 2 "
        "processes. evidence: `in _configure_train_batch_size`; `AssertionError: Check batch related parameters. "
        "train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 16 * 1 * 2` "
        "(both ranks); `job exited with 1`.",
    "slurm-espcn-healthy":
        f"Slurm sbatch, 2 srun tasks, 8 epochs; {W}. No failure. evidence: `done: 8 epochs, 400 steps`; `srun exited "
        "with 0`; scontrol `PreemptTime=None`.",
    "slurm-espcn-sgd-linear-lr-scaling":
        f"Slurm sbatch, 2 srun tasks, --optim sgd --lr 0.2 --scale-lr --batch 32, 4 epochs; {W}. Cause: the linear "
        "lr scaling rule (lr x world x batch / 16) turns 0.2 into 0.8 for SGD with momentum 0.9; the loss blows up "
        "within the first steps and the model ends far below the bicubic baseline; the job itself exits 0 (no NaN "
        "check fires: the tanh layers keep the loss finite). evidence: `ESPCN x2: 26.8K parameters, optimizer sgd, lr "
        "0.8`; `epoch 1 step 5 l1 1.6311` -> `step 10 l1 6.1577` -> `step 15 l1 9.9034`; `eval epoch 4: PSNR 4.93 dB "
        "SSIM 0.0031 (bicubic 22.82 dB)`; `srun exited with 0`.",
    "slurm-espcn-time-limit":
        f"Slurm sbatch -t 1 (one-minute time limit), 2 srun tasks, 200 epochs requested; {W}. Cause: the job reached "
        "its Slurm time limit; Slurm cancelled the step and sent SIGTERM, the handler checkpointed and stopped. "
        "evidence: `*** STEP 3.0 ON vm CANCELLED AT ... DUE TO TIME LIMIT ***`; `*** JOB 3 ON vm CANCELLED AT ... DUE "
        "TO TIME LIMIT ***`; `received signal 15 (SIGTERM): will checkpoint and stop after this step`; `checkpoint "
        "epoch 13 step 617`; `stopped on signal at epoch 13 step 617`.",
}
