"""What each committed run of wave AQ (a) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "search-fraud-healthy-failed-candidates": (
        "python train_claims.py search: RandomizedSearchCV (10 candidates x 5 folds, n_jobs=2, loky) of a "
        "LogisticRegression fraud pipeline with the user's extra grid over solver and penalty; the lbfgs + l1 "
        "candidate is invalid, its 5 fits fail inside the workers and are scored nan (error_score=nan), the search "
        "goes on and the best model is saved. Harmless noise: FitFailedWarning with the failures' traceback, "
        "'One or more of the test scores are non-finite', FutureWarning on 'penalty', ConvergenceWarning from saga. "
        "evidence: 'Fitting 5 folds for each of 10 candidates, totalling 50 fits', '5 fits failed out of a total of "
        "50.', \"ValueError: Solver lbfgs supports only 'l2' or None penalties, got l1 penalty.\", 'validation "
        "roc_auc 0.7432 pr_auc 0.1930', 'saved models/fraud-logreg.joblib (0.0 MB)', 'job exited with 0'"),
    "shards-severity-healthy-feature-cache": (
        "python train_claims.py shards --cache: the data-parallel gamma GLM for claim severity, 8 shards' gradients "
        "computed by joblib.Parallel on 2 loky workers and averaged by the driver for 300 steps. The per-shard "
        "feature cache (claim_features.py, keyed by the weights too, so it never hits) grows each worker by >300 MB: "
        "loky's memory-leak check retires the worker and starts a new one, twice, and training finishes normally. "
        "evidence: '40794 training claims in 8 shards, 7199 validation; pool joblib x 2', 'UserWarning: A worker "
        "stopped while some jobs were given to the executor. This can be caused by a too short worker timeout or by a "
        "memory leak.', 'eval step 300: validation MAE 2151.0 EUR, deviance 0.38205', 'finished 300 steps in 59.7s', "
        "'job exited with 0'"),
    "search-fraud-classic-cars": (
        "native_crash: the vehicle export now includes classic cars from a heritage book with pre-1981 11-character "
        "VINs; --vin-check native runs the C check-digit helper (vincheck.c -> libvincheck.so via ctypes) inside the "
        "pipeline in the loky workers, and its assert(strlen == 17) aborts the worker at the first fit; loky breaks "
        "the executor. evidence: 'Fitting 5 folds for each of 12 candidates, totalling 60 fits', \"python: "
        "vincheck.c:16: vin_check_ok: Assertion `n == 17' failed.\", 'Fatal Python error: Aborted', "
        "'joblib.externals.loky.process_executor.TerminatedWorkerError: A worker process managed by the executor was "
        "unexpectedly terminated.', 'The exit codes of the workers are {SIGABRT(-6)}', 'job exited with 1'"),
    "search-fraud-siu-lift": (
        "worker_exception (pickling): the search scores candidates by lift in the top 10% (--scoring lift@10, a "
        "scorer built as a closure by make_lift_scorer) and runs under parallel_config(backend='multiprocessing'); "
        "loky would cloudpickle the closure, the multiprocessing pool's pickler cannot, and the first batch of fits "
        "fails to be sent to the workers. evidence: 'Fitting 5 folds for each of 12 candidates, totalling 60 fits', "
        "\"AttributeError: Can't pickle local object 'make_lift_scorer.<locals>.lift'\", 'job exited with 1'"),
    "search-fraud-broker-feed": (
        "worker_exception: a broker feed left vehicle_value blank for ~2% of vehicles; the LogisticRegression "
        "pipeline has no imputer and the user runs GridSearchCV with --error-score raise, so the first fit raises in "
        "a loky worker and joblib re-raises it in the driver with the remote traceback. evidence: 'Fitting 5 folds "
        "for each of 8 candidates, totalling 40 fits', 'joblib.externals.loky.process_executor._RemoteTraceback:', "
        "'_logistic.py\", line 1437, in fit', 'ValueError: Input X contains NaN.', 'LogisticRegression does not "
        "accept missing values encoded as NaN natively.', 'job exited with 1'"),
    "shards-severity-rideshare": (
        "worker_exception: the vehicle export gained a usage class 'rideshare' that the per-shard feature code's "
        "USE_RISK table lacks; encode_shard raises KeyError in a loky worker at step 1 and joblib re-raises it with "
        "the remote traceback. evidence: '[Parallel(n_jobs=2)]: Using backend LokyBackend with 2 concurrent "
        "workers.', '_RemoteTraceback', 'claim_features.py\", line 15, in encode_shard', '[USE_RISK[u] for u in "
        "shard.vehicle_use],', \"KeyError: 'rideshare'\", 'job exited with 1'"),
    "shards-severity-faster-lr": (
        "training_divergence: the data-parallel gamma GLM (ProcessPoolExecutor, 2 workers) with the learning rate "
        "raised from 0.1 to 1.5: the log-link linear predictor blows up within a few steps, the workers' exp "
        "overflows and the driver's finiteness check stops the run. evidence: 'step    1 | gamma deviance 1.33342', "
        "'RuntimeWarning: overflow encountered in exp', 'RuntimeWarning: divide by zero encountered in log', "
        "'FloatingPointError: deviance is inf at step 7', 'job exited with 1'"),
    "cv-severity-quick-check": (
        "silent_hang: cross_validate of a HistGradientBoostingRegressor under parallel_config(backend="
        "'multiprocessing') with OMP_NUM_THREADS unset; the script's quick check fits the same model in the driver "
        "first, so GNU OpenMP (libgomp) already has its thread pool when the pool forks its workers; the forked "
        "workers' first OpenMP region waits forever on threads that do not exist in the child. Nothing more is "
        "printed; after 90 s the user's Ctrl-C (KeyboardInterrupt in joblib's result loop). evidence: 'quick check on "
        "1980 claims: in-sample r2 0.933 (9.4s)', '[Parallel(n_jobs=2)]: Using backend MultiprocessingBackend with 2 "
        "concurrent workers.', 'time.sleep(0.01)', 'KeyboardInterrupt'"),
    "cv-severity-team-model": (
        "library_version_mismatch: --init-from a colleague's RandomForestRegressor pickled with scikit-learn 1.2.2 "
        "(their environment) to add trees with warm_start; scikit-learn 1.9.1's tree unpickler rejects the old node "
        "layout (no missing_go_to_left field). evidence: 'InconsistentVersionWarning: Trying to unpickle estimator "
        "DecisionTreeRegressor from version 1.2.2 when using version 1.9.1.', 'ValueError: node array from the pickle "
        "has an incompatible dtype:', 'job exited with 1'"),
    "cv-severity-deep-forest": (
        "disk_full: cross_validate (3 folds, loky, n_jobs=2) of a 120-tree fully grown RandomForestRegressor, then "
        "the final fit is saved with joblib.dump to models/, a 48 MB node-local volume that already holds 30 MB of "
        "earlier models; the ~100 MB pickle does not fit. evidence: '[Parallel(n_jobs=2)]: Done   3 out of   3 | "
        "elapsed:  1.5min finished', 'cv r2 0.7526 +/- 0.0065 (89.6s)', 'validation MAE 1984.1 EUR', "
        "'joblib/numpy_pickle.py\", line 156, in write_array', 'OSError: [Errno 28] No space left on device', "
        "'job exited with 1'"),
    "cv-severity-container-shm": (
        "shm_exhausted: a container whose /dev/shm is 2 GB (a private tmpfs in its own mount namespace); joblib "
        "memmaps large arguments into /dev/shm when it has more than 2e9 bytes free, and --expand-postcode makes X a "
        "2235 MB dense matrix (6695 columns); dumping it there for the loky workers fails, and joblib reports that "
        "the task could not be pickled. evidence: 'severity features (41732, 6695) (2235 MB)', "
        "'joblib/_memmapping_reducer.py\", line 497, in __call__', 'OSError: [Errno 28] No space left on device', "
        "'_pickle.PicklingError: Could not pickle the task to send it to the workers.', 'job exited with 1'"),
    "timeout-severity-healthy-mp-backend": (
        "timeout 1800 python train_claims.py cv --backend multiprocessing: 5-fold cross_validate of a 60-tree "
        "RandomForestRegressor (n_jobs=2 inside the forest) on joblib's multiprocessing pool, well inside the time "
        "limit; the forests' own joblib calls inside the forked workers warn 55 times that sklearn's delayed is used "
        "without sklearn's Parallel (harmless). evidence: '[Parallel(n_jobs=2)]: Using backend MultiprocessingBackend "
        "with 2 concurrent workers.', 'UserWarning: `sklearn.utils.parallel.delayed` should be used with "
        "`sklearn.utils.parallel.Parallel`', '[Parallel(n_jobs=2)]: Done   5 out of   5 | elapsed:   48.9s "
        "finished', 'cv r2 0.7496 +/- 0.0110 (51.1s)', 'saved models/severity-rf.joblib (42.3 MB)', 'job exited "
        "with 0'"),
    "timeout-search-time-limit": (
        "job_preempted: the user's time limit, timeout 60 in front of a RandomForest GridSearchCV (8 candidates x 5 "
        "folds on 2 loky workers) that needs longer; at 60 s timeout sends SIGTERM to the driver, which dies at once; "
        "the workers go with it and loky's resource tracker cleans up. evidence: 'Fitting 5 folds for each of 8 "
        "candidates, totalling 40 fits', '[CV] END clf__max_depth=8, clf__min_samples_leaf=5, clf__n_estimators=200; "
        "total time=   7.0s', 'resource_tracker: There appear to be 8 leaked semlock objects to clean up at "
        "shutdown', 'job exited with 124'"),
    "fits-hangup": (
        "terminal_hangup: ./run_fits.sh started from an SSH session (no nohup, tmux or scheduler) runs two fits at "
        "once: a RandomForest GridSearchCV on loky workers and the gamma GLM whose shard gradients run on a "
        "multiprocessing.Pool; the session closes at step ~200 and SIGHUP reaches the script, both drivers and their "
        "workers; every process dies at once and the log just stops, with no exit status. evidence: 'run_fits: "
        "starting fit 1: python train_claims.py search --model rf --folds 5', 'run_fits: starting fit 2: python "
        "train_claims.py shards --pool mp --steps 3000 --log-every 100 --eval-every 500', 'Fitting 5 folds for each "
        "of 8 candidates, totalling 40 fits', 'step  200 | gamma deviance 0.36442 | |grad| 0.02561 | 25.9s' (last "
        "line)"),
    "shards-severity-worker-killed": (
        "peer_process_died: the data-parallel gamma GLM on a concurrent.futures.ProcessPoolExecutor (2 forked "
        "workers, 8 shards per step); after step 75 one pool worker is killed from outside with SIGKILL (someone's "
        "kill -9 of a busy python process on a shared box); nothing about the worker's death is printed, the driver "
        "only sees the pool break. evidence: '40794 training claims in 8 shards, 7199 validation; pool futures x 2', "
        "'step   75 | gamma deviance 0.53836 | |grad| 0.148 | 6.3s', 'concurrent.futures.process.BrokenProcessPool: "
        "A process in the process pool was terminated abruptly while the future was running or pending.', 'job "
        "exited with 1'"),
    "fits-healthy-nohup": (
        "nohup bash -c './run_fits.sh ...; echo ...' > fits.log 2>&1 (fits.log kept as job.log): two fits at once, a "
        "HistGradientBoosting RandomizedSearchCV and a RandomForest cross_validate, both on loky workers; the SSH "
        "session closes 14 s in and SIGHUP reaches the process group, but everything below nohup ignores it and both "
        "fits finish. evidence: 'run_fits: starting fit 1: python train_claims.py search --search random --n-iter 6 "
        "--folds 3', 'Fitting 3 folds for each of 6 candidates, totalling 18 fits', '[Parallel(n_jobs=2)]: Done   3 "
        "out of   3 | elapsed:   29.9s finished', 'saved models/fraud-hgb.joblib (0.2 MB)', 'run_fits: fit 1 (pid "
        "11813) exited with status 0', 'run_fits: fit 2 (pid 11814) exited with status 0', 'job exited with 0'"),
    "cv-severity-postcode-forest": (
        "host_oom_killed: --expand-postcode adds dense dummies for 3000 postcode districts (47993 x 3039 float64, "
        "1167 MB) and the job runs in a 6 GB memory cgroup; the driver keeps the DataFrame and the matrix, and "
        "after loky started its 2 workers for cross_validate (the matrix memmapped for them) the cgroup went over its "
        "limit; the kernel's OOM killer took the largest process, the driver, and the workers went with it. evidence: 'severity features (47993, 3039) (1167 MB), model RandomForestRegressor(n_estimators=50, "
        "random_state=0)', '[Parallel(n_jobs=2)]: Using backend LokyBackend with 2 concurrent workers.', 'bash: line "
        "1: 11420 Killed                  python train_claims.py cv --model rf --expand-postcode --trees 50 "
        "--no-quick-check --verbose 5', 'job exited with 137'"),
    "shards-severity-feature-cache-pod": (
        "host_oom_killed: the same leaky per-shard feature cache as the healthy cache run (--cache, keyed by the "
        "weights, so it only grows), now in a job limited to 750 MB (memory cgroup, a small container); the loky "
        "workers grow past the limit before loky's own 300 MB leak check would retire them, the kernel's OOM killer "
        "kills a worker and loky breaks the executor. evidence: 'step   75 | gamma deviance 0.53830 | |grad| 0.148 | "
        "15.3s', 'joblib.externals.loky.process_executor.TerminatedWorkerError: A worker process managed by the "
        "executor was unexpectedly terminated.', 'The exit codes of the workers are {SIGKILL(-9)}', 'job exited with "
        "1'"),
}
