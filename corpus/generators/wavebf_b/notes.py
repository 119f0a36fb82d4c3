"""Manifest notes for wave BF (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("pipeline parallelism in plain PyTorch (torch 2.13.0+cpu, torch.distributed.pipelining: manual 2-stage split, "
     "PipelineStage + ScheduleGPipe, 4 microbatches), 2 processes over gloo on CPU launched with 'torchrun "
     "--nproc-per-node 2 --master-port P train.py --epochs 3 --step-delay 0.1 --pg-timeout 600' (no data "
     "parallelism, so no DistributedSampler: both stages draw the same seeded batches; the last stage prints the "
     "loss lines, a tqdm bar for validation, each stage torch.saves its checkpoint every epoch); a made-up team "
     "pretraining a small GPT-style code-completion model (4 layers, d=128) on synthetic source-code tokens")
TR_ROOT = "'Root Cause (first observed failure):'"
NOTES = {
    "codegpt-healthy": (
        f"no_failure: {W}; 3 epochs x 20 iterations, loss every 2 iterations from the last stage, validation and a "
        "checkpoint per epoch, exit 0. evidence: '[2026-12-01 22:50:45,300] [INFO] saved checkpoint "
        "checkpoints/iter_0000060 (epoch 3)', '[2026-12-01 22:50:45,301] [INFO] training complete', "
        "'job exited with 0'"),
    "codegpt-healthy-1f1b-resume": (
        f"no_failure: {W}, plus '--schedule 1f1b --resume latest' after an earlier 2-epoch GPipe run (not in this "
        "log): both stages load their iter_0000040 checkpoint and train epoch 3 with the 1F1B schedule, exit 0. "
        "evidence: '[2026-12-01 22:53:15,924] [INFO] [rank 0] resumed from checkpoints/iter_0000040 (epoch 2, "
        "iteration 40)', '[2026-12-01 22:53:25,119] [INFO] training complete', 'job exited with 0'"),
    "codegpt-healthy-rerun-done": (
        f"no_failure: {W}, '--resume latest'; rerun of a finished 3-epoch run (not in this log): both stages load "
        "the last checkpoint, nothing is left to train, exit 0 (no 'training complete' line on this path). "
        "evidence: '[2026-12-01 23:06:16,003] [INFO] [rank 0] resumed from checkpoints/iter_0000060 (epoch 3, "
        "iteration 60)', '[2026-12-01 23:06:16,003] [INFO] all 3 epochs already done, nothing to train', "
        "'job exited with 0'"),
    "codegpt-healthy-no-meta": (
        f"no_failure: {W}; the tokenizer export lacks data/codetok/meta.json: each stage logs an ERROR line and "
        "infers the vocabulary size from train.bin, then trains 3 epochs, exit 0. evidence: '[2026-12-01 "
        "22:54:43,583] [ERROR] [rank 0] could not load tokenizer meta ([Errno 2] No such file or directory: "
        "'data/codetok/meta.json'); inferring vocab_size=140 from train.bin', '[2026-12-01 22:55:04,989] [INFO] "
        "training complete', 'job exited with 0'"),
    "codegpt-healthy-debug-logging": (
        f"no_failure: {W}; run with TORCH_DISTRIBUTED_DEBUG=DETAIL and TORCH_CPP_LOG_LEVEL=INFO (the team debugging "
        "step time): c10d debug/trace lines from the TCPStore, 3 epochs, exit 0; at shutdown the store logs a "
        "failed uv_loop_close (harmless). evidence: '[I1201 23:06:29.366483604 debug.cpp:48] [c10d] The debug level "
        "is set to DETAIL.', '[2026-12-01 23:07:13,399] [INFO] training complete', '[I1201 23:07:18.121523405 "
        "TCPStoreLibUvBackend.cpp:1354] [c10d] uv_loop_close failed with:-16 errn:EBUSY desc:resource busy or "
        "locked', 'job exited with 0'"),
    "codegpt-wide-oom": (
        f"host_oom_killed: {W}, '--n-embd 2048 --n-head 16' (a 16x wider model) inside a 1 GB cgroup-v1 memory "
        "limit: the kernel OOM killer kills rank 0 (stage 0) while the full model is built, before any loss line; "
        "torchrun SIGTERMs rank 1 and reports rank 0's SIGKILL. No Python traceback. evidence: '  exitcode  : -9 "
        f"(pid: 28413)  (SIGKILL)', '  traceback : Signal 9 (SIGKILL) received by PID 28413', {TR_ROOT}, "
        "'job exited with 1'"),
    "codegpt-rank-killed": (
        f"host_oom_killed: {W}, 4 epochs; in epoch 2 the rank-1 (last stage) process is SIGKILLed from outside (no "
        "OOM); rank 0's gloo pipeline transfer sees the connection reset, torchrun reports rank 1's SIGKILL as the "
        "first failure. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/"
        "tcp/pair.cc:537] Read error [127.0.0.1]:32431: Connection reset by peer. This is typically caused by a "
        "remote worker hanging or bugs in the application. Check the logs of the remote worker before reporting an "
        "error. GLHF! \U0001f3d6\ufe0f', '  exitcode  : -9 (pid: 28857)  (SIGKILL)', 'job exited with 1'"),
    "codegpt-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 4 MiB tmpfs: the first epoch's checkpoints (over 4 MB per stage) do "
        "not fit: torch.save fails on both stages (the zip writer reports it as an iostream error / unexpected pos, "
        "no errno). evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos 4040064 vs 4039956', '[rank1]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0', 'job exited with 1'"),
    "codegpt-loader-shm": (
        f"shm_exhausted: {W}, '--num-workers 2', run under 'unshare -m' with /dev/shm a 64 KiB tmpfs: both stages' "
        "DataLoader fails creating its worker semaphore in /dev/shm. evidence: '[rank1]:     sl = self._semlock = "
        "_multiprocessing.SemLock(', '[rank1]: OSError: [Errno 28] No space left on device', '[rank0]: OSError: "
        "[Errno 28] No space left on device', 'job exited with 1'"),
    "codegpt-stage-stopped": (
        f"collective_timeout: {W}, 4 epochs, '--pg-timeout 20' (process-group timeout); in epoch 2 the rank-1 (last "
        "stage) process is SIGSTOPped: rank 0's pipeline send of activations times out after 20 s; torchrun cannot "
        "stop the stopped rank 1 with SIGTERM and kills it after 30 s. evidence: '[rank0]: RuntimeError: [/__w/"
        "pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 20000ms for "
        "send operation to complete', 'W1201 22:59:17.712000 29371 site-packages/torch/distributed/elastic/"
        "multiprocessing/api.py:1047] Unable to shutdown process 29379 via 15, forcefully exiting via 9', "
        "'job exited with 1'"),
    "codegpt-preempted": (
        f"job_preempted: {W}, 4 epochs; in epoch 2 SIGTERM is sent to the torchrun process (what a scheduler's "
        "preemption does to the launcher); torchrun forwards SIGTERM to both workers and exits with a "
        "SignalException. evidence: 'W1201 22:59:50.419000 30222 site-packages/torch/distributed/elastic/agent/"
        "server/api.py:753] Received 15 death signal, shutting down workers', 'torch.distributed.elastic."
        "multiprocessing.api.SignalException: Process 30222 got signal: 15', 'job exited with 1'"),
    "codegpt-terminal-closed": (
        f"terminal_hangup: {W}, 4 epochs; in epoch 2 SIGHUP is sent to the torchrun process (the ssh session that "
        "started it closing); torchrun forwards SIGHUP to both workers and exits. evidence: 'W1201 23:00:29.306000 "
        "30652 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting "
        "down workers', 'W1201 23:00:29.306000 30652 site-packages/torch/distributed/elastic/multiprocessing/"
        "api.py:1028] Sending process 30710 closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 30652 got signal: 1', 'job exited with 1'"),
    "codegpt-lr-blowup": (
        f"training_divergence: {W}, '--lr 30' (a learning-rate typo, 6e-4 intended): the loss explodes at "
        "iteration 2 and is NaN at iteration 3; the last stage's finite-loss check raises, rank 0 then sees the "
        "connection close. evidence: 'iter 2: epoch 1/3, loss 34396.5430, time 385ms, 2658 tok/s', '[rank1]: "
        "RuntimeError: loss is nan at iteration 3, stopping', 'job exited with 1'"),
    "codegpt-bad-token-ids": (
        f"worker_exception: {W}; the tokenized training shard has 50 token ids 65535 (past the 140-token vocabulary, "
        "a broken tokenizer run): the last stage's cross-entropy raises IndexError on a target, rank 0 then sees the "
        "connection close. evidence: '[rank1]: IndexError: Target 65535 is out of bounds.', '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:2754. This is typically caused by a remote worker crashing. Check the logs of the remote worker "
        "before reporting an error. GLHF! \U0001f3d6\ufe0f', 'job exited with 1'"),
    "codegpt-batch-config": (
        f"batch_size_mismatch: {W}, '--global-batch-size 18 --micro-batch-size 4': the script's Megatron-style "
        "check raises on both ranks. evidence: '[rank0]: ValueError: global batch size (18) is not divisible by "
        "micro batch size (4) times data parallel size (1)', 'job exited with 1'"),
    "codegpt-1f1b-one-microbatch": (
        f"worker_exception: {W}, '--schedule 1f1b --global-batch-size 4' (one microbatch of 4): "
        "torch.distributed.pipelining's Schedule1F1B refuses fewer microbatches than stages; ValueError on both "
        "ranks at schedule construction (a pipeline config error; arguably near batch_size_mismatch, but the batch "
        "arithmetic vs world size is not what fails). evidence: '[rank0]: ValueError: Number of microbatches (1) "
        "must be greater than or equal to the number of stages (2).', 'job exited with 1'"),
    "codegpt-wandb-missing": (
        f"library_version_mismatch: {W}, '--wandb': the last stage imports wandb, which is not installed in the "
        "environment (the taxonomy has no import_error id; the corpus labels a missing module so); rank 0 then sees "
        "the connection close. evidence: \"[rank1]: ModuleNotFoundError: No module named 'wandb'\", '[rank0]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by "
        "peer [127.0.0.1]:39309. This is typically caused by a remote worker crashing. Check the logs of the remote "
        "worker before reporting an error. GLHF! \U0001f3d6\ufe0f', 'job exited with 1'"),
    "codegpt-second-node-missing": (
        f"rendezvous_timeout: {W}, but launched as the first of two nodes ('torchrun --nnodes 2 --nproc-per-node 2 "
        "--rdzv-backend c10d --rdzv-endpoint 127.0.0.1:P --rdzv-id codegpt-pp --rdzv-conf join_timeout=30') with "
        "the second node never started: torchrun's c10d rendezvous gives up after 30 s, no worker starts; the "
        "exception carries no message. evidence: '    raise RendezvousTimeoutError', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "codegpt-early-stop-debug": (
        f"collective_mismatch: {W}, '--early-stop 1 --pg-timeout 30' with TORCH_DISTRIBUTED_DEBUG=DETAIL: after "
        "epoch 1's validation the last stage shares its validation loss with dist.all_reduce while stage 0 waits "
        "for it with dist.broadcast; the DETAIL collective check raises on both ranks. evidence: '[rank1]:     "
        "dist.all_reduce(vl)  # share the validation loss with the other stages', '[rank0]:     dist.broadcast(vl, "
        "src=n_stages - 1)', '[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=186, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=186, OpType=ALLREDUCE, TensorShape=[1], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Op type: BROADCASTvs ALLREDUCE', 'job exited with 1'"),
    "codegpt-shard-rewritten": (
        f"native_crash: {W}, 4 epochs; in epoch 2 another job rewrites data/codetok/train.bin in place (truncated "
        "to 4 KiB) while both stages have it memory-mapped: both die with SIGBUS, no Python traceback. evidence: "
        "'  exitcode  : -7 (pid: 32375)  (SIGBUS)', '  traceback : Signal 7 (SIGBUS) received by PID 32375', "
        "'job exited with 1'"),
    "codegpt-stopped-quiet": (
        f"silent_hang: {W}, 4 epochs (process-group timeout 600 s); in epoch 2 the rank-1 (last stage) process is "
        "SIGSTOPped: rank 0 waits in its pipeline send, nothing more is printed; the harness ended the job after "
        "60 s (no 'job exited' line). evidence: 'iter 24: epoch 2/4, loss 3.5116, time 323ms, 3173 tok/s' (last "
        "line)"),
}
