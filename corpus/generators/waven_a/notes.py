"""What each committed wave N (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("translate.py (a small nn.Transformer encoder-decoder translator, 2+2 layers, d_model 64, trained data-parallel "
     "on a synthetic parallel corpus with label-smoothed cross-entropy, Adam + Noam schedule and greedy-decoding dev "
     "BLEU; gloo on CPU)")

NOTES = {
    "torchrun-2node-translate-healthy":
        "healthy: two torchrun agents on this host as two nodes (--nnodes 2 --node-rank 0/1 --nproc-per-node 1, static "
        f"rendezvous on 127.0.0.1:29510; consoles node0.log and node1.log) of {W} for 300 steps, eval every 100, "
        "checkpoints at 150 and 300; nothing done to it. evidence: node0.log's step lines, 'eval step 300: ...', "
        "'saved checkpoint ckpt/step-000300.pt' and 'done: 300 steps, 2 epoch(s)', 'job exited with 0' in both files; "
        "the nn.Transformer UserWarnings (mismatched key_padding_mask, nested tensors prototype) are noise.",
    "torchrun-2node-translate-master-port-transposed":
        f"two torchrun agents on this host as two nodes (static rendezvous, --rdzv-conf timeout=60) of {W}; node 0 "
        "was started with --master-port 29514 and node 1 with --master-port 29541 (digits transposed when the command "
        "was copied), so node 1's agent never reached node 0's store and no worker started. evidence: node1.log "
        "'[c10d] The client socket has timed out after 60000ms while trying to connect to (127.0.0.1, 29541)' / "
        "'torch.distributed.DistNetworkError'; node0.log (master 29514) 'torch.distributed.DistStoreError: Timed out "
        "after 61 seconds waiting for clients. 1/2 clients joined.' in static_tcp_rendezvous next_rendezvous; both "
        "'job exited with 1'.",
    "torchrun-translate-noam-factor-no-warmup":
        f"torchrun --nproc-per-node 2 of {W} with the Noam schedule's factor set to 60 (--lr 60, a value for a "
        "different schedule) and --warmup 1, and no gradient clipping (--clip 0): the first steps ran at a learning "
        "rate above 1 and the model diverged; the job kept running and exited 0 with a useless model. evidence: "
        "'step 20/300 | ... | loss 1006.2996 | lr 1.68e+00 | grad-norm 76.123' (cross-entropy over a 303-word "
        "vocabulary starts near 5.7), the loss staying in the tens to hundreds with large grad norms, 'eval step ...: "
        "dev BLEU 0.00 (p1 0.051 ...'; 'job exited with 0' is not a success.",
    "mpirun-translate-shard-newer-vocab-ids":
        f"mpirun -np 3 of {W}; the corpus shard train-02 had been re-exported as token ids (train-02.ids) with a newer, "
        "larger target vocabulary (64 more words) while the model and vocab.json are version 2026.10 with 303 target "
        "words, so rank 2's first batches held target ids past the embedding table. evidence: '[rank2] shards "
        "['train-02.ids']', 'vocab 2026.10: 265 source / 303 target words', rank 2's traceback through translate.py "
        "'embed' / 'return emb(x) * math.sqrt(self.d) ...' ending '[rank2]: IndexError: index out of range in self' "
        "(first); ranks 0 and 1's 'Connection closed by peer ... This is typically caused by a remote worker crashing' "
        "in loss.backward() are symptoms; mpirun names process [[...,1],2] as the first to exit non-zero.",
    "slurm-translate-healthy":
        f"healthy: sbatch --wait translate.sbatch (2 tasks through srun --kill-on-bad-exit=1) on this host's one-node "
        f"Slurm cluster of {W} for 300 steps, eval every 100, checkpoints at 150 and 300; nothing done to it; job.log "
        "is the job's slurm-<id>.out. evidence: 'job 1 (mt-enfr) on vm: 2 task(s) ... time limit UNLIMITED', the step "
        "and eval lines, 'done: 300 steps, 2 epoch(s)' from both ranks and 'srun exited with 0'; the nn.Transformer "
        "UserWarnings are noise.",
    "slurm-translate-time-limit":
        f"sbatch --wait --time=1 translate.sbatch of {W} asked for 100000 steps: the job was submitted with a "
        "one-minute wall-clock limit (--time=1, minutes, meant as one hour or one day), so Slurm ended it at its time "
        "limit while training ran normally; job.log is the job's slurm-<id>.out. evidence: 'time limit 1:00' in the "
        "header, '*** JOB 2 ON vm CANCELLED AT ... DUE TO TIME LIMIT ***' and '*** STEP 2.0 ON vm CANCELLED ... DUE TO "
        "TIME LIMIT ***' from slurmstepd, then the ranks' 'caught SIGTERM at step 191', rank 0's 'saved checkpoint "
        "ckpt/preempt-000191.pt', 'srun: error: vm: task 0: Exited with exit code 143'; training was healthy up to "
        "then (loss falling, eval lines).",
    "slurm-translate-master-port-held-by-other-job":
        f"sbatch --wait translate.sbatch of {W} with MASTER_PORT=29560 exported from the submitting shell, while "
        "another training job started outside Slurm on the same node (a torchrun of the same script) already held "
        "port 29560 for its store; rank 0 could not start its TCPStore, srun --kill-on-bad-exit killed rank 1. "
        "job.log is the job's slurm-<id>.out. evidence: 'master vm:29560' in the header, rank 0's "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29560, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'srun: error: vm: task 0: Exited with exit code 1'; 'task 1: Killed' and 'srun exited with 137' are srun "
        "tearing down the other task.",
    "deepspeed-translate-ds-config-micro-batch-raised":
        f"deepspeed --num_gpus 2 (CPU accelerator, gloo) of {W} through deepspeed.initialize with a ds_config.json whose "
        "train_micro_batch_size_per_gpu was raised to 24 (with --batch 24) while train_batch_size stayed 64 and "
        "gradient_accumulation_steps 2. evidence: rank 0's 'deepspeed config ds_config.json: {\"train_batch_size\": 64, "
        "\"train_micro_batch_size_per_gpu\": 24, \"gradient_accumulation_steps\": 2, ...}', both ranks' "
        "'AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
        "gradient_acc_step * world_size 64 != 24 * 2 * 2' (64 = 16 x 2 x 2); the launcher's sigkill_handler lines and "
        "'job exited with 1' follow. The 'Setting accelerator to CPU' warnings are this machine.",
    "deepspeed-translate-blob-token-segmenter":
        f"deepspeed --num_gpus 2 (CPU accelerator, gloo; deepspeed.init_distributed + DDP) of {W}; shard train-01 "
        "(rank 1) held one scraped line with a ~160,000-character base64 blob as a single 'word'; the script splits "
        "unknown words with a memoised recursive segmenter (functools.lru_cache, one frame per piece) and raises "
        "sys.setrecursionlimit to 1,000,000, so Python's recursion check never fired and the C stack overflowed: rank 1 "
        "died of SIGSEGV while loading its shards. evidence: 'Fatal Python error: Segmentation fault' with the "
        "faulthandler stack 'File \".../translate.py\", line 128 in segment' repeated (rank 1 printed 'shards "
        "['train-01.tsv', 'train-03.tsv']' and never 'loaded train-01.tsv'), the launcher's '... --local_rank=1 ... "
        "exits with return code = -11'; rank 0's 'Connection closed by peer' in DistributedDataParallel's "
        "_verify_param_shape_across_processes is a symptom.",
    "deepspeed-translate-token-batches-uneven-shards":
        f"deepspeed --num_gpus 2 (CPU accelerator, gloo; deepspeed.init_distributed + DDP, process-group timeout 60 s) "
        f"of {W} trained by epochs (--epochs 1) with token-budget batches (--max-tokens 1200) on shards of very "
        "different sizes: rank 1's shards held 1050 pairs each against rank 0's 3000, so rank 1 ran out of batches "
        "after 27 steps and went on to the end-of-training barrier while rank 0 was still in its 28th step's "
        "gradient all-reduce; nothing made the ranks agree on a step count (no join, no drop to the shortest). "
        "evidence: 'epoch 1: 27 batches on this rank' (rank 1) vs 'epoch 1: 77 batches on this rank' (rank 0), "
        "rank 1's traceback through translate.py's dist.barrier() ending 'RuntimeError: [.../gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 60000ms for recv operation to complete' (first); rank 0's "
        "'Connection closed by peer' in loss.backward() is a symptom; the launcher's '--local_rank=1 ... exits with "
        "return code = 1'.",
    "accelerate-translate-healthy":
        f"healthy: accelerate launch --multi_gpu --num_processes 2 (CPU, gloo; accelerate.Accelerator + prepare) of {W} "
        "for 300 steps, eval every 100, checkpoints at 150 and 300; nothing done to it. evidence: the step and eval "
        "lines, 'saved checkpoint ckpt/step-000300.pt', 'done: 300 steps, 2 epoch(s)' from both ranks and 'job exited "
        "with 0'; the nn.Transformer UserWarnings are noise.",
    "accelerate-translate-terminal-closed":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) of {W} for 600 steps, started from an interactive "
        "shell; at step 140 the terminal was closed (SIGHUP to the job's process group), so the elastic agent under "
        "accelerate shut the workers down and the console stops mid-run. evidence: healthy step lines up to 'step "
        "140/600', then 'torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down "
        "workers' (signal 1 = SIGHUP) and 'Sending process ... closing signal SIGHUP' for both workers; no 'done' "
        "line and no exit status follow.",
    "accelerate-translate-shard-is-fifo-ctrl-c":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo, default 30-minute process-group timeout) of {W}; "
        "data/train-03.tsv, one of rank 1's shards, was a named pipe (left by a streaming export that never started "
        "writing) instead of a file, so rank 1 blocked forever in open() while rank 0 waited in "
        "DistributedDataParallel's first collective; nothing printed for 85 s until the user pressed Ctrl-C. "
        "evidence: rank 1 printed 'loaded train-01.tsv' but never 'loaded train-03.tsv' and rank 0 stopped after "
        "'model: Transformer enc-dec ...' (no 'training:' line from either rank) from 10:14:25 to 10:15:51; then "
        "'Received 2 death signal, shutting down workers', 'closing signal SIGINT', rank 1's KeyboardInterrupt "
        "traceback ending in read_shard's 'with open(path) as f:' (where it was stuck), rank 0's 'Connection closed by "
        "peer' in _verify_param_shape_across_processes, 'SignalException: Process ... got signal: 2'.",
    "accelerate-translate-unfiltered-long-dev-cgroup":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) of {W} inside a 3 GB cgroup-v1 memory limit (the "
        "container's); the dev set (an unfiltered crawl, no length cap) held 12 sentences of ~5,000 words, and at the "
        "first evaluation (step 50) each rank encoded them in one batch, so attention over ~5,000 positions needed "
        "several GB; the kernel OOM killer (memory cgroup) SIGKILLed rank 1, then rank 0. evidence: normal step lines "
        "to 'step 40/300', then no Python traceback at all, the elastic agent's 'failed (exitcode: -9) local_rank: 1' "
        "and the ChildFailedError table: Root Cause rank 1 'exitcode  : -9 ... (SIGKILL)' / 'Signal 9 (SIGKILL) "
        "received by PID', rank 0 also -9; 'job exited with 1'.",
    "torchrun-translate-worker-killed-restart-resume":
        f"healthy despite alarming lines: torchrun --nproc-per-node 2 --max-restarts 1 --log-dir logs --tee 3 of {W} "
        "with --resume and checkpoints every 100 steps; after step 260 one worker (rank 1) was SIGKILLed from outside "
        "(kill -9 of its pid, as an admin or a node's OOM killer does to a stray process); the agent restarted both "
        "workers, they resumed from the step-200 checkpoint and the run finished all 400 steps. evidence: rank 0's "
        "'Connection closed by peer' traceback and 'failed (exitcode: -9) local_rank: 1', then a second 'process "
        "group up' from both ranks, 'resumed from ckpt/step-000200.pt at step 200', steps 220-400, 'eval step 400', "
        "'done: 400 steps' and 'job exited with 0': the job did not fail.",
    "torchrun-translate-loader-workers-container-shm":
        f"torchrun --nproc-per-node 2 of {W} with 2 DataLoader workers per rank and 256-sentence batches, run with a "
        "1 MB /dev/shm (a container's small shared-memory mount); the workers pass each batch's tensors through "
        "/dev/shm, which filled, the workers' queue feeder threads failed and rank 0 waited forever for its next batch (rank 1 "
        "waiting for it in the gradient all-reduce); no step line (logged every 20) ever printed and the user pressed Ctrl-C after two minutes. evidence: 'training: "
        "6000 pairs on this rank, batch 256, 2 loader workers', then the loader workers' 'RuntimeError: unable to "
        "allocate shared memory(shm) for file </torch_...>: No space left on device (28)' (from multiprocessing "
        "queues.py _feed / reduce_storage / _share_fd_cpu_), then nothing until 'Received 2 death signal', the "
        "KeyboardInterrupt tracebacks (rank 0's in the DataLoader's multiprocessing connection poll, rank 1's in "
        "loss.backward) and 'SignalException: Process ... got signal: 2'; 'Connection closed by peer' "
        "is a symptom.",
    "mpirun-translate-keep-all-ckpts-scratch":
        f"mpirun -np 3 of {W} saving a checkpoint every 50 steps with retention off (--keep 0) to a 12 MB node-local "
        "scratch filesystem (--save-dir scratch/ckpt); three 3.6 MB checkpoints fit and the fourth (step 200) filled "
        "the filesystem in the middle of torch.save, which reports a stream error rather than ENOSPC. evidence: the "
        "first line's 'tmpfs 12M 0 12M 0% .../scratch', 'saved checkpoint scratch/ckpt/step-000150.pt (3.6 MB)' x3, "
        "rank 0's traceback through torch/serialization.py save/_save ending 'RuntimeError: basic_ios::clear: "
        "iostream error' and '[enforce fail at inline_container.cc:672] . unexpected pos 1891584 vs 1891476', then "
        "after 'job exited with 1' the shell's 'df -h' 'tmpfs 12M 12M 0 100%' and 'ls -l' showing step-000200.pt cut "
        "at 1904640 bytes; ranks 1 and 2's 'Connection closed by peer' are symptoms.",
    "mpirun-translate-rank0-full-dev-decode":
        f"mpirun -np 3 of {W} with --eval-rank0-only (rank 0 alone greedy-decodes the whole dev set at each evaluation "
        "while the others go on training) on a 40,000-sentence dev set and a process-group timeout lowered to 20 s "
        "(--timeout-s 20): at step 100 rank 0 spent longer than 20 s decoding, and ranks 1 and 2, already in step "
        "101's gradient all-reduce, timed out waiting for it. evidence: rank 0's last line 'step 100/300 | ...' "
        "(eval every 100) with no 'eval step 100' line, ranks 1 and 2's tracebacks in loss.backward ending "
        "'Timed out waiting 20000ms for recv operation to complete' (rank 2) / '... for send operation to complete' "
        "(rank 1) from gloo unbound_buffer.cc about 20 s later; mpirun then terminated rank 0 ('caught SIGTERM at "
        "step 100', 'saved checkpoint ckpt/preempt-000100.pt') and names process [[...,1],2] as the first to exit "
        "non-zero.",
}
