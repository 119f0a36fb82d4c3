"""What each committed run of wave AQ (c) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "torchrun-ctr-healthy-verbose": (
        "torchrun --nnodes=1 --nproc-per-node=3 --master-port=30710 with TORCH_CPP_LOG_LEVEL=INFO and "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL: a torch.distributed.rpc parameter server (rank 0 'ps': user/item/context "
        "embedding tables with Adagrad rows and the dense tower behind RRefs) and 2 trainers (row lookups and gradient "
        "pushes over RPC, tower through distributed autograd and a DistributedOptimizer) train the CTR model for 3 "
        "epochs; the ps saves the tables every epoch. Harmless noise: c10d TCPStore trace/debug INFO lines, the "
        "ProcessGroupGloo UserWarning, TorchScript DeprecationWarning, TensorPipe eof at shutdown. evidence: "
        "'[c10d] The debug level is set to DETAIL.', '[ps] epoch 3/3: 312 steps, 936 pushes, train loss 0.5693, val "
        "auc 0.7001, val logloss 0.5698', '[ps] finished 3 epochs in 12.6 s', 'job exited with 0'"),
    "torchrun-ctr-catalogue-update": (
        "worker_exception: shard 01 re-exported after 5,000 items were added to the catalogue, but the vocabulary "
        "(meta.json) the ps sized its item table from was not updated; the ps's EmbeddingServer.lookup raises in the "
        "first batch of trainer2, RPC carries the exception back to trainer2 and from its train_epoch back to the ps, "
        "which exits; torchrun SIGTERMs the trainers. evidence: \"IndexError: index 54210 is out of bounds for "
        "dimension 0 with size 50000\" (On WorkerInfo(id=0, name=ps), in lookup 'self.tables[f][ids]'), \"RuntimeError: "
        "RuntimeError: On WorkerInfo(id=2, name=trainer2):\", 'failed (exitcode: 1) local_rank: 0', 'job exited with 1'"),
    "torchrun-ctr-shared-weights": (
        "worker_exception: --shared-weights makes the ps serve tower requests on the live parameters while the other "
        "trainer's DistributedOptimizer steps them in place; trainer2's dist_autograd.backward then fails on the ps's "
        "saved weight (a race of asynchronous parameter-server training), the error comes back to the ps. evidence: "
        "'RuntimeError: Error on Node 2: Error on Node 0: one of the variables needed for gradient computation has "
        "been modified by an inplace operation: [torch.FloatTensor [32, 1]] ... is at version 17; expected version "
        "16', 'dist_autograd.backward(ctx_id, [loss])', 'On WorkerInfo(id=2, name=trainer2):', 'job exited with 1'"),
    "torchrun-ctr-row-norm": (
        "collective_timeout: --max-norm 1.0 --rpc-timeout 30: EmbeddingServer.push holds the server's threading.Lock "
        "and calls _renorm, which takes the same non-reentrant lock: the ps's RPC handler deadlocks on the first push "
        "and every later lookup waits on the lock, so trainer1's rpc_sync times out after 30 s and the error reaches "
        "the ps through the epoch future. evidence: \"RuntimeError: RPCErr:1:RPC ran for more than set timeout (30000 "
        "ms) and will now be marked with an error\" (in 'rows = server_rref.rpc_sync().lookup(u, i, c)'), "
        "'On WorkerInfo(id=1, name=trainer1):', 'failed (exitcode: 1) local_rank: 0', 'job exited with 1'"),
    "torchrun-ctr-dwell-export": (
        "training_divergence: shard 00 re-exported with the dwell-time feature in raw milliseconds instead of "
        "log-seconds; trainer1's first batches blow the dense tower up (epoch-1 train loss ~1.3e13), its ReLUs die and "
        "the run goes on uselessly to the end: constant predictions, val AUC 0.497 every epoch, exit 0. evidence: "
        "'[ps] epoch 1/3: 312 steps, 312 pushes, train loss 12665211870729.8965, val auc 0.4972, val logloss 0.6249', "
        "'[ps] epoch 3/3: ... train loss 0.6247, val auc 0.4971', 'job exited with 0'"),
    "torchrun-ctr-table-growth": (
        "host_oom_killed: --table-scale 24 (rows reserved for vocabulary growth: 367 MiB of tables plus as much "
        "Adagrad state) in a 1.3 GB cgroup-v1 memory cgroup; the kernel's cgroup OOM killer kills the ps while it "
        "builds the tables, the trainers' TensorPipe agents see eof and torchrun tears down. evidence: 'failed "
        "(exitcode: -9) local_rank: 0', 'exitcode  : -9 (pid: 2337)  (SIGKILL)', 'RPC agent for trainer2 encountered "
        "error when reading incoming request from ps: eof', 'job exited with 1'"),
    "torchrun-ctr-snapshots": (
        "disk_full: checkpoints/ is a 40 MB tmpfs already holding 12 MB of an earlier run's archive; the first 15.3 "
        "MiB snapshot fits, the second does not and torch.save fails on the ps. evidence: '[ps] saved embedding tables "
        "to checkpoints/embeddings-epoch001.pt (15.3 MiB)', 'RuntimeError: basic_ios::clear: iostream error', "
        "'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 12801856 vs 12801744', 'job exited "
        "with 1'"),
    "torchrun-ctr-ssh-closed": (
        "terminal_hangup: SIGHUP to the job's process group in epoch 2 (the terminal that started torchrun closed); "
        "torchrun forwards it to the workers and raises. evidence: 'Received 1 death signal, shutting down workers', "
        "'Sending process 2778 closing signal SIGHUP', 'SignalException: Process 2749 got signal: 1' (no 'job exited' "
        "line: the shell got the SIGHUP too)"),
    "torchrun-ctr-trainer-stopped": (
        "silent_hang: trainer2 (the process with RANK=2) stopped with SIGSTOP from outside at epoch 1 step 50; "
        "trainer1 finishes its epoch and waits in rpc.shutdown, the ps waits on trainer2's train_epoch future (no "
        "timeout on the epoch call): nothing is printed for ~90 s until the user's Ctrl-C (SIGINT to the group), after "
        "which torchrun SIGKILLs the ps and trainer2. evidence: last trainer2 line '[trainer2] epoch 1 step 50/156', "
        "'[trainer1] epoch 1 step 156/156', then 'Received 2 death signal, shutting down workers', 'Unable to shutdown "
        "process 2969 via 2, forcefully exiting via 9', 'SignalException: Process 2960 got signal: 2', 'job exited "
        "with 1'"),
    "torchrun-ctr-second-node": (
        "rendezvous_timeout: torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint "
        "127.0.0.1:30719 --rdzv-conf join_timeout=60; the second node's torchrun was never started, so the c10d "
        "rendezvous never completes and the agent gives up after 60 s before any worker starts. evidence: "
        "'self._rendezvous(worker_group)', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
        "'job exited with 1'"),
    "spawn-ctr-healthy-keep-one": (
        "python train_ctr.py --spawn 3 --port 30720 (torch.multiprocessing.spawn): ps + 2 trainers, 3 epochs, "
        "--keep 1 removes older snapshots. Harmless noise: ProcessGroupGloo UserWarning, TorchScript "
        "DeprecationWarning, TensorPipe eof warnings at shutdown. evidence: '[ps] epoch 3/3: 312 steps, 936 pushes, "
        "train loss 0.5696, val auc 0.7004', '[ps] finished 3 epochs in 5.4 s', 'job exited with 0'"),
    "spawn-ctr-time-limit": (
        "job_preempted: SIGTERM from outside to every python process of the job (the spawn parent and its 3 "
        "children) in epoch 3 of a 30-epoch run; they die on the default SIGTERM action and the shell reports it. "
        "evidence: last lines '[trainer1] epoch 3 step 125/156 ...', 'Terminated', 'job exited with 143'"),
    "roles-ctr-healthy-late-trainer": (
        "run_roles.sh (each role started with MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE): ranks 0,1 on node 0, rank 2 "
        "on node 1 started 20 s later; init_rpc waits for it and the 3 epochs complete. evidence: node0 'started ranks "
        "0 1 of 3', node1 'started ranks 2 of 3', '[ps] rpc ready: ps, trainer1, trainer2', '[ps] finished 3 epochs "
        "in 13.8 s', both 'job exited with 0'"),
    "spawn-ctr-healthy-resume": (
        "python train_ctr.py --spawn 3 --port 30721: an earlier 1-epoch job (not logged) left "
        "checkpoints/embeddings-epoch001.pt; this run resumes the tables and tower from it and trains 2 more epochs "
        "into a new --ckpt-dir. evidence: '[ps] resumed from checkpoints/embeddings-epoch001.pt (epoch 1, val auc "
        "0.6903)', '[ps] epoch 2/2: 312 steps, 624 pushes, train loss 0.5696, val auc 0.7004', '[ps] finished 2 epochs "
        "in 3.6 s', 'job exited with 0'"),
    "spawn-ctr-second-experiment": (
        "port_in_use: a colleague's torchrun job (master port 30723, 50 epochs) is still running on the host; this "
        "mp.spawn run is started with --port 30723 and rank 0's init_rpc cannot create the env:// TCPStore server; "
        "mp.spawn terminates the trainers. evidence: 'torch.distributed.DistNetworkError: The server socket has failed "
        "to listen on any local network address. port: 30723, useIpv6: false, code: -98, name: EADDRINUSE, message: "
        "address already in use' (in rpc.init_rpc), '-- Process 0 terminated with the following error:', 'job exited "
        "with 1'"),
    "spawn-ctr-rpc-threads": (
        "silent_hang: --rpc-threads 1 (one TensorPipe worker thread per process): each trainer's only RPC thread "
        "runs train_epoch, which blocks on RPC work that needs a free thread (the RRef and distributed-autograd "
        "messages of its first step), a thread-starvation deadlock; no RPC timeout fires and nothing is printed after the "
        "trainers load their shards. After ~2 min the user presses Ctrl-C twice (SIGINT to the group): KeyboardInterrupt "
        "in the spawn parent, the ps's epoch future fails with TensorPipe eof, the parent's atexit join is interrupted. "
        "evidence: 'rpc_threads=1' in the args, last progress '[trainer1] loaded shard-00.npz: 40000 impressions', then "
        "'KeyboardInterrupt', 'RPC agent for ps encountered error when reading incoming response from trainer1: eof', "
        "'Exception ignored in atexit callback' (no 'job exited' line: the shell got the SIGINT too)"),
    "roles-ctr-device-feature": (
        "worker_exception: run_roles.sh on two 'hosts' (ranks 0,1 on node 0; rank 2 on node 1, started 3 s later); "
        "node 1's trainer2 reads --data data-v2, a newer export with a fifth dense feature (device type), while the "
        "ps's tower was built for the four of data/meta.json. The tower's forward raises on the ps in trainer2's first "
        "step; RPC carries it back to trainer2 and, from its train_epoch, to the ps. No launcher tears the roles down: "
        "after the tracebacks the processes hang and the job was ended from outside after 100 s (no 'job exited' "
        "line). evidence: node1 \"RuntimeError: RuntimeError: On WorkerInfo(id=0, name=ps):\", \"RuntimeError: mat1 "
        "and mat2 shapes cannot be multiplied (256x53 and 52x64)\" (in 'logit = tower_rref.rpc_sync().forward(...)'); "
        "node0 \"RuntimeError: RuntimeError: On WorkerInfo(id=2, name=trainer2):\" (in run_ps 'results = [f.wait() "
        "for f in futs]'), '[trainer1] epoch 1 step 156/156', 'RPC agent for trainer1 encountered error when reading "
        "incoming request from ps: eof'"),
    "hosts-ctr-trainer-host-lost": (
        "peer_process_died: run_roles.sh on two 'hosts' (ranks 0,1 on node 0; rank 2 on node 1); in epoch 3 every "
        "process of node 1 is SIGKILLed at once (the host lost). Only node 0's console is kept: it never shows why "
        "trainer2 went away. The ps's TensorPipe agent sees trainer2's connection close and trainer2's epoch future "
        "fails; trainer1 finishes its epoch; the roles then hang and the job was ended from outside after 100 s (no "
        "'job exited' line). evidence: 'RPC agent for ps encountered error when reading incoming response from "
        "trainer2: eof (this error originated at tensorpipe/transport/shm/connection_impl.cc:259)', 'RuntimeError: eof "
        "(this error originated at tensorpipe/transport/shm/connection_impl.cc:259)' (in run_ps 'results = [f.wait() "
        "for f in futs]'), 'RPC agent for ps encountered error when sending outgoing request #4875 to trainer2: eof'"),
    "spawn-ctr-fast-auc": (
        "native_crash: python train_ctr.py --spawn 3 --fast-auc: the ps scores validation AUC with a C helper "
        "(fastauc.c, built with gcc before the job, called through ctypes) that keeps a fixed 65,536-row bucket array "
        "on its stack; the validation set was re-exported with 120,000 rows, so the helper writes past its stack and "
        "the ps dies of SIGSEGV at the first evaluation (after the epoch's training steps); mp.spawn terminates the "
        "trainers. evidence: 'fast_auc=True' in the args, '[trainer1] epoch 1 step 156/156', 'RPC agent for trainer1 "
        "encountered error when reading incoming request from ps: eof', 'torch.multiprocessing.spawn."
        "ProcessExitedException: process 0 terminated with signal SIGSEGV', 'job exited with 1'"),
}
