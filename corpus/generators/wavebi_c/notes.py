"""Manifest notes for wave BI (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Ray Tune 2.60.0 (Python 3.11.7, torch 2.13.0+cpu) on a local one-node Ray cluster (2 CPUs) started by the job "
     "script, tune.Tuner + ASHAScheduler over a small torch MLP (function trainable train_churn, tune.report with "
     "checkpoints every 2 epochs, 1 CPU per trial, 2 trials at a time, CheckpointConfig(num_to_keep=2)) on a "
     "synthetic churn table; launched with 'ray start --head --port 6390 ... --num-cpus 2 --temp-dir /tmp/ray-bi-c "
     "&& nice -n 5 python tune_mlp.py")
NOTES = {
    "tune-healthy": (
        f"no_failure: {W}'; 4 trials, ASHA stops two early, Tune prints TensorboardX and experiment-snapshot "
        "WARNINGs and the GCS/raylet print metrics-exporter connection errors; the search finishes, exit 0. evidence: 'Trial status: 4 TERMINATED', 'job exited with 0'"),
    "tune-row": (
        f"worker_exception: {W}'; the training CSV has one malformed row (a feature value 'n/a'), so every trial's "
        "CSV loader raises ValueError in the trial actor; Tune marks all 4 trials ERROR and the driver exits 1. "
        "evidence: \"ValueError: could not convert string to float: 'n/a'\", 'Trial status: 4 ERROR', "
        "'ERROR churn_tune: 4 of 4 trials errored', 'job exited with 1'"),
    "tune-lr": (
        f"training_divergence: {W} --lr-min 50 --lr-max 400'; a learning-rate range that is far too high: three "
        "trials get a NaN training loss in their first epoch and the trainable raises FloatingPointError (the "
        "fourth finishes with a huge loss); driver exits 1. evidence: 'FloatingPointError: train loss is nan at "
        "epoch 0 (lr=123.2)', 'Trial status: 3 ERROR | 1 TERMINATED', 'job exited with 1'"),
    "tune-packed": (
        f"native_crash: {W} --loader packed'; the packed data file's header carries a bogus data offset, the "
        "zero-copy loader reads through ctypes.string_at at that address and every trial actor segfaults; Ray "
        "reports the actors died, all 4 trials ERROR, exit 1. evidence: '*** SIGSEGV received at time=1796202121 on "
        "cpu 0 ***', 'Fatal Python error: Segmentation fault', 'ray.exceptions.ActorDiedError: The actor died "
        "unexpectedly before finishing this task.', 'job exited with 1'"),
    "tune-optuna": (
        f"library_version_mismatch: {W} --search-alg optuna'; optuna is not installed in the environment, "
        "Ray Tune's OptunaSearch refuses to construct before any trial starts (short log), exit 1. evidence: "
        "'AssertionError: Optuna must be installed! Run `pip install optuna`.', 'job exited with 1'"),
    "tune-port-held": (
        f"port_in_use: {W}' while another process (a python http.server left on the host) already listens on "
        "6390; the GCS server cannot bind its port, 'ray start' fails and the driver never runs, exit 1 (short "
        "log). evidence: 'Check failed: server_ Failed to start the grpc server. The specified port is 6390.', "
        "'RuntimeError: Failed to start GCS.', 'job exited with 1'"),
    "tune-wide-oom": (
        f"host_oom_killed: {W} --hidden 6144 --layers 3 --num-samples 2' with the whole job in a cgroup-v1 memory "
        "cgroup limited to 2 GB; the two wide trials allocate their weights, gradients and momentum and the trial "
        "worker processes are SIGKILLed by the OOM killer (no Python traceback from them); Ray reports the actors "
        "died, both trials ERROR, exit 1. evidence: 'Worker unexpectedly exits with a connection error code 2. End "
        "of file. Some common causes include: (1) the process was killed by the OOM killer due to high memory "
        "usage', 'Trial status: 2 ERROR', 'job exited with 1'"),
    "tune-ckpt-tmpfs": (
        f"disk_full: {W} --hidden 384,512 --layers 2 --ckpt-every 1 --keep-checkpoints 4' with the Tune "
        "storage_path (results/) on a 3 MB tmpfs; checkpoint and result writes fail with ENOSPC, trials error, "
        "exit 1. evidence: 'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on "
        "device', 'Trial status: 4 ERROR', 'job exited with 1'"),
    "tune-terminal-closed": (
        f"terminal_hangup: {W} --num-samples 6 --max-epochs 20'; the driver gets SIGHUP (sent by the harness, as "
        "from a closed terminal) right after the first trial checkpoint and dies; the shell reports Hangup, exit "
        "129. evidence: 'bash: line 1:  7840 Hangup                  nice -n 5 python tune_mlp.py --num-samples 6 "
        "--max-epochs 20', 'job exited with 129'"),
    "tune-trial-stopped": (
        f"silent_hang: {W} --num-samples 3 --max-epochs 14'; right after the first trial checkpoint the harness "
        "sends SIGSTOP to one trial actor process (ray::ImplicitFunc); the other trials finish, the stopped trial "
        "stays RUNNING at iteration 1 and Tune keeps printing its status table with nothing progressing, no error "
        "or timeout from Ray or Tune; the harness killed the job after 100 s (no exit line). evidence: 'Trial "
        "status: 2 TERMINATED | 1 RUNNING', 'Current time: 2026-12-02 09:05:29. Total running time: 1min 30s'"),
    "tune-cpus": (
        f"ray_scheduling_stall: {W} --cpus-per-trial 4'; every trial asks for 4 CPUs on a 2-CPU cluster with no "
        "autoscaling, so no trial placement can ever be scheduled; trials stay PENDING, the autoscaler and Tune's "
        "insufficient-resources manager warn, nothing fails; the harness killed the job after 100 s (no exit line). "
        "evidence: \"Error: No available node types can fulfill resource request {'CPU': 4.0}. Add suitable node "
        "types to this cluster to resolve this issue.\", 'No trial is running and no new trial has been started "
        "within the last 60 seconds.', 'Trial status: 2 PENDING'"),
    "tune-healthy-retry": (
        f"no_failure: {W} --max-failures 2 --max-epochs 14'; right after the first trial checkpoint the harness "
        "SIGKILLs one trial actor process; Ray reports the actor died and Tune logs the trial failure with a long "
        "traceback, then retries it (FailureConfig max_failures=2), the trial restores from its checkpoint and the "
        "search finishes, exit 0. evidence: 'ERROR tune_controller.py:1336 -- Trial task failed for trial "
        "train_churn_f27ac_00000', 'restored trial state from checkpoint, continuing at epoch 2', '* The trial "
        "terminated successfully after retrying.', 'Trial status: 4 TERMINATED', 'job exited with 0'"),
    "tune-preempted": (
        f"job_preempted: {W} --num-samples 6 --max-epochs 20'; right after the first trial checkpoint the harness "
        "(as a scheduler) sends SIGTERM to the Tune driver; Ray's signal handler prints the SIGTERM and the driver "
        "exits 1 mid-search. evidence: '*** SIGTERM received at time=1796202560 on cpu 0 ***', 'job exited with 1'"),
    "tune-preempted-group": (
        f"job_preempted: {W} --num-samples 6 --max-epochs 20 --max-failures 1'; 32 s into the job the harness (as "
        "a scheduler ending the job step) sends SIGTERM to every process of the job except its shell: the Tune "
        "driver, the GCS, raylet and the running trial actor; the driver prints Ray's SIGTERM banner and then "
        "aborts (the shell reports Aborted, exit 134) -- the abort is a consequence of the SIGTERM, not a native "
        "bug. evidence: '*** SIGTERM received at time=1796202625 on cpu 0 ***', 'bash: line 1: 14766 Aborted       "
        "          nice -n 5 python tune_mlp.py --num-samples 6 --max-epochs 20 --max-failures 1', 'job exited "
        "with 134'"),
    "tune-healthy-wide": (
        f"no_failure: {W} --num-samples 6 --hidden 64,128 --grace-period 2'; 6 trials, ASHA stops several early, "
        "repeated experiment-snapshot WARNINGs, the search finishes, exit 0. evidence: 'WARNING experiment_state.py:209 -- Experiment state snapshotting "
        "has been triggered multiple times in the last 5.0 seconds and may become a bottleneck.', 'Trial status: 6 "
        "TERMINATED', 'job exited with 0'"),
    "tune-ddp-global-batch": (
        "batch_size_mismatch: Ray Tune 2.60.0 + Ray Train (v2) TorchTrainer with 2 gloo workers (CPU) driven from "
        "inside one Tune trial (TuneReportCallback), torch 2.13.0+cpu, small MLP on a synthetic churn table, local "
        "2-CPU Ray cluster started by the job script; launched with 'ray start --head --port 6390 ... && nice -n 5 "
        "python tune_mlp.py --workers 2 --num-samples 1 --global-batch-size 100'; the global batch size in the "
        "command does not match the per-worker batch (64) x 2 workers, both train workers raise at start, the Train "
        "controller fails the run, Tune marks the trial ERROR, exit 1. evidence: 'ValueError: global_batch_size "
        "(100) must equal batch_size (64) x workers (2)', 'ray.train.WorkerGroupError: Training failed due to "
        "worker errors:', 'Trial status: 1 ERROR', 'job exited with 1'"),
    "tune-ddp-worker-stopped": (
        "collective_timeout: Ray Tune 2.60.0 + Ray Train (v2) TorchTrainer with 2 gloo workers (CPU, "
        "TorchConfig(timeout_s=20)) driven from inside one Tune trial (TuneReportCallback), torch 2.13.0+cpu, small "
        "MLP on a synthetic churn table, local 2-CPU Ray cluster started by the job script; launched with 'ray start "
        "--head --port 6390 ... && nice -n 5 python tune_mlp.py --workers 2 --num-samples 1 --max-epochs 40 "
        "--dist-timeout 20'; after the first report the harness sends SIGSTOP to one train worker process "
        "(ray::RayTrainWorker, pid 22284); the other worker blocks in the gradient all-reduce until gloo's 20 s "
        "timeout, the Train run fails, the trial errors, exit 1. evidence: 'RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms "
        "for recv operation to complete', 'Torch process group shutdown timed out after 30 seconds', 'Trial status: "
        "1 ERROR', 'job exited with 1'"),
    "tune-ddp-healthy": (
        "no_failure: Ray Tune 2.60.0 + Ray Train (v2) TorchTrainer with 2 gloo workers (CPU) driven from inside one "
        "Tune trial (TuneReportCallback), torch 2.13.0+cpu, small MLP on a synthetic churn table, local 2-CPU Ray "
        "cluster started by the job script; launched with 'ray start --head --port 6390 ... && nice -n 5 python "
        "tune_mlp.py --workers 2 --num-samples 1 --max-epochs 8'; Ray Train's PlacementGroupCleaner keeps printing "
        "that it failed to query the controller state and the core worker warns about an actor's constructor "
        "arguments, all harmless; 8 epochs with checkpoints, the trial terminates, exit 0. evidence: "
        "'Failed to query Ray Train Controller actor state. State API may be temporarily unavailable. Continuing to "
        "monitor.', 'Setting up process group for: env:// [rank=0, world_size=2]', 'Trial status: 1 TERMINATED', "
        "'job exited with 0'"),
    "tune-healthy-restore": (
        f"no_failure: {W} --num-samples 6 --max-epochs 20 --resume'; an earlier run of the same experiment (not in "
        "this log) was interrupted with SIGINT after 20 s; this job restores it with Tuner.restore(resume_errored="
        "True), the interrupted trials restart from their checkpoints and the search finishes, exit 0. evidence: "
        "'INFO churn_tune: restoring experiment from /tmp/wavebi-c-job/run/results/churn-mlp', 'restored trial "
        "state from checkpoint, continuing at epoch 12', 'Trial status: 6 TERMINATED', 'job exited with 0'"),
}
