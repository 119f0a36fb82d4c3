"""What each committed run of wave AM (b) showed: one note per scenario, written after the runs (``evidence:`` quotes
lines of the run's own log)."""

NOTES = {
    "rabit-rank-healthy": (
        "launch_rabit.sh: an XGBoost RabitTracker process and two rank_train.py worker processes on localhost; the "
        "workers start before the tracker listens, so XGBoost's collective warns and retries the connection; then 150 "
        "rounds of rank:ndcg, checkpoints every 10 rounds, importances. Healthy. evidence: 'socket.cc:149: Retrying "
        "connection to 127.0.0.1 for the 1 time.', 'training done: 150 rounds', 'job exited with 0'"),
    "rabit-rank-relabelled-export": (
        "A re-export of training shard-01 left the relevance grade empty for 0.2% of the documents (NaN labels); "
        "worker 1's DMatrix raises in XGBoost's label check and worker 0 then fails in the collective (broken pipe). "
        "evidence: 'Check failed: valid: Label contains NaN, infinity or a value too large.', 'Socket error. Broken "
        "pipe', 'launch_rabit: worker 1 exited with code 1'"),
    "rabit-rank-month-holdout": (
        "--report-every 20 makes worker 0 compute a per-query NDCG report (a Python loop over every validation query) "
        "inside a training callback; its validation shard was re-exported with 20000 queries, so each report takes "
        "19-30 s and the one at round 140 outlasts the collective's 30 s operation timeout (--comm-timeout 30, "
        "dmlc_timeout) while worker 1 waits in the next histogram allreduce; the launcher then stops worker 0. evidence: 'Ring Allreduce failed.', 'Poll timeout:30 seconds. Connection timed "
        "out'"),
    "rabit-rank-session-feature": (
        "--session-depth adds each query's reformulation depth from the sessions log with a recursive function memoised "
        "by functools.lru_cache and sys.setrecursionlimit(1_000_000); a new sessions export of shard-01 contains a "
        "reformulation loop, so the recursion (through the C lru_cache wrapper) overflows the C stack and worker 1 "
        "dies with SIGSEGV before joining the collective; the launcher stops worker 0. evidence: 'Segmentation fault      python rank_train.py', "
        "'launch_rabit: worker 1 exited with code 139'"),
    "rabit-rank-keep-checkpoints": (
        "TrainingCheckPoint every 5 rounds into ckpt/, a 1 MB volume already holding 350 KB of earlier runs; every "
        "checkpoint is kept, the volume fills and XGBoost's save_model fails on worker 0 (dmlc's fwrite check), then "
        "worker 1 fails in the allreduce. evidence: 'local_filesys.cc:37: Check failed: std::fwrite(ptr, 1, size, fp_) "
        "== size: FileStream.Write incomplete'"),
    "rabit-rank-shared-port": (
        "A colleague's dask scheduler already listens on 127.0.0.1:29911 and the job's tracker is given the same port: "
        "RabitTracker cannot bind; the workers connect to the dask scheduler instead and fail to bootstrap. "
        "evidence: 'Failed to bind socket. system error:Address already in use', 'Bootstrap failed.', 'Invalid "
        "verification number.'"),
    "rabit-rank-per-query-report": (
        "--eval-workers 2 computes the per-query report in a fork-based multiprocessing.Pool after training with "
        "nthread 2; the forked children call Booster.predict, whose OpenMP runtime (libgomp, already used by the "
        "parent's threads) deadlocks after fork. Both workers print 'training done' and the job then prints nothing; "
        "after 120 s the user presses Ctrl-C (SIGINT to the foreground process group), which ends the launcher; the "
        "log just stops. evidence: '[worker 0] training done: 80 rounds', no 'per-query report' line"),
    "mpirun-rank-healthy-resume": (
        "run_mpi.sh: tracker for the hostfile's 2 slots, workers started by Open MPI's mpirun (task id from "
        "OMPI_COMM_WORLD_RANK); resumes from the checkpoint of an earlier 50-round run (ranker_40.ubj) and trains 120 "
        "more rounds with early stopping. Healthy, with the collective's connection-retry warnings. evidence: "
        "'resumed from ckpt/ranker_40.ubj at round 41', 'training done: 161 rounds', 'job exited with 0'"),
    "mpirun-rank-returning-node": (
        "The hostfile keeps a commented-out second node ('#node-b slots=1'); mpirun ignores the comment and starts 2 "
        "workers, but run_mpi.sh sums every 'slots=' it finds and starts the tracker for 3 workers. The tracker waits "
        "for the third worker until its 90 s bootstrap timeout; the two workers fail to bootstrap the group. evidence: "
        "'run_mpi: 3 worker slots in hostfile', 'Failed to accept connection.', 'Poll timeout:90 seconds. Connection "
        "timed out', 'Failed to bootstrap the communication group.'"),
    "mpirun-rank-auto-bins": (
        "--max-bin auto picks max_bin from each worker's own shard size; shard-01 was re-exported with 4x the queries, "
        "so worker 0 builds 128-bin histograms and worker 1 512-bin ones and the histogram allreduce sums buffers of "
        "different layouts; worker 1's NDCG check then fails on the corrupted model output, worker 0 fails in the "
        "collective. evidence: '[worker 0] max_bin auto: 128 for 35398 documents', '[worker 1] max_bin auto: 512 for "
        "141402 documents', 'Check failed: score <= 1.0 + kRtEps (77.6082 vs. 1) : Invalid output score'"),
    "dask-local-rank-healthy": (
        "xgboost.dask on a dask LocalCluster (2 worker processes, 1 thread each), one partition per shard, XGBoost's "
        "tracker in the client; 150 rounds. Healthy. evidence: 'training done in', '150 rounds', 'job exited with 0'"),
    "dask-shell-rank-healthy-early-stop": (
        "run_dask.sh: dask scheduler and two dask worker processes started from the shell, then the client; eta 0.3 "
        "and early stopping (10 rounds) stop training at round 110 (best 99); the scheduler's and nannies' shutdown "
        "messages ('Lost all workers') follow. Healthy. evidence: '110 rounds, best iteration 99', 'job exited with 0'"),
    "dask-local-rank-feature-crosses": (
        "--pair-features adds the product of every feature pair (300 float64 columns) in each partition on a "
        "LocalCluster whose workers have a 600 MiB memory limit; both workers pass 95% and the nanny's memory monitor "
        "kills and restarts them; xgboost.dask then refuses the rescheduled worker. evidence: 'exceeded 95% memory "
        "budget. Restarting...', 'Invalid worker address ... one of the workers died and Dask re-scheduled a different "
        "one'"),
    "dask-shell-rank-node-drain": (
        "The node is drained while training runs: SIGTERM from outside to the dask scheduler, the dask worker "
        "processes and the client. evidence: 'distributed._signals - INFO - Received signal SIGTERM (15)', 'Reason: "
        "signal-15'"),
    "dask-shell-rank-worker-host-lost": (
        "Worker w1's host is lost mid-training (its dask worker process and the worker below it SIGKILLed at once); "
        "the surviving XGBoost worker's allreduce fails and the client's training fails. The launching shell reports "
        "the killed process. evidence: 'Killed                  dask worker', 'Remove worker addr: ... name: w1', "
        "'Ring Allreduce failed.', 'Poll error condition:Success code:0'"),
    "dask-shell-rank-team-site": (
        "Planned as a version mismatch: PYTHONPATH with the team's shared site directory holding xgboost 2.1.4 (client "
        "and workers). xgboost 2.1.4 trained fine with dask/distributed 2026.8, so it is a healthy run; the shutdown "
        "prints a CommClosedError traceback. evidence: 'xgboost 2.1.4 dask 2026.8.0', 'CommClosedError', 'job exited "
        "with 0'"),
}
