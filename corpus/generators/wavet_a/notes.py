"""What each committed wave T (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("seg.py (semantic-segmentation U-Net, widths 16-128 with BatchNorm, on 32x32 synthetic shape scenes: background, "
     "circle, square, triangle; CE + 0.5 x soft Dice, AdamW; evaluation all-reduces a confusion matrix over each "
     "rank's validation slice: per-class IoU, mIoU, pixel accuracy; rank-0 checkpoints keeping the last two; gloo on "
     "CPU)")

NOTES = {
    "torchrun-unet-healthy-find-unused-warning":
        f"torchrun --nproc-per-node 2 of {W}, 6 epochs, DDP built with find_unused_parameters=True although every "
        "parameter is used: each rank prints the reducer's C++ warning that no unused parameters were found (a "
        "performance hint, not an error); training and evaluation run to the end (mIoU rises from ~0.66) and the job "
        "exits 0. Healthy. evidence: '[rank0]:[W... reducer.cpp:1529] Warning: find_unused_parameters=True was "
        "specified in DDP constructor, but did not find any unused parameters', 'eval @ epoch 6: mIoU', "
        "'done: 6 epochs, 144 steps', 'job exited with 0'.",
    "torchrun-unet-aux-head-without-aux-loss":
        f"torchrun --nproc-per-node 2 of {W} built with --aux-head (a deep-supervision conv head on the bottleneck "
        "kept from an older config) while the loss has no auxiliary term: the head's weight and bias never get a "
        "gradient, and at the second step DDP's reducer raises on both ranks. Cause: the training code (model/loss "
        "mismatch) raised in every worker. evidence: '[rank0]: RuntimeError: Expected to have finished reduction in "
        "the prior iteration before starting a new one. This error indicates that your module has parameters that "
        "were not used in producing loss', 'Parameter indices which did not receive grad for rank 0: 50 51', "
        "torchrun 'exitcode : 1', 'job exited with 1'.",
    "torchrun-unet-config-class-missing-from-data-weighted-ce":
        f"torchrun --nproc-per-node 2 of {W} with a class list from the run config (--classes ...,star: 5 classes) "
        "while the data has no 'star' pixels, and inverse-frequency class weights normalised to sum 1: the missing "
        "class's weight is 1/0 = inf, normalising makes every other weight 0 and the star weight inf/inf = nan, so "
        "the weighted cross-entropy is 0/0 = nan at the first step; the trainer's finite-loss check raises on both "
        "ranks. Cause: non-finite loss (divergence from the first step, from the class weighting). evidence: "
        "'class pixel counts: ... star 0', 'class weights (inverse frequency, normalised): background 0.0000, ... "
        "star nan', 'epoch 1 step 1: non-finite loss nan', 'FloatingPointError: Loss is nan at step 1 on rank 0'.",
    "torchrun-unet-overwrite-prompt-without-terminal":
        f"torchrun --nproc-per-node 2 of {W} with --confirm-overwrite: ckpt/ already holds two checkpoints from an "
        "earlier run, so rank 0 asks 'Overwrite checkpoints in ckpt/? [y/N]' with input() before "
        "init_process_group, but the job's stdin is a pipe nobody types into; rank 1 waits in the rendezvous (30 min "
        "process-group timeout) and nothing is printed for 90 s until the user's Ctrl-C (SIGINT): torchrun forwards "
        "SIGINT, rank 0's traceback is at the input() call, rank 1 has to be SIGKILLed. Cause: rank 0 blocked on an "
        "interactive prompt, no error or watchdog (silent hang). evidence: '[rank0] ckpt/ already holds 2 "
        "checkpoint(s)', 'Overwrite checkpoints in ckpt/? [y/N]' as the last line for 90 s, 'Received 2 death "
        "signal, shutting down workers', 'ans = input(...)' 'KeyboardInterrupt', 'Unable to shutdown process ... "
        "via 2, forcefully exiting via 9'.",
    "torchrun-unet-two-node-rdzv-endpoint-port-typo":
        f"Two-node torchrun (--nnodes 2 --nproc-per-node 1, c10d rendezvous, join_timeout=60, LOGLEVEL=INFO) of {W}; "
        "the second node's launch line has a typo in the rendezvous endpoint port (127.0.0.1:29502 instead of "
        ":29520), so each agent hosts its own c10d store and waits for a second node that never joins; after 60 s both "
        "raise RendezvousTimeoutError before any worker starts. One file per node. Cause: the nodes never met in the "
        "rendezvous (rendezvous timeout from a mismatched endpoint). evidence: node0 '+ ... --rdzv-endpoint "
        "127.0.0.1:29520', node1 '+ ... --rdzv-endpoint 127.0.0.1:29502', 'rdzv_endpoint : 127.0.0.1:29502', "
        "'min_nodes : 2', \"[default] Rendezvous'ing worker group\", 'raise RendezvousTimeoutError', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError'.",
    "mpirun-unet-healthy-3-ranks":
        f"Open MPI mpirun -np 3 of {W} (rank from OMPI_COMM_WORLD_*, env:// rendezvous), 6 epochs: 16 steps/epoch, "
        "each rank evaluates its third of the validation set, mIoU reaches ~0.83, checkpoint retention removes old "
        "files, the job exits 0. Healthy. evidence: 'rank 0/3 (from OMPI_COMM_WORLD_RANK)', 'eval @ epoch 6: mIoU "
        "0.8325', 'done: 6 epochs, 96 steps', 'job exited with 0'.",
    "mpirun-unet-void-boundary-labels-255":
        f"Open MPI mpirun -np 2 of {W} on masks exported VOC-style with a 1-pixel 'void' band (value 255) around "
        "every object; the trainer's cross-entropy has no ignore_index, so at the first step both ranks raise "
        "IndexError in cross_entropy and mpirun aborts the job. Cause: the training code raised on a bad label "
        "value (data/loss mismatch). evidence: 'mask values [0, 1, 2, 3, 255]', '[rank1]: IndexError: Target 255 is "
        "out of bounds.' from F.cross_entropy in main, mpirun 'Primary job terminated normally, but 1 process "
        "returned a non-zero exit code', 'Exit code: 1', 'job exited with 1'.",
    "mpirun-unet-upsampled-probs-kept-cgroup":
        f"Open MPI mpirun -np 2 of {W} with --keep-probs --eval-scale 16: evaluation upsamples the logits to 512x512 "
        "and keeps every image's softmax probabilities for a later calibration step (128 images x 4 classes x "
        "512x512 float32 = 512 MiB per rank, plus the interpolation temporaries), inside a 1.2 GB cgroup-v1 memory "
        "limit; the kernel OOM killer SIGKILLs rank 1 during the first evaluation (right after epoch 1's last step "
        "line) and mpirun aborts the job. Cause: host memory exhausted, process killed by the OOM killer. evidence: "
        "'epoch 1 step 20 ...' as the last training line, 'mpirun noticed that process rank 1 with PID 0 on node vm "
        "exited on signal 9 (Killed).', 'job exited with 137'.",
    "slurm-unet-healthy":
        f"sbatch --wait of {W} on a one-node Slurm cluster (2 tasks, srun --kill-on-bad-exit=1, rank from "
        "SLURM_PROCID), 6 epochs; the job's slurm-<id>.out is the log: training and evaluation to the end, srun exits "
        "0. Healthy. evidence: 'job 1 (unet-seg) partition batch on vm: 2 task(s), master vm:29580', 'done: 6 epochs, "
        "144 steps', 'srun exited with 0'.",
    "slurm-unet-master-port-held-by-dataset-browser":
        f"sbatch --wait of {W} submitted from a shell where MASTER_PORT=29585 was exported (sbatch passes the "
        "environment on, and the batch script keeps a preset MASTER_PORT), while a `python -m http.server 29585` the "
        "user had started to browse the dataset still listens on that port on the node: rank 0's TCPStore cannot "
        "bind, rank 0 exits 1 and srun cancels the step. Cause: the rendezvous port is already in use. evidence: "
        "'master vm:29585', 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 29585, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'srun: error: vm: task 0: Exited with exit code 1', '*** STEP 2.0 ON vm CANCELLED', 'srun exited with 143'.",
    "slurm-unet-time-limit-cut-by-admin":
        f"sbatch --wait --time=02:00:00 of {W} (40 epochs); 20 s into the job the cluster admin shortened its time "
        "limit ahead of a maintenance window (`scontrol update JobId=3 TimeLimit=00:01:00`), so slurmctld cancels the "
        "job about 70 s after it started, in epoch 6, and slurmstepd terminates both tasks. Cause: the scheduler "
        "ended the job on its (changed) time limit. evidence: 'time limit 2:00:00' at the start, the last training "
        "lines at 16:34:23, 'slurmstepd-vm: error: *** JOB 3 ON vm CANCELLED AT 2026-11-28T16:34:27 DUE TO TIME "
        "LIMIT ***', 'srun: error: vm: tasks 0-1: Terminated'.",
    "deepspeed-unet-healthy":
        f"DeepSpeed launcher (deepspeed --num_gpus 2) of {W} through deepspeed.initialize (ZeRO stage 0, CPU "
        "accelerator, gloo), 6 epochs, engine checkpoints per epoch: the launcher's 'Setting accelerator to CPU' and "
        "'Unable to find hostfile' warnings are harmless here; training and evaluation run to the end and the job "
        "exits 0. Healthy. evidence: '[WARNING] [runner.py:214:fetch_hostfile] Unable to find hostfile, will proceed "
        "with training with local resources only.', 'saved deepspeed checkpoint ckpt/epoch6', 'done: 6 epochs, 144 "
        "steps', 'job exited with 0'.",
    "deepspeed-unet-native-ccl-postproc-upsampled":
        f"DeepSpeed launcher (deepspeed --num_gpus 2) of {W} with a native connected-component post-processing "
        "filter (libccl.so, built from ccl.c, called through ctypes on every predicted mask) and --eval-scale 16: the "
        "filter labels regions with a recursive 4-neighbour flood fill, and on 512x512 upsampled masks the background "
        "region is ~220k pixels deep in recursion, which overflows the 8 MB C stack: both ranks die of SIGSEGV in the "
        "first evaluation and the launcher reports return code -11. Cause: a crash in native code (the compiled "
        "extension). evidence: 'post-processing: libccl.so remove_small_components(min 64 px)', the last line 'epoch "
        "1 step 20 ...' before evaluation, '[launch.py:253:sigkill_handler] Killing subprocess', \"[ERROR] "
        "[launch.py:259:sigkill_handler] [... '--postproc-ccl', 'libccl.so', '--eval-scale', '16', ...] exits with "
        "return code = -11\", 'job exited with 245'.",
    "accelerate-unet-eval-on-main-process-only":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W} with --eval-rank0-only: evaluation is guarded "
        "by `if rank == 0` but still all-reduces its confusion matrix, so after epoch 1 rank 0 issues the eval "
        "all_reduce while rank 1 has gone on to the next training step's DDP gradient all-reduce; gloo on rank 0 "
        "receives 336500 bytes where it expects 32, its enforce fails, rank 0 aborts (SIGABRT) and the launcher "
        "SIGTERMs rank 1. Cause: ranks issued different collectives (collective mismatch). evidence: the last "
        "lines 'epoch 1 step 20 ...' on both ranks, \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", '[enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= "
        "op.nbytes. 336500 vs 32. Received data size doesn't match expected size. Is there a distributed collective "
        "mismatch in your code?', 'Root Cause (first observed failure): ... rank : 0 ... exitcode : -6 ... "
        "(SIGABRT)'.",
    "accelerate-unet-atomic-save-small-node-tmp":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W} with --atomic-save: rank 0 writes each "
        "checkpoint to a tempfile.mkstemp() file first and then moves it into ckpt/; TMPDIR points at the node's "
        "small local scratch (a 6 MB tmpfs that earlier jobs had left 4.5 MB in), so the first ~5.8 MB checkpoint "
        "(model + AdamW state) fills it: torch.save fails with ENOSPC on rank 0 after the first evaluation, rank 1 "
        "sees the connection close and the launcher tears the job down; the job then runs `df -h $TMPDIR`. Cause: "
        "the filesystem holding the temporary checkpoint ran out of space. evidence: 'eval @ epoch 1: mIoU 0.6649', "
        "'[rank0]: OSError: [Errno 28] No space left on device' in torch.save(state, f), '[rank0]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos', '[rank1]: ... Connection closed by peer', "
        "'Root Cause (first observed failure): ... rank : 0', 'tmpfs 6.0M 6.0M 0 100% .../tmp'.",
    "accelerate-unet-rank0-overlay-rendering":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W} with --overlay-dir and a 15 s process-group "
        "timeout (InitProcessGroupKwargs): after each evaluation rank 0 alone renders its 128 validation predictions "
        "as 384x384 PPM overlays pixel by pixel in Python (~1 s per image) while rank 1 has gone on to the next "
        "epoch and waits in the DDP gradient all-reduce; after 15 s gloo's recv times out on rank 1, it exits 1 and "
        "the launcher SIGTERMs rank 0 (still rendering). Cause: a collective never completed because one rank was "
        "busy with rank-0-only work (collective timeout from uneven work). evidence: '[rank0] eval @ epoch 1: mIoU "
        "0.6649' as rank 0's last line, '[rank1]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed "
        "out waiting 15000ms for recv operation to complete' 16 s later, 'Root Cause (first observed failure): ... "
        "rank : 1 ... exitcode : 1', rank 0 'exitcode : -15 ... (SIGTERM)'.",
}
