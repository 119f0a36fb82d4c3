"""Manifest notes for wave BA (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("deepspeed launcher ('deepspeed --num_gpus 2 --master_port P train.py --deepspeed_config ds_config.json'), "
     "DeepSpeed 0.19.8 with DS_ACCELERATOR=cpu, deepspeed.initialize with ds_config.json (train_batch_size 128, "
     "micro batch 32, grad accum 2, AdamW + WarmupLR blocks, ZeRO stage 1, fp32), 2 ranks over gloo on CPU "
     "(torch 2.13.0+cpu); ski resort lift-queue wait-time predictor per lift, per 15-minute slot")
LK = "the launcher's sigkill_handler kills both ranks"
NOTES = {
    "ds-liftq-healthy": (
        f"no_failure: {W}, 3 epochs; the ranks wait about 2.5 min in deepspeed.initialize while the fused_adam CPU "
        "op finishes building, then train, validate and checkpoint every epoch. evidence: '[rank0] 10:34:12 finished "
        "3 epochs', '[2026-12-01 10:34:13,883] [INFO] [launch.py:285:main] Process 25472 exits successfully.', "
        "'job exited with 0'"),
    "ds-liftq-healthy-garbled-feed": (
        f"no_failure: {W}; 3 rows of the lift export carry riders 'n/a'; rank 0 logs each at ERROR and drops it, "
        "training succeeds. evidence: \"[rank0] 10:34:31 ERROR row 3077 (bunny-t slot 0): could not convert string "
        "to float: 'n/a', dropped\", '[rank0] 10:34:59 finished 3 epochs', 'job exited with 0'"),
    "ds-liftq-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), '--epochs 4 --resume': both ranks "
        "engine.load_checkpoint the latest tag and train epochs 3-4. evidence: '[rank0] 10:35:50 resumed from "
        "checkpoints/epoch2/mp_rank_00_model_states.pt (epoch 2)', '[rank1] 10:36:05 finished 4 epochs', "
        "'job exited with 0'"),
    "ds-liftq-healthy-rerun-done": (
        f"no_failure: {W}; rerun of a finished 2-epoch run with '--epochs 2 --resume': the checkpoint is loaded, no "
        "epoch is left, the job ends at once. evidence: '[rank1] 10:36:58 resumed from "
        "checkpoints/epoch2/mp_rank_00_model_states.pt (epoch 2)', '[rank0] 10:36:58 finished 2 epochs', "
        "'job exited with 0'"),
    "ds-liftq-healthy-loader-workers": (
        f"no_failure: {W}; launched with '--num_nodes 1 --num_gpus 2', 2 DataLoader workers per rank, 3 epochs. "
        "evidence: '[rank0] 10:46:51 finished 3 epochs', 'job exited with 0'"),
    "ds-liftq-batch-config": (
        f"batch_size_mismatch: {W}; ds_config.json edited to gradient_accumulation_steps 4; DeepSpeed's batch "
        f"assertion fails on both ranks in deepspeed.initialize, {LK}. evidence: '[rank0]: AssertionError: Check "
        "batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * "
        "world_size 128 != 32 * 4 * 2', 'job exited with 1'"),
    "ds-liftq-zero-typo": (
        f"worker_exception: {W}; ds_config.json's zero_optimization block has the typo 'contiguous_gradient' "
        "(for contiguous_gradients); pydantic rejects the extra field in deepspeed.initialize on both ranks. "
        "evidence: '[rank0]: pydantic_core._pydantic_core.ValidationError: 1 validation error for "
        "DeepSpeedZeroConfig', '[rank0]:   Extra inputs are not permitted [type=extra_forbidden, input_value=True, "
        "input_type=bool]', 'job exited with 1'"),
    "ds-liftq-renamed-column": (
        f"worker_exception: {W}; the lift export's column riders_15m was renamed riders; both ranks raise KeyError "
        f"while loading the data, {LK}. evidence: \"[rank0]: KeyError: 'riders_15m'\", 'job exited with 1'"),
    "ds-liftq-cli-typo": (
        f"worker_exception: {W}; the script was given '--ckpt_dir checkpoints' (it takes --ckpt-dir); argparse "
        "rejects it on both ranks (exit 2). evidence: 'train.py: error: unrecognized arguments: --ckpt_dir "
        "checkpoints', 'job exited with 2'"),
    "ds-liftq-cache-oom": (
        f"host_oom_killed: {W}; '--cache-copies 2000' in a 1 GB cgroup-v1 memory cgroup; the kernel OOM killer kills "
        "both ranks while they build the cached copies (dmesg: 'Memory cgroup out of memory: Killed process 28345 "
        "(python3)' and 28344), the launcher reports return code -9. evidence: '[rank0] 10:37:44 caching 2000 "
        "augmented copies of 8192 rows', \"[2026-12-01 10:37:45,136] [ERROR] [launch.py:259:sigkill_handler] "
        "['/tmp/corpus-venv-ba-a/bin/python3', '-u', 'train.py', '--local_rank=1', '--deepspeed_config', "
        "'ds_config.json', '--step-delay', '0.05', '--cache-copies', '2000'] exits with return code = -9\", "
        "'job exited with 247'"),
    "ds-liftq-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs; rank 0's engine.save_checkpoint (torch.save) of epoch 1 "
        "fails (the full volume shows as an iostream error), rank 1 then loses its peer. evidence: '[rank0]: "
        "RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 128 vs 0', 'job exited with 1'"),
    "ds-liftq-container-shm": (
        f"shm_exhausted: {W}; '--loader-workers 2' under 'unshare -m' with a 32 KiB tmpfs on /dev/shm; the "
        "DataLoader's multiprocessing queue cannot create its semaphore on both ranks. evidence: '[rank0]: OSError: "
        "[Errno 28] No space left on device', 'job exited with 1'"),
    "ds-liftq-wind-hold": (
        f"training_divergence: {W}; the gondola's turnstile export reports capacity 0 from day 30 (wind hold), the "
        "utilisation feature is NaN, the loss is NaN and the script's finite-loss check raises on both ranks. "
        "evidence: '[rank0]: FloatingPointError: loss is nan at epoch 1 step 0', 'job exited with 1'"),
    "ds-liftq-stopped-rank": (
        f"silent_hang: {W}; rank 1 SIGSTOPped in epoch 2 ('--pg-timeout 1800'); rank 0 waits in ZeRO's gradient "
        "all_reduce, nothing more is printed and the harness ends the job after 100 s (no exit line). evidence: "
        "'[rank1] 10:42:20 epoch 2 step 90 loss 2.5448 lr 0.002000'"),
    "ds-liftq-node-drain": (
        f"job_preempted: {W}, 8 epochs; SIGTERM to the job's whole process group in epoch 2 (a node drain); the "
        "launcher's handler starts killing the ranks and everything is gone, the log ends there (no exit line). "
        "evidence: '[rank0] 10:44:05 epoch 2 step 90 loss 2.7623 lr 0.002000', '[2026-12-01 10:44:05,897] [INFO] "
        "[launch.py:253:sigkill_handler] Killing subprocess 29208'"),
    "ds-liftq-rank-sigkill": (
        f"host_oom_killed: {W}; rank 1 SIGKILLed from outside in epoch 2 (kill -9, no OOM); rank 0's gloo read gets "
        "'Connection reset by peer' and the launcher reports rank 1's return code -9. evidence: \"[2026-12-01 "
        "10:45:01,920] [ERROR] [launch.py:259:sigkill_handler] ['/tmp/corpus-venv-ba-a/bin/python3', '-u', "
        "'train.py', '--local_rank=1', '--deepspeed_config', 'ds_config.json', '--step-delay', '0.05', '--epochs', "
        "'6'] exits with return code = -9\", 'job exited with 247'"),
    "ds-liftq-feed-loop": (
        f"native_crash: {W}; lifts.csv records gondola and summit-quad as feeding each other; the lru_cache "
        "recursion (recursion limit raised to 1e6) overflows the C stack while loading data and the ranks die with "
        "SIGSEGV, printing nothing; the launcher reports return code -11. evidence: \"[2026-12-01 10:45:12,782] "
        "[ERROR] [launch.py:259:sigkill_handler] ['/tmp/corpus-venv-ba-a/bin/python3', '-u', 'train.py', "
        "'--local_rank=1', '--deepspeed_config', 'ds_config.json', '--step-delay', '0.05'] exits with return code "
        "= -11\", 'job exited with 245'"),
    "ds-liftq-notebook-port": (
        f"port_in_use: {W}; a 'python -m http.server 29874' left running holds the master port; rank 0's TCPStore "
        "cannot listen in deepspeed.init_distributed. evidence: 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 29874, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', 'job exited with 1'"),
    "ds-liftq-new-lift": (
        f"collective_mismatch: {W}; '--lift-weights' with TORCH_DISTRIBUTED_DEBUG=DETAIL; a lift opened on the last "
        "day has one row, so one rank's per-lift bincount has 9 entries and the other's 8; the all_reduce shapes "
        "differ. evidence: '[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running "
        "collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[9], TensorDtypes=Long, "
        "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), "
        "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))', "
        "'job exited with 1'"),
    "ds-liftq-ci-budget": (
        f"job_preempted: {W}, 12 epochs; the launch is wrapped in 'timeout 30' (the nightly CI entry's time "
        "budget); in epoch 2 timeout sends SIGTERM to the deepspeed runner, the launcher's handler kills both ranks "
        "and exits, the shell reports 124. evidence: '[2026-12-01 10:48:58,686] [INFO] "
        "[launch.py:262:sigkill_handler] Main process received SIGTERM, exiting', 'job exited with 124'"),
    "ds-liftq-second-node": (
        f"rendezvous_timeout: {W}; launched as node 0 of 2 ('deepspeed --hostfile hostfile --no_ssh --node_rank 0 "
        "--master_addr 127.0.0.1', hostfile: localhost slots=2, lift-ops-2 slots=2) with '--pg-timeout 45', but "
        "node 1 was never started; the TCPStore waits 45 s for 4 ranks and init_distributed fails on both local "
        "ranks. evidence: 'torch.distributed.DistStoreError: Timed out after 46 seconds waiting for clients. 2/4 "
        "clients joined.', 'torch.distributed.DistStoreError: wait timeout after 45000ms, keys: "
        "/default_pg/0//cpu//0/0', 'job exited with 1'"),
}
