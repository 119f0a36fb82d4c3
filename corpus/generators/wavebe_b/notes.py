"""Manifest notes for wave BE (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch DDP (torch 2.13.0+cpu), 2 tasks over gloo on CPU, submitted to a real single-node Slurm 22.05.8 "
     "cluster with 'sbatch job.sh --epochs 3 --batch-size 64 --micro-batch 32 --workers 1 --step-delay 0.1' "
     "(job.sh: #SBATCH --ntasks=2 --time=00:10:00 --output=slurm-%j.out, MASTER_ADDR from scontrol show hostnames, "
     "'srun python train.py ...'; rank/world from SLURM_PROCID/SLURM_NTASKS; logging on every rank, "
     "DistributedSampler, torch.save each epoch on rank 0); the log is the sbatch output file; a genomics team's "
     "1D-CNN promoter classifier on synthetic 200 bp DNA sequences")
NOTES = {
    "promoter-healthy": (
        f"no_failure: {W}; 3 epochs, loss every 4 steps on both ranks, validation and a checkpoint per epoch, exit 0. "
        "evidence: '2026-12-01 20:21:37,730 [rank0] INFO promoter: saved checkpoint checkpoints/epoch_003.pt', "
        "'2026-12-01 20:21:37,735 [rank0] INFO promoter: training complete', 'job exited with 0'"),
    "promoter-healthy-staging-step": (
        f"no_failure: {W}, with job_staged.sh: the batch script first stages the data export in its own step "
        "(srun --ntasks=1 --cpus-per-task=2 ... &) and then starts the training step, which Slurm holds until the "
        "staging step frees the CPUs (srun's own retry); training then runs 3 epochs, exit 0. evidence: "
        "'srun: Job 6 step creation temporarily disabled, retrying (Requested nodes are busy)', "
        "'srun: Step created for job 6', '2026-12-01 20:22:08,283 [rank0] INFO promoter: training complete', "
        "'job exited with 0'"),
    "promoter-healthy-resume": (
        f"no_failure: {W}, '--resume auto'; after an earlier 2-epoch job (not in this log) both ranks load "
        "checkpoints/epoch_002.pt and train epoch 3 only, exit 0. evidence: '2026-12-01 20:23:15,737 [rank0] INFO "
        "promoter: resumed from checkpoints/epoch_002.pt (epoch 2)', '2026-12-01 20:23:21,223 [rank0] INFO promoter: "
        "training complete', 'job exited with 0'"),
    "promoter-healthy-dashboard-down": (
        f"no_failure: {W}, '--metrics-url http://127.0.0.1:29762/push' with nothing listening: rank 0 logs an ERROR "
        "each epoch when the metrics push is refused and carries on; 3 epochs, exit 0. evidence: '2026-12-01 "
        "20:23:46,655 [rank0] ERROR promoter: could not push metrics to http://127.0.0.1:29762/push: <urlopen error "
        "[Errno 111] Connection refused>', '2026-12-01 20:23:56,446 [rank0] INFO promoter: training complete', "
        "'job exited with 0'"),
    "promoter-wide-oom": (
        f"host_oom_killed: {W}, '--width 1024 --batch-size 128 --micro-batch 64' (16x wider net); once both tasks "
        "have initialised they are moved into a 300 MB cgroup-v1 memory limit (the node's memory as Slurm would "
        "confine it); the kernel's memcg OOM killer kills them in the first step (dmesg: 'Memory cgroup out of "
        "memory: Killed process'), srun reports both tasks Killed before any loss line. evidence: "
        "'srun: error: vm: tasks 0-1: Killed', 'job exited with 137'"),
    "promoter-rank-killed": (
        f"host_oom_killed: {W}; rank 1's python process is sent SIGKILL (as the OOM killer does) at the first "
        "loss line of epoch 2; srun reports task 1 Killed, rank 0 then fails in backward with a gloo 'Connection "
        "reset by peer'. evidence: 'srun: error: vm: task 1: Killed', '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:64686: "
        "Connection reset by peer. This is typically caused by a remote worker hanging or bugs in the application. "
        "Check the logs of the remote worker before reporting an error. GLHF! \U0001f3d6\ufe0f', 'srun: error: vm: task 0: "
        "Exited with exit code 1', 'job exited with 137'"),
    "promoter-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 64 KB tmpfs: rank 0's first torch.save at the end of epoch 1 fills it "
        "and fails inside torch's zip writer (no errno text in the message), rank 1 then sees the connection close "
        "at the barrier. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: "
        "RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 14848 vs 14736', 'srun: error: "
        "vm: task 0: Exited with exit code 1', 'job exited with 1'"),
    "promoter-nan-qc": (
        f"training_divergence: {W}; the data export wrote 3 training rows with a missing QC weight as 'nan'; the "
        "weighted loss is NaN from the first logged step and stays NaN; nothing checks it, the job trains 3 epochs "
        "uselessly and exits 0. evidence: '2026-12-01 20:25:37,407 [rank0] INFO promoter: epoch 1/3 step 4/16 loss "
        "nan lr 1.00e-03', '2026-12-01 20:25:49,689 [rank0] INFO promoter: training complete', 'job exited with 0'"),
    "promoter-rank-stopped": (
        f"collective_timeout: {W}, '--epochs 5 --pg-timeout 20'; rank 1 is SIGSTOPped at the first loss line of "
        "epoch 2; 20 s later rank 0's gloo allreduce in backward times out and rank 0 exits 1; srun (no "
        "KillOnBadExit) keeps waiting on the stopped task until the user scancels the job. evidence: '[rank0]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
        "waiting 20000ms for recv operation to complete', 'srun: error: vm: task 0: Exited with exit code 1', "
        "'slurmstepd-vm: error: *** JOB 14 ON vm CANCELLED AT 2026-12-01T20:26:59 ***', 'job exited with 143'"),
    "promoter-scancel": (
        f"job_preempted: {W}, '--epochs 5'; the job is cancelled with scancel at the first loss line of epoch 2 "
        "(as an admin or preemption does); slurmstepd reports the cancellation and srun the terminated tasks. "
        "evidence: 'slurmstepd-vm: error: *** JOB 15 ON vm CANCELLED AT 2026-12-01T20:27:23 ***', 'srun: error: vm: "
        "task 1: Terminated', 'job exited with 143'"),
    "promoter-time-limit": (
        f"job_preempted: {W}, 'sbatch --time=1 ... --epochs 40' (a 40-epoch run in a 1-minute allocation); Slurm "
        "ends the job at its time limit in epoch 8. evidence: 'slurmstepd-vm: error: *** JOB 16 ON vm CANCELLED AT "
        "2026-12-01T20:28:34 DUE TO TIME LIMIT ***', 'srun: error: vm: task 1: Terminated', 'job exited with 143'"),
    "promoter-port-held": (
        f"port_in_use: {W}; MASTER_PORT 29764 is already held by a python http.server on the node; rank 0 cannot "
        "start the TCPStore and exits 1, rank 1 stays blocked connecting to the wrong server until the user "
        "scancels the job. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on "
        "any local network address. port: 29764, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
        "already in use', 'srun: error: vm: task 0: Exited with exit code 1', 'slurmstepd-vm: error: *** JOB 17 ON "
        "vm CANCELLED AT 2026-12-01T20:29:30 ***', 'job exited with 143'"),
    "promoter-batch-mismatch": (
        f"batch_size_mismatch: {W}, '--batch-size 128' with '--micro-batch 32' on 2 tasks; the script's global-batch "
        "check raises on both ranks before init. evidence: 'ValueError: --batch-size 128 must equal --micro-batch 32 "
        "x world size 2', 'srun: error: vm: task 0: Exited with exit code 1', 'job exited with 1'"),
    "promoter-label-column": (
        f"worker_exception: {W}; the data export renamed the TSV's 'label' column to 'is_promoter'; both ranks "
        "raise KeyError in the dataset constructor right after init. evidence: '[rank0]:   File "
        "\"/tmp/wavebe-b-job/run/train.py\", line 46, in __init__', '[rank0]:     self.y = np.array([int(r[\"label\"]) "
        "for r in rows])', \"[rank0]: KeyError: 'label'\", 'srun: error: vm: tasks 0-1: Exited with exit code 1', "
        "'job exited with 1'"),
    "promoter-lr-typo": (
        f"worker_exception: {W}, with a typo in the submission line ('--lr 1e-3,'); argparse rejects the value on "
        "both tasks, which exit 2 before init. evidence: \"train.py: error: argument --lr: invalid float value: "
        "'1e-3,'\", 'srun: error: vm: task 1: Exited with exit code 2', 'job exited with 2'"),
    "promoter-reference-fasta": (
        f"library_version_mismatch: {W}, '--reference hg38.fa', which imports pyfaidx; the package is not installed "
        "in the job's environment, both tasks fail at import before init (a missing dependency rather than a "
        "version pair). evidence: '    import pyfaidx  # noqa: F401', \"ModuleNotFoundError: No module named "
        "'pyfaidx'\", 'srun: error: vm: task 0: Exited with exit code 1', 'job exited with 1'"),
    "promoter-auprc-rank0": (
        f"collective_mismatch: {W}, '--auprc-all-ranks --pg-timeout 30': the debug all_gather of validation scores "
        "sits inside the rank-0-only block, so after epoch 1 rank 0 is in all_gather while rank 1 is in the epoch-end "
        "barrier; neither completes, both time out after 30 s (gloo reports only the timeouts). evidence: "
        "'[rank0]:     dist.all_gather(gathered, local)', '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 30000ms "
        "for send operation to complete', '[rank1]:     dist.barrier()', '[rank1]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms "
        "for recv operation to complete', 'job exited with 1'"),
    "promoter-seqs-rewritten": (
        f"native_crash: {W}, '--epochs 4'; at the first loss line of epoch 2 the nightly export rewrites "
        "data/train_seqs.npy in place (truncated to 4 KB) while the DataLoader workers have it memory-mapped; both "
        "ranks' workers die of SIGBUS reading the vanished pages (PyTorch's message guesses shared memory, but "
        "/dev/shm was not involved). evidence: 'ERROR: Unexpected bus error encountered in worker. This might be "
        "caused by insufficient shared memory (shm).', \"[rank0]: RuntimeError: DataLoader worker (pid 31530) is "
        "killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try "
        "to raise your shared memory limit.\", 'srun: error: vm: task 0: Exited with exit code 1', "
        "'job exited with 1'"),
    "promoter-stopped-quiet": (
        f"silent_hang: {W}, 'sbatch --time=1 ... --epochs 40' with the default 1800 s process-group timeout; rank 1 "
        "is SIGSTOPped at the first loss line of epoch 2; both ranks stop printing (rank 0 blocks in the allreduce, "
        "no timeout fires) and the job sits silent for about a minute until Slurm ends it at its time limit. "
        "evidence: '2026-12-01 20:31:57,147 [rank1] INFO promoter: epoch 2/40 step 4/16 loss 0.5484 lr 1.00e-03', "
        "'slurmstepd-vm: error: *** JOB 25 ON vm CANCELLED AT 2026-12-01T20:33:04 DUE TO TIME LIMIT ***', "
        "'srun: error: vm: tasks 0-1: Terminated', 'job exited with 143'"),
    "promoter-world-size-leftover": (
        f"rendezvous_timeout: {W}, '--batch-size 128 --pg-timeout 30' submitted with WORLD_SIZE=4 left in the "
        "environment from a 4-task job (train.py prefers WORLD_SIZE over SLURM_NTASKS); only the 2 Slurm tasks "
        "exist, so rank 0's TCP store waits for 4 clients and init times out on both ranks. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 2/4 clients joined.', "
        "'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/0', "
        "'srun: error: vm: task 0: Exited with exit code 1', 'job exited with 1'"),
    "promoter-srun-terminal-closed": (
        "terminal_hangup: the same training (PyTorch DDP, torch 2.13.0+cpu, gloo on CPU, 2 Slurm tasks) started "
        "interactively from a terminal instead of sbatch: 'export MASTER_ADDR=$(hostname) MASTER_PORT=29767; srun "
        "--ntasks=2 --time=10 python train.py --data-dir data --epochs 5 ...'; the log is the terminal's console. "
        "At the first loss line of epoch 2 the terminal's session gets SIGHUP (the SSH session closes): the shell "
        "dies (no exit line) and srun, hung up, tears the step down; the log never names the signal. evidence: "
        "'2026-12-01 20:35:18,116 [rank0] INFO promoter: epoch 2/5 step 4/16 loss 0.5540 lr 1.00e-03', 'srun: forcing "
        "job termination', 'slurmstepd-vm: error: *** STEP 27.0 ON vm CANCELLED AT 2026-12-01T20:35:18 ***', "
        "'srun: error: vm: tasks 0-1: Killed'"),
}
