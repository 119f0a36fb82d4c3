"""What each committed wave AM (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "landcover_vit.py (small vision transformer for land-cover classification of synthetic 8-band 32x32 satellite " \
    "tiles: 4x4 patch embedding, 3 pre-norm transformer blocks, Composer's LabelSmoothing, soft cross entropy, " \
    "top-1 accuracy via torchmetrics synced across ranks; composer.Trainer on CPU with gloo DDP, SpeedMonitor, " \
    "LRMonitor, console logger, rank-0 checkpoints every epoch)"
C = "composer -n 2 launcher (Composer's own; rank 0's output on the console, the other ranks' output kept in temp " \
    "files and printed only when that rank fails)"
N = "two composer launchers as two 'nodes' of one process each (--world_size/--node_rank/--master_addr/--master_port " \
    "on 127.0.0.1); only node 0's console kept"
T = "torchrun --nproc-per-node 2 (Composer reads torchrun's environment)"
NOTES = {
    "composer-tiles-healthy":
        f"{C}, {W}, 5 epochs with --weight-decay 1e-3: Composer warns at start-up that the weight decay is high and "
        "'weights will be multiplied by 0.999 on every step' (harmless) and a UserWarning that the last eval batch "
        "(12 tiles) cannot be split into microbatches of 32; training finishes. evidence: 'You are using a high value "
        "of `weight_decay=0.001` for the `DecoupledAdamW` optimizer', 'eval after epoch 5: top-1 accuracy 1.0000', "
        "'done: 5 epochs, final checkpoint in checkpoints', 'job exited with 0'",
    "composer-tiles-healthy-resumed":
        f"{C}, {W}, --autoresume with run name tiles-vit-b: an earlier 2-epoch run of the same name left its "
        "checkpoints in checkpoints/ (not logged); Composer's autoresume loads latest-rank0.pt and the run continues "
        "from epoch 3 to epoch 5 (the log starts at epoch 3, step 80). evidence: 'epoch 3 step 80 loss', 'eval after "
        "epoch 5: top-1 accuracy 1.0000', 'done: 5 epochs', 'job exited with 0'",
    "composer-tiles-pixel-tokens":
        f"{C}, {W}, --patch-size 1 (one token per pixel: 1025 tokens per tile, attention and MLP activations for 32 "
        "tiles per rank) inside a 2 GB memory cgroup: the kernel OOM killer SIGKILLs rank 1 at the first step; the "
        "launcher reports it and stops rank 0 (143). evidence: 'model: 216840 parameters, 3 blocks, patch 1', "
        "'ERROR:composer.cli.launcher:Rank 1 crashed with exit code -9.', 'Global rank 0 ... exited with code 143', "
        "'job exited with 143'",
    "composer-tiles-cloud-mask":
        f"{C}, {W}, --cloud-mask otsu: a small C helper (libotsu.so via ctypes) builds a 256-bin brightness "
        "histogram per tile, bin = (int)(reflectance*255) without clamping; a re-exported training shard (train-05) "
        "holds digital numbers (reflectance x 10000) instead of reflectance, the bin index runs millions past the "
        "stack array and both ranks die with SIGSEGV in the DataLoader fetch of the first batch. evidence: 'Fatal "
        "Python error: Segmentation fault', faulthandler stack 'landcover_vit.py, line 92 in __getitem__', "
        "'Rank 0 crashed with exit code -11.', 'Global rank 1 ... exited with code -11', 'job exited with 245'",
    "composer-tiles-spectral-indices":
        f"{C}, {W}, --indices ndvi,ndwi,ndsi appends normalised-difference indices (a-b)/(a+b) as channels; a "
        "re-exported shard (train-02) has tiles cut by the swath edge, whose outside pixels are 0 in every band, so "
        "0/0 gives NaN inputs; the loss is NaN at step 8 and the script's finiteness check raises on both ranks. "
        "evidence: '[rank 0] step 8: non-finite loss nan', 'FloatingPointError: loss is nan at step 8', 'Rank 0 "
        "crashed with exit code 1.', 'job exited with 1'",
    "composer-tiles-local-scratch":
        f"{C}, {W}, --stage-to a node-local scratch volume (64 MB tmpfs): local rank 0 copies the 94 MB of shards "
        "there before training and the copy fails; rank 1 waits in the barrier and is stopped by the launcher. "
        "evidence: \"OSError: [Errno 28] No space left on device: 'data/train-06.npz' -> "
        "'/tmp/waveam-a-job/run/scratch/landcover-tiles/train-06.npz'\", 'Rank 0 crashed with exit code 1.', "
        "'job exited with 1'",
    "composer-tiles-balanced-batches":
        f"{C}, {W}, --balanced-batches: a batch sampler (a DistributedSampler subclass) redraws each batch until it "
        "holds every class; rank 1 reads the second half of the shards, which were re-exported without snow/ice tiles "
        "(moved to a winter set), so its sampler loops forever before the first batch while rank 0 waits in the "
        "first gradient all-reduce (300 s gloo timeout). No output for 90 s, then the user presses Ctrl-C: Composer's "
        "signal handler turns SIGINT into SystemExit 130 in the launcher and in both ranks. evidence: no training "
        "step after the Config block, 'SystemExit: 130', 'Killing training processes', 'Global rank 0 ... exited with "
        "code 130', 'job exited with 130'",
    "composer-tiles-spot-notice":
        f"{C}, {W}, 10 epochs with --save-on-sigterm: in epoch 2 the cloud scheduler sends SIGTERM to every process of "
        "the job (launcher and ranks) ahead of reclaiming the spot node; the launcher's Composer handler exits 143 "
        "and it forwards SIGTERM to the ranks, whose handler stops at the batch boundary and saves a checkpoint. "
        "evidence: '[rank 0] received signal 15; will checkpoint and stop', 'SystemExit: 143', 'Killing training "
        "processes', 'stopped at batch 69 after a signal; checkpoint saved', 'job exited with 143'",
    "composer-tiles-ssh-closed":
        f"{C}, {W}, 10 epochs run in the foreground of an SSH session that closes in epoch 3: SIGHUP to the job's "
        "process group; nothing in Composer or the script handles SIGHUP, launcher and ranks die at once and the log "
        "just stops after 'eval after epoch 2' (no traceback, no 'job exited' line: the shell died too).",
    "composer-tiles-second-experiment":
        f"{C} without --master_port, {W}: the user's login profile exports MASTER_PORT=29823 (kept from a multi-node "
        "setup) and Composer's launcher takes the port from the environment; a second experiment is started on the "
        "same node while the first (another learning rate, same environment) is still training, and the new job's "
        "rank 0 cannot bind the TCP store. evidence: 'torch.distributed.DistNetworkError: The server socket has "
        "failed to listen on any local network address. port: 29823, useIpv6: false, code: -98, name: EADDRINUSE, "
        "message: address already in use', 'Rank 0 crashed with exit code 1.', 'job exited with 1'",
    "composer-tiles-class-report":
        f"{C}, {W}, --class-report --dist-timeout 20: after each evaluation rank 0 alone computes a per-class report "
        "over the training tiles with pure-Python GLCM texture statistics (about 30 s); rank 1 goes on into the next "
        "collective (all_gather_object) and gloo gives up after the 20 s process-group timeout. evidence: "
        "'RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting "
        "20000ms for send operation to complete' in rank 1's output printed by the launcher, 'all_gather_object', "
        "'job exited with 143'",
    "composer-tiles-team-site":
        f"{C}, {W}, with PYTHONPATH pointing at the team's shared site directory, which holds torchvision 0.28.0 "
        "(built for torch 2.13) ahead of the venv's torchvision 0.22.0 (torch 2.7.0): `import composer` imports "
        "torchvision and its operator registration fails on every rank. evidence: "
        "'/tmp/waveam-a-job/site-packages/torchvision/_meta_registrations.py', 'RuntimeError: operator "
        "torchvision::nms does not exist', 'job exited with 1'",
    "composer-tiles-three-procs":
        "composer -n 3 launcher, " + W + ", --config train_config.json with global_batch_size 64: the script derives "
        "the device batch as global batch / world size and refuses 64 / 3. evidence: 'ValueError: Global batch size "
        "64 is not divisible by world size 3; device batch size = global batch size / world size must be an integer', "
        "'Rank 0 crashed with exit code 1.', 'job exited with 1'",
    "composer-tiles-shared-cache":
        f"{C}, {W}, --shared-cache: local rank 0 puts one decoded copy of the training tiles (75 MiB) in a "
        "multiprocessing.shared_memory segment for the local ranks to share, in a container with a 64 MB /dev/shm: "
        "the segment is created sparse and filling it raises SIGBUS on rank 0. evidence: 'Fatal Python error: Bus "
        "error', faulthandler stack 'line 115 in shared_copy', 'resource_tracker: There appear to be 1 leaked "
        "shared_memory objects', 'Rank 0 crashed with exit code -7.', 'job exited with 249'",
    "nodes-tiles-healthy":
        f"{N}, {W}, 4 epochs, node 1 started 12 s after node 0 (node 0's rank waits at the store); trains to the end. "
        "evidence: 'world size 2', 'done: 4 epochs, final checkpoint in checkpoints', 'job exited with 0'",
    "nodes-tiles-hostfile":
        f"{N}, {W}, --dist-timeout 60: the job script takes --world_size from the hostfile (grep -c slots hosts.txt), "
        "which still lists four hosts although only two were allocated and launched; rank 0's TCP store waits for "
        "four workers and gives up after 60 s. evidence: 'world size 4', 'torch.distributed.DistStoreError: Timed out after 61 "
        "seconds waiting for clients. 2/4 clients joined.', 'Rank 0 crashed with exit code 1.', 'job exited with 1'",
    "torchrun-tiles-healthy-ema":
        f"{T}, {W}, 4 epochs with Composer's EMA algorithm, OMP_NUM_THREADS not set: torchrun warns that it sets it to "
        "1 per process (harmless); trains to the end. evidence: 'Setting OMP_NUM_THREADS environment variable for "
        "each process to be 1 in default', 'done: 4 epochs, final checkpoint in checkpoints', 'job exited with 0'",
    "torchrun-tiles-cloud-class":
        f"{T}, {W}: a re-exported training shard (train-06) labels cloud-covered tiles with a new class id 8 while the "
        "model has 8 classes (0-7); Composer's label smoothing one-hot encodes the targets and raises on rank 1; rank "
        "0's next all-reduce sees the peer close; torchrun reports rank 1 as the first failure. evidence: "
        "'ValueError: num_classes must be greater than or equal to tensor.max() + 1: 8 < 9', 'Connection closed by "
        "peer', 'ChildFailedError', 'rank      : 1 (local_rank: 1)', 'job exited with 1'",
}
