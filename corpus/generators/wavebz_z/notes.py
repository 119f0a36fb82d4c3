"""Manifest notes for wave BZ (z)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face datasets 5.2.0 (pyarrow 26.0.1) as the data path of the team's own script 'ticket-intent' "
     "(project/train.py: a bag-of-embeddings intent classifier, plain DistributedDataParallel, gloo, CPU, torch "
     "2.13.0+cpu, Python 3.11.7) on a generated local corpus of 4800 support tickets in 8 JSON Lines shards: every rank "
     "runs load_dataset('json', data_files=..., features=Features(id, text, label=ClassLabel(4)), cache_dir='hf-cache'), "
     "datasets.distributed.split_dataset_by_node, .map(tokenize) ('Tokenizing (rank N)' progress bars), "
     ".with_format('torch'), a DataLoader (1 worker) and SGD, 'epoch N step S loss X' every 25 steps, 'epoch N done: "
     "mean train loss ...' and 'saved checkpoint ckpt/last.pt' per epoch; launched on two hosts (network namespaces "
     "ds-node-a 10.105.0.11 and ds-node-b 10.105.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m "
     "torch.distributed.run --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.105.0.11', both nodes' output "
     "in one console (ranks 0-1 on ds-node-a, 2-3 on ds-node-b)")
S = " In streaming mode (load_dataset(..., streaming=True) -> IterableDataset, split by file shard, lazy .map run in the DataLoader worker)."
W3 = W.replace("on two hosts", "on three hosts").replace(
    "ds-node-b 10.105.0.12, one bridge", "ds-node-b 10.105.0.12, ds-node-c 10.105.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'").replace(
    "(ranks 0-1 on ds-node-a, 2-3 on ds-node-b)", "(6 ranks, two per host)")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; map-style with .map(num_proc=2), 4 epochs, nothing injected. evidence: "
                      "'Generating train split: 4800 examples', '[rank3@ds-node-b] shard: 1200 examples of 4800', "
                      "'Tokenizing (rank 3) (num_proc=2): 100%', 'epoch 3 done: mean train loss 0.0170 over 300 "
                      "batches', 'training finished', 'job exited with 0'; the only warnings are c10d's 'The hostname "
                      "of the client socket cannot be retrieved. err=-3'",
    "healthy-3nodes": f"no_failure: {W3}; the Parquet copy of the corpus loaded with streaming=True (IterableDataset; 8 "
                      "files over 6 ranks, so split_dataset_by_node splits by example), 4 epochs, nothing injected. "
                      "evidence: '[rank4@ds-node-c] streaming shard: 8 file shards', 'epoch 3 done: mean train loss "
                      "0.0274 over 300 batches', 'training finished', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job trained 3 epochs and saved "
                      "ckpt/last.pt (the hf-cache from it is reused); the logged job runs with --resume and trains "
                      "epochs 3-5. evidence: '[rank1] resumed from ckpt/last.pt (epoch 2, step 225)' (all four "
                      "ranks), 'epoch 5 done: mean train loss 0.0103 over 300 batches', 'training finished', 'job "
                      "exited with 0'",
    "healthy-late-node": f"no_failure: {W}, streaming mode, with the c10d rendezvous ('--rdzv-backend c10d "
                         "--rdzv-endpoint 10.105.0.11:30064 --rdzv-conf join_timeout=40'); ds-node-b's launcher starts "
                         "20 s after ds-node-a's (a slow node), within the join timeout, and the run trains to the "
                         "end. evidence: '[rank2@ds-node-b] streaming shard: 2 file shards', 'epoch 3 done: mean train "
                         "loss 0.0170 over 300 batches', 'training finished', 'job exited with 0'",
    "bad-label-row": f"worker_exception: {W}.{S} Injected: one record of the last shard file (train-00007.jsonl, id "
                     "4400, read by global rank 3) has its label written as the string \"app\" instead of an integer; "
                     "datasets' ClassLabel.cast_storage (json builder _cast_table -> table_cast) rejects it mid-epoch 0 "
                     "inside rank 3's DataLoader worker, rank 3 dies and the others lose the DDP allreduce. evidence: "
                     "'[rank3]: ValueError: Caught ValueError in DataLoader worker process 0.', 'datasets/features/"
                     "features.py\", line 1168, in _strval2int', '[rank3]: ValueError: Invalid string class label "
                     "\"app\"', then '[rank0]: RuntimeError: [...gloo/transport/tcp/pair.cc:553] Connection closed by "
                     "peer [10.105.0.12]:17572', 'job exited with 1'",
    "map-leak-rank3": f"host_oom_killed: {W}; the whole job under a 2.5 GB cgroup-v1 memory limit. Injected: the team's "
                      "data_hooks.on_example (called from the .map tokenize function) keeps a ~3 MB 'debug snapshot' "
                      "per example on global rank 3, so rank 3's memory grows during datasets' .map until the kernel "
                      "OOM killer SIGKILLs it (its progress bar stops at 25%). No Python error from rank 3. evidence: "
                      "'Tokenizing (rank 3):  25%|██▌       | 300/1200', 'failed (exitcode: -9) local_rank: 1 (pid: "
                      "22750)', 'exitcode  : -9 (pid: 22750)  (SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by "
                      "PID 22750', peers '[rank0]: RuntimeError: [...pair.cc:553] Connection closed by peer "
                      "[10.105.0.12]:34001', 'job exited with 1'",
    "tokenizer-segv": f"native_crash: {W}.{S} Injected: data_hooks.on_example, called from the lazy .map in rank 2's "
                      "DataLoader worker, calls ctypes.string_at(0) (a C helper handed a NULL buffer) for one record; "
                      "the worker segfaults in epoch 0 and rank 2's DataLoader raises. evidence: 'ERROR: Unexpected "
                      "segmentation fault encountered in worker.' (followed by a NUL byte torch printed), '[rank2]: "
                      "RuntimeError: DataLoader worker (pid 22948) is killed by signal: Segmentation fault.', peers "
                      "'Connection closed by peer', 'job exited with 1'",
    "cache-tmpfs": f"disk_full: {W}, --seq-len 128; the datasets cache dir hf-cache (shared by all ranks) is a 2 MB "
                   "tmpfs. Injected: the cache is big enough for 'Generating train split' but not for the four ranks' "
                   ".map cache files; datasets' ArrowWriter fails while writing the map results. evidence: "
                   "'train.py\", line 88' (ds.map(tokenize, ...)), 'datasets/arrow_writer.py\", line 827, in "
                   "_write_table', '[rank0]: OSError: [Errno 28] No space left on device' (ranks 0 and 2), 'job "
                   "exited with 1'",
    "huge-lr": f"training_divergence: {W}, with --lr 1e6. Injected: a learning rate so high the loss is NaN by step 3; "
               "train.py's finite-loss check stops every rank. evidence: '[rank0]: FloatingPointError: rank 0: loss is "
               "nan at epoch 0 step 3; stopping' (all four ranks), 'job exited with 1'",
    "rank-stopped": f"silent_hang: {W}, 60 epochs. Injected: SIGSTOP to global rank 1 (ds-node-a) once rank 0 logged "
                    "'epoch 3 done'; the other ranks block in DDP with no error and no output; at 60 s the harness "
                    "sends SIGTERM to both launchers like a scheduler time limit and SIGKILLs the job 15 s later (the "
                    "stopped rank ignores the forwarded SIGTERM). evidence: last progress 'epoch 3 done: mean train "
                    "loss 0.0170 over 300 batches', then nothing until 'Received 15 death signal, shutting down "
                    "workers', 'SignalException: Process 23370 got signal: 15'; no 'job exited' line",
    "preempt": f"job_preempted: {W}, 60 epochs. Injected: scheduler-style SIGTERM to both launchers once rank 0 logged "
               "'epoch 3 done' (SIGKILL 15 s later if still running). evidence: 'Received 15 death signal, shutting "
               "down workers', 'Sending process 23600 closing signal SIGTERM', 'torch.distributed.elastic."
               "multiprocessing.api.SignalException: Process 23596 got signal: 15', 'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}, 60 epochs. Injected: SIGHUP to both launchers once rank 0 logged 'epoch 3 "
                    "done' (the ssh session that started them closed). evidence: 'Received 1 death signal, shutting "
                    "down workers', 'Sending process 23823 closing signal SIGHUP', 'SignalException: Process 23815 got "
                    "signal: 1', 'job exited with 1'",
    "node1-missing": f"rendezvous_timeout: {W}, with the c10d rendezvous (join_timeout=40). Injected: ds-node-b's "
                     "launcher is never started; ds-node-a waits for the second node until the join timeout. "
                     "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "port-taken": f"port_in_use: {W}. Injected: a stale 'python -m http.server' already listening on "
                  "10.105.0.11:30064 (the master port) on ds-node-a before the job; node 0's launcher cannot start "
                  "the TCPStore, node 1's connects to the HTTP server and waits silently until the harness ends it. "
                  "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any "
                  "local network address. port: 30064, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
                  "already in use', 'job exited with 1'",
    "ifname-node1": f"nccl_network_config: {W}. Injected: GLOO_SOCKET_IFNAME=ib0 on ds-node-b (no such interface); its "
                    "ranks fail creating the gloo device in init_process_group, ds-node-a's ranks wait until the "
                    "harness ends the job. evidence: 'RuntimeError: [enforce fail at /__w/pytorch/pytorch/"
                    "third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: "
                    "ib0' (twice), 'Received 15 death signal', 'job exited with 1'",
    "labelhist-rank3": f"collective_mismatch: {W}, with TORCH_DISTRIBUTED_DEBUG=DETAIL on both nodes and a 30 s "
                       "process-group timeout; the corpus written ordered so label 3 occurs only in the first 70% of "
                       "rows. Injected: the team's data_hooks.on_dataset class-balance audit all_reduces "
                       "torch.bincount(ds['label'][:]) without minlength; split_dataset_by_node gives rank 3 the last "
                       "contiguous quarter, which has no label 3, so rank 3's histogram has 3 buckets and the others "
                       "4. evidence: '[rank3]: RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is "
                       "running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[3]', "
                       "'[rank0]: ... TensorShape=[4]', 'data_hooks.py\", line 6, in on_dataset', 'job exited with 1'",
    "slow-fetch-rank1": f"collective_timeout: {W}.{S} With --pg-timeout 20 (gloo process group timeout). Injected: "
                        "data_hooks.on_example, run by the lazy .map in rank 1's DataLoader worker, sleeps 120 s on "
                        "one record (a stalled enrichment call); rank 1 stops feeding DDP and the other ranks' "
                        "gradient allreduce times out in epoch 0. evidence: '[rank0]: RuntimeError: [/__w/pytorch/"
                        "pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms "
                        "for recv operation to complete', '[rank2]: ... Timed out waiting 20000ms for send operation "
                        "to complete', 'job exited with 1'; rank 1 prints no error of its own",
    "old-pyarrow-node1": f"library_version_mismatch: {W}. Injected: pyarrow 12.0.1 (built against NumPy 1.x; datasets "
                         "5.2.0 needs pyarrow>=24) on ds-node-b's PYTHONPATH; 'import datasets' fails in both of its "
                         "ranks, while ds-node-a's ranks wait until the harness ends the job. evidence: 'A module that "
                         "was compiled using NumPy 1.x cannot be run in', 'NumPy 2.4.6 as it may crash.', "
                         "'AttributeError: _ARRAY_API not found', 'train.py\", line 22' (import datasets), "
                         "'ImportError: numpy.core.multiarray failed to import', 'job exited with 1'",
    "tiny-shm-node1": f"shm_exhausted: {W}, with 2 DataLoader workers, batch 64, --seq-len 128. Injected: ds-node-b "
                      "runs in its own mount namespace with a 40 KB tmpfs on /dev/shm; its ranks fail creating the "
                      "DataLoader workers' multiprocessing queues (SemLock lives in /dev/shm). evidence: "
                      "'multiprocessing/synchronize.py\", line 57, in __init__', '[rank2]: OSError: [Errno 28] No "
                      "space left on device' (ranks 2 and 3), peers 'Connection closed by peer [10.105.0.12]:52385', "
                      "'job exited with 1'",
    "tier-keyerror": f"worker_exception: {W}; map-style with .map(num_proc=2). Injected: the team's "
                     "data_hooks.on_example (called from the tokenize function) reads ex['customer_tier'] on the "
                     "ds-node-b ranks (2 and 3), a column their corpus export does not have; the KeyError is raised "
                     "in datasets' multiprocess map pool and re-raised in each of those ranks' ds.map, the ds-node-a "
                     "ranks then lose their peers. evidence: '[rank2]: multiprocess.pool.RemoteTraceback:', "
                     "'datasets/arrow_dataset.py\", line 3983, in _map_single', 'data_hooks.py\", line 5, in "
                     "on_example', '[rank2]: KeyError: \'customer_tier\'' (ranks 2 and 3), '[rank0]: RuntimeError: "
                     "[...pair.cc:553] Connection closed by peer [10.105.0.12]:24292', 'job exited with 1'",
    "wrong-master": f"rendezvous_timeout: {W}, with the c10d rendezvous (join_timeout=40). Injected: ds-node-b launched "
                    "with --master-addr 10.105.0.99 (no such host); it cannot reach the store, ds-node-a waits for it "
                    "until the join timeout. evidence: '[c10d] The client socket has failed to connect to any network "
                    "address of (10.105.0.99, 30060).', 'RendezvousConnectionError: The connection to the C10d store "
                    "has failed.', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited "
                    "with 1'",
}
