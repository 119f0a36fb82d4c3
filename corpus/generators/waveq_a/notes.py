"""What each committed wave Q (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("ddpm.py (a small DDPM on synthetic 2-D point clouds: MLP epsilon predictor with sinusoidal timestep embedding, "
     "linear/cosine beta schedule T=200, EMA weights, 200-step ancestral sampling at eval with each rank sampling a "
     "slice all-gathered to rank 0 and scored by RBF MMD / nearest-neighbour distance against a reference set; rank-0 "
     "checkpoints with retention; gloo on CPU)")

NOTES = {
    "torchrun-ddpm-norm-cache-retry-healthy":
        f"healthy despite alarming lines: torchrun --nproc-per-node 2 --max-restarts 1 of {W} with --norm-cache, "
        "600 steps: rank 0 builds a 15 MB normalisation cache while rank 1 polls for the file and loads it as soon as "
        "it appears, so its first torch.load hits the half-written zip; the loader retries and succeeds, training "
        "and evaluation are normal. evidence: '[rank1] WARNING: data/norm-cache.pt not readable yet (attempt 1/40): "
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory ...; "
        "retrying in 0.25 s', then '[rank1] normalisation: mean [...]', loss 1.02 -> ~0.27, 'eval @ 600: 2000 "
        "samples, MMD(rbf 0.5) 0.011...', 'done: 600 steps', 'job exited with 0'.",
    "torchrun-ddpm-cosine-t0-snr-weighting":
        f"torchrun --nproc-per-node 2 of {W} with --schedule cosine --cosine-include-t0 --loss-weight snr "
        "--weight-after 300: the cosine alpha_bar is indexed from t=0, where f(0)/f(0) = 1, so beta[0] = 0, "
        "alpha_bar[0] = 1 and SNR(0) = alpha_bar/(1-alpha_bar) = inf; sampling already divides 0 by 0 at t=0 (NaN "
        "samples at the step-200 eval) and once SNR weighting switches on at step 301 any batch that draws t=0 has an "
        "infinite loss; the trainer's finiteness check raises on rank 1 and rank 0 then sees the peer close. evidence: "
        "'cosine schedule, T=200: beta[0]=0.000e+00 ... alpha_bar[0]=1.000000 ... snr[0]=inf', 'eval @ 200: 2000 "
        "samples, MMD(rbf 0.5) nan, mean NN dist nan, sample mean [nan, nan]', '[rank1] step 301: non-finite loss "
        "inf (t range 0..199, max weight inf)', 'FloatingPointError: Loss is inf at step 301 on rank 1'; rank 0's "
        "'Connection closed by peer' and torchrun's SIGTERM to rank 0 are consequences.",
    "torchrun-ddpm-two-nodes-launch-time-rdzv-id":
        f"two-node torchrun (c10d rendezvous backend at 127.0.0.1:29514, --nnodes 2 --nproc-per-node 1, "
        "join_timeout 60 s) of {W}; each node runs the launch wrapper itself, which derives --rdzv-id from the launch "
        "time, and the nodes started 4 s apart, so they joined two different rendezvous (ddpm2d-...-131231 and "
        "ddpm2d-...-131235) on the same store and each waited for a second node that never came; node 0 (the store "
        "host) timed out and exited, and node 1 then lost the store. one file per node. evidence: node0 'torchrun "
        "--nnodes 2 rendezvous id ddpm2d-20261128-131231', node1 '... rendezvous id ddpm2d-20261128-131235', node0 "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError' about 65 s later; node1's 'Failed to recv, "
        "got 0 bytes ... Did the remote server shutdown or crash?' and 'RendezvousConnectionError' are the consequence "
        "of node 0 leaving.",
    "mpirun-ddpm-healthy":
        f"healthy: Open MPI mpirun -np 3 of {W} (ranks from OMPI_COMM_WORLD_*, env:// rendezvous at 127.0.0.1:29520), "
        "600 steps, evals at 200/400/600 with 2001 samples (667 per rank), checkpoints with retention. evidence: "
        "loss falling, 'eval @ 600: 2001 samples, MMD(rbf 0.5) ...', 'saved ckpt/ddpm-000600.pt, removed "
        "ddpm-000200.pt', 'done: 600 steps', 'job exited with 0'.",
    "mpirun-ddpm-shard-from-3d-export":
        f"mpirun -np 3 of {W} where data shard 2 came from the 3-D (x, y, z) export instead of the 2-D one: rank 2's "
        "batches have 3 coordinates + 64 timestep features = 67 inputs against the model's 66, and its first forward "
        "raises; ranks 0 and 1 then see the peer close and mpirun aborts the job. evidence: '[rank2] shard-02.npy: "
        "60000 points, dim 3' (the others 'dim 2'), '[rank2]: RuntimeError: mat1 and mat2 shapes cannot be "
        "multiplied (256x67 and 66x256)' in EpsMLP.forward (ddpm.py line 172, self.inp), ranks 0/1 'Connection "
        "closed by peer', mpirun 'The first process to do so was: Process name: [[...,1],2] Exit code: 1'.",
    "mpirun-ddpm-exact-mmd-full-reference-cgroup":
        f"mpirun -np 2 of {W} with --mmd-full inside a 3 GB cgroup-v1 memory limit: at the step-200 eval each rank "
        "computes an exact MMD against the full 20000-point reference set, whose reference-reference kernel term is a "
        "20000 x 20000 float32 distance matrix plus its squared and exp copies (about 1.6 GB each, per rank); the "
        "kernel OOM killer SIGKILLs a rank with no Python traceback. evidence: '[rankN] exact MMD on this rank: 1000 "
        "samples against the full reference set (20000 points)' as the last lines, 'mpirun noticed that process rank 1 "
        "with PID 0 on node vm exited on signal 9 (Killed).', 'job exited with 137'.",
    "mpirun-ddpm-epochs-over-uneven-shards":
        f"mpirun -np 3 of {W} with --epochs 1 over uneven shards (60000 / 33000 / 48000 points) and a 20 s "
        "process-group timeout: each rank computes its own step count from its own shard (234 / 128 / 187 steps), so "
        "rank 1 leaves the loop after 128 steps and waits in the final dist.barrier() while ranks 0 and 2 wait in DDP's "
        "gradient all-reduce of step 129; the gloo recv times out after 20 s. evidence: '[rank1] 1 epochs over 33000 "
        "local points at batch 256: 128 steps' vs '[rank0] ... 60000 ... 234 steps' and '[rank2] ... 48000 ... 187 "
        "steps', '[rank1]: RuntimeError: [.../unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to "
        "complete' (in dist.barrier) and the same on rank 2 (in loss.backward), rank 0 'Connection closed by peer', "
        "mpirun 'Process name: [[...,1],1] Exit code: 1'.",
    "slurm-ddpm-healthy":
        f"healthy: sbatch --wait of ddpm.sbatch (2 tasks, partition batch, srun --kill-on-bad-exit=1) running {W}, "
        "600 steps; the job's slurm-<id>.out. evidence: the sbatch header line '... 2 task(s), master vm:29580', loss "
        "falling, 'eval @ 600: 2000 samples, MMD(rbf 0.5) 0.01112', 'saved ckpt/ddpm-000600.pt, removed "
        "ddpm-000200.pt', 'done: 600 steps', 'srun exited with 0'.",
    "slurm-ddpm-sample-trajectory-dumps-scratch":
        f"sbatch --wait ddpm.sbatch (2 tasks) of {W} with --eval-every 50 --dump-samples scratch/samples on a 20 MB "
        "scratch filesystem (tmpfs): rank 0 writes every eval's samples together with a T-times repeated trajectory "
        "array (about 3 MB per dump, never pruned), and the 7th dump (step 350) fills the volume; np.savez raises, rank 0 exits "
        "and srun --kill-on-bad-exit cancels rank 1. evidence: 'dumped samples + trajectory to scratch/samples/"
        "samples-000300.npz' lines every 50 steps, then after 'eval @ 350' '[rank0]: OSError: [Errno 28] No space "
        "left on device' (np.savez in evaluate), 'srun: error: vm: task 0: Exited with exit code 1', "
        "'*** STEP 2.0 ON vm CANCELLED ...' and rank 1's 'Connection closed by peer' are consequences.",
    "slurm-ddpm-preview-fifo-no-viewer":
        f"sbatch --wait ddpm.sbatch (2 tasks) of {W} with --preview-fifo /tmp/waveq-a-preview.fifo: at the first eval rank "
        "0 opens the named pipe of a live sample viewer for writing, and with no viewer running open() blocks forever; "
        "rank 1 finished its slice and waits in the all_gather (default 30 min process-group timeout), so nothing is "
        "printed for about 70 s until the job is cancelled from outside (scancel). evidence: '[rank0] streaming "
        "samples to preview viewer via /tmp/waveq-a-preview.fifo' as rank 0's last line, after both ranks' 'eval @ "
        "200: sampling 1000 points ...' and no 'eval @ 200: 2000 samples' result; then 'slurmstepd-vm: error: *** "
        "STEP 3.0 ON vm CANCELLED AT ...' / '*** JOB 3 ON vm CANCELLED ...' (a plain cancel, no TIME LIMIT or "
        "PREEMPTION), 'srun: error: vm: tasks 0-1: Terminated'.",
    "deepspeed-ddpm-healthy-ds-config":
        f"healthy: the DeepSpeed launcher (deepspeed --num_gpus 2, CPU accelerator, gloo) of {W} with a ds_config "
        "(train_batch_size 512 = 256 x 1 x 2, ZeRO stage 0, gradient clipping 1.0), 600 steps. evidence: DeepSpeed's "
        "'Setting accelerator to CPU' and 'Unable to find hostfile' warnings are normal on a CPU box, 'deepspeed "
        "config {\"train_batch_size\": 512, ...}', loss falling, 'eval @ 600: 2000 samples, MMD(rbf 0.5) 0.01112', "
        "'done: 600 steps', 'Process N exits successfully.' for both ranks, 'job exited with 0'.",
    "deepspeed-ddpm-config-from-3-gpu-box":
        f"deepspeed --num_gpus 2 of {W} with a ds_config written for a 3-process machine (train_batch_size 768, "
        "micro batch 256, gradient accumulation 1): at deepspeed.initialize DeepSpeed's batch check fails on both "
        "ranks and the launcher kills the job. evidence: 'deepspeed config {\"train_batch_size\": 768, "
        "\"train_micro_batch_size_per_gpu\": 256, \"gradient_accumulation_steps\": 1, ...}', 'AssertionError: Check "
        "batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * "
        "world_size 768 != 256 * 1 * 2', launcher 'exits with return code = 1'.",
    "deepspeed-ddpm-memmap-refreshed-in-place":
        f"deepspeed --num_gpus 2 of {W} with --memmap (training points read through np.memmap of data/points.f32, "
        "PYTHONFAULTHANDLER=1 in the job's environment): at step 300 the nightly data export rewrites points.f32 in "
        "place (open 'wb' truncates it, then streams the new points), and the next batch read touches mapped pages "
        "beyond the file's new end; both ranks die of SIGBUS in native code. evidence: '[rankN] memory-mapped "
        "data/points.f32: 240000 points, rows ...', healthy steps to 'step 300/1500', then 'Fatal Python error: Bus "
        "error' with 'File \".../numpy/_core/memmap.py\", line 360 in __getitem__' and 'File \".../ddpm.py\", line "
        "281 in <module>' (the batch gather from the memmap), launcher 'exits with return code = -7', 'job exited "
        "with 249'.",
    "deepspeed-ddpm-node-drain-sigterm":
        f"deepspeed --num_gpus 2 of {W} with --ckpt-on-sigterm, 3000 steps planned: at step 400 the node was drained "
        "and the job's whole process group got SIGTERM from outside (the node agent stopping the job); both ranks "
        "log the signal at the same moment, rank 0 saves a checkpoint at step 402 and the ranks exit, the DeepSpeed "
        "launcher's handler kills its subprocesses; there is no error before the signal. evidence: healthy steps to "
        "'step 400/3000', then '[rank0] received signal SIGTERM: will checkpoint after this step and exit' and the "
        "same on rank 1, '[launch.py:253:sigkill_handler] Killing subprocess N', 'saved ckpt/ddpm-000402.pt', "
        "'exiting at step 402/3000 after SIGTERM'.",
    "accelerate-ddpm-preview-port-is-main-port":
        f"accelerate launch --multi_gpu --num_processes 2 --main_process_port 29540 of {W} with --preview-port 29540 "
        "(a live sample-preview HTTP server on rank 0, its port copied from the launch config): the launcher's agent "
        "already listens on 29540 for the c10d store, so rank 0's http.server cannot bind before training starts; "
        "torchrun's agent then stops rank 1. evidence: 'OSError: [Errno 98] Address already in use' from "
        "ThreadingHTTPServer(('0.0.0.0', args.preview_port), Preview) (ddpm.py line 79, socketserver server_bind), "
        "'Root Cause (first observed failure): rank 0 ... exitcode 1'; rank 1's SIGTERM is the launcher's clean-up.",
    "accelerate-ddpm-odd-eval-sample-count":
        f"accelerate launch --num_processes 2 of {W} with --eval-samples 2001: the per-rank sample counts are 1001 and "
        "1000, and dist.all_gather of the sampled points (each rank passing its own tensor size) exchanges buffers of "
        "different sizes; gloo's size check aborts the receiving process (SIGABRT) at the first eval. evidence: "
        "'[rank0] eval @ 200: sampling 1001 points' vs '[rank1] eval @ 200: sampling 1000 points', 'terminate called "
        "after throwing an instance of 'gloo::EnforceNotMet' ... op.preamble.length <= op.nbytes. 4004 vs 4000. "
        "Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?', "
        "'exitcode : -6 ... (SIGABRT)' for local_rank 1.",
}
