"""What each committed wave K (a) run showed: the manifest rows' notes (written after the runs)."""

NOTES = {
    "mpirun-kws-healthy":
        "Open MPI mpirun -np 3 of kws_train.py (keyword-spotting CNN over log-mel shards, DDP/gloo on CPU, one "
        "DataLoader worker per rank): 240 steps with evaluation every 80 and checkpoints every 120; nothing done to "
        "it. evidence: 'training finished: 240 steps' on all three ranks and 'job exited with 0'.",
    "mpirun-kws-embedding-bank-gather-cgroup-oom":
        "mpirun -np 3 of kws_train.py with a per-rank embedding bank (1.2M rows) that rank 0 collects with "
        "dist.gather_object and concatenates into every checkpoint (save every 60 steps); the job ran in a cgroup-v1 "
        "memory cgroup limited to 3.4 GB, so the kernel OOM killer killed a rank while the bank was being gathered "
        "for the step-60 checkpoint (the kernel log, not part of this log, has 'Memory cgroup out of memory: Killed process ... (python)'). evidence: "
        "'mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).', right after "
        "'step 60/300' (a checkpoint step); the other ranks' 'received SIGTERM' lines and exit 137 follow.",
    "mpirun-kws-wrapper-per-rank-port":
        "mpirun -np 3 bash run_rank.sh: the per-rank wrapper sets MASTER_PORT=$((29900 + RANDOM % 100)) when unset, "
        "so each rank drew its own port (master lines show 29918, 29971, 29942); rank 0 listened on its port, "
        "ranks 1 and 2 tried to reach stores nobody listens on until init_process_group's 60 s timeout. evidence: "
        "'The client socket has timed out after 60000ms while trying to connect to (192.0.2.2, 29942)' (and 29971) "
        "and rank 0's 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/3 clients "
        "joined.'",
    "mpirun-kws-rank0-tta-eval-straggler":
        "mpirun -np 3 of kws_train.py with --full-eval-tta 24: at step 60 rank 0 alone ran the full validation set "
        "with 24 time-shift augmentations while ranks 1 and 2 went on into the next step's DDP gradient all-reduce; "
        "the process-group timeout was 20 s, so the gloo all-reduce timed out on the waiting ranks and rank 0 was "
        "then torn down by mpirun. evidence: ranks 2 and 1 '[rank2]: RuntimeError: [.../gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete' (and 'for send "
        "operation') right after 'step 60/240'; rank 0's traceback is inside full_eval (SIGTERM from mpirun).",
    "mpirun-kws-walltime-timeout-term":
        "mpirun -np 3 of kws_train.py (3000 steps) run under `timeout -s TERM 70` (a 70 s wall-clock limit on the "
        "job): at the limit timeout sent SIGTERM to mpirun, which passed it to the ranks; their SIGTERM handler "
        "printed and exited. evidence: the ranks' 'received SIGTERM, writing ckpt/interrupted.pt and exiting' lines "
        "while training was healthy, and 'job exited with 124' (timeout's status for a command it timed out).",
    "mpirun-deepspeed-config-for-two-ranks":
        "mpirun -np 3 of kws_train.py with --deepspeed-config ds_config.json (deepspeed.init_distributed + "
        "deepspeed.initialize on the CPU accelerator): the config was written for two ranks (train_batch_size 64, "
        "micro batch 32, gradient accumulation 1) and the job started three. evidence: every rank's 'AssertionError: "
        "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * "
        "world_size 64 != 32 * 1 * 3'.",
    "mpirun-kws-loader-workers-small-shm":
        "mpirun -np 3 of kws_train.py with two DataLoader workers per rank and batch 64 (655 KB per batch), run in a "
        "private mount namespace whose /dev/shm is a 2 MB tmpfs (a container's default-sized shm). evidence: "
        "'RuntimeError: unable to allocate shared memory(shm) for file </torch_...>: No space left on device (28)' "
        "in DataLoader worker process 0 on ranks 2 and 1; rank 0 then saw 'Connection closed by peer'.",
    "mpirun-kws-checkpoint-volume-full":
        "mpirun -np 3 of kws_train.py (width 64, checkpoint 1.3 MiB every 50 steps, none deleted) with ckpt/ a 4 MB "
        "tmpfs (df at the top shows it empty): three checkpoints filled it and torch.save of step-000200.pt on rank 0 "
        "hit ENOSPC, which torch's zip writer reports as a stream error. evidence: after 'eval step 200' rank 0's "
        "'RuntimeError: basic_ios::clear: iostream error' then 'RuntimeError: [enforce fail at inline_container.cc:"
        "672] . unexpected pos 10752 vs 10648' from torch.save in save(); the earlier 'saved checkpoint' lines and "
        "the df line give the volume size; ranks 1 and 2 then saw 'Connection closed by peer'.",
    "slurm-kws-healthy":
        "sbatch --wait kws.sbatch (2 tasks, srun --kill-on-bad-exit) of kws_train.py on a one-node Slurm cluster: "
        "240 steps, evaluation and checkpoints; nothing done to it. evidence: 'training finished: 240 steps' on both "
        "ranks and 'srun finished with exit code 0' in slurm-<id>.out.",
    "slurm-kws-zlib-shard-ctypes-overflow":
        "sbatch/srun of kws_train.py --zshards: shards are zlib-compressed and decoded with libz's uncompress through "
        "ctypes into a numpy buffer sized from the shard header's nbytes while destLen comes from the shape; shard 3 "
        "(rank 1's) had been appended to after its header was written (nbytes 1/8 of the data), so uncompress wrote "
        "past the buffer and the process died in native code. evidence: 'Fatal Python error: Segmentation fault' "
        "with the innermost frame 'kws_train.py, line 73 in zdecode' (the uncompress call) and 'srun: error: vm: "
        "task 1: Segmentation fault'; rank 0's 'Connection closed by peer' follows.",
    "slurm-kws-master-port-second-job":
        "Two Slurm jobs on one node with the sbatch script's default MASTER_PORT 29930: a single-task learning-rate "
        "sweep job (kws-lr-sweep, its output elsewhere) was already training and held the port with its TCPStore "
        "when this 2-task job started. evidence: rank 0's 'torch.distributed.DistNetworkError: The server socket has "
        "failed to listen on any local network address. port: 29930, useIpv6: false, code: -98, name: EADDRINUSE, "
        "message: address already in use' and 'srun: error: vm: task 0: Exited with exit code 1'.",
    "slurm-kws-normalize-silent-channel-nan":
        "sbatch/srun of kws_train.py --normalize: the per-channel mean/std file was computed from shard 0 in which "
        "mel channel 39 is silent (std 0), so standardisation divides by zero and the inputs, hence the loss, are "
        "NaN; the training loop's finite-loss check raised on both ranks. evidence: 'normalising 40 mel channels "
        "(std min 0.0000 max 1.1276)' and 'FloatingPointError: loss is nan at step 0 (epoch 1); lr 1.000e-04'.",
    "slurm-kws-val-keyword-not-in-vocab":
        "sbatch/srun of kws_train.py where the last validation shard (rank 0's) holds clips of a keyword ('wow') "
        "that is not in meta.json's keyword list; building the validation set raised on rank 0 and srun's "
        "--kill-on-bad-exit cancelled the step. evidence: '[rank0]: KeyError: np.str_('wow')' from Shards.__init__ "
        "and 'srun: error: vm: task 0: Exited with exit code 1'; rank 1's SIGTERM/143 is the clean-up.",
    "slurm-kws-augment-fifo-stuck-scancel":
        "sbatch/srun of kws_train.py --fifo-rank 1 --fifo-step 50: at step 50 rank 1 opened the named pipe "
        "data/aug.fifo to refresh its noise-augmentation bank, but the sidecar that should write it never ran, so "
        "rank 1 blocked in open() and rank 0 waited in the next all-reduce (30 min process-group timeout); nothing "
        "more was printed until the user cancelled the job with scancel 150 s after submission. evidence: rank 1's "
        "last line 'refreshing the noise augmentation bank from data/aug.fifo' after 'step 50/600', no output after, "
        "then slurmstepd's '*** ... CANCELLED AT ... ***' from scancel.",
    "slurm-kws-debug-detail-ddp-init-segv":
        "sbatch/srun of kws_train.py --eval-gather with TORCH_DISTRIBUTED_DEBUG=DETAIL exported in the batch script "
        "(meant to debug a collective mismatch): both ranks died with SIGSEGV inside torch's DDP constructor "
        "(DistributedDataParallel.__init__ -> _ddp_init_helper) right after building their datasets, before any "
        "training step or collective of the script's own. evidence: two 'Fatal Python error: Segmentation fault' "
        "blocks whose innermost frame is 'torch/nn/parallel/distributed.py, line 1473 in _ddp_init_helper' and "
        "'srun: error: vm: tasks 0-1: Segmentation fault' (exit code 139).",
    "slurm-kws-eval-gather-short-shard":
        "sbatch/srun of kws_train.py --eval-gather: evaluation all_gathers each rank's per-clip predictions for a "
        "confusion matrix into buffers shaped like the local tensor, but the ranks hold different numbers of "
        "validation clips (rank 0 295, rank 1 166: one val shard is 37 clips short), so at the step-60 evaluation "
        "the ranks issued all_gather with different tensor sizes; gloo's receive check failed and rank 1 aborted. "
        "evidence: \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\" with \"what():  [enforce "
        "fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 1180 vs 664. Received data "
        "size doesn't match expected size. Is there a distributed collective mismatch in your code\", then 'srun: "
        "error: vm: task 1: Aborted'; rank 0's 'eval: gathered 590 predictions' is the wrong count.",
    "deepspeed-kws-healthy":
        "deepspeed --num_gpus 2 (DeepSpeed launcher on the CPU accelerator) of kws_train.py with ds_config.json "
        "(train_batch_size 64 = 32 x 1 x 2, AdamW, WarmupDecayLR): 200 steps with evaluation and checkpoints; nothing "
        "done to it. evidence: 'training finished: 200 steps' on both ranks and 'job exited with 0'.",
    "deepspeed-kws-grad-accum-healthy":
        "deepspeed --num_gpus 2 of kws_train.py with ds_config_ga2.json (train_batch_size 128 = 32 x 2 x 2, "
        "gradient accumulation 2): 300 micro-steps with evaluation and checkpoints; nothing done to it. evidence: "
        "'training finished: 300 steps' on both ranks and 'job exited with 0'; DeepSpeed's CPU-accelerator and "
        "'Attempting to get learning rate from scheduler before it has started' warnings are routine.",
}
