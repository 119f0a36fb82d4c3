"""Manifest notes for wave AY (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("fabric run --accelerator cpu --devices 2 train_demand.py (lightning 2.6.6 Fabric CLI, which runs torchrun "
     "--nproc_per_node=2; Fabric DDPStrategy over gloo on CPU, fabric.setup_dataloaders, fabric.save checkpoints), "
     "bakery chain next-day bread demand forecaster")
T = ("torchrun --nproc-per-node 2 train_demand.py (Lightning Fabric 2.6.6 script calling fabric.launch(), DDPStrategy "
     "over gloo on CPU), bakery chain next-day bread demand forecaster")
CF = "'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: '"
NOTES = {
    "fabric-bread-healthy": (
        f"no_failure: {W}, 3 epochs; every epoch validated and checkpointed. evidence: 'epoch 3 done: train loss "
        "0.0974 val MAE 9.76 loaves (0.9 s)', 'finished 3 epochs, val MAE 9.76 loaves', 'job exited with 0'"),
    "fabric-bread-healthy-refunds": (
        f"no_failure: {W}; the POS export has 5 rows with negative units (till refunds) that the cleaning step logs "
        "at ERROR level and drops; training succeeds. evidence: '2026-12-01 03:19:12,086 ERROR bakery.demand: store "
        "S02 baguette 2026-10-03: negative units_sold -6 (till refund?), row dropped', 'finished 3 epochs, val MAE "
        "9.51 loaves', 'job exited with 0'"),
    "fabric-bread-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the main port 33355 makes the first fabric run's torchrun "
        "fail with EADDRINUSE; the developer's shell loop reruns after 8 s, the server has been stopped meanwhile, and "
        "the second attempt trains to the end (recovered fault). evidence: 'torch.distributed.DistNetworkError: The "
        "server socket has failed to listen on any local network address. port: 33355, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'finished 3 epochs, val MAE 9.76 loaves', "
        "'job exited with 0'"),
    "fabric-bread-healthy-resume": (
        f"no_failure: {W}; after an earlier (unlogged) 2-epoch run, --epochs 5 --resume loads checkpoints/last.ckpt "
        "with fabric.load and trains epochs 3-5. evidence: 'resumed from checkpoints/last.ckpt (epoch 2)', "
        "'finished 5 epochs, val MAE 8.04 loaves', 'job exited with 0'"),
    "fabric-bread-healthy-rerun": (
        f"no_failure: {T}; the nightly job is rerun with --resume after an earlier (unlogged) run already finished "
        "all 3 epochs: the checkpoint is at the last epoch, nothing is trained and the summary prints the unset MAE "
        "as nan (the script's own placeholder, not a diverged loss). evidence: 'resumed from checkpoints/last.ckpt "
        "(epoch 3)', 'nothing to do: checkpoint is at epoch 3 of 3', 'finished 3 epochs, val MAE nan loaves', "
        "'job exited with 0'"),
    "fabric-bread-optimizer-typo": (
        f"worker_exception: {W} --optimizer adamW; both ranks raise ValueError in the training script before "
        "training, torchrun reports ChildFailedError. evidence: \"[rank0]: ValueError: unknown optimizer 'adamW'\", "
        f"{CF}, 'job exited with 1'"),
    "fabric-bread-renamed-column": (
        f"worker_exception: {W}; the POS export renamed column units_sold to qty_sold; pandas raises KeyError in the "
        "cleaning step on both ranks. evidence: \"[rank0]: KeyError: 'units_sold'\", "
        f"{CF}, 'job exited with 1'"),
    "fabric-bread-strategy-flag": (
        f"worker_exception: {W} with --strategy ddp added on the CLI while the script builds its own "
        "DDPStrategy(timeout=...); Fabric's connector raises ValueError on both ranks at Fabric(...). evidence: "
        "'ValueError: Your code has `Fabric(strategy=<lightning.fabric.strategies.ddp.DDPStrategy object at "
        "0x7faddd848ed0>, ...)` but it conflicts with the value `--strategy=ddp` set through the CLI.  Remove it "
        f"either from the CLI or from the Lightning Fabric object.', {CF}, 'job exited with 1'"),
    "fabric-bread-augment-oom": (
        f"host_oom_killed: {W} --augment-copies 16000 inside a 1.2 GB cgroup-v1 memory cgroup; the kernel OOM killer "
        "(memcg) SIGKILLs rank 1 while it builds the weather-noise copies, torchrun SIGTERMs rank 0. evidence: "
        "'[rank1] augmentation: built 0 of 16000 copies', 'E1201 03:27:52.392000 18548 torch/distributed/elastic/"
        "multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 (pid: 18919) of binary: "
        "/tmp/corpus-venv-ay-b/bin/python3', '  traceback : Signal 9 (SIGKILL) received by PID 18919', "
        "'job exited with 1'"),
    "fabric-bread-recipe-loop": (
        f"native_crash: {W}; the recipe table has a loop (levain <-> rye) and the lru_cache dough-depth recursion "
        "(recursion limit 1,000,000) overflows the C stack; both ranks die with SIGSEGV, no Python traceback. "
        "evidence: 'E1201 03:28:27.032000 19129 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -11) local_rank: 0 (pid: 19253) of binary: /tmp/corpus-venv-ay-b/bin/python3', "
        "'  traceback : Signal 11 (SIGSEGV) received by PID 19254', 'job exited with 1'"),
    "fabric-bread-ckpt-volume": (
        f"disk_full: {W} --epochs 4 with checkpoints/ a 64 KiB tmpfs; fabric.save (torch.save to a temp file, then "
        "move) fails on rank 0 at the first checkpoint, rank 1 then sees gloo's connection closed by peer. evidence: "
        "\"[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmp6joc51kt' -> "
        "'/tmp/waveay-b-job/run/checkpoints/epoch-1.ckpt'\", "
        f"{CF}, 'job exited with 1'"),
    "fabric-bread-container-shm": (
        f"shm_exhausted: {W} --loader-workers 2 under unshare -m with a 32 KiB tmpfs on /dev/shm (a container-sized "
        "shared memory); the DataLoader's multiprocessing queue cannot create its semaphore on either rank. evidence: "
        "'[rank1]:     SemLock.__init__(self, SEMAPHORE, 1, 1, ctx=ctx)', '[rank1]: OSError: [Errno 28] No space "
        "left on device', 'job exited with 1'"),
    "fabric-bread-zero-shelf": (
        f"training_divergence: {W} --log-every 2; store S11's shelf capacity is exported as 0, log(0) makes a -inf "
        "feature and the loss is NaN on the first step; the script's finite-loss check raises on both ranks. "
        "evidence: '/tmp/waveay-b-job/run/train_demand.py:64: RuntimeWarning: divide by zero encountered in log', "
        "'[rank0]: FloatingPointError: loss is nan at epoch 1 step 1', 'job exited with 1'"),
    "fabric-bread-stopped-rank": (
        f"silent_hang: {W} --step-delay 0.1 --epochs 8 wrapped in `timeout 60` (the team's cron guard), process-group "
        "timeout 1800 s; rank 1 is SIGSTOPped in epoch 2, rank 0 blocks in the gradient all-reduce and nothing more "
        "is printed; at 60 s timeout SIGTERMs the Fabric CLI, torchrun cannot stop the frozen rank 1 with SIGTERM "
        "and SIGKILLs it after 30 s; no watchdog or error names a collective. evidence: 'epoch 2 step 10/51 loss "
        "0.3446', 'W1201 03:31:45.853000 20540 torch/distributed/elastic/agent/server/api.py:753] Received 15 death "
        "signal, shutting down workers', 'W1201 03:32:15.859000 20540 torch/distributed/elastic/multiprocessing/"
        "api.py:1047] Unable to shutdown process 20738 via 15, forcefully exiting via 9', 'job exited with 124'"),
    "fabric-bread-rank-paused": (
        f"collective_timeout: {W} --step-delay 0.1 --epochs 8 --pg-timeout 30 (DDPStrategy(timeout=30 s)); rank 1 is "
        "SIGSTOPped in epoch 2; rank 0's gradient all-reduce times out in gloo after 30 s, torchrun then SIGKILLs the "
        "frozen rank 1 after its SIGTERM grace period. evidence: 'epoch 2 step 10/51 loss 0.3446', '[rank0]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
        "waiting 30000ms for recv operation to complete', '  exitcode  : -9 (pid: 22401)  (SIGKILL)', "
        "'job exited with 1'"),
    "fabric-bread-time-limit": (
        f"job_preempted: {W} --step-delay 0.05 --epochs 30; SIGTERM to the job's whole process group in epoch 3 (a "
        "scheduler's time limit); torchrun's agent shuts the workers down and the Fabric CLI dies with "
        "SignalException; the shell is killed too, no exit line. evidence: 'epoch 3 step 10/51 loss 0.1199', "
        "'W1201 03:35:14.895000 23587 torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, "
        "shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 23587 got "
        "signal: 15'"),
    "fabric-bread-ssh-closed": (
        f"terminal_hangup: {W} --step-delay 0.05 --epochs 30; SIGHUP to the job's process group in epoch 2 (the SSH "
        "session that started it closed); torchrun's agent forwards SIGHUP to the workers and the Fabric CLI dies "
        "with SignalException; the shell is gone too, no exit line. evidence: 'W1201 03:36:12.741000 24443 "
        "torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers', "
        "'W1201 03:36:12.753000 24443 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 24665 "
        "closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 24443 got "
        "signal: 1'"),
    "fabric-bread-batch-config": (
        f"batch_size_mismatch: {W} --batch-size 48 with the default --global-batch 64 on 2 processes; the script's "
        "batch check raises ValueError on both ranks before training. evidence: '[rank0]: ValueError: global batch "
        f"64 != batch size 48 x world size 2', {CF}, 'job exited with 1'"),
    "fabric-bread-notebook-port": (
        f"port_in_use: {W} --main-port 33391 while a python -m http.server left running holds that port; torchrun's "
        "TCPStore cannot bind and the Fabric CLI exits before any worker starts. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 33391, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "fabric-bread-cron-limit": (
        f"job_preempted: {W} --step-delay 0.05 --epochs 30 started by the team's cron wrapper `timeout 40`; at 40 s "
        "timeout SIGTERMs the Fabric CLI in epoch 7, torchrun's agent shuts the workers down; exit 124. evidence: "
        "'W1201 03:38:12.727000 26528 torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, "
        "shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 26528 got "
        "signal: 15', 'job exited with 124'"),
    "fabric-bread-new-store": (
        f"collective_mismatch: {W} --store-weights with TORCH_DISTRIBUTED_DEBUG=DETAIL; a store that opened "
        "yesterday (S19) has a single row, so the per-rank store bincount has 19 entries on rank 0 and 18 on rank 1 "
        "and fabric.all_reduce is called with different shapes; the DETAIL wrapper reports the mismatch on both "
        "ranks. evidence: '[rank1]:     counts = fabric.all_reduce(torch.bincount(mine).double(), "
        "reduce_op=\"sum\")', " + repr('[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=1, OpType=ALLREDUCE, TensorShape=[19], TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=1, OpType=ALLREDUCE, TensorShape=[18], TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Tensor Tensor shapes: 19vs 18') + ", 'job exited with 1'"),
    "fabric-bread-second-host": (
        f"rendezvous_timeout: {T}, started with --nnodes 2 --node-rank 0 --rdzv-conf timeout=60 while the second "
        "node's launch never happens; torchrun's static TCPStore waits 60 s for the second agent and times out "
        "before any worker starts. evidence: 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting "
        "for clients. 1/2 clients joined.', 'job exited with 1'"),
}
