"""Manifest notes for wave BD (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch FSDP2 (torch.distributed.fsdp.fully_shard) with torch.distributed.checkpoint (DCP) checkpoints, torch "
     "2.13.0+cpu, 2 processes over gloo on CPU launched by the team's torchtitan-style run_train.sh ('torchrun "
     "--nproc_per_node=2 --nnodes=1 --rdzv_backend c10d --rdzv_endpoint=localhost:P --max-restarts=0 "
     "--local-ranks-filter 0,1 --role rank --tee 3 train.py --job.config_file ./configs/codecomp_tiny.toml ...'); a "
     "developer-tools team pretraining a tiny decoder-only code-completion LM on synthetic token shards (2 epochs x 12 "
     "steps, validation per epoch, DCP checkpoint every 10 steps and at epoch ends)")
NOTES = {
    "codecomp-healthy": (
        f"no_failure: {W}; default run: per-step loss lines on both ranks, validation and checkpoints each epoch, old "
        "checkpoints purged, exit 0. evidence: '[rank0]:[codecomp] 2026-12-01 19:23:27,981 - rank0 - INFO - validate "
        "epoch: 2  step:  24  loss:  4.4244  ppl:    83.47', '[rank0]:[codecomp] 2026-12-01 19:23:28,299 - rank0 - "
        "INFO - Training completed', 'job exited with 0'"),
    "codecomp-healthy-resume": (
        f"no_failure: {W}; after an earlier 1-epoch run (not in this log) the same launch finds "
        "outputs/checkpoint/step-12, loads it with dcp.load/set_state_dict and trains epoch 2 only. evidence: "
        "'[rank0]:[codecomp] 2026-12-01 19:26:30,414 - rank0 - INFO - Loading the checkpoint from "
        "./outputs/checkpoint/step-12.', '[rank0]:[codecomp] 2026-12-01 19:26:32,531 - rank0 - INFO - Training starts "
        "at step 13, 12 steps per epoch, 24 steps (2 epochs), local batch size 8, global batch size 16, gradient "
        "accumulation steps 1', '[rank0]:[codecomp] 2026-12-01 19:26:55,268 - rank0 - INFO - Training completed', "
        "'job exited with 0'"),
    "codecomp-healthy-rerun-done": (
        f"no_failure: {W}; rerun of a finished run (not in this log) with the same command: the latest checkpoint "
        "step-24 already covers all steps, nothing is trained, exit 0. evidence: '[rank0]:[codecomp] 2026-12-01 "
        "19:28:40,027 - rank0 - INFO - Loading the checkpoint from ./outputs/checkpoint/step-24.', '[rank0]:[codecomp] "
        "2026-12-01 19:28:41,139 - rank0 - INFO - Checkpoint at step 24 already covers the configured 24 steps; "
        "nothing to train.', 'job exited with 0'"),
    "codecomp-healthy-short-shard": (
        f"no_failure: {W}; one of the 4 training shards was truncated by a failed upload; both ranks log it at ERROR "
        "and skip it, training on 3 shards (9 steps per epoch) succeeds. evidence: '[rank0]:[codecomp] 2026-12-01 "
        "19:29:12,131 - rank0 - ERROR - shard train-00003.bin: 2081 tokens, manifest says 48 x 129; truncated upload? "
        "skipping shard', '[rank0]:[codecomp] 2026-12-01 19:29:40,701 - rank0 - INFO - Training completed', 'job "
        "exited with 0'"),
    "codecomp-healthy-restart": (
        f"no_failure: {W}, launched with MAX_RESTARTS=1 (--max-restarts=1); local rank 1 was SIGKILLed from outside "
        "at step 14 (epoch 2): rank 0's gloo read fails, torchrun restarts both workers, they resume from "
        "checkpoint step-12 and finish; the job succeeds. evidence: '[rank0]:[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:11181: "
        "Connection reset by peer. This is typically caused by a remote worker hanging or bugs in the application. Check the "
        "logs of the remote worker before reporting an error. GLHF! 🏖️', 'E1201 19:30:40.207000 28168 site-packages/torch/distributed/elastic/"
        "multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 (pid: 28198) of binary: "
        "/tmp/venv-bd-b/bin/python3', '[rank0]:[codecomp] 2026-12-01 19:30:50,518 - rank0 - INFO - Loading the "
        "checkpoint from ./outputs/checkpoint/step-12.', '[rank0]:[codecomp] 2026-12-01 19:31:02,122 - rank0 - INFO - "
        "Training completed', 'job exited with 0'"),
    "codecomp-wide-flavor-oom": (
        f"host_oom_killed: {W}; '--model.dim 1024 --model.n_layers 16 --model.n_heads 16' (each rank builds the full "
        "~200M-parameter model before fully_shard) inside a 1 GB cgroup-v1 memory cgroup: the kernel OOM-kills rank "
        "0 while building the model (exitcode -9), torchrun stops rank 1. evidence: 'E1201 19:31:23.789000 28433 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 0 "
        "(pid: 28442) of binary: /tmp/venv-bd-b/bin/python3', '  exitcode  : -9 (pid: 28442)  (SIGKILL)', 'job "
        "exited with 1'"),
    "codecomp-ckpt-tmpfs": (
        f"disk_full: {W}; outputs/checkpoint is a 2 MB tmpfs: the first DCP save (step 10) fills it; torch's stream "
        "writer fails on both ranks and dcp.save raises CheckpointException (no 'No space' text in the log). "
        "evidence: '[rank0]:[rank0]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException "
        "ranks:dict_keys([0, 1])', '[rank0]:[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 704 vs 598', 'job exited with 1'"),
    "codecomp-workers-shm": (
        f"shm_exhausted: {W}; '--training.num_workers 2' with /dev/shm a 64 KiB tmpfs (unshare -m): the DataLoader "
        "workers cannot put batches into shared memory. evidence: '[rank0]:[rank0]: RuntimeError: Caught "
        "RuntimeError in DataLoader worker process 0.', '[rank0]:[rank0]: RuntimeError: unable to allocate shared "
        "memory(shm) for file </torch_28867_1021128650_1>: No space left on device (28)', '[rank1]:[rank1]: OSError: "
        "[Errno 28] No space left on device', 'job exited with 1'"),
    "codecomp-rank-stopped": (
        f"collective_timeout: {W}; '--comm.train_timeout_seconds 15' (set on the gloo group after the first step); "
        "local rank 1 SIGSTOPped in epoch 2: rank 0's FSDP all-gather times out, torchrun cannot stop rank 1 with "
        "SIGTERM and SIGKILLs it. evidence: '[rank0]:[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/"
        "gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 15000ms for send operation to complete', "
        "'W1201 19:25:00.726000 26825 site-packages/torch/distributed/elastic/multiprocessing/api.py:1047] Unable to "
        "shutdown process 26846 via 15, forcefully exiting via 9', 'job exited with 1'"),
    "codecomp-stopped-quiet": (
        f"silent_hang: {W}; '--comm.train_timeout_seconds 1800'; local rank 1 SIGSTOPped in epoch 2: rank 0 waits in "
        "its next collective and nothing more is printed; the harness ended the job after 75 s (no 'job exited' "
        "line). evidence: '[rank0]:[codecomp] 2026-12-01 19:33:30,248 - rank0 - INFO - step:  15  epoch: 2  loss:  "
        "4.3998  grad_norm:  0.3940  lr: 1.38e-03  tps: 910' (the last line)"),
    "codecomp-preempted": (
        f"job_preempted: {W}; SIGTERM to the job's process group in epoch 2: torchrun forwards it to the workers and "
        "raises SignalException (no 'job exited' line: the shell died too). evidence: 'W1201 19:34:44.306000 29428 "
        "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down "
        "workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 29428 got signal: 15'"),
    "codecomp-terminal-closed": (
        f"terminal_hangup: {W}; SIGHUP to the job's process group in epoch 2 (terminal closed): torchrun forwards "
        "SIGHUP to the workers and raises SignalException (no 'job exited' line). evidence: 'W1201 19:35:28.742000 "
        "29701 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting "
        "down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 29701 got signal: 1'"),
    "codecomp-nan-quality": (
        f"training_divergence: {W}; the quality scorer left 3 sequences' weights as NaN: the weighted loss is NaN at "
        "step 6 and the team's finite check stops both ranks. evidence: '[rank1]:[codecomp] 2026-12-01 19:36:12,657 - "
        "rank1 - INFO - step:   6  epoch: 1  loss:     nan  grad_norm:     nan  lr: 2.98e-03  tps: 738', "
        "'[rank0]:[rank0]: RuntimeError: Loss is nan at step 6 (epoch 1); stopping instead of checkpointing a "
        "diverged model', 'job exited with 1'"),
    "codecomp-nested-lineage": (
        f"native_crash: {W}; a shard's lineage record in manifest.json is nested 200000 deep and train.py raised the "
        "recursion limit: json.load overflows the C stack and both ranks die with SIGSEGV before printing anything. "
        "evidence: 'E1201 19:36:50.624000 30137 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] "
        "failed (exitcode: -11) local_rank: 0 (pid: 30164) of binary: /tmp/venv-bd-b/bin/python3', '  traceback : "
        "Signal 11 (SIGSEGV) received by PID 30164', 'job exited with 1'"),
    "codecomp-rank-killed": (
        f"host_oom_killed: {W}; local rank 1 SIGKILLed from outside in epoch 2 (no OOM; labelled like earlier waves' "
        "SIGKILL scenarios), no restarts configured: rank 0's gloo read fails, torchrun reports -9 and stops rank 0. "
        "evidence: 'E1201 19:44:09.859000 1454 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] "
        "failed (exitcode: -9) local_rank: 1 (pid: 1588) of binary: /tmp/venv-bd-b/bin/python3', '  traceback : "
        "Signal 9 (SIGKILL) received by PID 1588', 'job exited with 1'"),
    "codecomp-batch-product": (
        f"batch_size_mismatch: {W}; '--training.global_batch_size 24' with local batch 8 on 2 ranks: the script's "
        "batch check raises on both ranks. evidence: '[rank0]:[rank0]: ValueError: global batch size (24) must be a "
        "multiple of local batch size (8) times data-parallel degree (2)', 'job exited with 1'"),
    "codecomp-second-node-missing": (
        f"rendezvous_timeout: {W}; the two-node launch (NNODES=2, '--rdzv-conf join_timeout=30') started on one node "
        "only: the c10d rendezvous times out after 30 s, no worker starts. evidence: 'torch.distributed.elastic."
        "rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "codecomp-vocab-grew": (
        f"worker_exception: {W}; the shards were tokenized with a 600-token vocabulary while the model config still "
        "says vocab_size 512: the embedding lookup fails on both ranks at the first step. evidence: "
        "'[rank0]:[rank0]: IndexError: index out of range in self', 'job exited with 1'"),
    "codecomp-override-typo": (
        f"worker_exception: {W}; a typo in a command-line override ('--training.epoch 1' for --training.epochs): the "
        "script's config parser rejects it on both ranks before the process group exists. evidence: "
        "'[rank0]:ValueError: unknown config option --training.epoch', 'job exited with 1'"),
    "codecomp-resume-reshaped": (
        f"worker_exception: {W}; after an earlier 1-epoch run (not in this log) the config was changed to "
        "'--model.n_layers 6' and the job auto-resumes from the 4-layer checkpoint: dcp.load fails on both ranks. "
        "evidence: '[rank0]:[rank0]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException "
        "ranks:dict_keys([0, 1])', '[rank0]:[rank0]: RuntimeError: Missing key in checkpoint state_dict: "
        "model.layers.4.attention_norm.weight.', 'job exited with 1'"),
    "codecomp-rank0-save": (
        f"collective_mismatch: {W}; '--checkpoint.save_on_rank0_only true' (only rank 0 calls dcp.save) with "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL: at step 10 rank 0 enters DCP's all_gather while rank 1 goes on to the next "
        "step's FSDP all-gather; the c10d debug wrapper reports the mismatch on both ranks. evidence: "
        "'[rank0]:[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=160, OpType=ALLGATHER, TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=160, OpType=_ALLGATHER_BASE, TensorShape=[73792], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Op type: ALLGATHERvs _ALLGATHER_BASE  Tensor Tensor shapes: 1vs 73792  Tensor Tensor dtypes: Longvs Float', "
        "'E1201 19:45:43.666000 2243 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: 1) local_rank: 0 (pid: 2253) of binary: /tmp/venv-bd-b/bin/python3', 'job exited with 1'"),
    "codecomp-tensorboard": (
        f"library_version_mismatch: {W}; '--metrics.enable_tensorboard true' on a box without the tensorboard package: "
        "torch.utils.tensorboard's import fails on both ranks. evidence: \"[rank0]:[rank0]: ModuleNotFoundError: No "
        "module named 'tensorboard'\", 'job exited with 1'"),
}
