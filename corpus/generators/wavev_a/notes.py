"""What each committed wave V (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("sage.py (GraphSAGE node classification with neighbour sampling: 2-layer mean-aggregator GraphSAGE, ~4.9K "
     "parameters, on a synthetic 8000-node 6-class citation graph with 32-d features; training seeds split across "
     "ranks in contiguous chunks, fanout [10, 5] per hop, Adam; after each epoch full-graph layer-wise inference with a "
     "sparse CSR adjacency and validation accuracy all-reduced; rank-0 checkpoints keeping the last two; gloo on CPU)")

NOTES = {
    "torchrun-sage-healthy-exact-sampler-omp-unset":
        f"torchrun --nproc-per-node 2 of {W} with --sampler exact (distinct neighbours per node) and OMP_NUM_THREADS "
        "unset, 6 epochs: torchrun's OMP_NUM_THREADS banner and, on both ranks, torch's sparse UserWarnings "
        "('Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur ...', 'Sparse CSR "
        "tensor support is in beta state') from the evaluation's CSR adjacency; training, evaluation and checkpoints "
        "run to the end and the job exits 0. Healthy (alarming-looking but harmless warnings). evidence: 'Setting "
        "OMP_NUM_THREADS environment variable for each process to be 1 in default', the repeated sparse warnings, "
        "'eval epoch 6: val accuracy 0.9831', 'eval epoch 6: test accuracy 0.9894 (1600 nodes)', "
        "'done: 6 epochs, 450 steps', 'job exited with 0'.",
    "torchrun-sage-newest-papers-unlabeled":
        f"torchrun --nproc-per-node 2 of {W}; the graph export marks the newest 1% of papers (the highest node ids, not "
        "yet annotated) with label -1 but keeps them in the train split. Seeds are split in contiguous id chunks, so "
        "rank 1 (ids 4041..7999) draws unlabeled papers in its first batch and cross_entropy raises; rank 0 then sees "
        "the connection closed in DDP's backward and torchrun stops it. Cause: the training code/data raised on one "
        "rank (labels of -1 in the training targets). evidence: '[rank1] seeds: 2400 train nodes on this rank (ids "
        "4041..7999)', '[rank1]:     loss = F.cross_entropy(logits, yb)', '[rank1]: IndexError: Target -1 is out of "
        "bounds.', '[rank0]: RuntimeError: ... Connection closed by peer', 'Root Cause (first observed failure): ... "
        "rank : 1 (local_rank: 1) exitcode : 1'.",
    "torchrun-sage-recrawl-isolated-papers-mean-aggr":
        f"torchrun --nproc-per-node 2 of {W} on a re-crawled graph where 3% of the papers (240) have no citations; the "
        "hand-written mean aggregator divides the neighbour sum by the neighbour count without clamping it, so every "
        "isolated seed gets 0/0 = nan and the first batch's loss is nan; the finite-loss check stops rank 0 and rank 1 "
        "sees the connection closed. Cause: non-finite loss (0/0 in the aggregation for nodes without neighbours). "
        "evidence: 'CSR adjacency: 75,074 directed edges, degree mean 9.38 max 22 min 0, 240 nodes without "
        "neighbours', '[rank0] loss is nan at epoch 1 step 1 (global step 1)', 'rank 0: non-finite loss nan, "
        "stopping', rank 1's 'Connection closed by peer', 'Root Cause (first observed failure): ... rank : 0'.",
    "torchrun-sage-exact-sampler-duplicate-citation-rows":
        f"torchrun --nproc-per-node 2 of {W} with --sampler exact on a graph whose citation list was merged from two "
        "sources without de-duplication (a few rows listed twice). The exact sampler draws distinct neighbours until it "
        "has min(fanout, degree) of them, but the degree counts the duplicate rows, so for a node with a duplicated "
        "edge and fewer distinct neighbours than that it loops forever; rank 1 spins in the sampler from its first "
        "batch while rank 0 waits in DDP's first collective (30 min timeout). Nothing is printed for 75 s after "
        "'training:' until the user's Ctrl-C. Cause: rank 1 stuck in an endless loop in the data path, no error or "
        "watchdog (silent hang). evidence: 'training: 6 epochs x 75 steps' on both ranks as the last lines for ~75 s "
        "(no 'epoch 1 step 5/75'), 'Received 2 death signal, shutting down workers', rank 1's traceback in "
        "sample_distinct at 'chosen.add(int(indices[lo_ + rng.integers(d)]))' -> 'KeyboardInterrupt', rank 0 in "
        "'self.reducer._rebuild_buckets()' then 'Connection closed by peer'.",
    "mpirun-sage-healthy-3-ranks":
        f"mpirun -np 3 (Open MPI, env:// rendezvous from MASTER_ADDR/MASTER_PORT) of {W}, 6 epochs: three ranks with "
        "1600 seeds each, 50 steps per epoch, evaluation and checkpoints every epoch, sparse UserWarnings from the CSR "
        "evaluation on every rank, job exits 0. Healthy. evidence: 'rank 2/3', 'seeds: 1600 train nodes on this rank', "
        "'eval epoch 6: test accuracy 0.9856 (1600 nodes)', 'done: 6 epochs, 300 steps', 'job exited with 0'.",
    "mpirun-sage-sign-features-raw-paper-ids":
        f"mpirun -np 2 of {W} with --sign-hops 2 (SIGN: precompute mean-propagated features over the full graph with "
        "a sparse CSR adjacency) on an edge file exported with the crawl's raw paper ids (147122255..2146930585) "
        "instead of the contiguous 0..7999 node index. The CSR build (torch.sparse_coo_tensor(...).coalesce()."
        "to_sparse_csr() with invariant checks off, as torch's own warning says) writes out of bounds and both ranks "
        "die with SIGSEGV before training. Cause: native crash in torch's sparse conversion from invalid indices. "
        "evidence: 'features 8000 x 32, 39,884 edges (node ids 147122255..2146930585)', 'degree mean 0.00 max 0 min 0, "
        "8000 nodes without neighbours', 'UserWarning: Sparse invariant checks are implicitly disabled. Memory errors "
        "(e.g. SEGFAULT) will occur', 'Fatal Python error: Segmentation fault' with 'line 124 in csr_adj', 'mpirun "
        "noticed that process rank 0 with PID 0 on node vm exited on signal 11 (Segmentation fault).', "
        "'job exited with 139'.",
    "slurm-sage-healthy-embeddings":
        f"sbatch --wait of sage.sbatch (2 tasks, srun --kill-on-bad-exit=1, rank from SLURM_PROCID) running {W}, 6 "
        "epochs, rank 0 writing the final node embeddings as TSV for the embedding projector: trains, evaluates, "
        "checkpoints, writes emb/node_emb.tsv and srun exits 0; torch's sparse UserWarnings on both ranks. "
        "Healthy (the slurm-<id>.out). evidence: 'job 7 (sage-nodecls) partition batch on vm: 2 task(s)', 'eval epoch "
        "6: test accuracy', 'wrote 8000 x 64 node embeddings to emb/node_emb.tsv (4608222 bytes)', 'done: 6 epochs, "
        "450 steps', 'srun exited with 0'.",
    "slurm-sage-lr-sweep-array-fixed-port":
        f"sbatch --wait of sage-sweep.sbatch, a learning-rate sweep as a 2-task job array (--array=0-1, 2 ranks "
        f"each) of {W}; the script hard-codes MASTER_PORT=29791 and both array tasks were placed on the same node at the "
        "same time. Task 2.0's rank 0 bound the TCPStore first; this log is task 2.1's slurm-2_1.out: its rank 0 cannot "
        "listen on 29791, srun kills the step. Cause: the rendezvous port is already taken by the sibling array task "
        "on the same node. evidence: 'array task 2.1 (job 2) on vm: 2 task(s), master vm:29791, lr 0.01', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29791, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'srun: error: "
        "vm: task 0: Exited with exit code 1', 'srun exited with 143'.",
    "mpirun-sage-degree-onehot-max-from-own-seeds":
        f"mpirun -np 2 of {W} with --degree-onehot: one-hot degree features are appended to the node features, sized "
        "by the largest degree among the rank's own training seeds, which is 21 on rank 0 and 22 on rank 1, so the "
        "first layer is 54 wide on one rank and 55 on the other; DDP's constructor check fails on rank 1 and rank 0 "
        "sees the connection closed while broadcasting the parameters. Cause: ranks built models of different shapes "
        "(a data-dependent input width computed per rank). evidence: '[rank0] degree features: one-hot up to degree 21, "
        "input dim 54', '[rank1] degree features: one-hot up to degree 22, input dim 55', '[rank1]: RuntimeError: [1]: "
        "params[0] in this process with sizes [64, 55] appears not to match sizes of the same param in process 0.', "
        "rank 0's 'Connection closed by peer' in _sync_module_states, 'job exited with 1'.",
    "mpirun-sage-dense-exact-eval-cgroup":
        f"mpirun -np 2 of {W} with --dense-eval (an 'exact' evaluation that builds a dense 8000 x 8000 float64 "
        "adjacency, 0.48 GiB, then a row-normalised copy and a float32 copy, on every rank) inside a 1.2 GB cgroup-v1 "
        "memory limit: after epoch 1 both ranks start the dense evaluation and the kernel OOM killer SIGKILLs rank 1; "
        "mpirun aborts the job. Cause: host memory exhausted by the per-rank dense adjacency. evidence: 'epoch 1 done in "
        "0.3 s', '[rank1] exact evaluation: dense 8000 x 8000 row-normalised adjacency (0.48 GiB float64)' on both ranks "
        "with no 'eval epoch 1' after it, 'mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 "
        "(Killed).', 'job exited with 137'.",
    "slurm-sage-time-limit-in-minutes":
        f"sbatch --wait --time=1 of sage.sbatch running {W} for 200 epochs: the user meant one hour but Slurm reads "
        "--time=1 as one minute; about 32 epochs in, slurmctld cancels the job at its time limit, slurmstepd kills the "
        "step and the batch script never reaches its epilogue. Cause: the scheduler's time limit ended the job. "
        "evidence: 'job 4 (sage-nodecls) partition batch on vm: 2 task(s), master vm:29790, time limit 1:00', "
        "'training: 200 epochs x 75 steps', last 'eval epoch 32', 'slurmstepd-vm: error: *** JOB 4 ON vm CANCELLED AT "
        "2026-11-28T18:36:40 DUE TO TIME LIMIT ***', 'srun: error: vm: tasks 0-1: Terminated'.",
    "slurm-sage-embeddings-to-small-scratch":
        f"sbatch --wait of sage.sbatch running {W}, 6 epochs, rank 0 writing the final node embeddings as TSV "
        "(~4.6 MB) to a 2 MB node-local scratch tmpfs already holding 1.5 MB from earlier jobs: training and evaluation "
        "finish, np.savetxt fails on close, rank 1 sees the connection closed in the final barrier and srun kills the "
        "step. Cause: the scratch filesystem ran out of space. evidence: 'srun python sage.py ... --save-emb scratch', "
        "'eval epoch 6: test accuracy', \"[rank0]:     np.savetxt(path, h.numpy(), fmt=...\", '[rank0]: OSError: "
        "[Errno 28] No space left on device', rank 1's 'Connection closed by peer' in dist.barrier(), 'srun: error: "
        "vm: task 0: Exited with exit code 1', 'srun exited with 143'.",
    "slurm-sage-world-size-exported-from-login-shell":
        f"sbatch --wait of sage.sbatch (2 tasks) running {W}, with --timeout-s 60; the user's login shell had "
        "WORLD_SIZE=4 exported (from another project) and sbatch/srun pass the submitting environment through, so "
        "sage.py, which prefers WORLD_SIZE over SLURM_NTASKS, starts both tasks as ranks of a world of 4: rank 0's "
        "TCPStore waits for 4 clients and only 2 exist. Cause: not every expected worker joined the rendezvous. "
        "evidence: 'job 6 (sage-nodecls) partition batch on vm: 2 task(s)', '[rank0] ... rank 0/4 master vm:29790', "
        "'[rank1] ... rank 1/4', 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. "
        "2/4 clients joined.', 'DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//cpu//0/0', "
        "'srun exited with 143'.",
    "deepspeed-sage-healthy":
        f"deepspeed --num_gpus 2 (the DeepSpeed launcher on its CPU accelerator, gloo) of {W} through "
        "deepspeed.initialize with a ds_config.json (train_batch_size 64 = 32 x 1 x 2), 6 epochs: the launcher's "
        "warnings ('Setting accelerator to CPU', 'Unable to find hostfile'), 'Setting CUDA_VISIBLE_DEVICES=0,1', the "
        "shm comm op build, torch's sparse UserWarnings; training to the end, both processes exit successfully. "
        "Healthy. evidence: 'dist_world_size=2', 'eval epoch 6: test accuracy 0.9769 (1600 nodes)', 'done: 6 epochs, "
        "450 steps', 'Process ... exits successfully.', 'job exited with 0'.",
    "deepspeed-sage-batch-size-flag-over-config":
        f"deepspeed --num_gpus 2 of {W}; sage.py copies its --batch-size flag into the DeepSpeed config's "
        "train_micro_batch_size_per_gpu, and the user tried --batch-size 128 while ds_config.json still says "
        "train_batch_size 64: DeepSpeed's batch check fails on both ranks in deepspeed.initialize and the launcher "
        "kills the processes. Cause: train_batch_size != micro batch x gradient accumulation x world size. evidence: "
        "\"'--batch-size', '128'\" in the spawn command, 'AssertionError: Check batch related parameters. "
        "train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 128 * 1 * 2', "
        "'sigkill_handler] Killing subprocess', 'job exited with 1'.",
    "deepspeed-sage-text-features-shared-container-shm":
        f"deepspeed --num_gpus 2 of {W} on a graph with 768-d text-encoder features (23.4 MiB), with --num-workers 2: "
        "each rank moves the feature matrix into shared memory for its sampler DataLoader workers, but the job runs "
        "with a container-sized 16 MB /dev/shm, so share_memory_() fails on both ranks before training. Cause: shared "
        "memory too small. evidence: 'features 8000 x 768', 'sharing the feature matrix (23.4 MiB) with 2 sampler "
        "workers', '[rank1]:     x.share_memory_()', 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_...>: No space left on device (28)', 'sigkill_handler] Killing subprocess', 'job exited with 1'.",
    "accelerate-sage-dispatch-batches-from-old-script":
        f"accelerate launch --multi_gpu --num_processes 2 of {W} with --dispatch-batches false, a setting carried over "
        "from the user's accelerate 0.x training script that passes it straight to Accelerator(...); accelerate 1.x "
        "removed that argument (it moved to DataLoaderConfiguration), so both ranks fail at start-up and the launcher "
        "stops the job. Cause: the script targets an older accelerate API than the one installed. evidence: '[rank0] "
        "accelerate 1.15.0', \"TypeError: Accelerator.__init__() got an unexpected keyword argument "
        "'dispatch_batches'\" on both ranks, 'Root Cause (first observed failure)', 'job exited with 1'.",
    "accelerate-sage-rank0-closeness-centrality":
        f"accelerate launch --multi_gpu --num_processes 2 of {W} with --centrality and a 60 s process-group timeout "
        "(InitProcessGroupKwargs): rank 0 computes a closeness-centrality feature with a pure-Python BFS from every "
        "one of the 8000 nodes (~45 s per 1000 nodes) before broadcasting it, while rank 1 waits in "
        "broadcast_object_list; after 60 s rank 1's gloo receive times out and the launcher stops rank 0. Cause: a "
        "collective not completed in time because rank 0 was busy with slow work only it does. evidence: '[rank0] "
        "computing closeness centrality for 8000 nodes (BFS from every node)', '[rank0]   closeness: 1000/8000 nodes, "
        "45 s', '[rank1]:     dist.broadcast_object_list(obj, src=0)', '[rank1]: RuntimeError: [.../gloo/transport/"
        "tcp/unbound_buffer.cc:78] Timed out waiting 60000ms for recv operation to complete', 'Sending process ... "
        "closing signal SIGTERM', 'job exited with 1'.",
}
