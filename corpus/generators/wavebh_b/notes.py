"""Manifest notes per scenario, written after the runs; evidence is quoted exactly from each job.log."""

_ENV = ("2-rank DDP MLP classifier (gloo, torch 2.13.0+cpu) over JSONL shards read by torchdata 0.11.0 "
        "StatefulDataLoader (2 workers/rank), launched with 'python -m torch.distributed.run --nproc_per_node 2 "
        "--master-port P train.py --data-dir /tmp/wavebh-b-job/data ...'")

NOTES = {
    "clean": (
        f"no_failure: {_ENV} --max-steps 60 --ckpt-dir --ckpt-every 20; healthy run, only torchdata's deprecation "
        "UserWarning on each rank. evidence: \"/tmp/venv-bh-b/lib/python3.11/site-packages/torchdata/stateful_dataloader/"
        "stateful_dataloader.py:379: UserWarning: 'set_vital' is deprecated, please do not call\", "
        "'2026-12-02 06:08:38,812 [rank0] INFO trainer: training done: 60 steps in 1.1s', 'job exited with 0'"),
    "resume": (
        f"no_failure: {_ENV} --max-steps 70 --ckpt-every 35 --resume; a previous (unlogged) run stopped at step 30 "
        "with a checkpoint holding model, optimizer and dataloader state; this run resumes it and finishes. evidence: "
        "'2026-12-02 06:10:20,563 [rank0] INFO trainer: resumed from step000030.pt at step 30 (dataloader state "
        "restored)', '2026-12-02 06:10:21,510 [rank0] INFO trainer: training done: 70 steps in 0.9s', 'job exited with 0'"),
    "skip_bad_mirror_retry": (
        f"no_failure: {_ENV} --skip-bad-records --mirror-dir /tmp/wavebh-b-job/mirror --ckpt-every 30; one JSONL row "
        "lacks its 'x' field and is logged with a KeyError traceback then substituted; the checkpoint mirror directory "
        "did not exist at the first copy (the harness created it after the warning) and the retry succeeded. evidence: "
        "'2026-12-02 06:14:01,839 [rank0] WARNING trainer: checkpoint mirror copy failed (attempt 1/3): [Errno 2] No "
        "such file or directory: '/tmp/wavebh-b-job/mirror/step000030.pt'; retrying in 3s', '2026-12-02 06:14:05,100 "
        "[rank1] ERROR trainer.data: malformed record at row 2065, substituting row 2066', \"KeyError: 'x'\", "
        "'job exited with 0'"),
    "eval_nan_metric": (
        f"no_failure: {_ENV} --eval-every 20 --eval-data-dir /tmp/wavebh-b-job/heldout; the held-out set has only 3 "
        "of the 4 classes so the per-class recall of the missing class is 0/0 and macro_recall is nan, while the loss "
        "is finite and training finishes. evidence: '2026-12-02 06:11:31,413 [rank0] INFO trainer: eval step 20: "
        "val_loss 0.1956 val_acc 1.0000 macro_recall nan', '2026-12-02 06:11:34,494 [rank0] INFO trainer: training "
        "done: 60 steps in 4.6s', 'job exited with 0'"),
    "global_batch": (
        f"batch_size_mismatch: {_ENV} --global-batch-size 128 --micro-batch-size 32; the config's global batch does not "
        "equal micro batch * grad_accum * world_size (2 ranks), so both ranks' startup check raises. evidence: "
        "'[rank1]: ValueError: global_batch_size 128 != micro_batch_size 32 * grad_accum 1 * world_size 2 (= 64)', "
        "'job exited with 1'"),
    "port_taken": (
        f"port_in_use: {_ENV.replace('--master-port P', '--master-port 29655')}; another process was already "
        "listening on 29655, so torchrun's TCPStore could not bind. evidence: 'torch.distributed.DistNetworkError: "
        "The server socket has failed to listen on any local network address. port: 29655, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'job exited with 1'"),
    "second_node_missing": (
        f"rendezvous_timeout: {_ENV.replace('--master-port P', '--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29656 --rdzv-conf join_timeout=25')}; "
        "only one of the two nodes was ever started, so the c10d rendezvous never completed. evidence: "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "rank0_eval_timeout": (
        f"collective_timeout: {_ENV} --eval-every 30 --eval-data-dir (120000 rows) --dist-timeout 10; evaluation runs "
        "on rank 0 only over a large held-out set while rank 1 goes on to the next collective, which times out on gloo "
        "after 10 s. evidence: '[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 10000ms for recv operation to complete', '2026-12-02 06:16:05,848 "
        "[rank0] INFO trainer: eval step 60: val_loss 0.0030 val_acc 1.0000 macro_recall 0.9999833106994629'"),
    "sorted_shards_infer_classes": (
        f"collective_mismatch: {_ENV} --num-classes 0 --shard-split contiguous; the dataset was exported sorted by "
        "label and each rank reads its own contiguous shards and infers the class count from them, so rank 0 builds a "
        "2-class head and rank 1 a 4-class head and DDP's parameter-shape check fails. evidence: '[rank1]: "
        "RuntimeError: [1]: params[4] in this process with sizes [4, 128] appears not to match sizes of the same param "
        "in process 0.', 'job exited with 1'"),
    "wide_hidden": (
        f"host_oom_killed: {_ENV} --hidden 8192 (67M params/rank); the job ran in a cgroup v1 memory cgroup limited to "
        "1400 MiB and the kernel OOM killer SIGKILLed rank 1 while DDP broadcast the initial weights. evidence: "
        "'  exitcode  : -9 (pid: 17370)  (SIGKILL)', '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/"
        "gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:12516: Connection reset by peer. This is typically "
        "caused by a remote worker hanging or bugs in the application. Check the logs of the remote worker before "
        "reporting an error. GLHF! 🏖️'"),
    "fast_decode": (
        f"native_crash: {_ENV} --fast-decode; one record's length field was corrupted to 2**36, and the fast decode path "
        "ctypes.memmove'd that many bytes from the feature buffer, segfaulting a DataLoader worker of rank 1. "
        "evidence: 'ERROR: Unexpected segmentation fault encountered in worker.', '[rank1]: ConnectionResetError: "
        "[Errno 104] Connection reset by peer'"),
    "high_lr": (
        f"training_divergence: {_ENV} --lr 30000; the learning rate diverges the loss to inf/nan in 5 steps and the "
        "trainer's finite-loss check stops it. evidence: '[rank0]: FloatingPointError: Loss is nan at step 5 "
        "(grad_norm nan, lr 30000.0)', 'job exited with 1'"),
    "truncated_row": (
        f"worker_exception: {_ENV} --max-steps 120; one JSONL row has 31 instead of 32 features and the dataset's "
        "check raises inside a DataLoader worker of rank 0, re-raised in the main process. evidence: '[rank0]: "
        "ValueError: Caught ValueError in DataLoader worker process 0.', '[rank0]: ValueError: record 3422 has 31 "
        "features, expected 32'"),
    "mds_import": (
        f"library_version_mismatch: {_ENV} --data-format mds; the MDS path imports mosaicml-streaming 0.13.0, whose "
        "streaming.vision imports torchvision 0.28.0 (a CUDA build) against the CPU torch 2.13.0, so torchvision's "
        "operators are missing. evidence: '[rank0]: RuntimeError: operator torchvision::nms does not exist', "
        "'job exited with 1'"),
    "time_limit": (
        f"job_preempted: {_ENV} --max-steps 8000 --ckpt-every 500; a scheduler-style harness sent SIGTERM to the "
        "torchrun agent at step 600 (time limit). evidence: 'W1202 06:16:29.546000 17819 site-packages/torch/"
        "distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down workers'"),
    "ckpt_volume": (
        f"disk_full: {_ENV} --hidden 1024 --ckpt-dir /tmp/wavebh-b-job/ckpt --ckpt-every 20; the checkpoint directory "
        "is a 4 MiB tmpfs and the ~13 MB checkpoint does not fit: rank 0's torch.save fails at step 20 (torch's zip "
        "writer reports the short write, not errno 28). evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream "
        "error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 138496 vs 138384', "
        "'job exited with 1'"),
    "small_shm": (
        f"shm_exhausted: {_ENV} --micro-batch-size 256 --global-batch-size 512, 512-dim rows; the job ran in a private "
        "mount namespace whose /dev/shm is a 512 KiB tmpfs, so DataLoader workers cannot allocate shared memory for "
        "batches. evidence: '[rank0]: RuntimeError: Caught RuntimeError in DataLoader worker process 0.', '[rank0]: "
        "RuntimeError: unable to allocate shared memory(shm) for file </torch_20757_3471294158_0>: No space left on "
        "device (28)'"),
    "closed_terminal": (
        f"terminal_hangup: {_ENV} --max-steps 8000, launched from an interactive pty (script -qc); at step 500 the "
        "terminal went away (script terminated by the harness) and the foreground job got SIGHUP. evidence: 'W1202 "
        "06:20:24.274000 23051 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, "
        "shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 23051 got "
        "signal: 1'"),
    "rank1_stopped": (
        f"silent_hang: {_ENV} --max-steps 5000 --log-every 50 (gloo timeout 1800 s); right after step 400 the harness "
        "SIGSTOPped rank 1 (pid 23583), rank 0 blocked in its next all_reduce and nothing more was printed; 30 s later "
        "the harness SIGKILLed torchrun and both ranks from outside (no line added, no exit line). evidence: "
        "'2026-12-02 06:20:32,864 [rank1] INFO trainer: starting rank 1/2 pid 23583 torch 2.13.0+cpu', '2026-12-02 "
        "06:20:41,998 [rank1] INFO trainer: step 400/5000 loss 0.0003 grad_norm 0.003 lr 1.00e-03 3681.4 samples/s'"),
}
