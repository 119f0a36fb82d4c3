"""What each committed wave X (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("forecast.py (a PatchTST-style multi-sensor forecasting transformer: patches of 8 readings x 8 sensors, 2-layer "
     "encoder d=64, head predicting the next 24 readings, 219.5K parameters, AdamW, masked MSE; each rank reads its "
     "plant sites' CSV exports (sites rank::world), z-scores them and cuts sliding windows (lookback 96, horizon 24, "
     "stride 2); validation MSE/MAE all-reduced each epoch, rank-0 checkpoints; gloo on CPU)")

NOTES = {
    "torchrun-forecast-site-export-extra-column":
        f"torchrun --nproc-per-node 2 of {W}; site-01's export came from a newer data pipeline after a ninth sensor was "
        "installed, so rank 1 (sites 01 and 03) concatenates a 9-column and an 8-column table while computing the "
        "normalisation statistics and raises ValueError; torchrun stops rank 0. Cause: the training code/data raised "
        "on one rank. evidence: '[rank1] loaded site-01.csv: 2400 readings x 9 sensors (s0,...,s8)', '[rank1]:     "
        "allt = np.concatenate(train_parts)', '[rank1]: ValueError: all the input array dimensions except for the "
        "concatenation axis must match exactly, but along dimension 1, the array at index 0 has size 9 and the array at "
        "index 1 has size 8', 'Root Cause (first observed failure): ... rank : 1 (local_rank: 1) exitcode : 1'.",
    "torchrun-forecast-regime-segmentation-memoised":
        f"torchrun --nproc-per-node 2 of {W} with --regimes: before training each rank runs an optimal segmentation of "
        "each site's mean reading upsampled to 5 s (144000 points), written as a recursive cost function memoised with "
        "functools.lru_cache and sys.setrecursionlimit(1_000_000); every recursion level goes through the C lru_cache "
        "wrapper, so the C stack overflows and both ranks die with SIGSEGV (faulthandler prints the 'best' frames). "
        "Cause: a process died in native code (C stack overflow). evidence: '[rank0] segmenting site-00.csv (144000 "
        "points at 5 s)', 'Fatal Python error: Segmentation fault', 'File \"/tmp/wavex-a-job/run/forecast.py\", line "
        "133 in best' (repeated), 'exitcode : -11 (pid: ...) (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID'.",
    "mpirun-forecast-healthy-3-ranks":
        f"mpirun -np 3 of {W} over 6 sites (2 per rank): 8 epochs of 56 steps, validation MSE falls from ~0.06 to "
        "0.0397, rank 0 checkpoints each epoch; exit 0. Healthy. evidence: 'world 3, backend gloo', 'eval epoch 8: val "
        "MSE 0.0397 MAE 0.1570', 'done: 8 epochs, 448 steps', 'job exited with 0'.",
    "mpirun-forecast-materialized-windows-cgroup":
        f"mpirun -np 2 of {W} with --windows materialize --lookback 480 on 16000-reading exports (55 days per site), in a "
        "1.4 GB memory cgroup: instead of unfold views, every stride-1 window is copied out as a contiguous float64 "
        "array (~0.5 GB per site, two sites per rank, then concatenated), and the kernel OOM killer SIGKILLs rank 0 "
        "right after the sites are loaded; mpirun aborts the job. Cause: host memory exhausted (kernel OOM kill). "
        "evidence: '[rank0] loaded site-02.csv: 16000 readings x 8 sensors', no window-count line follows, 'mpirun "
        "noticed that process rank 0 with PID 0 on node vm exited on signal 9 (Killed).', 'job exited with 137'.",
    "mpirun-forecast-per-user-port-formula":
        f"The team launcher launch.sh runs mpirun -np 2 of {W} with MASTER_PORT = 29700 + uid % 100, so every job of "
        "the same user on a host gets the same port; an earlier long run by the same user (started from the same "
        "script, not logged) still holds 29700. Rank 0's TCPStore server cannot bind (rank 1 connects to the old job's "
        "store), and mpirun aborts. Cause: rendezvous port already taken. evidence: 'mpirun -np 2 forecast.py ... "
        "(master 127.0.0.1:29700)', 'torch.distributed.DistNetworkError: The server socket has failed to listen on any "
        "local network address. port: 29700, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in "
        "use', 'job exited with 1'.",
    "slurm-forecast-healthy":
        f"sbatch --wait of forecast.sbatch (2 tasks, srun --kill-on-bad-exit=1) running {W}: 8 epochs, val MSE down to "
        "~0.04, exit 0. Healthy. evidence: 'job 1 (forecast) partition batch on vm: 2 task(s), master vm:29790', "
        "'done: 8 epochs, 448 steps', 'srun exited with 0'.",
    "slurm-srun-forecast-interactive-time-limit":
        f"srun -n 2 -t 1 straight from the console (an interactive allocation with the one-minute time limit of a quick "
        f"test) of {W} asked for 500 epochs; Slurm cancels the step when the time limit is reached in epoch 17. Cause: "
        "the scheduler's time limit ended the job. evidence: 'eval epoch 17: val MSE 0.0350', 'srun: Job step aborted: "
        "Waiting up to 12 seconds for job step to finish.', 'slurmstepd-vm: error: *** STEP 3.0 ON vm CANCELLED AT "
        "... DUE TO TIME LIMIT ***', 'srun: error: vm: tasks 0-1: Terminated', 'job exited with 143'.",
    "deepspeed-forecast-healthy":
        f"The DeepSpeed launcher (--num_gpus 2, CPU accelerator) of {W} with deepspeed.initialize (train_batch_size 64 = "
        "32 x 1 x 2, ZeRO stage 0, DeepSpeed's AdamW): 8 epochs, val MSE 0.0395; exit 0. Healthy, with alarming-looking "
        "but harmless lines (no GPU found, no hostfile, CUDA_VISIBLE_DEVICES set on a CPU box). evidence: "
        "'[WARNING] ... Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to detect it.', "
        "'[WARNING] [runner.py:214:fetch_hostfile] Unable to find hostfile, will proceed with training with local "
        "resources only.', 'done: 8 epochs, 448 steps', 'Process ... exits successfully.', 'job exited with 0'.",
    "torchrun-forecast-two-node-command-on-one-node":
        f"torchrun of {W} started on one host with the command line of the two-node setup (--nnodes 2 --nproc-per-node 2 "
        "--rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29526, join_timeout=45): the second node never joins, so the "
        "agent's rendezvous times out before any worker starts. Cause: not every node reached the rendezvous. evidence: "
        "'self._op_executor.run(join_op, deadline, self._get_deadline)', 'raise RendezvousTimeoutError', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', no '[rank0]' line at all, 'job exited with 1'.",
    "mpirun-forecast-per-sensor-mae-dead-sensor":
        f"mpirun -np 2 of {W} with --per-sensor-metrics: sensor s5 never reported at sites 01 and 03 (both on rank 1, "
        "empty cells in the exports), so rank 1 keeps 7 sensors with data and rank 0 8; the per-sensor MAE vectors are "
        "all-reduced with different lengths (7 vs 8 floats) and gloo aborts rank 1 on the size mismatch; rank 0 sees "
        "the connection reset. Cause: ranks issued a collective with different shapes. evidence: 'forecast.py:148: "
        "RuntimeWarning: Mean of empty slice', \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", "
        "'[enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 8 vs 4. Received data size "
        "doesn't match expected size. Is there a distributed collective mismatch in your code?', 'File \"/tmp/wavex-a-"
        "job/run/forecast.py\", line 245 in evaluate', 'mpirun noticed that process rank 1 ... exited on signal 6 "
        "(Aborted).', 'job exited with 134'.",
    "slurm-forecast-log-target-shutdown-zeros":
        f"sbatch --wait of forecast.sbatch running {W} with --log-target (the model is trained on log readings); "
        "site-02's export contains a one-day maintenance shutdown where every reading is 0, so log gives -inf, the "
        "normalisation statistics of rank 0 (sites 00 and 02) become -inf/nan, every target is nan and the loss is nan at "
        "the first step; the finite-loss check raises on rank 0 and srun kills the step. Cause: non-finite loss (NaN) "
        "from the data transform. evidence: 'forecast.py:145: RuntimeWarning: divide by zero encountered in log', "
        "'RuntimeWarning: invalid value encountered in subtract', '[rank0]: FloatingPointError: non-finite loss nan at "
        "epoch 1 step 1', 'srun: error: vm: task 0: Exited with exit code 1', 'srun exited with 143'.",
    "deepspeed-forecast-plateau-scheduler-verbose":
        f"The DeepSpeed launcher of {W} with --plateau: the script, written for torch 1.x/2.0, builds "
        "ReduceLROnPlateau(..., verbose=True); the verbose argument was deprecated in torch 2.2 and is gone in the "
        "installed torch 2.13, so both ranks raise TypeError right after deepspeed.initialize. Cause: code written for an "
        "older library version. evidence: '[rank0] torch 2.13.0+cpu', 'sched = (torch.optim.lr_scheduler."
        "ReduceLROnPlateau(opt, factor=0.5, patience=1, verbose=True)', \"TypeError: ReduceLROnPlateau.__init__() got an "
        "unexpected keyword argument 'verbose'\", 'job exited with 1'.",
    "deepspeed-forecast-loader-workers-container-shm":
        f"The DeepSpeed launcher of {W} (lookback 480, batch 256 per rank, 2 DataLoader workers, file_system sharing) "
        "in a container-sized 16 MB /dev/shm: DeepSpeed's CPU shared-memory all-reduce buffers "
        "(deepspeed_allreduce_buffer_* in /dev/shm, from deepspeed_shm_comm_op) take the whole 16 MB, so when the "
        "DataLoader starts its workers the multiprocessing queue's semaphore cannot be created in /dev/shm and both ranks "
        "fail with ENOSPC. (Checked afterwards: /dev/shm 100% used by the two buffers.) Cause: shared memory too small. "
        "evidence: 'DeepSpeed deepspeed.ops.comm.deepspeed_shm_comm_op built successfully', 'self._worker_result_queue "
        "= multiprocessing_context.Queue()', 'sl = self._semlock = _multiprocessing.SemLock(', '[rank0]: OSError: "
        "[Errno 28] No space left on device', 'launch.py:253:sigkill_handler] Killing subprocess', 'job exited with 1'.",
    "accelerate-forecast-rank0-bootstrap-baseline":
        f"accelerate launch (2 processes) of {W} with --baseline-report and a 10 s process-group timeout "
        "(InitProcessGroupKwargs): after each epoch rank 0 alone computes a seasonal-naive baseline with a 300-resample "
        "bootstrap interval in pure Python before the validation all-reduce; epoch 1's report takes 10.1 s and just "
        "passes, epoch 2's takes longer and rank 1's all_reduce times out waiting for rank 0. Cause: a collective never "
        "completed because one rank was busy elsewhere. evidence: '[rank0] computing seasonal-naive baseline for the "
        "epoch report', 'seasonal-naive val MSE 0.1025 (95% CI 0.1016-0.1035)', '[rank1]:     dist.all_reduce(stats)', "
        "'[rank1]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 10000ms for recv "
        "operation to complete', 'Root Cause (first observed failure): ... rank : 1'.",
    "accelerate-forecast-training-log-on-small-volume":
        f"accelerate launch (2 processes) of {W} with the training log file and checkpoints on a 4 MB volume already "
        "filled by earlier runs: rank 0's logging FileHandler fails on every record (logging prints '--- Logging error "
        "---' with ENOSPC and carries on), then the epoch-1 torch.save cannot write and rank 0 exits; accelerate's "
        "torchrun stops rank 1. Cause: the filesystem ran out of space. evidence: '--- Logging error ---', "
        "'self.stream.flush()', 'OSError: [Errno 28] No space left on device' (repeated), '[rank0]:     torch.save(...)', "
        "'RuntimeError: basic_ios::clear: iostream error', '[enforce fail at inline_container.cc:672] . unexpected pos 64 "
        "vs 0', 'job exited with 1'.",
    "accelerate-forecast-healthy":
        f"accelerate launch (2 processes, --multi_gpu on CPU) of {W}: 8 epochs, val MSE 0.0354, exit 0. Healthy. "
        "evidence: 'training 8 epochs x 56 steps/rank, batch 32/rank, global batch 64', 'eval epoch 8: val MSE 0.0354 "
        "MAE 0.1487', 'done: 8 epochs, 448 steps', 'job exited with 0'.",
}
