"""Manifest notes for wave AW (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("python -m luigi --module pipeline Evaluate --local-scheduler --workers 2 (Luigi 3.8.1; HiveExport -> "
     "ExtractReadings -> BuildFeatures -> TrainColonyModel running torchrun --nproc-per-node 2 train_colony.py, DDP "
     "over gloo on CPU, via subprocess.run(check=True) -> Evaluate), bee-colony health classifier")
NOTES = {
    "luigi-hive-healthy": (
        f"no_failure: {W}, 3 epochs; every task done, Evaluate passes the accuracy gate; only noise is Luigi's DEBUG "
        "scheduler polling. evidence: '[rank0] finished 3 epochs, val acc 0.938', 'INFO: colony-health model passed the "
        "accuracy gate, ready to publish', 'This progress looks :) because there were no failed tasks or missing "
        "dependencies'"),
    "luigi-hive-healthy-garbled-dates": (
        f"no_failure: {W}; the export has 6 readings with an unreadable date that ExtractReadings logs at ERROR level "
        "and drops; training and evaluation succeed. evidence: \"ERROR: reading R000000: unreadable date "
        "'####-##-##', dropped\", 'INFO: kept 2394 readings (6 dropped)', 'job exited with 0'"),
    "luigi-hive-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 32005 makes the first torchrun fail with "
        "EADDRINUSE and TrainColonyModel FAILED; the task has retries=2 (retry_count), the server is stopped meanwhile "
        "and the local scheduler's retry (retry_delay 8 s, keep_alive) trains to the end (recovered fault). evidence: "
        "'name: EADDRINUSE, message: address already in use', 'This progress looks :) because there were failed "
        "tasks but they all succeeded in a retry', 'job exited with 0'"),
    "luigi-hive-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run, --TrainColonyModel-epochs 5 --TrainColonyModel-resume loads "
        "checkpoints/last.pt and trains epochs 3-5. evidence: '[rank0] resumed from checkpoints/last.pt (epoch 2)', "
        "'[rank0] finished 5 epochs, val acc 0.958', 'job exited with 0'"),
    "luigi-hive-healthy-rerun": (
        f"no_failure: {W}; rerun after an earlier run whose training failed (optimizer typo, not in this log): the "
        "upstream outputs are complete, only TrainColonyModel and Evaluate run and succeed. evidence: '* 1 complete "
        "ones were encountered:', '[rank0] finished 3 epochs, val acc 0.938', 'This progress looks :) because there "
        "were no failed tasks or missing dependencies'"),
    "luigi-hive-unknown-status": (
        f"worker_exception: {W}; the hive export holds one reading with an inspector status the model does not know "
        "('absconded'); BuildFeatures raises KeyError in its Luigi worker process, Train and Evaluate are left pending "
        "with failed dependencies and the CLI exits with the [retcode] task_failed code. evidence: \"KeyError: "
        "'absconded'\", 'This progress looks :( because there were failed tasks', 'job exited with 30'"),
    "luigi-hive-renamed-column": (
        f"worker_exception: {W}; the gateway export renamed the column weight_kg to weight_g (firmware update); "
        "ExtractReadings raises KeyError and the pipeline stops there. evidence: \"KeyError: 'weight_kg'\", "
        "'This progress looks :( because there were failed tasks'"),
    "luigi-hive-optimizer-typo": (
        f"worker_exception: {W}; the run is launched with --TrainColonyModel-optimizer adamW (typo for adamw); both "
        "ranks raise ValueError, torchrun reports ChildFailedError and the Luigi task fails with CalledProcessError. "
        "evidence: \"[rank0]: ValueError: unknown optimizer 'adamW'\", 'returned non-zero exit status 1.', "
        "'This progress looks :( because there were failed tasks'"),
    "luigi-hive-epochs-typo": (
        f"worker_exception: {W}; the command line says --TrainColonyModel-epochs 5O (letter O); Luigi cannot parse "
        "the IntParameter while building Evaluate's requirements, scheduling fails and no task runs. evidence: "
        "\"ValueError: invalid literal for int() with base 10: '5O'\", 'This progress looks :( because there were tasks "
        "whose scheduling failed', 'job exited with 35'"),
    "luigi-hive-augment-oom": (
        f"host_oom_killed: {W}; --TrainColonyModel-augment-copies 16000 makes each rank build ~2 GB of noisy copies "
        "up front; the job runs in a 1.2 GB cgroup-v1 memory cgroup and the kernel OOM killer SIGKILLs rank 1 "
        "(dmesg: 'Memory cgroup out of memory: Killed process'); torchrun tears down rank 0 and the Luigi task fails. "
        "evidence: '[rank1] augmentation: built 2000 of 16000 copies', '  exitcode  : -9 (pid: 13366)  (SIGKILL)', "
        "'This progress looks :( because there were failed tasks'"),
    "luigi-hive-split-cycle": (
        f"native_crash: {W}; the export records hive H041 as split from H048 and H048 from H041; BuildFeatures' "
        "lru_cache-wrapped founder() recursion (recursion limit raised to 1e6) overflows the C stack and the Luigi "
        "task process dies with SIGSEGV; no Python traceback. evidence: 'INFO: Task BuildFeatures_0_2_d4b2441578 died "
        "unexpectedly with exit code -11', 'This progress looks :( because there were failed tasks'"),
    "luigi-hive-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs (a small volume); rank 0's first torch.save of the epoch "
        "checkpoint runs out of space and PyTorch's writer reports it as an iostream error, rank 1 then loses its "
        "peer. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]:     "
        "self.file_like.write_end_of_file()'"),
    "luigi-hive-container-shm": (
        f"shm_exhausted: {W}; --TrainColonyModel-loader-workers 2 inside a mount namespace whose /dev/shm is a 32 KiB "
        "tmpfs (container default-sized shm); creating the DataLoader's multiprocessing semaphores in /dev/shm fails "
        "on both ranks. evidence: '[rank0]: OSError: [Errno 28] No space left on device', '[rank0]:     sl = "
        "self._semlock = _multiprocessing.SemLock('"),
    "luigi-hive-unplugged-scale": (
        f"training_divergence: {W}; hive H017's scale reported 0 kg (sensor unplugged), so BuildFeatures' log weight "
        "features are -inf (numpy RuntimeWarning only) and the first step's loss is NaN; the training script's "
        "finite-loss check raises. evidence: 'RuntimeWarning: divide by zero encountered in log', '[rank1]: "
        "FloatingPointError: loss is nan at epoch 1 step 1'"),
    "luigi-hive-stopped-rank": (
        f"silent_hang: {W}; rank 1 is SIGSTOPped in epoch 2 (process group timeout 1800 s, so no collective error); "
        "training output stops and after 60 s Luigi's worker_timeout on TrainColonyModel terminates the task. "
        "evidence: '[rank1] epoch 2 step 10 loss 1.0603', 'INFO: Task TrainColonyModel_0_False_8_cd4386037b timed out "
        "after 60 seconds and was terminated.'"),
    "luigi-hive-rank-paused": (
        f"collective_timeout: {W}; rank 1 is SIGSTOPped in epoch 2 with --TrainColonyModel-pg-timeout 30; rank 0's "
        "gloo collective times out after 30 s, torchrun cannot stop the frozen rank with SIGTERM and SIGKILLs it. "
        "evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', 'Unable to shutdown process "
        "15053 via 15, forcefully exiting via 9'"),
    "luigi-hive-time-limit": (
        f"job_preempted: {W} (30 epochs); in epoch 3 the node's scheduler SIGTERMs the job's whole process group "
        "(shell, luigi, its worker processes, torchrun, ranks); the shell dies too, so no exit line. evidence: "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 15657 got signal: 15'"),
    "luigi-hive-ssh-closed": (
        f"terminal_hangup: {W} (30 epochs) started from an SSH shell; the session closes in epoch 2 and the "
        "process group gets SIGHUP; torchrun reports signal 1, no exit line. evidence: "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 15811 got signal: 1'"),
    "luigi-hive-batch-config": (
        f"batch_size_mismatch: {W}; --TrainColonyModel-micro-batch 64 while the script keeps global batch 128 and "
        "grad accum 2 on 2 ranks; both ranks raise at start-up. evidence: '[rank0]: ValueError: global batch 128 != "
        "micro batch 64 x grad accum 2 x world size 2'"),
    "luigi-hive-notebook-port": (
        f"port_in_use: {W}; a python -m http.server someone left running holds the master port 32041; torchrun's "
        "TCPStore cannot listen and TrainColonyModel fails (no retries). evidence: 'torch.distributed.DistNetworkError: "
        "The server socket has failed to listen on any local network address. port: 32041, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use'"),
    "luigi-hive-cron-limit": (
        f"job_preempted: {W} (30 epochs) started by a cron wrapper as timeout 40 python -m luigi ...; at the 40 s limit "
        "timeout SIGTERMs luigi, which stops its task processes; torchrun gets SIGTERM. evidence: 'job exited with "
        "124', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 15998 got signal: 15'"),
    "luigi-hive-second-host": (
        f"rendezvous_timeout: {W}; --TrainColonyModel-nnodes 2 while no second node is ever started; torchrun's static "
        "rendezvous TCPStore on node 0 waits 60 s (--rdzv-conf timeout=60) for the other agent and gives up. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', "
        "'This progress looks :( because there were failed tasks'"),
    "luigi-hive-rare-status": (
        f"collective_mismatch: {W}; --TrainColonyModel-class-weights with an export holding a single 'starving' "
        "reading: each rank's torch.bincount of its shard has a different length (5 vs 4) and the all_reduce shapes "
        "differ; TORCH_DISTRIBUTED_DEBUG=DETAIL reports it. evidence: '[rank1]: RuntimeError: Detected mismatch "
        "between collectives on ranks.' (... 'Tensor Tensor shapes: 4vs 5')"),
}
