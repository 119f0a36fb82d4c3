"""Manifest notes for wave AZ (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("doit (pydoit 0.37.0) from the job directory, dodo.py tasks prepare -> train -> evaluate -> export with "
     "file_dep/targets; train runs torchrun --nproc_per_node 2 train.py, plain PyTorch DDP over gloo on CPU logging "
     "with Python's logging; hospital pharmacy drug-stockout predictor from per-ward, per-drug daily usage")
TF = "doit reports 'TaskFailed - taskid:train' with the torchrun command that returned 1"
NOTES = {
    "doit-stockout-healthy": (
        f"no_failure: {W}, 3 epochs; every task runs, evaluate passes the accuracy gate, export writes the "
        "TorchScript model. evidence: '2026-12-01 09:56:41,699 [rank0] INFO stockout.train: finished 3 epochs, val "
        "acc 0.993', '2026-12-01 09:56:44,770 INFO stockout.evaluate: val accuracy 0.993 (gate 0.60), recall per "
        "class {0: 1.0, 1: 0.0, 2: 0.0}', 'job exited with 0'"),
    "doit-stockout-healthy-bad-dates": (
        f"no_failure: {W}; 4 cabinet rows carry the date '00/00/0000', which the prepare task logs at ERROR level "
        "and drops; training, evaluation and export succeed. evidence: \"2026-12-01 09:56:47,070 ERROR "
        "stockout.features: row for CCU/D010: unreadable date '00/00/0000', dropped\", '2026-12-01 09:57:11,299 INFO "
        "stockout.evaluate: val accuracy 0.992 (gate 0.60), recall per class {0: 1.0, 1: 0.0, 2: 0.0}', "
        "'job exited with 0'"),
    "doit-stockout-healthy-rerun": (
        f"no_failure: {W}; rerun after an earlier run (not in this log) failed in train on an optimizer typo: doit "
        "skips the up-to-date prepare task ('-- prepare') and runs train (its config changed), evaluate and export. "
        "evidence: '-- prepare', '2026-12-01 09:57:49,352 [rank0] INFO stockout.train: finished 3 epochs, val acc "
        "0.993', 'job exited with 0'"),
    "doit-stockout-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run, 'doit epochs=5 resume=1': prepare is up to date, train "
        "reruns (config changed) and both ranks resume from checkpoints/last.pt and train epochs 3-5. evidence: "
        "'-- prepare', '2026-12-01 09:58:37,334 [rank1] INFO stockout.train: resumed from checkpoints/last.pt "
        "(epoch 2)', 'job exited with 0'"),
    "doit-stockout-renamed-column": (
        f"worker_exception: {W}; the cabinet export's column doses_dispensed was renamed doses_given; the prepare "
        "task's python-action raises KeyError, doit reports a TaskError and stops, nothing trains. evidence: "
        "'TaskError - taskid:prepare', \"KeyError: 'doses_dispensed'\", 'job exited with 2'"),
    "doit-stockout-optimizer-typo": (
        f"worker_exception: {W}; 'doit optimizer=adamW': both ranks raise ValueError, torchrun's ChildFailedError, "
        f"{TF}. evidence: \"[rank0]: ValueError: unknown optimizer 'adamW'\", 'TaskFailed - taskid:train', "
        "'job exited with 1'"),
    "doit-stockout-onnx-export": (
        f"library_version_mismatch: {W}; 'doit export_format=onnx': training and evaluation succeed, the export "
        "task's torch.onnx.export needs onnxscript, which is not installed: ModuleNotFoundError, doit TaskError "
        "(collected as worker_exception; relabelled after the blind measurement to the corpus's id for a missing "
        "module, an environment problem, as its other ModuleNotFoundError logs). evidence: "
        "'TaskError - taskid:export', \"ModuleNotFoundError: No module named 'onnxscript'\", 'job exited with 2'"),
    "doit-stockout-epochs-typo": (
        "worker_exception: 'doit port=29821 epochs=3O' (pydoit 0.37.0, dodo.py reads its options with get_var); "
        "int('3O') raises ValueError while doit loads dodo.py, doit prints the traceback and exits 3, no task runs. "
        "evidence: \"ValueError: invalid literal for int() with base 10: '3O'\", 'job exited with 3'"),
    "doit-stockout-oversample-oom": (
        f"host_oom_killed: {W}; 'doit oversample=6000' in a 1 GB cgroup-v1 memory cgroup; the kernel OOM killer "
        "kills rank 0 while both ranks build the oversampled copies (dmesg: 'Memory cgroup out of memory: Killed "
        f"process 12534 (python3)'), torchrun reports exitcode -9 and {TF}. evidence: '2026-12-01 10:00:17,082 "
        "[rank1] INFO stockout.train: oversampling: 200 of 6000 copies', 'E1201 10:00:17.800000 12517 "
        "torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 0 (pid: 12534) of "
        "binary: /tmp/corpus-venv-az-c/bin/python3', 'job exited with 1'"),
    "doit-stockout-substitution-loop": (
        f"native_crash: {W}; the formulary's substitution table has D005 and D006 naming each other; the prepare "
        "task's lru_cache recursion (recursion limit raised to 1e6) runs inside the doit process and overflows the "
        "C stack: doit dies with SIGSEGV, bash reports it. evidence: '.  prepare', 'bash: line 1: 12562 "
        "Segmentation fault      nice -n 5 doit port=29825', 'job exited with 139'"),
    "doit-stockout-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs; rank 0's torch.save of the epoch-1 checkpoint fails (the "
        f"full volume shows as an iostream error), rank 1 loses its peer, {TF}. evidence: '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 64 vs 0', 'TaskFailed - taskid:train', 'job exited with 1'"),
    "doit-stockout-container-shm": (
        f"shm_exhausted: {W}; 'doit loader_workers=2' under unshare -m with a 32 KiB tmpfs on /dev/shm; the "
        f"DataLoader workers cannot create their shared-memory semaphores on either rank, {TF}. evidence: "
        "'[rank0]: OSError: [Errno 28] No space left on device', 'TaskFailed - taskid:train', 'job exited with 1'"),
    "doit-stockout-cabinet-reset": (
        f"training_divergence: {W}; the ICU cabinet was reset and reports 0 doses and stock -1 for its last 5 days; "
        "log1p(-1) puts -inf into the features, the loss is NaN on rank 1 in the first epoch and the script's "
        f"finite-loss check raises, rank 0 loses its peer, {TF}. evidence: '[rank1]: FloatingPointError: loss is "
        "nan at epoch 1 step 3', 'TaskFailed - taskid:train', 'job exited with 1'"),
    "doit-stockout-rank-paused": (
        f"collective_timeout: {W}, 6 epochs, 'doit pg_timeout=30'; rank 1 is SIGSTOPped in epoch 2; rank 0's gloo "
        "collective times out after 30 s, torchrun cannot stop the stopped rank with SIGTERM and SIGKILLs it, "
        f"{TF}. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', 'job exited with 1'"),
    "doit-stockout-stopped-rank": (
        f"silent_hang: {W}, 6 epochs, 'doit pg_timeout=1800'; rank 1 is SIGSTOPped in epoch 2; no watchdog fires "
        "within 30 minutes, training stops printing with no error; the developer kills the job after 120 s (no "
        "'job exited' line). evidence: '2026-12-01 10:02:54,851 [rank1] INFO stockout.train: epoch 2 step 20 loss "
        "0.0074' (the last line)"),
    "doit-stockout-batch-config": (
        f"batch_size_mismatch: {W}; 'doit micro_batch=64' with global batch 128, grad accum 2 and 2 ranks; both "
        f"ranks raise ValueError at startup, {TF}. evidence: '[rank0]: ValueError: global batch 128 != micro batch "
        "64 x grad accum 2 x world size 2', 'job exited with 1'"),
    "doit-stockout-notebook-port": (
        f"port_in_use: {W}; a python -m http.server left on the master port 29843; torchrun's TCPStore cannot "
        f"listen, {TF}. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any "
        "local network address. port: 29843, useIpv6: false, code: -98, name: EADDRINUSE, message: address already "
        "in use', 'job exited with 1'"),
    "doit-stockout-rare-stockout": (
        f"collective_mismatch: {W}; 'doit class_weights=1' with TORCH_DISTRIBUTED_DEBUG=DETAIL; the training split "
        "holds a single 'stocked out' sample, so rank 0's label bincount has 2 entries and rank 1's 3: the "
        f"all_reduce shapes differ and both ranks report the mismatch, {TF}. evidence: '[rank0]: RuntimeError: "
        "Detected mismatch between collectives on ranks. Rank 0 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[2], TensorDtypes=Double, "
        "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), "
        "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is "
        "running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[3], "
        "TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided "
        "(default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))."
        "Collectives differ in the following aspects:   Tensor Tensor shapes: 2vs 3', "
        "'job exited with 1'"),
    "doit-stockout-second-host": (
        f"rendezvous_timeout: {W}; 'doit nnodes=2' but no second node is started; torchrun's static TCPStore waits "
        f"60 s (--rdzv_conf timeout=60) for the second agent and gives up, {TF}. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', "
        "'job exited with 1'"),
    "doit-stockout-healthy-c10d-workers": (
        f"no_failure: {W}; 'doit rdzv=c10d loader_workers=2': torchrun's c10d rendezvous on 127.0.0.1:29849 and 2 "
        "DataLoader worker processes per rank; all four tasks succeed. evidence: '2026-12-01 10:07:24,879 [rank0] "
        "INFO stockout.train: finished 3 epochs, val acc 0.993', '2026-12-01 10:07:37,400 INFO stockout.export: "
        "exported export/stockout.pt (torchscript) for the ward dashboard', 'job exited with 0'"),
    "doit-stockout-ci-budget": (
        f"job_preempted: {W}, 30 epochs with step_delay 0.05, launched from the nightly CI entry as 'timeout 40 nice "
        "-n 5 doit ...'; after 40 s coreutils timeout sends SIGTERM to the job's process group in epoch 4; doit, "
        "which relays torchrun's output, dies with it, so no error line is printed; the shell reports exit 124. "
        "evidence: '2026-12-01 10:08:17,925 [rank1] INFO stockout.train: epoch 4 step 20 loss 0.0100', "
        "'job exited with 124'"),
    "doit-stockout-work-volume": (
        f"disk_full: {W}; work/ (the prepare task's feature pickles) is a 128 KiB tmpfs; pickle.dump in the prepare "
        "python-action fails, doit reports a TaskError, nothing trains. evidence: 'TaskError - taskid:prepare', "
        "'OSError: [Errno 28] No space left on device', 'job exited with 2'"),
    "doit-stockout-rank-sigkill": (
        f"host_oom_killed: {W}, 6 epochs, 'doit max_restarts=1 resume=1 pg_timeout=60' (torchrun may restart the "
        "worker group once); rank 1 is SIGKILLed from outside in epoch 2 (kill -9, no OOM), rank 0 sees the "
        "connection reset, torchrun reports exitcode -9 and restarts both workers, but the restarted rank 0's gloo "
        "connectFullMesh dials the killed rank's old address and is refused, so the retry fails too and "
        f"{TF}. evidence: 'E1201 10:14:09.559000 17297 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -9) local_rank: 1 (pid: 17437) of binary: /tmp/corpus-venv-az-c/bin/python3', 'RuntimeError: "
        "Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:152] "
        "timed out connecting: SO_ERROR: Connection refused, remote=[127.0.0.1]:14735$0', 'TaskFailed - "
        "taskid:train', 'job exited with 1'"),
}
