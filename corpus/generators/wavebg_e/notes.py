"""Manifest notes for wave BG (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("plain PyTorch DDP (torch 2.13.0+cpu, gloo; the fallback from TorchRec, whose fbgemm-gpu-cpu 1.9.0 does not load "
     "with torch 2.13), 2 ranks launched with 'nice -n 5 torchrun --nproc_per_node 2 --rdzv-backend c10d "
     "--rdzv-endpoint localhost:P train.py --config config.json --data-dir data --ckpt-dir checkpoints --epochs 3 "
     "--step-delay 0.1'; a streaming-music next-song recommender (user/history/candidate-track/artist "
     "nn.EmbeddingBag(sparse=True) + MLP, SparseAdam + Adam, global batch 128), Python logging with timestamp and "
     "rank, loss every 4 steps, validation all_reduce and a rank-0 torch.save checkpoint each epoch")
NOTES = {
    "songs-healthy": (
        f"no_failure: {W}; 3 epochs, each validation logs a nan cold-start metric and a WARNING about it (not the "
        "loss), exit 0. evidence: '2026-12-02 03:21:56,849 [rank0] WARNING recsys.train: cold-start listen rate is "
        "nan (no cold-start users in the validation set)', '2026-12-02 03:22:04,707 [rank1] INFO recsys.train: "
        "training finished', 'job exited with 0'"),
    "songs-healthy-backend-fallback": (
        f"no_failure: {W}, '--embedding-backend auto'; the torchrec import fails on each rank (fbgemm_gpu 1.9.0 "
        "version WARNINGs, an ERROR from fbgemm's loader, an undefined-symbol OSError traceback logged with "
        "logger.exception) and the script falls back to nn.EmbeddingBag and trains 3 epochs, exit 0. evidence: "
        "'2026-12-02 03:22:16,770 [rank0] ERROR recsys.train: torchrec embedding backend unavailable, falling back "
        "to torch.nn.EmbeddingBag', 'OSError: Could not load this library: /tmp/venv-bg-e/lib/python3.11/"
        "site-packages/fbgemm_gpu/fbgemm_gpu_tbe_index_select.so', 'job exited with 0'"),
    "songs-healthy-resume": (
        f"no_failure: {W}, '--resume --epochs 4'; after an earlier 2-epoch run (not in this log) both ranks load "
        "checkpoints/last.pt and train epochs 3-4, exit 0. evidence: '2026-12-02 03:22:57,919 [rank0] INFO "
        "recsys.train: resumed from checkpoints/last.pt (epoch 2 done)', 'job exited with 0'"),
    "songs-healthy-export-retry": (
        f"no_failure: {W}; the batch script starts the 12 s session export in the background and launches at once in "
        "a 'for attempt in 1 2 3' loop: attempt 1 fails on both ranks (FileNotFoundError, torchrun ChildFailedError), "
        "10 s later attempt 2 trains 3 epochs, exit 0. evidence: \"[rank0]: FileNotFoundError: [Errno 2] No such "
        "file or directory: 'data/catalog.json'\", 'launch attempt 2', 'job exited with 0'"),
    "songs-torchrec-backend": (
        f"library_version_mismatch: {W}, '--embedding-backend torchrec'; torchrec 1.9.2 / fbgemm-gpu-cpu 1.9.0 "
        "installed next to torch 2.13.0: fbgemm_gpu's native op library has an undefined torch symbol, the import "
        "raises on both ranks at model build, exit 1. evidence: '[rank0]: OSError: Could not load this library: "
        "/tmp/venv-bg-e/lib/python3.11/site-packages/fbgemm_gpu/fbgemm_gpu_tbe_index_select.so', 'job exited "
        "with 1'"),
    "songs-wide-embeddings-oom": (
        f"host_oom_killed: {W}, '--emb-dim 8192' (60.6M embedding parameters per rank) with the launch shell in a "
        "1.3 GB cgroup-v1 memory cgroup: the kernel memcg OOM killer kills rank 0 while it builds DDP (dmesg: "
        "'Memory cgroup out of memory: Killed process 23059 (python)'); torchrun reports exitcode -9 and SIGTERMs "
        "rank 1, exit 1. evidence: 'E1202 03:27:23.933000 23055 site-packages/torch/distributed/elastic/"
        "multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 0 (pid: 23059) of binary: "
        "/tmp/venv-bg-e/bin/python', '  traceback : Signal 9 (SIGKILL) received by PID 23059'"),
    "songs-rank-killed": (
        f"host_oom_killed: {W}; the rank-1 process SIGKILLed from outside in epoch 2 (no OOM): torchrun reports "
        "exitcode -9 for rank 1 and SIGTERMs rank 0, exit 1. evidence: 'E1202 03:26:06.452000 22329 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 "
        "(pid: 22357) of binary: /tmp/venv-bg-e/bin/python', '  traceback : Signal 9 (SIGKILL) received by PID "
        "22357'"),
    "songs-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 4 MiB tmpfs: epoch 1's checkpoint fits, epoch 2's (written to last.pt.tmp "
        "next to last.pt) fails in torch.save on rank 0; rank 1 then sees the gloo connection closed, exit 1. "
        "evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail "
        "at inline_container.cc:672] . unexpected pos 1032960 vs 1032852'"),
    "songs-lr-typo": (
        f"training_divergence: {W}, '--lr 1e30' (the dense Adam learning rate): the loss is nan at the second step "
        "on both ranks and the script's finite-loss check raises, exit 1. evidence: '[rank0]: FloatingPointError: "
        "loss is nan at epoch 1 step 2', 'job exited with 1'"),
    "songs-malformed-row": (
        f"worker_exception: {W}; session export row 2500 has the history 'NA': parsing it on rank 0 in epoch 1 "
        "(after step 20) raises ValueError; rank 1 sees the gloo connection closed, exit 1. evidence: \"[rank0]: "
        "ValueError: invalid literal for int() with base 10: 'NA'\", 'job exited with 1'"),
    "songs-batch-config": (
        f"batch_size_mismatch: {W}; config.json has grad_accum 3 (global_batch_size 128): the script's batch check "
        "raises at startup on both ranks, exit 1. evidence: '[rank0]: ValueError: global_batch_size 128 is not "
        "divisible by world_size * grad_accum = 2 * 3', 'job exited with 1'"),
    "songs-fast-collate": (
        f"native_crash: {W}, '--fast-collate'; one exported session has an empty history: the fast collate path reads "
        "its seed track via ctypes at a wrapped uint32 offset (-1) and rank 0 dies of SIGSEGV in epoch 1; rank 1 "
        "gets a gloo 'Connection reset by peer', exit 1. evidence: 'E1202 03:25:51.173000 22185 site-packages/torch/"
        "distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -11) local_rank: 0 (pid: 22231) of "
        "binary: /tmp/venv-bg-e/bin/python', '  traceback : Signal 11 (SIGSEGV) received by PID 22231'"),
    "songs-preempted": (
        f"job_preempted: {W}; SIGTERM sent to the torchrun process in epoch 2 (a scheduler's preemption): torchrun "
        "SIGTERMs the workers and exits with SignalException, exit 1. evidence: 'W1202 03:26:21.452000 22683 "
        "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down "
        "workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 22683 got signal: 15'"),
    "songs-terminal-closed": (
        f"terminal_hangup: {W}; SIGHUP sent to the torchrun process in epoch 2 (what a closed terminal sends; sent by "
        "the harness with kill, not by closing a pty): torchrun forwards SIGHUP to the workers and exits, exit 1. "
        "evidence: 'W1202 03:26:32.172000 22816 site-packages/torch/distributed/elastic/agent/server/api.py:753] "
        "Received 1 death signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 22816 got signal: 1'"),
    "songs-second-node-missing": (
        f"rendezvous_timeout: {W}, torchrun with '--nnodes 2 --rdzv-conf join_timeout=30' but only this node "
        "started: the c10d rendezvous never completes and times out after 30 s before any worker starts, exit 1. "
        "evidence: '    raise RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api."
        "RendezvousTimeoutError'"),
    "songs-rank-stopped-timeout": (
        f"collective_timeout: {W}, '--timeout 20'; rank 1 SIGSTOPped (kill -STOP from outside) at step 16 of epoch 2: "
        "rank 0's DDP gradient all-reduce times out after the 20 s process-group timeout, torchrun cannot stop the "
        "stopped rank 1 with SIGTERM and SIGKILLs it after 30 s, exit 1. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 20000ms "
        "for send operation to complete', 'W1202 03:29:24.824000 23842 site-packages/torch/distributed/elastic/"
        "multiprocessing/api.py:1047] Unable to shutdown process 23913 via 15, forcefully exiting via 9'"),
    "songs-rank-stopped": (
        f"silent_hang: {W}, '--timeout 600'; rank 1 SIGSTOPped (kill -STOP from outside) at step 16 of epoch 2: "
        "both ranks' output stops there, nothing reports why; the harness killed the job after 75 s (no exit "
        "line). evidence: '2026-12-02 03:34:34,594 [rank1] INFO recsys.train: epoch 2/3 step 16/32 loss 0.6721 "
        "(524.0 samples/s)' (the last line)"),
    "songs-loader-workers-shm": (
        f"shm_exhausted: {W}, '--num-workers 2' (DataLoader worker processes) with the job's /dev/shm a 256 KiB "
        "tmpfs (private mount namespace): the workers cannot put batches in shared memory, their queue feeder "
        "threads print the error, the ranks wait for batches that never come; the harness killed the job after 60 s "
        "(no exit line). evidence: 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_25232_2133154503_0>: No space left on device (28)'"),
}
