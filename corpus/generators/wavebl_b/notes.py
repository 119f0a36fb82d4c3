"""Manifest notes for wave BL (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("dask/distributed 2026.8.0, xgboost 3.2.0 (xgboost.dask.train), lightgbm 4.7.0, Python 3.11.7, CPU only: a churn "
     "classifier trained by gradient boosting on a local Dask cluster started in one bash the way users do on a node "
     "('dask scheduler --port 29850 &', 'dask worker tcp://127.0.0.1:29850 --name wI --nworkers 1 --nthreads 1 "
     "--memory-limit M ... &' per worker, then 'python train.py --scheduler tcp://127.0.0.1:29850'; all output on "
     "one console, then 'kill $(jobs -p); wait'); the driver uploads features.py, reads 24 parquet partitions, "
     "map_partitions feature function (region lookup, a ctypes FNV hash of plan codes), random_split/persist, "
     "xgboost prints eval metrics from the rank-0 worker every N rounds, the driver logs a summary and saves the model")
NOTES = {
    "healthy-3w": (
        f"no_failure: {W}; 3 workers (w0-w2), --n-workers 3, 150 rounds; trains and saves; at teardown a nanny "
        "has to kill its worker ('still alive after 8.0 seconds, killing') and CommClosedError tracebacks appear, exit 0. "
        "evidence: '2026-12-02 15:05:18,466 - distributed.scheduler - INFO - Register worker addr: "
        "tcp://127.0.0.1:29872 name: w2', '2026-12-02 15:06:11,397 INFO churn: trained 150 rounds in 15.7s', "
        "'job exited with 0'"),
    "healthy-resume": (
        f"no_failure: {W}; an earlier unlogged 100-round run in the same job dir saved models/churn-xgb.json; this run "
        "uses --resume and trains 100 more rounds from it (200 in all). The XGBoost tracker port 29858 was still held "
        "from the earlier run, so the tracker prints 'Failed to bind ... Address already in use' and falls back to "
        "another port; training is unaffected, exit 0. evidence: '2026-12-02 15:08:20,282 INFO churn: resuming from "
        "models/churn-xgb.json (100 rounds already)', 'Failed to bind address '('127.0.0.1', 29858)', trying to use "
        "'127.0.0.1' instead. Error:', '2026-12-02 15:08:34,430 INFO churn: model saved to models/churn-xgb.json "
        "(1230123 bytes)'"),
    "healthy-tight-memory": (
        f"no_failure: {W}; workers with --memory-limit 400MB and 40 extra raw usage columns (51 features): the workers "
        "log 'Unmanaged memory use is high' and pause/resume at 80% memory during the feature/DMatrix phase, and the "
        "tracker port fallback warning shows; training finishes and the model is saved, exit 0. evidence: "
        "'2026-12-02 15:11:36,983 - distributed.worker.memory - WARNING - Worker is at 80% memory usage. Pausing "
        "worker.  Process memory: 305.46 MiB -- Worker memory limit: 381.47 MiB', '2026-12-02 15:11:48,479 INFO "
        "churn: trained 150 rounds in 16.6s', '2026-12-02 15:11:52,116 INFO churn: model saved to "
        "models/churn-xgb.json (985216 bytes)'"),
    "healthy-worker-restart": (
        f"no_failure: {W}; worker w1's process was SIGKILLed from outside right after the driver read the dataset "
        "(before training); its nanny restarted it, the scheduler rescheduled the feature tasks, and training "
        "(150 rounds) finished normally with both workers, exit 0. evidence: '2026-12-02 15:10:05,220 - "
        "distributed.nanny - INFO - Worker process 11893 was killed by signal 9', '2026-12-02 15:10:08,021 - "
        "distributed.nanny - WARNING - Restarting worker (status=Status.running)', '2026-12-02 15:10:41,344 INFO "
        "churn: model saved to models/churn-xgb.json (953223 bytes)'"),
    "healthy-lgb": (
        f"no_failure: {W}; --engine lightgbm: lightgbm.DaskLGBMClassifier with machines=127.0.0.1:29860,29861, 120 "
        "rounds; LightGBM network setup warns while the peer is not yet listening ('Connecting to rank 1 failed, "
        "waiting for 200 milliseconds'), plus UserWarning/deprecation warnings; trains and saves, exit 0. evidence: "
        "'[LightGBM] [Warning] Connecting to rank 1 failed, waiting for 200 milliseconds', '2026-12-02 "
        "15:18:38,201 INFO churn: model saved to models/churn-lgb.txt (414626 bytes)', 'job exited with 0'"),
    "worker-kill-training": (
        f"host_oom_killed: {W}; 600 rounds; at round 100 the worker process of w1 was SIGKILLed from outside (as the "
        "kernel OOM killer does); its nanny reports signal 9 and restarts it, the surviving worker's XGBoost ring "
        "allgather fails, the driver's xgboost.dask.train raises XGBoostError, exit 1. evidence: '2026-12-02 "
        "15:19:07,483 - distributed.nanny - INFO - Worker process 19810 was killed by signal 9', "
        "'- [allgather.cc:50|15:19:07]: Ring allgather failed, current iteration:0', 'job exited with 1'"),
    "plan-null-segv": (
        f"native_crash: {W}; one partition (17) of the CRM export has an empty plan_code; the feature function passes "
        "it as a NULL char* to the ctypes helper libplanhash.so (ph_bucket, strlen(NULL)) -> SIGSEGV in the worker; "
        "the nanny restarts it, the scheduler retries the task on 4 workers, all die, KilledWorker in the driver. The "
        "cluster teardown then hung (a nanny did not close) and the harness SIGTERMed the job's processes after "
        "110 s. evidence: '2026-12-02 15:19:31,741 - distributed.nanny - INFO - Worker process 20532 was killed by "
        "signal 11', '2026-12-02 15:19:44,521 - distributed.scheduler - ERROR - Task "
        "('read_parquet-fused-getitem-160af1828e12dc2918814ff4e4744164', 17) marked as failed because 4 workers died "
        "while trying to run it', 'distributed.scheduler.KilledWorker: Attempted to run task "
        "('read_parquet-fused-getitem-7799ac74f2a3dfa5bfc036f719b0b11f', 17) on 4 different workers'"),
    "new-region": (
        f"worker_exception: {W}; partition 9 of the export contains a region ('islands') added after "
        "data/regions.json; the feature function's lookup raises KeyError on the worker, the driver's dask.compute "
        "re-raises it with the traceback into features.py, exit 1. evidence: '2026-12-02 15:21:19,849 - "
        "distributed.worker - ERROR - Compute Failed', 'Exception: \"KeyError('islands')\"', \"KeyError: 'islands'\""),
    "score-lr": (
        f"training_divergence: {W}; --config configs/churn-score.json (reg:squarederror churn score, learning_rate 5); "
        "rmse explodes, becomes inf at round 40 and nan from round 70 on; the script's finite check refuses to save "
        "the model, exit 1. evidence: '2026-12-02 15:21:48,209 INFO churn: round  40 train-rmse inf train-auc 0.48815 valid-rmse inf valid-auc 0.49166', '2026-12-02 15:21:48,209 INFO churn: round  70 train-rmse nan train-auc 0.50693 valid-rmse nan valid-auc 0.50688', "
        "'2026-12-02 15:21:48,213 ERROR churn: valid-rmse is nan after 150 rounds; not saving the model'"),
    "model-tmpfs": (
        f"disk_full: {W}; models/ is a 400 KiB tmpfs; 200 rounds train fine (plus the tracker port fallback warning), "
        "then Booster.save_model of the ~1.2 MB JSON model fails in dmlc's FileStream (a short fwrite: the "
        "filesystem is full; XGBoost does not print errno), XGBoostError in the driver, exit 1. evidence: "
        "'2026-12-02 15:22:20,791 INFO churn: trained 200 rounds in 9.1s', 'bst.save_model(path)', "
        "'xgboost.core.XGBoostError: [15:22:22] /__w/xgboost/xgboost/dmlc-core/src/io/local_filesys.cc:37: Check "
        "failed: std::fwrite(ptr, 1, size, fp_) == size: FileStream.Write incomplete'"),
    "worker-stopped": (
        f"silent_hang: {W}; 3000 rounds; right after round 100 the worker process of w1 was SIGSTOPped from outside; "
        "w0 waits in XGBoost's collective, the scheduler keeps the stopped worker (no heartbeat timeout within the "
        "run) and nothing is printed for ~90 s; then the harness as batch scheduler SIGTERMs the scheduler, nannies "
        "and driver (exit 143); the last progress line is w0's round-100 eval line at 15:22:55. evidence: "
        "'2026-12-02 15:24:24,089 - distributed.scheduler - INFO - Closing scheduler. Reason: signal-15', "
        "'2026-12-02 15:24:24,117 - distributed.scheduler - INFO - Lost all workers', 'job exited with 143'"),
    "preempt": (
        f"job_preempted: {W}; 3000 rounds, progressing normally; at round 200 the harness as batch scheduler sent "
        "SIGTERM to the job's processes (scheduler, both nannies, driver); Dask logs the signal and closes, the "
        "driver dies with 'Terminated', exit 143. evidence: '2026-12-02 15:24:50,350 - distributed._signals - INFO - "
        "Received signal SIGTERM (15)', '2026-12-02 15:24:50,356 - distributed.scheduler - INFO - Closing scheduler. "
        "Reason: signal-15', 'job exited with 143'"),
    "hup": (
        f"terminal_hangup: {W}; 3000 rounds, progressing; at round 200 SIGHUP (the launching terminal closing) was sent "
        "to the job's processes (scheduler, both nannies, driver); none of them handles SIGHUP, so they die silently "
        "and only bash's job reports show it, exit 129. evidence: 'bash: line 1: 24369 Hangup                  nice -n "
        "5 dask scheduler --host 127.0.0.1 --port 29850 --dashboard-address 127.0.0.1:29851', 'bash: line 1: 24374 "
        "Hangup                  nice -n 5 python train.py --scheduler tcp://127.0.0.1:29850 --rounds 3000 "
        "--verbose-eval 20', 'job exited with 129'"),
    "third-worker-missing": (
        f"rendezvous_timeout: {W}; 3 workers expected (--n-workers 3 --wait-timeout 30), but w2 was started with a "
        "wrong scheduler address (tcp://127.0.0.1:29859, nothing listens): its nanny retries until 'Timed out trying "
        "to connect ... after 30 s' / 'Nanny failed to start', and the driver's Client.wait_for_workers raises "
        "WorkerStartTimeoutError with 2/3 workers; exit 1. evidence: '2026-12-02 15:26:44,643 INFO churn: waiting for 3 "
        "workers (timeout 30s)', 'OSError: Timed out trying to connect to tcp://127.0.0.1:29859 after 30 s', "
        "'distributed.exceptions.WorkerStartTimeoutError: Only 2/3 workers arrived after 30.0'"),
    "scheduler-port-taken": (
        f"port_in_use: {W}; a stale process (a leftover 'python -m http.server' started before the job, not in the "
        "log) holds 127.0.0.1:29850; 'dask scheduler --port 29850' fails to bind and exits, the two workers and the "
        "driver connect to the port (the stale server accepts TCP) and wait for a Dask handshake that never comes; "
        "nothing progresses until the harness as batch scheduler SIGTERMs the job after 110 s (Nanny failed to "
        "start, driver 'Terminated', exit 143). evidence: '2026-12-02 15:27:26,668 - distributed.scheduler - INFO - "
        "Closing scheduler. Reason: failure-to-start-<class 'OSError'>', 'OSError: [Errno 98] Address already in use', "
        "'RuntimeError: Scheduler failed to start.'"),
    "lgb-port-taken": (
        f"port_in_use: {W}; --engine lightgbm with machines=127.0.0.1:29860,127.0.0.1:29861 while a stale process (a "
        "leftover 'python -m http.server', started before the job, not in the log) holds 127.0.0.1:29860; the "
        "worker that gets that port cannot bind LightGBM's network listener, the task fails and the driver's fit "
        "raises LightGBMError, exit 1. evidence: '[LightGBM] [Fatal] Binding port 29860 failed', "
        "'Exception: \"LightGBMError('Binding port 29860 failed')\"', 'job exited with 1'"),
    "cgroup-oom": (
        f"host_oom_killed: {W}; 400 extra usage columns (411 features) and the whole job in a 900 MB cgroup-v1 memory "
        "limit (workers' Dask limit 1 GiB, so Dask's own pause/terminate thresholds are never reached): while the "
        "DMatrix is built the kernel OOM killer SIGKILLs the worker processes again and again (15 'killed by signal "
        "9', nanny restarts, lost tasks recomputed) and finally the scheduler ('Killed' in bash's job report); the "
        "driver loses the scheduler and fails, exit 1; the teardown hung on a nanny and the harness SIGTERMed it "
        "after 110 s. evidence: '2026-12-02 15:30:04,334 - distributed.nanny - INFO - Worker process 27325 was "
        "killed by signal 9', 'bash: line 1: 27232 Killed                  nice -n 5 dask scheduler --host "
        "127.0.0.1 --port 29850 --dashboard-address 127.0.0.1:29851', 'OSError: Timed out trying to connect to "
        "tcp://127.0.0.1:29850 after 20 s'"),
}
