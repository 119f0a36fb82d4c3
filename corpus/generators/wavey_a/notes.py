"""What each committed run showed: the manifest rows' notes (written after the runs, from their logs)."""
W = ("action.py: a (2+1)-D CNN action recogniser (72.2K parameters) over synthetic 16-frame 32x32 clips read from a "
     "raw uint8 clip cache (np.memmap), whole videos per rank, top-1/top-5 validation each epoch, gloo on CPU")
NOTES = {
    "torchrun-action-annotation-export-new-class":
        f"torchrun, 2 ranks; {W}. Cause: the annotation export (train.csv) carries label 12 (a class added to the "
        "labelling tool later) while classes.txt still lists 12 classes, so the head has 12 outputs and the first batch "
        "with that label fails in cross_entropy on both ranks. evidence: `train: 248 clips from 48 videos, ... 12 classes)`; "
        "`[rank1]:     loss = F.cross_entropy(net(x), y)`; `[rank1]: IndexError: Target 12 is out of bounds.`; "
        "torchrun `action.py FAILED`, `job exited with 1`.",
    "torchrun-action-loader-workers-small-shm":
        f"torchrun, 2 ranks, 2 DataLoader workers per rank, 64x64 clips, batch 32 (a 25 MB float batch); {W}. Cause: "
        "the job's /dev/shm is a 24 MB tmpfs (container default size), too small for the workers' shared-memory batches. "
        "evidence: `storage = elem._typed_storage()._new_shared(numel, device=elem.device)`; `RuntimeError: unable to "
        "allocate shared memory(shm) for file </torch_7993_1552673045_0>: No space left on device (28)` (both ranks, "
        "inside `Caught RuntimeError in DataLoader worker process 0`); `job exited with 1`.",
    "torchrun-action-pretrained-init-torch-load":
        f"torchrun, 2 ranks; {W}; --pretrained initialises the stem from a Kinetics-style checkpoint that also stores "
        "numpy normalisation stats. Cause: the script's bare torch.load(path) was written for torch < 2.6; on torch "
        "2.13 weights_only defaults to True and the numpy arrays are refused. evidence: `st = torch.load(args.pretrained)`; "
        "`_pickle.UnpicklingError: Weights only load failed.`; `In PyTorch 2.6, we changed the default value of the "
        "weights_only argument in torch.load from False to True`; `Unsupported global: GLOBAL "
        "numpy._core.multiarray._reconstruct`; `job exited with 1`.",
    "torchrun-action-label-service-stalled":
        f"torchrun, 2 ranks, --pg-timeout 30; {W}. Cause: rank 1 has no local label-fix file and fetches it from the "
        "label-correction service, which accepts the connection but never answers (urlopen without a timeout), so "
        "rank 1 never reaches DDP's first collective and rank 0's gloo op times out. evidence: `[rank1] no local label "
        "fixes for shard 1: fetching http://127.0.0.1:29571/v1/fixes?shard=1&world=2` (rank 1's last line); "
        "`[rank0] applied 0 label fixes from label-fixes-0.json`; `_verify_param_shape_across_processes`; "
        "`RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 30000ms for send operation to "
        "complete`; `exitcode  : -15 (pid: 8130)  (SIGTERM)` for rank 1 (collateral).",
    "mpirun-action-healthy-3-ranks":
        f"Open MPI mpirun -np 3; {W}; 4 epochs, 9 steps/rank (the smallest rank's count), validation and checkpoint "
        "every epoch. Healthy. evidence: `training 4 epochs x 9 steps/rank, batch 16/rank, global batch 48`; "
        "`eval epoch 4: top-1 0.100 top-5 0.477`; `done: 4 epochs, 36 steps, 61.7 s`; `job exited with 0`.",
    "mpirun-action-world-size-from-profile":
        f"Open MPI mpirun -np 2, --pg-timeout 40; {W}. Cause: WORLD_SIZE=4 left exported in the shell (from a two-node "
        "setup); the script lets an explicit WORLD_SIZE win over Open MPI's size, so the store waits for 4 ranks and "
        "only 2 exist. evidence: `[rank0] init_process_group(gloo) world 4 master 127.0.0.1:29733` under `mpirun -np 2` "
        "(two ranks only); `[c10d] waitForInput: socket ... timed out after 40000ms`; `torch.distributed.DistStoreError: "
        "wait timeout after 40000ms, keys: /default_pg/0//cpu//0/0`; `job exited with 1`.",
    "mpirun-action-preload-upsampled-cgroup":
        f"Open MPI mpirun -np 2 in a 1.3 GB memory cgroup; {W}. Cause: --preload 112 decodes every training clip into RAM "
        "upsampled to 112x112 float32 (about 2.4 MB a clip, then stacked into one tensor: a second copy), past the "
        "cgroup limit; the kernel OOM killer kills rank 0. evidence: `preloading 248 training clips at 112x112`; "
        "`preloaded 200/248 clips` (last progress); `mpirun noticed that process rank 0 with PID 0 on node vm exited on "
        "signal 9 (Killed).`; `job exited with 137`.",
    "slurm-action-healthy":
        f"Slurm sbatch --wait (2 tasks, srun --kill-on-bad-exit=1); {W}; 4 epochs x 15 steps/rank. Healthy. "
        "evidence: `job 1 (action-r21d) partition batch on vm: 2 task(s), master vm:29795, time limit UNLIMITED`; "
        "`done: 4 epochs, 60 steps, 88.8 s`; `srun exited with 0`.",
    "slurm-action-preempted-by-urgent-partition":
        f"Slurm sbatch --wait in partition batch (PreemptMode=CANCEL, GraceTime=20); {W}; a 40-epoch run. Cause: "
        "during epoch 2 a job was submitted to the higher-priority partition urgent asking for all 4 CPUs of the node, "
        "so slurmctld preempted (cancelled) this job: SIGTERM to its step. evidence: `partition batch on vm`; "
        "`epoch 2 step 6/15 loss 2.3239` (training healthy until then); `slurmstepd-vm: error: *** STEP 3.0 ON vm "
        "CANCELLED AT 2026-11-28T21:32:11 ***`; `srun: error: vm: tasks 0-1: Terminated`; `srun exited with 143`.",
    "deepspeed-action-healthy":
        f"DeepSpeed launcher --num_gpus 2 on its CPU accelerator (ZeRO stage 0, SGD from the config); {W}; 4 epochs. "
        "Healthy; alarming-looking but harmless launcher lines. evidence: `[WARNING] [real_accelerator.py:213:get_accelerator] "
        "Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to detect it.`; `[WARNING] "
        "[runner.py:214:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.`; "
        "`done: 4 epochs, 60 steps, 64.6 s`; `[launch.py:285:main] Process 9535 exits successfully.`; `job exited with 0`.",
    "deepspeed-action-master-port-preview-server":
        f"DeepSpeed launcher --num_gpus 2 --master_port 29583; {W}. Cause: a clip preview server (python -m http.server "
        "29583, started earlier on the same host to browse the data) already listens on the chosen master port, so "
        "rank 0's TCPStore cannot bind it. evidence: `--master_addr=127.0.0.1 --master_port=29583`; "
        "`torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: "
        "29583, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use`; `[launch.py:253:sigkill_handler] "
        "Killing subprocess 9775`; `job exited with 1`.",
    "accelerate-action-healthy-resumed":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) --resume; {W}. An earlier 2-epoch run (torchrun, "
        "not in this log) left ckpt/last.pt; this run resumes at epoch 3 and finishes epoch 4. Healthy (a recovered "
        "restart). evidence: `resuming from ckpt/last.pt: epoch 2 done, val top-1 0.138`; `eval epoch 4: top-1 0.223 "
        "top-5 0.515`; `done: 4 epochs, 60 steps, 48.4 s`; `job exited with 0`.",
    "accelerate-action-ssh-session-closed":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) started in the foreground of an SSH terminal; {W}; "
        "a 30-epoch run. Cause: the terminal/SSH session closed during epoch 2 and the launcher's process group got "
        "SIGHUP (signal 1); torch elastic's agent inside accelerate forwarded it to the ranks and the shell running "
        "the job died too (no exit line). evidence: `epoch 2 step 6/15 loss 2.2485` (healthy until then); "
        "`torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers`; "
        "`Sending process 10418 closing signal SIGHUP`; the log ends there.",
    "torchrun-action-clip-cache-reencoded-in-place":
        f"torchrun, 2 ranks, --refresh-cache; {W}. Cause: after epoch 1 rank 0 re-encodes the clip cache file in place "
        "(open 'wb' truncates it, then rewrites clip by clip) in a background thread while both ranks' np.memmap "
        "views of the same file are being read: touching a mapped page past the truncated end raises SIGBUS in native "
        "code on both ranks. evidence: `[rank0] refreshing clip cache data/clips-train.u8 in the background`; `Fatal "
        "Python error: Bus error`; `File \"/tmp/wavey-a-job/run/action.py\", line 225 in refresh_cache` (the other thread); "
        "`File \"/tmp/wavey-a-job/run/action.py\", line 113 in clip` (the memmap read); `exitcode  : -7 (pid: 10771)  "
        "(SIGBUS)`; `traceback : Signal 7 (SIGBUS) received by PID 10770`; `job exited with 1`.",
    "slurm-action-epoch-checkpoints-scratch":
        f"Slurm sbatch --wait (2 tasks); {W} at width 48 (273.2K parameters, a ~2.2 MB checkpoint with SGD momentum). "
        "Cause: --keep-ckpts copies last.pt to epoch-NNN.pt on an 8 MB node-local scratch volume that an earlier run's "
        "4.5 MB shard already fills in part; after last.pt is saved, the epoch copy runs out of space on rank 0 and "
        "rank 1 then sees the connection close. evidence: `--keep-ckpts 1 --ckpt-dir scratch/r21d`; "
        "`shutil.copyfile(ck, os.path.join(args.ckpt_dir, f\"epoch-{epoch:03d}.pt\"))`; `OSError: [Errno 28] No space left "
        "on device: 'scratch/r21d/last.pt' -> 'scratch/r21d/epoch-001.pt'`; rank 1 `Connection closed by peer` "
        "(symptom); `srun exited with 143`.",
    "accelerate-action-recipe-lr-unscaled":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo); {W}. Cause: --lr 25.6 (a large-batch recipe's "
        "learning rate used as is for a global batch of 32) with --warmup-steps 0: SGD diverges from the first steps; "
        "BatchNorm keeps the loss finite, so the run completes uselessly with the loss in the millions and accuracy "
        "near chance (12 classes; ln 12 = 2.48 at init). evidence: `training 4 epochs x 15 steps/rank, batch 16/rank, "
        "global batch 32, lr 25.6`; `epoch 1 step 9/15 loss 14320.2715 lr 2.560e+01`; `epoch 3 step 9/15 loss "
        "1082643.7500`; `epoch 4 step 15/15 loss 6886169.5000 lr 2.560e+01`; `eval epoch 4: top-1 0.077 top-5 0.331`; "
        "`job exited with 0`.",
}
