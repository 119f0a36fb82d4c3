"""What each committed wave U (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("w2v.py (skip-gram word2vec with negative sampling: input/output embedding tables, dim 64, ~0.29M parameters, on "
     "a synthetic 12-topic corpus of 1600 documents; rank 0 builds the vocabulary and writes the token ids that every "
     "rank memory-maps; unigram^0.75 negative table, frequent-word subsampling, Adam; per-epoch word-similarity "
     "Spearman and nearest-neighbour topic purity, all-reduced; rank-0 checkpoints keeping the last two; gloo on CPU)")

NOTES = {
    "torchrun-w2v-healthy-restart-after-corpus-sync":
        f"torchrun --nproc-per-node 2 --max-restarts 1 of {W}, 6 epochs, started while the corpus sync had not yet "
        "renamed data/corpus.txt.partial to data/corpus.txt: the first attempt fails on both ranks with "
        "FileNotFoundError, the sync finishes, torchrun's one allowed restart starts the workers again and the run "
        "trains, evaluates and checkpoints to the end and exits 0. Healthy (a recovered restart; the tracebacks are "
        "alarming but harmless). evidence: \"[rank0]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'data/corpus.txt'\", 'failed (exitcode: 1) local_rank: 0', then a second set of '[rank0] host vm pid ...' "
        "start lines, 'eval epoch 6: word-sim spearman 0.7336', 'done: 6 epochs, 738 steps', 'job exited with 0'.",
    "torchrun-w2v-uneven-shard-files":
        f"torchrun --nproc-per-node 2 of {W} with --shard-files 3: the token ids are read as 3 shard files assigned "
        "round-robin, so rank 0 gets shards 0 and 2 (41989 tokens, 164 steps per epoch) and rank 1 only shard 1 "
        "(20995 tokens, 82 steps). Rank 1 finishes its epoch and enters the evaluation all-reduce (8 bytes) while rank "
        "0 is still in DDP's gradient all-reduce (294400 elements): gloo's size check aborts rank 1 (SIGABRT) and rank "
        "0 then sees the connection reset. Cause: ranks desynchronised by uneven shards issue different collectives. "
        "evidence: '[rank1] shards [1] of 3: 20995 tokens', '[rank0] shards [0, 2] of 3: 41989 tokens', "
        "'training: 6 epochs x 82 steps' vs 'x 164 steps', \"op.preamble.length <= op.nbytes. 294400 vs 8. Received "
        "data size doesn't match expected size. Is there a distributed collective mismatch in your code?\", "
        "'exitcode  : -6 (pid: ...)  (SIGABRT)'.",
    "torchrun-w2v-unigram-table-1e8-cgroup":
        f"torchrun --nproc-per-node 2 of {W} with --table-size 1e8 (word2vec.c's negative-sampling table size) inside a "
        "1.2 GB cgroup-v1 memory limit: each rank builds a 100M-entry int64 table (~800 MB, plus temporaries) and the "
        "kernel OOM killer SIGKILLs rank 1 while the tables are being built; torchrun stops rank 0. Cause: host memory "
        "exhausted by the per-rank negative table. evidence: 'building unigram^0.75 table (100000000 entries)' on "
        "both ranks with no 'unigram table ready' after it, 'failed (exitcode: -9) local_rank: 1', "
        "'exitcode  : -9 (pid: ...)  (SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID'.",
    "torchrun-w2v-stale-vocab-lock":
        f"torchrun --nproc-per-node 2 of {W} with --vocab-lock: data/vocab.json.lock was left behind by an earlier run "
        "that was killed, so rank 0 polls forever for the lock (no timeout, no message) while rank 1 waits in the "
        "barrier after the vocabulary (30 min process-group timeout); nothing is printed for 75 s until the user's "
        "Ctrl-C (SIGINT). Cause: rank 0 blocked on a stale lock file, no error or watchdog (silent hang). evidence: "
        "'[rank0] building vocabulary under lock data/vocab.json.lock' as the last line for 75 s (no 'lock acquired'), "
        "'Received 2 death signal, shutting down workers', rank 0's traceback in acquire() at 'time.sleep(0.5)' after "
        "\"FileExistsError: [Errno 17] File exists: 'data/vocab.json.lock'\", 'KeyboardInterrupt', rank 1 in "
        "'dist.barrier()'.",
    "torchrun-w2v-subsample-zero":
        f"torchrun --nproc-per-node 2 of {W} with --subsample 0 (the user's old gensim config, where sample=0 means "
        "'no subsampling'): this trainer's Mikolov keep-probability divides by subsample x total, so every keep "
        "probability is nan, no token survives subsampling, every batch is empty and the mean loss is nan at the "
        "first step; the finite-loss check stops both ranks. Cause: non-finite loss from the subsampling setting. "
        "evidence: 'RuntimeWarning: divide by zero encountered in divide' and 'invalid value encountered in "
        "multiply' at 'keep_p = np.minimum(1.0, (np.sqrt(freqs / (a.subsample * total)) + 1) ...', '[rank0] loss is "
        "nan at epoch 1 step 1 (global step 1)', 'rank 0: non-finite loss nan, stopping', 'job exited with 1'.",
    "mpirun-w2v-healthy-3-ranks":
        f"mpirun -np 3 (Open MPI, env:// rendezvous from MASTER_ADDR/MASTER_PORT) of {W}, 6 epochs: three ranks train "
        "164 steps per epoch, evaluation and checkpoints every epoch, and the job exits 0. Healthy. evidence: "
        "'rank 2/3', 'eval epoch 6: word-sim spearman 0.7404 (400 pairs), nn@10 topic purity 1.0000', "
        "'done: 6 epochs, 492 steps', 'job exited with 0'.",
    "mpirun-w2v-per-rank-vocab":
        f"mpirun -np 2 of {W} with --per-rank-vocab: each rank counts only its own documents, so rank 0 keeps 1502 "
        "words and rank 1 1478, and the embedding tables differ in shape; DDP's constructor check fails on rank 1 and "
        "rank 0 sees the connection closed in the parameter broadcast. Cause: ranks built different models (parameter "
        "shapes differ across ranks). evidence: '[rank0] counted 32000 tokens ...: 1502 words', '[rank1] counted "
        "32000 tokens ...: 1478 words', '[rank1]: RuntimeError: [1]: params[0] in this process with sizes [1478, 64] "
        "appears not to match sizes of the same param in process 0.', rank 0 'Connection closed by peer'.",
    "mpirun-w2v-config-world-size-3":
        f"mpirun -np 2 of {W} with --world-size 3 from the run config (written for a 3-process run) overriding the "
        "launcher's world size: rank 0's TCPStore waits for 3 clients, only 2 processes exist, and after the 30 s "
        "timeout both ranks fail in init_process_group. Cause: rendezvous never completes (world size larger than "
        "the processes launched). evidence: 'rank 0/3 master 127.0.0.1:29534' with 'mpirun -np 2', "
        "'torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 2/3 clients joined.', "
        "'DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/0', 'job exited with 1'.",
    "mpirun-w2v-corpus-ids-rewritten-during-training":
        f"mpirun -np 2 of {W}, 8 epochs: in epoch 2 a re-run of the preprocessing step reopened data/corpus.ids for "
        "writing (truncating it) while both ranks had it memory-mapped; the next read of the mapping touches pages "
        "beyond the new end of file and the rank dies of SIGBUS with no Python traceback. Cause: a process killed by "
        "a signal in native code (bus error on a truncated memory-mapped file). evidence: 'memory-mapped "
        "data/corpus.ids (62984 tokens, 251936 bytes)', the last step line 'epoch 2 step 40/123', 'mpirun noticed "
        "that process rank 1 with PID 0 on node vm exited on signal 7 (Bus error).', 'job exited with 135'.",
    "slurm-w2v-healthy":
        f"sbatch --wait of a 2-task batch script (srun --kill-on-bad-exit=1, ranks from SLURM_PROCID) running {W}, "
        "6 epochs, writing the vectors in word2vec text format at the end: the job's slurm-<id>.out shows training, "
        "evaluation, checkpoints and 'srun exited with 0'. Healthy. evidence: 'job 1 (w2v-sgns) partition batch on "
        "vm: 2 task(s)', 'wrote 2300 vectors to vectors/vectors.txt (1413239 bytes)', 'done: 6 epochs, 738 steps', "
        "'srun exited with 0'.",
    "slurm-w2v-vectors-to-small-scratch":
        f"sbatch --wait (2 tasks) of {W} with --save-vec scratch: scratch/ is a 2 MB node-local tmpfs already holding "
        "1.5 MB from earlier runs, and the ~1.4 MB word2vec text file does not fit: rank 0's write fails after the "
        "sixth epoch, rank 1 sees the connection closed in the final barrier, srun kills the step. Cause: the output "
        "filesystem is full. evidence: 'saved checkpoint ckpt/w2v-epoch006.pt', '[rank0]: OSError: [Errno 28] No "
        "space left on device', 'srun: error: vm: task 0: Exited with exit code 1', 'srun exited with 143'.",
    "slurm-w2v-preempted-by-urgent-job":
        f"sbatch --wait (2 tasks, partition batch) of {W}, 40 epochs; in epoch 2 a 4-task job is submitted to the "
        "higher-priority 'urgent' partition of the same node (PreemptType=preempt/partition_prio, PreemptMode=CANCEL) "
        "and Slurm preempts the training job: the step is cancelled, and the batch script's post-mortem 'scontrol "
        "show job' shows the preemption time equal to the cancellation. Cause: the job was preempted by the "
        "scheduler. evidence: '*** STEP 5.0 ON vm CANCELLED AT 2026-11-28T18:08:25 ***', 'srun: error: vm: tasks "
        "0-1: Terminated', 'srun exited with 143', 'PreemptEligibleTime=2026-11-28T18:08:07 "
        "PreemptTime=2026-11-28T18:08:25', 'Partition=batch'.",
    "deepspeed-w2v-healthy":
        f"DeepSpeed launcher (deepspeed --num_gpus 2) of {W} through deepspeed.initialize (ZeRO stage 0, CPU "
        "accelerator), 6 epochs: the launcher warns that it fell back to the CPU accelerator and found no hostfile, "
        "builds its shm comm op, and the run trains to the end. Healthy. evidence: '[WARNING] ... Setting "
        "accelerator to CPU', '[WARNING] ... Unable to find hostfile, will proceed with training with local "
        "resources only', 'done: 6 epochs, 738 steps', 'job exited with 0'.",
    "deepspeed-w2v-port-held-by-earlier-run":
        f"DeepSpeed launcher (deepspeed --num_gpus 2 --master_port 29544) of {W} while an earlier experiment, started "
        "by the same user with torchrun --master-port 29544 and still training in the background, holds that port "
        "for its rendezvous store: rank 0 cannot listen on the master port and the launcher kills both ranks. Cause: "
        "the master port is already in use. evidence: '--master_port=29544', 'torch.distributed.DistNetworkError: "
        "The server socket has failed to listen on any local network address. port: 29544, useIpv6: false, code: "
        "-98, name: EADDRINUSE, message: address already in use', 'exits with return code = 1'.",
    "deepspeed-w2v-stale-vocab-lock-timeout":
        f"DeepSpeed launcher (deepspeed --num_gpus 2) of {W} with --vocab-lock and a 60 s process-group timeout: a "
        "lock file left by an earlier killed run keeps rank 0 polling for data/vocab.json.lock, and rank 1's barrier "
        "after the vocabulary step times out after 60 s; the launcher kills both ranks. Cause: a collective (the "
        "barrier) never completed because rank 0 never reached it. evidence: '[rank0] building vocabulary under lock "
        "data/vocab.json.lock' (no 'lock acquired' after it), rank 1 in 'dist.barrier()': 'RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 60000ms for recv operation to complete', "
        "'Killing subprocess'.",
    "accelerate-w2v-eval-pairs-title-case":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W} with eval pairs exported in Title case by the "
        "annotation tool while the vocabulary is lower case: the first evaluation looks 'Katone' up in the word index "
        "and raises KeyError on both ranks after epoch 1. Cause: the evaluation code raised on a bad eval file (user "
        "code / data). evidence: 'epoch 1 done in', '[rank0]:   File \".../w2v.py\", line 233, in evaluate', "
        "'i1 = [w2i[p[0]] for p in mine]', \"[rank0]: KeyError: 'Katone'\", 'job exited with 1'.",
    "accelerate-w2v-ssh-session-closed":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W}, 8 epochs, started from an SSH terminal "
        "without tmux/nohup; in epoch 2 the session closed and the whole foreground process group got SIGHUP: "
        "accelerate's torchrun agent reports the death signal and forwards SIGHUP to both ranks, and the shell that "
        "launched it is gone too (no 'job exited' line). Cause: terminal hangup. evidence: the last step line "
        "'epoch 2 step 60/123', 'torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, "
        "shutting down workers', 'Sending process ... closing signal SIGHUP' for both ranks.",
}
