"""What each committed wave AL (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "molgnn.py (JAX message-passing GNN for molecular property regression: synthetic molecules as graphs of atoms and " \
    "bonds, element embeddings, 3 segment-sum message-passing layers, per-molecule sum readout, MSE on the standardised " \
    "property; jax.distributed with gloo CPU collectives, shard_map data parallelism over a 'data' mesh, gradients " \
    "pmean'd; validation MAE psum'd over every device; process 0 writes npz checkpoints)"
LOOP = "launch_local.sh shell loop starting processes with explicit --coordinator/--num-processes/--process-id"
MPI = "Open MPI mpirun (JAX reads the process count and id from OMPI_* variables, the port from JAX_COORDINATOR_PORT)"
NOTES = {
    # --- shell loop
    "loop-mol-healthy":
        f"{LOOP}, 2 processes x 2 CPU devices, {W}, 6 epochs, with the site's http_proxy/https_proxy/no_proxy in the "
        "environment (no_proxy exempts 127.0.0.1): JAX warns on both processes that proxy variables may hang "
        "distributed.initialize (harmless here) and the run trains to the end. evidence: 'JAX detected proxy variable(s) "
        "in the environment as distributed setup: no_proxy https_proxy http_proxy. On some systems, this may cause a hang "
        "of distributed.initialize', 'done: 6 epochs, best val MAE 52.5915', 'job exited with 0'",
    "loop-mol-healthy-compile-cache":
        f"{LOOP}, 2 processes x 2 devices, {W}, 6 epochs, --compile-cache pointing JAX's persistent compilation cache at "
        "a 192 KB volume: the cache fills up and JAX warns that it cannot write the train and eval step entries "
        "(errno 28), but the cache is only an optimisation and the run trains to the end. evidence: \"UserWarning: Error "
        "writing persistent compilation cache entry for 'jit__train_local': OSError: [Errno 28] No space left on "
        "device\", 'done: 6 epochs, best val MAE 52.5915', 'job exited with 0'",
    "loop-mol-new-login-profile":
        f"{LOOP}, 2 processes x 2 devices, {W}: the user's new login profile exports http_proxy/https_proxy without a "
        "no_proxy exemption for local addresses; gRPC sends the processes' connections to the coordination service on "
        "127.0.0.1:29735 through the (unreachable) proxy, no process registers with the coordinator, and after the "
        "default 300 s initialization timeout both abort in jax.distributed.initialize. evidence: 'JAX detected proxy "
        "variable(s) in the environment as distributed setup: https_proxy http_proxy', 'Terminating process because the "
        "JAX distributed service detected fatal errors ... DEADLINE_EXCEEDED: Deadline Exceeded', 'RPC: "
        "/xla.coordination.CoordinationService/RegisterTask', faulthandler stack in distributed.py initialize, 'job "
        "exited with 134'",
    "loop-mol-new-vendor-export":
        f"{LOOP}, 2 processes x 2 devices, {W}: training shard-01 was replaced by a new vendor export that includes "
        "organoselenium compounds; the element vocabulary in meta.json has no 'Se', so featurisation on process 1 "
        "raises before training. Process 0 waits for it in the first collective (the target statistics all-gather) and "
        "gives up when the gloo context cannot be formed. evidence: \"KeyError: np.str_('Se')\" in _symbols_to_index "
        "(process 1, shard-01), process 0 'Gloo context initialization failed: DEADLINE_EXCEEDED: GetKeyValue() timed "
        "out with key: cpu:gloo/0,2048/1', 'job exited with 1'",
    "loop-mol-distance-features":
        f"{LOOP}, 2 processes x 2 devices, {W}, --rbf 16 (Gaussian bond-length features plus 1/r): training shard-01 was "
        "re-exported from a conformer generator whose failed embeddings were written as all-zero coordinates (~0.3 % "
        "of molecules); bonded atoms at the same point give r = 0, 1/r = inf, the forward pass is NaN, NaN gradients "
        "are averaged into every replica's weights, and the script's non-finite check stops the job at its first "
        "logged step. evidence: 'epoch 1 step 5 loss nan', 'ERROR: non-finite loss nan at step 5, stopping', 'job "
        "exited with 1'",
    "loop-mol-checkpoint-history":
        f"{LOOP}, 2 processes x 2 devices, {W}, 8 epochs, --keep-epochs (keep every epoch's checkpoint besides last and "
        "best) with ckpt/ on a 1 MB volume already holding 300 KB of previous runs: np.savez of epoch-03.npz fails on "
        "process 0 with errno 28; process 1 waits in the next gradient all-reduce, process 0 waits in the shutdown "
        "barrier, and after its 300 s timeout both are terminated. evidence: 'saved ckpt/epoch-02.npz', 'OSError: "
        "[Errno 28] No space left on device' in np.savez (zipfile write) from save(), 'Shutdown barrier in coordination "
        "service has failed:', 'DEADLINE_EXCEEDED: Barrier timed out', '# of tasks that reached the barrier: 1/2', "
        "'Terminating process because the JAX distributed service detected fatal errors', 'job exited with 134'",
    "loop-mol-atom-budget":
        f"{LOOP}, 2 processes x 2 devices, {W}, --atom-budget 400 (device batches filled by atom count): the validation "
        "set gained two large molecules (~450 atoms, more than the budget); the budget sampler defers a molecule that "
        "does not fit, so once only the large one is left it rotates it forever. Both processes (each got one of them) "
        "spin in budget_groups at the first evaluation; no error, no timeout (gloo collectives do not time out). After "
        "70 quiet seconds the user sent SIGUSR1 (faulthandler dumps) and then killed the processes with SIGKILL. "
        "evidence: last progress 'epoch 1 step 30 loss 0.8027', two dumps 'File \".../molgnn.py\", line 242 in "
        "budget_groups' / 'line 257 in make_groups' / 'line 401 in evaluate', './launch_local.sh: line 17: ... Killed' twice, "
        "'job exited with 137'",
    "loop-mol-spot-preemption":
        f"{LOOP}, 2 processes x 2 devices, {W}, 12 epochs: the node is reclaimed in epoch 2 and every training process "
        "gets SIGTERM from outside; JAX's preemption notifier catches it, the processes agree on a sync step through "
        "the coordination service (multihost_utils.reached_preemption_sync_point), process 0 saves and all exit 143. "
        "evidence: 'preemption_notifier.cc:90] SIGTERM caught at ...' (two processes), 'preemption notice at step 60: "
        "saving and exiting', 'saved ckpt/preempted.npz', 'job exited with 143'",
    "loop-mol-inplace-reexport":
        f"{LOOP}, 2 processes x 2 devices, {W}, --mmap (shards memory-mapped and read per batch): after epoch 1 the data "
        "pipeline re-exported training shard-01 in place with 250 instead of 600 molecules (np.save truncates and "
        "rewrites coords.npy); process 1's mapping now reaches past the end of the file and the next read raises SIGBUS. "
        "Process 0's all-reduce fails, and the coordinator declares task 1 dead after the heartbeat timeout. evidence: "
        "'Fatal Python error: Bus error' with the stack in pack/batches, process 0 'Gloo all-reduce failed ... Connection "
        "reset by peer', 'Task 1 heartbeat timeout', './launch_local.sh: line 17: ... Bus error', "
        "'job exited with 134'",
    "loop-mol-eval-main-only":
        f"{LOOP}, 2 processes x 2 devices, {W}, --eval-on main (validation only on process 0 'to save time'): the eval "
        "step is a program over the global mesh, so process 0 enters its psum while process 1 goes on to the next "
        "epoch's gradient all-reduce; gloo sees different message sizes and aborts process 1, then process 0. evidence: "
        "\"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. "
        "4096 vs 4. Received data size doesn't match expected size. Is there a distributed collective mismatch in your "
        "code?', process 0 'Gloo all-reduce failed ... Connection reset by peer', 'job exited with 134'",
    "nodes-mol-host-lost":
        f"two 'nodes' each running launch_local.sh with 2 processes (4 processes, coordinator 127.0.0.1:29719), {W}, 10 "
        "epochs; node 1's host is lost in epoch 2 (everything on it SIGKILLed). Only node 0's console is kept: its "
        "processes' all-reduce fails with the peer connection closed and the coordinator declares task 2 dead by "
        "heartbeat timeout; nothing in this log says why node 1 went away. evidence: 'Gloo all-reduce failed: "
        "[external/gloo/gloo/transport/tcp/pair.cc:547] Connection closed by peer' (both processes), 'Task 2 heartbeat "
        "timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly', 'The "
        "following tasks are unhealthy (stopped sending heartbeats)', 'job exited with 134'",
    # --- Open MPI
    "mpirun-mol-healthy-3-ranks":
        f"{MPI}, 3 processes x 1 device, {W}, --dtype float64 --global-batch 48, 6 epochs: without jax_enable_x64 the "
        "parameters are created as float32 and JAX warns on every process; otherwise healthy. evidence: 'UserWarning: "
        "Explicitly requested dtype float64 is not available, and will be truncated to dtype float32', 'done: 6 epochs, "
        "best val MAE 56.4307', 'job exited with 0'",
    "mpirun-mol-healthy-resume":
        f"{MPI}, 2 processes x 2 devices, {W}: resumes from ckpt/last.npz written by an earlier 2-epoch run and trains "
        "epochs 3-6 to the end. evidence: 'resumed from ckpt/last.npz: epoch 2', 'done: 6 epochs, best val MAE "
        "44.8973', 'job exited with 0'",
    "mpirun-mol-heavy-atom-graph":
        f"{MPI}, 2 processes x 2 devices, {W}, --drop-hydrogens: the option selects heavy atoms with a boolean mask "
        "inside the jitted, shard_mapped train step, which JAX cannot trace (data-dependent shape); both processes raise "
        "at the first step and mpirun aborts the job. evidence: 'h, amask = h[heavy], amask[heavy]' in forward, "
        "'jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete; got bool[610]', 'mpirun "
        "detected that one or more processes exited with non-zero status', 'job exited with 1'",
    "mpirun-mol-radius-graph":
        f"{MPI}, 2 processes x 2 devices, {W}, --edges radius --cutoff 5.0 inside a 1.5 GB cgroup-v1 memory limit: the "
        "radius graph is built with one dense pairwise-distance array over all ~24k atoms of a process's shards "
        "(atoms x atoms x 3 float64), and the kernel OOM killer SIGKILLs rank 1 while loading. evidence: args "
        "'edges=radius cutoff=5.0', last lines '[p1] train: shards [...]', 'mpirun noticed that process rank 1 with PID "
        "0 on node vm exited on signal 9 (Killed).', 'job exited with 137'",
    "mpirun-mol-accum-config":
        f"{MPI}, 2 processes x 2 devices, {W}, --config train_config.json written for a 2-device setup (global_batch 64, "
        "micro_batch 16, accum_steps 2) now run on 4 devices: the batch check fails on both processes. evidence: "
        "'ValueError: global_batch (64) != micro_batch (16) x accum_steps (2) x devices (4)', 'mpirun detected that one "
        "or more processes exited with non-zero status', 'job exited with 1'",
    "mpirun-mol-team-site":
        f"{MPI}, 2 processes, {W}: PYTHONPATH points at the team's shared site directory, which pins jaxlib 0.9.2 (for an "
        "older cluster image); it shadows the venv's jaxlib 0.10.2 and jax refuses it at import. evidence: "
        "'RuntimeError: jaxlib is version 0.9.2, but this version of jax requires version >= 0.10.1.' in "
        "check_jaxlib_version, 'mpirun detected that one or more processes exited with non-zero status', 'job exited "
        "with 1'",
}
