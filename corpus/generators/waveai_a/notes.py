"""What each committed wave AI (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "sasrec.py (SASRec-style sequential recommender: item + positional embeddings, 2 causal transformer blocks, " \
    "next-item prediction with sampled negatives over synthetic user sessions with Zipf item popularity; validation " \
    "HR@10/NDCG@10 all-reduced; rank-0 checkpoints; gloo)"
NOTES = {
    # --- torchrun
    "torchrun-sasrec-healthy-loader-workers":
        f"torchrun, 2 ranks, {W}, --workers 3 on a 2-CPU host: every rank's DataLoader warns at each epoch that 3 "
        "workers exceed the suggested maximum, plus the TransformerEncoder nested-tensor warning; training finishes "
        "normally. evidence: 'UserWarning: This DataLoader will create 3 worker processes in total. Our suggested max "
        "number of worker in current system is 2', 'UserWarning: enable_nested_tensor is True, but "
        "self.use_nested_tensor is False because encoder_layer.norm_first was True', 'done: 6 epochs, best HR@10 "
        "0.5391', 'job exited with 0'",
    "torchrun-sasrec-market-local-negatives":
        f"torchrun, 2 ranks, {W}, --loss ssm --neg-sampler pop --neg-pool local --negatives 128: shared negatives are "
        "drawn without replacement from each rank's own market popularity; shard 1 comes from a new market whose users "
        "only interacted with 60 items, so numpy's choice() cannot draw 128 distinct items and rank 1 raises ValueError "
        "at its first step; rank 0 then loses its peer and torchrun stops it. evidence: \"rank 1: shards "
        "['items-01.npy'], 320 users, 10876 events, 60 distinct items\", '[rank1]: ValueError: Fewer non-zero entries "
        "in p than size', rank 0's 'Connection closed by peer', torchrun Root Cause 'rank : 1 (local_rank: 1) exitcode "
        ": 1', 'job exited with 1'",
    "torchrun-sasrec-two-nodes-master-port":
        f"two torchrun 'nodes' on one host (--nnodes 2 --nproc-per-node 1, static rendezvous, --rdzv-conf timeout=45), "
        f"{W}; the second node was started with --master-port 29850 instead of 29805 (digits swapped), so node 1 keeps "
        "retrying a port nobody listens on and node 0's store waits for a client that never comes; both time out. "
        "evidence: node0.log 'torch.distributed.DistStoreError: Timed out after 46 seconds waiting for clients. 1/2 "
        "clients joined.', node1.log 'TCP client failed to connect/validate to host 127.0.0.1:29850 - retrying', "
        "'torch.distributed.DistNetworkError: The client socket has timed out after 45000ms while trying to connect "
        "to (127.0.0.1, 29850).', 'job exited with 1' on both",
    "torchrun-sasrec-second-node-lost":
        f"two torchrun 'nodes' on one host (--nnodes 2 --nproc-per-node 1, static rendezvous), {W}; during epoch 2 the "
        "second node's launcher and rank were SIGKILLed all at once (the host lost); only node 0's console is kept, "
        "and it shows its rank 0 losing the connection in the next collective. evidence: 'eval epoch 2: ... HR@10 "
        "0.4609', '[rank0]: RuntimeError: [.../gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:13742: "
        "Connection reset by peer', torchrun 'failed (exitcode: 1) local_rank: 0', 'job exited with 1'",
    "torchrun-sasrec-pod-eviction":
        f"torchrun, 2 ranks, {W}, --epochs 40 started in the background of a container's shell; after epoch 2 the "
        "launcher got SIGTERM as a pod eviction sends it (SIGKILL would follow after a 10 s grace period; not needed). "
        "torchrun forwards SIGTERM, both ranks' handlers save last.pt and exit, and torchrun raises SignalException. "
        "evidence: 'Received 15 death signal, shutting down workers', 'Sending process ... closing signal SIGTERM', "
        "'rank 0: received SIGTERM, will checkpoint and exit after this step', 'saved ckpt/last.pt (epoch 7, HR@10 "
        "nan)', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 18364 got signal: 15', "
        "'job exited with 1'",
    # --- Open MPI
    "mpirun-sasrec-healthy-3-ranks-stack-dump":
        f"Open MPI mpirun -np 3 over 3 shards, {W}; after epoch 3 the user sent SIGUSR1 to the ranks to see where "
        "they spend time (faulthandler is registered for it): three 'Current thread' stack dumps appear in the middle "
        "of the log and training goes on to the end. evidence: 'Current thread 0x00007f45edfe3b80 (most recent call "
        "first):', 'File \"/tmp/waveai-a-job/run/sasrec.py\", line 283 in main', 'done: 10 epochs, best HR@10 "
        "0.6172', 'job exited with 0'",
    "mpirun-sasrec-logq-uniform-negatives":
        f"Open MPI mpirun -np 2, {W}, --loss ssm --neg-sampler uniform --logq: the logQ correction subtracts log of "
        "the items' empirical popularity, but negatives are drawn uniformly over the catalog and 1106 of the 3000 "
        "items have no interactions (log 0 = -inf, logits +inf), so the sampled-softmax loss is NaN from the first "
        "steps and the script stops after 10 non-finite steps. evidence: 'catalog coverage: 1894/3000 items with "
        "interactions', 'epoch 0 step 4 loss nan grad-norm nan', 'rank 0: loss not finite for 10 steps (last nan), "
        "stopping', 'Exit code: 3', 'job exited with 3'",
    "mpirun-sasrec-keep-all-checkpoints":
        f"Open MPI mpirun -np 2, {W}, --keep-all: rank 0 writes last.pt, epoch-NN.pt and best.pt (about 2.2 MB each) "
        "every epoch into ckpt/, an 8 MB volume; at epoch 1 it fills and torch.save fails inside its zip writer "
        "(the log never says 'No space left on device'); rank 1 then loses its peer. evidence: 'saved ckpt/last.pt, "
        "ckpt/epoch-00.pt, ckpt/best.pt (epoch 0, ...)', 'eval epoch 1: ...', '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 1324992 vs 1324880', rank 1's 'Connection closed by peer', 'job exited with 1'",
    "mpirun-sasrec-catalog-added-items":
        f"Open MPI mpirun -np 2, {W}; shard 1 holds 400 items added after catalog.json was exported (ids above "
        "n_items = 3000). Each rank counts item popularity with np.bincount(minlength=n_items+1), which returns a "
        "longer array when larger ids occur, so rank 1 all_reduces 3401 counts and rank 0 3001: gloo aborts rank 0 "
        "(SIGABRT) and rank 1's read fails. evidence: \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. 6808 vs 6008. Received data size doesn't match "
        "expected size. Is there a distributed collective mismatch in your code?', 'dist.all_reduce(counts)  # global "
        "item popularity for the negative sampler', 'mpirun noticed that process rank 0 ... exited on signal 6 "
        "(Aborted)', 'job exited with 134'",
    "mpirun-sasrec-team-site-packages":
        f"Open MPI mpirun -np 2 with PYTHONPATH pointing at a team site directory that pins pandas 1.5.3 (compiled "
        f"against NumPy 1.x), {W}, --item-meta data/items.csv: importing pandas under the venv's NumPy 2.4.6 fails "
        "in its compiled extensions on both ranks. evidence: 'numpy 2.4.6' in the args line, 'File "
        "\"/tmp/waveai-a-job/pylib/pandas/_libs/__init__.py\", line 13', '[rank0]: ValueError: numpy.dtype size "
        "changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject', 'Exit code: "
        "1', 'job exited with 1'",
    "mpirun-sasrec-heavy-user-dedup":
        f"Open MPI mpirun -np 2, {W}, --dedup --pg-timeout 20: shard 1 holds one account (a crawler) with 3 million "
        "events, and the Dataset's re-view removal keeps the seen items in a Python list (O(n x distinct)), so rank 1 "
        "spends far more than 20 s building one sample while rank 0 waits in DDP's gradient all-reduce; gloo times "
        "out on rank 0. evidence: \"rank 1: shards ['items-01.npy'], 321 users, 3010013 events\", 'epoch 0 step 4 "
        "loss 5.2166', '[rank0]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting "
        "20000ms for send operation to complete', 'rank 1: received SIGTERM', 'job exited with 1'",
    # --- DeepSpeed
    "deepspeed-sasrec-healthy":
        f"DeepSpeed launcher, 2 ranks on the CPU accelerator, {W}; accelerator and hostfile warnings, training to the "
        "end. evidence: 'Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to detect "
        "it.', 'Unable to find hostfile, will proceed with training with local resources only.', 'done: 6 epochs, "
        "best HR@10 0.5352', 'Process ... exits successfully.', 'job exited with 0'",
    "deepspeed-sasrec-cooc-init-large-catalog":
        f"DeepSpeed launcher, 2 ranks, {W}, --cooc-init on a 24000-item catalog inside a 1.2 GB memory cgroup: each "
        "rank builds a dense (24001 x 24001) float32 item co-occurrence matrix (2.3 GB) to initialise the embeddings, "
        "and the kernel OOM killer SIGKILLs a rank while it is being filled. evidence: 'catalog 24000 items', 'rank 1: "
        "cooc-init: counting item co-occurrences (window 5) over 11084 events', 'Killing subprocess', \"exits with "
        "return code = -9\", 'job exited with 247'",
    "deepspeed-sasrec-orphaned-ranks-port":
        f"DeepSpeed launcher, 2 ranks, {W}: an earlier run of the same job was stopped by kill -9 on its launcher, "
        "which left its two ranks running (still training, rank 0 still holding the store on MASTER_PORT 29845); the "
        "relaunch with the same --master_port cannot bind it. evidence: 'torch.distributed.DistNetworkError: The "
        "server socket has failed to listen on any local network address. port: 29845, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'exits with return code = 1', 'job exited with 1'",
    "deepspeed-sasrec-fast-rank-helper":
        f"DeepSpeed launcher, 2 ranks, {W}, --fast-rank: evaluation ranks candidates with a small C helper "
        "(libtopk.so via ctypes); the wrapper sets argtypes but no restype for ranker_new(), so the returned 64-bit "
        "pointer is truncated to a C int and ranker_rank() dereferences a bad address: both ranks segfault at the "
        "first evaluation. evidence: 'Fatal Python error: Segmentation fault', 'File "
        "\"/tmp/waveai-a-job/run/sasrec.py\", line 241 in evaluate', \"exits with return code = -11\", 'job exited "
        "with 245'",
    # --- accelerate
    "accelerate-sasrec-healthy":
        f"accelerate launch --multi_gpu --num_processes 2 on CPU, {W}; the nested-tensor warning, training to the "
        "end. evidence: 'done: 6 epochs, best HR@10 0.5391', 'job exited with 0'",
    "accelerate-sasrec-compress-old-checkpoints":
        f"accelerate launch, 2 ranks, {W}, --keep-all --compress-old: after saving, rank 0 runs gzip -f on the epoch "
        "checkpoints older than the newest two; after epoch 0 that list is empty, so gzip -f gets no file and reads "
        "its standard input (the launching shell's, which nobody writes to) forever. Rank 1 waits in the next step's "
        "collective under the default 30-minute timeout; nothing is printed for about 70 s until the user presses "
        "Ctrl-C. evidence: '[11:54:07] saved ckpt/last.pt, ckpt/epoch-00.pt, ckpt/best.pt (epoch 0, HR@10 0.4219)' "
        "then silence until 'W1129 11:55:16 ... Received 2 death signal, shutting down workers', rank 0's "
        "KeyboardInterrupt inside subprocess.run called from save(), rank 1's 'Connection closed by peer' in DDP's "
        "forward, 'SignalException: Process 18770 got signal: 2', 'job exited with 1'",
    "accelerate-sasrec-hard-negatives-small-shm":
        f"accelerate launch, 2 ranks, {W}, --hard-negatives 400 --workers 2 in a container whose /dev/shm is 4 MB: "
        "each batch carries 32x30x400 int64 negatives (3 MB) that the DataLoader workers must pass through shared "
        "memory; the first worker batch of each rank cannot be allocated. evidence: '[rank0]: RuntimeError: Caught "
        "RuntimeError in DataLoader worker process 0.', '[rank0]: RuntimeError: unable to allocate shared memory(shm) "
        "for file </torch_18107_2809313229_2>: No space left on device (28)', torchrun 'exitcode : 1' for both ranks, "
        "'job exited with 1'",
}
