"""Manifest notes for wave AY (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("python run_pipeline.py (kfp 2.17.3 local execution, SubprocessRunner(use_venv=False); a @dsl.pipeline of "
     "lightweight components ingest -> clean -> train running torchrun --nproc-per-node 2 train.py, DDP over gloo "
     "on CPU, via subprocess.run(check=True) -> evaluate), wind-farm gearbox-fault detector from turbine SCADA")
FAILED = "kfp marks the task FAILURE and the pipeline call raises RuntimeError (Inner task failed)"
NOTES = {
    "kfp-gearbox-healthy": (
        f"no_failure: {W}, 3 epochs; every task succeeds, evaluate passes the accuracy gate. evidence: "
        "'    [rank0] finished 3 epochs, val acc 0.980', '    [KFP Executor 2026-12-01 03:16:23,926 INFO]: validation "
        "accuracy 0.980 (gate 0.80)', 'pipeline finished, validation accuracy 0.980', 'job exited with 0'"),
    "kfp-gearbox-healthy-nat-ts": (
        f"no_failure: {W}; the SCADA export has 5 records with timestamp 'NaT' that the clean component logs at ERROR "
        "level and drops; training and evaluation succeed. evidence: \"    [KFP Executor 2026-12-01 03:16:32,463 "
        "ERROR]: record S0000000 from WTG01: unreadable timestamp 'NaT', dropped\", 'pipeline finished, validation "
        "accuracy 0.983', 'job exited with 0'"),
    "kfp-gearbox-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 33305 makes the first torchrun fail with "
        f"EADDRINUSE, the train task fails and {FAILED}; the server is stopped meanwhile and the developer's shell "
        "loop reruns the pipeline after 8 s, which runs to the end (recovered fault). evidence: '    "
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 33305, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'pipeline finished, validation accuracy 0.980', 'job exited with 0'"),
    "kfp-gearbox-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run, --epochs 5 --resume loads checkpoints/last.pt and trains "
        "epochs 3-5. evidence: '    [rank0] resumed from checkpoints/last.pt (epoch 2)', '    [rank0] finished 5 "
        "epochs, val acc 0.982', 'job exited with 0'"),
    "kfp-gearbox-healthy-rerun": (
        f"no_failure: {W}; rerun with --cache (kfp local caching) after an earlier cached run whose training failed "
        "(optimizer typo, not in this log): ingest and clean come from kfp's local cache and do not run, the run "
        "starts at the train task and succeeds. evidence: '    Output: 0.98', 'job exited with 0'"),
    "kfp-gearbox-unknown-verdict": (
        f"worker_exception: {W}; one SCADA record carries a verdict the model does not know ('bearing_spall'); the "
        f"clean component raises KeyError, {FAILED}; training never starts. evidence: \"    KeyError: "
        "'bearing_spall'\", 'job exited with 1'"),
    "kfp-gearbox-renamed-column": (
        f"worker_exception: {W}; the export's column vib_rms_mm_s was renamed vib_rms_g; the clean component raises "
        f"KeyError, {FAILED}. evidence: \"    KeyError: 'vib_rms_mm_s'\", 'job exited with 1'"),
    "kfp-gearbox-optimizer-typo": (
        f"worker_exception: {W}; --optimizer adamW: both ranks raise ValueError, torchrun's ChildFailedError, the "
        f"train component's CalledProcessError, {FAILED}. evidence: \"    [rank1]: ValueError: unknown optimizer "
        "'adamW'\", '    torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ', 'job exited with 1'"),
    "kfp-gearbox-epochs-typo": (
        "worker_exception: python run_pipeline.py --epochs 5O (kfp local driver); argparse rejects the value before "
        "kfp starts, exit 2, nothing runs. evidence: \"run_pipeline.py: error: argument --epochs: invalid int value: "
        "'5O'\", 'job exited with 2'"),
    "kfp-gearbox-augment-oom": (
        f"host_oom_killed: {W}; --augment-copies 16000 in a 1.2 GB cgroup-v1 memory cgroup; the kernel OOM killer "
        "SIGKILLs rank 1 while it builds the augmented copies (dmesg: 'Memory cgroup out of memory: Killed process "
        f"16385'), torchrun reports exitcode -9 and {FAILED}. evidence: '    [rank1] augmentation: built 0 of 16000 "
        "copies', '      traceback : Signal 9 (SIGKILL) received by PID 16385', 'job exited with 1'"),
    "kfp-gearbox-string-loop": (
        f"native_crash: {W}; the SCADA wiring table has WTG19 and WTG20 upstream of each other; the clean "
        "component's lru_cache recursion over the collector string (recursion limit raised to 1e6) overflows the C "
        f"stack and the component process dies with SIGSEGV; {FAILED}. evidence: '    Segmentation fault', "
        "'job exited with 1'"),
    "kfp-gearbox-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs; rank 0's torch.save of the epoch-1 checkpoint fails "
        "(the full volume shows as an iostream error), rank 1 then loses its peer, torchrun's ChildFailedError and "
        f"{FAILED}. evidence: '    [rank0]: RuntimeError: basic_ios::clear: iostream error', '    [rank0]: "
        "RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0', 'job exited with 1'"),
    "kfp-gearbox-container-shm": (
        f"shm_exhausted: {W}; --loader-workers 2 under unshare -m with a 32 KiB tmpfs on /dev/shm; the DataLoader's "
        "multiprocessing semaphores cannot be created in /dev/shm (Errno 28) on both ranks, torchrun's "
        f"ChildFailedError and {FAILED}. evidence: '    [rank1]:     SemLock.__init__(self, SEMAPHORE, 1, 1, "
        "ctx=ctx)', '    [rank1]: OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "kfp-gearbox-stuck-rpm": (
        f"training_divergence: {W}; turbine WTG07's rotor-speed sensor reports 0 rpm; the power/rpm log-ratio feature "
        "is inf (numpy's divide-by-zero warning in the clean component), the loss is NaN on the first step and both "
        f"ranks raise FloatingPointError, torchrun's ChildFailedError and {FAILED}. evidence: '    [rank0]: "
        "FloatingPointError: loss is nan at epoch 1 step 1', 'job exited with 1'"),
    "kfp-gearbox-rank-paused": (
        f"collective_timeout: {W}; rank 1 SIGSTOPped in epoch 2 of an 8-epoch run with --pg-timeout 30; rank 0's "
        "gloo collective times out after 30 s, torchrun stops the job (rank 1 SIGKILLed) and "
        f"{FAILED}. evidence: '    [rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', 'job exited with 1'"),
    "kfp-gearbox-ssh-closed": (
        f"terminal_hangup: {W}, 30 epochs with --step-delay 0.05, started from an SSH session; the session closes in "
        "epoch 2 and SIGHUP reaches the job's whole process group (shell, kfp driver, component, torchrun, ranks): "
        "every process dies at once with no error line and no 'job exited' line; the log just stops. evidence: "
        "'    [rank0] saved checkpoint checkpoints/epoch-1.pt', '    [rank0] epoch 2 step 10 loss 0.3107[rank1] epoch "
        "2 step 10 loss 0.4304'"),
    "kfp-gearbox-batch-config": (
        f"batch_size_mismatch: {W}; --micro-batch 64 with global batch 128, grad accum 2 and 2 ranks "
        "(64 x 2 x 2 != 128); both ranks raise ValueError at startup, torchrun's ChildFailedError and "
        f"{FAILED}. evidence: '    [rank1]: ValueError: global batch 128 != micro batch 64 x grad accum 2 x world size 2', 'job exited with 1'"),
    "kfp-gearbox-notebook-port": (
        f"port_in_use: {W}; a python -m http.server left running on the master port 33343; torchrun's TCPStore "
        f"cannot bind (EADDRINUSE), the train task fails and {FAILED}. evidence: '    torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 33343, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited with 1'"),
    "kfp-gearbox-rare-fault": (
        f"collective_mismatch: {W}; --class-weights with a single 'fault' record in the export; the rank whose shard "
        "lacks it counts 2 verdicts, the other 3, so the all_reduce shapes differ; with TORCH_DISTRIBUTED_DEBUG=DETAIL "
        f"both ranks report the mismatch, torchrun's ChildFailedError and {FAILED}. evidence: '    [rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[2], TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[3], TensorDtypes=Double, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Tensor Tensor shapes: 2vs 3', "
        "'job exited with 1'"),
    "kfp-gearbox-second-host": (
        f"rendezvous_timeout: {W}; --nnodes 2 but no second node is ever started; torchrun's static TCPStore on "
        "the master waits 60 s (--rdzv-conf timeout=60) for the second node's agent and gives up, the train task "
        f"fails and {FAILED}. evidence: '    torch.distributed.DistStoreError: Timed out after 61 seconds waiting "
        "for clients. 1/2 clients joined.', 'job exited with 1'"),
    "kfp-gearbox-stopped-rank": (
        f"silent_hang: {W}, 8 epochs, --pg-timeout 1800; rank 1 is SIGSTOPped in epoch 2 and training stops making "
        "progress with no error; after 60 s the train component's own --launch-timeout-s (subprocess.run timeout) "
        "kills torchrun and raises TimeoutExpired, but the orphaned ranks keep the component's output pipe open, so "
        "kfp's local runner never reports the task's end and the pipeline call hangs until the developer kills it "
        "after 200 s (no 'job exited' line). evidence: "
        '"    subprocess.TimeoutExpired: Command \'[\'torchrun\', \'--nnodes\', \'1\', \'--nproc-per-node\', \'2\', \'--node-rank\', \'0\', \'--master-addr\', \'127.0.0.1\', \'--master-port\', \'33333\', \'--rdzv-conf\', \'timeout=60\', \'train.py\', \'--train\', \'/tmp/waveay-a-job/run/work/features/train.pkl\', \'--val\', \'/tmp/waveay-a-job/run/work/features/val.pkl\', \'--ckpt-dir\', \'checkpoints\', \'--epochs\', \'8\', \'--micro-batch\', \'32\', \'--optimizer\', \'adamw\', \'--lr\', \'0.003\', \'--loader-workers\', \'0\', \'--step-delay\', \'0.1\', \'--pg-timeout\', \'1800\', \'--augment-copies\', \'0\', \'--log-every\', \'10\']\' timed out after 59.99995406400012 seconds"'),
    "kfp-gearbox-cron-limit": (
        f"job_preempted: {W}, 30 epochs with --step-delay 0.05, launched from the nightly cron entry as "
        "'timeout 40 python run_pipeline.py ...'; after 40 s coreutils timeout sends SIGTERM to the job's process "
        "group in epoch 10, every process dies without an error line and the shell reports exit 124. evidence: "
        "'    [rank0] epoch 10 step 20 loss 0.0021', 'job exited with 124'"),
}
