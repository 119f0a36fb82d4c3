"""Manifest notes for wave BG (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("accelerate 1.15.0 + transformers 5.24.0 Trainer (torch 2.13.0+cpu, gloo, use_cpu=True, log_level info, "
     "logging_steps 5, eval and save each epoch), 2 processes from accelerate_config.yaml (num_processes 2, static "
     "rendezvous on 127.0.0.1) launched with 'accelerate launch --config_file accelerate_config.yaml "
     "--main_process_port P train_clauses.py --data-dir data --ckpt-dir checkpoints --epochs 3' (accelerate runs "
     "torch.distributed.run's elastic agent in-process); a legal-tech startup's contract-clause classifier (tiny "
     "BertForSequenceClassification from BertConfig, 811,142 parameters, random init, six clause types, synthetic "
     "token ids read zero-copy from a packed token file), 640 training clauses, 20 steps per epoch")
NOTES = {
    "clauses-healthy": (
        f"no_failure: {W}; 3 epochs with validation and a checkpoint each epoch, DDP's find_unused_parameters "
        "warning on both ranks, exit 0. evidence: '12/02/2026 03:05:05 - INFO - __main__ - training finished', "
        "'job exited with 0'"),
    "clauses-healthy-no-label-map": (
        f"no_failure: {W}; the export has no data/labels.json: each rank logs an ERROR and derives the clause types "
        "from the training metadata, then trains 3 epochs, exit 0. evidence: \"12/02/2026 03:10:21 - ERROR - "
        "__main__ - label map unavailable ([Errno 2] No such file or directory: 'data/labels.json'); deriving the "
        "clause types from the training metadata\", '12/02/2026 03:10:43 - INFO - __main__ - training finished', "
        "'job exited with 0'"),
    "clauses-healthy-valid-no-assignment": (
        f"no_failure: {W}; the validation split has no 'assignment' clause, so that class's recall metric is NaN at "
        "every evaluation (the loss is finite), 3 epochs, exit 0. evidence: \"'eval_recall_assignment': 'nan'\", "
        "'12/02/2026 03:11:28 - INFO - __main__ - training finished', 'job exited with 0'"),
    "clauses-lr-3e3": (
        f"training_divergence: {W}, '--lr 3e3' (a learning rate typed as 3e3 instead of 3e-4): the loss explodes "
        "(1.023e+06, 2.774e+07), the gradient norm is NaN from step 10, the Trainer's NaN filter then logs loss 0 "
        "and eval_loss is nan; the run goes on uselessly and exits 0. evidence: \"{'loss': '2.774e+07', "
        "'grad_norm': 'nan', 'learning_rate': '2782', 'epoch': '0.5'}\", \"{'eval_loss': 'nan', 'eval_accuracy': "
        "'0.09375',\", 'job exited with 0'"),
    "clauses-legacy-row": (
        f"worker_exception: {W}; one row of the training metadata is in the legacy export schema ('clause_type' "
        "instead of 'label'): rank 0's dataset raises KeyError at its first batch, rank 1's gloo collective then "
        "sees the connection close, the elastic agent stops the job. evidence: \"[rank0]: KeyError: 'label'\", "
        "'[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
        "Connection closed by peer [127.0.0.1]:62097. This is typically caused by a remote worker crashing. Check "
        "the logs of the remote worker before reporting a', 'job exited with 1'"),
    "clauses-index-from-other-shard": (
        f"native_crash: {W}; the metadata's offsets for half the rows point into another shard (64 Gi entries past "
        "this token file): the zero-copy reader (ctypes.string_at on the memory map) dereferences unmapped memory "
        "and both ranks die of SIGSEGV at the first batch, no Python traceback. evidence: 'E1202 03:09:10.200000 "
        "10757 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -11) "
        "local_rank: 0 (pid: 10762) of binary: /tmp/venv-bg-c/bin/python', '  traceback : Signal 11 (SIGSEGV) "
        "received by PID 10762', 'job exited with 1'"),
    "clauses-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 4 MB tmpfs: the model weights of checkpoint-20 fit, then torch.save of "
        "the optimizer state fails on rank 0 at the end of epoch 1 (torch's writer reports the short write, not "
        "ENOSPC), rank 1 sees the connection close. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream "
        "error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 9728 vs 9620', "
        "'job exited with 1'"),
    "clauses-rank-killed": (
        f"host_oom_killed: {W}, '--epochs 4'; rank 1 was SIGKILLed from outside (as the kernel OOM killer does) in "
        "epoch 2; the elastic agent reports exit code -9 and stops rank 0. evidence: 'E1202 03:07:11.158000 9138 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 "
        "(pid: 9143) of binary: /tmp/venv-bg-c/bin/python', '  exitcode  : -9 (pid: 9143)  (SIGKILL)', "
        "'job exited with 1'"),
    "clauses-wide-oom": (
        f"host_oom_killed: {W}, '--hidden-size 1024 --layers 6'; the launch shell (and so the launcher and both "
        "ranks) in a 1.2 GB cgroup-v1 memory cgroup: the kernel OOM killer kills rank 1 while the wide model is "
        "built, right after the data is loaded; no Python error. evidence: 'E1202 03:06:53.754000 9106 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 "
        "(pid: 9111) of binary: /tmp/venv-bg-c/bin/python', '  exitcode  : -9 (pid: 9111)  (SIGKILL)', "
        "'job exited with 1'"),
    "clauses-preempted": (
        f"job_preempted: {W}, '--epochs 4'; a scheduler's SIGTERM to the accelerate launcher in epoch 2: the "
        "elastic agent forwards SIGTERM to both ranks and exits with SignalException. evidence: 'W1202 "
        "03:07:50.325000 9311 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death "
        "signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process "
        "9311 got signal: 15', 'job exited with 1'"),
    "clauses-terminal-closed": (
        f"terminal_hangup: {W}, '--epochs 4'; SIGHUP (the launching terminal closing) to the accelerate launcher in "
        "epoch 2: the elastic agent sends SIGHUP to both ranks and exits with SignalException. evidence: 'W1202 "
        "03:08:10.350000 9788 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death "
        "signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process "
        "9788 got signal: 1', 'job exited with 1'"),
    "clauses-flash-attn": (
        f"library_version_mismatch: {W}, '--attn-impl flash_attention_2'; the model is built with "
        "attn_implementation flash_attention_2 but flash-attn is not installed in this environment: transformers "
        "raises ImportError on both ranks before training. evidence: \"[rank0]: ImportError: FlashAttention2 has "
        "been toggled on, but it cannot be used due to the following error: the package for FlashAttention2 doesn't "
        "seem to be installed.\", 'job exited with 1'"),
    "clauses-healthy-export-retry": (
        f"no_failure: {W}; the batch script starts the clause export in the background (20 s) and launches at once "
        "inside a 3-attempt retry loop ('for attempt in 1 2 3; do ... && break; sleep 10; done'). The export landed "
        "just before the ranks read it, so attempt 1 trained all 3 epochs, but at interpreter exit rank 1 aborted "
        "in native teardown (std::terminate, SIGABRT, after 'training finished'); the agent reported the failure, "
        "the loop slept 10 s and attempt 2 trained 3 epochs again and exited cleanly, so the job succeeded (exit "
        "0). evidence: 'launch attempt 1', 'terminate called without an active exception', '  exitcode  : -6 (pid: "
        "12192)  (SIGABRT)', 'launch attempt 2', '12/02/2026 03:12:47 - INFO - __main__ - training finished', "
        "'job exited with 0'"),
    "clauses-rank-stopped": (
        f"silent_hang: {W}, '--epochs 4' (ddp_timeout at its 1800 s default); rank 1 was frozen with SIGSTOP just "
        "after the first loss line of epoch 2: rank 0 waits in DDP's gradient all-reduce, nothing more is printed, "
        "no error or timeout appears; the harness killed the job from outside after 120 s (so no exit line). "
        "evidence: '[INFO|modeling_utils.py:3639] 2026-12-02 03:13:23,350 >> Model weights saved in "
        "checkpoints/checkpoint-20/model.safetensors', \"{'loss': '3.549', 'grad_norm': '0.9611', 'learning_rate': "
        "'0.000224', 'epoch': '1.25'}\""),
    "clauses-healthy-resume": (
        f"no_failure: {W}, '--resume'; after an earlier 1-epoch run (not in this log) the Trainer loads "
        "checkpoints/checkpoint-20, fast-forwards the data loader and trains epochs 2-3, exit 0. evidence: "
        "'[INFO|trainer.py:1631] 2026-12-02 03:21:15,280 >>   Resuming training from checkpoint with epoch 1 and "
        "global step 20', '12/02/2026 03:21:26 - INFO - __main__ - training finished', 'job exited with 0'"),
    "clauses-healthy-port-busy": (
        f"no_failure: {W}; another process (a python http.server) already listens on the configured "
        "--main_process_port 29894: on a single machine accelerate only warns and lets torch.distributed.run pick "
        "a free port (standalone-like mode); training runs 3 epochs, exit 0. evidence: '/tmp/venv-bg-c/lib/"
        "python3.11/site-packages/accelerate/utils/launch.py:236: UserWarning: Port `29894` is already in use. "
        "Accelerate will attempt to launch in a standalone-like mode by finding an open port automatically for "
        "this session.', '12/02/2026 03:21:59 - INFO - __main__ - training finished', 'job exited with 0'"),
    "clauses-port-held-node0": (
        "port_in_use: accelerate 1.15.0 + transformers 5.24.0, node 0 of the team's two-node layout launched with "
        "'accelerate launch --config_file accelerate_config.yaml --num_machines 2 --num_processes 4 "
        "--machine_rank 0 --main_process_port 29909 train_clauses.py --data-dir data --ckpt-dir checkpoints "
        "--epochs 3' (contract-clause classifier, tiny BERT from BertConfig); another process (a python "
        "http.server) already listens on 29909: with more than one machine accelerate refuses the taken port "
        "before starting any rank. evidence: 'ConnectionError: Tried to launch distributed communication on port "
        "`29909`, but another process is utilizing it.', 'job exited with 1'"),
    "clauses-node1-missing": (
        "rendezvous_timeout: accelerate 1.15.0 + transformers 5.24.0 (torch 2.13.0+cpu), node 0 of the team's "
        "two-node layout launched with 'accelerate launch --config_file accelerate_config.yaml --num_machines 2 "
        "--num_processes 4 --machine_rank 0 --rdzv_conf timeout=40 --main_process_port 29910 train_clauses.py "
        "--data-dir data --ckpt-dir checkpoints --epochs 3' (contract-clause classifier, tiny BERT from "
        "BertConfig); node 1 was never launched: the elastic agent's static rendezvous TCPStore waits 40 s for the "
        "second node and gives up before any rank starts. evidence: 'torch.distributed.DistStoreError: Timed out "
        "after 41 seconds waiting for clients. 1/2 clients joined.', 'job exited with 1'"),
}
