"""Manifest notes for wave AZ (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("python train.py (PyTorch Ignite 0.5.5: idist.Parallel(backend='gloo', nproc_per_node=2) spawns the 2 processes "
     "itself via torch.multiprocessing; create_supervised_trainer/evaluator, DistributedSampler from "
     "idist.auto_dataloader, DDP over gloo on CPU, Checkpoint+DiskSaver, TerminateOnNan), a dairy co-op's per-cow "
     "daily milk-yield predictor from feed, lactation day and parlour sensor readings")
SPAWN = "torch.multiprocessing's join SIGTERMs the other process and the launcher re-raises"
NOTES = {
    "ignite-milk-healthy": (
        f"no_failure: {W}, 4 epochs; every epoch validates and checkpoints, the launcher ends the run. evidence: "
        "'2026-12-01 09:56:46,201 milk-yield INFO: training finished after 4 epochs, val MAE 2.941 kg, RMSE 3.691 kg', "
        "'2026-12-01 09:56:47,982 ignite.distributed.launcher.Parallel INFO: End of run', 'job exited with 0'"),
    "ignite-milk-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), --epochs 5 --resume loads the newest "
        "checkpoint with Checkpoint.load_objects and Ignite's engine resumes at epoch 3. evidence: '2026-12-01 "
        "09:57:21,537 milk-yield INFO: resumed from checkpoints/milk_checkpoint_2.pt (epoch 2)', '2026-12-01 "
        "09:57:21,544 trainer INFO: Engine run resuming from iteration 74, epoch 2 until 5 epochs', 'job exited with 0'"),
    "ignite-milk-healthy-sensor-dropouts": (
        f"no_failure: {W}; 6 parlour records whose conductivity sensor reported nothing are logged at ERROR level and "
        "dropped, training succeeds. evidence: '2026-12-01 09:57:48,560 milk-yield ERROR: parlour record C0023 "
        "2026-03-29: conductivity sensor reported nothing, dropped', '2026-12-01 09:57:58,210 milk-yield INFO: training "
        "finished after 4 epochs, val MAE 2.894 kg, RMSE 3.637 kg', 'job exited with 0'"),
    "ignite-milk-healthy-early-stop": (
        f"no_failure: {W}; --epochs 30 with Ignite's EarlyStopping (patience 2, min_delta 0.25 on val RMSE): the "
        "handler terminates the trainer after epoch 12, a normal end. evidence: '2026-12-01 09:58:43,220 "
        "ignite.handlers.early_stopping.EarlyStopping INFO: EarlyStopping: Stop training', '2026-12-01 09:58:43,220 "
        "trainer INFO: Terminate signaled. Engine will stop after current iteration is finished.', '2026-12-01 "
        "09:58:43,224 milk-yield INFO: training finished after 12 epochs, val MAE 1.093 kg, RMSE 1.368 kg', "
        "'job exited with 0'"),
    "ignite-milk-healthy-rerun-finished": (
        f"no_failure: {W}; the same 3-epoch command rerun with --resume after an earlier (unlogged) run had finished "
        "all 3 epochs: the newest checkpoint is loaded, Ignite sees a finished state and starts the run again from "
        "epoch 1 with the loaded weights (3 more epochs), a normal end. evidence: '2026-12-01 10:13:38,540 milk-yield INFO: resumed from checkpoints/milk_checkpoint_3.pt (epoch 3)', '2026-12-01 10:13:38,541 trainer INFO: Engine run starting with max_epochs=3.', '2026-12-01 10:13:44,870 milk-yield INFO: training finished after 3 epochs, val MAE 2.365 kg, RMSE 2.970 kg', 'job exited with 0'"),
    "ignite-milk-renamed-column": (
        f"worker_exception: {W}; the parlour software update renamed conductivity_ms_cm to ec_ms_cm in the export; "
        f"pandas raises KeyError in load_records on both processes, {SPAWN}. evidence: '-- Process 1 terminated with "
        "the following error:', \"KeyError: 'conductivity_ms_cm'\", 'job exited with 1'"),
    "ignite-milk-optimizer-typo": (
        f"worker_exception: {W}; --optimizer adamW (the code knows adamw); the training function raises ValueError, "
        f"{SPAWN}. evidence: '-- Process 0 terminated with the following error:', \"ValueError: unknown optimizer "
        "'adamW', expected one of ['adam', 'adamw', 'sgd']\", 'job exited with 1'"),
    "ignite-milk-stale-checkpoints": (
        f"worker_exception: {W}; an earlier run's checkpoints are still in checkpoints/ and the rerun is started "
        "without --resume; Ignite's DiskSaver (require_empty=True) refuses the directory. evidence: \"ValueError: "
        "Files ['milk_checkpoint_2.pt', 'milk_checkpoint_1.pt'] with extension '.pt' are already present in the "
        "directory checkpoints. If you want to use this directory anyway, pass `require_empty=False`.\", "
        "'job exited with 1'"),
    "ignite-milk-resume-wider": (
        f"worker_exception: {W}; --resume --hidden 128 on checkpoints written with hidden 64; "
        "Checkpoint.load_objects -> load_state_dict raises RuntimeError (size mismatch). evidence: 'RuntimeError: "
        "Error(s) in loading state_dict for Sequential:', '\tsize mismatch for 0.weight: copying a param with shape "
        "torch.Size([64, 10]) from checkpoint, the shape in current model is torch.Size([128, 10]).', "
        "'job exited with 1'"),
    "ignite-milk-augment-oom": (
        f"host_oom_killed: {W}; --augment-copies 3000 in a 1 GB cgroup-v1 memory cgroup; the kernel OOM killer "
        "SIGKILLs process 1 while it builds the augmented array (dmesg: 'Memory cgroup out of memory: Killed process'); "
        "the launcher reports the signal. evidence: 'torch.multiprocessing.spawn.ProcessExitedException: process 1 "
        "terminated with signal SIGKILL', 'job exited with 1'"),
    "ignite-milk-dam-loop": (
        f"native_crash: {W}; the pedigree table has a loop (C0100's dam is C0101 and C0101's dam is C0100); the "
        "lru_cache-wrapped dam-line recursion (recursion limit raised to 1e6) overflows the C stack and the process "
        "dies with SIGSEGV. evidence: 'torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with "
        "signal SIGSEGV', 'job exited with 1'"),
    "ignite-milk-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 48 KiB tmpfs; Ignite's Checkpoint handler (DiskSaver, torch.save) fails "
        "writing the epoch-1 checkpoint on process 0. evidence: '2026-12-01 10:02:10,245 trainer ERROR: Engine run is "
        "terminating due to exception: [enforce fail at inline_container.cc:672] . unexpected pos 45696 vs 45584', "
        "'OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "ignite-milk-container-shm": (
        f"shm_exhausted: {W}; --num-workers 2 under unshare -m with a 32 KiB tmpfs on /dev/shm; the DataLoader's "
        "worker queue cannot create its semaphore (SemLock) when the trainer starts iterating. evidence: '2026-12-01 "
        "10:02:21,109 trainer ERROR: Engine run is terminating due to exception: [Errno 28] No space left on device', "
        "'OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "ignite-milk-zero-duration": (
        f"training_divergence: {W}; cow C0042's milking-duration sensor reports 0 s, the concentrate-per-minute "
        "feature is inf, standardisation makes it NaN and the first loss is NaN; Ignite's TerminateOnNan stops the "
        "trainer, the run ends with exit 0 and no model worth having. evidence: \"2026-12-01 10:02:35,019 "
        "ignite.handlers.terminate_on_nan.TerminateOnNan WARNING: TerminateOnNan: Output 'nan' contains NaN or Inf. "
        "Stop training\", '2026-12-01 10:02:35,019 milk-yield INFO: Epoch[1] Iteration[1/148] Loss: nan', "
        "'job exited with 0'"),
    "ignite-milk-rank-paused": (
        f"collective_timeout: {W}; process 1 SIGSTOPped in epoch 2 with --pg-timeout 30 (idist.Parallel "
        "timeout=timedelta(seconds=30)); gloo times out on process 0 in the DDP allreduce, the launcher SIGTERMs and "
        "then SIGKILLs the stopped process. evidence: '2026-12-01 10:03:26,241 trainer ERROR: Engine run is "
        "terminating due to exception: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
        "Timed out waiting 30000ms for recv operation to complete', 'W1201 10:03:57.710000 13192 "
        "torch/multiprocessing/spawn.py:176] Unable to shutdown process 13201 via SIGTERM , forcefully exiting via "
        "SIGKILL', 'job exited with 1'"),
    "ignite-milk-stopped-rank": (
        f"silent_hang: {W}; process 1 SIGSTOPped in epoch 2 with the default 30-minute process-group timeout; process "
        "0 waits in the allreduce and the log just stops; the developer kills the job after 150 s (no 'job exited' "
        "line). Only rank 0 prints (Ignite's setup_logger silences the other ranks), so the log cannot show which "
        "process stopped. evidence: '2026-12-01 10:04:11,553 milk-yield INFO: Epoch[2] Iteration[50/296] Loss: "
        "48.9894' (last line)"),
    "ignite-milk-cron-limit": (
        f"job_preempted: {W}; the nightly cron entry wraps the launch in `timeout 40` (40 epochs would take ~160 s); "
        "timeout SIGTERMs the launcher in epoch 8, the log stops without a traceback and the shell reports timeout's "
        "exit 124. evidence: '2026-12-01 10:07:09,248 milk-yield INFO: Epoch[8] Iteration[260/1480] Loss: 3.9740', "
        "'job exited with 124'"),
    "ignite-milk-batch-config": (
        f"batch_size_mismatch: {W}; --micro-batch 32 with global batch 128, grad-accum 1 and 2 processes; the team's "
        "config check raises ValueError on both processes. evidence: 'ValueError: global batch 128 != micro-batch 32 x "
        "grad-accum 1 x world size 2', 'job exited with 1'"),
    "ignite-milk-port-held": (
        f"port_in_use: {W}; a python -m http.server holds master port 29770; process 0's TCPStore cannot listen. "
        "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29770, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "ignite-milk-new-herd": (
        f"collective_mismatch: {W}; --herd-weights with a newly joined herd H07 that has one record: each process "
        "bincounts the herds of its share of the records, process 0 sees 8 herd codes and process 1 sees 7, so the "
        "idist.all_reduce tensors differ in size; gloo's enforce fails and process 1 aborts (SIGABRT). evidence: "
        "\"  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] "
        "op.preamble.length <= op.nbytes. 16 vs 8. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?\", 'torch.multiprocessing.spawn.ProcessExitedException: process "
        "1 terminated with signal SIGABRT', 'job exited with 1'"),
    "ignite-milk-second-node": (
        f"rendezvous_timeout: {W}; --nnodes 2 --pg-timeout 60 with no second node ever started; the store waits for "
        "4 processes and times out after 60 s. evidence: '[W1201 10:09:36.268703910 socket.cpp:494] [c10d] "
        "waitForInput: socket SocketImpl(fd=7, addr=[::ffff:127.0.0.1]:49380, remote=[::ffff:127.0.0.1]:29772) timed "
        "out after 60000ms', 'torch.distributed.DistStoreError: wait timeout after 60000ms, keys: "
        "/default_pg/0//cpu//0/0', 'job exited with 1'"),
    "ignite-milk-truncated-ckpt": (
        f"worker_exception: {W}; --resume from a checkpoint folder whose newest file was cut to half its size (a "
        "colleague's interrupted copy from the shared drive; done before the run); torch.load fails in PyTorchFileReader "
        "on process 0. evidence: '    super().__init__(torch._C.PyTorchFileReader(name_or_buffer))', "
        "'OSError: [Errno 22] Invalid argument', 'job exited with 1'"),
}
