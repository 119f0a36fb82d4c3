"""Manifest notes for wave AX (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("pyflyte run workflows.py training_wf (flytekit 1.16.31 local execution; ingest -> clean -> features -> train "
     "running torchrun --nproc-per-node 2 train_spoilage.py, DDP over gloo on CPU, via subprocess.run(check=True) -> "
     "evaluate), dairy cooperative milk-spoilage predictor")
TP = "' returned non-zero exit status 1.'"
NOTES = {
    "flyte-milk-healthy": (
        f"no_failure: {W}, 3 epochs; every task runs, evaluate passes the accuracy gate; the only noise is click's "
        "UserWarning about duplicate bool options at startup. evidence: '[rank0] finished 3 epochs, val acc 0.985', "
        "'2026-11-30 23:27:26,477 INFO dairy.spoilage: spoilage model passed the accuracy gate, ready to publish', "
        "'job exited with 0'"),
    "flyte-milk-healthy-garbled-ts": (
        f"no_failure: {W}; the export has 6 readings with an unreadable timestamp that the clean task logs at ERROR "
        "level and drops; training and evaluation succeed. evidence: \"2026-11-30 23:27:31,303 ERROR dairy.spoilage: "
        "reading R000000 from farm F001: unreadable timestamp '--T::', dropped\", '[rank0] finished 3 epochs, val acc "
        "0.990', 'job exited with 0'"),
    "flyte-milk-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 33205 makes the first torchrun fail with "
        "EADDRINUSE and the train task raise CalledProcessError (flytekit's local execution does not apply the task's "
        "retries=2); the developer's shell loop reruns the workflow after 8 s, the server has been stopped meanwhile, "
        "ingest/clean/features come from Flyte's local cache and training runs to the end (recovered fault). "
        "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 33205, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'2026-11-30 23:29:06,988 INFO dairy.spoilage: spoilage model passed the accuracy gate, ready to publish', "
        "'job exited with 0'"),
    "flyte-milk-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run, --epochs 5 --resume loads checkpoints/last.pt and trains "
        "epochs 3-5. evidence: '[rank0] resumed from checkpoints/last.pt (epoch 2)', '[rank0] finished 5 epochs, val "
        "acc 0.990', 'job exited with 0'"),
    "flyte-milk-healthy-rerun": (
        f"no_failure: {W}; rerun after an earlier run whose training failed (optimizer typo, not in this log): "
        "ingest/clean/features are served from Flyte's local cache (no log lines of theirs), only train and evaluate "
        "run and succeed. evidence: 'Running Execution on local.', '[rank0] finished 3 epochs, val acc 0.985', "
        "'2026-11-30 23:31:44,197 INFO dairy.spoilage: spoilage model passed the accuracy gate, ready to publish'"),
    "flyte-milk-unknown-grade": (
        f"worker_exception: {W}; the export holds one reading with a lab grade the model does not know ('curdled'); "
        "the features task raises KeyError inside pyflyte, flytekit prints its rich traceback and exits 1 before "
        "training. evidence: \"Error encountered while executing 'workflows.features'\", \"'curdled'\", "
        "'job exited with 1'"),
    "flyte-milk-renamed-column": (
        f"worker_exception: {W}; a gateway firmware update renamed the column conductivity_ms to conductivity_us; "
        "the clean task raises KeyError and the workflow stops there. evidence: \"Error encountered while "
        "executing 'workflows.clean'\", \"'conductivity_ms'\", 'job exited with 1'"),
    "flyte-milk-optimizer-typo": (
        f"worker_exception: {W}; launched with --optimizer adamW (typo for adamw); both ranks raise ValueError, "
        "torchrun reports ChildFailedError and the train task fails with CalledProcessError. evidence: "
        f"\"[rank0]: ValueError: unknown optimizer 'adamW'\", {TP}, 'job exited with 1'"),
    "flyte-milk-epochs-typo": (
        f"worker_exception: {W}; the command line says --epochs 5O (letter O); pyflyte's click parser rejects the "
        "workflow input before anything runs and exits 2. evidence: \"Invalid value for '--epochs': '5O' is not a "
        "valid integer.\", 'job exited with 2'"),
    "flyte-milk-augment-oom": (
        f"host_oom_killed: {W}; --augment_copies 16000 makes each rank build ~1.5 GB of noisy copies up front; the "
        "job runs in a 1.2 GB cgroup-v1 memory cgroup and the kernel OOM killer SIGKILLs rank 1 (dmesg: 'Memory "
        "cgroup out of memory: Killed process 9933 (python)'); torchrun tears down rank 0 and the train task fails "
        "with CalledProcessError. evidence: '[rank1] augmentation: built 2000 of 16000 copies', '  exitcode  : -9 "
        "(pid: 9933)  (SIGKILL)', '  traceback : Signal 9 (SIGKILL) received by PID 9933', 'job exited with 1'"),
    "flyte-milk-transfer-loop": (
        f"native_crash: {W}; the export records tank T041 as topped up from T048 and T048 from T041; the features "
        "task's lru_cache-wrapped origin() recursion (recursion limit raised to 1e6) overflows the C stack; local "
        "execution runs tasks inside the pyflyte process, so pyflyte itself dies with SIGSEGV, no Python traceback. "
        "evidence: 'bash: line 1:  9973 Segmentation fault      pyflyte run workflows.py training_wf --master_port "
        "33225', 'job exited with 139'"),
    "flyte-milk-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs; rank 0's torch.save of the first epoch checkpoint fails, "
        "rank 1 then sees the connection close, the train task fails with CalledProcessError. evidence: '[rank0]: "
        "RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 64 vs 0', 'job exited with 1'"),
    "flyte-milk-container-shm": (
        f"shm_exhausted: {W}; --loader_workers 2 in a private mount namespace whose /dev/shm is a 32 KiB tmpfs (a "
        "container-sized shm); the DataLoader cannot create its worker semaphores in /dev/shm on either rank. "
        "evidence: '[rank1]: OSError: [Errno 28] No space left on device', '[rank0]: OSError: [Errno 28] No space "
        "left on device', 'job exited with 1'"),
    "flyte-milk-dead-probe": (
        f"training_divergence: {W}; farm F017's conductivity probe reports 0 mS; log(conductivity) features are -inf "
        "and the loss is NaN on the first step, the training script's finiteness check raises on both ranks. "
        "evidence: '[rank1]: FloatingPointError: loss is nan at epoch 1 step 1', '[rank0]: FloatingPointError: loss "
        "is nan at epoch 1 step 1', 'job exited with 1'"),
    "flyte-milk-stopped-rank": (
        f"silent_hang: {W}, 8 epochs with a 0.1 s step delay and a 1800 s process-group timeout; rank 1 is "
        "SIGSTOPped in epoch 2, rank 0 blocks in the next gradient all-reduce and both ranks' output stops; no "
        "watchdog fires, the train task's --launch_timeout_s 60 (subprocess.run timeout; flytekit local execution does "
        "not apply the task's timeout=) kills torchrun and the task fails with TimeoutExpired. evidence: '[rank1] "
        "epoch 2 step 10 loss 0.4580', '[rank0] epoch 2 step 10 loss 0.3276', \"'--augment-copies', '0', "
        "'--log-every', '10']' timed out after 59.99995182999987 seconds\", 'job exited with 1'"),
    "flyte-milk-rank-paused": (
        f"collective_timeout: {W}, 8 epochs with --pg_timeout 30; rank 1 is SIGSTOPped in epoch 2, rank 0's gloo "
        "recv in the gradient all-reduce times out after 30 s; torchrun SIGTERMs then SIGKILLs the stopped rank and "
        "the train task fails with CalledProcessError. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms "
        "for recv operation to complete', '  exitcode  : -9 (pid: 11327)  (SIGKILL)', 'job exited with 1'"),
    "flyte-milk-time-limit": (
        f"job_preempted: {W}, a 30-epoch run; in epoch 3 the whole job's process group gets SIGTERM (a node drain); "
        "torchrun forwards it to the ranks and raises SignalException, the launching shell dies with it (no 'job "
        "exited' line). evidence: 'W1130 23:37:42.218000 11820 torch/distributed/elastic/agent/server/api.py:753] "
        "Received 15 death signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 11820 got signal: 15'"),
    "flyte-milk-ssh-closed": (
        f"terminal_hangup: {W}, a 30-epoch run; in epoch 2 the terminal's process group gets SIGHUP (SSH session "
        "closed); torchrun forwards SIGHUP to the ranks and raises SignalException, the shell dies with it (no 'job "
        "exited' line). evidence: 'W1130 23:38:22.257000 12416 torch/distributed/elastic/agent/server/api.py:753] "
        "Received 1 death signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 12416 got signal: 1'"),
    "flyte-milk-batch-config": (
        f"batch_size_mismatch: {W}; launched with --micro_batch 64 while the global batch is 128 with grad accum 2 on "
        "2 ranks; both ranks' config check raises ValueError, the train task fails with CalledProcessError. "
        "evidence: '[rank0]: ValueError: global batch 128 != micro batch 64 x grad accum 2 x world size 2', "
        f"{TP}, 'job exited with 1'"),
    "flyte-milk-notebook-port": (
        f"port_in_use: {W}; a python -m http.server (a forgotten notebook file server) holds the master port 33243; "
        "torchrun's TCPStore cannot listen and the train task fails with CalledProcessError. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 33243, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "flyte-milk-cron-limit": (
        f"job_preempted: {W}, a 30-epoch run launched under `timeout 40` (the dev box's cron time limit); after 40 s "
        "timeout sends SIGTERM, torchrun shuts the ranks down and raises SignalException, the shell reports timeout's "
        "exit code 124. evidence: 'W1130 23:39:52.317000 13028 torch/distributed/elastic/agent/server/api.py:753] "
        "Received 15 death signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 13028 got signal: 15', 'job exited with 124'"),
    "flyte-milk-rare-grade": (
        f"collective_mismatch: {W}; --class_weights with an export that holds a single 'spoiled' reading; the "
        "per-rank grade bincount has 3 entries on one rank and 2 on the other, so the all_reduce shapes differ and "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL reports the mismatch on both ranks; the train task fails with "
        "CalledProcessError. evidence: '[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 "
        "is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[2]', "
        "'job exited with 1'"),
    "flyte-milk-second-host": (
        f"rendezvous_timeout: {W}; launched with --nnodes 2 but no second node is started; torchrun's static TCPStore "
        "on 127.0.0.1 waits 60 s (--rdzv-conf timeout=60) for the second agent and gives up, the train task fails "
        "with CalledProcessError. evidence: 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for "
        "clients. 1/2 clients joined.', 'job exited with 1'"),
}
