"""What each committed run of wave X set B showed (the manifest rows' notes), written after the runs."""

_W = ("class-conditional DDPM on synthetic 32x32 RGB shape images (small GroupNorm U-Net predicting the noise, T=1000, "
      "classifier-free guidance by label dropout, EMA weights, periodic DDIM sampling from the EMA model, "
      "checkpoints), 2 ranks with DDP over gloo")

NOTES = {
    "mpspawn-ddpm-shapes32-healthy": (
        f"torch.multiprocessing.spawn, {_W}; 400 steps, eval (16 EMA samples, 20 DDIM steps) and a checkpoint every "
        "100 steps; loss falls from 0.95 to 0.06; healthy. evidence: '[rank 0] step   400/400 | loss 0.0622', "
        "'[rank 0] eval @ step 400: 16 EMA samples ... pixel mean 0.484 std 0.105', 'saved checkpoint "
        "checkpoints/ddpm-step000400.pt', '[rank 1] done (400 steps', 'all ranks finished', 'job exited with 0'"),
    "mpspawn-ddpm-shapes32-cosine-x0-loss": (
        f"mp.spawn, {_W}, misconfigured: cosine noise schedule without the usual clip of beta at 0.999 (alpha_bar at "
        "the last timestep ~1e-33) and the MSE loss taken on the reconstructed x0 = (x_t - sqrt(1-ab) eps)/sqrt(ab), "
        "no gradient clipping. Timesteps near T blow the loss up, the weights go NaN by step 60 and the run keeps "
        "going (EMA samples NaN) to exit 0. Cause: the run diverged. evidence: 'T=1000 cosine schedule, loss in x0 "
        "space', 'step    20/300 | loss 1217.7282', 'step    40/300 | loss 390.5704', 'step    60/300 | loss nan', "
        "'eval @ step 100: ... pixel mean nan std nan', 'job exited with 0'"),
    "mpspawn-ddpm-shapes32-rank0-full-sampler": (
        f"mp.spawn, {_W}, process-group timeout 30 s; at step 150 rank 0 alone draws 64 EMA samples with the full "
        "1000-step sampler (plus guidance, two U-Net passes per step) while rank 1 waits in the barrier after eval; the "
        "sampling takes longer than 30 s and rank 1's barrier times out. Cause: a collective timed out because one rank "
        "did long extra work. evidence: '[rank 0] step   140/400' (no eval line follows), 'Process 1 terminated with "
        "the following error', 'in evaluate', 'dist.barrier()', 'RuntimeError: [.../gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete'"),
    "mpspawn-ddpm-shapes32-sampling-trajectory-cgroup": (
        f"mp.spawn inside a 1500M memory cgroup (a container limit); {_W}; at the step-100 eval rank 0 draws 256 "
        "samples with 1000 DDIM steps and keeps every step's x_t/x0/eps (a denoising-trajectory visualisation), so its "
        "memory grows until the kernel's memcg OOM killer kills it. evidence: '[rank 0] step   100/300' (no eval line "
        "follows), 'ProcessExitedException: process 0 terminated with signal SIGKILL', 'job exited with 1', "
        "'oom-kill:constraint=CONSTRAINT_MEMCG ... oom_memcg=/wavex-b-job ... task=python', 'Memory cgroup out of "
        "memory: Killed process 26033 (python) ... anon-rss:1073396kB'"),
    "mpspawn-ddpm-shapes32-loader-noising-container-shm": (
        f"mp.spawn in a container-sized /dev/shm (64M, shown by df); {_W}; the forward noising is done in the "
        "DataLoader workers (2 per rank), which return x_t, noise, t and x0 for batches of 384 images, and the workers' "
        "shared-memory batches do not fit. Cause: shared memory too small. evidence: 'tmpfs 64M 0 64M 0% /dev/shm', "
        "'batch 384/rank', 'RuntimeError: Caught RuntimeError in DataLoader worker process 0.', 'RuntimeError: unable "
        "to allocate shared memory(shm) for file </torch_27214_2222839009_6>: No space left on device (28)'"),
    "mpspawn-ddpm-shapes32-cfg-label-dropout": (
        f"mp.spawn, {_W}; the U-Net was built without the extra 'no class' embedding row while the training loop "
        "still replaces dropped labels (p_uncond 0.005) with index 10, so the first batch in which a label is dropped "
        "raises in the class embedding on that rank (rank 0 here), and mp.spawn terminates the other. Cause: an "
        "exception in the training code. evidence: 'p_uncond 0.005', 'Process 0 terminated with the following error', "
        "'emb = self.temb(timestep_embedding(t, self.ch)) + self.cemb(y)', 'torch.embedding(weight, input, "
        "padding_idx, scale_grad_by_freq, sparse)', 'IndexError: index out of range in self'"),
    "mpspawn-ddpm-shapes32-stale-ckpt-lock": (
        f"mp.spawn, {_W}; checkpoint writes are guarded by an fcntl lock file in the checkpoint directory, and a "
        "process left over from an earlier session still holds that lock, so at the first checkpoint (step 100) rank "
        "0 blocks in flock forever while rank 1 waits in its next DDP all-reduce (default 30 min gloo timeout). Nothing "
        "is printed for a minute; the user presses Ctrl-C. Cause: a silent hang. evidence: '[rank 0] eval @ step 100: "
        "16 EMA samples ...' followed by no 'saved checkpoint' line (every healthy eval prints one) and no further "
        "step lines, then the launcher's 'KeyboardInterrupt' in 'multiprocessing.connection.wait' (mp.spawn join); no "
        "timeout or error message"),
    "mpspawn-ddpm-shapes32-world-size-from-config": (
        f"mp.spawn with 2 processes but the world size taken from a config written for 4 (`--world-size 4`), "
        f"process-group timeout 30 s; {_W}. init_process_group waits for ranks 2 and 3, which never start, and the "
        "store wait times out. Cause: not every rank reached the rendezvous. evidence: 'launching 2 processes (world "
        "size 4) on 127.0.0.1:29659', '[c10d] waitForInput: socket ... timed out after 30000ms', 'Process 1 terminated "
        "with the following error', 'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: "
        "/default_pg/0//cpu//0/0'"),
    "torchrun-ddpm-shapes32-first-start-cache-race-restart": (
        f"torchrun --nproc-per-node 2 --max-restarts 1, {_W}; on the first start no image cache exists: rank 0 builds "
        "it chunk by chunk while rank 1 memory-maps the file as soon as it appears and fails (file still short). "
        "torchrun restarts both workers, the cache is complete by then and the second attempt trains to the end and "
        "exits 0. Healthy run with a recovered restart (alarming traceback, harmless). evidence: '[rank 0] building "
        "image cache data/shapes32.npy', '[rank1]: ValueError: mmap length is greater than file size', 'failed "
        "(exitcode: 1) local_rank: 1', 'torchrun attempt 1, master 127.0.0.1:29661', '[rank 0] step   300/300 | loss "
        "0.0804', '[rank 1] done (300 steps', 'job exited with 0'"),
    "torchrun-ddpm-shapes32-lr-sweep-same-port": (
        f"a learning-rate sweep from one shell: two torchrun jobs (lr 2e-3 and 5e-4, {_W}) started in the background "
        "a second apart with the same --master-port 29663; the first holds the static rendezvous store port, so the "
        "second torchrun fails before starting its workers while the first trains to the end. Cause: the store port "
        "was already taken. evidence: 'static_tcp_rendezvous.py ... in next_rendezvous', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29663, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', then only one "
        "run's output ('saved checkpoint ckpt-lr2e-3/...'; no ckpt-lr5e-4 run)"),
    "torchrun-ddpm-shapes32-spot-reclaim": (
        f"torchrun --nproc-per-node 2, {_W}, a 5000-step run; after 45 s the job's process group receives SIGTERM "
        "from outside (a spot/preemptible instance reclaimed, as a scheduler would send it) and torchrun shuts the "
        "workers down; the shell is terminated too (no exit line). Cause: the job was preempted. evidence: '[rank 0] "
        "step   240/5000' (last progress), 'api.py:753] Received 15 death signal, shutting down workers', 'Sending "
        "process 28126 closing signal SIGTERM', 'torch.distributed.elastic.multiprocessing.api.SignalException: "
        "Process 28124 got signal: 15'"),
    "torchrun-ddpm-shapes32-ssh-session-closed": (
        f"torchrun --nproc-per-node 2 started in the foreground of an interactive shell, {_W}, a 5000-step run; after "
        "40 s the session closes and the job's process group gets SIGHUP; torchrun forwards it to the workers and "
        "exits. Cause: the terminal hung up. evidence: '[rank 0] step   220/5000' (last progress), 'api.py:753] "
        "Received 1 death signal, shutting down workers', 'Sending process 28218 closing signal SIGHUP', "
        "'SignalException: Process 28216 got signal: 1', 'job exited with 1'"),
    "lightning-ddpm-shapes32-healthy-warnings": (
        f"Lightning Trainer on CPU, devices=2, strategy ddp (gloo), the same DDPM (U-Net + EMA copy, label dropout, "
        "DDIM sampling of 16 EMA samples in validation every 100 steps, metrics synced across ranks); 300 steps; "
        "healthy, with harmless noise: Lightning's srun hint (Slurm is installed on the machine but not used), tips, "
        "the `LeafSpec` deprecation warning from both ranks. evidence: 'Initializing distributed: GLOBAL_RANK: 1, "
        "MEMBER: 2/2', 'All distributed processes registered. Starting with 2 processes', '`Trainer.fit` stopped: "
        "`max_steps=300` reached.', \"fit finished: {'train_loss': tensor(0.0605), 'sample_mean': tensor(0.4792)\", "
        "'job exited with 0'"),
    "raytrain-ddpm-shapes32-worker-memory-request": (
        f"Ray Train TorchTrainer (Ray 2.60, train v2) on a one-node local cluster (2 CPUs, a ~23 GiB machine), {_W}; "
        "the ScalingConfig asks for 2 workers with resources_per_worker {CPU: 0.5, memory: 12 GiB}; the node cannot "
        "hold both bundles' memory reservation, so the worker group never starts: the controller times out after 60 s, "
        "its failure policy retries, and the same happens again until the user presses Ctrl-C (twice) and the job is "
        "killed. Cause: Ray could not schedule the workers. evidence: \"Requesting resources: {'CPU': 0.5, 'memory': "
        "12884901888.0} * 2\", 'Attempting to start training worker group of size 2 ...', 'WorkerGroupStartupTimeoutError: "
        "The worker group startup timed out after 60.0 seconds waiting for 2 workers. Potential causes include: (1) "
        "temporary insufficient cluster resources ... (2) infeasible resource request where the provided `ScalingConfig` "
        "cannot be satisfied', '[FailurePolicy] RETRY', 'Received SIGINT. Gracefully aborting the training run'"),
    "mpspawn-ddpm-shapes32-distributed-debug-detail": (
        f"mp.spawn, {_W}, started with TORCH_DISTRIBUTED_DEBUG=DETAIL and PYTHONFAULTHANDLER=1 (both printed by `env`) "
        "to debug collectives; with torch 2.13.0+cpu both ranks crash with a segmentation fault inside the "
        "DistributedDataParallel constructor (_ddp_init_helper) before the first step (without DETAIL the same "
        "command trains normally). Cause: a native crash in torch's DDP/c10d code under the DETAIL debug wrapper. "
        "evidence: 'TORCH_DISTRIBUTED_DEBUG=DETAIL', 'Fatal Python error: Segmentation fault', 'File \"/tmp/corpus-venv-nb/"
        "lib/python3.11/site-packages/torch/nn/parallel/distributed.py\", line 1473 in _ddp_init_helper', 'ddpm.py\", "
        "line 261 in train', 'ProcessExitedException: process 0 terminated with signal SIGSEGV', 'job exited with 1'"),
    "mpspawn-ddpm-shapes32-keep-all-ckpt-small-volume": (
        f"mp.spawn, {_W} (U-Net ch=32), checkpoint directory on a 24M volume (df before and after); eval every 25 "
        "steps with a checkpoint each time (model, EMA, optimizer and 16 sample images, 4.8 MiB) and rotation disabled "
        "(--keep-last 0), so the fifth save fills the volume and torch.save fails on rank 0. Cause: the checkpoint "
        "filesystem ran out of space. evidence: 'tmpfs 24M 0 24M 0% /tmp/wavex-b-job/run/checkpoints', 'saved "
        "checkpoint checkpoints/ddpm-step000100.pt (4.8 MiB)', 'eval @ step 125' (no save follows), 'in "
        "save_checkpoint', 'torch.save(state, path)', 'serialization.py\", line 834, in __exit__', 'RuntimeError: "
        "basic_ios::clear: iostream error', 'tmpfs 24M 24M 0 100% /tmp/wavex-b-job/run/checkpoints'"),
    "raytrain-ddpm-shapes32-healthy": (
        f"Ray Train TorchTrainer (Ray 2.60, train v2) on a one-node local cluster, 2 workers x 0.5 CPU, {_W}; 300 steps, "
        "eval and checkpoint every 100 steps; healthy. Harmless noise: the workers' lines appear twice (Ray's log "
        "forwarding), and the controller prints an 'E' core_worker.cc line about the PreemptionWatcher actor's "
        "constructor arguments in the object store. evidence: 'Started training worker group of size 2', '[rank 0] "
        "step   300/300 | loss 0.0804', '[rank 1] done (300 steps, 50 s)', 'Reporting training result 1: "
        "TrainingReport(checkpoint=None, metrics={'done': 1}' , 'job exited with 0'"),
}
