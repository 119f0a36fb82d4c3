"""What each committed wave L (a) run showed: the manifest rows' notes (written after the runs)."""

NOTES = {
    "torchrun-ctr-tee-logdir-healthy":
        "healthy: torchrun --nproc-per-node 2 --log-dir logs --tee 3 of ctr_train.py (DLRM-style click-through-rate "
        "model: 8 embedding tables, bottom/top MLPs, dot interactions; DDP over gloo on CPU) for 500 steps with "
        "evaluation every 100 and checkpoints at 250 and 500; nothing done to it. evidence: '[default0]:... | rank "
        "0/2 | done: 500 steps', the same on rank 1, and 'job exited with 0'.",
    "torchrun-2node-ctr-tables-sized-per-rank":
        "two torchrun agents on this host as two nodes (--nnodes 2 --node-rank 0/1 --nproc-per-node 1, static "
        "rendezvous on 127.0.0.1:29603; consoles node0.log and node1.log) of ctr_train.py with --tables-from-data: "
        "each rank sized every embedding table from the largest id in its own shards (max id + 1), so the two ranks "
        "built tables of different shapes and DDP's constructor check of parameter shapes across processes failed. "
        "evidence: node1.log's table sizes line (item=19978 ...) and '[rank1]: RuntimeError: [1]: "
        "params[1] in this process with sizes [19978, 32] appears not to match sizes of the same param in process "
        "0.' (node0's table line has item=19886 etc.; rank 0's 'Connection closed by peer' in the same check is a "
        "symptom); both agents report the failure and exit 1.",
    "torchrun-ctr-restarts-new-campaign-ids":
        "torchrun --nnodes 1 --nproc-per-node 2 --max-restarts 2 with the c10d rendezvous of ctr_train.py; one train "
        "shard (read by rank 1) came from after the campaign catalogue grew: raw campaign ids 1500-2399 for a "
        "1500-row embedding table. Rank 1's first batches hit an id past the table in every attempt, torchrun "
        "restarted the worker group twice and then gave up. evidence: three times '[rank1]: RuntimeError: Index 4 of "
        "input takes value 1543 which is not in the valid range [0, 1500)' in the EmbeddingBag forward, each "
        "followed by rank 0's 'Connection closed by peer' (a symptom) and 'failed (exitcode: 1) local_rank: 1'; "
        "the final ChildFailedError summary and 'job exited with 1'.",
    "torchrun-ctr-drift-monitor-cgroup-oom":
        "torchrun --nproc-per-node 2 --redirects 3 --log-dir logs (worker output goes to files, the console has "
        "only torchrun's lines) of ctr_train.py with --drift-monitor, batch 2048, dim 64: the drift monitor keeps "
        "every step's pooled feature tensor (never trimmed), so host memory grew each step; the job ran in a "
        "cgroup-v1 memory cgroup limited to 2.3 GB and the kernel OOM killer killed rank 1 (the kernel log, not part "
        "of this log, has 'Memory cgroup out of memory: Killed process ... (python)'). evidence: 'failed (exitcode: "
        "-9) local_rank: 1' and the Root Cause entry 'exitcode : -9 ... (SIGKILL)' / 'Signal 9 (SIGKILL) received "
        "by PID'; rank 0's -15 is torchrun's own clean-up.",
    "torchrun-ctr-tee-terminal-closed":
        "torchrun --nproc-per-node 2 --log-dir logs --tee 3 of ctr_train.py (5000 steps) started from a terminal "
        "that was then closed: at step 300 the whole process group got SIGHUP, as a closing terminal sends it. "
        "evidence: torchrun's 'Received 1 death signal, shutting down workers' and 'Sending process ... closing "
        "signal SIGHUP' while training was healthy; the console ends there (no 'job exited' line: the shell died of "
        "the same SIGHUP).",
    "torchrun-ctr-stale-job-same-port":
        "torchrun --nproc-per-node 2 --master-port 29611 of ctr_train.py while an earlier torchrun job with the same "
        "master port was still running on the host (started before it, still training; its console not kept). "
        "evidence: torchrun's own static rendezvous TCPStore failed: 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 29611, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use' and 'job exited with 1'; no worker started.",
    "torchrun-ctr-overwrite-prompt-ctrl-c":
        "torchrun --nproc-per-node 2 of ctr_train.py with --confirm-overwrite; the checkpoint dir held another run's "
        "step-000600.pt, so rank 0 stopped at an interactive input() prompt that no one answered while rank 1 waited "
        "in dist.barrier (default 30 min timeout); nothing was printed for 72 s until the user pressed Ctrl-C "
        "(SIGINT to the process group). evidence: rank 0's 'ckpt already holds 1 checkpoint(s) from another run' "
        "and 'overwrite checkpoints in ckpt? [y/N]' as the last output before torchrun's 'Received 2 death signal, "
        "shutting down workers'; rank 0's KeyboardInterrupt is inside input(), rank 1's inside dist.barrier.",
    "mpirun-ctr-step-metrics-volume-full":
        "Open MPI mpirun -np 3 of ctr_train.py with --metrics-file on a small volume (an 8 MB tmpfs mounted at "
        "metrics/, 'df -h' at the top): every rank appended one JSON line per step including the batch's raw ids "
        "per table, so the volume filled after ~360 steps. evidence: ranks 2 and 1 '[rank2]: OSError: [Errno 28] No "
        "space left on device' at mf.flush() in the step loop; rank 0's 'Connection closed by peer' is a symptom, "
        "then mpirun's 'one or more processes exited with non-zero status' and 'job exited with 1'.",
    "mpirun-ctr-rank0-hot-pair-index":
        "mpirun -np 3 of ctr_train.py with --hot-index-passes 160 and a 15 s process-group timeout: after DDP set-up "
        "rank 0 alone built a feature-pair co-occurrence index over all 12 train shards in Python (160 passes, "
        "about 40 s) while ranks 1 and 2 went straight into the first step's DDP gradient all-reduce and waited for "
        "rank 0 there. evidence: rank 0's 'building hot feature-pair index ... (160 passes)' and its 'hot index pass "
        "N/160' lines, then '[rank2]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting "
        "15000ms for recv operation to complete' and rank 1's 'Timed out waiting 15000ms for send operation'; rank "
        "0's 'caught SIGTERM at step 0' is mpirun's clean-up, 'job exited with 1'.",
    "deepspeed-ctr-zero1-healthy":
        "healthy: DeepSpeed launcher (deepspeed --num_gpus 2, CPU accelerator, gloo) of ctr_train.py with "
        "ds_zero1.json (ZeRO stage 1, Adam, WarmupLR; train_batch_size 512 = 256 x 1 x 2), 400 steps, evaluation "
        "and checkpoints at 200 and 400; nothing done to it. It prints the usual CPU-accelerator and hostfile "
        "warnings, the scheduler's 'Attempting to get learning rate from scheduler before it has started' and a "
        "FutureWarning. evidence: 'done: 400 steps' on both ranks, the launcher's exit line, 'job exited with 0'.",
    "deepspeed-ctr-config-from-8rank-run":
        "DeepSpeed launcher with --num_gpus 2 of ctr_train.py, given ds_zero1_8ranks.json (printed at the top), a "
        "config written for an 8-rank run: train_batch_size 2048 with micro batch 256 and gradient accumulation 1. "
        "evidence: both ranks' 'AssertionError: Check batch related parameters. train_batch_size is not equal to "
        "micro_batch_per_gpu * gradient_acc_step * world_size 2048 != 256 * 1 * 2' from deepspeed.initialize, the "
        "launcher's sigkill_handler line and 'job exited with 1'.",
    "deepspeed-ctr-cross-features-100k-buckets":
        "DeepSpeed launcher with --num_gpus 2 of ctr_train.py with --cross-buckets 100000: each rank compiled the "
        "cross-feature helper hashcross.c with cc at start-up and called it through ctypes; the C code counts "
        "collisions in a fixed 65536-entry table and asserts the bucket count fits, so with 100000 buckets both "
        "ranks aborted inside the helper. evidence: 'python: .../hashcross.c:12: hash_cross: Assertion `nbuckets <= "
        "MAX_BUCKETS && \"cross-feature table larger than the collision counter\"' failed.', 'Fatal Python error: "
        "Aborted' with the faulthandler stack in cross_ids, and the launcher's '... exits with return code = -6'.",
    "accelerate-ctr-healthy":
        "healthy: accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) of ctr_train.py --accelerate "
        "(Accelerator(cpu=True), Adagrad) for 500 steps with evaluation every 100 and checkpoints at 250 and 500; "
        "nothing done to it. evidence: 'done: 500 steps' on both ranks and 'job exited with 0'.",
    "accelerate-ctr-missing-counts-minus-one":
        "accelerate launch with 2 CPU processes of ctr_train.py --accelerate; one train shard (read by rank 1) came "
        "from an exporter that wrote missing counts as -1 instead of 0, and the trainer's log1p transform of the "
        "dense counts turns -1 into -inf, so the model's output and loss were NaN from the first steps; the "
        "trainer's NaN check stopped after 3 consecutive non-finite steps. evidence: 'step 1: non-finite loss nan "
        "(1/3)' ... and '[rank1]: FloatingPointError: loss is nan for 3 consecutive steps at step 3'; rank 0's "
        "'Connection closed by peer' is a symptom, then torchrun's ChildFailedError and 'job exited with 1'.",
    "slurm-ctr-healthy":
        "healthy: sbatch --wait ctr.sbatch (2 tasks through srun --kill-on-bad-exit=1) on the one-node Slurm cluster, "
        "ctr_train.py for 600 steps with evaluation every 200 and checkpoints at 300 and 600; nothing done to it. "
        "The log is the job's slurm-<id>.out. evidence: 'done: 600 steps' on both ranks and 'srun exited with 0'.",
    "slurm-ctr-ntasks-left-in-env":
        "sbatch --wait ctr.sbatch (--ntasks=2) submitted from a shell that still had NTASKS=1 exported from an "
        "earlier debug session; sbatch exports the environment, so the batch script ran its step as srun --ntasks=1 "
        "while WORLD_SIZE was the job's 2 tasks: the one task (rank 0) waited for a second rank that was never "
        "started, until init_process_group's 45 s timeout. evidence: the script's '1 task(s)' and 'srun --ntasks=1' "
        "lines, then rank 0's 'torch.distributed.DistStoreError: Timed out after 46 seconds waiting for clients. 1/2 "
        "clients joined.' and 'srun exited with 1'.",
    "slurm-ctr-step-time-limit":
        "sbatch --wait ctr.sbatch with SRUN_OPTS=--time=1 (a one-minute step time limit left from debug runs) for a "
        "20000-step run: when the step reached its time limit Slurm cancelled it, SIGTERM reached both ranks (their "
        "handler printed and exited 143), then the step was force-terminated. evidence: 'slurmstepd-vm: error: *** "
        "STEP 6.0 ON vm CANCELLED AT ... DUE TO TIME LIMIT ***' while training was healthy, the ranks' 'caught "
        "SIGTERM at step 1219' lines and 'srun exited with 143'.",
    "mpirun-ctr-master-addr-from-old-cluster":
        "mpirun -np 3 of ctr_train.py with MASTER_ADDR=10.20.0.11 (the head node of the cluster the job script was "
        "copied from, not this host) and a 40 s process-group timeout: no rank's TCPStore client ever reached rank "
        "0's store; on this host's network something at that address accepted the connection and answered with "
        "bytes that are not a store reply (1347703880 is 'HTTP'), so the clients retried with back-off until the "
        "timeout. evidence: every rank's 'master 10.20.0.11:29625' start line, the repeated '[c10d] TCP client failed "
        "to connect/validate to host 10.20.0.11:29625 - retrying (try=N, timeout=40000ms)' warnings, then '[E... "
        "TCPStore.cpp:328] ... timed out (try=9, timeout=40000ms)' and rank 1's 'torch.distributed.DistNetworkError: "
        "Ping failed, invalid value returned from server', mpirun's abort and 'job exited with 1'.",
}
