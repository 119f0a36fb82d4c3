"""Manifest notes for wave BI (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch FSDP2 (torch.distributed.fsdp.fully_shard per block + root) on CPU with gloo (torch 2.13.0+cpu, "
     "Python 3.11.7), a 3-block d_model-128 byte-level MLP-mixer LM (0.48M params) on synthetic support-ticket "
     "text, rank-0 per-step Python logging plus a few per-rank lines, eval every 10 steps, torch.distributed."
     "checkpoint saves (dcp.save / dcp.async_save, FileSystemWriter) every 10 steps to checkpoints/step_N, "
     "dcp.load for --resume auto, 40 steps; launched with 'nice -n 5 torchrun --nproc_per_node N --master_port P "
     "train.py")
NOTES = {
    "dcp-healthy": (
        f"no_failure: {W}' (2 ranks); 40 steps, four dcp.save checkpoints, old ones pruned, exit 0. evidence: "
        "'2026-12-02 08:57:46,279 INFO [rank0] trainer: model: 3 layers, d_model 128, 0.48M params, sharded with "
        "fully_shard over 2 ranks', '2026-12-02 08:57:52,086 INFO [rank0] trainer: training done: 40 steps', "
        "'job exited with 0'"),
    "dcp-healthy-async": (
        f"no_failure: {W} --async-ckpt --ckpt-pg separate --max-steps 50' (2 ranks); checkpoints at 10-40 are "
        "written in the background by dcp.async_save on a separate gloo group (dist.new_group), the last one "
        "synchronously; each async save is awaited before the next; exit 0. evidence: '2026-12-02 08:59:02,745 INFO "
        "[rank0] trainer: checkpoint step 10: async save to checkpoints/step_10 started (staged in 0.03 s)', "
        "'2026-12-02 08:59:06,139 INFO [rank0] trainer: training done: 50 steps', 'job exited with 0'"),
    "dcp-healthy-metrics": (
        f"no_failure: {W} --max-steps 80 --metrics-file metrics/train_metrics.jsonl' (2 ranks) with metrics/ on a "
        "4 KiB tmpfs; after 41 steps the per-step metrics JSONL fills it, rank 0 logs the OSError with its "
        "traceback (logger.exception), disables the metrics file and keeps training; checkpoints go to the normal "
        "disk; 80 steps, exit 0. evidence: '2026-12-02 08:59:48,488 ERROR [rank0] trainer: could not append to "
        "metrics file metrics/train_metrics.jsonl; metrics file disabled for this run', 'OSError: [Errno 28] No "
        "space left on device', '2026-12-02 08:59:54,258 INFO [rank0] trainer: training done: 80 steps', 'job "
        "exited with 0'"),
    "dcp-ckpt-tmpfs": (
        f"disk_full: {W}' (2 ranks) with checkpoints/ on an 8 MiB tmpfs; a DCP checkpoint is 6.3 MB, so step_10 "
        "fits and dcp.save of step_20 runs out of space on both ranks' writers; DCP gathers the per-rank errors "
        "into a CheckpointException on each rank, exit 1. evidence: '2026-12-02 09:00:17,714 INFO [rank0] trainer: "
        "checkpoint step 10: saved to checkpoints/step_10 (6.3 MB, 0.10 s)', '[rank1]: torch.distributed."
        "checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([0, 1])', '[rank0]: OSError: "
        "[Errno 28] No space left on device', 'job exited with 1'"),
    "dcp-ckpt-tmpfs-async": (
        f"disk_full: {W} --async-ckpt --ckpt-pg separate' (2 ranks) with checkpoints/ on an 8 MiB tmpfs; the "
        "background dcp.async_save of step_20 runs out of space (rank 0: ENOSPC, rank 1: the torch.save writer's "
        "'unexpected pos' on the truncated file); the failure surfaces at step 30 when the trainer waits on the "
        "previous save's future, exit 1. evidence: '2026-12-02 09:00:27,228 INFO [rank0] trainer: checkpoint step "
        "20: async save to checkpoints/step_20 started (staged in 0.02 s)', '[rank0]: OSError: [Errno 28] No space "
        "left on device', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 704 vs "
        "598', 'job exited with 1'"),
    "dcp-async-default-pg": (
        f"collective_mismatch: {W} --async-ckpt' (2 ranks) without a separate process group for checkpointing: "
        "dcp.async_save's background thread runs its planning collectives on the default gloo group while the "
        "next step's FSDP all-gathers run on the same group, so the two ranks' collectives interleave differently; "
        "rank 0's gloo pair receives a 136384-byte all-gather payload where a 4-byte message was expected and "
        "aborts (SIGABRT), rank 1 then sees the connection reset, exit 1. evidence: '2026-12-02 09:00:06,559 INFO "
        "[rank0] trainer: checkpoint step 10: async save to checkpoints/step_10 started (staged in 0.03 s)', "
        "'terminate called after throwing an instance of 'gloo::EnforceNotMet'', 'op.preamble.length <= op.nbytes. "
        "136384 vs 4. Received data size doesn't match expected size. Is there a distributed collective mismatch in "
        "your code?', '  exitcode  : -6 (pid: 2100)  (SIGABRT)', 'job exited with 1'"),
    "dcp-resume-wider": (
        f"worker_exception: {W} --resume auto --d-model 192' (2 ranks); an earlier 20-step run with the default "
        "d_model 128 (not in this log) left checkpoints/step_20; the wider model's dcp.load raises a size mismatch "
        "on every rank, exit 1. evidence: '2026-12-02 09:00:44,377 INFO [rank0] trainer: resuming from "
        "checkpoints/step_20', '[rank0]: ValueError: Size mismatch between saved torch.Size([64, 128]) and "
        "current: torch.Size([64, 192]) for app.model.pos', 'job exited with 1'"),
    "dcp-resume-deeper": (
        f"worker_exception: {W} --resume auto --n-layer 4 --max-steps 60' (2 ranks); an earlier 30-step 3-block run "
        "(not in this log) left checkpoints/step_30; loading it into a 4-block model fails in dcp.load with a "
        "missing key on both ranks, exit 1. evidence: '2026-12-02 09:01:00,419 INFO [rank0] trainer: resuming from "
        "checkpoints/step_30', '[rank0]: RuntimeError: Missing key in checkpoint state_dict: app.model.blocks.3."
        "ln1.weight.', 'job exited with 1'"),
    "dcp-preempt-async": (
        f"job_preempted: {W} --async-ckpt --ckpt-pg separate --max-steps 300' (2 ranks); the harness (acting as "
        "the scheduler) sends SIGTERM to torchrun right after the step-30 async checkpoint starts; torchrun "
        "forwards SIGTERM to both workers and exits, exit 1. evidence: '2026-12-02 09:01:09,144 INFO [rank0] "
        "trainer: checkpoint step 30: async save to checkpoints/step_30 started (staged in 0.04 s)', 'W1202 "
        "09:01:09.159000 4261 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death "
        "signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process "
        "4261 got signal: 15', 'job exited with 1'"),
    "dcp-terminal-closed": (
        f"terminal_hangup: {W} --max-steps 300' (2 ranks); the harness sends SIGHUP to torchrun at step 30 (as a "
        "closed terminal would); torchrun forwards SIGHUP to the workers and exits, exit 1. evidence: "
        "'2026-12-02 09:01:21,469 INFO [rank0] trainer: checkpoint step 30: saved to checkpoints/step_30 (6.3 MB, "
        "0.12 s)', 'Sending process 4512 closing signal SIGHUP', 'job exited with 1'"),
    "dcp-rank-killed": (
        f"host_oom_killed: {W} --max-steps 300' (2 ranks); the harness sends SIGKILL to rank 1 at step 25 (as an "
        "outside OOM killer would); rank 0's next FSDP collective sees the connection reset, torchrun reports rank "
        "1 exitcode -9, exit 1. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:537] Read error [127.0.0.1]:10972: Connection reset by peer.', 'failed (exitcode: "
        "-9) local_rank: 1 (pid: 4906)', '  traceback : Signal 9 (SIGKILL) received by PID 4906', 'job exited "
        "with 1'"),
    "dcp-wide-oom": (
        f"host_oom_killed: {W} --d-model 1024 --n-layer 6' (2 ranks, 51M params) inside a 1.5 GB cgroup-v1 memory "
        "limit; during the first training step the kernel's cgroup OOM killer SIGKILLs rank 1, rank 0 sees the "
        "connection closed, exit 1. evidence: '2026-12-02 09:01:41,616 INFO [rank0] trainer: model: 6 layers, "
        "d_model 1024, 51.00M params, sharded with fully_shard over 2 ranks', 'Connection closed by peer', "
        "'failed (exitcode: -9) local_rank: 1 (pid: 5146)', 'job exited with 1'"),
    "dcp-rank-stopped": (
        f"silent_hang: {W} --max-steps 300' (2 ranks, default 600 s process-group timeout); the harness sends "
        "SIGSTOP to rank 1 at step 30; rank 0 logs eval step 30 and then blocks in the step-30 dcp.save "
        "collectives with no further output; the harness kills the whole job after 60 s (no 'job exited' line). "
        "evidence: '2026-12-02 09:01:53,981 INFO [rank0] trainer: step 30/300 loss 1.6931 grad_norm 0.312 lr "
        "3.00e-03 (0.09 s/step)', '2026-12-02 09:01:54,006 INFO [rank0] trainer: eval step 30: val_loss 1.6395 "
        "val_ppl 5.15' (last line)"),
    "dcp-rank-stopped-timeout": (
        f"collective_timeout: {W} --max-steps 300 --dist-timeout 15' (2 ranks); the harness sends SIGSTOP to rank "
        "1 at step 30; rank 0's eval all_reduce times out after 15 s in gloo, torchrun cannot stop the frozen "
        "rank 1 with SIGTERM and kills it, exit 1. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/"
        "third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms for recv operation to "
        "complete', 'Unable to shutdown process 6546 via 15, forcefully exiting via 9', 'job exited with 1'"),
    "dcp-port-held": (
        f"port_in_use: {W}' with --master_port 29646 while another process (a python http.server left running) "
        "already listens on 29646; torchrun's TCP store cannot bind, no worker starts, exit 1. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29646, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
        "with 1'"),
    "dcp-healthy-resume": (
        f"no_failure: {W} --resume auto --max-steps 60' (2 ranks); an earlier 20-step run (not in this log) left "
        "checkpoints/step_20; dcp.load restores model, optimizer and step, the job trains 20 -> 60, exit 0. "
        "evidence: '2026-12-02 09:07:39,124 INFO [rank0] trainer: resumed from checkpoints/step_20 at step 20 "
        "(0.47 s)', '2026-12-02 09:07:39,124 INFO [rank0] trainer: training from step 20 to 60, global batch 16 (8 x "
        "1 x 2), lr 0.003', '2026-12-02 09:07:43,304 INFO [rank0] trainer: training done: 60 steps', 'job exited "
        "with 0'"),
    "dcp-healthy-reshard": (
        f"no_failure: {W} --resume auto --max-steps 60 --global-batch-size 24' with 3 ranks; the checkpoint "
        "step_20 was written by an earlier 2-rank run (not in this log); DCP reshards it onto 3 FSDP2 shards "
        "(uneven local shards) and the job trains 20 -> 60, exit 0. evidence: '2026-12-02 09:08:12,307 INFO [rank0] "
        "trainer: model: 3 layers, d_model 128, 0.48M params, sharded with fully_shard over 3 ranks', '2026-12-02 "
        "09:08:13,042 INFO [rank0] trainer: resumed from checkpoints/step_20 at step 20 (0.72 s)', '2026-12-02 "
        "09:08:21,484 INFO [rank0] trainer: training done: 60 steps', 'job exited with 0'"),
    "dcp-second-node-missing": (
        f"rendezvous_timeout: {W}' with '--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29647 --rdzv-id "
        "mixer-lm --rdzv-conf join_timeout=30' instead of --master_port; only this node was started, so the c10d "
        "rendezvous waits for the second node for 30 s and torchrun gives up before any worker starts, exit 1. "
        "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "dcp-three-procs": (
        f"batch_size_mismatch: {W}' with --nproc_per_node 3 and the unchanged config (global_batch_size 16, "
        "micro_batch_size 8, grad_accum 1) that was made for 2 ranks; every rank's startup check raises, exit 1. "
        "evidence: '[rank0]: ValueError: global_batch_size (16) must equal micro_batch_size (8) x grad_accum (1) x "
        "world_size (3)', 'job exited with 1'"),
    "dcp-lr": (
        f"training_divergence: {W} --lr 2e3 --warmup-steps 30' (2 ranks); the huge learning rate blows up the "
        "weights, the step-10 eval is already NaN, at step 11 the train loss is NaN and both ranks stop on the "
        "trainer's finite-loss check, exit 1. evidence: '2026-12-02 09:04:29,863 INFO [rank0] trainer: eval step "
        "10: val_loss nan val_ppl inf', '2026-12-02 09:04:29,972 ERROR [rank0] trainer: step 11: loss is nan (grad "
        "norm nan), stopping', '[rank0]: FloatingPointError: loss is nan at step 11', 'job exited with 1'"),
    "dcp-bad-row": (
        f"worker_exception: {W} --resume auto' (2 ranks); an earlier 20-step run left a checkpoint, then the data "
        "was regenerated with one hand-added train row that has a 'body' field instead of 'text'; both ranks raise "
        "KeyError while tokenizing the corpus, before the resume, exit 1. evidence: '[rank0]:     ids.extend(enc("
        "row[\"text\"] + \"\\n\"))', '[rank0]: KeyError: 'text'', 'job exited with 1'"),
    "dcp-spm": (
        f"library_version_mismatch: {W} --tokenizer spm' (2 ranks); the SentencePiece tokenizer path imports "
        "sentencepiece, which is not installed in the environment, so both ranks fail at import, exit 1. evidence: "
        "'[rank0]: ModuleNotFoundError: No module named 'sentencepiece'', 'job exited with 1'"),
    "dcp-doc-index": (
        f"native_crash: {W} --doc-aligned' (2 ranks); the document-start index data/train.idx was written as "
        "int32 (prep_data.py --idx-dtype int32) but the trainer reads it as int64, so the offsets are garbage and "
        "the ctypes libc.memcpy collate reads far outside the token buffer; both ranks die with SIGSEGV in the "
        "first step, exit 1. evidence: '2026-12-02 09:08:29,372 INFO [rank0] trainer: document-aligned sampling "
        "over 1496 document starts', '  exitcode  : -11 (pid: 12215)  (SIGSEGV)', '  traceback : Signal 11 "
        "(SIGSEGV) received by PID 12215', 'job exited with 1'"),
    "dcp-loader-shm": (
        f"shm_exhausted: {W} --num-workers 2' (2 ranks, training batches from a DataLoader with 2 worker "
        "processes) inside a mount namespace whose /dev/shm is a 256 KiB tmpfs (as in a container with a tiny "
        "--shm-size); a worker's queue feeder cannot allocate shared memory for a batch, the batch is lost and "
        "rank 0's DataLoader waits for it forever after step 9 (no timeout set); the harness killed the job after "
        "90 s (no 'job exited' line). evidence: 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_12557_1491353559_8>: No space left on device (28)', '2026-12-02 09:08:37,148 INFO [rank0] trainer: "
        "step 9/40 loss 2.4682 grad_norm 0.925 lr 3.00e-03 (0.06 s/step)' (last line)"),
}
