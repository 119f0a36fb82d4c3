"""What each committed wave AK (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "ss.py (protein secondary-structure tagger: one-hot amino-acid chains through a Conv1d window of 15 residues, a " \
    "bidirectional GRU and a per-residue H/E/C head; masked cross entropy over padded chains, Q3 accuracy all-reduced; " \
    "rank-0 checkpoints; gloo; synthetic chains whose helix/strand/coil segments draw residues from their propensities)"
NOTES = {
    # --- torchrun
    "torchrun-ss-healthy":
        f"torchrun, 2 ranks, {W}, --composition numpy, 6 epochs: trains to the end; each rank prints torch's GRU "
        "UserWarning about dropout with one layer (harmless). evidence: 'UserWarning: dropout option adds dropout after "
        "all but last recurrent layer, so non-zero dropout expects num_layers greater than 1', 'done: 6 epochs, best Q3 "
        "0.9045', 'job exited with 0'",
    "torchrun-ss-ssh-session":
        f"torchrun, 2 ranks, {W}, 40 epochs started from an interactive terminal as 'torchrun ... > train.log 2>&1' (the "
        "log is that file). The terminal program holding the pseudo-terminal (util-linux script, standing in for the SSH "
        "session) died in epoch 2; the kernel hung up the tty and sent SIGHUP to its foreground process group; torchrun "
        "forwards SIGHUP to the ranks and exits with SignalException. No 'job exited' line: the shell went with the "
        "terminal. evidence: last progress 'epoch 2 step 55 loss 0.2595', 'Received 1 death signal, shutting down "
        "workers', 'Sending process ... closing signal SIGHUP', 'SignalException: Process ... got signal: 1'",
    "torchrun-ss-structure-filter-export":
        f"torchrun, 2 ranks, {W}: rank 1's shard-01 came from an export where the structure filter removed every residue "
        "of one chain (a hetero-atom-only record) but kept its empty record; its batch reaches pack_padded_sequence with "
        "a zero length and rank 1 raises; torchrun stops rank 0. evidence: 'rank 1: shards [...], 301 chains, 44016 "
        "residues, lengths 0-240', \"[rank1]: RuntimeError: Length of all samples has to be greater than 0, but found an "
        "element in 'lengths' that is <= 0\" in SSTagger.forward, rank 0 'Connection closed by peer', Root Cause 'rank : 1 "
        "(local_rank: 1) exitcode : 1', 'job exited with 1'",
    "torchrun-ss-lr-sweep":
        f"two torchrun jobs of {W} started together by a learning-rate sweep loop ('for lr in 1e-3 3e-3; do torchrun "
        "--master-port 29907 ... & done; wait') with the same fixed master port: the second agent cannot bind the store "
        "port and exits at once; the other job (lr 3e-3) trains to the end and the loop's wait returns 0. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: "
        "29907, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', then only lr 3e-3 lines, "
        "'done: 3 epochs, best Q3 0.8967', 'job exited with 0'",
    # --- mpirun
    "mpirun-ss-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, six shards, two of them with non-standard residues (X/U/B/Z) mapped to the unknown "
        "channel with a warning; trains to the end. evidence: 'rank 1: WARNING 56 non-standard residues mapped to X', "
        "'done: 6 epochs, best Q3 0.9001', 'job exited with 0'",
    "mpirun-ss-redundancy-cache":
        f"Open MPI mpirun, 2 ranks, {W}, --redundancy-cache --pg-timeout 30: rank 0 builds the non-redundant chain list "
        "(pairwise difflib identity over 600 chains, minutes of pure Python) BEFORE init_process_group, where it would "
        "host the TCPStore on MASTER_PORT; rank 1 calls init_process_group at once and cannot reach the store within the "
        "30 s timeout (retries, then raises); mpirun aborts the job. evidence: 'rank 0: building redundancy cache over "
        "600 chains (90% identity)', '[c10d] The client socket has timed out after 30000ms while trying to connect to "
        "(127.0.0.1, 29923)', 'TCP client failed to connect/validate to host 127.0.0.1:29923 - timed out (try=1, "
        "timeout=30000ms)', 'torch.distributed.DistNetworkError: The client socket has timed out after 30000ms' from "
        "init_process_group, mpirun 'Process name: [[...],1] Exit code: 1', 'job exited with 1'",
    "mpirun-ss-low-complexity-mask":
        f"Open MPI mpirun, 2 ranks, {W}, --lc-filter --pg-timeout 30: low-complexity stretches are found with a regex "
        "with nested quantifiers, '(?:[QNSG]+[QN]*)+[QNSG]{8}(?=[^QNSG])'; rank 1's shard holds an expression construct "
        "ending in a 26-residue polyglutamine tract, where the lookahead fails at the chain end and the regex "
        "backtracks exponentially (catastrophic backtracking) in rank 1's batch collation. Rank 0 waits in DDP's first "
        "gradient all-reduce and gloo times out after 30 s; rank 1 prints nothing until mpirun's SIGTERM. evidence: no "
        "step line, '[rank0]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for "
        "recv operation to complete', 'rank 1: received SIGTERM, will checkpoint and exit after this step', mpirun "
        "'Process name: [[...],0] Exit code: 1', 'job exited with 1'",
    "mpirun-ss-composition-features":
        f"Open MPI mpirun, 2 ranks, {W}, --composition native: the per-chain amino-acid composition comes from "
        "composition.c (libcomposition.so via ctypes), which indexes its counts with strchr(ALPHABET, residue) - "
        "ALPHABET without a NULL check; rank 1's shard was exported with soft-masked (lower-case) low-complexity regions, "
        "strchr returns NULL and the write lands far outside the stack array: SIGSEGV on rank 1 in its first batch. "
        "evidence: 'Fatal Python error: Segmentation fault', 'File \".../ss.py\", line 177 in comp' / 'in collate', rank 0 "
        "'Connection closed by peer', 'mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 11 "
        "(Segmentation fault).', 'job exited with 139'",
    "mpirun-ss-termini-mask":
        f"Open MPI mpirun, 2 ranks, {W}, --bucket --mask-termini 10: ten residues at each chain end are left out of the "
        "loss, the data now holds short peptides (8-18 residues) and length bucketing puts them together, so a batch of "
        "peptides has an empty loss mask; the masked mean is 0/0 = NaN, the NaN gradients are all-reduced into both "
        "ranks' weights and every later loss is NaN; the script's non-finite check stops rank 1 and mpirun aborts. "
        "evidence: 'lengths 8-240', 'epoch 0 step 5 loss nan q3 0.196 grad-norm nan', 'rank 1: loss not finite for 5 "
        "steps (last nan), stopping', 'job exited with 3'",
    # --- deepspeed
    "deepspeed-ss-healthy":
        f"DeepSpeed launcher, 2 ranks on the CPU accelerator, {W}, ds_config.json (train_batch_size 32 = 16 x 1 x 2), 6 "
        "epochs: finishes; DeepSpeed's accelerator and hostfile warnings only. evidence: 'Setting accelerator to CPU', "
        "'Unable to find hostfile, will proceed with training with local resources only', 'done: 6 epochs, best Q3 "
        "0.9031', 'job exited with 0'",
    "deepspeed-ss-long-chains-config":
        f"DeepSpeed launcher, 2 ranks, {W}, ds_long.json: the micro batch was lowered to 12 for longer chains while "
        "train_batch_size stayed 32 (no gradient_accumulation_steps given); DeepSpeed derives 1 accumulation step and "
        "its batch check fails on both ranks at initialize. evidence: '[rank0]: AssertionError: Check batch related "
        "parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 32 != 12 * 1 "
        "* 2', 'job exited with 1'",
    "deepspeed-ss-engine-checkpoints":
        f"DeepSpeed launcher, 2 ranks, {W}, --ds-checkpoint: every epoch is saved with engine.save_checkpoint under its "
        "own tag into ckpt/, a 2 MB volume; the fourth tag does not fit and torch.save fails on rank 0 (no errno text, "
        "only the stream error), rank 1 then loses its peer. evidence: 'saved DeepSpeed checkpoint ckpt/epoch02', "
        "'[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 446016 vs 445904' in save_checkpoint, '[rank1]: ... Connection closed "
        "by peer', 'job exited with 1'",
    "deepspeed-ss-focal-loss":
        f"DeepSpeed launcher, 2 ranks, {W}, --loss focal imports torchvision.ops.sigmoid_focal_loss; PYTHONPATH points at "
        "a shared site directory holding torchvision 0.20.1 (built for torch 2.5) under torch 2.13.0+cpu, and its "
        "operator registrations fail at import on both ranks. evidence: 'from torchvision.ops import sigmoid_focal_loss', "
        "'File \"/tmp/waveak-a-job/site-packages/torchvision/_meta_registrations.py\"', 'RuntimeError: operator "
        "torchvision::nms does not exist', 'job exited with 1'",
    # --- accelerate
    "accelerate-ss-healthy":
        f"accelerate launch, 2 ranks, {W}, --bucket (length-bucketed batches), 6 epochs: finishes normally. evidence: "
        "GRU dropout UserWarning, 'done: 6 epochs, best Q3 0.9044', 'job exited with 0'",
    "accelerate-ss-global-padding":
        f"accelerate launch, 2 ranks, {W}, --pad global inside a 1.5 GB cgroup-v1 memory limit: every chain is padded to "
        "the dataset's longest and one-hot encoded up front; rank 1's shard holds a titin-like chain of 34350 residues, "
        "so both ranks build ~300 x 34350 x 21 float64 arrays and the kernel OOM killer SIGKILLs rank 0. evidence: "
        "'rank 1: shards [...], 301 chains, 78819 residues, lengths 60-34350', 'rank 0: padding every chain to 34350 "
        "residues', 'failed (exitcode: -9) local_rank: 0', Root Cause 'exitcode : -9 (pid: ...) (SIGKILL)', 'job exited "
        "with 1'",
    "accelerate-ss-pod-eviction":
        f"accelerate launch, 2 ranks, {W}, 40 epochs: the pod is deleted in epoch 2 and SIGTERM goes to its main "
        "process, the accelerate launcher; it forwards SIGTERM to the ranks, whose handler makes rank 0 write "
        "ckpt/last.pt, both exit, and the launcher ends in SignalException. evidence: 'Received 15 death signal, "
        "shutting down workers', 'rank 0: received SIGTERM, will checkpoint and exit after this step', 'saved "
        "ckpt/last.pt (epoch 2, Q3 nan)', 'SignalException: Process ... got signal: 15', 'job exited with 1'",
    "accelerate-ss-dssp-export":
        f"accelerate launch, 2 ranks, {W}: rank 1's shard-01 came from an export with 8-state DSSP strings (G, I, B, T, S "
        "besides H, E, C); labels are encoded with 'HEC'.find(c), which returns -1 for the new letters, and cross "
        "entropy rejects the target on rank 1's first batch. evidence: '[rank1]: IndexError: Target -1 is out of "
        "bounds.' in criterion, rank 0 'Connection closed by peer', 'failed (exitcode: 1) local_rank: 1', 'job exited "
        "with 1'",
}
