"""Manifest notes for wave BL (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("mpi4py 4.1.2 on MPICH 5.0.2 (PyPI wheel 'mpich', Hydra mpiexec), torch 2.13.0+cpu, Python 3.11.7, CPU only: "
     "data-parallel training of a small GRU forecaster (next value of a synthetic sensor series from a 48-step window "
     "plus a station embedding, MSE loss, AdamW + cosine LR) whose windows are cut by a small ctypes native helper "
     "(libwinops.so); rank and world size from MPICH's PMI_RANK/PMI_SIZE, initial weights Bcast from rank 0, gradients "
     "averaged either with one mpi4py Allreduce per step (grad sync mpi) or with torch.distributed all_reduce over "
     "gloo (MASTER_ADDR/PORT chosen by rank 0 and broadcast with mpi4py); rank 0 logs and writes checkpoints every 25 "
     "steps, every rank prints '[R] epoch E step S/N loss X grad_norm G' lines; launched with "
     "'nice -n 5 mpiexec -n N python train.py")
NOTES = {
    "healthy-gloo-3ranks-stats": (
        f"no_failure: {W} --grad-sync gloo --master-port 29803 --global-batch-size 66 --stats-file stats/run.jsonl' "
        "(3 ranks, 3 epochs); the stats directory does not exist, so at every checkpoint rank 0 logs an ERROR with a "
        "FileNotFoundError traceback (logger.exception) and carries on; training finishes, exit 0. evidence: "
        "'2026-12-02 15:02:02,620 ERROR [rank 0/3] forecast: could not append run stats to stats/run.jsonl; "
        "continuing without them', \"FileNotFoundError: [Errno 2] No such file or directory: 'stats/run.jsonl'\", "
        "'2026-12-02 15:02:13,792 INFO [rank 0/3] forecast: done: 123 steps in 20.0s'"),
    "healthy-resume": (
        f"no_failure: {W} --resume --epochs 4' (2 ranks, mpi Allreduce); an earlier unlogged 2-epoch run in the same "
        "job dir left checkpoints/ckpt_000086.pt; both ranks load it and training continues 86 -> 172; exit 0. "
        "evidence: '2026-12-02 15:02:56,505 INFO [rank 0/2] forecast: resumed from checkpoints/ckpt_000086.pt at step "
        "86 (epoch 2)', '2026-12-02 15:03:05,991 INFO [rank 0/2] forecast: done: 172 steps in 15.5s', 'job exited "
        "with 0'"),
    "healthy-4ranks-dropout-warn": (
        f"no_failure: {W} --grad-sync gloo --master-port 29806 --dropout 0.1 --epochs 2' (4 ranks, gloo); every rank "
        "prints torch's GRU UserWarning about dropout with a single layer, then trains normally and finishes, exit 0. "
        "evidence: '/tmp/venv-bl-a/lib/python3.11/site-packages/torch/nn/modules/rnn.py:1358: UserWarning: dropout "
        "option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than "
        "1, but got dropout=0.1 and num_layers=1', '2026-12-02 15:03:41,788 INFO [rank 0/4] forecast: done: 86 steps "
        "in 21.1s', 'job exited with 0'"),
    "healthy-fresh-resume-abortflag": (
        f"no_failure: {W} --resume --abort-on-error --global-batch-size 60' (3 ranks, mpi Allreduce); --resume on an "
        "empty checkpoint dir, so every rank logs a WARNING and starts fresh; nothing raises, training finishes, "
        "exit 0. evidence: '2026-12-02 15:04:03,090 WARNING [rank 0/3] forecast: resume requested but checkpoints "
        "has no checkpoint; starting fresh', '2026-12-02 15:04:17,316 INFO [rank 0/3] forecast: done: 138 steps in "
        "20.7s', 'job exited with 0'"),
    "rank-sigkill": (
        f"host_oom_killed: {W} --epochs 12 --log-every 2' (2 ranks, mpi Allreduce); at step 60 the harness sent "
        "SIGKILL to rank 1 from outside (what the kernel OOM killer does); Hydra reports the bad termination and "
        "cleans up rank 0. evidence: '[1] epoch 1 step 60/516 loss 0.02281 grad_norm 0.254', '=   EXIT CODE: 9', "
        "'YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)'"),
    "cgroup-oom": (
        f"host_oom_killed: {W} --hidden-size 3072 --layers 2' (85M params) inside a 1.4 GB cgroup-v1 memory limit "
        "for the whole job; right after the model is built the cgroup OOM killer SIGKILLs a rank (no outside "
        "signal was sent). Short log. evidence: '2026-12-02 15:04:52,025 INFO [rank 0/2] forecast: model: GRU x2 "
        "hidden 3072, 85057665 params, grad sync mpi', '=   EXIT CODE: 9', 'YOUR APPLICATION TERMINATED WITH THE "
        "EXIT STRING: Killed (signal 9)'"),
    "index-segv": (
        f"native_crash: {W} --grad-sync gloo --master-port 29809' (2 ranks); the window index was written with one "
        "corrupt start offset (2^40, row 1123, in rank 1's shard), so at step 39 the native helper's memcpy reads "
        "far outside the series buffer and rank 1 dies with SIGSEGV; no Python traceback. evidence: '[1] epoch 0 "
        "step 35/129 loss 0.03488 grad_norm 0.179', '=   EXIT CODE: 11', 'YOUR APPLICATION TERMINATED WITH THE EXIT "
        "STRING: Segmentation fault (signal 11)'"),
    "long-window-assert": (
        f"native_crash: {W} --config configs/long.json' (2 ranks, window 320); the native helper asserts window <= "
        "256, so both ranks abort (SIGABRT) on the first batch. Short log. evidence: \"python: winops.c:10: "
        "win_gather: Assertion `window > 0 && window <= WIN_MAX' failed.\", '=   EXIT CODE: 6', 'YOUR APPLICATION "
        "TERMINATED WITH THE EXIT STRING: Aborted (signal 6)'"),
    "bad-station-abort": (
        f"worker_exception: {W} --abort-on-error --epochs 4' (2 ranks, mpi Allreduce); the station table has one "
        "value 19 (only 16 stations) in rank 1's shard; the embedding lookup raises IndexError on rank 1, the script "
        "logs it with traceback and calls MPI_Abort. evidence: '2026-12-02 15:05:36,669 ERROR [rank 1/2] forecast: "
        "rank 1: unrecoverable error, aborting the job', 'IndexError: index out of range in self', 'Abort(1) on node "
        "1 (rank 1 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 1'"),
    "bad-station-gloo": (
        f"worker_exception: {W} --grad-sync gloo --master-port 29812 --epochs 4' (2 ranks, gloo); one station id 16 "
        "(out of range) in rank 0's shard; rank 0 raises IndexError in the embedding, rank 1 then fails in gloo "
        "all_reduce with 'Connection closed by peer'; both exit 1 (Hydra prints no box for exit code 1). evidence: "
        "'[rank0]: IndexError: index out of range in self', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/"
        "third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:4231.', "
        "'job exited with 1'"),
    "ckpt-tmpfs-abort": (
        f"disk_full: {W} --hidden-size 96 --abort-on-error' (2 ranks, mpi Allreduce) with checkpoints/ a 400 KiB "
        "tmpfs; the checkpoint at step 50 does not fit (the one at step 25 is still kept), write fails with ENOSPC "
        "on rank 0, which logs it and calls MPI_Abort. evidence: '2026-12-02 15:10:56,263 ERROR [rank 0/2] forecast: "
        "rank 0: unrecoverable error, aborting the job', 'OSError: [Errno 28] No space left on device', 'Abort(1) on "
        "node 0 (rank 0 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 0'"),
    "ckpt-tmpfs-gloo": (
        f"disk_full: {W} --grad-sync gloo --master-port 29824 --hidden-size 128' (2 ranks, gloo) with checkpoints/ a "
        "900 KiB tmpfs; the step-50 checkpoint write fails with ENOSPC on rank 0 (plain exception, no abort), rank 1 "
        "then fails in gloo all_reduce with 'Connection closed by peer'; exit 1. evidence: '[rank0]: OSError: "
        "[Errno 28] No space left on device', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:22427.', 'job exited with 1'"),
    "huge-lr": (
        f"training_divergence: {W} --lr 1e20' (2 ranks, mpi Allreduce); the loss overflows to inf at step 2 and the "
        "script's finite-loss check raises FloatingPointError on both ranks. Short log. evidence: "
        "'FloatingPointError: loss became inf at step 2 (epoch 0)', 'job exited with 1'"),
    "rank-stopped": (
        f"silent_hang: {W} --epochs 12 --log-every 2' (2 ranks, mpi Allreduce); at step 50 the harness sent SIGSTOP "
        "to rank 1; rank 0 spins in the next Allreduce and nothing more is printed; 45 s after the start the "
        "harness ended the job like a scheduler (SIGTERM to mpiexec), Hydra reports signal 15. evidence: "
        "'[1] epoch 1 step 50/516 loss 0.01754 grad_norm 0.231', '=   EXIT CODE: 15', 'YOUR APPLICATION TERMINATED "
        "WITH THE EXIT STRING: Terminated (signal 15)'"),
    "preempt": (
        f"job_preempted: {W} --grad-sync gloo --master-port 29815 --epochs 12 --log-every 2' (2 ranks, gloo); while "
        "training progressed normally (step 72) the harness sent SIGTERM to mpiexec like a scheduler preemption; "
        "Hydra forwards it and reports signal 15. evidence: '2026-12-02 15:08:51,294 INFO [rank 0/2] forecast: step "
        "72/516 mean_loss 0.01495 lr 2.858e-03 10.9s', '=   EXIT CODE: 15', 'YOUR APPLICATION TERMINATED WITH THE "
        "EXIT STRING: Terminated (signal 15)'"),
    "terminal-hup": (
        f"terminal_hangup: {W} --epochs 12 --log-every 2' (2 ranks, mpi Allreduce); at step 56 the harness sent "
        "SIGHUP to mpiexec (terminal closed); mpiexec dies of it and bash reports Hangup, exit 129 (the orphaned "
        "ranks were then killed by the harness's clean-up, silently). evidence: '[1] epoch 1 step 56/516 loss 0.02055 "
        "grad_norm 0.357', 'bash: line 1: 11109 Hangup                  nice -n 5 mpiexec -n 2 python train.py "
        "--epochs 12 --log-every 2', 'job exited with 129'"),
    "batch-3ranks": (
        f"batch_size_mismatch: {W}' with -n 3 and the default global batch 64: the start-up divisibility check "
        "raises ValueError on all 3 ranks. evidence: 'ValueError: global batch size 64 must be divisible by the "
        "world size 3', 'job exited with 1'"),
    "gloo-port-taken": (
        f"port_in_use: {W} --grad-sync gloo --master-port 29820' (2 ranks); a stale http.server from an earlier "
        "session holds 127.0.0.1:29820, so rank 0's TCPStore cannot listen and raises DistNetworkError EADDRINUSE; "
        "the job does not exit by itself (rank 1 waits) and after 45 s the harness ended it like a scheduler "
        "(SIGTERM to mpiexec). evidence: '2026-12-02 15:11:25,028 INFO [rank 0/2] forecast: init_process_group(gloo) "
        "via 127.0.0.1:29820', 'torch.distributed.DistNetworkError: The server socket has failed to listen on any "
        "local network address. port: 29820, useIpv6: false, code: -98, name: EADDRINUSE, message: address already "
        "in use', 'YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)'"),
    "pyenv-python": (
        "library_version_mismatch: the venv's MPICH mpiexec launched 'python3 train.py' with the venv off PATH "
        "(/tmp/venv-bl-a/bin/mpiexec -n 2 python3 train.py), so both ranks ran the pyenv 3.11.7 interpreter that has "
        "no torch installed (the packages live only in the venv); both ranks fail at import. Very short log. "
        "evidence: \"ModuleNotFoundError: No module named 'torch'\", 'job exited with 1'"),
}
