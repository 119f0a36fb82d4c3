"""What each committed run showed (written after the runs): the manifest ``notes`` column, keyed by scenario name."""

NOTES: dict[str, str] = {
    "mpspawn-pix2pix-shapes-rank0-frechet-distance":
        "Real run: pix2pix GAN (U-Net generator, PatchGAN discriminator, adversarial + L1, hand-averaged gradients "
        "over gloo) under torch.multiprocessing.spawn, 2 ranks, --pg-timeout 30, with --fid-samples 12000: at each "
        "evaluation rank 0 alone renders 12000 extra pairs, runs them through the generator and a feature net and "
        "computes a Frechet distance, while rank 1 waits in the post-evaluation barrier; the barrier times out on "
        "rank 1 after 30 s. evidence: command line '--fid-samples 12000 --pg-timeout 30', rank 0's last lines 'eval "
        "step 100: val L1 0.2005 | PSNR 17.15 dB' and 'sample grid -> samples/grid_step000100.npy', rank 1 traceback "
        "'train ... dist.barrier()' -> 'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting "
        "30000ms for recv operation to complete', 'Process 1 terminated with the following error'.",
    "mpspawn-pix2pix-shapes-eval-512px-container-limit":
        "Real run: pix2pix GAN under spawn inside a 1200M memory cgroup (a container limit) with --eval-size 512: the "
        "fully convolutional generator is evaluated on 512x512 validation images in chunks of 32, whose activations "
        "exceed the limit at the first evaluation; the kernel OOM killer kills rank 0. evidence: last lines 'epoch 2 "
        "step 100/400 ...' then 'Terminating process ... via signal SIGTERM', 'process 0 terminated with signal "
        "SIGKILL', dmesg 'oom-kill:constraint=CONSTRAINT_MEMCG ... oom_memcg=/waveac-b-job', 'Memory cgroup out of "
        "memory: Killed process 20109 (python)'.",
    "torchrun-pix2pix-shapes-textbook-bce-fast-d":
        "Real run: pix2pix GAN under torchrun (2 ranks) with the adversarial loss written as the textbook formula "
        "-log(sigmoid(D)) (--gan-loss bce-manual) and a discriminator learning rate of 2e-2: D saturates (real 0.99 "
        "fake 0.01), log(1 - sigmoid) underflows and the generator loss becomes inf; the script's finite check stops "
        "the run. evidence: 'loss: bce-manual adversarial + 100 x L1; lr G 0.0002 D 0.02', 'D 0.0129 (real 0.99 "
        "fake 0.01) | G adv 5.3757', '[rank 0] step 173: non-finite loss (D 1.86..., G adv inf, L1 0.18...); "
        "stopping', 'FloatingPointError: non-finite loss at step 173'; rank 1's 'Connection closed by peer' and its "
        "SIGTERM are the consequences.",
    "torchrun-pix2pix-shapes-skip-d-when-strong":
        "Real run: pix2pix GAN under torchrun (2 ranks) with --d-skip-below 0.3 (skip the discriminator update when "
        "its loss is below 0.3), decided on each rank from its own batch: at step 63 rank 0 skips the D update and "
        "its gradient all_reduce and goes on to the generator's all_reduce (256,819 values) while rank 1 all-reduces "
        "the discriminator (29,009 values); gloo aborts rank 1. Cause: ranks issued different collectives. evidence: "
        "'[rank 0] step 63: D loss 0.291 < 0.3, skipping D update', 'terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'', 'op.preamble.length <= op.nbytes. 256820 vs 29012. Received data size doesn't "
        "match expected size. Is there a distributed collective mismatch in your code?', rank 0 in 'average_grads(G, "
        "world)' 'Connection reset by peer', 'exitcode  : -6 (pid: 20336)  (SIGABRT)'.",
    "torchrun-2node-pix2pix-shapes-node1-lost-node0-log":
        "Real run: pix2pix GAN as a two-node torchrun job (--nnodes 2, one process per node, both on this machine); "
        "this is node 0's log only. Node 1's worker (global rank 1) was SIGKILLed from outside (a lost host) after "
        "about 2000 steps (by hand at about 160 s: the first form of the command detached node 1 from the harness, "
        "see README); node 0's rank 0 sees the connection drop in its next gradient all_reduce. The first failure is "
        "not in this log. evidence: only '[rank 0]' lines, 'eval step 2000: val L1 0.2262', then '[rank0]: "
        "RuntimeError: [.../gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:4839: Connection reset by peer' "
        "in 'average_grads(D, world)', 'failed (exitcode: 1) local_rank: 0', 'Failures: <NO_OTHER_FAILURES>'.",
    "lightning-pix2pix-shapes-loader-workers-container-shm":
        "Real run: pix2pix GAN as a Lightning module (manual optimization, two optimizers, strategy ddp on CPU, 2 "
        "ranks) with 2 DataLoader workers per rank on 64x64 pairs, batch 32, in a container-sized 2M /dev/shm "
        "(private tmpfs): the workers cannot allocate the shared-memory segments for their collated batches. "
        "evidence: '--workers 2 --size 64 --batch-size 32', 'Caught RuntimeError in DataLoader worker process 0', "
        "'collate_tensor_fn ... _new_shared', 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_...>: No space left on device (28)' on both ranks.",
    "mpspawn-pix2pix-shapes-healthy":
        "Real run: pix2pix GAN (U-Net generator, PatchGAN discriminator, adversarial + 100 x L1, two Adam optimizers, "
        "hand-averaged gradients over gloo) under torch.multiprocessing.spawn, 2 ranks, 400 steps on 32x32 synthetic "
        "label-map -> rendering pairs, evaluation (val L1, PSNR, sample grid, rank-0 checkpoint) every 100 steps; "
        "finished normally. evidence: 'eval step 400: val L1 ... | PSNR ... dB | 256 pairs', 'saved "
        "checkpoints/last.pt (step 400)', 'training finished: 400 steps', 'all ranks finished', 'job exited with 0'.",
    "mpspawn-pix2pix-shapes-eval-full-res-36px":
        "Real run: pix2pix GAN under spawn, trained at 32x32, validated at --eval-size 36 (the generator is fully "
        "convolutional, but its U-Net halves the resolution four times, so inputs must be multiples of 16): at the "
        "first evaluation the 9x9 encoder skip no longer matches the 8x8 upsampled decoder map and torch.cat raises "
        "on rank 0 (rank 1 the same). evidence: command line '--eval-size 36', 'Process 0 terminated with the "
        "following error', 'train -> evaluate(rank, world, args, G, val_set, step)', 'h = self.u2(h, e2)', "
        "'torch.cat([...], skip], 1)', 'RuntimeError: Sizes of tensors must match except in dimension 1. Expected "
        "size 8 but got size 9 for tensor number 1 in the list.'",
    "torchrun-pix2pix-shapes-healthy-jitter-pool-workers":
        "Real run: pix2pix GAN under torchrun (2 ranks, gloo) with pix2pix random jitter (resize to 36, random 32 "
        "crop and mirror), a 50-image history pool for the discriminator and one DataLoader worker per rank; 400 "
        "steps, evaluation every 100; finished normally. evidence: 'image pool 50/50', 'eval step 400: val L1 0.1907 "
        "| PSNR 17.54 dB | 256 pairs', 'saved checkpoints/last.pt (step 400)', 'training finished: 400 steps', 'all "
        "ranks finished', 'job exited with 0'.",
    "torchrun-pix2pix-shapes-pod-terminated":
        "Real run: pix2pix GAN under torchrun (2 ranks) for 3000 steps; after 40 s SIGTERM was sent to the torchrun "
        "process only (as a container runtime terminates a pod's PID 1); torchrun forwards SIGTERM to its workers and "
        "exits. Cause: the job was terminated from outside (pod deletion / eviction), not by the code. evidence: "
        "training normal up to 'saved checkpoints/last.pt (step 300)', then 'Received 15 death signal, shutting down "
        "workers', 'Sending process 21732 closing signal SIGTERM', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 21730 got signal: 15', 'job exited with 1'.",
    "raytrain-pix2pix-shapes-healthy":
        "Real run: pix2pix GAN under Ray Train (TorchTrainer, 2 workers x 1 CPU on this generator's own 2-CPU Ray "
        "cluster, gloo process group set up by Ray), 300 steps, evaluation and ray.train.report every 100 steps; "
        "finished normally. The core_worker 'E' line about the PreemptionWatcher actor's constructor arguments and "
        "the duplicated worker lines are harmless. evidence: 'Started training worker group of size 2', 'Reporting "
        "training result 3: ... 'step': 300', 'training finished: 300 steps' on both ranks, 'ray train finished', "
        "'job exited with 0'.",
    "raytrain-pix2pix-shapes-two-cpus-per-worker":
        "Real run: pix2pix GAN under Ray Train with ScalingConfig(num_workers=2, resources_per_worker={'CPU': 2}) "
        "(--cpus-per-worker 2) on this generator's 2-CPU Ray cluster: 4 CPUs requested, the worker group can never "
        "be placed; Ray Train retries the start every 60 s without end; Ctrl-C twice (graceful abort does not "
        "finish), then kill -9 of the job after 150 s. evidence: 'Requesting resources: {'CPU': 2.0} * 2', "
        "'Attempting to start training worker group of size 2 with the following resources: [{'CPU': 2.0}] * 2', "
        "'WorkerGroupStartupTimeoutError: The worker group startup timed out after 60.0 seconds waiting for 2 "
        "workers. Potential causes include: (1) temporary insufficient cluster resources ... (2) infeasible resource "
        "request', '[FailurePolicy] RETRY ... Error count: 2 (max allowed: inf)', 'Received SIGINT. Gracefully "
        "aborting the training run'; no training line at all.",
    "lightning-pix2pix-shapes-healthy":
        "Real run: pix2pix GAN as a Lightning module (manual optimization with two optimizers, so global_step counts "
        "both optimizer steps; strategy ddp_find_unused_parameters_true on CPU, 2 ranks, CSVLogger, ModelCheckpoint "
        "on val_l1), 800 steps, validation every 100 batches, progress bar off; finished normally. The slurm/srun "
        "hint, the LeafSpec deprecation and the reducer's 'find_unused_parameters=True was specified ... but did "
        "not find any unused parameters' warnings are harmless. evidence: 'eval step 800: val L1 0.1910 | PSNR "
        "16.76 dB', '`Trainer.fit` stopped: `max_steps=800` reached.', 'fit finished: 800 steps, best val_l1 "
        "0.1899', 'job exited with 0'.",
    "lightning-pix2pix-shapes-csv-metrics-volume":
        "Real run: pix2pix GAN as a Lightning module (2 ranks, ddp on CPU) whose CSVLogger writes to logs/, a small "
        "volume (1M tmpfs) that earlier runs' metrics had filled to the last 4K; after the evaluation at step 400 the "
        "logger's periodic flush of metrics.csv fails on rank 0 and rank 1 then sees the connection close. evidence: "
        "'tmpfs 1.0M 1020K 4.0K 100% /tmp/waveac-b-job/run/logs' before the run, 'eval step 400: val L1 0.1936', "
        "'logger.log_metrics(metrics=scalar_metrics, step=step)' -> 'lightning/fabric/loggers/csv_logs.py ... in "
        "save' -> 'OSError: [Errno 28] No space left on device' on rank 0, rank 1 'Connection closed by peer', 'job "
        "exited with 1', '1.0M 1.0M 0 100%' after.",
}
