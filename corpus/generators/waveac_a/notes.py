"""What each committed wave AC (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "seqcls.py (1D-CNN promoter-motif classifier over one-hot DNA, gloo)"
NOTES = {
    "torchrun-motifcnn-healthy":
        f"torchrun, 2 ranks, {W}, 10 epochs with OMP_NUM_THREADS unset; healthy: val AUROC climbs to ~0.96, checkpoint "
        "every epoch, clean exit. evidence: 'Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
        "default' (a warning only), 'done: 10 epochs, final val AUROC 0.9655', 'job exited with 0'",
    "torchrun-motifcnn-basecaller-v2-shard":
        f"torchrun, 2 ranks, {W}; train shard train-01.fa comes from a newer basecaller export whose reads contain runs "
        "of the ambiguous base N; rank 1's one-hot lookup (BASES dict of A/C/G/T) raises mid-epoch in the Dataset, rank 0 "
        "then loses its peer in the gradient all-reduce and torchrun SIGTERMs it. evidence: '[rank1]:   File "
        "\"/tmp/waveac-a-job/run/seqcls.py\", line 52, in one_hot', '[rank1]: KeyError: 'N'', then rank 0's 'Connection "
        "closed by peer' and torchrun's Root Cause 'rank : 1 (local_rank: 1) exitcode : 1'",
    "torchrun-motifcnn-compressed-shard":
        f"torchrun, 2 ranks, {W}; one train shard stored as train-01.fa.gz is read through zcat with stdout and stderr "
        "PIPEs and p.wait() before p.stdout.read(): 131 kB of FASTA fills the 64 kB pipe, zcat blocks writing, rank 1 "
        "blocks in waitpid forever; rank 0 waits in DDP's constructor; no output for ~65 s until the user presses Ctrl-C. "
        "evidence: nothing after '[03:16:16] model: MotifCNN, 67009 parameters' (no 'rank 1: shards' line), then "
        "'Received 2 death signal, shutting down workers', rank 1's traceback '    p.wait()' -> 'os.waitpid(self.pid, "
        "wait_flags)' -> 'KeyboardInterrupt' inside read_fasta, rank 0 in 'nn.parallel.DistributedDataParallel(model)' / "
        "'_verify_param_shape_across_processes'",
    "torchrun-motifcnn-terminal-closed":
        f"torchrun, 2 ranks, {W}, 40-epoch run launched from an interactive terminal; the terminal closed after epoch 3 "
        "(SIGHUP to the launcher's process group), torchrun forwards SIGHUP to the workers and the shell is gone too (no "
        "exit line). evidence: 'eval epoch 3: ... saved ckpt/last.pt (epoch 3)' then 'Received 1 death signal, shutting "
        "down workers', 'Sending process ... closing signal SIGHUP' (twice), and the log ends",
    "mpirun-motifcnn-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, 3 shards of 800, 10 epochs; healthy (interleaved per-rank start-up lines are normal "
        "mpirun output). evidence: 'rank 2: shards ['train-02.fa'], 800 sequences', 'done: 10 epochs, final val AUROC "
        "0.9633', 'job exited with 0'",
    "mpirun-motifcnn-low-prevalence-val":
        f"Open MPI mpirun -np 3, {W}, low-prevalence held-out set (120 sequences, ~2% positive) split round-robin; rank 0's "
        "slice has no positive, so its AUROC partial is torch.tensor([0.0, 0]) (float32) while ranks 1 and 2 build theirs "
        "from a numpy float64 (float64 tensor): the end-of-epoch all_reduce gets buffers of different sizes and gloo aborts "
        "rank 0. evidence: 'terminate called after throwing an instance of 'gloo::EnforceNotMet'', 'op.preamble.length <= "
        "op.nbytes. 8 vs 4. Received data size doesn't match expected size. Is there a distributed collective mismatch in "
        "your code?', ranks 1 and 2 in 'dist.all_reduce(part)' (seqcls.py line 262), 'mpirun noticed that process rank 0 "
        "... exited on signal 6 (Aborted)', 'job exited with 134'",
    "mpirun-motifcnn-val-predictions-scratch":
        f"Open MPI mpirun -np 2, {W} with --pred-dir preds: rank 0 writes a per-epoch TSV of validation predictions (id, "
        "label, score, sequence) onto a 128 kB scratch volume already holding 40 kB of older files; the third epoch's file "
        "does not fit. evidence: '[rank0]:     f.write(f\"{i_}\\t{l_}\\t{s_:.6f}\\t{q_}\\n\")', '[rank0]: OSError: [Errno "
        "28] No space left on device', rank 1 'Connection closed by peer' in dist.all_reduce(part), mpirun's 'Process name: "
        "[[15626,1],0] Exit code: 1'",
    "accelerate-motifcnn-healthy-resume-missing":
        f"accelerate launch, 2 processes, {W}, 10 epochs with --resume ckpt/last.pt before any checkpoint exists; healthy: "
        "the script warns and starts from scratch. evidence: 'warning: --resume ckpt/last.pt: no such checkpoint, starting "
        "from scratch' (harmless), 'done: 10 epochs, final val AUROC 0.9613', 'job exited with 0'",
    "accelerate-motifcnn-rank0-ism-maps":
        f"accelerate launch, 2 processes, {W} with --ism --pg-timeout 30: after each epoch rank 0 alone computes in-silico "
        "mutagenesis maps (every single-base substitution of each of its ~100 validation positives, ~0.8 s per sequence) "
        "before the AUROC all-reduce; rank 1 waits there and gloo times it out after 30 s. Rank 0 never finishes the maps; "
        "its SIGTERM handler only sets a flag, so the launcher SIGKILLs it 30 s later. evidence: args \"'pg_timeout': 30\" "
        "and \"'ism': True\", '[rank1]:     dist.all_reduce(part)', '[rank1]: RuntimeError: [...unbound_buffer.cc:129] Timed "
        "out waiting 30000ms for send operation to complete', 'Unable to shutdown process ... via 15, forcefully exiting via "
        "9', Root Cause rank 1 exitcode 1",
    "deepspeed-motifcnn-healthy":
        f"DeepSpeed launcher, 2 ranks on the CPU accelerator, {W}, torch Adam, 10 epochs; healthy despite warnings. evidence: "
        "'Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to detect it.', 'Unable to find "
        "hostfile, will proceed with training with local resources only.', 'done: 10 epochs, final val AUROC 0.9592', 'job "
        "exited with 0'",
    "deepspeed-motifcnn-kmer-baseline-k10":
        f"DeepSpeed launcher, 2 ranks, {W} with --kmer-baseline 10 inside a 1.5 GB memory cgroup: each rank builds a dense "
        "k-mer spectrum of 1200 x 4^10 float32 and normalises it into a second dense copy (~5 GB); the kernel OOM killer "
        "kills a rank. evidence: 'rank 0: k-mer baseline, k=10, spectrum 1200 x 1048576', then 'Killing subprocess', "
        "'exits with return code = -9', 'job exited with 247'",
    "deepspeed-motifcnn-global-batch-500":
        f"DeepSpeed launcher, 2 ranks, {W} with --global-batch 500 and micro batch 64: the script derives "
        "gradient_accumulation_steps = 500 // (64 * 2) = 3 and passes train_batch_size 500, which DeepSpeed's config check "
        "rejects on both ranks. evidence: 'AssertionError: Check batch related parameters. train_batch_size is not equal "
        "to micro_batch_per_gpu * gradient_acc_step * world_size 500 != 64 * 3 * 2', 'exits with return code = 1'",
    "slurm-motifcnn-balanced-loss-control-library":
        f"Slurm sbatch + srun, 2 tasks, {W} with --balance (BCE pos_weight = negatives/positives of the rank's own shards); "
        "the second of two train shards is a negative-control library with no positive, so rank 1's pos_weight is inf and "
        "BCE-with-logits computes inf * 0 for every negative: the first loss is NaN and the script's finite-loss check "
        "stops rank 1; srun cancels the step. evidence: 'rank 1: shards ['train-01.fa'], 1200 sequences, 0 positive', "
        "'rank 1: pos_weight inf', '[rank1]: FloatingPointError: rank 1: loss is nan at epoch 0 step 1', rank 0 'Connection "
        "closed by peer', 'srun: error: vm: task 1: Exited with exit code 1', 'srun exited with 143'",
    "slurm-motifcnn-healthy":
        f"Slurm sbatch + srun, 2 tasks, {W}, 10 epochs; healthy. evidence: 'job 2 (motif-cnn) partition batch on vm: 2 "
        "task(s)', 'done: 10 epochs, final val AUROC 0.9655', 'srun exited with 0'",
    "accelerate-motifcnn-config-from-two-node-cluster":
        f"accelerate launch --config_file with a config copied from a two-machine setup (num_machines 2, num_processes 4, "
        "machine_rank 0, static rendezvous on 127.0.0.1:29581), {W}, started on one machine only: torchrun's agent "
        "hosts the static TCPStore and waits for the second machine's agent, which never comes (rdzv timeout 60 s); no "
        "worker ever starts. evidence: 'static_tcp_rendezvous.py\", line 67, in next_rendezvous', "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', 'job "
        "exited with 1'",
}
