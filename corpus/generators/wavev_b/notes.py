"""What each committed run of wave V set B showed (the manifest rows' notes), written after the runs."""

NOTES = {
    "mpspawn-realnvp-sensors-healthy": (
        "torch.multiprocessing.spawn, 2 ranks, gloo, gradients averaged by hand with all_reduce: RealNVP normalizing "
        "flow (6 affine couplings, 44K params) over 16-channel plant sensor readings, 8 epochs x 40 steps with grad "
        "clipping, rank 0 evaluates val bits/dim and fault AUROC and saves a checkpoint per epoch; healthy. evidence: "
        "'[rank 0] epoch 8: train nll -1.9462 | val -0.190 bits/dim, fault AUROC 0.975', '[rank 0] done', "
        "'[rank 1] done', 'all ranks finished', 'job exited with 0'"),
    "mpspawn-realnvp-sensors-dead-channel-unclamped-scale": (
        "mp.spawn 2 ranks, RealNVP with unclamped coupling scales exp(s); the training export filled a dead sensor "
        "(channel 9) with the site's nominal value, so that channel has zero variance after normalisation and the "
        "likelihood is unbounded: the flow shrinks it without limit, val NLL goes inf/nan, the train loss jumps to "
        "6.7e11 and the finiteness check stops rank 0 at epoch 6. Cause: the run diverged. evidence: "
        "'train-00000.npz: 20000 readings x 16 channels (normalised std min 0.000 ch9, ...', 'scale unclamped exp(s)', "
        "'[rank 0] epoch 1: train nll 13.6553 | val inf bits/dim', '[rank 0] epoch 2: train nll 670488723456.0000 | "
        "val nan bits/dim', 'FloatingPointError: rank 0: non-finite NLL inf at epoch 6 step 222'"),
    "mpspawn-realnvp-sensors-site-embedding-from-local-shard": (
        "mp.spawn 2 ranks with TORCH_DISTRIBUTED_DEBUG=DETAIL (printed by `env`), parameters broadcast from rank 0 "
        "at start; each rank sizes its per-site embedding table from the sites in its own shard, and rank 1's shard "
        "(from a newer export) has a newly commissioned site, so rank 0 broadcasts a [12, 16] table and rank 1 a "
        "[13, 16] one; DETAIL's fingerprint check reports the mismatch. evidence: '[rank 0] site embedding table: 12 "
        "sites', '[rank 1] site embedding table: 13 sites', 'RuntimeError: Detected mismatch between collectives on "
        "ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=36, OpType=BROADCAST, "
        "TensorShape=[12, 16] ... but Rank 1 is running collective: ... TensorShape=[13, 16]'"),
    "mpspawn-realnvp-sensors-rank0-bootstrap-auroc-ci": (
        "mp.spawn 2 ranks, process-group timeout 30 s; after epoch 1 rank 0 alone computes a percentile bootstrap CI "
        "of the fault AUROC (20000 resamples of 4000 readings in plain Python, minutes) while rank 1 goes on into "
        "epoch 2 and waits in the gradient all_reduce; gloo times out on rank 1 after 30 s and spawn terminates "
        "rank 0. evidence: 'init_process_group(gloo, ..., timeout=30s)', '[rank 0] bootstrap CI of the AUROC: 20000 "
        "resamples of 4000 readings', '-- Process 1 terminated with the following error:', 'average_grads', "
        "'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to "
        "complete'"),
    "mpspawn-realnvp-sensors-run-registry-on-master-port": (
        "mp.spawn 2 ranks; before init_process_group the script has rank 0 host a TCPStore 'run registry' (ranks "
        "register host/pid for a dashboard) on MASTER_ADDR:MASTER_PORT, then calls init_process_group with env://, "
        "whose store tries to listen on the same port in the same process. evidence: '[rank 0] registered in run "
        "registry 127.0.0.1:29648', '[rank 0] init_process_group(gloo, env://, world_size=2, 127.0.0.1:29648, ...)', "
        "'-- Process 0 terminated with the following error:', 'torch.distributed.DistNetworkError: The server socket "
        "has failed to listen on any local network address. port: 29648, useIpv6: false, code: -98, name: EADDRINUSE, "
        "message: address already in use'"),
    "mpspawn-realnvp-sensors-file-init-in-per-rank-rundir": (
        "mp.spawn 2 ranks, init_method file:// with a relative file name resolved after each rank chdir'd into its own "
        "output directory runs/run1/rank<r>, so the two ranks rendezvous in two different files and neither ever sees "
        "the other; init times out after 60 s. evidence: '[rank 0] init_process_group(gloo, init_method=file:///.../"
        "runs/run1/rank0/rdzv, world_size=2, timeout=60s)', '[rank 1] init_process_group(gloo, init_method=file:///"
        ".../runs/run1/rank1/rdzv, ...)', '-- Process 0 terminated with the following error:', 'backend_class = "
        "ProcessGroupGloo(', 'RuntimeError: Wait timeout'"),
    "mpspawn-realnvp-sensors-threshold-calibration-cgroup": (
        "mp.spawn 2 ranks inside a 2 GiB memory cgroup (a container limit); after epoch 1 each rank draws 6M samples "
        "from the flow at once to calibrate the alarm threshold; the kernel's cgroup OOM killer kills rank 1 and spawn "
        "terminates rank 0 (dmesg printed after the job). evidence: '[rank 0] epoch 1 step 40: nll 9.4637', "
        "'torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL', "
        "'oom-kill:constraint=CONSTRAINT_MEMCG,... oom_memcg=/wavev-b-mpspawn-realnvp-sensors-threshold-calibration-"
        "cgroup', 'Memory cgroup out of memory: Killed process 15020 (python) total-vm:3150560kB, anon-rss:999360kB'"),
    "mpspawn-realnvp-sensors-envelope-rejection-sampling": (
        "mp.spawn 2 ranks; after epoch 1 each rank rejection-samples 10000 flow samples 'inside the operating "
        "envelope' |x| < 0.3 sd on all 16 channels, which almost no sample satisfies, so both ranks spin in the loop "
        "forever with nothing printed (no timeout fires: the ranks are computing, not waiting); the console is quiet "
        "for 60 s and the user presses Ctrl-C. evidence: '[rank 0] epoch 1 step 40: nll 9.4637', '[rank 0] drawing "
        "10000 calibration samples inside the operating envelope (|x| < 0.3 sd on every channel)', '[rank 1] drawing "
        "10000 calibration samples ...' as the last lines, then the launcher's 'KeyboardInterrupt' traceback in "
        "spawn's join"),
    "torchrun-realnvp-sensors-profiler-traces-small-volume": (
        "torchrun --nproc-per-node 2, DDP over gloo, torch.profiler (record_shapes, with_stack, repeating schedule) "
        "writing chrome traces (~12 MB each per rank) to a 48 MB scratch volume that also holds the checkpoints; "
        "the profiler's trace writes start failing, then rank 0's torch.save of the epoch-1 checkpoint fails on the "
        "full volume; rank 1 sees the connection close and torchrun tears down. df/du after the job show the volume "
        "full of traces. evidence: 'tmpfs 48M 0 48M 0% .../scratch', 'ERROR:... output_json.cpp:977] Failed to write "
        "to log file!', '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce "
        "fail at inline_container.cc:672] . unexpected pos 64 vs 0', 'tmpfs 48M 48M 0 100% .../scratch', "
        "'48M .../scratch/profiler'"),
    "torchrun-realnvp-sensors-launch-terminal-closed": (
        "torchrun --nproc-per-node 2 started from an interactive shell, 60 epochs; after 40 s the terminal closed "
        "(SIGHUP to the job's process group); torchrun's agent forwards SIGHUP to the workers and exits. evidence: "
        "'[rank 0] epoch 12: train nll -5.5288 | val -0.498 bits/dim', 'Received 1 death signal, shutting down "
        "workers', 'Sending process 15319 closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 15314 got signal: 1'"),
    "torchrun-realnvp-sensors-node-drain-sigterm": (
        "torchrun --nproc-per-node 2, 60 epochs; after 45 s the node was drained and the job's processes got SIGTERM "
        "(training healthy until then); torchrun's agent shuts the workers down. evidence: '[rank 0] epoch 19 step "
        "1140: nll -6.6332', 'Received 15 death signal, shutting down workers', 'Sending process 19089 closing signal "
        "SIGTERM', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19068 got signal: 15'"),
    "lightning-realnvp-sensors-healthy-warnings": (
        "Lightning 2.6 Trainer, strategy ddp on CPU, 2 processes: LitFlow (RealNVP), IterableDataset of reading "
        "batches, ModelCheckpoint(val_bpd) + LearningRateMonitor, cosine LR, 5 epochs; healthy, with harmless "
        "warnings (srun available but not used, a LeafSpec deprecation from Lightning's pytree helper printed by both "
        "ranks). evidence: 'The `srun` command is available on your system but is not used', '`isinstance(treespec, "
        "LeafSpec)` is deprecated', '[rank 0] epoch 4: val 0.211 bits/dim, fault AUROC 0.950', 'best checkpoint: "
        ".../ckpt/epoch=4-step=200.ckpt (val_bpd 0.211)', 'job exited with 0'"),
    "lightning-realnvp-sensors-new-site-stale-stats": (
        "Lightning ddp on CPU, 2 processes; train shard 1 was replaced by a newer export that includes a newly "
        "commissioned site S12, but data/site_stats.json (per-site normalisation) was not refreshed, so rank 1's "
        "IterableDataset raises KeyError when normalising its first shard; rank 0 then sees the gloo connection "
        "closed. Cause: user code/data on rank 1. evidence: '[rank1]:   File \".../flow.py\", line 330, in __iter__', "
        "'[rank1]:     mean = np.stack([stats[str(s)][\"mean\"] for s in site])', \"[rank1]: KeyError: 'S12'\", "
        "'[rank0]: RuntimeError: [.../gloo/transport/tcp/pair.cc:553] Connection closed by peer'"),
    "raytrain-realnvp-sensors-healthy": (
        "Ray Train TorchTrainer on a local Ray 2.60 cluster, 2 workers x 0.5 CPU, RealNVP DDP over gloo, checkpoint "
        "per epoch (keep 2), 5 epochs; healthy. evidence: \"Requesting resources: {'CPU': 0.5} * 2\", 'training "
        "finished: {'epoch': 5, 'train_nll': -0.3436..., 'val_bpd': -0.0888..., 'val_auroc': 0.9699...}', "
        "'job exited with 0'"),
    "raytrain-realnvp-sensors-accelerator-type-a100": (
        "Ray Train TorchTrainer with ScalingConfig(accelerator_type='A100') copied from the GPU cluster config, on a "
        "CPU-only local Ray cluster: the worker group asks for accelerator_type:A100 which no node has; the autoscaler "
        "reports the request unfulfillable and the controller keeps retrying worker-group start-up (60 s timeouts); "
        "the user presses Ctrl-C at 120 s, then again, then kills it. evidence: \"Requesting resources: {'CPU': 0.5, "
        "'accelerator_type:A100': 0.001} * 2\", \"(autoscaler +8s) Error: No available node types can fulfill "
        "resource request {'accelerator_type:A100': 0.001, 'CPU': 0.5}\", 'WorkerGroupStartupTimeoutError: The "
        "worker group startup timed out after 60.0 seconds waiting for 2 workers', 'Received SIGINT. Gracefully "
        "aborting the training run'"),
    "raytrain-realnvp-sensors-shard-with-commissioned-sites": (
        "Ray Train TorchTrainer, 2 workers; train shard 1 comes from a newer export with two newly commissioned sites "
        "while data/site_stats.json is the old one, so worker rank 1 raises KeyError normalising its shard before "
        "training; with the default FailureConfig no retry is allowed and the run fails. evidence: '[Rank 1 Error Snippet]:', 'File "
        "\".../flow.py\", line 406, in ray_loop', 'mean = np.stack([stats[str(s)][\"mean\"] for s in site])', "
        "\"KeyError: 'S13'\", 'ray.train.WorkerGroupError: Training failed due to worker errors:'"),
    "raytune-realnvp-sensors-depth-sweep-healthy": (
        "Ray Tune grid over coupling depth (4, 6, 8 layers), 1 CPU per trial on a 2-CPU local Ray cluster, 4 epochs "
        "each; the third trial waits as PENDING until a slot frees (harmless), all complete. evidence: 'Trial status: "
        "3 PENDING', 'Trial tune_trainable_247fa_00002 completed after 4 iterations', 'best depth 8: val 0.047 bits/dim, AUROC 0.964', "
        "'job exited with 0'"),
    "torchrun-2node-realnvp-sensors-node1-log-only": (
        "Two torchrun agents (--nnodes 2, --nproc-per-node 1, static rendezvous at 127.0.0.1:29670; node 0 hosts the "
        "store), DDP over gloo, 400 epochs; this is node 1's console only. After 30 s node 0's worker (rank 0) was "
        "killed with SIGKILL from outside (its own log, not part of this one, shows exitcode -9); rank 1, healthy "
        "until then, fails in DDP's buffer broadcast when its peer's connection resets, and node 1's torchrun reports "
        "rank 1 as the first observed failure on this node. The first failure is not in this log: the peer process "
        "died. evidence: '[rank 1] epoch 53 step 2120: nll -8.3150 (-0.750 bits/dim) 43672 readings/s', "
        "'[rank1]: RuntimeError: [.../gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:18825: Connection reset "
        "by peer', 'failed (exitcode: 1) local_rank: 0 (pid: 23007)', 'rank      : 1 (local_rank: 0)', "
        "'job exited with 1'"),
}
