"""Manifest notes for wave AZ (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("accelerate launch --config_file accelerate_config.yaml (accelerate 1.15.0, distributed_type MULTI_GPU, "
     "num_processes 2, torch's elastic agent underneath) train.py: Accelerator(cpu=True) with 2 processes over gloo "
     "on CPU, prepare'd dataloaders, get_logger step lines, gather_for_metrics validation, save_state each epoch; "
     "a regional bus company's per-stop, per-hour boardings forecaster")
CFE = "the elastic agent reports ChildFailedError and accelerate launch exits 1"
NOTES = {
    "acc-boardings-healthy": (
        f"no_failure: {W}, 3 epochs; every epoch validates and checkpoints, the run finishes. evidence: "
        "'finished 3 epochs, val MAE 3.56', 'job exited with 0'"),
    "acc-boardings-healthy-gps-gaps": (
        f"no_failure: {W}; 4 stop-hours in the export have no route (missing GPS fix): the loader logs each at ERROR "
        "level through accelerate's logger and drops it; training succeeds. evidence: '12/01/2026 09:57:37 - ERROR - "
        "boardings - [RANK 0] stop S000 hour 15: no route assigned (missing GPS fix), row dropped', 'finished 3 "
        "epochs, val MAE 3.59', 'job exited with 0'"),
    "acc-boardings-healthy-resume": (
        f"no_failure: {W}; after an earlier (unlogged) 2-epoch run, --epochs 4 --resume loads the latest checkpoint "
        "with accelerator.load_state and trains epochs 3-4; ProjectConfiguration's total_limit deletes the oldest "
        "checkpoint (WARNING). evidence: 'resumed from runs/forecaster/checkpoints/checkpoint_1, starting at epoch 3', "
        "'12/01/2026 09:58:28 - WARNING - accelerate.accelerator - [RANK 0] Deleting 1 checkpoints to make room for "
        "new checkpoint.', 'finished 4 epochs, val MAE 3.53', 'job exited with 0'"),
    "acc-boardings-healthy-restart": (
        f"no_failure: {W}, launched with --max_restarts 1 and --resume; rank 1 is SIGKILLed in epoch 2 (from outside, "
        "not OOM), rank 0 sees the connection reset, the elastic agent restarts both workers, which resume from "
        "checkpoint_0 and finish (a recovered fault). evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/"
        "third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:59027: Connection reset by peer. This "
        "is typically caused by a remote worker hanging or bugs in the application. Check the logs of the remote "
        "worker before reporting an error. GLHF! \U0001f3d6\ufe0f', 'E1201 09:58:46.294000 12131 torch/distributed/"
        "elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 (pid: 12143) of binary: "
        "/tmp/corpus-venv-az-a/bin/python3', 'resumed from runs/forecaster/checkpoints/checkpoint_0, starting at "
        "epoch 2', 'finished 4 epochs, val MAE 3.48', 'job exited with 0'"),
    "acc-boardings-healthy-rerun-done": (
        f"no_failure: {W}; the same --epochs 3 command rerun with --resume after an earlier (unlogged) run finished "
        "all 3 epochs: it loads the last checkpoint, has no epoch left to train and exits cleanly. evidence: "
        "'resumed from runs/forecaster/checkpoints/checkpoint_2, starting at epoch 4', 'nothing to do: checkpoint "
        "already at epoch 3 of 3', 'job exited with 0'"),
    "acc-boardings-schema-change": (
        f"worker_exception: {W}; the export renamed column boardings_prev_week to boardings_lag7d: both processes "
        f"raise KeyError while loading the data, {CFE}. evidence: \"[rank0]: KeyError: 'boardings_prev_week'\", "
        "'job exited with 1'"),
    "acc-boardings-resume-wider": (
        f"worker_exception: {W}; --resume --hidden 128 against checkpoints saved by a --hidden 64 run (earlier, "
        "unlogged): accelerator.load_state fails in load_state_dict on both processes, "
        f"{CFE}. evidence: '[rank0]: RuntimeError: Error(s) in loading state_dict for Forecaster:', '[rank0]: \tsize "
        "mismatch for fc1.weight: copying a param with shape torch.Size([64, 18]) from checkpoint, the shape in "
        "current model is torch.Size([128, 18]).', 'job exited with 1'"),
    "acc-boardings-cache-oom": (
        f"host_oom_killed: {W}; --cache-copies 9000 (in-memory augmentation cache) in a 1.2 GB cgroup-v1 memory "
        "cgroup: the kernel OOM killer SIGKILLs rank 0 while it builds the cache (dmesg: 'Memory cgroup out of memory: "
        f"Killed process 12673 (python3)'), the agent SIGTERMs rank 1, {CFE}. evidence: '  exitcode  : -9 (pid: "
        "12673)  (SIGKILL)', '  traceback : Signal 9 (SIGKILL) received by PID 12673', 'job exited with 1'"),
    "acc-boardings-ckpt-disk": (
        f"disk_full: {W}; the project dir runs/forecaster is a 96 KiB tmpfs: accelerator.save_state at the end of "
        "epoch 1 fills it, rank 1's torch.save of its random states fails, rank 0 then loses the connection, "
        f"{CFE}. evidence: '[rank1]: RuntimeError: basic_ios::clear: iostream error', '[rank1]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0', 'job exited with 1'"),
    "acc-boardings-container-shm": (
        f"shm_exhausted: {W}; --num-workers 2 under unshare -m with a 32 KiB tmpfs on /dev/shm (a container's "
        "small shm): the DataLoader cannot create its worker queues' semaphores (SemLock) on either process, "
        f"{CFE}. evidence: '[rank0]: OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "acc-boardings-rank-paused": (
        f"collective_timeout: {W}, --pg-timeout 30 (InitProcessGroupKwargs); rank 1 is SIGSTOPped in epoch 2: rank 0 "
        "waits in gloo and times out after 30 s, the agent SIGTERMs then SIGKILLs the stopped rank 1, "
        f"{CFE}. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', 'job exited with 1'"),
    "acc-boardings-stopped-rank": (
        f"silent_hang: {W}, default process-group timeout (1800 s); rank 1 is SIGSTOPped in epoch 2: rank 0 blocks in "
        "the next collective, nothing more is printed, the developer kills the job after 100 s (no 'job exited' "
        "line). The last lines are both ranks' step 20 of epoch 2. evidence: '12/01/2026 10:03:28 - INFO - boardings "
        "- [RANK 1] epoch 2 step 20 loss 0.2112'"),
    "acc-boardings-cron-limit": (
        f"job_preempted: {W}, 30 epochs with --step-delay 0.08, launched from the nightly cron entry as 'timeout 30 "
        "accelerate launch ...': after 30 s coreutils timeout SIGTERMs accelerate launch in epoch 3, its elastic agent "
        "forwards SIGTERM to the workers and raises SignalException, the shell reports exit 124. evidence: 'W1201 "
        "10:05:23.564000 13792 torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting "
        "down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 13792 got signal: "
        "15', 'job exited with 124'"),
    "acc-boardings-ssh-closed": (
        f"terminal_hangup: {W}, 30 epochs; the SSH session that started it closes in epoch 2 (SIGHUP to the job's "
        "process group): the elastic agent sends SIGHUP to the workers and raises SignalException; the shell itself "
        "dies of SIGHUP (no 'job exited' line). evidence: 'W1201 10:05:43.100000 13862 torch/distributed/elastic/"
        "agent/server/api.py:753] Received 1 death signal, shutting down workers', 'torch.distributed.elastic."
        "multiprocessing.api.SignalException: Process 13862 got signal: 1'"),
    "acc-boardings-batch-config": (
        f"batch_size_mismatch: {W}; --per-device-batch 64 with global batch 128, grad accum 2 and 2 processes: both "
        f"raise ValueError at startup, {CFE}. evidence: '[rank0]: ValueError: global batch 128 != per-device batch 64 "
        "x grad accum 2 x num_processes 2', 'job exited with 1'"),
    "acc-boardings-second-machine": (
        f"rendezvous_timeout: {W}; launched with --num_machines 2 --machine_rank 0 --rdzv_conf timeout=60 but the "
        "second machine's accelerate launch is never started: the static TCPStore waits 60 s and gives up. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', "
        "'job exited with 1'"),
    "acc-boardings-old-config": (
        f"library_version_mismatch: {W}; the accelerate_config.yaml copied from the old training box carries "
        "'ipex_config' (a key older accelerate versions wrote, unknown to 1.15.0): accelerate launch refuses the config "
        "before starting anything. evidence: \"ValueError: The config file at accelerate_config.yaml had unknown keys "
        "(['ipex_config']), please try upgrading your `accelerate` version or fix (and potentially remove) these keys "
        "from your config file.\", 'job exited with 1'"),
    "acc-boardings-counter-reset": (
        f"training_divergence: {W}; stop S007's passenger counter reports -1 (its reset sentinel) in the newest rows: "
        "log1p(-1) makes the target -inf, the loss goes inf/NaN on the first batches that hold those rows and the "
        f"script's finite-loss check stops both processes, {CFE}. evidence: '[rank0]: FloatingPointError: loss is inf "
        "at epoch 1 step 14', '[rank1]: FloatingPointError: loss is nan at epoch 1 step 15', 'job exited with 1'"),
    "acc-boardings-feeder-loop": (
        f"native_crash: {W}; transfers.csv has a feeder loop (S011 -> S012 -> S011): the lru_cache'd hub lookup "
        "recurses without end (recursion limit raised to 1e6 for long rural feeder chains) and overflows the C stack, "
        "both processes die with SIGSEGV before training, no Python traceback. evidence: '  exitcode  : -11 (pid: "
        "15118)  (SIGSEGV)', '  traceback : Signal 11 (SIGSEGV) received by PID 15118', 'job exited with 1'"),
    "acc-boardings-notebook-port": (
        f"port_in_use: {W}; a two-machine launch (--num_machines 2 --machine_rank 0) on a main machine where a "
        "notebook's python -m http.server still holds the main process port 29741: accelerate launch's own port check "
        "refuses to start (on one machine it would have moved to a free port). evidence: 'ConnectionError: Tried to "
        "launch distributed communication on port `29741`, but another process is utilizing it. Please specify a "
        "different port (such as using the `--main_process_port` flag or specifying a different `main_process_port` "
        "in your config file) and rerun your script. To automatically use the next open port (on a single node), you "
        "can set this to `0`.', 'job exited with 1'"),
    "acc-boardings-school-route": (
        f"collective_mismatch: {W}; --route-weights with a new school route (S90) that has one row: the per-batch "
        "torch.bincount of route ids is 6 long on the process whose batch holds that row and 5 long on the other, "
        "accelerator.reduce all_reduces tensors of different sizes; gloo's size check aborts rank 1 (SIGABRT), rank 0 "
        f"sees the connection reset, {CFE}. evidence: \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", \"  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/"
        "tcp/pair.cc:456] op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't match expected size. Is "
        "there a distributed collective mismatch in your code?\", '  exitcode  : -6 (pid: 15163)  (SIGABRT)', 'job "
        "exited with 1'"),
    "acc-boardings-healthy-cli-flags": (
        "no_failure: accelerate launch --multi_gpu --num_processes 2 --main_process_port 29749 train.py (CLI flags, no "
        "config file; accelerate 1.15.0 runs torch's elastic agent with 2 workers) with Accelerator(cpu=True) over gloo "
        "on CPU, a regional bus company's per-stop, per-hour boardings forecaster; accelerate launch warns about the "
        "values it defaulted, the 3-epoch run succeeds. evidence: 'The following values were not passed to `accelerate "
        "launch` and had defaults used instead:', 'finished 3 epochs, val MAE 3.56', 'job exited with 0'"),
    "acc-boardings-cluster-profile": (
        f"nccl_network_config: {W}; the team's shell profile, copied from the GPU cluster, exports "
        "GLOO_SOCKET_IFNAME=ib0 (the cluster's InfiniBand interface) and this box has only lo and eth0: gloo cannot "
        f"find the interface when Accelerator creates the process group, on both processes, {CFE}. evidence: "
        "'RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != "
        "nullptr. Unable to find address for: ib0', 'job exited with 1'"),
}
