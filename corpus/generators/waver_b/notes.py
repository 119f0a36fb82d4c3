"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-glyph-vae-healthy":
        "torch.multiprocessing.spawn, 2 processes, gloo (tcp:// init): a 56K-parameter convolutional VAE (8-d latent, "
        "BCE decoder, linear KL warm-up over 100 steps) on synthetic 28x28 glyphs, hand-rolled gradient all_reduce, 6 "
        "epochs; nothing was done to it. evidence: 'process group up: world 2, backend gloo', 'epoch N step M loss ... "
        "rec ... kl ... beta ...' with the loss falling from ~290 to ~150, 'epoch N eval: elbo ... active units 8/8' "
        "improving to 'elbo -152.97', 'saved vae-last.pt', 'prior samples: mean intensity 0.077', 'launcher: all ranks "
        "finished', 'job exited with 0'.",
    "mpspawn-glyph-vae-per-image-standardize-blank-scans":
        "The same mp.spawn VAE with --standardize: every input image is standardised by its own mean and std (then "
        "squashed with a sigmoid); the training set holds a few blank canvases (all-zero images), whose std is 0, so "
        "their pixels become 0/0 = NaN and the first batch containing one makes the loss, the all-reduced gradient and "
        "then the weights NaN on both ranks. The job runs on and exits 0 with a useless model. evidence: 'inputs "
        "standardised per image (mean 0, std 1) then squashed with a sigmoid', finite losses at steps 4-8, then "
        "'[rank 1] epoch 1 step 12 loss 539.794 ... grad_norm nan' and '[rank 0] epoch 1 step 12 loss nan rec nan kl "
        "nan' and nan on every later line, 'epoch 4 eval: elbo nan ... active units 0/8', 'prior samples: mean "
        "intensity nan', 'job exited with 0'.",
    "mpspawn-glyph-vae-rank0-interpolation-grid":
        "mp.spawn VAE, process-group timeout 30 s, with --interp-grid 6000: after each epoch rank 0 alone renders a "
        "6000-image latent interpolation grid (96000 single-image decodes) before the eval all_reduce, while rank 1 "
        "goes straight to the all_reduce and waits; the render takes longer than the 30 s timeout, so gloo gives up on "
        "rank 1. evidence: 'process group up: ... timeout 30s', '[rank 0] epoch 1: rendering a 6000-image latent "
        "interpolation grid for the report', then ~31 s later 'Process 1 terminated with the following error' "
        "'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to "
        "complete' in dist.all_reduce, 'Terminating process ... via signal SIGTERM', 'job exited with 1'.",
    "mpspawn-glyph-vae-shard-from-32px-export":
        "mp.spawn VAE reading pre-built data shards (--shards shards, shard-<rank>.pt): shard-1.pt came from a "
        "different export at 32x32 pixels while the model expects 28x28, so rank 1's encoder output (32*8*8 = 2048 "
        "features) does not fit the 1568-input posterior layer at its first forward; rank 0 is torn down by the "
        "launcher. evidence: 'ls -l' showing shard-1.pt larger than shard-0.pt, '[rank 0] loaded shards/shard-0.pt: "
        "(2048, 1, 28, 28) images' vs '[rank 1] loaded shards/shard-1.pt: (2048, 1, 32, 32) images', 'Process 1 "
        "terminated with the following error' traceback through vae_core.encode -> self.mu(h) 'RuntimeError: mat1 "
        "and mat2 shapes cannot be multiplied (32x2048 and 1568x8)', 'job exited with 1'.",
    "mpspawn-glyph-vae-latent-cache-shrinks-under-mmap":
        "mp.spawn VAE with --latent-cache: each epoch rank 0 rewrites a .npy file of the training images' posterior "
        "means (np.lib.format.open_memmap, mode w+), and every rank maps it once (np.load mmap_mode='r') and reuses "
        "that mapping for a nearest-neighbour recall check. From epoch 2 the cache drops near-duplicate latents, so "
        "the file shrinks from 64 KiB (2048 rows) to 47 KiB (1514 rows) under the old 2048-row mappings; touching the "
        "pages past the new end of file raises SIGBUS on both ranks. evidence: 'latent cache ...latents.npy: 2048 "
        "unique posterior means (64 KiB)', 'mapped latent cache ...: (2048, 8)' on both ranks, 'epoch 2: latent "
        "cache ...: 1514 unique posterior means (47 KiB)', then 'Fatal Python error: Bus error' with 'vae_spawn.py, "
        "line 134 in worker' (the distance over the mapped cache) twice, 'ProcessExitedException: process 1 "
        "terminated with signal SIGBUS', 'job exited with 1'.",
    "lightning-glyph-vae-healthy":
        "Lightning 2.6.6 Trainer, strategy ddp on 2 CPU processes (gloo): the glyph VAE as a LightningModule (KL "
        "warm-up, cosine LR, ModelCheckpoint on val/elbo top-2 + last, LR monitor), 6 epochs, rank 0 writing sample "
        "tensors each epoch; nothing was done to it. Harmless noise: the 'srun command is available on your system but "
        "is not used' hint, the litlogger tip, '_pytree.py:21: isinstance(treespec, LeafSpec) is deprecated' "
        "warnings, 'Total FLOPs: 0'. evidence: 'distributed_backend=gloo All distributed processes registered. "
        "Starting with 2 processes', 'epoch N: val/elbo ...' improving each epoch, 'wrote samples/samples-epochNN.pt "
        "(1178 KiB)', '`Trainer.fit` stopped: `max_epochs=6` reached.', 'best checkpoint .../vae-epoch=05.ckpt', "
        "'job exited with 0'.",
    "lightning-glyph-vae-sample-grids-volume-full":
        "The Lightning VAE writing its per-epoch sample tensors (64 reconstructions + 256 prior samples, 1178 KiB each) "
        "to a 3 MiB report volume (--sample-dir report/samples): two files fit, the third torch.save runs out of "
        "space mid-write, which torch's zip writer reports as a position mismatch rather than ENOSPC; rank 1 then "
        "loses its peer in a barrier. evidence: 'tmpfs 3.0M 0 3.0M 0% .../report' (df), 'wrote .../report/samples/"
        "samples-epoch00.pt (1178 KiB)' and '...epoch01.pt (1178 KiB)', 'epoch 2: val/elbo ...', then rank 0's "
        "traceback from on_validation_epoch_end -> torch.save -> write_end_of_file 'RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 402560 vs 402448', rank 1 'Connection closed by peer ... This is "
        "typically caused by a remote worker crashing' in a barrier, 'job exited with 1'.",
    "lightning-glyph-vae-rank0-active-units-sync-dist":
        "The Lightning VAE with --active-units: on_validation_epoch_end computes the active latent units on rank 0 "
        "only and logs it with self.log(..., sync_dist=True), so rank 0 issues an extra all_reduce that rank 1 never "
        "makes; rank 1 meanwhile enters ModelCheckpoint's reduce_boolean_decision all_reduce, and the two ranks' "
        "collectives pair up with different sizes at the end of the first validation. evidence: 'epoch 0 step 40 ...' "
        "then 'terminate called after throwing an instance of 'gloo::EnforceNotMet'' 'what(): [enforce fail at "
        ".../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't "
        "match expected size. Is there a distributed collective mismatch in your code?', '... Aborted ... vae_pl.py "
        "--active-units', rank 1's traceback through model_checkpoint.py file_exists -> reduce_boolean_decision -> "
        "all_reduce 'Connection reset by peer', 'job exited with 134'.",
    "lightning-glyph-vae-node-maintenance-sigterm":
        "The Lightning VAE (12 epochs planned) under a job script trapping SIGTERM; during epoch 4 the node was "
        "drained for maintenance and SIGTERM went to the whole job (a 30 s grace period before SIGKILL was not "
        "needed): Lightning's signal handler on both ranks stops the fit and the job ends early with exit 0 after "
        "epoch 3's validation, no final 'max_epochs' line. evidence: 'epoch 3: val/elbo -172.96 ...', '[rank: 0] "
        "Received SIGTERM: 15', '[rank: 1] Received SIGTERM: 15', 'job script: caught SIGTERM, forwarding', 'job "
        "exited with 0' with no '`Trainer.fit` stopped: `max_epochs=12` reached.'.",
    "lightning-glyph-vae-latent-size-sweep-same-master-port":
        "A latent-size sweep run as two Lightning ddp jobs (2 CPU processes each) started from one job script, z=8 in "
        "the background and z=16 12 s later, both inheriting the same MASTER_PORT=29648: the z=8 job's rank 0 holds "
        "the c10d store on that port for its whole run, so the z=16 job's rank 0 cannot bind it and dies at "
        "process-group set-up while the z=8 job trains on to the end. evidence: 'MASTER_PORT=29648', the first job's "
        "'All distributed processes registered. Starting with 2 processes' and epoch lines, a second 'Seed set to 0' / "
        "'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2', then 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 29648, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', 'z16 run exited with 1', the first job's '`Trainer.fit` "
        "stopped: `max_epochs=8` reached.' and 'job exited with 0' (the script waited on the z=8 job only).",
    "hf-trainer-glyph-vae-psnr-healthy":
        "Hugging Face transformers 5.24 Trainer (one process per rank via mp.spawn, DDP over gloo on CPU) training the "
        "glyph VAE (model returns loss + reconstructions, KL warm-up from a callback), eval every 40 steps with a PSNR/"
        "MSE compute_metrics over 512 images, checkpoints, save_model export; nothing was done to it. Harmless noise: "
        "reducer.cpp 'find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
        "parameters' warnings. evidence: '{'loss': ..., 'grad_norm': ..., 'learning_rate': ...}' dicts falling, "
        "'{'eval_loss': ..., 'eval_mse': ..., 'eval_psnr': ...}' rising to 15.79, 'train_runtime' summary, 'final "
        "eval: ...', 'exported to export/glyph-vae: ['model.safetensors', 'training_args.bin']', 'all ranks "
        "finished', 'job exited with 0'.",
    "hf-trainer-glyph-vae-psnr-full-eval-set-container-limit":
        "The HF Trainer VAE with the PSNR compute_metrics on a 100000-image eval set, in a 2200 MB memory cgroup (a "
        "container limit): with compute_metrics set, Trainer's evaluation loop keeps every reconstruction and every "
        "label image (gathered from both ranks) in host memory to hand them to compute_metrics, on top of each rank's "
        "299 MiB eval tensor; at the first evaluation (step 40) the kernel OOM killer SIGKILLs rank 0. evidence: "
        "'data: 3072 train / 100000 eval glyphs (299 MiB eval tensor per rank)', 4 training loss dicts up to epoch "
        "0.83, no eval dict, then 'Terminating process ... via signal SIGTERM', 'ProcessExitedException: process 0 "
        "terminated with signal SIGKILL', 'job exited with 1'; no Python error.",
    "raytrain-glyph-vae-healthy":
        "Ray 2.60 Train TorchTrainer (2 workers x 0.5 CPU, gloo) on a local one-node cluster: rank 0 builds the glyph "
        "cache on shared storage and publishes a _SUCCESS marker, rank 1 loads it, then 4 epochs of DDP training with "
        "per-epoch ray.train.report and rank-0 checkpoints; nothing was done to it. evidence: 'Started training "
        "worker group of size 2', '[rank 0] glyph cache built: .../glyph_cache/glyphs.pt (4096 images)', '[rank 1] "
        "glyph cache loaded after Ns', 'epoch N step M loss ...', 'epoch N eval elbo ...' improving, 'Checkpoint "
        "successfully created at: ...', 'final metrics: {'epoch': 4, ...}', 'job exited with 0'.",
    "raytrain-glyph-vae-cache-marker-other-dir":
        "The Ray Train VAE with the readers' cache path configured separately (--wait-dir shared/glyph-cache): rank 0 "
        "builds the cache and writes its marker under shared/glyph_cache/ (underscore), rank 1 polls for "
        "shared/glyph-cache/_SUCCESS (hyphen), which never appears; rank 0 goes on into DDP and blocks in its first "
        "gradient all-reduce (process-group timeout 1800 s), so nothing fails and nothing progresses. After 150 s the "
        "user pressed Ctrl-C. evidence: '[rank 0] glyph cache built: .../shared/glyph_cache/glyphs.pt (4096 images), "
        "marker .../shared/glyph_cache/_SUCCESS', 'Wrapping provided model in DistributedDataParallel.' and then "
        "nothing more from rank 0, '[rank 1] waiting for rank 0 to publish the glyph cache (.../shared/glyph-cache/"
        "_SUCCESS)' repeated every 30 s, no training step line, 'Received SIGINT. Gracefully aborting the training "
        "run', 'job exited with 1'.",
    "raytune-glyph-vae-sweep-trial-cpus-3":
        "A Ray Tune sweep of the glyph VAE (grid over 2 learning rates x 2 samples, ASHA) whose trainable asks for 3 "
        "CPUs per trial (tune.with_resources) on a 2-CPU cluster: no trial can ever start; the trials stay PENDING "
        "until the user pressed Ctrl-C after Tune's insufficient-resources warning. evidence: 'sweep: 2 lr values x 2 "
        "samples, 3.0 CPU per trial', 'cluster resources: {... 'CPU': 2.0 ...}', 'Trial status: 2 PENDING' "
        "'Logical resource usage: 0/2 CPUs', '(autoscaler) Error: No available node types can fulfill resource "
        "request {'CPU': 3.0}', 'No trial is running and no new trial has been started within the last 60 seconds ... "
        "You asked for 3.0 CPUs and 0 GPUs per trial, but the cluster only has 2.0 CPUs', 'Stop signal received (e.g. "
        "via SIGINT/Ctrl+C)', 'RuntimeError: No best trial found for the given metric: elbo', 'job exited with 1', "
        "then ray status.",
    "rayactors-glyph-vae-port-from-actor-pid":
        "Two Ray VAE worker actors forming their own gloo process group over tcp://, each deriving the rendezvous port "
        "from its own process id (29600 + pid % 100, meant to keep concurrent jobs apart) instead of receiving one "
        "port from the driver: rank 0 hosts the store on 29666 and rank 1 tries to connect to 29665, where nobody "
        "listens. Rank 1's TCPStore client times out, and rank 0's store gives up waiting for its second client. "
        "evidence: '[rank 1] joining process group tcp://127.0.0.1:29665 (world 2, timeout 45s)' vs '[rank 0] joining "
        "process group tcp://127.0.0.1:29666', 'driver: 0/2 workers finished after 15s/30s/45s', rank 1 '[c10d] The "
        "client socket has timed out after 45000ms while trying to connect to (127.0.0.1, 29665)', driver "
        "'RayTaskError(DistStoreError)' from rank 0 'Timed out after 46 seconds waiting for clients. 1/2 clients "
        "joined.', 'job exited with 1'.",
}
