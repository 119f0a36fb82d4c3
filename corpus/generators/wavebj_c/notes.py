"""Manifest notes for wave BJ (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face transformers 5.24.0 Trainer inside a Ray Train TorchTrainer (ray 2.60.0, Train v2 controller, "
     "torch 2.13.0+cpu gloo, datasets 5.2.0, Python 3.11.7) with 2 CPU workers (prepare_trainer + "
     "RayTrainReportCallback), a 2-layer n_embd-64 GPT-2 built from GPT2Config (0.14M params) with a local BPE "
     "tokenizer on synthetic support-ticket text, eval/save every 20 steps, checkpoints reported to "
     "storage_path ray_results; the job script starts a single-node Ray head (ray start --head, port 6410) and "
     "runs the driver; launched with 'nice -n 5 bash launch.sh")
NOTES = {
    "ray-healthy": (
        f"no_failure: {W}' (40 steps); two checkpoints reported, the driver prints the fit result, exit 0; the "
        "log carries Ray's harmless startup noise (metrics exporter agent connection errors, PlacementGroupCleaner "
        "'Failed to query' lines, a PreemptionWatcher core_worker E line, DDP find_unused_parameters warning). "
        "evidence: '(RayTrainWorker pid=10158) rank 0: training finished at step 40', '2026-12-02 09:53:04,908 "
        "INFO train: fit finished in 39.8 s: metrics {'loss': 2.661065673828125, 'epoch': 0.32, 'step': 40, "
        "'eval_loss': 2.6024651527404785}', 'job exited with 0'"),
    "ray-bad-row": (
        f"worker_exception: {W}'; a hand-curated row '{{\"id\": 1377, \"text\": null}}' was inserted into "
        "data/train.jsonl; datasets.map's tokenize function on each worker fails on the None text (TypeError in "
        "the user's tokenize), the TrainController's FailurePolicy RAISEs (max_failures 0), the driver re-raises "
        "the WorkerGroupError, exit 1. evidence: '(RayTrainWorker pid=11154) TypeError: unsupported operand "
        "type(s) for +: 'NoneType' and 'str'', '(TrainController pid=10970) [Rank 0,1 Error Snippet]:', "
        "'job exited with 1'"),
    "ray-global-batch": (
        f"batch_size_mismatch: {W} --global-batch-size 32' with the 2-worker config (8 per device x 1 x 2 = 16); "
        "the train loop's batch check raises on both workers before the model is built, exit 1. evidence: "
        "'(RayTrainWorker pid=12042) ValueError: global_batch_size (32) must equal per_device_batch_size (8) * "
        "gradient_accumulation_steps (1) * world_size (2) = 16', '(TrainController pid=11900) [FailurePolicy] "
        "RAISE', 'job exited with 1'"),
    "ray-ckpt-tmpfs": (
        f"disk_full: {W} --save-steps 10' with ray_results/ (the RunConfig storage_path) on a 3 MiB tmpfs; the "
        "first checkpoint is persisted, copying the second one into storage (ray.train.report -> "
        "persist_current_checkpoint -> pyarrow.fs.copy_files) runs out of space on the workers, exit 1. "
        "evidence: '(RayTrainWorker pid=13294) Checkpoint successfully created at: Checkpoint(filesystem=local, "
        "path=/tmp/wavebj-c-job/run/ray_results/ticket-lm/checkpoint_2026-12-02_09-56-35.571660)', "
        "'(RayTrainWorker pid=13294) OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space "
        "left on device', 'job exited with 1'"),
    "ray-rank-killed": (
        f"host_oom_killed: {W} --max-steps 3000 --save-steps 20 --eval-steps 20'; the harness SIGKILLed the world-"
        "rank-1 RayTrainWorker process from outside (OOM-killer style) after the checkpoint reports began "
        "(the kill landed after report 20, the log monitor being behind); the raylet reports the dead worker, "
        "the actor died with SYSTEM_ERROR, FailurePolicy RAISE (max_failures 0), exit 1. evidence: '(raylet) A "
        "worker died or was killed while executing a task by an unexpected system error.', '(TrainController "
        "pid=14442) [Rank 1 Error Snippet]:', 'job exited with 1'"),
    "ray-preempted": (
        f"job_preempted: {W} --max-steps 3000 --save-steps 20 --eval-steps 20'; the harness, acting as the "
        "scheduler, sent SIGTERM to the driver (python train.py) mid-training while it waited in trainer.fit(); "
        "Ray's fatal-signal handler prints the SIGTERM and the driver aborts, exit 134. evidence: '*** SIGTERM "
        "received at time=1796205606 on cpu 1 ***', 'launch.sh: line 10: 15675 Aborted                 python "
        "train.py \"$@\"', 'job exited with 134'"),
    "ray-terminal-closed": (
        f"terminal_hangup: {W} --max-steps 3000 --save-steps 20 --eval-steps 20'; SIGHUP (the terminal the job "
        "was started from closing) was sent to the driver mid-training; it dies without a Python traceback, "
        "bash reports Hangup, exit 129. evidence: 'launch.sh: line 10: 17155 Hangup                  python "
        "train.py \"$@\"', 'job exited with 129'"),
    "ray-tensorboard": (
        f"library_version_mismatch: {W} --report-to tensorboard'; neither tensorboard nor tensorboardX is "
        "installed in the environment, so TrainingArguments(report_to='tensorboard') makes Trainer's "
        "TensorBoardCallback raise on the workers, exit 1. evidence: '(RayTrainWorker pid=19109) RuntimeError: "
        "TensorBoardCallback requires tensorboard to be installed. Either update your PyTorch version or install "
        "tensorboardX.', '(TrainController pid=18953) [FailurePolicy] RAISE', 'job exited with 1'"),
    "ray-port-held": (
        f"port_in_use: {W}'; a 'python -m http.server 6410' (another service) already listens on the GCS port "
        "given to ray start --port 6410; gcs_server cannot bind it and ray start fails before the driver runs, "
        "exit 1. evidence: 'gcs_client.cc:210: Failed to get cluster ID from GCS server: TimedOut: Timed out "
        "while waiting for GCS to become available.', 'Failed to start the grpc server. The specified port is "
        "6410.', 'RuntimeError: Failed to start GCS.  Last 1 lines of error files:', 'job exited with 1'"),
    "ray-rank-stopped": (
        f"silent_hang: {W} --max-steps 3000 --save-steps 20 --eval-steps 20'; the harness sent SIGSTOP to the "
        "world-rank-1 RayTrainWorker (pid 23999) after its checkpoint reports (last report 22); the gloo "
        "timeout is the default 1800 s, so nothing reports the stall: rank 0 blocks in the next collective, the "
        "log goes quiet apart from PlacementGroupCleaner lines; 45 s later the harness, acting as the scheduler, "
        "sent SIGTERM to the driver, which aborts (Ray's signal handler), exit 134. Root cause is the stopped "
        "rank, not the SIGTERM. evidence: '(RayTrainWorker pid=23999) Reporting training result 22: "
        "TrainingReport', '*** SIGTERM received at time=1796206133 on cpu 1 ***', 'launch.sh: line 10: 23610 "
        "Aborted                 python train.py \"$@\"', 'job exited with 134'"),
    "ray-rank-stopped-timeout": (
        f"collective_timeout: {W} --max-steps 3000 --save-steps 20 --eval-steps 20 --dist-timeout 20' "
        "(TorchConfig timeout_s=20 for the gloo process group); SIGSTOP to the world-rank-1 RayTrainWorker after "
        "its checkpoint reports; rank 0's next gloo collective times out after 20 s, FailurePolicy RAISE, the "
        "process-group shutdown also times out, exit 1. evidence: '(RayTrainWorker pid=27363) RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting "
        "20000ms for send operation to complete', '(TrainController pid=27164) Torch process group shutdown timed "
        "out after 30 seconds', 'job exited with 1'"),
    "ray-cpus-per-worker": (
        f"ray_scheduling_stall: {W} --cpus-per-worker 3' on a head started with --num-cpus 4: 2 workers x 3 CPUs "
        "cannot be placed; the Train v2 controller's worker group startup times out after 60 s and it retries; "
        "after 100 s the harness, acting as the scheduler, sent SIGTERM to the driver, exit 1. evidence: "
        "'(TrainController pid=25590) Requesting resources: {'CPU': 3.0} * 2', '(TrainController pid=25590) Error "
        "in control loop iteration: The worker group startup timed out after 60.0 seconds waiting for 2 workers.', "
        "'*** SIGTERM received at time=1796206239 on cpu 0 ***', 'job exited with 1'"),
    "ray-wide-oom": (
        f"host_oom_killed: {W} --n-embd 1024 --n-layer 8 --max-steps 20' (101M params) with the whole job (Ray "
        "head, driver, workers) in a 3 GB cgroup-v1 memory limit; while the workers build the model the cgroup's "
        "OOM killer SIGKILLs the world-rank-1 worker; the raylet reports the dead worker and the actor died with "
        "SYSTEM_ERROR, exit 1. evidence: '(raylet) A worker died or was killed while executing a task by an "
        "unexpected system error.', '(RayTrainWorker pid=30189) model: GPT-2 8 layers, n_embd 1024, 101.36M "
        "params', '(TrainController pid=29839) [Rank 1 Error Snippet]:', 'job exited with 1'"),
    "ray-lr": (
        f"training_divergence: {W} --lr 3e4 --max-steps 60' (lr 3e-3 in the config; a 1e7x too large override); "
        "the first optimizer steps blow the weights up, the gradient norm is NaN at the first logging step, the "
        "train loop's guard callback raises on rank 0 and the run stops, exit 1. evidence: '(RayTrainWorker "
        "pid=31276) FloatingPointError: grad_norm is nan at step 5; stopping (lr 30000.0)', '(TrainController "
        "pid=31163) [FailurePolicy] RAISE', 'job exited with 1'"),
    "ray-healthy-retry": (
        f"no_failure: {W} --max-steps 300 --save-steps 20 --max-failures 2'; the harness SIGKILLed the world-rank-1 "
        "worker after the first checkpoint report; FailurePolicy RETRY restarts the worker group from the latest "
        "checkpoint; in the second attempt rank 1's RayTrainReportCallback copy of the shared output_dir "
        "checkpoint races with rank 0's save (shutil.Error, a vanished .tmp file), a second RETRY (2 of 2 "
        "allowed); the third attempt resumes from the checkpoint and finishes 300 steps, exit 0. evidence: "
        "'(TrainController pid=2113)   Error count: 1 (max allowed: 2)', '(TrainController pid=2113)   Error "
        "count: 2 (max allowed: 2)', '(RayTrainWorker pid=2692) rank 0: training finished at step 300', "
        "'job exited with 0'"),
}
