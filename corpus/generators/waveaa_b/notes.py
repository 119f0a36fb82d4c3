"""What each committed run of wave AA set B showed (the manifest rows' notes), written after the runs."""

_W = ("a tiny CenterNet-style anchor-free object detector on synthetic 64x64 scenes (1-5 objects of 3 classes; "
      "stride-4 CNN backbone with BatchNorm, heatmap head with penalty-reduced focal loss on Gaussian targets, size and "
      "offset heads with L1; AdamW one-cycle; eval all-gathers every rank's padded detections and ground truth for "
      "AP@0.5 per class and mAP; rank-0 checkpoints), 2 ranks with DDP over gloo")

NOTES = {
    "mpspawn-det-healthy": (
        f"torch.multiprocessing.spawn, {_W}; 200 steps, eval and a checkpoint every 50 steps; loss falls from 2.8 to "
        "0.38, mAP@0.5 0.21 -> 0.94; healthy. evidence: 'eval step 200: mAP@0.5 0.9426 | AP_square 0.960 AP_disc "
        "0.944 AP_bar 0.924', 'saved checkpoint checkpoints/step-00200.pt', 'done (200 steps, 59 s)', 'all ranks "
        "finished', 'job exited with 0'"),
    "mpspawn-det-val-set-split-round-robin": (
        f"mp.spawn, {_W}, with one validation set of 331 images split round-robin over the ranks (rank 0 gets 166, "
        "rank 1 165); the evaluation all_gathers per-rank tensors shaped by the local image count, so at the first "
        "eval (step 50) the gathered buffers differ in size (39840 vs 39600 bytes) and gloo aborts rank 1 (SIGABRT); "
        "mp.spawn terminates rank 0. Cause: ranks issued the same collective with different tensor shapes. evidence: "
        "'[rank0] ... val shard: 166 images', '[rank1] ... val shard: 165 images', 'gloo::EnforceNotMet ... "
        "op.preamble.length <= op.nbytes. 39840 vs 39600. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', 'process 1 terminated with signal SIGABRT'"),
    "mpspawn-det-hard-example-exchange": (
        f"mp.spawn, {_W}, with a hard-example exchange every 25 steps: rank 0 blocks in dist.recv for a count from "
        "rank 1, but rank 1 sends only when its batch's heatmap loss is above 0.8; at step 25 it was (16 images "
        "received), at step 50 it was not, so rank 0 waits in recv (process-group timeout 1800 s) and rank 1 in the "
        "next DDP all-reduce; no error, no output after step 45 for a minute, then Ctrl-C (twice) from the terminal: "
        "the only traceback is the launcher parent's KeyboardInterrupt in spawn's join. Cause: the job hung silently "
        "(rank 0 in an unmatched recv). evidence: '[rank0] 00:43:12 hard-example pool: 16 images from other ranks', "
        "last progress '[rank0] 00:43:16 step 45/400 | loss 1.0102', then 'KeyboardInterrupt' in "
        "multiprocessing.connection.wait / spawn.py join"),
    "mpspawn-det-vectorized-ap-container-limit": (
        f"mp.spawn, {_W}, 400 validation images per rank and a vectorised AP that builds all detection x "
        "ground-truth IoUs as float64 tensors (16000 x 2416 with several intermediates per rank), run in a "
        "container-like memory cgroup of 1500 MB: at the first eval the kernel OOM killer kills rank 1 (SIGKILL), "
        "mp.spawn terminates rank 0. Cause: host/container memory exhausted -> OOM kill. evidence: '[rank1] ... IoU "
        "matrix 16000 x 2416', 'ProcessExitedException: process 1 terminated with signal SIGKILL', dmesg "
        "'oom-kill:constraint=CONSTRAINT_MEMCG ... oom_memcg=/waveaa-b-job', 'Memory cgroup out of memory: Killed "
        "process 5556 (python) ... anon-rss:801044kB'"),
    "mpspawn-det-detections-json-volume": (
        f"mp.spawn, {_W}, with rank 0 writing a COCO-style detections JSON (top-100 per image, indent=1) after each "
        "eval to results/, a 3 MB volume already 72% full from an earlier sweep (df -h printed before and after): "
        "the first dump fails with ENOSPC on rank 0 and mp.spawn terminates rank 1. Cause: the results volume ran "
        "out of space. evidence: 'tmpfs 3.0M 2.2M 876K 72% .../results', 'json.dump(evaluate_dump(model, val, "
        "args), f, indent=1)', 'OSError: [Errno 28] No space left on device', 'tmpfs 3.0M 3.0M 0 100%'"),
    "mpspawn-det-earlier-run-still-up": (
        f"mp.spawn, {_W}, with MASTER_PORT=29615 while an earlier run of the same job (another learning rate, "
        "started 20 s before in another session, same port) was still training on the host: this run's rank 0 "
        "cannot bind the TCPStore port (rank 1 even connected to the other job's store) and raises, mp.spawn "
        "terminates rank 1. Cause: the rendezvous port is taken. evidence: 'torch.distributed.DistNetworkError: The "
        "server socket has failed to listen on any local network address. port: 29615, useIpv6: false, code: -98, "
        "name: EADDRINUSE, message: address already in use', 'job exited with 1'"),
    "torchrun-det-node-drain-sigterm": (
        f"torchrun --nproc-per-node 2, {_W}, a 3000-step run with a SIGTERM handler that saves an emergency "
        "checkpoint at the next step; 45 s in (step ~115, after the step-100 eval and checkpoint) the job's process "
        "group got SIGTERM as from a node drain / scheduler: torchrun's agent reports the death signal and forwards "
        "SIGTERM to both workers, whose handlers acknowledge it; the job is gone before any further output. Cause: the "
        "job was terminated from outside (preemption), not a fault in it. evidence: 'eval step 100: mAP@0.5 0.8932', "
        "'Received 15 death signal, shutting down workers', 'Sending process ... closing signal SIGTERM', '[rank0] ... "
        "received signal 15, will save an emergency checkpoint at the next step'"),
    "lightning-det-healthy": (
        f"Lightning 2.6 Trainer (accelerator cpu, devices 2, strategy ddp, gloo), {_W} (evaluation at each epoch "
        "end); 150 steps = 2 epochs; harmless Lightning notices (srun available but not used, LeafSpec deprecation "
        "warning, litlogger tips); loss 4.4 -> 0.55, mAP@0.5 0.87 -> 0.93; healthy. evidence: 'epoch 1 step 150: "
        "mAP@0.5 0.9314', '`Trainer.fit` stopped: `max_steps=150` reached.', 'fit finished at step 150', 'job exited "
        "with 0'"),
    "lightning-det-one-shard-crowded-scenes": (
        f"Lightning 2.6 Trainer, strategy ddp, 2 CPU processes, {_W}; rank 1's training shard came from the "
        "crowded-scene export (up to 8 objects per image) while the target encoder's per-image buffers (wh/offset/"
        "index/mask) hold max_objs=5, so encoding the first image with a sixth object raises IndexError in rank 1's "
        "data fetch; rank 0 then fails in DDP's buffer broadcast with 'Connection closed by peer'. Cause: an "
        "exception in the training code's target encoding on rank 1. evidence: '[rank1]: File \".../det.py\", line 88, "
        "in encode', '[rank1]: IndexError: index 5 is out of bounds for axis 0 with size 5', '[rank0]: RuntimeError: "
        "... Connection closed by peer ... This is typically caused by a remote worker crashing', 'job exited with 1'"),
    "raytrain-det-healthy": (
        f"Ray Train 2.60 TorchTrainer (2 workers x 0.5 CPU, gloo) on a local 2-CPU Ray cluster, {_W}; 150 steps, eval "
        "every 50 with ray.train.report; alarming-looking but harmless: a core_worker.cc 'E' line about the "
        "PreemptionWatcher actor's constructor arguments in the object store, duplicated worker lines (log "
        "deduplication off), 'ray train finished: None' (no metrics returned to the driver); mAP@0.5 0.68 -> 0.94; "
        "healthy. evidence: 'Started training worker group of size 2', 'eval step 150: mAP@0.5 0.9391', '[rank1] ... "
        "done (150 steps, 19 s)', 'ray train finished: None', 'job exited with 0'"),
    "raytrain-det-strict-spread-one-node": (
        f"Ray Train 2.60 TorchTrainer of {_W}, with ScalingConfig(num_workers=2, resources_per_worker={{'CPU': 0.5}}, "
        "placement_strategy='STRICT_SPREAD') (a multi-node cluster's config) on a one-node local Ray cluster: the "
        "two bundles must sit on different nodes, so the worker group's placement group can never be placed; the "
        "controller times out waiting for the workers after 60 s, retries (FailurePolicy RETRY, no limit) and waits "
        "again until the user presses Ctrl-C twice and kills it. Cause: Ray cannot schedule the worker group "
        "(infeasible placement), although the CPUs requested (2 x 0.5) are free. evidence: 'Attempting to start "
        "training worker group of size 2 with the following resources: [{'CPU': 0.5}] * 2', "
        "'WorkerGroupStartupTimeoutError: The worker group startup timed out after 60.0 seconds waiting for 2 "
        "workers. Potential causes include: (1) temporary insufficient cluster resources ... (2) infeasible resource "
        "request ...', '[FailurePolicy] RETRY', 'Received SIGINT. Gracefully aborting the training run'"),
    "torchrun-det-healthy-loader-workers-warnings": (
        f"torchrun --nproc-per-node 2, {_W}, with 2 DataLoader worker processes per rank and the learning-rate "
        "scheduler stepped once before the first optimizer step (a warm-start habit): each rank prints torch's "
        "UserWarning about the lr_scheduler.step()/optimizer.step() order, which only shifts the one-cycle schedule "
        "by a step; 200 steps, mAP@0.5 0.33 -> 0.94; healthy. evidence: 'UserWarning: Detected call of "
        "`lr_scheduler.step()` before `optimizer.step()`', 'eval step 200: mAP@0.5 0.9446', 'done (200 steps, 34 "
        "s)' on both ranks, 'job exited with 0'"),
    "raytrain-det-rank0-prediction-images-short-timeout": (
        f"Ray Train 2.60 TorchTrainer (2 workers x 0.5 CPU) of {_W}, with TorchConfig(timeout_s=15) and rank 0 alone "
        "drawing its predictions on all 160 validation images into PPM files in pure Python at each evaluation, before "
        "the evaluation's all_gather; at the step-50 eval rank 1 waits in all_gather while rank 0 is still drawing, "
        "gloo times out after 15 s on rank 1 and Ray Train fails the run (FailurePolicy RAISE). Cause: one rank "
        "straggled in rank-0-only work so a collective did not complete within the process-group timeout. evidence: "
        "'[rank0] ... drawing predictions on 160 validation images', '[rank1] ... dist.all_gather(all_det, det_t)', "
        "'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 15000ms for send operation to "
        "complete', 'Training failed due to worker errors: [Rank 1 Error Snippet]', 'job exited with 1'"),
    "torchrun-det-ssh-session-closed": (
        f"torchrun --nproc-per-node 2, {_W}, a 3000-step run started in the foreground of an SSH terminal that was "
        "then closed: 40 s in (step ~180, after the step-100 eval and checkpoint) the job's process group got SIGHUP; "
        "torchrun's agent reports death signal 1, forwards SIGHUP to both workers and exits with SignalException. "
        "Cause: the launching terminal hung up (run under tmux/screen/nohup or a scheduler). evidence: 'eval step "
        "100: mAP@0.5 0.8932', 'Received 1 death signal, shutting down workers', 'Sending process ... closing signal "
        "SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 11566 got signal: 1', 'job "
        "exited with 1'"),
}
