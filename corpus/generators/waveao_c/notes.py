"""What each committed run of wave AO (c) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "ring-strokes-healthy": (
        "mlx.launch -n 2 -p 30601 (MLX ring backend on localhost): 2 ranks train the pen-stroke digit MLP for 4 epochs, "
        "gradients averaged with mx.distributed.all_sum, validation accuracy summed across ranks, rank 0 saves a "
        "checkpoint per epoch and the final weights with mx.save_safetensors. evidence: '[rank 0] epoch 4 done in 1.5s: "
        "val_acc 0.9984 (640 samples)', '[rank 0] saved weights weights/model.safetensors', 'job exited with 0'"),
    "ring-strokes-healthy-three-verbose": (
        "mlx.launch --verbose -n 3 -p 30603 over 6 shards (two per rank): the launcher's [INFO] lines and the ring's "
        "connection debug output, including a refused first connection attempt while rank 0 was not yet listening "
        "(harmless retry); 3 epochs, weights saved. evidence: '[ring] Attempt 0 waiting 1000 ms (error: 111 )', "
        "'[rank 0] epoch 3 done in 11.3s: val_acc 1.0000 (600 samples)', '[INFO] Node with rank 0 completed', "
        "'job exited with 0'"),
    "ring-strokes-checkpoint-server": (
        "port_in_use: a colleague's python -m http.server listens on 127.0.0.1:30611 (its console not kept); the user "
        "launches mlx.launch -p 30611, rank 0's ring listener cannot bind and mlx.distributed.init raises; mlx.launch "
        "terminates rank 1 (and still exits 0). evidence: 'RuntimeError: [ring] Couldn't bind socket (error: 98)', "
        "'[WARN] Node with rank 0 exited with code 1', '[WARN] Node with rank 1 exited with code -15'"),
    "ring-strokes-big-batch-lr": (
        "training_divergence: batch 128 per rank with --lr 3.2 (learning rate scaled up with the batch, SGD momentum "
        "0.9): the averaged loss explodes and becomes nan in the first epoch; the run goes on with nan losses and "
        "chance accuracy, saves useless weights and exits 0. evidence: '[rank 0] epoch 1 step 6/10 loss 3343600.5000', "
        "'[rank 0] epoch 1 step 10/10 loss nan', 'val_acc 0.0984 (640 samples)', 'job exited with 0'"),
    "ring-strokes-keep-checkpoints": (
        "disk_full: a checkpoint every epoch into weights/, a 1 MB volume already holding 600 KB of earlier runs; three "
        "checkpoints fit, the fourth mx.save_safetensors fails on rank 0 (MLX names no errno) and rank 1's ring sockets "
        "then close. evidence: 'mx.save_safetensors(path, dict(tree_flatten(model.parameters())))', 'RuntimeError: "
        "[write] Unable to write 43501 bytes to file.', '[ring] Socket 4 was closed by the peer', '[WARN] Node with rank "
        "0 exited with code 1'"),
    "ring-strokes-three-ranks": (
        "collective_timeout: mlx.launch -n 3 over 4 shards gives rank 0 two shards (53 steps an epoch) and ranks 1-2 "
        "one (26): ranks 1 and 2 finish their steps and enter the validation all_sum while rank 0 still all-sums "
        "gradients; the ring never completes (MLX has no collective timeout) and nothing is printed after step 25; "
        "after 60 s the user's Ctrl-C only interrupts mlx.launch, 20 s later kill -9. evidence: \"[rank 0] shards "
        "['train-00.npz', 'train-03.npz']: 1280 train\", \"[rank 1] shards ['train-01.npz']: 640 train\", "
        "'[rank 0] epoch 1 step 25/53 loss 0.3424' (last line before the stall), 'KeyboardInterrupt', 'Killed', "
        "'job exited with 137'"),
    "ring-strokes-tablet-export": (
        "collective_mismatch (ring): a tablet app's re-export of rank 1's shards has 48 points per stroke, so rank 1's "
        "MLP input layer is 144 wide and rank 0's 96 wide and their gradient all_sums have different sizes; the ring "
        "stalls silently in the first step; Ctrl-C after 60 s only interrupts mlx.launch, then kill -9. evidence: "
        "\"[rank 0] shards ['train-00.npz', 'train-02.npz']: 1280 train, 320 val, strokes 32 points\", \"[rank 1] shards "
        "['train-01.npz', 'train-03.npz']: 1280 train, 320 val, strokes 48 points\", 'KeyboardInterrupt', 'Killed', "
        "'job exited with 137'"),
    "ring-strokes-rerun-same-dir": (
        "silent_hang: rerun in the directory of an earlier run: rank 0 asks before replacing the old weights and waits "
        "on stdin, which mlx.launch forwards from a terminal nobody types into, while rank 1 waits in the initial "
        "all_sum; no progress for 60 s, Ctrl-C (rank 0 exits -2, mlx.launch's KeyboardInterrupt), then kill -9. "
        "evidence: 'weights/model.safetensors exists, overwrite? [y/N]', 'KeyboardInterrupt', '[WARN] Node with rank 0 "
        "exited with code -2', 'Killed', 'job exited with 137'"),
    "ring-strokes-rendered-256": (
        "host_oom_killed: --model conv --raster 256 renders every stroke into 256x256 float32 images (and blurred, "
        "normalised copies, ~1.3 GB a rank) inside a 1 GB memory cgroup; the kernel OOM killer SIGKILLs rank 0 before "
        "training and mlx.launch terminates rank 1. evidence: '[WARN] Node with rank 0 exited with code -9', '[WARN] "
        "Node with rank 1 exited with code -15', 'job exited with 0'"),
    "ring-strokes-tremor-filter": (
        "native_crash: --smooth 3 runs the C tremor filter (libsmooth.so via ctypes); the float64 variant has no "
        "restype, so its returned double* is truncated to a C int; a new export wrote train-01 as float64, rank 1's "
        "shards become float64 and it reads through the truncated pointer. evidence: 'Fatal Python error: Segmentation "
        "fault', 'File \"/tmp/waveao-c-job/run/train_strokes.py\", line 66 in smooth', '[WARN] Node with rank 1 exited "
        "with code -11'"),
    "ring-strokes-ssh-closed": (
        "terminal_hangup: SIGHUP to the job's process group in epoch 5 of 40 (the SSH session closed); nothing handles "
        "it, mlx.launch and both ranks die and the log just stops (no exit line). evidence: last line '[rank 0] epoch 5 "
        "step 25/40 loss 0.0012'"),
    "mpirun-strokes-healthy-resume": (
        "mpirun -np 2 with MLX's MPI backend: both ranks resume from an earlier single-process run's weights and "
        "fine-tune for 3 epochs; rank 0 saves the weights. evidence: '[rank 1] resumed from prev/model.safetensors', "
        "'[rank 0] epoch 3 done in 0.1s: val_acc 0.9984 (640 samples)', '[rank 0] saved weights "
        "finetuned/model.safetensors', 'job exited with 0'"),
    "mpirun-strokes-tablet-export": (
        "collective_mismatch (MPI): the 48-point re-export of rank 1's shards gives the ranks differently shaped "
        "weights; the initial all_sum of rank 0's weights runs Open MPI's allreduce over buffers of different sizes and "
        "corrupts the heap: glibc aborts rank 0. evidence: 'strokes 48 points' (rank 1) vs 'strokes 32 points' (rank 0), "
        "'double free or corruption (!prev)', 'Fatal Python error: Aborted', 'mpirun noticed that process rank 0 with "
        "PID 0 on node vm exited on signal 6 (Aborted).', 'job exited with 134'"),
    "mpirun-strokes-node-reclaimed": (
        "job_preempted: SIGTERM from outside to both training processes in epoch 30 of 40 (node reclaimed); mpirun "
        "reports the signal and aborts the job. evidence: 'mpirun noticed that process rank 0 with PID 0 on node vm "
        "exited on signal 15 (Terminated).', 'job exited with 143'"),
    "mpirun-strokes-ragged-export": (
        "worker_exception: train-01 was re-exported with ragged strokes (an object array); rank 1's np.load raises "
        "while loading its shards; MLX's MPI backend does not abort the job, so rank 1 never exits and rank 0 waits in "
        "the first all_sum; after 60 s the user's Ctrl-C, and mpirun itself segfaults in PMIx finalize on the way out. "
        "evidence: 'File \"/tmp/waveao-c-job/run/train_strokes.py\", line 47, in load', 'ValueError: Object arrays "
        "cannot be loaded when allow_pickle=False', '[vm:00749] Signal: Segmentation fault (11)', "
        "'libpmix.so.2(PMIx_server_finalize+0xb08)', 'job exited with 139'"),
    "mpirun-strokes-team-site": (
        "library_version_mismatch: PYTHONPATH points to the team site directory holding mlx 0.30.0 (the mlx wheel "
        "without its mlx-cpu 0.30.0 backend), which shadows the venv's mlx 0.32.4 / mlx-cpu 0.32.4; both ranks fail at "
        "import and mpirun stops the job. evidence: 'import mlx.core as mx', 'ImportError: libmlx.so: cannot open shared "
        "object file: No such file or directory', 'mpirun detected that one or more processes exited with non-zero "
        "status', 'job exited with 1'"),
    "hosts-strokes-healthy-late-node": (
        "two hosts started separately with the ring hostfile (MLX_HOSTFILE, MLX_RANK, MLX_RING_VERBOSE=1; ports "
        "30631/30632), host 1 started 12 s after host 0, which waits for it; 3 epochs, weights saved; both consoles "
        "kept. evidence: node0 '[ring] Rank 0 accepting', '[rank 0] saved weights weights/model.safetensors', node1 "
        "'[ring] Rank 1 connecting to 0', '[rank 1] done', 'job exited with 0' (both)"),
    "hosts-strokes-host-lost": (
        "peer_process_died: two hosts with the ring hostfile (30633/30634); everything on host 1 is SIGKILLed in epoch 2; "
        "only host 0's console is kept: its ring sockets close and the step's eval fails. evidence: '[ring] Socket 3 "
        "was closed by the peer' (x10), '[ring] Too many send/recv errors. Failing pending tasks...', 'RuntimeError: "
        "[ring] connection to a peer was lost', 'job exited with 1'"),
    "hosts-strokes-third-host": (
        "rendezvous_timeout: the ring hostfile still lists three hosts (30635-30637) but only two are started; rank 0 "
        "waits in mx.distributed.init for rank 2, which never comes (MLX's ring setup has no timeout); after 75 s the "
        "user's Ctrl-C interrupts the accept; node 0's console kept. evidence: '[ring] Rank 0 accepting', "
        "\"object repr     : RuntimeError('[ring] Accept failed (error: 4)')\", 'lost sys.stderr', 'job exited with 1'"),
}
