"""Manifest notes for wave BH (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("a surface-defect image classifier (3-conv CNN over 32x32 PNG crops in an image-folder tree, 4 classes, 960 "
     "train / 160 val images from prep_data.py) trained by a script in the shape of torchvision's "
     "references/classification/train.py (utils.MetricLogger/SmoothedValue progress lines, DistributedSampler, DDP, "
     "SGD + cosine LR, optional EMA, checkpoint per epoch, --resume), torch 2.13.0+cpu, pillow 13.0.0, "
     "torchvision 0.28.0 in the venv, Python 3.11.7, gloo on CPU, 2 ranks")
TR = W + ", launched with 'nice -n 5 torchrun --nproc_per_node 2 --master_port P train.py --dist-backend gloo'"
NN = W + (", launched as two torchrun agents on localhost ('torchrun --nproc_per_node N --nnodes 2 --rdzv-backend c10d "
          "--rdzv-endpoint localhost:P --node-rank R train.py --dist-backend gloo')")
NOTES = {
    "img-healthy-ema": (
        f"no_failure: {TR}, '--model-ema --amp'; on CPU both ranks print the FutureWarning for torch.cuda.amp."
        "GradScaler and the UserWarning that it is disabled without CUDA; 6 epochs with EMA evaluation, exit 0. "
        "evidence: '/tmp/wavebh-c-job/run/train.py:187: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is "
        "deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.', 'Test: EMA Acc@1 100.000 Acc@2 "
        "100.000', 'Training time 0:00:30', 'job exited with 0'"),
    "img-truncated-upload": (
        f"worker_exception: {TR}; three training PNGs were cut short (a failed upload) and the dataset has no "
        "skip option on: PIL raises in a DataLoader worker of rank 0 in epoch 0, rank 1 then sees the gloo "
        "connection close, torchrun stops the job. evidence: '[rank0]: PIL.UnidentifiedImageError: Caught "
        "UnidentifiedImageError in DataLoader worker process 0.', '[rank0]: PIL.UnidentifiedImageError: cannot "
        "identify image file <_io.BufferedReader name='data/train/ok/cam5_00077.png'>', 'job exited with 1'"),
    "img-global-batch": (
        f"batch_size_mismatch: {TR}, '--global-batch-size 128 -b 32': the script's config check fails on both ranks "
        "at startup (world size 2). evidence: '[rank1]: ValueError: global batch size 128 != batch_size (32) * "
        "accum_steps (1) * world_size (2)', 'job exited with 1'"),
    "img-resnet18": (
        f"library_version_mismatch: {TR}, '--model resnet18', which imports torchvision: the torchvision 0.28.0 "
        "wheel in the venv has a _C.so linked against libc10_cuda.so, absent from the CPU torch build, so its ops "
        "are not registered and the import fails on both ranks while building the model. evidence: '[rank0]: "
        "RuntimeError: operator torchvision::nms does not exist', 'job exited with 1'"),
    "img-port-held": (
        f"port_in_use: {TR}; a 'python -m http.server' already listens on the master port: torchrun's TCPStore "
        "cannot bind, no rank starts. evidence: 'torch.distributed.DistNetworkError: The server socket has failed "
        "to listen on any local network address. port: 29714, useIpv6: false, code: -98, name: EADDRINUSE, "
        "message: address already in use', 'job exited with 1'"),
    "img-preempted": (
        f"job_preempted: {TR}, '--epochs 8'; the harness (standing in for the scheduler's time limit) sends SIGTERM "
        "to torchrun in epoch 2; torchrun forwards it to the ranks and exits. evidence: 'Received 15 death signal, "
        "shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 31906 got "
        "signal: 15', 'job exited with 1'"),
    "img-terminal-closed": (
        f"terminal_hangup: {TR}, '--epochs 8'; SIGHUP to torchrun in epoch 2 (what the launching terminal's close "
        "delivers). evidence: 'Received 1 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 541 got signal: 1', "
        "'job exited with 1'"),
    "img-rank-stopped": (
        f"silent_hang: {TR}, '--epochs 8' (default 1800 s process-group timeout); rank 1 is stopped with SIGSTOP "
        "in epoch 2; rank 0 blocks in the next DDP allreduce and prints nothing more; the harness killed the job "
        "from outside 75 s after the start (no line added, no 'job exited' line). evidence: the last line "
        "'Epoch: [2]  [ 4/15]  eta: 0:00:04  lr: 0.04267766952966369  img/s: 131.77980166912127  loss: 0.0029 "
        "(0.0064)  acc1: 100.0000 (100.0000)  acc2: 100.0000 (100.0000)  time: 0.3649  data: 0.1052'"),
    "img-small-shm": (
        f"shm_exhausted: {TR}, '-j 4'; the job runs in a mount namespace whose /dev/shm is a 512 KiB tmpfs: the "
        "DataLoader workers of both ranks cannot place their batches in shared memory in epoch 0. evidence: "
        "'[rank0]: RuntimeError: unable to allocate shared memory(shm) for file </torch_8257_2788352227_0>: No space "
        "left on device (28)', 'job exited with 1'"),
    "img-ckpt-tmpfs": (
        f"disk_full: {TR}, '--width 96 --model-ema'; output/ is a 3 MiB tmpfs: rank 0's first torch.save of "
        "model_0.pth (after epoch 0's validation) runs out of space, the zip writer fails; rank 1 sees the gloo "
        "connection close. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: "
        "RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 689472 vs 689368', "
        "'job exited with 1'"),
    "img-crop-448-upscaled-cgroup": (
        f"host_oom_killed: {TR}, '--train-crop-size 448 --val-crop-size 448 -b 64' (32x32 crops upscaled to 448) "
        "under a 1.5 GB cgroup-v1 memory limit for the whole job: before the first progress line the kernel OOM killer "
        "SIGKILLs a DataLoader worker of rank 0, rank 0 raises, torchrun stops the job. evidence: '[rank0]: "
        "RuntimeError: DataLoader worker (pid 10444) is killed by signal: Killed. ', '[rank0]: RuntimeError: "
        "DataLoader worker (pid(s) 10444) exited unexpectedly', 'job exited with 1'"),
    "img-healthy-skip-truncated": (
        f"no_failure: {TR}, '--skip-bad-images --model-ema'; three training PNGs are truncated, the dataset's "
        "handled try/except logs a WARNING (rank 0 with the PIL traceback) and takes the next image each time they "
        "come up; 6 epochs finish, exit 0. evidence: '2026-12-02 06:10:20,943 WARNING defects [rank 0]: skipping "
        "unreadable image data/train/ok/cam5_00077.png', 'PIL.UnidentifiedImageError: cannot identify image file "
        "<_io.BufferedReader name='data/train/ok/cam5_00077.png'>', 'Training time 0:00:31', 'job exited with 0'"),
    "img-healthy-resume": (
        f"no_failure: {TR}, '--model-ema --resume output/checkpoint.pth --epochs 6'; an earlier 3-epoch run without "
        "EMA (not in this log) left the checkpoint, so loading the EMA state raises a KeyError that the script "
        "catches and logs at ERROR with its traceback on both ranks; training resumes at epoch 3 and finishes, "
        "exit 0. evidence: '2026-12-02 06:12:14,913 ERROR defects [rank 0]: checkpoint output/checkpoint.pth has "
        "no EMA weights; EMA restarts from the current model', 'KeyError: 'model_ema'', 'Resumed from "
        "output/checkpoint.pth at epoch 3', 'Training time 0:00:13', 'job exited with 0'"),
    "img-healthy-two-nodes": (
        f"no_failure: {NN}, one process per agent, both agents started by the same shell (node 1 in the "
        "background) so the log is their combined console; torchrun warns that --node-rank is ignored with c10d; "
        "6 epochs, exit 0. evidence: 'node_rank is only used for static rdzv_backend. It will be ignored for "
        "rdzv_backend=c10d.', 'Training time 0:00:30', 'job exited with 0'"),
    "img-second-node-missing": (
        f"rendezvous_timeout: {NN}, node 0 only (2 processes, 'join_timeout=30'): the second node's agent was never "
        "started, the c10d rendezvous waits for it and torchrun gives up before any rank starts. evidence: "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "img-rank-stopped-timeout": (
        f"collective_timeout: {TR}, '--epochs 8 --dist-timeout 20' (20 s process-group timeout); rank 1 is stopped "
        "with SIGSTOP in epoch 2; rank 0's DDP allreduce times out in gloo after 20 s, torchrun cannot stop the "
        "frozen rank 1 with SIGTERM and kills it. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/"
        "third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to "
        "complete', 'Unable to shutdown process 16406 via 15, forcefully exiting via 9', 'job exited with 1'"),
    "img-lr-typo": (
        f"training_divergence: {TR}, '--lr 5e4' (5e-4 meant): the loss explodes within 4 steps and turns NaN; the "
        "script's finite-loss check exits on both ranks in epoch 0. evidence: 'Epoch: [0]  [ 4/15]  eta: 0:00:01  "
        "lr: 50000.0  img/s: 280.03506861204824  loss: 4095312788455424.0000 (12142898640579085511688192.0000)', "
        "'Loss is nan, stopping training', 'job exited with 1'"),
    "img-healthy-three-ranks": (
        f"no_failure: {W}, launched with 'nice -n 5 torchrun --nproc_per_node 3 --master_port P train.py "
        "--dist-backend gloo --label-smoothing 0.1'; 160 validation images over 3 ranks: the DistributedSampler pads "
        "to 162 and the reference-style evaluate() warns each epoch that the result may be biased; 6 epochs, exit 0. "
        "evidence: '/tmp/wavebh-c-job/run/train.py:137: UserWarning: It looks like the dataset has 160 samples, but "
        "162.0 samples were used for the validation, which might bias the results. Try adjusting the batch size and "
        "/ or the world size. Setting the world size to 1 is always a safe bet.', 'Training time 0:00:27', "
        "'job exited with 0'"),
    "img-val-new-class": (
        f"worker_exception: {TR}; the validation export gained a fifth class folder ('rust', 2 images) that the "
        "training tree lacks, so validation labels go up to 4 for a 4-class head: epoch 0 trains, then "
        "CrossEntropyLoss raises on both ranks in the first validation. evidence: 'Creating data loaders: 960 train "
        "/ 162 val images, classes ['crack', 'dent', 'ok', 'scratch']', '[rank0]: IndexError: Target 4 is out of "
        "bounds.', 'job exited with 1'"),
    "img-decoded-cache-rebuilt": (
        f"native_crash: {TR}, '--decoded-cache -j 0 --epochs 8': both ranks read the pre-decoded uint8 cache "
        "data/train_u8.npy through np.load(mmap_mode='r'); in epoch 2 another job rewrites the cache in place "
        "(the harness truncates it to 4 KiB), and the next read of an unmapped page kills both ranks with SIGBUS "
        "(no Python traceback). evidence: 'exitcode  : -7 (pid: 23004)  (SIGBUS)', 'traceback : Signal 7 (SIGBUS) "
        "received by PID 23004', 'job exited with 1'"),
}
