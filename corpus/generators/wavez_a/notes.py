"""What each committed run showed: the manifest rows' notes (written after the runs, from their logs)."""
W = ("mae.py: masked-autoencoder pretraining of a tiny ViT (157.4K encoder + 36.9K decoder parameters, patch 4 on "
     "32x32 synthetic shape images, 75% random patch masking, MSE on masked patches), val reconstruction loss and a "
     "linear probe on gathered frozen features after each epoch, rank-0 checkpoints, gloo on CPU")
NOTES = {
    "torchrun-mae-healthy-object-masking-debug-info":
        f"torchrun, 2 ranks, 8 epochs, object-aware masking at 24x24, TORCH_DISTRIBUTED_DEBUG=INFO, OMP_NUM_THREADS "
        f"unset; {W}. No failure: the alarming lines are torchrun's OMP_NUM_THREADS banner and numpy's non-writable "
        "array UserWarning from the memmapped images. evidence: `Setting OMP_NUM_THREADS environment variable for each "
        "process to be 1 in default`; `UserWarning: The given NumPy array is not writable`; `done: 8 epochs, 192 steps`; "
        "`job exited with 0`.",
    "torchrun-mae-probe-labels-new-export-unlabeled":
        f"torchrun, 2 ranks; {W}. Cause: the new image export marks unlabeled images with label -1 (5% of train); the "
        "pretraining itself ignores labels, but the linear probe after epoch 1 feeds them to cross_entropy, which fails on "
        "every rank. evidence: `in linear_probe`; `l = F.cross_entropy(head(ftr), ytr)`; `[rank0]: IndexError: Target -1 "
        "is out of bounds.` (both ranks); torchrun `mae.py FAILED`; `job exited with 1`.",
    "torchrun-mae-object-masking-flood-fill-hires":
        f"torchrun, 2 ranks, --object-mask 224; {W}. Cause: object-aware masking segments each image's background with "
        "a recursive flood fill (through a generator expression) at 224x224 after raising the recursion limit; the "
        "recursion overflows the C stack and the interpreter segfaults while segmenting. evidence: `segmenting 768 "
        "images at 224x224 for object-aware masking`; `Fatal Python error: Segmentation fault`; repeated `File "
        "\".../mae.py\", line 118 in fill` / `in <genexpr>` frames; `exitcode  : -11 ... (SIGSEGV)`; `Signal 11 (SIGSEGV) "
        "received by PID`; `job exited with 1`.",
    "torchrun-mae-async-checkpoint-lock-reentry":
        f"torchrun, 2 ranks, --async-ckpt --upload to an object-store gateway that reads slowly; {W}. Cause: the async "
        "checkpointer's save() holds its non-reentrant lock and, because the previous checkpoint's upload thread is "
        "still alive, calls wait(), which takes the same lock: rank 0 deadlocks after `checkpoint epoch 2`, rank 1 "
        "waits in DDP's backward all-reduce under the default 30 min timeout, nothing errors. The user dumped stacks "
        "with SIGUSR1 (faulthandler) after ~40 s and pressed Ctrl-C. evidence: rank 0's last line `checkpoint epoch 2 "
        "-> ckpt/last.pt (async)`; dump `Current thread ... File \".../mae.py\", line 367 in wait` / `in save`; the "
        "upload thread in `_read_status` / `in upload` / `in _write`; rank 1's dump in `_engine_run_backward`; "
        "`Received 2 death signal, shutting down workers`; `KeyboardInterrupt` in `with self.lock`; `job exited with 1`.",
    "torchrun-2node-mae-node1-stages-data-late":
        f"two torchrun agents (node0.log, node1.log) on one host, c10d rendezvous at 127.0.0.1:29575, "
        f"join_timeout=20; {W}. Cause: node 1 has no local image cache and renders it (150K images) before starting "
        "its agent, so it reaches the rendezvous after node 0 has given up. evidence: node1 `node1: no local image "
        "cache, rendering it`, `train: 150000 images`; node0 `RendezvousTimeoutError`; both `job exited with 1`.",
    "mpirun-mae-healthy-3-ranks":
        f"Open MPI mpirun -np 3, 8 epochs; {W}. No failure. evidence: `world 3`; `train shard: 512 images`; `eval epoch 8`; "
        "`done: 8 epochs, 128 steps`; `job exited with 0`.",
    "mpirun-mae-resume-from-48px-pretraining":
        f"mpirun -np 2, --resume pretrain-48px/last.pt; {W}. Cause: the run at 32x32 resumes weights from a pretraining "
        "run at 48x48 (144 patches), so the position embeddings do not fit; load_state_dict raises on both ranks. "
        "evidence: `model.load_state_dict(st[\"model\"])`; `RuntimeError: Error(s) in loading state_dict for MAE:`; "
        "`size mismatch for pos: copying a param with shape torch.Size([1, 144, 64]) from checkpoint, the shape in "
        "current model is torch.Size([1, 64, 64]).`; mpirun `exited with non-zero status`; `job exited with 1`.",
    "mpirun-mae-sync-checkpoint-upload-slow-gateway":
        f"mpirun -np 2, --upload to an object-store gateway that reads ~20 KB/s, --pg-timeout 30; {W}. Cause: rank 0 "
        "uploads each checkpoint synchronously after saving it; the 2.3 MiB upload through the slow gateway takes "
        "minutes, rank 1 goes on into epoch 2 and its gloo recv in DDP's all-reduce times out after 30 s. evidence: "
        "`[rank0] INFO uploading ckpt/last.pt (2.3 MiB) to http://127.0.0.1:29571/mae-runs` (rank 0's last training "
        "line); `[rank1]: RuntimeError: ... Timed out waiting 30000ms for recv operation to complete`; `job exited with 1`.",
    "mpirun-mae-precomputed-views-cgroup":
        f"mpirun -np 2, --views 48, job in a 1.2 GB memory cgroup; {W}. Cause: each rank precomputes 48 augmented "
        "float32 views of each of its 768 images in RAM (432 MiB, plus the copy torch.stack makes); the kernel OOM "
        "killer kills a rank. evidence: `precomputing 48 augmented views for each of 768 images`; `view bank (768, 48, "
        "3, 32, 32), 432 MiB`; `mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 9 (Killed).`; "
        "`job exited with 137`.",
    "slurm-mae-healthy":
        f"sbatch (2 tasks, srun) on a one-node Slurm cluster, 8 epochs; {W}. No failure; the batch script prints "
        "`scontrol show job` after srun. evidence: `done: 8 epochs`; `srun exited with 0`; `JobState=RUNNING "
        "Reason=None`; `PreemptTime=None`.",
    "slurm-mae-recon-previews-scratch":
        f"sbatch (2 tasks), --viz-dir scratch/mae-previews on an 8 MB scratch tmpfs already holding an old run's 5 MB "
        f"shard; {W}. Cause: the reconstruction previews (np.savez, 1.5 MiB each) fill the volume at epoch 2. evidence: "
        "`wrote reconstruction preview scratch/mae-previews/recon-epoch001.npz (1.5 MiB)`; `np.savez(path, image=..., "
        "pred=..., mask=...)`; `OSError: [Errno 28] No space left on device`; rank 1 `Connection closed by peer`; "
        "`srun exited with 143`.",
    "slurm-mae-preempted-sigterm-checkpoint":
        f"sbatch (2 tasks) in the preemptable `batch` partition, 60 epochs; {W}. Cause: a job submitted to the "
        "higher-priority `urgent` partition needs the whole node; Slurm preempts (cancels) the batch job, the ranks "
        "get SIGTERM, save a checkpoint and exit 143. evidence: `slurmstepd-vm: error: *** STEP ... CANCELLED AT`; "
        "`WARNING received SIGTERM: will checkpoint and stop after this step`; `saved ckpt/last.pt at step ... before "
        "exiting on signal 15`; `srun exited with 143`; scontrol `PreemptTime=2026-11-28T...`.",
    "deepspeed-mae-vendored-sincos-pos-embed":
        f"DeepSpeed launcher (--num_gpus 2 on its CPU accelerator), --pos-embed sincos; {W}. Cause: the sine-cosine "
        "position embeddings come from the MAE reference repo's util/pos_embed.py, vendored as is, which uses np.float "
        "(removed in NumPy 1.24); this env has numpy 2.4.6. evidence: `numpy 2.4.6`; `File \".../pos_embed.py\", line "
        "26, in get_1d_sincos_pos_embed_from_grid`; `omega = np.arange(embed_dim // 2, dtype=np.float)`; "
        "`AttributeError: module 'numpy' has no attribute 'float'.`; `np.float was a deprecated alias for the builtin "
        "float`; the launcher's non-zero exit; `job exited with 1`.",
    "accelerate-mae-norm-pix-loss-flat-patches":
        f"accelerate launch (2 processes), --norm-pix-loss; {W}. Cause: the per-patch pixel normalisation is written "
        "by hand as (p - mean) / var.sqrt() without an epsilon; the export contains uniform grey placeholder images "
        "(failed downloads), whose flat patches give 0/0, so the loss is NaN whenever one is in a batch; the loop "
        "aborts after 8 NaN steps on a rank. evidence: `WARNING epoch 1 step 2: loss is nan, skipping step (1 so "
        "far)` and many more; `recon loss nan`; `FloatingPointError: reconstruction loss is nan for 8 steps, "
        "aborting`; `job exited with 1`.",
    "deepspeed-mae-master-port-feature-cache":
        f"DeepSpeed launcher (--num_gpus 2 on its CPU accelerator), --master_port 29591 while a feature-cache manager "
        f"(multiprocessing BaseManager, 0.0.0.0:29591) listens on that port; {W}. Cause: rank 0 cannot bind the c10d "
        "store on the master port, and the ranks' store clients reach the manager instead (wrong handshake). evidence: "
        "`--master_port=29591`; `TCP client failed to connect/validate to host 127.0.0.1:29591 ... Ping failed, invalid "
        "value returned from server`; `torch.distributed.DistNetworkError: The server socket has failed to listen on any "
        "local network address. port: 29591, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in "
        "use`; `exits with return code = 1`; `job exited with 1`.",
    "accelerate-mae-healthy-main-port-taken-fallback":
        f"accelerate launch (2 processes), 8 epochs, --main_process_port 29591 while a feature-cache manager "
        f"(multiprocessing BaseManager) listens on that port; {W}. No failure: accelerate notices the port is taken and "
        "picks a free one itself. evidence: `UserWarning: Port `29591` is already in use. Accelerate will attempt to "
        "launch in a standalone-like mode by finding an open port automatically`; `done: 8 epochs`; `job exited with 0`.",
}
