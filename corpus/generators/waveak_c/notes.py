"""What each committed run of wave AK (c) showed (written after the runs; the manifest's notes column)."""

W = ("convlstm.py (ConvLSTM video frame predictor: synthetic 32x32 clips of bouncing squares and discs with occlusion, "
     "10 frames in / 5 out, strided-conv stem + encoder ConvLSTM + forecaster ConvLSTM with a learned horizon "
     "embedding + transposed-conv residual decoder, MSE + 0.5 x (1 - SSIM) loss, validation PSNR summed and "
     "all-reduced, rank-0 checkpoints and sample-frame dumps as .npy)")

NOTES = {
    "torchrun-2node-convlstm-healthy-late-node":
        f"two torchrun agents ('nodes', 1 process each, c10d rendezvous on 127.0.0.1:29809), {W}; the second node is "
        "started 15 s after the first, the rendezvous waits for it, 4 epochs train normally; only node 0's console "
        "is kept. evidence: 'epoch 0 train loss 0.2356 val psnr 12.88 dB', 'epoch 3 train loss 0.2200 val psnr "
        "13.48 dB', 'done: 4 epochs, final val psnr 13.48 dB', 'job exited with 0'",
    "torchrun-convlstm-new-export-shard":
        f"torchrun 2 ranks gloo with --max-restarts 2, {W}, from data shards: train-03.npz is a new export rendered "
        "at 48x48 while the others are 32x32 (the `ls -l` shows it larger); rank 1 reads train-01 and train-03, the "
        "shuffled DataLoader mixes both sizes in one batch and default_collate's torch.stack fails on rank 1; rank 0 "
        "sees the connection close. The agent restarts the group twice: the first restart fails in gloo "
        "connectFullMesh (Connection refused to the old peer address), the second with the same collate error, then "
        "torchrun gives up. evidence: \"[rank 1] train: 384 clips from 2 shard(s) ['train-01.npz', 'train-03.npz']\", "
        "'[rank1]: RuntimeError: stack expects each tensor to be equal size, but got [15, 1, 32, 32] at entry 0 and "
        "[15, 1, 48, 48] at entry 1', '[rank0]: RuntimeError: [...pair.cc:553] Connection closed by peer', "
        "'Gloo connectFullMesh failed with ... Connection refused', 'Root Cause (first observed failure)', "
        "'job exited with 1'",
    "torchrun-2node-convlstm-rolling-checkpoints":
        f"two torchrun agents ('nodes', 1 process each, c10d rendezvous on 127.0.0.1:29805), {W}, with --keep-last 1: "
        "rank 0 writes the new ckpt/epoch-NN.pt before deleting the previous one; ckpt/ is a 2 MB volume (df shows "
        "it empty) that holds one ~1.4 MB checkpoint but not two, so torch.save fails at the end of epoch 1 on rank "
        "0 (no errno text: the PyTorch stream writer reports an iostream error); only node 0's console is kept. "
        "evidence: 'tmpfs 2.0M 0 2.0M 0% /tmp/waveak-c-job/run/ckpt', 'saved ckpt/epoch-00.pt', "
        "'[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]:     ckpt.save(model, opt, epoch, psnr)', "
        "'[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 486784 vs 486676', "
        "'job exited with 1'",
    "torchrun-convlstm-relabelled-shard":
        f"torchrun 2 ranks, {W}, from data shards with --pg-timeout 45: train-03.npz is a new export that stored float "
        "frames in 0-255 rather than 0-1 (the ls shows it 4x larger); rank 1 reads it, its first such batch has MSE "
        "> 1 and a debugging breakpoint() left in the training loop starts pdb, which waits on standard input that "
        "nobody types into; rank 0 waits in DDP's gradient all-reduce and gloo times out after 45 s; torchrun then "
        "stops rank 1. evidence: '> /tmp/waveak-c-job/run/convlstm.py(478)train()', '-> opt.zero_grad(set_to_none="
        "True)', '(Pdb) [rank0]: Traceback', '[rank0]:     ctx.backward(loss)', '[rank0]: RuntimeError: "
        "[...unbound_buffer.cc:78] Timed out waiting 45000ms for recv operation to complete', 'exitcode  : -15 ... "
        "(SIGTERM)', 'job exited with 1'",
    "accelerate-convlstm-channels-last-healthy":
        f"accelerate launch (--multi_gpu, 2 processes, Accelerator(cpu=True): MULTI_CPU over gloo), {W}, with "
        "--channels-last: DDP warns on both ranks that grad strides do not match bucket view strides (harmless), "
        "4 epochs finish with PSNR rising. evidence: 'UserWarning: Grad strides do not match bucket view strides', "
        "'bucket_view.sizes() = [5, 16, 1, 1], strides() = [16, 1, 16, 16]', 'done: 4 epochs, final val psnr 13.43 "
        "dB', 'job exited with 0'",
    "accelerate-convlstm-longer-clips-export":
        f"accelerate launch 2 processes, {W}, with --horizon-auto (number of predicted frames = clip length of the "
        "rank's own first shard minus 10 context frames): rank 1's train-01.npz is a new 20-frame export, so its "
        "horizon embedding has 10 rows against 5 on rank 0; accelerator.prepare's DDP wrapper checks parameter shapes "
        "across processes and rank 1 fails; rank 0 sees the connection close. evidence: \"[rank 1] train: 192 clips "
        "from 1 shard(s) ['train-01.npz']\", '[rank1]: RuntimeError: [1]: params[0] in this process with sizes [10, "
        "16, 1, 1] appears not to match sizes of the same param in process 0.', '[rank0]: RuntimeError: "
        "[...pair.cc:553] Connection closed by peer', 'job exited with 1'",
    "accelerate-convlstm-ssh-session":
        f"accelerate launch 2 processes in the foreground of an SSH session, {W}, 30 epochs; the session closes in "
        "epoch 2 and the job's process group gets SIGHUP; the elastic agent under accelerate shuts the workers "
        "down with SIGHUP and raises SignalException; the shell dies too (no 'job exited' line). evidence: "
        "'epoch 1 train loss 0.2232 val psnr 12.96 dB', 'Received 1 death signal, shutting down workers', "
        "'Sending process ... closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: "
        "Process 23133 got signal: 1'",
    "mpspawn-convlstm-second-experiment":
        f"torch.multiprocessing.spawn 2 ranks, {W}; a first experiment (other learning rate, same script defaults, "
        "console not kept) is still training on this node with the default --port 29811; this second one's rank 0 "
        "cannot bind the TCPStore and mp.spawn tears the job down. evidence: 'Terminating process ... via signal "
        "SIGTERM', '-- Process 0 terminated with the following error:', 'torch.distributed.DistNetworkError: The "
        "server socket has failed to listen on any local network address. port: 29811, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'job exited with 1'",
    "mpspawn-convlstm-background-sample-writer":
        f"torch.multiprocessing.spawn 2 ranks, {W}, with --async-samples (rank 0 hands the last training batch to a "
        "background writer thread that must set an 'idle' event before the next write) and --keep-best: the "
        "predictions still require grad, .numpy() raises in the thread, a broad except logs it at debug level "
        "(logging not configured: nothing printed) and the event is never set; after epoch 1 rank 0 waits for it "
        "forever, rank 1 waits in the next all-reduce (default 30 min timeout); no output for 75 s until the user "
        "presses Ctrl-C; only the parent's KeyboardInterrupt in mp.spawn's join is printed. evidence: 'wrote "
        "samples/train-epoch-00.npy', 'saved ckpt/last.pt', 'epoch 1 train loss 0.2232 val psnr 12.96 dB (96 clips)' "
        "(then nothing: no 'wrote samples/train-epoch-01.npy'), '    while not context.join():', 'KeyboardInterrupt'",
    "mpspawn-convlstm-team-site-packages":
        f"torch.multiprocessing.spawn 2 ranks, {W}, from pickled data shards written with NumPy 2.4 (the project "
        "venv); the job's PYTHONPATH points at a team site directory that pins NumPy 1.24.4, so unpickling the "
        "arrays looks for numpy._core and fails on both ranks. evidence: '    rec = pickle.load(f)', "
        "\"ModuleNotFoundError: No module named 'numpy._core'\", '-- Process 1 terminated with the following error:', "
        "'job exited with 1'",
    "lightning-convlstm-healthy":
        f"Lightning Trainer (strategy ddp on CPU, 2 processes, gloo, ModelCheckpoint on val_psnr), {W}, 3 epochs: "
        "tips and a pytree deprecation message, then normal training. evidence: '💡 Tip: For seamless cloud "
        "logging', 'isinstance(treespec, LeafSpec)` is deprecated', 'epoch 2 val psnr 12.90 dB', 'fit finished: best "
        "/tmp/waveak-c-job/run/ckpt/epoch=2-step=36.ckpt', 'job exited with 0'",
    "lightning-convlstm-antialiased-render":
        f"Lightning Trainer 2 processes, {W}, with --supersample 8 (antialiased rendering): each rank rasterises its "
        "clips at 256x256 in float64 in the DataModule's setup before box-filtering (~1.5 GB for the frames alone) "
        "inside a 1.5 GB memory cgroup; the kernel OOM killer kills the Trainer's main process (rank 0) right after "
        "the process group is set up. evidence: 'supersample=8' (args line), 'All distributed processes registered. "
        "Starting with 2 processes', 'bash: line 1: ... Killed ... convlstm.py lightning --epochs 3 --supersample 8', "
        "'job exited with 137'",
    "fabric-convlstm-lars-large-batch":
        f"Lightning Fabric (DDP on CPU, 2 processes, gloo), {W}, with --optimizer lars --lr 0.5 --batch 16: the "
        "hand-written LARS divides ||w|| by ||g + wd w|| without a zero guard; the horizon embedding starts at zero "
        "and gets a zero gradient at the first step (the decoder's last layer is zero-initialised), so its trust "
        "ratio is 0/0 = NaN and NaN spreads through the model: loss nan from step 1 on both ranks; the non-finite "
        "check counts per epoch and never reaches 20 with 12 steps, so the run ends normally with nan. evidence: "
        "'[rank 0] epoch 0 step 0/12 loss 0.2253', '[rank 0] epoch 0 step 2/12 loss nan mse nan grad_norm nan', "
        "'epoch 0 train loss nan val psnr nan dB', 'done: 3 epochs, final val psnr nan dB', 'job exited with 0'",
    "fabric-convlstm-occlusion-weighting":
        f"Lightning Fabric 2 processes, {W}, from shards of a small-particle export (--min-size 0.3) with object id "
        "maps, and --occlusion-lib ./libocc.so (occl.c through ctypes: visible share = 100 * visible / area in int "
        "arithmetic): objects that cover no pixel centre have area 0 and the integer division raises SIGFPE in the "
        "DataLoader fetch of the first batch on both ranks; faulthandler prints both stacks (interleaved), the "
        "shell reports the main process's signal. evidence: 'Fatal Python error: Floating point exception', "
        "'File \"/tmp/waveak-c-job/run/convlstm.py\", line 132 in occlusion_weights', 'bash: line 1: ... Floating "
        "point exception ... --occlusion-lib ./libocc.so --epochs 3', 'job exited with 136'",
    "mpirun-convlstm-healthy":
        f"Open MPI mpirun -np 2 (MASTER_ADDR/MASTER_PORT exported with -x, gloo), {W}, 4 epochs finish normally. "
        "evidence: '[rank 0] world 2, rendezvous at 127.0.0.1:29841', 'epoch 3 train loss 0.2200 val psnr 13.48 dB', "
        "'done: 4 epochs, final val psnr 13.48 dB', 'job exited with 0'",
    "mpirun-convlstm-no-master-port":
        f"Open MPI mpirun -np 2, {W}, with --pg-timeout 60; the command line exports MASTER_ADDR but not MASTER_PORT, "
        "and the script then picks a random port per process, so rank 0's store listens on 29847 while rank 1 "
        "connects to 29852; rank 1's client socket times out and rank 0 gives up waiting for clients; mpirun "
        "aborts the job. evidence: '[rank 0] world 2, rendezvous at 127.0.0.1:29847', '[rank 1] world 2, rendezvous "
        "at 127.0.0.1:29852', 'The client socket has timed out after 60000ms while trying to connect to (127.0.0.1, "
        "29852)', 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients "
        "joined.', 'mpirun detected that one or more processes exited with non-zero status', 'job exited with 1'",
    "mpirun-convlstm-scheduler-preemption":
        f"Open MPI mpirun -np 2, {W}, 30 epochs with --save-on-term; the scheduler preempts the job in epoch 2 with "
        "SIGTERM to mpirun, which forwards it to the ranks; each rank's handler finishes the step, they agree to stop "
        "after validation, rank 0 writes its checkpoint, both exit 143 and mpirun returns 1 (mpirun prints nothing "
        "itself). evidence: '[rank 1] received signal 15, stopping after this step', '[rank 0] received signal 15, "
        "stopping after this step', 'saved ckpt/last.pt', '[rank 0] stopping at epoch 2 after a signal; exiting "
        "with 143', 'job exited with 1'",
}
