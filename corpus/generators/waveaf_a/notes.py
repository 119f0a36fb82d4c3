"""What each committed wave AF (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "mpnn.py (molecular property regressor: message-passing neural network over synthetic molecular graphs, element/" \
    "degree/bond-order embeddings, GRU updates, sum+mean readout, MSE, validation MAE, gloo)"
NOTES = {
    "torchrun-molprop-healthy":
        f"torchrun, 2 ranks, {W}, 2 shards of 1100 molecules, 6 epochs; healthy: val MAE falls to 0.0156 eV, checkpoint "
        "every epoch. evidence: \"rank 0: shards ['train-00.jsonl'], 1100 molecules\", 'eval epoch 5: train loss 0.0005 "
        "val MAE 0.0156 eV (256 molecules)', 'done: 6 epochs', 'job exited with 0'",
    "torchrun-molprop-export-with-hydrogens-stripped":
        f"torchrun, 2 ranks, {W}; a refreshed export of shard train-01.jsonl stripped explicit hydrogens from three "
        "molecules' atom lists but kept their bonds to them, so bond indices point past the last atom; rank 1's "
        "Dataset raises IndexError computing atom degrees in the first batch holding one, rank 0 then loses its peer "
        "in the DDP all-reduce. evidence: '[rank1]:   File \"/tmp/waveaf-a-job/run/mpnn.py\", line 152, in degree', "
        "'[rank1]: IndexError: index out of range in self', rank 0's 'Connection closed by peer', torchrun's root cause "
        "'rank : 1 (local_rank: 1) exitcode : 1', 'job exited with 1'",
    "torchrun-molprop-val-mae-by-size":
        f"torchrun, 2 ranks, {W} with --size-buckets: validation MAE per 10-atom size bucket, the number of buckets "
        "taken from each rank's own largest validation molecule; the validation set now holds a 120-atom molecule "
        "(in rank 0's round-robin slice), so rank 0 all-reduces 13 buckets and rank 1 four: gloo aborts rank 1 on the "
        "size mismatch after the first epoch's training, rank 0 sees the connection reset. evidence: \"'size_buckets': "
        "True\", \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", 'op.preamble.length <= "
        "op.nbytes. 28 vs 8. Received data size doesn't match expected size. Is there a distributed collective "
        "mismatch in your code?', 'exitcode : -6 ... (SIGABRT)', 'job exited with 1'",
    "torchrun-molprop-graph-depth-feature":
        f"torchrun, 2 ranks, {W} with --depth-feature: a recursive graph-depth feature (longest path from atom 0) "
        "written for trees, that only avoids stepping back to the parent atom, with sys.setrecursionlimit(10**6) so no "
        "RecursionError stops it; on molecules with rings it walks round the ring without end until the C stack "
        "overflows (the generator expression inside max() recurses through C): SIGSEGV while building the Dataset. "
        "evidence: \"'depth_feature': True\", 'Fatal Python error: Segmentation fault', repeated 'File "
        "\"/tmp/waveaf-a-job/run/mpnn.py\", line 40 in eccentricity' / 'in <genexpr>' frames, 'exitcode : -11 ... "
        "(SIGSEGV)', 'job exited with 1'",
    "torchrun-2node-molprop-rdzv-id-from-previous-launch":
        f"two torchrun agents ('nodes' node0.log and node1.log, one process each) for {W} with the c10d rendezvous on "
        "127.0.0.1:29587 and join_timeout=60; the second node was started with the --rdzv-id of the previous launch "
        "(molprop-0411 instead of molprop-0412), so each agent waits for two nodes under its own rendezvous id and no "
        "rendezvous completes: node 0 (the store host) raises RendezvousTimeoutError after 60 s and exits, then node 1 "
        "loses the store. evidence: node0 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', node1 "
        "\"has failed to shutdown the rendezvous 'molprop-0411' due to an error of type RendezvousConnectionError\", "
        "'Failed to recv, got 0 bytes. Connection was likely closed.', 'job exited with 1' on both",
    "mpirun-molprop-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, 3 shards of 800 molecules, 6 epochs; healthy. evidence: \"rank 2: shards "
        "['train-02.jsonl'], 800 molecules\", 'eval epoch 5: train loss 0.0005 val MAE 0.0164 eV (256 molecules)', "
        "'done: 6 epochs', 'job exited with 0'",
    "mpirun-molprop-missing-value-marker":
        f"Open MPI mpirun -np 2, {W} with gradient clipping turned off (--clip-norm 0) and lr 2e-3; training shard "
        "train-00.jsonl holds four molecules whose missing property was exported as float32's maximum (3.4028e38) "
        "instead of being dropped; the squared error of such a batch overflows to inf, its gradients to inf/NaN, Adam "
        "writes NaN into every weight (all-reduced to both ranks), and from the first logged step the loss, gradient "
        "norm and validation MAE are NaN while the run goes on uselessly to exit 0. evidence: \"'clip_norm': 0.0\", "
        "\"rank 0: shards ['train-00.jsonl'], 640 molecules, atoms 6-38 (mean 22.2), y min -2.509 max 3.403e+38 mean "
        "2.127e+36\", 'epoch 0 step 5 loss nan grad-norm nan', 'eval epoch 2: train loss nan val MAE nan eV', 'job "
        "exited with 0'",
    "mpirun-molprop-ring-perception-fused-lattices":
        f"Open MPI mpirun -np 2, {W} with --ring-features (a pure-Python ring perception enumerating every simple cycle "
        "of each molecule in __getitem__) and a 30 s process-group timeout; rank 1's shard holds three fused 7x7 ring "
        "lattices (49 atoms), whose simple cycles number in the millions, so rank 1 stops in its Dataset while rank 0 "
        "waits in DDP's gradient all-reduce; after 30 s gloo times out on rank 0, mpirun aborts the job and rank 1 "
        "gets SIGTERM still inside ring perception. evidence: \"'ring_features': True\", \"'pg_timeout': 30\", "
        "\"rank 1: shards ['train-01.jsonl'], 643 molecules, atoms 6-49\", 'epoch 0 step 5 loss 0.0624' then nothing "
        "for 30 s, '[rank0]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for "
        "recv operation to complete', 'rank 1: received SIGTERM', 'job exited with 1'",
    "mpirun-molprop-master-port-feature-server":
        f"Open MPI mpirun -np 2, {W}, MASTER_PORT=29747; a multiprocessing BaseManager feature server started earlier "
        "on the same host already listens on 29747: rank 0 cannot bind the TCPStore (EADDRINUSE) and rank 1 connects "
        "to the feature server instead of the store (bad ping reply). evidence: 'The server socket has failed to listen "
        "on any local network address. port: 29747, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
        "already in use', 'TCP client failed to connect/validate to host 127.0.0.1:29747 - retrying (try=0, ...): Ping "
        "failed, invalid value returned from server', 'mpirun detected that one or more processes exited with "
        "non-zero status', 'job exited with 1'",
    "deepspeed-molprop-healthy":
        f"DeepSpeed launcher, 2 ranks (CPU accelerator, torch Adam, ZeRO stage 0), {W}, 6 epochs; healthy (the "
        "launcher's CUDA_VISIBLE_DEVICES and 'Setting accelerator to CPU' lines are normal here). evidence: 'eval "
        "epoch 5: train loss 0.0005 val MAE 0.0180 eV (256 molecules)', 'done: 6 epochs', 'job exited with 0'",
    "deepspeed-molprop-featurised-cache-volume":
        f"DeepSpeed launcher, 2 ranks, {W} with --cache-dir cache: each rank featurises its shard (records plus "
        "hop-distance matrices, ~3 MB) and saves it to cache/, a 5 MB volume already holding 1 MB of old files; the "
        "writes fail with ENOSPC on both ranks (rank 1's torch.save also reports the short write) and the launcher "
        "kills the job. evidence: \"'cache_dir': 'cache'\", '[rank0]: OSError: [Errno 28] No space left on device', "
        "'[rank1]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0', 'exits with "
        "return code = 1', 'job exited with 1'",
    "deepspeed-molprop-spot-reclaim":
        f"DeepSpeed launcher, 2 ranks, {W}, --epochs 30; in epoch 3 the job's whole process group gets SIGTERM, as a "
        "spot-instance reclaim delivers it: the launcher's handler kills its subprocesses, both ranks' handlers "
        "checkpoint and exit with 143; the shell is stopped too, so there is no exit line. evidence: '[INFO] "
        "[launch.py:253:sigkill_handler] Killing subprocess', 'rank 0: received SIGTERM, will checkpoint and exit "
        "after this step', 'rank 1: exiting on SIGTERM at epoch 3 step 136', no error before it",
    "accelerate-molprop-healthy-resume-counter-ions":
        f"accelerate launch, 2 ranks, {W}, resumed (--resume) from the checkpoint of an older 2-step model (epoch 1) "
        "and run to 7 epochs; the validation set holds five counter-ion records without bonds; alarming-looking but "
        "harmless warnings on both ranks, the run is healthy. evidence: 'UserWarning: 5 validation records have no "
        "bonds (single atoms / counter-ions); they are kept as 1-atom graphs', \"UserWarning: rank 0: ckpt/last.pt does "
        "not match the model (missing 2, unexpected 0 keys: ['msg.2.weight', 'msg.2.bias']); loaded what matched\", "
        "'rank 0: resumed from ckpt/last.pt (epoch 1, val MAE 0.2113)', 'eval epoch 6: train loss 0.0009 val MAE "
        "0.0214 eV (256 molecules)', 'done: 7 epochs', 'job exited with 0'",
    "accelerate-molprop-dense-hop-geometry":
        f"accelerate launch, 2 ranks, {W} with --dense-geom: a one-hot hop-distance tensor (16 bins) for every "
        "molecule, padded to the largest molecule of the whole training set, precomputed in the Dataset; rank 1's "
        "shard holds three ~900-atom records, so each molecule's tensor is 912 x 912 x 16 floats (~53 MB) and the "
        "job's 1.2 GB memory cgroup is exhausted within a second: the kernel OOM killer sends SIGKILL to rank 1. "
        "evidence: \"rank 1: shards ['train-01.jsonl'], 643 molecules, atoms 6-912\", 'dense geometry features: "
        "hop-distance one-hot, padded to 912 atoms, 16 bins', 'failed (exitcode: -9) local_rank: 1', 'Signal 9 "
        "(SIGKILL) received by PID', 'job exited with 1'",
    "accelerate-molprop-stats-reporter-loader-workers":
        f"accelerate launch, 2 ranks, {W} with --num-workers 2 --report-stats stats.jsonl: a stats-reporter thread "
        "holds its lock while flushing counters to a file (most of the time); DataLoader workers are forked while the "
        "lock is held, and collate() in each worker blocks forever on the inherited locked lock; no batch ever arrives, "
        "no timeout is set anywhere, the job prints nothing after start-up for 100 s and the user stops it with "
        "Ctrl-C. evidence: 'rank 0: stats reporter writing to stats.jsonl every 2 s', 'model: MPNN hidden 64' then "
        "no step line, 'Received 2 death signal, shutting down workers', both ranks' tracebacks in "
        "'data = self._data_queue.get(timeout=timeout)' under '_try_get_data', '[rank0]: KeyboardInterrupt', "
        "'job exited with 1'",
}
