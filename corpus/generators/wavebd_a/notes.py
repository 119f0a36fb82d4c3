"""Manifest notes for wave BD (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("plain PyTorch DDP (torch 2.13.0+cpu), 2 processes over gloo on CPU launched with the legacy launcher "
     "'python -m torch.distributed.launch --nproc_per_node 2 --use-env --master_port P train.py --data-dir data "
     "--epochs 3 --batch-size 64 --micro-batch 32 --workers 2 --step-delay 0.1 --pg-timeout 600' (argparse, logging, "
     "rank-0 print, DistributedSampler, DataLoader workers, torch.save each epoch); a speech team's keyword-spotting "
     "model (small conv net over 40x98 log-mel frames, 10 keywords)")
NOTES = {
    "kws-healthy": (
        f"no_failure: {W}; 3 epochs, loss printed every 4 steps, validation and a checkpoint per epoch, exit 0. "
        "evidence: '12/01/2026 19:22:50 - INFO - train - saved checkpoint checkpoints/checkpoint_epoch3.pth', "
        "'Training finished.', 'job exited with 0'"),
    "kws-healthy-local-rank-arg": (
        f"no_failure: {W}, but launched without --use-env: the launcher passes --local-rank=N to the script, which "
        "accepts both --local-rank and --local_rank; the launcher's deprecation warning is printed; 3 epochs, exit 0. "
        "evidence: \"If your script expects `--local-rank` argument to be set, please\", '12/01/2026 19:23:17 - INFO - "
        "train - rank 0/2 (local rank 0) initialised, backend gloo', 'Training finished.', 'job exited with 0'"),
    "kws-healthy-resume": (
        f"no_failure: {W}, '--resume auto'; after an earlier 2-epoch run (not in this log) the script loads the "
        "latest checkpoint and trains epoch 3 only. evidence: '12/01/2026 19:24:47 - INFO - train - resumed from "
        "checkpoints/checkpoint_epoch2.pth (epoch 2, best acc 0.1211)', 'Training finished.', 'job exited with 0'"),
    "kws-healthy-rerun-done": (
        f"no_failure: {W}, '--resume auto'; rerun of a finished 3-epoch run (not in this log) with the same "
        "command: the latest checkpoint is already at the last epoch, nothing is trained, exit 0. evidence: "
        "'12/01/2026 19:26:09 - INFO - train - resumed from checkpoints/checkpoint_epoch3.pth (epoch 3, best acc "
        "0.3516)', '12/01/2026 19:26:09 - INFO - train - checkpoint is already at epoch 3 of 3, nothing to train', "
        "'Training finished.', 'job exited with 0'"),
    "kws-wide-oom": (
        f"host_oom_killed: {W}, '--width 256' (a 32x wider net) in a 1.5 GB cgroup-v1 memory limit; the kernel OOM "
        "killer kills rank 0 in the first steps (exitcode -9), before any loss line; the launcher stops rank 1. "
        "evidence: 'E1201 19:27:53.111000 27725 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] "
        "failed (exitcode: -9) local_rank: 0 (pid: 27734) of binary: /tmp/venv-bd-a/bin/python', '  exitcode  : -9 "
        "(pid: 27734)  (SIGKILL)', 'job exited with 1'"),
    "kws-rank-killed": (
        f"host_oom_killed: {W}, 4 epochs; after the first loss line of epoch 2 the process with LOCAL_RANK 1 and its "
        "two DataLoader workers are SIGKILLed from outside (kill -9, no OOM); rank 0's gloo broadcast sees the "
        "connection reset, the launcher reports -9 for local rank 1. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:11696: "
        "Connection reset by peer. This is typically caused by a remote worker hanging or bugs in the application. "
        "Check the logs of the remote worker before reporting an error. GLHF! 🏖️', 'E1201 19:28:35.320000 27836 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 "
        "(pid: 27840) of binary: /tmp/venv-bd-a/bin/python', 'job exited with 1'"),
    "kws-ckpt-tmpfs": (
        f"disk_full: {W}; the checkpoint directory is a 96 KiB tmpfs: epoch 1's checkpoint fits, epoch 2's "
        "torch.save on rank 0 runs out of space; rank 0 exits, rank 1 sees the connection close at the barrier. "
        "evidence: '12/01/2026 19:29:09 - INFO - train - saved checkpoint checkpoints/checkpoint_epoch1.pth', "
        "'[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 26816 vs 26708', 'job exited with 1'"),
    "kws-workers-shm": (
        f"shm_exhausted: {W}; /dev/shm is a 64 KiB tmpfs (unshare -m, like a container's small default shm); when "
        "the 2-worker DataLoader starts, both ranks fail creating its semaphore in shared memory. evidence: "
        "'[rank0]:     sl = self._semlock = _multiprocessing.SemLock(', '[rank0]: OSError: [Errno 28] No space left "
        "on device', '[rank1]: OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "kws-rank-stopped": (
        f"collective_timeout: {W}, 4 epochs, '--pg-timeout 20'; after the first loss line of epoch 2 the process "
        "with LOCAL_RANK 1 (and its DataLoader workers) is SIGSTOPped; rank 0's gloo send times out after 20 s; the "
        "launcher cannot stop the stopped rank with SIGTERM and SIGKILLs it. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 20000ms "
        "for send operation to complete', 'W1201 19:31:34.927000 28215 site-packages/torch/distributed/elastic/"
        "multiprocessing/api.py:1047] Unable to shutdown process 28228 via 15, forcefully exiting via 9', "
        "'job exited with 1'"),
    "kws-preempted": (
        f"job_preempted: {W}, 4 epochs; after the first loss line of epoch 2 SIGTERM goes to the job's whole process "
        "group (the launch shell and the launcher's agent), as a scheduler preempting the job; the agent passes it to "
        "both ranks and exits with SignalException; the launch shell died too (no 'job exited' line). evidence: "
        "'W1201 19:32:15.037000 28555 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 "
        "death signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process "
        "28555 got signal: 15'"),
    "kws-terminal-closed": (
        f"terminal_hangup: {W}, 4 epochs; after the first loss line of epoch 2 the terminal that ran the launch "
        "closes: SIGHUP to the job's process group; the launcher's agent passes it to both ranks and exits with "
        "SignalException; the launch shell died too (no 'job exited' line). evidence: 'W1201 19:32:48.690000 28829 "
        "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down "
        "workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 28829 got signal: 1'"),
    "kws-dead-mic-clips": (
        f"training_divergence: {W}; 4 training clips come from a dead microphone (all-zero power, so their log-mel "
        "frames are -inf); the first batch holding one gives a NaN loss and the script's check raises on rank 0; "
        "rank 1 sees the connection close. evidence: '12/01/2026 19:33:23 - ERROR - train - epoch 1 step 7: loss is "
        "nan', '[rank0]: FloatingPointError: Loss is nan, stopping training', 'job exited with 1'"),
    "kws-port-held": (
        f"port_in_use: {W}; a notebook file server (python -m http.server 29623) was left running on the master port "
        "given with --master_port 29623; the launcher's store cannot listen and the launch fails before any worker "
        "starts. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 29623, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in "
        "use', 'job exited with 1'"),
    "kws-finetune-old-script": (
        "library_version_mismatch: plain PyTorch DDP (torch 2.13.0+cpu), 2 processes over gloo on CPU; the team's "
        "older fine-tuning script (finetune.py, written for torch 1.x's launcher: argparse '--local_rank' only) "
        "launched the old way without --use-env: 'python -m torch.distributed.launch --nproc_per_node 2 --master_port "
        "29624 finetune.py --data_dir data --epochs 1 --step_delay 0.1'; since torch 2.0 the launcher passes "
        "'--local-rank=N', which the script's parser rejects on both ranks; a speech team's keyword-spotting model. "
        "evidence: 'finetune.py: error: unrecognized arguments: --local-rank=0', 'E1201 19:33:56.395000 29222 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 2) local_rank: 0 "
        "(pid: 29261) of binary: /tmp/venv-bd-a/bin/python', 'job exited with 1'"),
    "kws-batch-accum": (
        f"batch_size_mismatch: {W}, but '--batch-size 128' (changed without raising --micro-batch or --grad-accum); "
        "the script's check that the global batch equals micro-batch x grad-accum x world size raises on both ranks "
        "before training. evidence: '[rank0]: ValueError: --batch-size 128 != --micro-batch 32 * --grad-accum 1 * "
        "world size 2', 'job exited with 1'"),
    "kws-second-node-missing": (
        "rendezvous_timeout: plain PyTorch DDP (torch 2.13.0+cpu) over gloo on CPU, the team's two-node launch with "
        "the legacy launcher 'python -m torch.distributed.launch --nproc_per_node 2 --use-env --nnodes 2 --node_rank 0 "
        "--master_addr 127.0.0.1 --rdzv_conf timeout=30 --master_port 29626 train.py --data-dir data --epochs 3 ...' "
        "(static rendezvous) started on the first node only (the second node's job never started); a speech team's "
        "keyword-spotting model; the launcher's store waits 30 s for the second node's agent, then gives up before "
        "any worker starts. evidence: 'torch.distributed.DistStoreError: Timed out after 31 seconds waiting for "
        "clients. 1/2 clients joined.', 'job exited with 1'"),
    "kws-specaugment": (
        f"library_version_mismatch: {W}, '--augment specaugment'; the SpecAugment transforms come from torchaudio, not "
        "installed in the training environment (a missing package, labelled as the corpus labels ModuleNotFoundError); both ranks fail importing it before training. evidence: "
        "\"[rank0]: ModuleNotFoundError: No module named 'torchaudio'\", 'E1201 19:35:26.430000 29757 site-packages/torch/"
        "distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 29775) of binary: "
        "/tmp/venv-bd-a/bin/python', 'job exited with 1'"),
    "kws-feats-rewritten": (
        f"native_crash: {W}, 4 epochs; after the first loss line of epoch 2 another job (the nightly feature refresh) "
        "rewrites data/train_feats.npy in place (truncated to 4 KiB) while both ranks' DataLoader workers have it "
        "memory-mapped; the workers touching the lost pages die with SIGBUS; DataLoader's own message blames shared "
        "memory, but /dev/shm was not full: the cause is the truncated memory-mapped file. evidence: 'ERROR: "
        "Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).', "
        "\"[rank1]: RuntimeError: DataLoader worker (pid 29993) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\", 'job exited "
        "with 1'"),
    "kws-vendor-keyword": (
        f"worker_exception: {W}; the labelling vendor's new export tags some clips with a keyword the model's "
        "keyword list does not have (hey_computer); the dataset's label lookup raises inside a DataLoader worker on "
        "rank 1 in the first epoch, DataLoader re-raises it in the rank; rank 0 sees the connection close. evidence: "
        "'[rank1]: KeyError: Caught KeyError in DataLoader worker process 0.', \"[rank1]: KeyError: 'hey_computer'\", "
        "'E1201 19:36:54.338000 30124 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: 1) local_rank: 1 (pid: 30158) of binary: /tmp/venv-bd-a/bin/python', 'job exited with 1'"),
    "kws-lr-typo": (
        f"worker_exception: {W}, but the launch line has a typo, '--lr 3e-3,' (a trailing comma); argparse rejects the "
        "value on both ranks (exit code 2) before the process group starts. evidence: \"train.py: error: argument "
        "--lr: invalid float value: '3e-3,'\", 'E1201 19:37:05.814000 30539 site-packages/torch/distributed/elastic/"
        "multiprocessing/api.py:1002] failed (exitcode: 2) local_rank: 1 (pid: 30555) of binary: "
        "/tmp/venv-bd-a/bin/python', 'job exited with 1'"),
    "kws-stopped-quiet": (
        f"silent_hang: {W}, 4 epochs, the launch line's 10-minute process-group timeout ('--pg-timeout 600'); after the first loss "
        "line of epoch 2 the process with LOCAL_RANK 1 (and its DataLoader workers) is SIGSTOPped; rank 0 waits in "
        "its next collective, nothing more is printed, and the harness ended the job after 70 s (no 'job exited' "
        "line). evidence: 'Epoch [2/4] Step [4/12] loss 2.1362 lr 0.003000 (0.362s/step)' (the log's last line)"),
    "kws-healthy-late-features": (
        f"no_failure: {W}, plus '--max_restarts 3'; the job script starts the feature copy (prep_features.py, 15 s "
        "slow) in the background and launches at once: the first two attempts fail on both ranks because "
        "data/keywords.txt is not there yet, the third fails in gloo's connectFullMesh (connection refused, the peer "
        "of the restarted group gone), the launcher's own restarts retry, and the fourth attempt trains 3 epochs and "
        "exits 0. evidence: \"[rank0]: FileNotFoundError: [Errno 2] No such file or directory: 'data/keywords.txt'\", "
        "'E1201 19:38:53.103000 31035 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: 1) local_rank: 1 (pid: 31040) of binary: /tmp/venv-bd-a/bin/python', '12/01/2026 19:39:37 - INFO - "
        "train - saved checkpoint checkpoints/checkpoint_epoch3.pth', 'Training finished.', 'job exited with 0'"),
    "kws-confusion-rank0": (
        f"collective_mismatch: {W}, '--confusion-matrix --pg-timeout 30'; the team's confusion-matrix logging calls "
        "dist.all_gather inside the rank-0-only block after the checkpoint save, while rank 1 goes on to "
        "dist.barrier(): the two ranks issue different collectives; nothing reports a mismatch as such: rank 1's "
        "barrier times out after 30 s and rank 0's all_gather then sees the connection close. evidence: '[rank1]:     "
        "dist.barrier()', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', '[rank0]:     "
        "dist.all_gather(gathered, local)', '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:8094. This is typically caused by a remote "
        "worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️', 'job exited "
        "with 1'"),
}
