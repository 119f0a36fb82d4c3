"""What each committed wave AH (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "seg3d.py (3-D lesion segmenter: a small 3-D U-Net over synthetic 32^3 CT-like volumes with spherical and " \
    "ellipsoidal lesions, HU window, soft Dice + cross entropy, validation Dice per class all-reduced, gloo)"
NOTES = {
    "torchrun-seg3d-scanner-export-28-slices":
        f"torchrun, 2 ranks, {W}; shard vol-01.npy came from another scanner's export with 28 slices instead of 32, so "
        "rank 1's volumes (28, 32, 32) pass three 2x max-pools as 28->14->7->3 and the decoder's upsampled 6-slice map "
        "cannot be concatenated with the 7-slice skip connection: RuntimeError in the U-Net's forward on rank 1 at the "
        "first step; rank 0 then loses its peer. evidence: \"rank 1: shards ['vol-01.npy'], 24 volumes (28, 32, 32)\", "
        "'[rank1]:     x = self.dec[i](torch.cat([self.up[i](x), skips[i]], dim=1))', '[rank1]: RuntimeError: Sizes of "
        "tensors must match except in dimension 1. Expected size 6 but got size 7 for tensor number 1 in the list.', "
        "rank 0's 'Connection closed by peer', torchrun 'rank : 1 (local_rank: 1) exitcode : 1', 'job exited with 1'",
    "torchrun-seg3d-vendored-affine-augmentation":
        f"torchrun, 2 ranks, {W}, --augment: the 3-D affine augmentation module aug3d.py, vendored from an older "
        "in-house package written against NumPy 1.16, builds its matrix with the removed alias np.float; under NumPy "
        "2.4.6 both ranks raise AttributeError in the Dataset at the first batch. evidence: 'numpy 2.4.6' in the args "
        "line, '[rank1]:   File \"/tmp/waveah-a-job/run/aug3d.py\", line 17, in matrix', '[rank1]:     m = "
        "np.zeros((3, 4), dtype=np.float)', \"[rank1]: AttributeError: module 'numpy' has no attribute 'float'.\", "
        "'`np.float` was a deprecated alias for the builtin `float`', 'exitcode : 1', 'job exited with 1'",
    "torchrun-seg3d-lesion-detection-f1":
        f"torchrun, 2 ranks, {W}, --lesion-f1: after the first epoch each rank finds connected components in its "
        "share of the validation predictions and all_gathers a (lesions x 5) tensor sized by its own lesion count, "
        "so the ranks contribute tensors of different sizes to one all_gather: gloo aborts rank 1 "
        "(SIGABRT) and rank 0 then fails in the next all_reduce. evidence: 'lesion detection: 1610 predicted lesions "
        "over the validation set', \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", "
        "'op.preamble.length <= op.nbytes. 8050 vs 7390. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', 'distributed_c10d.py\", line 4287 in all_gather', "
        "'File \"/tmp/waveah-a-job/run/seg3d.py\", line 358 in main', 'exitcode : -6 (pid: ...) (SIGABRT)', "
        "'job exited with 1'",
    "mpirun-seg3d-generalized-dice":
        f"Open MPI mpirun -np 2, {W}, --loss gdl: generalized Dice loss with class weights 1/(sum of ground truth)^2 "
        "and no epsilon; a batch whose volumes have no ellipsoid lesion gives that class an infinite weight and "
        "inf*0 = NaN, so loss and gradients go NaN at step 12 and stay NaN (weights corrupted); the script stops "
        "after 10 non-finite steps and rank 1 loses its peer. evidence: 'loss gdl', 'epoch 0 step 8 loss 0.9620 "
        "grad-norm 0.025', 'epoch 0 step 12 loss nan grad-norm nan', 'eval epoch 0: train loss nan ... sphere 0.0000 "
        "ellipsoid 0.0000', 'rank 0: loss not finite for 10 steps (last nan), stopping', 'Exit code: 3', "
        "'job exited with 3'",
    "mpirun-seg3d-prediction-export-volume":
        f"Open MPI mpirun -np 2, {W}, --export-preds review/preds: each rank writes predicted masks and float16 "
        "class probabilities of its validation volumes to a 1 MB review volume already holding 400 KB, which fills "
        "at the first evaluation. evidence: '[rank0]: OSError: [Errno 28] No space left on device', "
        "'np.save(os.path.join(a.export_preds, f\"epoch{epoch:02d}\", f\"val-{j:03d}-prob.npy\")', '[rank1]: "
        "OSError: 98304 requested and 49088 written', mpirun 'Exit code: 1', 'job exited with 1'",
    "mpirun-seg3d-lesion-boxes-helper":
        f"Open MPI mpirun -np 2, {W}, --lesion-boxes: validation computes lesion bounding boxes with a small C helper "
        "(libboxes.so via ctypes, built with -fstack-protector-strong) whose flood fill keeps its stack in a fixed "
        "on-stack array for 4096 voxels; an untrained model's predicted lesion regions are far larger, the array "
        "overflows and glibc aborts on the smashed stack canary in both ranks (the faulthandler dump itself "
        "segfaults). evidence: '*** stack smashing detected ***: terminated', 'Fatal Python error: Aborted', "
        "'Fatal Python error: Segmentation fault', 'mpirun noticed that process rank 0 with PID 0 on node vm exited "
        "on signal 11 (Segmentation fault).', 'job exited with 139'",
    "deepspeed-seg3d-micro-batch-lowered":
        f"DeepSpeed launcher --num_gpus 2 (CPU accelerator, ZeRO 0, torch Adam), {W}, --batch-size 1 --ds-config "
        "ds_config.json: the config's micro batch was lowered to 1 (with gradient accumulation 2) but "
        "train_batch_size stayed 8, so DeepSpeed's batch check fails on both ranks in deepspeed.initialize. evidence: "
        "\"DeepSpeed config from ds_config.json: {'train_batch_size': 8, 'train_micro_batch_size_per_gpu': 1, "
        "'gradient_accumulation_steps': 2\", 'AssertionError: Check batch related parameters. train_batch_size is not "
        "equal to micro_batch_per_gpu * gradient_acc_step * world_size 8 != 1 * 2 * 2', 'job exited with 1'",
    "torchrun-seg3d-healthy-restart-after-shard-sync":
        f"torchrun --max-restarts 1, 2 ranks, {W}, 6 epochs; healthy despite a first failed attempt: shard "
        "vol-01.npy was still being synced (only a .partial file) when the job started, rank 1 waited 3 s and raised "
        "FileNotFoundError, torchrun restarted the worker group, the sync had completed and the second attempt trained "
        "to the end. evidence: 'rank 1: waiting for data/vol-01.npy', \"[rank1]: FileNotFoundError: [Errno 2] No such "
        "file or directory: 'data/vol-01.npy'\", 'failed (exitcode: 1) local_rank: 1', then \"rank 1: shards "
        "['vol-01.npy'], 24 volumes\", 'eval epoch 5: ... mean-fg', 'done: 6 epochs', 'job exited with 0'",
    "torchrun-seg3d-prefetcher-odd-shard":
        f"torchrun, 2 ranks, {W}, --prefetch: a background-thread prefetcher yields len() = ceil(volumes / batch) "
        "batches but its filler thread only produces full batches; rank 0's shard has 25 volumes (13 vs 12), so after "
        "its 12th step rank 0 blocks forever in queue.get() while rank 1 waits in the evaluation all_reduce under a "
        "30-minute process-group timeout: no output for a minute, then the user presses Ctrl-C. evidence: \"rank 0: "
        "shards ['vol-00.npy'], 25 volumes\", last progress 'epoch 0 step 12 loss 1.9015' at 09:38:55, nothing until "
        "'Received 2 death signal, shutting down workers' at 09:39:57, '[rank0]:     yield self.q.get()' / "
        "'self.not_empty.wait()' / '[rank0]: KeyboardInterrupt', rank 1 in 'dist.all_reduce(part)', "
        "'SignalException: Process ... got signal: 2', 'job exited with 1'",
    "mpirun-seg3d-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, 3 shards of 16 volumes, 6 epochs; healthy (rank lines interleaved on the "
        "console). evidence: \"rank 2: shards ['vol-02.npy'], 16 volumes (32, 32, 32)\", 'eval epoch 5: train loss "
        "1.3642 val Dice background 0.9952 sphere 0.7312 ellipsoid 0.0169 mean-fg 0.3740', 'done: 6 epochs, best val "
        "Dice 0.3740', 'job exited with 0'",
    "deepspeed-seg3d-healthy":
        f"DeepSpeed launcher --num_gpus 2 on its CPU accelerator (ZeRO stage 0, torch Adam), {W}, 6 epochs; healthy "
        "despite DeepSpeed's accelerator and hostfile warnings. evidence: 'Setting accelerator to CPU', 'Unable to "
        "find hostfile, will proceed with training with local resources only', 'done: 6 epochs, best val Dice 0.4136', "
        "'Process ... exits successfully.', 'job exited with 0'",
    "deepspeed-seg3d-exact-hd95":
        f"DeepSpeed launcher --num_gpus 2 (CPU accelerator), {W}, --hd95 3, inside a 1.2 GB memory cgroup: the first "
        "evaluation computes an exact 95% Hausdorff distance from all predicted and ground-truth foreground voxels "
        "upsampled 3x, a full torch.cdist matrix (tens of thousands x tens of thousands of float32) per volume and "
        "class; the kernel OOM killer (memory cgroup) killed rank 0 and then rank 1 before any HD95 line was printed. "
        "evidence: \"args {... 'hd95': 3 ...}\", last line before the kill 'epoch 0 step 12 loss 1.9151', "
        "'[launch.py:253:sigkill_handler] Killing subprocess ...', \"['/tmp/corpus-venv-na/bin/python3', '-u', "
        "'seg3d.py', '--local_rank=1', '--deepspeed', '--hd95', '3', '--epochs', '3'] exits with return code = -9\", "
        "'job exited with 247'",
    "deepspeed-seg3d-sliding-window-report":
        f"DeepSpeed launcher --num_gpus 2 (CPU accelerator), {W}, --sw-eval --pg-timeout 20: after each epoch rank 0 "
        "alone also runs full-volume sliding-window inference (16^3 patches, stride 2: 729 patches per volume) over "
        "all 12 validation volumes before joining the Dice all_reduce; rank 1 waits in that all_reduce and gloo's "
        "20 s timeout fires; rank 0 finishes its report ~40 s after the last step and finds its peer gone. evidence: "
        "\"args {... 'sw_eval': True ... 'pg_timeout': 20 ...}\", 'epoch 0 step 12 loss 1.9151' at 09:43:47, "
        "'[rank1]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv "
        "operation to complete', 'sliding-window Dice: background 0.7760 sphere 0.0000 ellipsoid 0.0094' at 09:44:27, "
        "rank 0 'Connection closed by peer', launcher 'sigkill_handler ... exits with return code = 1', "
        "'job exited with 1'",
    "accelerate-seg3d-healthy":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo), {W}, 6 epochs; healthy: the ellipsoid class "
        "stays poorly segmented (val Dice near 0) while spheres reach ~0.8, which is a model-quality matter, not a "
        "failure. evidence: 'eval epoch 4: ... sphere 0.8239 ellipsoid 0.0000 mean-fg 0.4119', 'saved ckpt/last.pt "
        "(epoch 5, val Dice 0.3957)', 'done: 6 epochs, best val Dice 0.4119', 'job exited with 0'",
    "mpirun-seg3d-maintenance-sigterm":
        f"Open MPI mpirun -np 2, {W}, 8 epochs planned; during epoch 2 the node's maintenance drain sent SIGTERM to "
        "the job's mpirun, which forwarded it to the ranks: both log the signal, rank 0 writes a last checkpoint, both "
        "exit early and mpirun returns non-zero. evidence: 'eval epoch 1: ... mean-fg 0.2449', 'rank 1: received "
        "SIGTERM, will checkpoint and exit after this step', 'rank 0: received SIGTERM, will checkpoint and exit after "
        "this step', 'saved ckpt/last.pt (epoch 2, val Dice nan)', 'rank 0: exiting on SIGTERM at epoch 2 step 30', "
        "'job exited with 1'",
    "mpirun-seg3d-lr-sweep-same-master-port":
        f"Open MPI mpirun -np 2, {W}, --lr 1e-3, started by a learning-rate sweep while the sweep's previous job "
        "(--lr 3e-3, same command otherwise) was still training on the same node with the same exported MASTER_PORT "
        "29721: rank 0 cannot create the TCPStore. evidence: 'torch.distributed.DistNetworkError: The server socket "
        "has failed to listen on any local network address. port: 29721, useIpv6: false, code: -98, name: EADDRINUSE, "
        "message: address already in use', 'dist.init_process_group(\"gloo\", timeout=timeout)', mpirun 'Process "
        "name: [[...,1],0] Exit code: 1', 'job exited with 1'",
}
