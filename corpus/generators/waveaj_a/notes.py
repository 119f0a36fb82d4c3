"""What each committed wave AJ (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "har.py (human-activity recogniser: patch-embedding + 2-layer transformer encoder over 128-sample windows of " \
    "synthetic tri-axial accelerometer + gyroscope recordings, 6 activities, subject-specific gait and sensor " \
    "placement; class-weighted cross entropy, per-class F1 from an all-reduced confusion matrix; rank-0 checkpoints; gloo)"
NOTES = {
    # --- torchrun
    "torchrun-har-healthy-confusion-plot":
        f"torchrun, 2 ranks, {W}, --plot-confusion on a venv without matplotlib: after the first checkpoint rank 0 "
        "prints the ImportError traceback, falls back to CSV confusion matrices and trains to the end. evidence: "
        "'Traceback (most recent call last):', \"ModuleNotFoundError: No module named 'matplotlib'\", 'confusion plot "
        "unavailable, writing the confusion matrix as CSV instead', 'done: 6 epochs, best macro-F1 0.9448', 'job exited "
        "with 0'",
    "torchrun-har-seated-cohort-balanced-sampling":
        f"torchrun, 2 ranks, {W}, --balance local: class-balanced sampling weights computed in Python from each rank's "
        "own class counts; rank 1's subjects are a cohort recorded in wheelchairs (only sitting, standing, lying), so "
        "the weight of 'walking' divides by zero on rank 1 before training; torchrun stops rank 0. evidence: 'rank 1: "
        "subjects [...], 1115 windows ..., class counts [0, 0, 0, 327, 419, 369]', '[rank1]: ZeroDivisionError: "
        "division by zero' at 'cls_weight = {c: n / (n_cls * per_class[c]) for c in range(n_cls)}', torchrun Root "
        "Cause 'rank : 1 (local_rank: 1) exitcode : 1', 'job exited with 1'",
    "torchrun-har-upload-sidecar":
        f"torchrun, 2 ranks, {W}, --upload-lock: rank 0 waits for the checkpoint uploader sidecar's ckpt/.upload.lock "
        "to disappear before writing a checkpoint; the previous job's uploader was SIGKILLed while copying (a node "
        "restart) and left the lock behind. After epoch 0's eval rank 0 polls forever, rank 1 waits in DDP's "
        "all-reduce under the default 30-minute timeout; no output for 70 s, then the user presses Ctrl-C. evidence: "
        "last progress lines 'eval epoch 0: ...' / 'per-class F1: ...' with no 'saved' line, then 70 s later 'Received "
        "2 death signal, shutting down workers', rank 0 '[rank0]: KeyboardInterrupt' in save() at 'time.sleep(1)', "
        "rank 1 in backward ('Connection closed by peer'), 'SignalException: Process ... got signal: 2', 'job exited "
        "with 1'",
    "torchrun-har-spectrogram-features":
        f"torchrun, 2 ranks, {W}, --features spectrogram imports torchaudio, found through PYTHONPATH in a shared "
        "site directory holding torchaudio 2.1.2 (the PyPI build for CUDA torch 2.1.2) under torch 2.13.0+cpu; loading "
        "libtorchaudio.so fails on both ranks at import. evidence: 'OSError: libtorch_cuda.so: cannot open shared "
        "object file: No such file or directory', 'OSError: Could not load this library: "
        ".../site-packages/torchaudio/lib/libtorchaudio.so', torchrun 'exitcode : 1' for both ranks, 'job exited with 1'",
    "torchrun-har-shared-memory-cache":
        f"torchrun, 2 ranks, {W}, --shm-cache --stride 16 in a container whose /dev/shm is a 16 MB tmpfs: each rank "
        "copies its windowed training set (13.3 and 13.5 MiB) into a multiprocessing.shared_memory block; the blocks "
        "are created sparse, and filling them exhausts /dev/shm, so both ranks die with SIGBUS while writing. evidence: "
        "'rank 1: caching 4593 windows (13.5 MiB) in shared memory /dev/shm/har-win-1', 'Fatal Python error: Bus "
        "error' (faulthandler, har.py line 182 'buf[:] = X'), 'resource_tracker: There appear to be 1 leaked "
        "shared_memory objects', torchrun 'exitcode : -7 ... (SIGBUS)' for both ranks, 'job exited with 1'",
    # --- Open MPI
    "mpirun-har-healthy-loader-workers":
        f"mpirun -np 2, {W}, --workers 3 on a 2-CPU host: PyTorch's DataLoader warns on both ranks "
        "that 3 workers exceed the suggested maximum; training finishes normally. evidence: 'UserWarning: This "
        "DataLoader will create 3 worker processes in total. Our suggested max number of worker in current system is "
        "2', 'done: 6 epochs', 'job exited with 0'",
    "mpirun-har-3-ranks-sensor-dropouts":
        f"mpirun -np 3, {W}, 9 training subjects, two of them with bluetooth dropouts (windows with missing samples "
        "dropped): the ranks end up with 862, 814 and 823 windows, i.e. 26, 25 and 25 batches per epoch (drop_last, "
        "no Join); ranks 1 and 2 finish the epoch and enter the evaluation all_reduce while rank 0 is still in DDP's "
        "gradient all-reduce, and gloo's size check aborts. evidence: 'rank 1: WARNING subj-04.npz: dropping 15 of 275 "
        "windows with missing samples (sensor dropouts)', 'rank 0: subjects [...], 862 windows', 'rank 1: ... 814 "
        "windows', 'rank 2: ... 823 windows', \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", "
        "\"op.preamble.length <= op.nbytes. 27620 vs 48. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?\", 'mpirun noticed that process rank 2 ... exited on signal 6 "
        "(Aborted)', 'job exited with 134'",
    "mpirun-har-per-subject-norm":
        f"mpirun -np 2, {W}, --norm subject (per-subject channel z-score without epsilon); subject 2's gyroscope "
        "never powered up (all-zero channels), so its standard deviation is 0, the gyro channels become NaN, the loss "
        "is NaN from the first steps and rank 0's non-finite check stops the job. evidence: 'RuntimeWarning: invalid "
        "value encountered in divide' at 'sig = (sig - mu) / sd', 'epoch 0 step 10 loss nan acc 0.188 grad-norm nan', "
        "'rank 0: loss not finite for 10 steps (last nan), stopping', mpirun 'Exit code: 3', 'job exited with 3'",
    "mpirun-har-native-resampler":
        f"mpirun -np 2, {W}, --resample native: a C linear resampler (resample.c via ctypes) allocates its output "
        "with the input's length ('the output never has more samples than the input'); subject 3 was recorded by an "
        "older 25 Hz wristband, upsampling to 50 Hz writes twice the buffer and corrupts the heap; glibc aborts rank "
        "1. evidence: 'malloc(): invalid size (unsorted)', 'Fatal Python error: Aborted' with the stack in "
        "har.py resample(), rank 0 'Connection reset by peer', 'mpirun noticed that process rank 1 with PID 0 on node "
        "vm exited on signal 6 (Aborted).', 'job exited with 134'",
    "mpirun-har-rank1-debugger":
        f"mpirun -np 2, {W}, --pg-timeout 30: in epoch 1 someone attaches gdb to rank 1 (gdb -p, left at its prompt), "
        "which stops the process; rank 0 waits in the next collective and gloo times out after 30 s. evidence: last "
        "progress 'saved ckpt/last.pt, ckpt/best.pt (epoch 0, ...)', '[rank0]: RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', "
        "mpirun 'Exit code: 1', 'job exited with 1'",
    # --- DeepSpeed
    "deepspeed-har-healthy":
        f"deepspeed launcher, 2 ranks on the CPU accelerator, {W}, ds_config.json (AdamW, ZeRO 0): accelerator and "
        "hostfile warnings, training finishes normally. evidence: 'Setting accelerator to CPU. If you have GPU or "
        "other accelerator, we were unable to detect it.', 'Unable to find hostfile, will proceed with training with "
        "local resources only.', 'done: 6 epochs, best macro-F1 0.9448', 'Process ... exits successfully.', 'job "
        "exited with 0'",
    "deepspeed-har-csv-monitor":
        f"deepspeed launcher, 2 ranks, {W}, ds_monitor.json enables DeepSpeed's csv_monitor (output_path monitor/), a "
        "1 MB volume already holding the archive of previous runs; rank 0's learning-rate CSV grows past its first "
        "page in epoch 9 and DeepSpeed's monitor write fails. evidence: 'eval epoch 8: ...', '[rank0]: OSError: "
        "[Errno 28] No space left on device' (twice: the write and the file close in csv_monitor.write_events), rank 1 "
        "'Connection closed by peer', 'job exited with 1'",
    "deepspeed-har-maintenance-drain":
        f"deepspeed launcher, 2 ranks, {W}, 40 epochs: during epoch 4 the node's maintenance drain sends SIGTERM to "
        "the node launcher (deepspeed.launcher.launch); it terminates its ranks one by one, rank 0's handler writes "
        "a checkpoint, rank 1 loses its peer, the launcher exits. evidence: '[launch.py:253:sigkill_handler] Killing "
        "subprocess ...', 'rank 0: received SIGTERM, will checkpoint and exit after this step', 'saved ckpt/last.pt "
        "(epoch 4, macro-F1 nan)', 'rank 0: exiting on SIGTERM at epoch 4 step 171', rank 1 'Connection closed by peer', '[launch.py:262:sigkill_handler] Main process "
        "received SIGTERM, exiting', 'job exited with 1'",
    "deepspeed-har-grad-accumulation":
        f"deepspeed launcher, 2 ranks, {W}, ds_accum.json: gradient_accumulation_steps raised to 4 for a larger "
        "effective batch while train_batch_size stayed 64 with micro batch 32; DeepSpeed's config check fails on both "
        "ranks. evidence: '[rank0]: AssertionError: Check batch related parameters. train_batch_size is not equal to "
        "micro_batch_per_gpu * gradient_acc_step * world_size 64 != 32 * 4 * 2', 'sigkill_handler] [...] exits with "
        "return code = 1', 'job exited with 1'",
    # --- accelerate
    "accelerate-har-healthy-resume":
        f"accelerate launch, 2 ranks, {W}, --resume ckpt/last.pt: continues a 2-epoch run (same job dir) from epoch "
        "2 to 6 and finishes normally. evidence: 'rank 0: resumed from ckpt/last.pt (epoch 1, macro-F1 0.8606)', "
        "'done: 6 epochs, best macro-F1 0.9448', 'job exited with 0'",
    "accelerate-har-firmware-v2-site":
        f"accelerate launch, 2 ranks, {W}, --norm subject: rank 1's subjects come from a site whose devices run newer "
        "firmware exporting 9 channels (magnetometer appended); the model is built for the 6 channels of meta.json, "
        "so rank 1's first forward fails in the patch-embedding Conv1d. evidence: '[rank1]: RuntimeError: Given "
        "groups=1, weight of size [48, 6, 8], expected input[32, 9, 128] to have 6 channels, but got 9 channels "
        "instead', rank 0 'Connection closed by peer', Root Cause 'rank : 1 (local_rank: 1) exitcode : 1', 'job "
        "exited with 1'",
    "accelerate-har-window-stride":
        f"accelerate launch, 2 ranks, {W}, --stride 1 (windows started at every sample instead of every 64): each "
        "rank materialises ~72k overlapping 6x128 windows plus their concatenation inside a 1 GB memory cgroup; the "
        "kernel OOM killer kills rank 0 and accelerate's elastic agent stops rank 1. evidence: args \"'stride': 1\", "
        "'failed (exitcode: -9) local_rank: 0', Root Cause 'exitcode : -9 (pid: ...) (SIGKILL)', 'traceback : Signal 9 "
        "(SIGKILL) received by PID ...', 'job exited with 1'",
}
