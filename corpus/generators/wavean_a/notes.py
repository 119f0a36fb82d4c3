"""What each committed run of wave AN (a) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "shell-load-healthy": (
        "launch.sh starts 2 train_load.py processes (LightGBM socket network, tree_learner=data, machines "
        "127.0.0.1:30101,30102); 150 rounds of l2 on each worker's 12 substations, checkpoints every 50 rounds, model "
        "saved and feature importances printed; worker 0's connect retry while worker 1 starts is harmless. evidence: "
        "'[LightGBM] [Warning] Connecting to rank 1 failed, waiting for 200 milliseconds', "
        "'[worker 0] saved checkpoint models/checkpoint-0150.txt (435749 bytes)', 'job exited with 0'"),
    "shell-load-healthy-staggered": (
        "launch.sh -n 3 -d 6: three machines started 6 s apart, tree_learner=voting; workers 0 and 1 retry the "
        "connection to rank 2 with growing waits (scary but harmless) until it starts; training finishes and the model is "
        "saved. evidence: '[LightGBM] [Warning] Connecting to rank 2 failed, waiting for 3569 milliseconds', "
        "'launch.sh: worker 2 ... exited with status 0', 'job exited with 0'"),
    "shell-load-second-launch": (
        "port_in_use: another experiment started with the same launch.sh -p 30111 is still training (its console not "
        "kept); the second job's worker cannot bind its LightGBM listen port and the launcher stops the others. "
        "evidence: '[LightGBM] [Fatal] Binding port 30112 failed', 'lightgbm.basic.LightGBMError: Binding port 30112 "
        "failed', 'launch.sh: stopping the other workers'"),
    "shell-load-third-host": (
        "rendezvous_timeout: machines.txt still lists three machines (127.0.0.1:30113-30115) but launch.sh -n 2 starts "
        "two; both retry rank 2 with growing waits, and after the 1-minute time_out LightGBM's accept fails, "
        "std::runtime_error aborts worker 1. evidence: '[LightGBM] [Warning] Connecting to rank 2 failed, waiting for "
        "17218 milliseconds' (growing), '[LightGBM] [Fatal] Socket accept error, Resource temporarily unavailable (code: "
        "11)', 'terminate called after throwing an instance of 'std::runtime_error'', 'Fatal Python error: Aborted', "
        "'exited with status 134'"),
    "shell-load-early-stop": (
        "collective_mismatch: --early-stop 5 with each worker validating on its own substations (--valid local): worker 0 "
        "early-stops at round 18 and leaves the network while worker 1's metric still improves and it enters the next "
        "round's collectives alone. evidence: 'Early stopping, best iteration is: [18]', '[worker 0] training done: 18 "
        "trees', '[LightGBM] [Fatal] Socket recv error, Connection reset by peer (code: 104)' on worker 1, "
        "'launch.sh: worker 1 ... exited with status 1'"),
    "shell-load-meter-columns": (
        "collective_mismatch: a re-export of sub-01 and sub-07 (both on worker 1) adds a reactive_mvar column, so worker "
        "1 has 21 features and worker 0 20; exchanging the feature bin mappers across machines segfaults worker 0 "
        "(faulthandler), worker 1 sees the connection reset. evidence: 'number of used features: 21', 'Fatal Python "
        "error: Segmentation fault', 'launch.sh: line 35: ... Segmentation fault python train_load.py', 'Socket recv "
        "error, Connection reset by peer (code: 104)', 'exited with status 139'"),
    "shell-load-overflow-export": (
        "training_divergence: a re-export of sub-05 writes 'inf' for 3 meter-overflow hours; the infinite target enters "
        "the shared statistics and every worker's RMSE/MAPE is astronomically large from round 1 on and never "
        "recovers; the run 'finishes' and saves a useless model. evidence: '[worker 0] round 1/150 "
        "train_rmse=6458602209730865342414507036639232.0000', 'No further splits with positive gain, best gain: -inf', "
        "'job exited with 0'"),
    "shell-load-checkpoints": (
        "disk_full: --checkpoint-every 20 into models/, a 1 MB volume already holding 900 KB of earlier runs; the second "
        "checkpoint's write is short and LightGBM raises in the callback on worker 0, worker 1 then loses its peer. "
        "evidence: '[LightGBM] [Fatal] Cannot write binary data to models/checkpoint-0040.txt, wrote 86016 of 117938 "
        "bytes', 'Socket recv error, Connection reset by peer (code: 104)'"),
    "shell-load-month-of-lags": (
        "host_oom_killed: --lags $(seq -s, 1 720) (a month of hourly lags, 720 more float64 columns per row) inside a "
        "1 GB memory cgroup; the kernel OOM killer SIGKILLs a worker while it builds features (PYTHONWARNINGS=ignore "
        "set by the user to silence pandas' fragmentation warnings). evidence: 'launch.sh: line 35: ... Killed python "
        "train_load.py', 'exited with status 137'"),
    "shell-load-new-region": (
        "worker_exception: a re-export of the substation table puts sub-05 (worker 1's slice) in a new region "
        "'central' that the feature code's region mapping does not know: KeyError on worker 1 before the network forms; "
        "the launcher stops worker 0. evidence: 'File \"/tmp/wavean-a-job/run/features.py\", line 36, in build', "
        "\"KeyError: 'central'\", 'launch.sh: worker 1 ... exited with status 1'"),
    "shell-load-worker-lost": (
        "peer_process_died: launch.sh -o logs writes each worker's output to logs/worker-N.log; worker 1's process is "
        "SIGKILLed from outside mid-training (its host lost); the kept log is worker 0's own file, which shows only the "
        "connection reset. evidence: '[worker 0] round 430/5000 ...', '[LightGBM] [Fatal] Socket recv error, "
        "Connection reset by peer (code: 104)', 'lightgbm.basic.LightGBMError: Socket recv error'"),
    "shell-load-attached-debugger": (
        "silent_hang: at round ~380 a colleague attaches gdb to worker 1 (gdb -p, left at its prompt), which stops it; "
        "worker 0 waits in LightGBM's socket recv (time_out 120 minutes) and nothing is printed for 75 s; then the "
        "user's Ctrl-C to the job's process group (the stopped worker briefly runs on, the log shows one more round with "
        "the 75 s jump) and the job is killed. evidence: '[worker 0] round 380/5000 ... (5.0s)' then "
        "'[worker 1] round 390/5000 ... (80.1s)', no error, no 'job exited' line"),
    "mpirun-load-healthy-shared-valid": (
        "mpirun -np 2 (rank from OMPI_COMM_WORLD_RANK, machine list file), huber loss, --valid shared: every worker "
        "evaluates all substations' last 14 days, so early stopping decides the same on both and they stop together; "
        "model saved, feature importances printed. evidence: 'Did not meet early stopping. Best iteration is:', "
        "'saved model models/load_forecaster.txt', 'job exited with 0'"),
    "mpirun-load-annual-window": (
        "native_crash: --rolling-lib --windows 24,168,8760 computes trailing means with the C helper rolling.c, whose "
        "ring buffer is a fixed 2160-slot stack array; the annual window writes past it and smashes the stack: SIGSEGV "
        "on both ranks while building features, then a bus error in faulthandler. evidence: 'Fatal Python error: "
        "Segmentation fault', 'Fatal Python error: Bus error', 'mpirun noticed that process rank 0 with PID 0 on node "
        "vm exited on signal 7 (Bus error).'"),
    "mpirun-load-time-limit": (
        "job_preempted: SIGTERM from outside (the scheduler's time limit) to both training processes of an mpirun job "
        "around round 200 of 5000; they die of SIGTERM and mpirun reports it. evidence: 'mpirun noticed that process "
        "rank 0 with PID 0 on node vm exited on signal 15 (Terminated).', 'job exited with 143'"),
    "mpirun-load-ssh-closed": (
        "terminal_hangup: SIGHUP to the job's process group (the SSH session running mpirun in the foreground closed) "
        "around round 280; nothing handles it, mpirun and both ranks die and the log simply stops mid-training, with no "
        "error and no 'job exited' line. evidence: last line '[worker 0] round 280/5000 ...'"),
    "hosts-load-team-site": (
        "library_version_mismatch: two 'hosts' started separately; host 1's shell exports PYTHONPATH with the team's "
        "shared site directory, which holds lightgbm 3.3.5, while host 0 runs the venv's 4.7.0; the two LightGBM "
        "versions' network exchange is incompatible and host 1 segfaults in Booster.update at the first round, host 0 "
        "sees the reset. Both consoles kept (node0.log, node1.log). evidence: '[worker 0] ... lightgbm=4.7.0', "
        "'[worker 1] ... lightgbm=3.3.5', 'File \"/tmp/wavean-a-job/site-packages/lightgbm/basic.py\", line 3021 in "
        "update', 'Fatal Python error: Segmentation fault', 'Socket recv error, Connection reset by peer (code: 104)'"),
    "dask-load-healthy": (
        "lightgbm.dask DaskLGBMRegressor (huber) on a LocalCluster of 2 worker processes (scheduler 30108, LightGBM "
        "machines 30109-30110, dashboard off), 24 substation partitions, 200 rounds; harmless UserWarnings (num_threads "
        "/ n_jobs ignored, eval_set deprecated), model saved. evidence: 'UserWarning: Parameter num_threads will be "
        "ignored.', 'saved model models/load_forecaster.txt', 'job exited with 0'"),
    "dask-load-meter-gaps": (
        "worker_exception: a re-export of sub-02 writes '-' for 4 hours the meter did not report; the feature task on "
        "a dask worker raises while converting load_mw to float and the client re-raises it at the first compute. "
        "evidence: 'File \"/tmp/wavean-a-job/run/features.py\", line 27, in build', \"ValueError: could not convert "
        "string to float: '-'\", 'job exited with 1'"),
}
