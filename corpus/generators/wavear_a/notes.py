"""What each committed wave AR (a) run showed (the manifest's notes column): what ran, how the cause was made real,
and the key lines of its log (``evidence:``). Written after the runs, from the logs."""

NOTES = {
    "torchrun-mules-healthy-debug": (
        "no_failure: torchrun --nproc-per-node=2, GraphSAGE on the payments graph, 4 epochs, with "
        "TORCH_DISTRIBUTED_DEBUG=INFO and TORCH_CPP_LOG_LEVEL=INFO: c10d and DDP print their INFO lines (store, "
        "reducer, DDP logging data per rank) and the TCPStore's uv_loop_close EBUSY line at shutdown; the run trains, "
        "evaluates and saves every epoch. evidence: 'Processing...', 'Done!', '[rank0] epoch 4 val_f1 ... val_auc ...', "
        "'[rank0] saved checkpoints/mule-sage-epoch004.pt', '[rank0] finished 4 epochs', 'job exited with 0'"),
    "torchrun-mules-debug-detail": (
        "native_crash: the same torchrun job with TORCH_DISTRIBUTED_DEBUG=DETAIL (turned up from INFO to chase a "
        "problem): with DETAIL, c10d wraps the gloo group in its ProcessGroupWrapper and both ranks die by SIGSEGV in "
        "native code at their first training step (after DDP's construction, before any step is printed); no Python "
        "traceback; the same job with INFO or without the variable trains (torchrun-mules-healthy-debug). evidence: "
        "'failed (exitcode: -11) local_rank: 0 (pid: ...) of binary: .../python3', 'exitcode  : -11 (pid: ...)  "
        "(SIGSEGV)', 'traceback : Signal 11 (SIGSEGV) received by PID ...' for rank 0 and rank 1"),
    "torchrun-mules-late-accounts": (
        "worker_exception (an edge_index bug): the transfers export includes 3,200 transfers from 400 accounts opened "
        "after the accounts snapshot (source ids 31500-31899), so edge_index holds node ids >= num_nodes (31500). PyG "
        "builds the Data without complaint (no validate()); the training script's neighbour sampler builds its CSC "
        "pointer from bincount(dst, minlength=num_nodes) and both ranks raise before the first batch. evidence: "
        "'[rank0] graph: 31500 nodes, 509654 edges', '[rank0]: RuntimeError: The expanded size of the tensor (31500) "
        "must match the existing size (31900) at non-singleton dimension 0.' (in FanoutSampler.__init__ "
        "'self.ptr[1:] = torch.cumsum(torch.bincount(dst, minlength=data.num_nodes), 0)'), torchrun's ChildFailedError "
        "with exitcode 1 for both ranks"),
    "torchrun-mules-region-shards": (
        "collective_timeout: --shard-by region splits the seed accounts by region parity instead of a stride, so rank 0 "
        "gets 17,850 seed accounts (70 batches) and rank 1 7,650 (30 batches); with --dist-timeout 60, rank 1 finishes "
        "its epoch and waits in dist.barrier() while rank 0 waits in DDP's gradient allreduce of its 31st step: both "
        "gloo operations time out after 60 s. evidence: '[rank0] seed accounts 17850 ... 70 batches/epoch', "
        "'[rank1] seed accounts 7650 ... 30 batches/epoch', '[rank1] epoch 1 train_loss', '[rank1]: RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 60000ms for recv operation to complete' (in "
        "dist.barrier()), the same on rank 0 in loss.backward()"),
    "torchrun-mules-time-limit": (
        "job_preempted: a 200-epoch torchrun job; in epoch 3 SIGTERM from outside to the torchrun agent (a scheduler's "
        "time limit signalling the launcher); torchrun stops both ranks and exits 1. evidence: 'Received 15 death "
        "signal, shutting down workers', 'Sending process ... closing signal SIGTERM', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process ... got signal: 15', "
        "'job exited with 1'"),
    "torchrun-mules-sgd-lr": (
        "training_divergence: GAT with --optimizer sgd --lr 5e2 --momentum 0.99 --log-every 1 (the learning rate "
        "typed as 5e2 for 5e-2): the loss explodes from the second step and is NaN at step 5; the script's finite-loss "
        "check raises on both ranks. evidence: '[rank0] epoch 1 step 1/50 loss 0.6918', 'step 2/50 loss 4967.4663', "
        "'step 3/50 loss 678721.1875', 'step 4/50 loss 21834829901332480.0000', '[rank0]: FloatingPointError: loss is "
        "nan at epoch 1 step 5' (the same on rank 1), torchrun's ChildFailedError"),
    "torchrun-mules-warm-start-gat": (
        "worker_exception: an earlier 1-epoch GraphSAGE job (not logged, port 30749) saved "
        "checkpoints/mule-sage-epoch001.pt; this job switches to --model gat and warm-starts from that file: "
        "load_state_dict raises on both ranks before DDP is built. evidence: '[rank0]: RuntimeError: Error(s) in "
        "loading state_dict for GAT:', 'Missing key(s) in state_dict: \"convs.0.att_src\", ...', 'Unexpected key(s) "
        "in state_dict: \"convs.0.lin_l.weight\", ...' (in main 'model.load_state_dict(state[\"model\"])'), "
        "torchrun's ChildFailedError"),
    "torchrun-mules-full-neighbourhood": (
        "host_oom_killed: a bigger month's export (154,000 nodes, 3.77 M edges after ToUndirected, the largest "
        "payment processor with in-degree 147,791) trained with --fanout=-1,-1 (every neighbour at both hops) in a "
        "2 GB memory cgroup (cgroup v1); each batch's two-hop neighbourhood through the processor covers most of the "
        "graph, the loader workers grow (~600 MB each per the kernel's report) and the kernel OOM killer kills rank 1 "
        "before any step is logged; torchrun stops rank 0. evidence: '[rank0] graph: 154000 nodes, 3774511 edges, max "
        "in-degree 147791', 'fanout [-1, -1]', 'failed (exitcode: -9) local_rank: 1 (pid: ...)', 'exitcode  : -9 "
        "(pid: ...)  (SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID ...'"),
    "spawn-mules-healthy-gat": (
        "no_failure: train_fraud.py --spawn 2 (torch.multiprocessing.spawn as in PyG's multi-GPU examples), GAT "
        "(4 heads), 2 epochs; the first epoch is slow (spawned DataLoader workers start), then trains and saves. "
        "evidence: '[rank0] epoch 2 val_f1 ... val_auc ...', '[rank0] saved checkpoints/mule-gat-epoch002.pt', "
        "'[rank0] finished 2 epochs', 'job exited with 0'"),
    "spawn-mules-healthy-resume": (
        "no_failure: an earlier 2-epoch job (not logged, port 30752) left checkpoints/mule-sage-epoch002.pt and the "
        "processed dataset; this run resumes from it into --ckpt-dir finetuned for 2 more epochs (no 'Processing...': "
        "PyG reuses data/processed). evidence: '[rank0] resumed from checkpoints/mule-sage-epoch002.pt (epoch 2, "
        "val_auc ...)', '[rank0] saved finetuned/mule-sage-epoch004.pt', '[rank0] finished 2 epochs', 'job exited "
        "with 0'"),
    "spawn-mules-ssh-closed": (
        "terminal_hangup: a 100-epoch mp.spawn job run in the foreground of a terminal; in epoch 2 SIGHUP to the job's "
        "process group (the SSH session closed). The spawn parent, both ranks and their loader workers die by the "
        "signal's default action without a message, and the shell running the command dies too: the log stops in "
        "epoch 2 with no error and no 'job exited' line. evidence: the last lines '[rank1] epoch 2 train_loss ...', "
        "'[rank0] epoch 2 train_loss ...' after 'epoch 2 step ...' lines, then nothing"),
    "spawn-mules-file-server": (
        "port_in_use: a colleague's 'python -m http.server 30754' (sharing files) is listening on the port given as "
        "--port; rank 0's TCPStore cannot listen and mp.spawn terminates rank 1. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 30754, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use' (in "
        "init_process_group), 'Terminating process ... via signal SIGTERM', 'job exited with 1'"),
    "spawn-mules-container-shm": (
        "shm_exhausted: the job runs in a container-sized 2 MB /dev/shm (a private tmpfs in its own mount namespace); "
        "with mp.spawn the DataLoader workers are spawned too, and the loader's start pickles the sampler's graph "
        "tensors into shared memory: rank 1 fails as its loader starts. evidence: 'RuntimeError: unable to allocate "
        "shared memory(shm) for file </torch_..._2>: No space left on device (28)' (torch/storage.py _share_fd_cpu_, "
        "from the DataLoader's _MultiProcessingDataLoaderIter), 'Terminating process ... via signal SIGTERM'"),
    "spawn-mules-refund-export": (
        "native_crash: --amount-buckets adds per-node histograms of incoming amounts computed by the team's C helper "
        "amount_buckets.c (bucket = (int)log10(amount), built with gcc -O2) inside the loader workers; the new export "
        "books 1% of transfers (refunds) as negative amounts: log10 gives NaN, (int)NaN is INT_MIN and the write lands "
        "far outside the histogram: the DataLoader workers die by SIGSEGV. evidence: 'RuntimeWarning: invalid value "
        "encountered in log1p' (while processing), 'ERROR: Unexpected segmentation fault encountered in worker.', "
        "'RuntimeError: DataLoader worker (pid ...) is killed by signal: Segmentation fault.', 'RuntimeError: "
        "DataLoader worker (pid(s) ...) exited unexpectedly'"),
    "spawn-mules-data-volume": (
        "disk_full: the dataset root data/ is a 14 MB volume already holding 6 MB of an earlier archive; the raw "
        "exports fit, but PyG's InMemoryDataset.process() on rank 0 cannot write data/processed/payments.pt. "
        "evidence: 'Processing...', 'OSError: [Errno 28] No space left on device' (torch_geometric/io/fs.py "
        "torch_save, from InMemoryDataset.save in process()), 'Terminating process ... via signal SIGTERM'"),
    "ranks-mules-healthy-late-rank": (
        "no_failure: run_ranks.sh on two 'hosts' (rank 0 on node 0, rank 1 on node 1 started 20 s later), "
        "--num-workers 3 on 2 CPUs (torch's UserWarning about the suggested maximum number of workers); rank 0 waits "
        "in init_process_group for rank 1, then both train 3 epochs. Both consoles kept. evidence: node0 and node1 "
        "'UserWarning: This DataLoader will create 3 worker processes in total. Our suggested max number of worker in "
        "current system is 2, ...'; node0 '[rank0] finished 3 epochs', 'rank process ... exited with 0', 'job exited with 0'; node1 'job exited with 0'"),
    "ranks-mules-host-config": (
        "collective_mismatch: run_ranks.sh on two 'hosts'; node 1's launch line carries --hidden 128 from its own "
        "config while node 0 uses the default 64: DDP's parameter-shape check across processes fails on rank 1 and "
        "rank 0 sees the connection close in DDP's broadcast. Both consoles kept. evidence: node1 '[rank1]: "
        "RuntimeError: [1]: params[0] in this process with sizes [128, 10] appears not to match sizes of the same "
        "param in process 0.' (in DDP(model), _verify_param_shape_across_processes); node0 '[rank0]: RuntimeError: "
        "[.../gloo/transport/tcp/pair.cc:553] Connection closed by peer ...' (in _sync_module_states)"),
    "ranks-mules-third-host": (
        "rendezvous_timeout: run_ranks.sh 3 (world size 3 from the cluster's host list) with RANKS='0 1' on this "
        "host; the third host's rank is never started; with --dist-timeout 60 the TCPStore on rank 0 gives up. "
        "evidence: 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 2/3 clients "
        "joined.' (rank 0), '[c10d] waitForInput: socket ... timed out after 60000ms', 'DistStoreError: wait "
        "timeout after 60000ms, keys: /default_pg/0//cpu//0/0' (rank 1)"),
    "hosts-mules-host-lost": (
        "peer_process_died: run_ranks.sh on two 'hosts' (rank 0 on node 0, rank 1 on node 1); in epoch 3 every "
        "process of node 1 is SIGKILLed at once (the host lost). Only node 0's console is kept: it never says why "
        "rank 1 went away. evidence: '[rank0] saved checkpoints/mule-sage-epoch002.pt', '[rank0]: RuntimeError: "
        "[.../gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:...: Connection reset by peer.' (in "
        "loss.backward()), 'rank process ... exited with 1', 'job exited with 1'"),
    "ranks-mules-loader-stalled": (
        "silent_hang: run_ranks.sh 2 with 20 epochs; in epoch 2 one DataLoader worker process of rank 1 is stopped "
        "from outside (SIGSTOP, as a worker wedged on a stalled filesystem would be); after rank 0 saves epoch 2 "
        "neither rank prints again (rank 1 waits for its worker's batch, rank 0 in the next collective; the gloo "
        "timeout is 300 s) and the user's Ctrl-C ends the job after 100 s, with no error and no 'job exited' line. "
        "evidence: '[rank0] epoch 2 val_f1 0.5803 val_auc 0.9971', '[rank0] saved checkpoints/mule-sage-epoch002.pt' "
        "as the last lines, no epoch 3 line"),
}
