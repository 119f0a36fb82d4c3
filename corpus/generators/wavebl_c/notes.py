"""Manifest notes for wave BL (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PaddlePaddle 3.3.1 (pip wheel paddlepaddle, CPU), Python 3.11.7, gloo collectives: data-parallel training of a "
     "small click/conversion model (6 hashed categorical slots through a ctypes helper libfhash.so + 8 dense "
     "features -> embedding + MLP 64-32 -> 3 classes) with paddle.DataParallel, paddle.io.DataLoader + "
     "DistributedBatchSampler, Adam; the loss is averaged with dist.all_reduce each step, rank 0 logs and paddle.saves "
     ".pdparams/.pdopt checkpoints every 20 steps; launched with 'nice -n 5 python -m paddle.distributed.launch "
     "--nproc_per_node N --master 127.0.0.1:PORT train.py")
C = (" The console holds the launcher's LAUNCH lines and local rank 0's output only (other ranks write to "
     "log/workerlog.N); on a failure the launcher prints the failed container's log under 'ERROR LOG DETAIL'.")
NOTES = {
    "healthy-metrics-down": (
        f"no_failure: {W} --metrics-url http://127.0.0.1:29910/v1/push' (2 ranks, 3 epochs); nothing listens on the "
        "metrics port, so every 20 steps rank 0 logs an ERROR with a full ConnectionRefusedError/URLError traceback "
        "(log.exception) and carries on; training finishes, exit 0." + C + " evidence: '[2026-12-02 15:00:57,162] "
        "[   ERROR] train.py:158 - metrics push to http://127.0.0.1:29910/v1/push failed; will retry at the next "
        "interval', 'urllib.error.URLError: <urlopen error [Errno 111] Connection refused>', 'job exited with 0'"),
    "healthy-resume": (
        f"no_failure: {W} --resume --epochs 5' (2 ranks); an earlier unlogged 2-epoch run in the same job dir left "
        "checkpoints/step_000084.*; both ranks load it and training continues from epoch 2 to the end; exit 0." + C
        + " evidence: '[2026-12-02 15:02:39,293] [    INFO] train.py:124 - resumed from "
        "checkpoints/step_000084.pdparams (step 84, epoch 1)', '[2026-12-02 15:02:42,331] [    INFO] train.py:197 - "
        "training finished: 126 steps in 3.0s', 'job exited with 0'"),
    "healthy-3ranks-workers": (
        f"no_failure: {W} --global-batch-size 96 --num-workers 2' with --nproc_per_node 3 (micro batch 32, two "
        "DataLoader worker processes per rank); 84 steps, exit 0." + C + " evidence: '[2026-12-02 15:05:15,388] "
        "[    INFO] train.py:48 - paddle 3.3.1, world size 3, device cpu', '[2026-12-02 15:05:19,752] [    INFO] "
        "train.py:197 - training finished: 84 steps in 4.2s', 'LAUNCH INFO 2026-12-02 15:05:22,060 Exit code 0'"),
    "rank-sigkill": (
        f"host_oom_killed: {W} --epochs 20 --log-every 10' (2 ranks); when rank 0 printed step 300 the harness sent "
        "SIGKILL to rank 1 (PADDLE_TRAINER_ID 1) from outside, as the kernel OOM killer would; rank 0's next "
        "all_reduce fails with gloo 'Connection reset by peer', the launcher reports rank 1 'code -9' and stops the "
        "pod." + C + " evidence: 'RuntimeError: [/paddle/third_party/gloo/gloo/transport/tcp/pair.cc:576] Read error "
        "[127.0.0.1]:4492: Connection reset by peer', \"Container rank 1 status failed cmd ['/tmp/venv-bl-c/bin/"
        "python', '-u', 'train.py', '--epochs', '20', '--log-every', '10'] code -9 log log/workerlog.1\""),
    "cgroup-oom": (
        f"host_oom_killed: {W} --hidden 6144 6144 6144' (76.49M parameters, 2 ranks) inside a 1.5 GB cgroup-v1 memory "
        "limit; in the first backward the kernel's cgroup OOM killer SIGKILLs rank 1 (code -9); rank 0's gradient "
        "all-reduce then throws gloo::TimeoutException and aborts (SIGABRT), which is a symptom." + C + " evidence: "
        "'W1202 15:03:48.175122  7689 backward.cc:697] While running Node (GradNodeAccumulation) raises a "
        "std::exception: gloo::TimeoutException', \"Container rank 1 status failed cmd ['/tmp/venv-bl-c/bin/python', "
        "'-u', 'train.py', '--hidden', '6144', '6144', '6144'] code -9 log log/workerlog.1\""),
    "hash-offset-segv": (
        f"native_crash: {W} --epochs 3' (2 ranks); prep_data.py wrote one corrupt offset (2^43) into the index of "
        "data row 1701, so the ctypes helper fh_hash reads far outside the blob when rank 0's sampler reaches that row: "
        "SIGSEGV, caught by Paddle's fatal-signal handler (C++ traceback frame fh_hash); the launcher reports code "
        "-11." + C + " evidence: '0   fh_hash', 'FatalError: `Segmentation fault` is detected by the operating "
        "system.', \"Container rank 0 status failed cmd ['/tmp/venv-bl-c/bin/python', '-u', 'train.py', '--epochs', "
        "'3'] code -11 log log/workerlog.0\""),
    "large-vocab-assert": (
        f"native_crash: {W} --config configs/large_vocab.json' (4,000,000 hash buckets, 2 ranks); the C helper's "
        "assert(buckets <= FH_MAX_BUCKETS) (2^20) fails on the first batch: SIGABRT, Paddle's handler prints it, the "
        "launcher reports code -6." + C + " evidence: \"python: fhash.c:21: fh_hash: Assertion `buckets > 0 && buckets "
        "<= FH_MAX_BUCKETS' failed.\", 'FatalError: `Process abort signal` is detected by the operating system.', "
        "'LAUNCH INFO 2026-12-02 15:01:21,185 Exit code -6'"),
    "bad-label": (
        f"worker_exception: {W} --epochs 3' (2 ranks); prep_data.py wrote label 7 for row 2001 of a 3-class label "
        "file; when rank 0's batch contains it, F.cross_entropy raises Paddle's IndexError (OutOfRange) in the "
        "training loop; the launcher stops the pod, exit 1." + C + " evidence: '    loss = F.cross_entropy(logits, "
        "label)', 'IndexError: (OutOfRange) label value should less than the shape of axis dimension when label "
        "value(7) not equal to ignore_index(-100), But received label value as 7 and shape of axis dimension is 3', "
        "'LAUNCH INFO 2026-12-02 15:01:28,321 Exit code 1'"),
    "ckpt-tmpfs": (
        f"disk_full: {W} --epochs 3' (2 ranks) with checkpoints/ a 3000 KiB tmpfs; the first checkpoint (step 20: "
        "1.3 MB .pdparams + 2.6 MB .pdopt) does not fit and paddle.save of the optimizer state fails with ENOSPC on "
        "rank 0; exit 1." + C + " evidence: '    paddle.save(opt.state_dict(), base + \".pdopt\")', 'OSError: "
        "[Errno 28] No space left on device', 'LAUNCH INFO 2026-12-02 15:04:13,945 Exit code 1'"),
    "huge-lr-nancheck": (
        f"training_divergence: {W} --lr 1e20' (2 ranks) with FLAGS_check_nan_inf=1 in the environment; after the "
        "first Adam step the weights are ~1e20 and Paddle's NaN/Inf checker stops the forward on rank 0 at a matmul; "
        "exit 1." + C + " evidence: '[PRECISION] [ERROR] in [device=cpu, op=matmul, tensor=, dtype=fp32], "
        "numel=2048, num_nan=1856, num_inf=0, num_zero=0, max=6.991845e+20, min=-7.129805e+20, mean=-nan', "
        "'RuntimeError: (PreconditionNotMet) There are NAN or INF (num_nan=1856, num_inf=0, num_zero=0) in "
        "[device=cpu, op=matmul, tensor=, dtype=fp32]. (at /paddle/paddle/phi/kernels/funcs/check_numerics_utils.h:89)'"),
    "rank-stopped": (
        f"collective_timeout: {W} --epochs 40 --log-every 10' (2 ranks); at step 200 the harness sent SIGSTOP to "
        "rank 1 (meant as a silent hang, with a scheduler kill at 60 s), but gloo's own ~30 s timeout fired first: "
        "rank 0's loss all_reduce raises a gloo TIMEOUT RuntimeError and the launcher stops the pod, exit 1, before "
        "the scheduler step. A timeout in a named collective, so collective_timeout rather than silent_hang." + C
        + " evidence: '    dist.all_reduce(g)', 'RuntimeError: [/paddle/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:80] TIMEOUT self_rank = none pair_rank = -1 peer_str = none', 'job exited with 1'"),
    "preempt": (
        f"job_preempted: {W} --epochs 40 --log-every 10' (2 ranks), training normally; at step 300 the harness sent "
        "SIGTERM to the launcher as a scheduler would (SIGKILL planned 15 s later, not needed); the launcher "
        "terminates the pod and exits with signal 15." + C + " evidence: 'LAUNCH INFO 2026-12-02 15:06:34,869 "
        "Terminating with signal 15', 'LAUNCH INFO 2026-12-02 15:06:35,471 Exit with signal 15', 'job exited with 15'"),
    "terminal-hup": (
        f"terminal_hangup: {W} --epochs 40 --log-every 10' (2 ranks), training normally; at step 250 the harness sent "
        "SIGHUP to the launcher (a closed terminal); the launcher has no SIGHUP handler and dies at once, bash "
        "reports Hangup, exit 129." + C + " evidence: '[2026-12-02 15:06:52,873] [    INFO] train.py:194 - epoch 5 "
        "done: val_acc 0.8047 (384 rows)', 'bash: line 1:  9735 Hangup                  nice -n 5 python -m "
        "paddle.distributed.launch --nproc_per_node 2 --master 127.0.0.1:29915 train.py --epochs 40 --log-every 10', "
        "'job exited with 129'"),
    "batch-3ranks": (
        f"batch_size_mismatch: {W}' with --nproc_per_node 3 and the default global batch 64; train.py's start-up "
        "check raises ValueError (64 % 3 != 0) on every rank; exit 1." + C + " evidence: 'ValueError: "
        "global_batch_size 64 is not divisible by world size 3', \"Container rank 0 status failed cmd "
        "['/tmp/venv-bl-c/bin/python', '-u', 'train.py'] code 1 log log/workerlog.0\""),
    "second-node-missing": (
        "rendezvous_timeout: PaddlePaddle 3.3.1 CPU, 'nice -n 5 python -m paddle.distributed.launch --nnodes 2 "
        "--nproc_per_node 2 --master 127.0.0.1:29925 train.py' started on one node only (the second node's launch "
        "never happens); the launcher starts its HTTP KV master and polls it for the peer ('Waiting peer start...', "
        "an httpx request line every ~0.3 s) for 90 s without any timeout of its own; the harness then ends it like "
        "a scheduler (SIGTERM): 'Terminating with signal 15', then an AssertionError 'No container in the pod' "
        "from the launcher's interrupted deploy. No training process ever started. evidence: 'LAUNCH INFO "
        "2026-12-02 15:06:58,224 Waiting peer start...', '[2026-12-02 15:08:24,353] [    INFO] _client.py:1025 - "
        "HTTP Request: GET http://127.0.0.1:29925/default/info \"HTTP/1.0 200 OK\"', 'AssertionError: No container "
        "in the pod'"),
    "auto-classes-mismatch": (
        f"collective_mismatch: {W} --config configs/auto.json' (num_classes 'auto': inferred from the local shard's "
        "labels); prep_data.py wrote label 3 for one row (2999) of rank 1's shard (rows rank::world), so rank 1 "
        "builds a 4-class head while rank 0 logs 3 (rank 1's own lines are only in log/workerlog.1); the fused gradient all-reduce buffers differ in size and gloo's pair "
        "enforce fails on rank 0 (SIGABRT, code -6)." + C + " evidence: '[2026-12-02 15:08:36,933] [    INFO] "
        "train.py:90 - num_classes inferred from the local shard: 3', \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", '  what():  [enforce fail at /paddle/third_party/gloo/gloo/transport/tcp/"
        "pair.cc:495] op.preamble.length <= op.nbytes. 8932 vs 8900'"),
    "healthy-nan-check-on": (
        f"no_failure: {W} --epochs 4' (2 ranks) with FLAGS_check_nan_inf=1 in the environment (Paddle prints it in "
        "its 'Modified FLAGS detected' banner and checks every op's output); nothing is NaN, the run is just slower; "
        "168 steps, exit 0." + C + " evidence: \"FLAGS(name='FLAGS_check_nan_inf', current_value=True, "
        "default_value=False)\", '[2026-12-02 15:09:45,058] [    INFO] train.py:197 - training finished: 168 steps "
        "in 17.3s', 'LAUNCH INFO 2026-12-02 15:09:46,637 Exit code 0'"),
    "loader-workers-small-shm": (
        f"shm_exhausted: {W} --global-batch-size 96 --num-workers 2' with --nproc_per_node 3, run inside "
        "'unshare -m' with /dev/shm mounted as a 256 KiB tmpfs; the DataLoader workers pass batches through shared "
        "memory, a worker dies of SIGBUS and rank 0's loader raises SystemError naming insufficient shared memory; "
        "exit 1. Some Paddle messages in this log begin with a NUL byte (Paddle's own output, left as is)." + C
        + " evidence: 'ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by "
        "insufficient shared memory (shm), please check whether use_shared_memory is set and storage space in "
        "/dev/shm is enough', 'It may be caused by insufficient shared storage space. This problem usually occurs "
        "when using docker as a development environment.', 'Bus error (at "
        "/paddle/paddle/fluid/imperative/data_loader.cc:166)'"),
    "rank-stopped-sched-kill": (
        f"silent_hang: {W} --epochs 40 --log-every 10' (2 ranks); at step 200 the harness sent SIGSTOP to rank 1; "
        "rank 0 runs a few buffered steps to 240 and then blocks in an all_reduce with no message; 30 s after the "
        "start (about 14 s of silence, before gloo's own ~30 s timeout) the harness ends the job like a scheduler: "
        "SIGTERM to the launcher, which prints 'Terminating with signal 15' but cannot finish stopping the stopped "
        "rank; SIGKILL to the whole job 15 s later, so there is no 'job exited' line." + C + " evidence: "
        "'[2026-12-02 15:10:21,477] [    INFO] train.py:180 - epoch 5 step 240/1680 loss 0.0532 lr 2.00e-03 2911.0 "
        "samples/s', 'LAUNCH INFO 2026-12-02 15:10:35,843 Terminating with signal 15'"),
    "start-port-taken": (
        "port_in_use: PaddlePaddle 3.3.1 CPU, 'nice -n 5 python -m paddle.distributed.launch --ips 127.0.0.1 "
        "--start_port 29930 --nproc_per_node 2 train.py' (endpoints from --start_port, so rank 0's TCPStore master "
        "uses 127.0.0.1:29930) while another process (a python http.server started before the job) already listens "
        "on 29930; rank 0 fails to create its libuv TCP server there and Paddle's libuv teardown then hits an "
        "assertion (SIGABRT, code -6; C++ frames TCPServer::create -> ~LibUVMasterDaemon -> uv_run); the log never "
        "says 'Address already in use'. Root cause: the taken port." + C + " evidence: 'I1202 15:11:04.190910 12736 "
        "tcp_store.cc:336] create libuv server at port: 29930', \"python: /paddle/third_party/libuv/src/unix/core.c:314: "
        "uv__finish_close: Assertion `handle->flags & UV_HANDLE_CLOSING' failed.\", \"Container rank 0 status failed "
        "cmd ['/tmp/venv-bl-c/bin/python', '-u', 'train.py'] code -6 log log/workerlog.0\""),
}
