"""Manifest notes for wave BE (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Ray Tune (ray 2.60.0, torch 2.13.0+cpu) started with 'nice -n 5 python tune_demand.py --data data/sales.csv "
     "--num-samples 3 --epochs 2 --step-delay 0.02' (ray.init() local instance, tune.Tuner over lr/wd/hidden/layers/"
     "dropout, ASHAScheduler, max_concurrent_trials=2, RunConfig(storage_path=ray_results), FailureConfig, "
     "tune.report with checkpoints); a retail team's demand-forecasting MLP on synthetic store sales")
WT = W + ("; '--workers 2': each trial is a 2-worker ray.train.torch.TorchTrainer over gloo on CPU (Ray Train V2, "
          "prepare_data_loader's DistributedSampler, TuneReportCallback)")
NOTES = {
    "dmd-healthy": (
        f"no_failure: {W}; 3 trials, ASHA stops two early, each trial prints loss lines and a validation WAPE per "
        "epoch and checkpoints; Tune's trial tables and the best config are printed, exit 0. evidence: "
        "'Trial status: 3 TERMINATED', 'Best trial final val_wape: 0.6678', 'Tuning finished.', 'job exited with 0'"),
    "dmd-healthy-restore": (
        f"no_failure: {W}, '--epochs 4 --resume'; an earlier run of the same experiment (not in this log) was "
        "interrupted with SIGINT after 32 s; this run restores it with Tuner.restore(resume_errored=True): Tune warns "
        "that one unfinished trial has no result files yet, restores from the experiment state file and finishes "
        "the trials, exit 0. evidence: 'Restoring experiment from /tmp/wavebe-c-job/run/ray_results/demand_mlp_asha', "
        "'2026-12-01 20:23:07,906\tINFO tune_controller.py:448 -- Restoring the run from the latest experiment state "
        "file: experiment_state-2026-12-01_20-22-29.json', 'Tuning finished.', 'job exited with 0'"),
    "dmd-healthy-rerun-done": (
        f"no_failure: {W}, '--resume'; rerun of a finished experiment (not in this log) with the same command: "
        "Tuner.restore finds all 3 trials TERMINATED, trains nothing, prints the results, exit 0. evidence: "
        "'Restoring experiment from /tmp/wavebe-c-job/run/ray_results/demand_mlp_asha', 'Trial status: 3 "
        "TERMINATED', 'Best trial final val_wape: 0.6384', 'Tuning finished.', 'job exited with 0'"),
    "dmd-missing-promo-column": (
        f"worker_exception: {W}; the sales export lacks the promo_depth column: every trial raises KeyError in "
        "pandas while loading features and errors (max_failures 0); the script's get_best_result then raises "
        "because no trial reported the metric. evidence: \"KeyError: \"['promo_depth'] not in index\"\", "
        "'Trial trial_plain_7a114_00001 errored after 0 iterations at 2026-12-01 20:26:34. Total running time: 11s', "
        "'Number of errored trials: 3', 'RuntimeError: No best trial found for the given metric: val_wape. This "
        "means that no trial has reported this metric, or all values reported for this metric are NaN. To not "
        "ignore NaN values, you can set the `filter_nan_and_inf` arg to False.', 'job exited with 1'"),
    "dmd-hidden-typo": (
        f"worker_exception: {W}, '--hidden 32,64;128' (a ';' typed for a ','); the driver script raises ValueError "
        "parsing the search-space widths right after Ray starts, before any trial. evidence: \"ValueError: invalid "
        "literal for int() with base 10: '64;128'\", 'job exited with 1'"),
    "dmd-promo-gaps-nan": (
        f"training_divergence: {W}; the sales export has empty promo_depth values for its first 3 days (read as "
        "NaN): every trial's loss is NaN in its first steps and the trial's own check raises FloatingPointError; all "
        "3 trials error, get_best_result raises. evidence: 'FloatingPointError: Loss is nan at epoch 1 step 1', "
        "'Trial trial_plain_a3e80_00000 errored after 0 iterations at 2026-12-01 20:27:58. Total running time: 24s', "
        "'job exited with 1'"),
    "dmd-holiday-calendar": (
        f"library_version_mismatch: {W}, '--calendar holidays' (public-holiday features need the holidays package, "
        "not installed in the venv; the taxonomy has no import_error id, the corpus labels a missing module so): "
        "every trial raises ModuleNotFoundError and errors, get_best_result raises. evidence: \"ModuleNotFoundError: "
        "No module named 'holidays'\", 'Trial trial_plain_caf29_00000 errored after 0 iterations at 2026-12-01 "
        "20:28:55. Total running time: 15s', 'job exited with 1'"),
    "dmd-wide-oom": (
        f"host_oom_killed: {W}, '--hidden 4096 --num-samples 2' (hidden layers 4096 wide) with the whole job (Ray's "
        "processes included) in a 1.6 GB cgroup-v1 memory limit: both trial worker processes are killed by the kernel "
        "OOM killer while building the model, before any loss line; Tune reports ActorDiedError for both trials. "
        "evidence: '2026-12-01 20:29:34,945\tERROR tune_controller.py:1336 -- Trial task failed for trial "
        "trial_plain_e4e5e_00000', 'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this "
        "task.', 'Trial trial_plain_e4e5e_00000 errored after 0 iterations at 2026-12-01 20:29:34. Total running "
        "time: 11s', 'Number of errored trials: 2', 'job exited with 1'"),
    "dmd-healthy-train-workers": (
        f"no_failure: {WT}, '--num-samples 1 --max-concurrent 1'; the trial's TrainController starts a 2-worker group, "
        "rank 0 prints loss lines and the all-reduced validation WAPE, reports are forwarded to Tune, exit 0. "
        "evidence: 'Trial status: 1 TERMINATED', 'Best trial final val_wape: 0.6263', 'Tuning finished.', 'job "
        "exited with 0'"),
    "dmd-trial-killed": (
        f"host_oom_killed: {W}, '--epochs 4'; after the first validation line one trial's worker process "
        "(ray::ImplicitFunc.train) is SIGKILLed from outside (kill -9, no OOM); Ray reports the worker died, Tune "
        "errors that trial (max_failures 0) and finishes the other two; the script prints the best config and exits 1 "
        "because a trial errored. evidence: '2026-12-01 20:32:20,851\tERROR tune_controller.py:1336 -- Trial task "
        "failed for trial trial_plain_48374_00000', 'ray.exceptions.ActorDiedError: The actor died unexpectedly "
        "before finishing this task.', 'Trial trial_plain_48374_00000 errored after 1 iterations at 2026-12-01 "
        "20:32:20. Total running time: 11s', 'Trial status: 1 ERROR | 2 TERMINATED', 'job exited with 1'"),
    "dmd-results-tmpfs": (
        f"disk_full: {W}, '--hidden 256', the Tune storage path (ray_results/) a 160 KiB tmpfs: the first epoch's "
        "checkpoint upload of every trial fails with ENOSPC (pyarrow filesystem copy), all 3 trials error, Tune's "
        "experiment-state snapshots fail too. evidence: 'OSError: [Errno 28] Error writing bytes to file. Detail: "
        "[errno 28] No space left on device', 'Trial trial_plain_5df4c_00001 errored after 0 iterations at "
        "2026-12-01 20:32:57. Total running time: 11s', \"2026-12-01 20:33:08,202\tERROR experiment_state.py:176 -- "
        "Saving experiment state to storage at '/tmp/wavebe-c-job/run/ray_results/demand_mlp_asha' failed with "
        "exception: \", 'Trial status: 3 ERROR', 'job exited with 1'"),
    "dmd-preempted": (
        f"job_preempted: {W}, '--epochs 4'; after the first validation line SIGTERM is sent to the job's whole process "
        "group (as a scheduler's preemption or time limit does): the driver's Ray core handler prints the signal "
        "and the job dies; the shell dies with it (no 'job exited' line). evidence: '*** SIGTERM received at "
        "time=1796157222 on cpu 1 ***', '[2026-12-01 20:33:42,562 E 850 850] logging.cc:474: *** SIGTERM received at "
        "time=1796157222 on cpu 1 ***'"),
    "dmd-terminal-closed": (
        f"terminal_hangup: {W}, '--epochs 4'; after the first validation line SIGHUP is sent to the job's whole "
        "process group (the launching terminal closed): the driver, the Ray processes and the shell die at once "
        "without printing anything about the signal; the log just stops (no 'job exited' line). evidence: "
        "'Trial trial_plain_89e95_00000 completed after 1 iterations at 2026-12-01 20:34:12. Total running time: "
        "12s' (followed only by that trial's result table, then the log ends)"),
    "dmd-train-worker-stopped": (
        f"collective_timeout: {WT}, '--num-samples 1 --epochs 4 --pg-timeout 20' (TorchConfig(timeout_s=20)); after "
        "the first validation line the last-started RayTrainWorker process is SIGSTOPped: the other worker's gloo "
        "collective times out after 20 s, the TrainController fails the run with WorkerGroupError (its process-group "
        "shutdown also times out), Tune errors the trial. evidence: 'RuntimeError: [/__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors:', 'Trial trial_distributed_9b7fe_00000 "
        "errored after 1 iterations at 2026-12-01 20:36:15. Total running time: 1min 45s', 'job exited with 1'"),
    "dmd-batch-odd": (
        f"batch_size_mismatch: {WT}, '--num-samples 1 --batch-size 63': the train loop's check finds that the global "
        "batch does not split over the 2 train workers and raises on the workers; Train fails the run, Tune errors "
        "the trial. evidence: 'ValueError: global batch size 63 is not divisible by 2 train workers', 'Trial "
        "trial_distributed_e3f7b_00000 errored after 0 iterations at 2026-12-01 20:37:03. Total running time: 32s', "
        "'job exited with 1'"),
    "dmd-train-trials-serial": (
        f"ray_scheduling_stall: {WT}, '--num-samples 2 --max-concurrent 1' on the script's 4 logical CPUs: the first "
        "trial's 2-worker group trains and the trial completes, but its placement group is not released (the Train "
        "PlacementGroupCleaner keeps failing to query the controller's state); the second trial's TrainController "
        "cannot place its 2 workers, its worker-group startup times out after 60 s and it retries; the harness "
        "ended the job after 140 s (no 'job exited' line). evidence: 'Trial trial_distributed_012a0_00000 completed "
        "after 2 iterations at 2026-12-01 20:37:58. Total running time: 38s', 'Trial status: 1 TERMINATED | 1 "
        "RUNNING', 'ray.train.v2._internal.exceptions.WorkerGroupStartupTimeoutError: The worker group startup timed "
        "out after 60.0 seconds waiting for 2 workers.' (part of a longer line), 'Failed to query Ray Train "
        "Controller actor state. State API may be temporarily unavailable. Continuing to monitor.' (part of the "
        "PlacementGroupCleaner, repeated)"),
    "dmd-lag-recursion": (
        f"native_crash: {W}, '--lag-depth 400000': the trial's memoised recursive smoothed-lag feature "
        "(functools.lru_cache, sys.setrecursionlimit raised to 10x the depth) overflows the C stack and the trial "
        "worker process dies with SIGSEGV (the same code run alone outside Ray exits 139, 'Segmentation fault'); the "
        "log names no signal: Ray reports only that the worker died unexpectedly (its generic hint lists OOM, ray "
        "stop and SIGSEGV), all 3 trials error, exit 1. evidence: 'ray.exceptions.ActorDiedError: The actor died "
        "unexpectedly before finishing this task.', 'Trial trial_plain_56424_00000 errored after 0 iterations at "
        "2026-12-01 20:39:50. Total running time: 7s', 'job exited with 1'"),
    "dmd-loader-shm": (
        f"no_failure: {W}, '--loader-workers 2' (2 DataLoader worker processes per trial), run in its own mount "
        "namespace with /dev/shm a 256 KiB tmpfs (meant as a shared-memory failure; it did not fail): Ray warns that "
        "its object store falls back to /tmp/ray, the small batches fit in /dev/shm, all 3 trials finish, exit 0. "
        "evidence: \"2026-12-01 20:40:10,824\tWARNING services.py:2248 -- WARNING: The object store is using /tmp/ray "
        "instead of /dev/shm because /dev/shm has only 262144 bytes available. This will harm performance! You may "
        "be able to free up space by deleting files in /dev/shm. If you are inside a Docker container, you can "
        "increase /dev/shm size by passing \'--shm-size=6.71gb\' to \'docker run\' (or add it to the run_options "
        "list in a Ray cluster config). Make sure to set this to more than 30% of available RAM.\", 'Trial status: 3 "
        "TERMINATED', 'Tuning finished.', 'job exited with 0'"),
}
