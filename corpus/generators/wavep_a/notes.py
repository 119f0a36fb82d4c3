"""What each committed wave P (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("retr.py (a DPR-style contrastive dual-encoder passage retriever: query and passage towers of token EmbeddingBag + "
     "MLP, L2-normalised; InfoNCE over the global batch with each rank's passage embeddings all-gathered through "
     "torch.distributed.nn.functional.all_gather, optional mined hard negatives; recall@k/MRR@10 eval over a corpus "
     "index each rank encodes a slice of; rank-0 checkpoints with retention; synthetic MS MARCO-like collection of "
     "20000 passages; gloo on CPU)")

NOTES = {
    "torchrun-dpr-healthy-masked-false-negatives":
        f"healthy despite alarming lines: torchrun --nproc-per-node 2 --max-restarts 1 of {W} with 4 mined hard "
        "negatives per query (refreshed every 200 steps) and --dedup-batch mask, 600 steps; many queries in a global "
        "batch share a positive passage or have it among the mined negatives, and the trainer masks those logits and "
        "warns every 20 steps. evidence: '[rankN] WARNING: masked N in-batch false negative(s) in the last 20 steps "
        "...' lines are handled; 'mined 4 hard negatives for 16000 queries (all) in 2.9 s', loss falling from 5.99 to "
        "1.10, 'eval step 600: ... recall@10 0.1000 ... MRR@10 0.0483', 'saved checkpoint ckpt/step-000600.pt', "
        "'done: 600 steps', 'job exited with 0'; the all_gather FutureWarning is noise.",
    "torchrun-dpr-rank0-mines-hard-negatives-for-all":
        f"torchrun --nproc-per-node 2 of {W} with --hard-negs 8 --mine-on rank0 --timeout-s 60: the hard-negative "
        "refresh at step 0 gathers every rank's queries and rank 0 alone scores and argsorts the corpus for all 32000 "
        "of them, one query at a time, while rank 1 waits in broadcast_object_list for the result; after the 60 s "
        "process-group timeout rank 1's gloo recv times out and torchrun tears down rank 0 (still mining). evidence: "
        "'[rank0] hard-negative refresh at step 0: rank 0 mines 8 per query for all 32000 training queries over 20000 "
        "passages', then no line from rank 0 for 60 s, '[rank1]: ... in mine ... broadcast_object_list ... "
        "RuntimeError: [...unbound_buffer.cc:78] Timed out waiting 60000ms for recv operation to complete', root "
        "cause rank 1 exitcode 1; rank 0's exitcode -15 (SIGTERM) is torchrun's clean-up.",
    "torchrun-dpr-dedup-corpus-sort-pipe-ctrl-c":
        f"torchrun --nproc-per-node 2 of {W} with --dedup-corpus: rank 0 pipes the 3 MB passage file through "
        "subprocess.Popen(['sort', '-u', ...], stdin=PIPE, stdout=PIPE), closes stdin and calls p.wait() before "
        "reading stdout; sort blocks writing its output into the full 64 KiB pipe and rank 0 blocks in wait() "
        "forever (a pipe deadlock), while rank 1 waits in dist.broadcast with the default 1800 s timeout; nothing "
        "is printed for 86 s until the user presses Ctrl-C (SIGINT to the process group). evidence: '[rank0] dedup: "
        "sort -u over 20000 passages' is the last line before 'Received 2 death signal, shutting down workers'; "
        "'[rank0]: ... line 162, in <module> p.wait() ... os.waitpid(self.pid, wait_flags) KeyboardInterrupt'; rank "
        "1 in 'dist.broadcast(keep, 0)'; the 'Connection closed by peer' and SignalException are the shutdown.",
    "mpirun-dpr-healthy":
        f"healthy: mpirun -np 3 (Open MPI, ranks from OMPI_COMM_WORLD_*) of {W}, 600 steps, eval and checkpoints "
        "every 200, global batch 384; nothing done to it. evidence: step lines with the loss falling, 'eval step 600: "
        "dev 1000 queries x 20000 passages: recall@1 0.0360 recall@10 0.1340 ... MRR@10 0.0621', 'removed old "
        "checkpoint ckpt/step-000200.pt', 'done: 600 steps', 'job exited with 0'.",
    "mpirun-dpr-train-qrels-newer-than-corpus":
        f"mpirun -np 3 of {W}; training shard train-02.tsv was exported after a corpus refresh, so about 1% of its "
        "positives are passage ids (>= 20000) the local passages.tsv lacks; rank 2 (which reads shard 2) indexes "
        "the passage list with one in its first batch and raises; ranks 0 and 1 then lose the connection in the "
        "all_gather. evidence: 'corpus: 20000 passages', '[rank2] train shards [2]: 8000 queries', '[rank2]: ... "
        "line 425 ... pb = bag([passages[p] for p in pids]) ... IndexError: list index out of range'; the ranks 0/1 "
        "'Connection closed by peer' errors are symptoms.",
    "mpirun-dpr-dedup-batch-drop-repeats":
        f"mpirun -np 3 of {W} with --dedup-batch drop: each rank drops repeated positives from its own batch, so "
        "the ranks hold different numbers of queries (rank 0 drops 1, rank 1 drops 3 at step 1) and the all_gather of passage embeddings (all_gather with "
        "empty_like(tensor) output buffers) receives differently sized tensors; gloo aborts the ranks. evidence: "
        "'[rank1] step 1: dropped 3 duplicate positive(s) from the batch', '[rank0] step 1: dropped 1 ...', "
        "'terminate called after throwing an instance of 'gloo::EnforceNotMet' ... op.preamble.length <= op.nbytes. "
        "16256 vs 16000. Received data size doesn't match expected size. Is there a distributed collective mismatch "
        "in your code?', 'Fatal Python error: Aborted' in all_gather from retr.py, 'mpirun noticed that process rank "
        "0 ... exited on signal 6 (Aborted)'.",
    "mpirun-dpr-hard-negative-cache-small-scratch":
        f"mpirun -np 3 of {W} with --hard-negs 16 --mine-every 100 --neg-cache scratch/negs, where scratch is a 40 MB "
        "volume (tmpfs); every refresh writes each rank's mined negatives (15.6 MiB for rank 0, 7.8 MiB for ranks 1 "
        "and 2) and none are removed, so the second refresh (step 100) fills it. evidence: 'hard-negative cache: "
        "wrote scratch/negs/negs-step000000-rank0.npy (15.6 MiB)' ... '...step000100-rank1.npy (7.8 MiB)', then "
        "'[rank2]: ... in mine ... np.save ... OSError: 1024000 requested and 120816 written' and '[rank0]: OSError: "
        "[Errno 28] No space left on device'; rank 1's 'Connection closed by peer' is a symptom.",
    "slurm-dpr-healthy":
        f"healthy: sbatch --wait retr.sbatch (2 tasks, srun --kill-on-bad-exit=1; job log slurm-<id>.out) of {W}, "
        "600 steps; nothing done to it. evidence: 'job 1 (dpr-retr) partition batch on vm: 2 task(s)', eval lines up "
        "to 'eval step 600: ... recall@10 0.1040 ...', 'done: 600 steps', 'srun exited with 0'.",
    "slurm-dpr-time-limit-after-usr1-checkpoint":
        f"sbatch --wait --time=1 --signal=USR1@30 retr.sbatch of {W} with --steps 1000000 (a run sized for days): "
        "Slurm sends SIGUSR1 ahead of the limit, the trainer writes a checkpoint and keeps going, then the job hits "
        "its 1-minute time limit and Slurm cancels it. evidence: 'time limit 1:00', '[rank0] caught SIGUSR1 (the "
        "scheduler's warning before the time limit): writing a checkpoint now', 'saved checkpoint "
        "ckpt/step-000132.pt', steps to 820/1000000, 'slurmstepd-vm: error: *** JOB 2 ON vm CANCELLED AT ... DUE TO "
        "TIME LIMIT ***', 'srun: error: vm: tasks 0-1: Terminated'.",
    "accelerate-dpr-healthy":
        f"healthy: accelerate launch --multi_gpu --num_processes 2 (CPU) of {W}, 600 steps; nothing done to it. "
        "evidence: 'eval step 600: dev 1000 queries x 20000 passages: recall@1 0.0290 recall@10 0.1040 ...', "
        "'saved checkpoint ckpt/step-000600.pt', 'done: 600 steps', 'job exited with 0'.",
    "torchrun-dpr-packed-windows-int16-strides":
        f"torchrun --nproc-per-node 2 of {W} with --chunk-passages 64 --token-dtype int16: the packed corpus token "
        "array was switched to int16 to save memory, but the window view is built with np.lib.stride_tricks.as_strided("
        "flat, shape=(n_win, 64), strides=(S * 8, 8)), byte strides hard-coded for int64, so the view reaches four "
        "times past the end of the 1.2 MB buffer and reading it faults in native code on rank 1 before training "
        "starts; torchrun then stops rank 0. evidence: config '\"chunk_passages\": 64, \"token_dtype\": \"int16\"', "
        "'Fatal Python error: Segmentation fault' with 'File \".../retr.py\", line 150 in <module>' (the windows "
        "line), 'failed (exitcode: -11) local_rank: 1', root cause 'exitcode  : -11 (pid: ...)  (SIGSEGV)'; rank 0's "
        "-15 (SIGTERM) is torchrun's clean-up.",
    "slurm-dpr-eval-step-beside-train-same-port":
        f"sbatch --wait retr_sweep.sbatch (4 tasks) of {W}: the batch script starts a training step (srun --exact -n "
        "2) and, 2 s later beside it in the same allocation, an evaluation step (srun --exact -n 2 retr.py --eval-only "
        "prev/step-000400.pt); both take MASTER_ADDR/MASTER_PORT (vm:29582) from the script, so the eval step's rank "
        "0 cannot bind the TCPStore port the training step's rank 0 already listens on; Slurm cancels the eval step "
        "(--kill-on-bad-exit) while training runs to the end. evidence: 'step 1: srun -n 2 --mem=3G python retr.py "
        "--eval-only ...', 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 29582, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'srun: error: vm: task 0: Exited with exit code 1', '*** STEP 5.1 ON vm CANCELLED AT ... ***', 'eval step "
        "exited with 143'; the training step's 'done: 600 steps' and 'train step exited with 0' show the other step "
        "was fine.",
    "deepspeed-dpr-healthy-ds-config":
        f"healthy: deepspeed --num_gpus 2 (DeepSpeed launcher, CPU accelerator, gloo) of {W} with --ds-config "
        "(train_batch_size 256 = 128 x 1 x 2, gradient clipping 1.0, ZeRO stage 0), 600 steps; nothing done to it. "
        "evidence: 'deepspeed config {\"train_batch_size\": 256, ...}', eval lines to 'eval step 600: ... recall@10 "
        "0.0950 ...', 'done: 600 steps', 'Process N exits successfully.' twice, 'job exited with 0'; the 'Setting "
        "accelerator to CPU' and 'Unable to find hostfile' warnings are noise.",
    "deepspeed-dpr-full-rank-metrics-cgroup":
        f"deepspeed --num_gpus 2 of {W} with --full-rank-metrics on a 20000-query dev set, in a 2.5 GB cgroup-v1 "
        "memory limit: at the step-200 evaluation each rank scores its 10000 dev queries against all 20000 passages "
        "and argsorts the whole score matrix (float32 scores + int64 order + a comparison matrix, over 2 GB per "
        "rank); the kernel OOM killer kills rank 1 and the launcher kills rank 0. evidence: config '\"full_rank_"
        "metrics\": true', 'step 200/600 ...' as the last training line with no 'eval step 200' after it, "
        "'[launch.py:253:sigkill_handler] Killing subprocess ...', '... exits with return code = -9', 'job exited "
        "with 247'.",
    "deepspeed-dpr-shared-index-container-shm":
        f"deepspeed --num_gpus 2 of {W} with --share-index (each rank shares its passage index and token matrix, "
        "about 13 MB, with a spawned mining-server process through torch.multiprocessing shared memory) in a "
        "container whose /dev/shm is an 8 MB tmpfs; share_memory_() cannot allocate the segment on either rank. "
        "evidence: '[rankN] sharing the passage index (20000 x 64 float32) and token matrix (20000 x 48 int64) with "
        "the mining server (torch.multiprocessing, file_descriptor sharing)', '[rank1]: RuntimeError: unable to "
        "allocate shared memory(shm) for file </torch_...>: No space left on device (28)' (and rank 0 likewise), "
        "the launcher's 'Killing subprocess' lines, 'job exited with 1'.",
    "accelerate-dpr-ssh-session-closed-mid-run":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W}, 1200 steps with hard-negative mining, started "
        "from an interactive shell without tmux/nohup; at step 300 the terminal goes away (SIGHUP to the foreground "
        "process group, as when an SSH session drops) and the elastic agent under accelerate shuts the workers "
        "down; the shell's own epilogue never runs. evidence: steps to 'step 300/1200 ...', then 'torch/"
        "distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers' and 'Sending "
        "process N closing signal SIGHUP' for both workers, and the log ends there (no 'job exited' line).",
}
