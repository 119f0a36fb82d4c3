"""What each committed wave S (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("kge.py (knowledge-graph embedding link prediction: DistMult/ComplEx over a synthetic FB15k-style graph of 3080 "
     "entities and 11 relations, 32 corrupted heads + 32 tails per positive, logistic loss, Adam, filtered tail "
     "ranking MRR/Hits@k with each rank ranking its slice of the validation set and sums all-reduced, rank-0 "
     "checkpoints with retention; gloo on CPU)")

NOTES = {
    "torchrun-kge-healthy-omp-unset":
        f"torchrun --nproc-per-node 2 of {W}, 12 epochs, launched from a shell without OMP_NUM_THREADS: torchrun prints "
        "its OMP_NUM_THREADS warning, training and evaluation run to the end (filtered MRR rises to ~0.12) and the "
        "job exits 0. Healthy. evidence: 'Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
        "default', 'done: 12 epochs, 336 steps', 'job exited with 0'.",
    "torchrun-distmult-handwritten-log-sigmoid-high-lr":
        f"torchrun --nproc-per-node 2 of {W} with --loss logsigmoid-manual (the logistic loss written out as "
        "-log(sigmoid(x)) instead of softplus / logsigmoid), --lr 0.1, --reg 0 and --dim 128: without regularisation "
        "the DistMult scores grow to |s| ~ 100, sigmoid(-s) underflows to 0 in float32 and log(0) = -inf, so the loss "
        "becomes inf; the trainer's finite-loss check raises on rank 1 and rank 0 is torn down. Cause: numerically "
        "unstable loss + too high a learning rate (divergence). evidence: 'pos +9.43 neg -6.90' score means climbing, "
        "'[rank1] epoch 6 step 158: non-finite loss inf (max |score| 95.8)', 'FloatingPointError: Loss is inf at "
        "step 158 on rank 1', torchrun 'Root Cause ... rank : 1 ... exitcode : 1'.",
    "torchrun-kge-valid-file-from-newer-dump":
        f"torchrun --nproc-per-node 2 of {W}; valid.tsv was re-exported from a newer dump of the graph, so one "
        "validation triple has a head entity (person_2504) that entities.dict (from the training export) does not "
        "have. Each rank maps only its own slice of the validation set to ids at the first evaluation: rank 1 raises "
        "KeyError in to_ids, rank 0 (already in the eval all_reduce) sees the connection close and torchrun tears "
        "the job down. Cause: a data/user-code error on rank 1. evidence: '[rank1]: KeyError: 'person_2504'' in "
        "to_ids <- evaluate, '[rank0]: RuntimeError: ... Connection closed by peer', 'Root Cause (first observed "
        "failure): ... rank : 1'.",
    "torchrun-kge-ci-timeout-wrapper":
        f"torchrun --nproc-per-node 2 of {W} for 300 epochs inside a CI step wrapped in coreutils `timeout 45`: after "
        "45 s timeout sends SIGTERM to the launcher's process group; torchrun's agent reports the death signal, "
        "sends SIGTERM to both workers and exits with SignalException, and the shell reports timeout's status 124. "
        "Cause: a wall-clock time limit (SIGTERM from outside), training itself was healthy (loss falling). "
        "evidence: 'Received 15 death signal, shutting down workers', 'Sending process ... closing signal SIGTERM', "
        "'SignalException: Process ... got signal: 15', 'job exited with 124'.",
    "torchrun-kge-two-node-host-lost":
        f"Two-node torchrun (--nnodes 2, 1 process per node, static rendezvous at node 0) of {W}; this is node 1's "
        "console only. At epoch 3 node 0 vanished (every process on it SIGKILLed at once, as a host losing power); "
        "node 1's worker sees its gloo peer connection drop and node 1's agent loses the store hosted on node 0. "
        "The first failure (node 0's death) is not in this log. evidence: '[rank1] ... rank 1/2 (from RANK) ... master 127.0.0.1:29518', rank 1's steps of epoch 3 and then '[rank1]: RuntimeError: [.../gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:...: Connection reset by peer. This is typically caused by a remote worker hanging' in loss.backward (DDP all-reduce), torchrun's 'Root Cause (first observed failure): ... rank : 1 (local_rank: 0) ... exitcode : 1', 'job exited with 1'; no error of rank 0 in this node's log.",
    "mpirun-complex-kge-healthy":
        f"mpirun -np 3 of {W} with --model complex, 12 epochs: three ranks (rank/world from OMPI_COMM_WORLD_*) "
        "train and evaluate to the end and the job exits 0. Healthy. evidence: 'rank 2/3 (from "
        "OMPI_COMM_WORLD_RANK)', 'eval @ epoch 12: filtered MRR', 'done: 12 epochs', 'job exited with 0'.",
    "mpirun-kge-rank0-filter-index-before-init":
        f"mpirun -np 2 of {W} with --filter-dump (rank 0 builds the filtered-evaluation index from a 3.4M-statement "
        "gzipped JSON-lines dump before calling init_process_group) and a 15 s process-group timeout: rank 1's TCPStore "
        "client times out connecting to rank 0's store while rank 0 is still parsing (an alarming c10d error with a C++ "
        "stack), but the client retries after its back-off delay, connects once rank 0 reaches init (index built in "
        "18.8 s), and training and evaluation run to the end; exit 0. Healthy (recovered connect retry). evidence: "
        "'[c10d] The client socket has timed out after 15000ms while trying to connect to (127.0.0.1, 29522)', "
        "'TCP client failed to connect/validate ... - retrying (try=0, ...)', 'filter index: ... in 18.8 s', "
        "'[rank1] process group ready', 'done: 12 epochs', 'job exited with 0'.",
    "mpirun-kge-rank0-filter-index-before-init-5s-timeout":
        f"mpirun -np 2 of {W} with --filter-dump (rank 0 builds the filtered-evaluation index from a 3.4M-statement "
        "gzipped JSON-lines dump before init_process_group) and --timeout-s 5: rank 1 cannot reach rank 0's TCPStore "
        "(not listening yet) within the timeout and its retries, so the rendezvous fails. Cause: rank 0 doing slow "
        "work before the rendezvous with a short timeout. evidence: '[rank0] building filter index from data/full-dump.jsonl.gz ...' (no 'filter index:' line follows), '[c10d] The client socket has timed out after 5000ms while trying to connect to (127.0.0.1, 29528)', 'TCP client failed to connect/validate ... - retrying (try=0, ...)', '... - timed out (try=1, timeout=5000ms)', 'torch.distributed.DistNetworkError: The client socket has timed out after 5000ms while trying to connect to (127.0.0.1, 29528).', mpirun 'Process name: [[...,1],1] Exit code: 1'.",
    "mpirun-kge-deepspeed-config-for-two-ranks":
        f"mpirun -np 3 of {W} through deepspeed.initialize (--deepspeed; the script inits torch.distributed from the "
        "Open MPI variables first) with a ds_config written for 2 ranks (train_batch_size 512 = 256 x 1 x 2): "
        "DeepSpeed's batch check fails on every rank. evidence: 'AssertionError: Check batch related parameters. "
        "train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 512 != 256 * 1 * 3', "
        "'process group ready: backend gloo, world 3', mpirun 'Exit code: 1'.",
    "mpirun-kge-pretrained-table-on-every-rank-cgroup":
        f"mpirun -np 3 of {W} with --pretrained data/pretrained-ent.pt: every rank torch.loads the whole 1.5M x 128 "
        "float32 entity table of an earlier, bigger run (~730 MiB plus its 1.5M-name index) to copy out 3080 rows, "
        "inside a 1.6 GB cgroup-v1 memory limit; the kernel OOM killer SIGKILLs a rank while the tables load. "
        "evidence: 'loading pretrained entity table data/pretrained-ent.pt (765 MiB)' on all three ranks, then no further line: 'mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 9 (Killed).', 'job exited with 137'.",
    "slurm-kge-healthy":
        f"sbatch --wait kge.sbatch (2 tasks via srun --kill-on-bad-exit=1, rank from SLURM_PROCID) of {W}, 12 epochs: "
        "runs to the end. Healthy. evidence: the job header line, 'done: 12 epochs', 'srun exited with 0'.",
    "slurm-kge-per-relation-mrr-breakdown":
        f"sbatch/srun (2 tasks) of {W} with --per-relation: the MRR breakdown tensor is built from the relations present "
        "in each rank's own validation slice (rank 1's slice holds the rare relation 'capital', rank 0's does not: 10 vs "
        "9 rows) and all-reduced, so the two ranks all_reduce tensors of different sizes; gloo's pair read enforce "
        "fails on one rank (std::terminate, SIGABRT) and the other loses the connection. Cause: ranks issuing "
        "collectives with different shapes. evidence: 'terminate called after throwing an instance of 'gloo::EnforceNotMet'', '[enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 40 vs 24. Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?', 'srun: error: vm: task 0: Aborted', '[rank1]: RuntimeError: ... Connection reset by peer', 'srun exited with 143'.",
    "slurm-kge-native-alias-sampler-fixed-table":
        f"sbatch/srun (2 tasks) of {W} with --native-sampler: libnegsample.so (gcc-built from negsample.c, loaded "
        "through ctypes) keeps its alias table in fixed static arrays of NS_MAX_ENT = 3000 entries, guarded by an "
        "assert, and the graph has 3080 entities; ns_init's assert aborts the process (SIGABRT) in native code. "
        "evidence: 'native negative sampler .../libnegsample.so (alias table over 3080 entities, degree^0.75)', 'python: negsample.c:20: ns_init: Assertion `n <= NS_MAX_ENT' failed.' (both ranks), 'srun: error: vm: tasks 0-1: Aborted', 'srun exited with 134'.",
    "deepspeed-kge-healthy":
        f"DeepSpeed launcher (--num_gpus 2 on the CPU accelerator) of {W} through deepspeed.initialize, 12 epochs, "
        "engine checkpoints each evaluation: the launcher's and accelerator warnings are harmless; runs to the end. "
        "Healthy. evidence: '[WARNING] [real_accelerator.py:213:get_accelerator] Setting accelerator to CPU', '[WARNING] [runner.py:214:fetch_hostfile] Unable to find hostfile', 'saved deepspeed checkpoint ckpt/epoch12', 'done: 12 epochs', 'job exited with 0'.",
    "deepspeed-kge-previous-run-still-on-default-port":
        f"DeepSpeed launcher (--num_gpus 2, no --master_port: the default 29500) of {W} started while an earlier "
        "launch of the same job (a 500-epoch run started before, still training) holds port 29500 for its rank 0 "
        "TCPStore: the new rank 0 cannot bind the store. evidence: '--master_port=29500' in the launcher's cmd line, 'master 127.0.0.1:29500', 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use' (from deepspeed.init_distributed -> TCPStore), 'sigkill_handler ... exits with return code = 1', 'job exited with 1'.",
    "accelerate-kge-metrics-flusher-fork-in-loader":
        f"accelerate launch (2 processes) of {W} with --loader-workers 2 and --metrics-file: after the first "
        "evaluation rank 0 starts a thread that flushes counters to metrics.json and sleeps while holding the "
        "counters' threading.Lock; at the next epoch the DataLoader forks its workers while the lock is held, so the "
        "forked workers inherit a locked lock that nobody will release, and Dataset.__getitem__ (which counts every "
        "triple read) blocks forever; rank 0 waits for its first batch, rank 1 waits in DDP's all-reduce, nothing "
        "times out. The user pressed Ctrl-C after 75 s without progress. evidence: '[rank0] metrics flusher started: metrics.json' and 'saved ckpt/kge-epoch001.pt' at 15:56:10, then no line for 75 s until 'Received 2 death signal, shutting down workers'; '[rank0]' KeyboardInterrupt traceback in 'for pos in loader' -> DataLoader _get_data -> _data_queue.get (waiting for a batch from its workers), '[rank1]' in acc.backward (DDP all-reduce) seeing 'Connection closed by peer' only after the interrupt; 'DataLoader workers 2'.",
    "accelerate-kge-projector-export-small-volume":
        f"accelerate launch (2 processes) of {W} with --export-dir export --eval-every 1: after each evaluation rank 0 "
        "writes every entity vector as TSV for the embedding projector (kept, never pruned), into a 5 MB volume; the "
        "export fills it. evidence: 'exported 3080 entity vectors to export/entities-epoch001.tsv (1.8 MiB)', '... epoch002.tsv (1.8 MiB)', then at epoch 3 '[rank0]: OSError: [Errno 28] No space left on device' in f.write of the export, rank 1 'Connection closed by peer', accelerate/torchrun 'Root Cause ... rank : 0', and the job's 'df -h export': 'tmpfs 5.0M 5.0M 0 100% .../export'.",
}
