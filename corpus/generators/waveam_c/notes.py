"""What each committed wave AM (c) run showed: the manifest rows' notes (what ran, how the cause was made real, and
`evidence:` lines quoted from the run's job.log)."""

NOTES = {
    "gloo-kws-healthy-fp16-3-workers": (
        "horovodrun --gloo -np 3 -H localhost:3, keyword spotting (log-mel + depthwise-separable CNN) with "
        "--fp16-allreduce (hvd.Compression.fp16 gradients), 5 epochs, rank 0 saves ckpt/last.pt and best.pt; healthy. "
        "evidence: `[0]<stdout>:horovod 0.28.1 torch 2.13.0+cpu size 3 (gloo True mpi True, controller gloo)`; "
        "`[0]<stdout>:done: 5 epochs, best val_acc`; `job exited with 0`"),
    "gloo-kws-new-recorder-export": (
        "horovodrun --gloo -np 2; a new recording app's export added 6 training clips per word as IEEE-float WAVs "
        "(format tag 3); Python's wave module cannot open them and both ranks fail while loading their shards. "
        "evidence: `[0]<stderr>:wave.Error: unknown format: 3`; `[1]<stderr>:wave.Error: unknown format: 3`; "
        "`RuntimeError: Horovod detected that one or more processes exited with non-zero status`"),
    "gloo-kws-16k-export": (
        "horovodrun --gloo -np 2 with --resample-lib ./libresample.so (resample.c via ctypes); a 16 kHz export of "
        "1.5 s clips: the loader allocates one second (8000 floats) of output and the C resampler writes 12000, "
        "corrupting the heap; glibc aborts on both ranks. "
        "evidence: `[1]<stderr>:malloc(): invalid size (unsorted)`; `[1]<stderr>:Fatal Python error: Aborted`; "
        "`Process 1 exit with status code 134.`"),
    "gloo-kws-feature-cache": (
        "horovodrun --gloo -np 2 with --feature-cache on a 10 MB scratch volume already holding 2.5 MB of earlier "
        "runs; each rank writes ~7.8 MB of cached log-mel features and the second write fails with ENOSPC; the other "
        "rank then sees Horovod shut down. "
        "evidence: `[0]<stderr>:OSError: [Errno 28] No space left on device`; `Process 0 exit with status code 1.`"),
    "gloo-kws-balanced-batches": (
        "horovodrun --gloo --prefix-output-with-timestamp -np 2 with --balanced --labels data/labels.json; the "
        "vocabulary already lists 'marvin' but no marvin clips exist, so the class-balanced sampler refills the empty "
        "pool forever on both ranks right after the parameter broadcast (no Horovod op pending, no stall warning); "
        "after 60 s without output the user presses Ctrl-C and horovodrun terminates the workers (SIGTERM, then "
        "SIGKILL). evidence: `Sun Nov 29 20:00:30 2026[0]<stdout>:model DSCNN 10041 parameters, 9 classes, lr 0.05`; "
        "`Sun Nov 29 20:01:30 2026[0]<stdout>:[rank 0] caught SIGTERM, will stop after this step`; "
        "`Process 1 exit with status code 137.`"),
    "gloo-kws-muted-mic-clips": (
        "horovodrun --gloo -np 2 with --peak-norm; a new export has 2 muted-microphone (all-zero) clips per word; "
        "dividing by a zero peak gives NaN waveforms, the loss is nan from the first logged step and the NaN gradients "
        "reach every rank through the allreduce; the run goes on to the end at chance accuracy. "
        "evidence: `RuntimeWarning: invalid value encountered in divide`; `[0]<stdout>:epoch 1 step 5/20 loss nan`; "
        "`val_loss nan val_acc`"),
    "gloo-kws-shared-waveforms": (
        "horovodrun --gloo -np 2 with --share-waveforms in a container-sized 32 MB /dev/shm; local rank 0 creates a "
        "~37 MB multiprocessing.shared_memory block for the decoded training set (sparse tmpfs file) and filling it "
        "raises SIGBUS; rank 1 sees Horovod shut down. "
        "evidence: `[0]<stderr>:Fatal Python error: Bus error`; `leaked shared_memory objects`; "
        "`Process 0 exit with status code 135.`"),
    "hmpi-kws-healthy-balanced": (
        "horovodrun --mpi -np 2 (Open MPI mpirun underneath, MPI controller) with class-balanced batches, 5 epochs; "
        "healthy. evidence: `[1,0]<stdout>:horovod 0.28.1 torch 2.13.0+cpu size 2 (gloo True mpi True, controller "
        "mpi)`; `[1,0]<stdout>:done: 5 epochs, best val_acc`; `job exited with 0`"),
    "hmpi-kws-resume-wider": (
        "horovodrun --mpi -np 2 with --resume ckpt/last.pt, a checkpoint an earlier run wrote with --width 64 while "
        "this run uses the default width 48; load_state_dict on rank 0 raises, rank 1 (waiting in the start-epoch "
        "broadcast) sees Horovod shut down. evidence: `RuntimeError: Error(s) in loading state_dict for DSCNN`; "
        "`size mismatch for`; `mpirun detected that one or more processes exited with non-zero status`"),
    "hmpi-kws-speaker-shards": (
        "horovodrun --mpi -np 2 with --shard-by speaker: the ranks get 715 and 485 training clips, so rank 1 reaches "
        "the validation allreduce while rank 0 still submits gradient allreduces; with HOROVOD_STALL_CHECK_TIME_SECONDS"
        "=30 and HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=90 Horovod's stall inspector warns and then shuts down. "
        "evidence: `One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and "
        "are waiting for remainder of ranks for more than 30 seconds`; `0: [allreduce.val_stats]`; "
        "`is stalled for longer than 90 seconds. Will shutdown.`"),
    "hmpi-kws-spot-reclaim": (
        "horovodrun --mpi -np 2, 30 epochs; in epoch 3 both training processes get SIGTERM from outside (node "
        "reclaimed); the script's handler sets a stop flag, the ranks agree via a Max allreduce, rank 0 saves and both "
        "exit 143. evidence: `[rank 0] caught SIGTERM, will stop after this step`; `stopped by SIGTERM in epoch 3`; "
        "`Exit code:    143`"),
    "mpirun-kws-healthy-resume": (
        "bare Open MPI mpirun -np 2 (Horovod MPI controller) resuming from ckpt/last.pt of an earlier 2-epoch gloo "
        "run, to 5 epochs; healthy. evidence: `resumed from ckpt/last.pt (epoch 2`; `done: 5 epochs, best val_acc`; "
        "`job exited with 0`"),
    "mpirun-kws-new-keyword": (
        "bare mpirun -np 2; a new export adds one clip of the new keyword 'marvin'; without --labels each rank builds "
        "its vocabulary from its own files, so one rank has 9 classes and the other 8 and broadcast_parameters "
        "fails on the head's shapes. evidence: `Mismatched BROADCAST tensor shapes: One rank sent a tensor of shape "
        "[9], but another rank sent a tensor of shape [8].`; `horovod.common.exceptions.HorovodInternalError`"),
    "mpirun-kws-augment-copies": (
        "bare mpirun -np 2 with --augment-copies 24 (24 shifted noisy float64 copies of every clip made up front, "
        "~2 GB per rank) inside a 1.5 GB memory cgroup; the kernel OOM killer SIGKILLs a rank while loading. "
        "evidence: `exited on signal 9 (Killed).`; `job exited with 137`"),
    "elastic-kws-healthy-worker-lost": (
        "elastic horovodrun -np 2 --min-np 1 --max-np 2 with a host discovery script listing localhost:1 and vm:1; "
        "worker 1 is SIGKILLed after epoch 2; gloo reports the closed connection in Horovod's background loop, "
        "horovodrun resets to one worker, which resumes from the committed state and finishes; healthy. "
        "evidence: `Horovod background loop uncaught exception`; `Process 1 exit with status code 137.`; "
        "`[0]<stdout>:reset: now 1 workers`; `[0]<stdout>:done: 5 epochs`; `job exited with 0`"),
    "elastic-kws-second-host": (
        "elastic horovodrun -np 4 --min-np 4 --max-np 4 --elastic-timeout 60 for two hosts of 2 slots while the host "
        "discovery script lists only localhost:2 (the second host never joined); horovodrun waits 60 s for the "
        "minimum number of slots and gives up before any worker starts. evidence: `horovod.runner.common.util.timeout."
        "TimeoutException: Timed out waiting for {activity}. Please check that you have enough resources to run at "
        "least 4 Horovod processes. Timeout after 60 seconds.`; `job exited with 1`"),
}
