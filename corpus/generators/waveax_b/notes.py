"""Manifest notes for wave AX (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("python run.py --master-port P [flags] (ZenML 0.98.0, default local stack: local orchestrator, SQLite store; "
     "load_readings -> clean_readings -> build_features -> train_model running torchrun --nproc-per-node 2 "
     "train_gearbox.py, DDP over gloo on CPU, via subprocess.run(check=True) -> evaluate), wind-farm gearbox-fault "
     "classifier on SCADA vibration/temperature readings")
NOTES = {
    "zen-gearbox-healthy": (
        f"no_failure: {W}, 3 epochs; every step finished, evaluate passes the accuracy gate; only noise is ZenML's "
        "pandas-materializer hint and a pandas date-parsing UserWarning. evidence: '[rank0] finished 3 epochs, val acc "
        "0.981', 'gearbox-fault model passed the accuracy gate, ready to publish', 'job exited with 0'"),
    "zen-gearbox-healthy-bad-timestamps": (
        f"no_failure: {W}; the export has 5 records with timestamp NaT that clean_readings logs at ERROR level and "
        "drops; training and evaluation succeed. evidence: \"record S0000000: unparseable timestamp 'NaT', dropped\", "
        "'kept 2395 records (5 dropped)', 'job exited with 0'"),
    "zen-gearbox-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 33105 makes the first torchrun fail with "
        "EADDRINUSE and the train_model step fail; the step has StepRetryConfig(max_retries=2, delay=10), the server is "
        "stopped meanwhile and ZenML's retry trains to the end (recovered fault). evidence: 'name: EADDRINUSE, message: "
        "address already in use', 'Sleeping for 10 seconds before retrying step `train_model`.', '[rank0] finished 3 "
        "epochs, val acc 0.981', 'job exited with 0'"),
    "zen-gearbox-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), --epochs 5 --resume: ZenML reuses the "
        "cached upstream steps, the ranks load checkpoints/last.pt and train epochs 3-5. evidence: 'Using cached "
        "version of step `build_features`.', '[rank0] resumed from checkpoints/last.pt (epoch 2)', '[rank0] finished 5 "
        "epochs, val acc 0.998', 'job exited with 0'"),
    "zen-gearbox-healthy-rerun": (
        f"no_failure: {W}; rerun after an earlier run whose train_model step failed (optimizer typo adamW, not in "
        "this log): ZenML's cache serves the three upstream steps, only train_model and evaluate run and succeed. "
        "evidence: 'Using cached version of step `load_readings`.', '[rank0] finished 3 epochs, val acc 0.981', "
        "'Pipeline run has finished in `39.571s`.', 'job exited with 0'"),
    "zen-gearbox-unknown-fault-code": (
        f"worker_exception: {W}; the export holds one record with a fault code the model does not know "
        "('oil_debris'); build_features raises KeyError in the pipeline process, ZenML skips train_model and evaluate "
        "and run.py ends with its RuntimeError. evidence: \"Failed to run step `build_features`: 'oil_debris'\", "
        "\"KeyError: 'oil_debris'\", 'RuntimeError: Pipeline run has failed due to failure in step(s): "
        "build_features', 'job exited with 1'"),
    "zen-gearbox-renamed-column": (
        f"worker_exception: {W}; the historian export renamed the column vib_gmf to vib_gmf_g (upgrade); "
        "clean_readings raises a pandas KeyError (vib_gmf not in index), ZenML skips the downstream steps. evidence: "
        "'Step clean_readings failed.', 'raise KeyError(f\"{not_found} not in index\")', 'RuntimeError: Pipeline "
        "run has failed due to failure in step(s): clean_readings', 'job exited with 1'"),
    "zen-gearbox-optimizer-typo": (
        f"worker_exception: {W}; launched with --optimizer adamW (typo for adamw); both ranks raise ValueError, "
        "torchrun's ChildFailedError, the step's CalledProcessError, ZenML marks train_model failed and skips "
        "evaluate. evidence: \"[rank0]: ValueError: unknown optimizer 'adamW'\", 'Step train_model failed.', "
        "'RuntimeError: Pipeline run has failed due to failure in step(s): train_model', 'job exited with 1'"),
    "zen-gearbox-augment-oom": (
        f"host_oom_killed: {W}; --augment-copies 16000 (noise copies built up front on every rank) in a 1.4 GB "
        "cgroup-v1 memory cgroup; the kernel OOM killer SIGKILLs rank 1 (dmesg: Memory cgroup out of memory: Killed "
        "process), torchrun tears down rank 0 and the train_model step fails. evidence: 'exitcode  : -9 (pid: 15384)  "
        "(SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID 15384', 'Step train_model failed.', 'job exited "
        "with 1'"),
    "zen-gearbox-swap-cycle": (
        f"native_crash: {W}; the export records gearbox GB-7131 as swapped in from GB-7137 and GB-7137 from GB-7131; "
        "build_features' lru_cache recursion over the swap chain (recursion limit raised to 1,000,000) overflows the C "
        "stack; the local orchestrator runs steps in the run.py process, so the whole pipeline process dies with "
        "SIGSEGV and ZenML reports nothing. evidence: 'Step `build_features` has started.', 'bash: line 1: 15797 "
        "Segmentation fault      python run.py --master-port 33123', 'job exited with 139'"),
    "zen-gearbox-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs; rank 0's first torch.save fills it and fails with "
        "torch's iostream error (the ENOSPC underneath is not named), rank 1 then sees gloo's connection closed, "
        "the train_model step fails. evidence: '[rank0]:     torch.save(st, os.path.join(a.ckpt_dir, "
        "f\"epoch-{epoch}.pt\"))', '[rank0]: RuntimeError: basic_ios::clear: iostream error', 'Step train_model "
        "failed.', 'job exited with 1'"),
    "zen-gearbox-container-shm": (
        f"shm_exhausted: {W}; --loader-workers 2 under unshare -m with a 32 KiB tmpfs on /dev/shm (container-sized); "
        "the DataLoader's worker queues cannot create their POSIX semaphores in /dev/shm on either rank (ENOSPC from "
        "SemLock), the train_model step fails. evidence: '[rank0]:     sl = self._semlock = _multiprocessing.SemLock(', "
        "'[rank0]: OSError: [Errno 28] No space left on device', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-dead-accelerometer": (
        f"training_divergence: {W}; turbine WTG17's gear-mesh accelerometer channel reads 0 in the export; "
        "build_features takes log(0) (-inf features, numpy's divide-by-zero warning), the loss is NaN on rank 1's "
        "first step and the trainer's finite-loss check raises; rank 0 sees gloo's connection closed, the step fails. "
        "evidence: 'RuntimeWarning: divide by zero encountered in log', '[rank1]: FloatingPointError: loss is nan at "
        "epoch 1 step 1', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-stopped-rank": (
        f"silent_hang: {W}, 8 epochs with --step-delay 0.1; rank 1 SIGSTOPped in epoch 2 with a 1800 s "
        "process-group timeout, so no watchdog fires; the train step's own time limit (--train-timeout-s 60, "
        "subprocess.run(timeout=60)) kills torchrun and ZenML fails the step with TimeoutExpired; the last loss lines "
        "are epoch 2 step 10 on both ranks. evidence: '[rank1] epoch 2 step 10 loss 0.6826', 'Step train_model "
        "failed.', 'RuntimeError: Pipeline run has failed due to failure in step(s): train_model', 'job exited with "
        "1'"),
    "zen-gearbox-rank-paused": (
        f"collective_timeout: {W}, 8 epochs with --step-delay 0.1; rank 1 SIGSTOPped in epoch 2 with --pg-timeout 25; "
        "rank 0's gloo recv in the next gradient all-reduce times out after 25 s, torchrun cannot stop the stopped "
        "rank with SIGTERM and SIGKILLs it, the train_model step fails. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 25000ms "
        "for recv operation to complete', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-node-drain": (
        f"job_preempted: {W}, 30 epochs with --step-delay 0.05; SIGTERM to the job's whole process group in epoch 3 "
        "(a node drain); ZenML's step runner catches it and requests shutdown of the step, torchrun forwards SIGTERM "
        "to the ranks, the step fails with RunInterruptedException; the shell itself is terminated, so no exit line. "
        "evidence: 'Received signal 15. Requesting shutdown for step run `train_model`...', 'torch.distributed.elastic."
        "multiprocessing.api.SignalException: Process 19358 got signal: 15', 'zenml.exceptions.RunInterruptedException: "
        "The execution was interrupted.'"),
    "zen-gearbox-ssh-closed": (
        f"terminal_hangup: {W}, 30 epochs with --step-delay 0.05; SIGHUP to the job's process group in epoch 2 (the "
        "launching terminal closed); the pipeline process and the shell die at once (no ZenML step report, no exit "
        "line), torchrun forwards SIGHUP to the ranks and ends with SignalException. evidence: 'W1130 "
        "23:51:25.909000 19834 torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting "
        "down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19834 got signal: 1'"),
    "zen-gearbox-batch-config": (
        f"batch_size_mismatch: {W}; --micro-batch 64 with global batch 128, grad accum 2 and 2 ranks; both ranks' "
        "start-up check raises ValueError, the train_model step fails. evidence: '[rank0]: ValueError: global batch "
        "128 != micro batch 64 x grad accum 2 x world size 2', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-notebook-port": (
        f"port_in_use: {W}; a python -m http.server left running on the master port 33141; torchrun's TCPStore cannot "
        "listen, the train_model step fails (no retry configured). evidence: 'torch.distributed.DistNetworkError: The "
        "server socket has failed to listen on any local network address. port: 33141, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-rare-fault": (
        f"collective_mismatch: {W}; --class-weights with a single lubrication record in the export (TORCH_DISTRIBUTED_DEBUG=DETAIL); each rank bincounts the fault codes of its own shard, rank 0's count has 5 entries and rank 1's 4, the all_reduce shapes differ and both ranks raise; the train_model step fails. evidence: '[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[5], TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Tensor Tensor shapes: 5vs 4', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-second-nacelle-pc": (
        f"rendezvous_timeout: {W}; launched with --nnodes 2 (the second training PC was meant to join) but no second "
        "node ever starts; torchrun's static TCPStore on node 0 waits (--rdzv-conf timeout=45) and gives up with 1/2 "
        "clients joined, the train_model step fails. evidence: 'torch.distributed.DistStoreError: Timed out after 46 "
        "seconds waiting for clients. 1/2 clients joined.', 'Step train_model failed.', 'job exited with 1'"),
    "zen-gearbox-notebook-port-retried": (
        f"port_in_use: {W}; a python -m http.server left running on the master port 33147 and the train step has "
        "StepRetryConfig(max_retries=1, delay=10) (--train-retries 1); the server stays, both attempts fail with "
        "EADDRINUSE and ZenML gives up after the retry. evidence: 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 33147, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', 'Sleeping for 10 seconds before retrying step `train_model`.', "
        "'Failed to run step `train_model` after 1 retries.', 'job exited with 1'"),
    "zen-gearbox-cron-limit": (
        f"job_preempted: {W}, 30 epochs with --step-delay 0.05; the nightly cron line wraps the launch in `timeout 55`; "
        "the limit hits in epoch 16, timeout's SIGTERM reaches the pipeline process and torchrun, ZenML requests "
        "shutdown of the step and fails it with RunInterruptedException, the shell reports timeout's 124. evidence: "
        "'Received signal 15. Requesting shutdown for step run `train_model`...', 'torch.distributed.elastic."
        "multiprocessing.api.SignalException: Process 22721 got signal: 15', 'zenml.exceptions.RunInterruptedException: "
        "The execution was interrupted.', 'job exited with 124'"),
}
