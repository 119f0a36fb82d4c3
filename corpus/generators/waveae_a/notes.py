"""What each committed wave AE (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "tagger.py (protein secondary-structure Q3 tagger: residue embeddings, dilated Conv1d blocks, BiLSTM, per-residue " \
    "cross-entropy over synthetic amino-acid sequences, gloo)"
NOTES = {
    "torchrun-ss3-healthy":
        f"torchrun, 2 ranks, {W}, 5 epochs; healthy: val Q3 rises to 0.859, checkpoint every epoch; each rank warns "
        "that 5 validation proteins hold an unknown residue X (harmless). evidence: 'UserWarning: 5 validation proteins "
        "contain unknown residues (X)', 'eval epoch 4: train loss 0.3134 val Q3 0.859 (21699 residues)', 'done: 5 "
        "epochs', 'job exited with 0'",
    "torchrun-ss3-uniprot-refresh-selenoproteins":
        f"torchrun, 2 ranks, {W}; a refreshed training shard train-01.ss3 contains three selenoproteins with the "
        "residue U (selenocysteine), which the 20-letter+X vocabulary lacks; rank 1's Dataset raises KeyError in its "
        "first batch holding one, rank 0 then loses its peer in DDP's buffer broadcast. evidence: '[rank1]:   File "
        "\"/tmp/waveae-a-job/run/tagger.py\", line 64, in __getitem__', 'x = torch.tensor([VOCAB[c] for c in s])', "
        "\"[rank1]: KeyError: 'U'\", rank 0's 'Connection closed by peer', torchrun's root cause 'rank : 1 (local_rank: "
        "1) exitcode : 1', 'job exited with 1'",
    "torchrun-ss3-receptive-field-from-longest-protein":
        f"torchrun, 2 ranks, {W} with --auto-depth: each rank picks the number of dilated conv blocks from the longest "
        "protein in its own shard; rank 1's shard holds proteins up to 893 residues, so rank 1 builds 7 blocks while "
        "rank 0 builds 5, and DDP's construction-time parameter check fails on both ranks. evidence: 'rank 0: auto depth "
        "5 dilated blocks', 'rank 1: auto depth 7 dilated blocks', \"rank 1: shards ['train-01.ss3'], 384 proteins, "
        "171911 residues, length 40-893\", 'RuntimeError: DDP expects same model across all ranks, but Rank 0 has 33 "
        "params, while rank 1 has inconsistent 41 params.', 'job exited with 1'",
    "torchrun-ss3-wrapper-walltime":
        f"torchrun, 2 ranks, {W}, --epochs 20, run by a batch wrapper under `timeout 45` (a wall-clock limit): after 45 s "
        "coreutils timeout sends SIGTERM to the launcher and its process group; the ranks' handler checkpoints and exits, "
        "torchrun raises SignalException and the wrapper returns 124. evidence: 'torch/distributed/elastic/agent/server/"
        "api.py:753] Received 15 death signal, shutting down workers', 'rank 0: received SIGTERM, will checkpoint and exit "
        "after this step', 'SignalException: Process ... got signal: 15', 'job exited with 124'",
    "mpirun-ss3-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, 3 shards of 256 proteins, 5 epochs; healthy (start-up lines and the harmless "
        "unknown-residue warnings of the three ranks interleave). evidence: \"rank 2: shards ['train-02.ss3'], 256 "
        "proteins\", 'eval epoch 4: train loss 0.3215 val Q3 0.861 (21699 residues)', 'done: 5 epochs', 'job exited with 0'",
    "mpirun-ss3-position-feature-fragment-records":
        f"Open MPI mpirun -np 2, {W} with --pos-feature (relative position log1p(i)/log(L)); training shard 00 holds six "
        "single-residue fragment records (L = 1, log L = 0), so the feature is 0/0 = NaN for them, the loss is NaN from "
        "the first logged step, the all-reduced gradients poison every weight and the run goes on uselessly to exit 0 "
        "(val Q3 stuck at 0.467, the majority class). evidence: \"'pos_feature': True\" in the args line, \"rank 0: shards "
        "['train-00.ss3'], 384 proteins, 50016 residues, length 1-220\", 'epoch 0 step 4 loss nan', 'eval epoch 0: train "
        "loss nan val Q3 0.467', every later step 'loss nan', 'done: 3 epochs', 'job exited with 0'",
    "mpirun-ss3-probability-dump-scratch":
        f"Open MPI mpirun -np 2, {W} with --dump-probs scratch/probs: rank 0 writes per-residue H/E/C probabilities for "
        "its validation slice after each epoch onto a 512 kB scratch volume already holding ~200 kB; the first dump does "
        "not fit. evidence: '[rank0]:     dump.write(f\"{pid}\\t{p}...', '[rank0]: OSError: [Errno 28] No space left on "
        "device', rank 1's 'Connection closed by peer' in all_reduce (symptom), mpirun's 'Process name: [[...,1],0] Exit "
        "code: 1', 'job exited with 1'",
    "mpirun-ss3-node-local-staging":
        f"Open MPI mpirun -np 2, {W} with --stage-to (each rank copies its shards to a node-local cache under an O_EXCL "
        "lock file before init_process_group) and a 45 s process-group timeout; a lock file left by an earlier, killed "
        "staging job (pid 21377) still sits on train-01, so rank 1 never gets past staging while rank 0 waits in the "
        "rendezvous store for its second client. evidence: 'rank 0: staged 1 shards to /tmp/waveae-a-job/cache', 'rank 1: "
        "waiting for /tmp/waveae-a-job/cache/train-01.ss3.lock (held by pid 21377)' (twice, 30 s apart), "
        "'torch.distributed.DistStoreError: Timed out after 46 seconds waiting for clients. 1/2 clients joined.', "
        "'job exited with 1'",
    "accelerate-ss3-healthy-resume-old-checkpoint":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo), {W}, --resume from a ckpt/last.pt written by an "
        "earlier 2-block model (epoch 1): both ranks warn the checkpoint does not match (6 missing keys) and load what "
        "matched, then train epochs 2-4 normally; alarming-looking but harmless. evidence: 'UserWarning: rank 0: "
        "ckpt/last.pt does not match the model (missing 6, unexpected 0 keys); loaded what matched', 'rank 0: resumed from "
        "ckpt/last.pt (epoch 1)', 'eval epoch 4: train loss 0.3391 val Q3 0.861', 'done: 5 epochs', 'job exited with 0'",
    "accelerate-ss3-rank0-homology-filter":
        f"accelerate launch, 2 ranks, {W} with --homology-filter 0.4 and a 20 s process-group timeout: after epoch 0 "
        "rank 0 alone aligns all 160 validation proteins against 48 training proteins with a pure-Python Smith-Waterman "
        "(40 s) while rank 1 already waits in the validation all_reduce; gloo times it out, and rank 0 then finds its "
        "peer gone. evidence: 'rank 0: homology filter: aligning 160 validation proteins against 384 training proteins', "
        "'[rank1]: RuntimeError: [...gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 20000ms for send "
        "operation to complete' (in dist.all_reduce), 'rank 0: homology filter kept 160 validation proteins (40 s)', "
        "rank 0's 'Connection closed by peer', root cause 'rank : 1 ... exitcode : 1', 'job exited with 1'",
    "deepspeed-ss3-healthy":
        f"DeepSpeed launcher --num_gpus 2 on CPU (gloo, torch Adam, ZeRO stage 0, gradient clipping 1.0), {W}, 5 epochs; "
        "healthy: CPU-accelerator warnings, shm comm op build lines and unknown-residue warnings are harmless. evidence: "
        "'Setting accelerator to CPU', 'eval epoch 4: train loss 0.3135 val Q3 0.859', 'done: 5 epochs', 'Process ... "
        "exits successfully.', 'job exited with 0'",
    "deepspeed-ss3-pair-features":
        f"DeepSpeed launcher, 2 ranks, {W} with --pair-features 32: each rank's Dataset precomputes L x L x 32 float32 "
        "outer-product pair features for all its 384 proteins (~0.8 GB per rank) inside a 1.4 GB memory cgroup; the "
        "kernel OOM killer kills rank 1 while the features are being built (before any 'pair features ... MiB' line), and "
        "the launcher kills the rest. evidence: \"'pair_features': 32\" in the args line, '[launch.py:253:sigkill_handler] "
        "Killing subprocess', \"['...python3', '-u', 'tagger.py', '--local_rank=1', '--deepspeed', '--pair-features', "
        "'32', '--epochs', '3'] exits with return code = -9\", 'job exited with 247'",
}
NOTES.update({
    "torchrun-ss3-profile-loader-workers-container-shm":
        f"torchrun, 2 ranks, {W} with --profile (20 PSSM-like channels per residue), proteins up to 400 residues, batch "
        "48 and --num-workers 2, in a container whose /dev/shm is 2 MB: every DataLoader worker fails to put its batch in "
        "shared memory (the error is printed by the workers' queue feeder threads, so the ranks just wait for data), "
        "the job stalls before its first step and the user stops it with Ctrl-C after two minutes. evidence: "
        "'multiprocessing/queues.py\", line 244, in _feed', 'torch/storage.py\", line 527, in _share_fd_cpu_', "
        "'RuntimeError: unable to allocate shared memory(shm) for file </torch_2818_2699009989_2>: No space left on "
        "device (28)' (eight times, from all four workers), no 'epoch 0 step' line, then 'Received 2 death signal, "
        "shutting down workers', both ranks' KeyboardInterrupt in dataloader.py _try_get_data, 'job exited with 1'",
    "mpirun-ss3-master-port-file-browser":
        f"Open MPI mpirun -np 2, {W}, MASTER_PORT=29731 while a `python -m http.server 29731` the user started earlier on "
        "the node to browse prediction files still listens there; rank 0's rendezvous store cannot bind. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: "
        "29731, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', mpirun's 'Primary job "
        "terminated normally, but 1 process returned a non-zero exit code', 'job exited with 1'",
})
