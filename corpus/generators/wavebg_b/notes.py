"""Manifest notes for wave BG (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch 2.13.0+cpu tensor parallelism on DTensor (init_device_mesh('cpu', (dp, tp)), parallelize_module with "
     "ColwiseParallel/RowwiseParallel on 'tp'), gloo, launched with 'nice -n 5 torchrun --nnodes 1 --nproc_per_node 2 "
     "--rdzv-backend c10d --rdzv-endpoint 127.0.0.1:P train.py --config configs/intent_small.json --data-dir data "
     "--ckpt-dir checkpoints --max-steps 60' (2 ranks, dp=1 tp=2); an e-commerce search team's query-intent "
     "transformer (2 layers, d 64, 8 intents) over synthetic query tokens folded by a native ctypes helper "
     "(libqtok.so), rank-tagged Python logging, loss line every 5 steps, validation and a torch.distributed.checkpoint "
     "save every 20 steps")
W2 = ("PyTorch 2.13.0+cpu 2-D parallelism (init_device_mesh('cpu', (2, 2), ('dp', 'tp')), ColwiseParallel/"
      "RowwiseParallel on 'tp', FSDP2 fully_shard on 'dp'), gloo, launched with 'nice -n 5 torchrun --nnodes 1 "
      "--nproc_per_node 4 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:P train.py --config configs/intent_small_2d.json "
      "--data-dir data --ckpt-dir checkpoints --max-steps 40 --dp 2 --tp 2'; an e-commerce search team's query-intent "
      "transformer (2 layers, d 64, 8 intents), rank-tagged Python logging, loss every 5 steps, validation and a "
      "torch.distributed.checkpoint save every 20 steps")
NOTES = {
    "intent-healthy": (
        f"no_failure: {W}; 60 steps, validation and a DCP checkpoint at steps 20/40/60, exit 0. evidence: "
        "'[intent] [rank0] 2026-12-02 03:03:37,441 - intent - INFO - Saving the checkpoint (or staging if async is "
        "enabled) to checkpoints/step-20. Finished in 0.24 s', '[intent] [rank0] 2026-12-02 03:03:49,076 - intent - "
        "INFO - Training completed', 'job exited with 0'"),
    "intent-lr-typo": (
        f"training_divergence: {W}, '--lr 1e3' (meant 1e-3); AdamW's decoupled weight decay with that lr blows the "
        "weights up during warmup, the loss is NaN at step 9 and the script's finite-loss check raises on both ranks. "
        "evidence: '[rank0]: RuntimeError: non-finite loss nan at step 9', '[rank1]: RuntimeError: non-finite loss "
        "nan at step 9', 'job exited with 1'"),
    "intent-bad-export-row": (
        f"worker_exception: {W}; one row of data/train.tsv has the intent's name in the intent column instead of its "
        "id: int() raises ValueError while both ranks load the export, torchrun reports ChildFailedError. evidence: "
        "\"[rank0]: ValueError: invalid literal for int() with base 10: 'price_compare'\", \"[rank1]: ValueError: "
        "invalid literal for int() with base 10: 'price_compare'\", 'job exited with 1'"),
    "intent-old-qnorm": (
        f"library_version_mismatch: {W}; the native build linked libqtok.so (needs qnorm_bucket_v2 from libqnorm 2.x) "
        "against the libqnorm 1.x source, so ctypes.CDLL fails to load it on both ranks. evidence: '[rank0]: OSError: "
        "lib/libqtok.so: undefined symbol: qnorm_bucket_v2', '[rank1]: OSError: lib/libqtok.so: undefined symbol: "
        "qnorm_bucket_v2', 'job exited with 1'"),
    "intent-offset-bytes": (
        f"native_crash: {W}; one training row's offset was exported as a byte address (x 1e9), so the loader's "
        "ctypes.memmove reads from an unmapped address: both ranks die with SIGSEGV right after loading the "
        "normalizer, no Python traceback. evidence: '[intent] [rank0] 2026-12-02 03:08:05,568 - intent - INFO - "
        "loaded query normalizer from lib/libqtok.so', '  traceback : Signal 11 (SIGSEGV) received by PID 9989', "
        "'job exited with 1'"),
    "intent-2d-batch-config": (
        f"batch_size_mismatch: {W2.replace('intent_small_2d', 'intent_small')}; the 2-D launch with the 1-D config "
        "(local batch 32, global batch 32): the torchtitan-style batch check raises on all four ranks before "
        "training. evidence: '[rank0]: ValueError: global batch size (32) must equal local batch size (32) * gradient "
        "accumulation steps (1) * data parallel degree (2)', 'job exited with 1'"),
    "intent-preempted": (
        f"job_preempted: {W}; after the step-25 loss line the harness (as a scheduler) sends SIGTERM to the torchrun "
        "launcher, which forwards it to both workers and raises SignalException. evidence: '[intent] [rank0] 2026-12-02 03:08:40,378 - intent - INFO - step:  25  "
        "loss:  1.4516  grad_norm:  1.3917  lr: 3.00e-03  qps:  119.7', 'W1202 03:08:40.466000 10385 site-packages/"
        "torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 10459 closing signal SIGTERM', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 10385 got signal: 15', 'job exited "
        "with 1'"),
    "intent-terminal-closed": (
        f"terminal_hangup: {W}; after the step-25 loss line the torchrun launcher gets SIGHUP (its terminal went away, "
        "sent by the harness), forwards SIGHUP to both workers and raises SignalException. evidence: '[intent] [rank0] 2026-12-02 03:08:54,462 - intent - INFO - "
        "step:  25  loss:  1.4516  grad_norm:  1.3917  lr: 3.00e-03  qps:  113.2', 'W1202 03:08:54.513000 10568 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 10590 closing signal "
        "SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 10568 got signal: 1', 'job "
        "exited with 1'"),
    "intent-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 3 MB tmpfs: the step-20 dcp.save fits, the step-40 save fails on both ranks "
        "(torch's zip writer, then the file close). evidence: '[intent] [rank0] 2026-12-02 03:09:07,811 - intent - "
        "INFO - Saving the checkpoint (or staging if async is enabled) to checkpoints/step-20. Finished in 0.15 s', "
        "'[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 704 vs 598', '[rank0]: "
        "OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "intent-rank-stopped-timeout": (
        f"collective_timeout: {W}, '--dist-timeout 20'; the harness kill -STOPs rank 1 after the step-25 loss line: "
        "rank 0's next tensor-parallel collective times out in gloo after 20 s, torchrun SIGKILLs the stopped rank. "
        "evidence: '[intent] [rank0] 2026-12-02 03:09:24,952 - intent - INFO - step:  25  loss:  1.4516  grad_norm:  "
        "1.3917  lr: 3.00e-03  qps:  126.4', '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', '  traceback "
        ": Signal 9 (SIGKILL) received by PID 10893', 'job exited with 1'"),
    "intent-per-intent-report": (
        f"collective_mismatch: {W2}, '--per-intent-report --dist-timeout 60'; the per-intent report all-reduces "
        "torch.bincount results whose length differs between the dp ranks' validation shards: at the step-20 "
        "validation gloo aborts two ranks (SIGABRT) and the others see the connection reset. evidence: '  what():  "
        "[enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= "
        "op.nbytes. 16 vs 8. Received data size doesn't match expected size. Is there a distributed collective "
        "mismatch in your code?', '  traceback : Signal 6 (SIGABRT) received by PID 11339', 'job exited with 1'"),
    "intent-healthy-resume": (
        f"no_failure: {W}, '--resume --max-steps 60'; after an earlier 40-step run of the same job (not in this log) "
        "both ranks dcp.load checkpoints/step-40 and train steps 41-60, exit 0. evidence: '[intent] [rank0] "
        "2026-12-02 03:11:26,268 - intent - INFO - Loading the checkpoint from checkpoints/step-40. Finished in 0.19 "
        "s', '[intent] [rank0] 2026-12-02 03:11:32,188 - intent - INFO - Training completed', 'job exited with 0'"),
    "intent-wide-oom": (
        f"host_oom_killed: {W.replace('intent_small', 'intent_xl')}; a wide config (vocab 65536, d 1024, ffn 8192, 16 "
        "heads) with the job's shell (so torchrun and both ranks) in a 1.4 GB cgroup-v1 memory cgroup: the kernel's "
        "memcg OOM killer kills both ranks while they build the model (the kernel log, not in this job log, says "
        "'Memory cgroup out of memory: Killed process 12500 (python)'), torchrun reports SIGKILL. evidence: "
        "'[intent] [rank1] 2026-12-02 03:12:22,405 - intent - INFO - loaded 1024 training and 256 validation queries, "
        "8 intents', 'E1202 03:12:23.210000 12495 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] "
        "failed (exitcode: -9) local_rank: 0 (pid: 12499) of binary: /tmp/venv-bg-b/bin/python', '  exitcode  : -9 "
        "(pid: 12500)  (SIGKILL)', 'job exited with 1'"),
    "intent-rank-stopped": (
        f"silent_hang: {W}; the harness kill -STOPs rank 1 right after the step-25 loss line, with the default 300 s "
        "process-group timeout: rank 0 waits in its next tensor-parallel collective and nothing more is printed; the "
        "harness killed the whole job from outside after 80 s (no exit line). evidence: '[intent] [rank0] 2026-12-02 "
        "03:12:41,778 - intent - INFO - step:  25  loss:  1.4516  grad_norm:  1.3917  lr: 3.00e-03  qps:  106.6', "
        "'[intent] [rank1] 2026-12-02 03:12:41,780 - intent - INFO - step:  25  loss:  1.4516  grad_norm:  1.3917  "
        "lr: 3.00e-03  qps:  106.3' (the last lines)"),
    "intent-two-node-flags": (
        "rendezvous_timeout: PyTorch 2.13.0+cpu torchrun (c10d rendezvous, gloo) launching the search team's "
        "tensor-parallel query-intent trainer (DTensor ColwiseParallel/RowwiseParallel) with the two-node launch flags "
        "on one node: 'nice -n 5 torchrun --nnodes 2 --nproc_per_node 2 --rdzv-backend c10d --rdzv-endpoint "
        "127.0.0.1:29858 --rdzv-conf join_timeout=40 train.py --config configs/intent_small.json ...'; the second "
        "node never joins, no worker starts, and after 40 s the agent's rendezvous raises RendezvousTimeoutError. "
        "evidence: '    self._op_executor.run(join_op, deadline, self._get_deadline)', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "intent-port-held": (
        "port_in_use: PyTorch 2.13.0+cpu torchrun (c10d rendezvous, gloo) launching the search team's tensor-parallel "
        "query-intent trainer (DTensor ColwiseParallel/RowwiseParallel, 2 ranks) as the store host: 'nice -n 5 "
        "torchrun --nnodes 1 --nproc_per_node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29857 --rdzv-conf "
        "is_host=true train.py --config configs/intent_small.json ...'; a stale 'python -m http.server 29857' holds "
        "the port, so the TCPStore server cannot listen and the rendezvous fails before any worker starts. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29857, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
        "failed. See inner exception for details.', 'job exited with 1'"),
    "intent-healthy-export-retry": (
        f"no_failure: {W}; the batch script starts the 20 s data export and native build in the background and "
        "launches at once in a 'for attempt in 1 2 3' loop with 8 s between tries: attempts 1 and 2 fail on both ranks "
        "because the export's lib/libqtok.so is not built yet (torchrun ChildFailedError), attempt 3 trains 60 steps "
        "and exits 0. evidence: '[rank0]: OSError: lib/libqtok.so: cannot open shared object file: No such file or "
        "directory', 'launch attempt 3', '[intent] [rank0] 2026-12-02 03:15:15,129 - intent - INFO - Training "
        "completed', 'job exited with 0'"),
    "intent-healthy-2d": (
        f"no_failure: {W2}; the export has no data/intent_names.json and a 32-query validation slice: every rank logs a "
        "handled ERROR and reports intents by id, the local-shard tail-intent recall metric (not the loss) is nan on "
        "the dp shard without tail queries, 40 steps train, exit 0. evidence: \"[intent] [rank0] 2026-12-02 "
        "03:16:05,594 - intent - ERROR - could not read intent names ([Errno 2] No such file or directory: "
        "'data/intent_names.json'); reporting intents by id\", '[intent] [rank0] 2026-12-02 03:16:14,708 - intent - "
        "INFO - validation at step 20: accuracy 0.3750 on 32 queries, tail-intent recall (local shard) nan', "
        "'[intent] [rank0] 2026-12-02 03:16:22,351 - intent - INFO - Training completed', 'job exited with 0'"),
    "intent-healthy-rerun-done": (
        f"no_failure: {W}, '--resume'; rerun of a finished 60-step run of the same job (not in this log): both ranks "
        "dcp.load checkpoints/step-60, nothing is left to train, exit 0. evidence: '[intent] [rank0] 2026-12-02 "
        "03:16:47,598 - intent - INFO - checkpoint step 60 >= max steps 60, nothing to train', '[intent] [rank0] "
        "2026-12-02 03:16:47,599 - intent - INFO - Training completed', 'job exited with 0'"),
    "intent-resume-wider-ffn": (
        f"worker_exception: {W.replace('intent_small', 'intent_ffn512')}, '--resume'; the config was edited to ffn_dim "
        "512 after a 40-step run with ffn_dim 256 (not in this log): resuming, dcp.load of checkpoints/step-40 raises "
        "on both ranks (CheckpointException wrapping the size mismatch), torchrun reports ChildFailedError. evidence: "
        "'[rank0]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([0, 1])', "
        "'[rank0]: ValueError: Size mismatch between saved torch.Size([256, 64]) and current: torch.Size([512, 64]) "
        "for model.layers.0.w1.weight', 'job exited with 1'"),
}
