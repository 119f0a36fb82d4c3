"""Manifest notes for wave BE (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch DDP (torch 2.13.0+cpu), 2 processes over gloo on CPU launched with Open MPI 4.1.4 "
     "'mpirun -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=P -x OMP_NUM_THREADS=1 python train.py --data-dir data "
     "--epochs 3 --global-batch 32 --batch-per-rank 16 --step-delay 0.1 --timeout 600' (the script reads "
     "OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK, init_process_group('gloo', env://), DistributedSampler, timestamped "
     "per-rank print lines, torch.save each epoch on rank 0); a climate team's precipitation emulator (small CNN, "
     "5 gridded predictor fields 32x32 -> precipitation)")
MPI_ABORT = "'Primary job  terminated normally, but 1 process returned'"
NOTES = {
    "precip-healthy": (
        f"no_failure: {W}; 3 epochs, mse every 4 steps, validation rmse and a checkpoint per epoch, exit 0. "
        "evidence: '[2026-12-01 20:15:50] [INFO] [rank 0] wrote checkpoints/emulator_ep3.pt', "
        "'[2026-12-01 20:15:50] [INFO] [rank 0] training complete', 'job exited with 0'"),
    "precip-healthy-tagged-resume": (
        f"no_failure: {W}, plus mpirun '--tag-output' and '--resume latest'; after an earlier 2-epoch run (not in "
        "this log) both ranks load checkpoints/emulator_ep2.pt and train epoch 3; every line carries Open MPI's "
        "[jobid,rank]<stdout>: tag (some tags land at line ends, as Open MPI writes them). evidence: "
        "'[1,1]<stdout>:[2026-12-01 20:16:30] [INFO] [rank 1] resuming from checkpoints/emulator_ep2.pt at epoch 2', "
        "'[1,0]<stdout>:[2026-12-01 20:16:35] [INFO] [rank 0] training complete', 'job exited with 0'"),
    "precip-healthy-rerun-done": (
        f"no_failure: {W}, '--resume latest'; rerun of a finished 3-epoch run (not in this log): the latest "
        "checkpoint is at the last epoch, nothing is trained, exit 0. evidence: '[2026-12-01 20:17:32] [INFO] "
        "[rank 0] all 3 epochs already done, nothing to do', '[2026-12-01 20:17:32] [INFO] [rank 0] training "
        "complete', 'job exited with 0'"),
    "precip-healthy-staging-retry": (
        f"no_failure: {W}; the batch script starts the 15 s data staging copy in the background and launches at "
        "once inside a 3-attempt retry loop: attempt 1 fails on both ranks (data not there yet) and Open MPI aborts "
        "it; after 10 s attempt 2 trains 3 epochs, exit 0. evidence: '[rank0]: FileNotFoundError: [Errno 2] No "
        "such file or directory: 'data/train_x.npy'', 'launch attempt 2', '[2026-12-01 20:27:09] [INFO] [rank 0] "
        "training complete', 'job exited with 0'"),
    "precip-healthy-no-norm-stats": (
        f"no_failure: {W}; the data export lacks data/norm_stats.json: both ranks log an ERROR line and compute the "
        "normalisation from the training split, then train 3 epochs, exit 0. evidence: '[2026-12-01 20:18:14] "
        "[ERROR] [rank 1] could not read normalisation stats ([Errno 2] No such file or directory: "
        "'data/norm_stats.json'); computing them from the training split', '[2026-12-01 20:18:30] [INFO] [rank 0] "
        "training complete', 'job exited with 0'"),
    "precip-wide-oom": (
        f"host_oom_killed: {W}, '--width 1024' (a 64x wider CNN) inside a 1 GB cgroup-v1 memory limit; the kernel "
        "OOM killer kills rank 1 in the first step (no loss line), Open MPI aborts the job and reports signal 9. "
        f"evidence: {MPI_ABORT}, 'mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 "
        "(Killed).', 'job exited with 137'"),
    "precip-rank-killed": (
        f"host_oom_killed: {W}, 4 epochs; in epoch 2 the rank-1 process is SIGKILLed from outside (no OOM, the "
        "way an OOM kill looks); rank 0's gloo all-reduce in backward sees the connection close, mpirun reports "
        "signal 9. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "pair.cc:553] Connection closed by peer [127.0.0.1]:16042. This is typically caused by a remote worker "
        "crashing. Check the logs of the remote worker before reporting an error. GLHF!', 'mpirun noticed that "
        "process rank 1 with PID 0 on node vm exited on signal 9 (Killed).', 'job exited with 137'"),
    "precip-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs: epoch 1's checkpoint fits, epoch 2's torch.save on rank 0 "
        "runs out of space (the zip writer reports it as an iostream error / unexpected pos, no errno); rank 1 "
        "sees the connection close; mpirun names rank 0's exit code 1. evidence: '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 61440 vs 61328', '  Process name: [[11461,1],0]', 'job exited with 1'"),
    "precip-loader-shm": (
        f"shm_exhausted: {W}, '--workers 2', run under 'unshare -m' with /dev/shm a 64 KiB tmpfs: both ranks' "
        "DataLoader fails creating its worker semaphore in /dev/shm. evidence: '[rank0]:     sl = self._semlock = "
        "_multiprocessing.SemLock(', '[rank0]: OSError: [Errno 28] No space left on device', '[rank1]: OSError: "
        "[Errno 28] No space left on device', 'job exited with 1'"),
    "precip-rank-stopped": (
        f"collective_timeout: {W}, 4 epochs, '--timeout 20' (process-group timeout); in epoch 2 the rank-1 process "
        "is SIGSTOPped; rank 0's gloo collective times out after 20 s and exits; rank 1 then sees the connection "
        "close. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', '  Process name: "
        "[[11642,1],0]', 'job exited with 1'"),
    "precip-preempted": (
        f"job_preempted: {W}, 4 epochs; in epoch 2 SIGTERM is sent to the mpirun process (what a scheduler's "
        "preemption or scancel does to the launcher); mpirun forwards it to both ranks, whose SIGTERM handler "
        "(emulator.install_signal_logging) logs it and exits; Open MPI prints nothing of its own. evidence: "
        "'[2026-12-01 20:28:59] [WARNING] [rank 1] received SIGTERM, exiting', '[2026-12-01 20:28:59] [WARNING] "
        "[rank 0] received SIGTERM, exiting', 'job exited with 1'"),
    "precip-terminal-closed": (
        f"terminal_hangup: {W}, 4 epochs; in epoch 2 SIGHUP is sent to the mpirun process (the ssh session that "
        "started it closing); Open MPI's mpirun turns it into SIGTERM to both ranks, so the ranks' handler logs "
        "SIGTERM, not SIGHUP; nothing in the log names the hangup. evidence: '[2026-12-01 20:29:16] [WARNING] "
        "[rank 1] received SIGTERM, exiting', '[2026-12-01 20:29:16] [WARNING] [rank 0] received SIGTERM, exiting', "
        "'job exited with 1'"),
    "precip-mpirun-time-limit": (
        f"job_preempted: {W}, 8 epochs, with mpirun's own '--timeout 20' job time limit: after 20 s mpirun aborts "
        "the job (the time limit, not a code error). evidence: 'The user-provided time limit for job execution has "
        "been reached:', '  Timeout: 20 seconds', 'job exited with 110'"),
    "precip-fill-values": (
        f"training_divergence: {W}; the data prep left 8 training samples with NaN fill values in the q700 field: "
        "the first step's loss is nan, the script's check raises on rank 0. evidence: '[2026-12-01 20:21:29] [INFO] "
        "[rank 0] epoch 1/3 step 1/24 mse nan', '[rank0]: RuntimeError: loss is NaN at epoch 1 step 1', "
        "'job exited with 1'"),
    "precip-missing-z500": (
        f"worker_exception: {W}; the predictor export lacks z500 (one variable left out): both ranks raise KeyError "
        "building the dataset. evidence: '[rank0]: KeyError: \"predictor 'z500' not in export (has ['t850', "
        "'q700', 'u850', 'v850'])\"', 'job exited with 1'"),
    "precip-lr-typo": (
        f"worker_exception: {W}, '--lr 2e-3,' (a trailing comma): argparse rejects it on both ranks, exit code 2. "
        "evidence: \"train.py: error: argument --lr: invalid float value: '2e-3,'\", '  Exit code:    2', "
        "'job exited with 2'"),
    "precip-batch-4-ranks": (
        f"batch_size_mismatch: {W}, '--global-batch 64' (the value from a 4-rank config) with --batch-per-rank 16 on "
        "2 ranks: the script's check raises on both ranks. evidence: '[rank0]: ValueError: global batch 64 is not "
        "batch_per_rank 16 x world size 2', 'job exited with 1'"),
    "precip-regrid-xesmf": (
        f"library_version_mismatch: {W}, '--regrid conservative' imports xesmf, not installed in the environment "
        "(the taxonomy has no import_error id; the corpus labels a missing module so). evidence: '[rank0]: "
        "ModuleNotFoundError: No module named 'xesmf'', 'job exited with 1'"),
    "precip-export-rewritten": (
        f"native_crash: {W}, 4 epochs; in epoch 2 another job rewrites data/train_x.npy in place (truncated) while "
        "the ranks have it memory-mapped: rank 1 dies with SIGBUS, no Python traceback. evidence: 'mpirun noticed "
        "that process rank 1 with PID 0 on node vm exited on signal 7 (Bus error).', 'job exited with 135'"),
    "precip-skill-map-rank0": (
        f"collective_mismatch: {W}, '--skill-map --timeout 30': the skill-map dist.all_gather runs inside the "
        "rank-0-only block while rank 1 is already in dist.barrier(); rank 1's barrier times out after 30 s, rank "
        "0's all_gather then sees the connection close. No line names a mismatch; the two tracebacks show the two "
        "different collectives. evidence: '[rank0]:     dist.all_gather(gathered, cell)', '[rank1]:     "
        "dist.barrier()', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', 'job exited with 1'"),
    "precip-port-held": (
        f"port_in_use: {W}; 'python -m http.server 29730' left running on the MASTER_PORT: rank 0's TCPStore "
        "cannot listen. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on "
        "any local network address. port: 29730, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
        "already in use', 'job exited with 1'"),
    "precip-stopped-quiet": (
        f"silent_hang: {W}, 4 epochs (process-group timeout 600 s); in epoch 2 the rank-1 process is SIGSTOPped: "
        "rank 0 waits in its collective, nothing more is printed; the harness ended the job after 60 s (no 'job "
        "exited' line). evidence: '[2026-12-01 20:24:12] [INFO] [rank 0] epoch 2/4 step 4/24 mse 0.62101' (last "
        "line)"),
}
