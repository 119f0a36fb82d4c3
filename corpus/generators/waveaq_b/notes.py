"""What each committed run of wave AQ (b) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "xargs-pm25-healthy": (
        "seq 0 1 | xargs -P 2 python tune_pm25.py --worker {} --journal study/pm25.journal: two Optuna 5.0.0 workers "
        "share one study through a JournalStorage journal file (TPE + MedianPruner); each trial trains a small GRU/MLP "
        "PM2.5 forecaster and reports validation MAE per epoch; most trials are pruned, the best model is copied to "
        "models/best.pt. Labelled no_failure: both workers finished their trials and the job exited 0. evidence: "
        "\"[I ...] Using an existing study with `study_name='pm25-forecast'` instead of creating a new one.\", "
        "'[I ...] Trial 5 pruned.', '[w1 vm:29071] done in 6 s; study has 12 trials: {'COMPLETE': 3, 'PRUNED': 9}', "
        "'best trial 3: val MAE 6.532 ug/m3', 'job exited with 0'"),
    "xargs-pm25-healthy-after-kill": (
        "no_failure: an earlier search on the host was killed with kill -9 while it held the journal's lock (made in the "
        "preparation step, not in the log), leaving study/pm25.journal.lock behind; the user reruns with an absolute "
        "--journal path; both xargs workers wait on the lock, Optuna's 30 s grace period expires and the lock is "
        "forcibly released; the search then runs and both workers exit 0. Labelled no_failure: scary warnings, but the "
        "search completed and saved its best model. evidence: '[W ...] It is taking longer than 10.0 seconds to acquire "
        "the lock file: /tmp/waveaq-b-job/run/study/pm25.journal.lock Retrying...', '[W ...] The existing lock file has "
        "not been released for an extended period. Forcibly releasing the lock file.', 'job exited with 0'"),
    "xargs-pm25-rerun-after-kill": (
        "silent_hang: the same stale journal lock from a search killed with kill -9, but the rerun gives the journal as "
        "a relative path (--journal study/pm25.journal): Optuna's lock symlink points at 'study/pm25.journal' relative "
        "to study/, so it dangles, the os.stat in JournalFileSymlinkLock.acquire fails, the grace-period release never "
        "happens and both workers spin forever before their first trial, printing only a retry warning every 10 s; "
        "the user's Ctrl-C after 75 s (SIGINT to the job's process group; a KeyboardInterrupt traceback from acquire, no "
        "'job exited' line). Labelled silent_hang: no progress and no error saying why it cannot go on. evidence: "
        "'[W ...] It is taking longer than 10.0 seconds to acquire the lock file: study/pm25.journal.lock Retrying...' "
        "(12 times), no trial ever starts, 'FileExistsError: [Errno 17] File exists: 'study/pm25.journal' -> "
        "'study/pm25.journal.lock'', 'optuna/storages/journal/_file.py\", line 163, in acquire', 'KeyboardInterrupt'"),
    "xargs-pm25-citywide-context": (
        "host_oom_killed: --context all-stations gives each sample every station's channels side by side in float64; "
        "worker 1's trial 1 (window 168 h) builds over 1 GB of windows inside the job's 1.5 GB cgroup-v1 memory cgroup "
        "and the kernel OOM killer SIGKILLs it (dmesg 'Memory cgroup out of memory: Killed process 29265 (python)', not "
        "in the log); xargs stops. evidence: \"[w1 vm:29265] trial 1: {'model': 'mlp', 'window': 168, ...\", 'xargs: "
        "python: terminated by signal 9', 'job exited with 125'"),
    "xargs-pm25-rmsprop": (
        "worker_exception: the search space passed on the command line (--optimizers adam,rmsprop) lists an optimizer "
        "the script's OPTIMIZERS table lacks; the first trial that samples it raises in the objective, Optuna logs the "
        "failed trial and re-raises (no catch), on both workers; xargs exits 123. evidence: 'opt = "
        "OPTIMIZERS[p[\"optimizer\"]](model.parameters(), lr=p[\"lr\"])', \"KeyError: 'rmsprop'\", '[W ...] Trial 1 "
        "failed with parameters: {... 'optimizer': 'rmsprop' ...} because of the following error: "
        "KeyError('rmsprop').', '[W ...] Trial 1 failed with value None.', 'job exited with 123'"),
    "xargs-pm25-raw-target-sgd": (
        "training_divergence: --target raw (regress ug/m3 directly, not standardised) with SGD momentum 0.9 and "
        "--lr-min 0.3 --lr-max 1.0: training losses explode (1e7) and turn nan in 4 of 6 trials, whose objectives "
        "return nan and which Optuna fails; the 2 trials that stay finite swing wildly and collapse to a near-constant "
        "forecast (val MAE 22.5 ug/m3, against about 6.5 in healthy searches); the search ends with exit 0 uselessly. "
        "Labelled training_divergence (NaN loss, the job keeps running uselessly). evidence: '[w0 vm:7489] trial 0 "
        "epoch 1 step 40/40 loss 14775629.0000', '[w1 vm:7490] trial 1 epoch 1 step 20/40 loss nan', '[W ...] Trial 1 "
        "failed with value nan.', 'best trial 0: val MAE 22.522 ug/m3', 'job exited with 0'"),
    "xargs-pm25-study-volume": (
        "disk_full: the journal file is on study/, a 64 KB volume already holding 40 KB of earlier archives; after 8 "
        "trials the journal append fails on both workers inside Optuna's JournalFileBackend, then Optuna's own "
        "trial-state handling asserts. evidence: 'optuna/storages/journal/_file.py\", line 108, in append_logs', "
        "'OSError: [Errno 28] No space left on device', 'AssertionError: Should not reach.', 'job exited with 123'"),
    "launch-pm25-healthy-new-station": (
        "no_failure: ./launch.sh 2 with --storage sqlite:///pm25.db; a station installed 10 days ago (240 h of record) "
        "makes every trial with a 336 h window fail while building windows; the user runs with --catch ValueError, so "
        "those trials are marked failed and the search goes on; both workers exit 0 and the best model is saved. "
        "Labelled no_failure: the user's job (search the space, keep the best forecaster) succeeded. evidence: '[W ...] "
        "Trial 2 failed with parameters: {... 'window': 336 ...} because of the following error: ValueError('need at "
        "least one array to stack').', '[W ...] Trial 2 failed with value None.', 'best trial 1: val MAE 6.626 ug/m3', "
        "'launch.sh: worker 1 (pid 29459) exited with status 0', 'job exited with 0'"),
    "launch-pm25-gapfill-native": (
        "native_crash: --gap-fill native fills missing PM2.5 hours with the team's C helper (ctypes, built with gcc -O2 "
        "-fstack-protector-strong) that buffers a run of missing hours in a 168-entry stack array; station 03 was "
        "re-exported with a 300 h sensor outage, the helper overruns the array and glibc aborts each worker while it "
        "loads the stations. evidence: '*** stack smashing detected ***: terminated', './launch.sh: line 11: 29506 "
        "Aborted                 python tune_pm25.py --worker \"$i\" \"$@\"', 'launch.sh: worker 0 (pid 29506) exited "
        "with status 134', 'job exited with 1'"),
    "launch-pm25-new-sensor": (
        "worker_exception: stations 04 and 05 were re-exported by a newer sensor package with an extra NO2 channel "
        "(9 columns instead of 8); building the first trial's windows concatenates the stations and raises in both "
        "workers. evidence: 'ValueError: all the input array dimensions except for the concatenation axis must match "
        "exactly, but along dimension 1, the array at index 0 has size 8 and the array at index 3 has size 9', '[W ...] "
        "Trial 0 failed with value None.', 'launch.sh: worker 0 (pid 29549) exited with status 1', 'job exited with 1'"),
    "launch-pm25-time-limit": (
        "job_preempted: a 40-trial search started with ./launch.sh 2; after trial 4 a scheduler's time limit sends "
        "SIGTERM to launch.sh and both workers (from outside, not in the log); the console stops mid-trial and the shell "
        "reports the launcher terminated. evidence: '[w1 vm:29578] trial 32 epoch 1 val MAE 6.766 ug/m3', 'Terminated', "
        "'job exited with 143'"),
    "mp-pm25-healthy-cmaes": (
        "no_failure: python tune_pm25.py --procs 2 (two multiprocessing workers) with CmaEsSampler + HyperbandPruner; "
        "CMA-ES cannot handle the categorical parameters and Optuna warns for each of them in every trial; both "
        "workers exit 0. evidence: '[W ...] The parameter `model` in Trial#3 is sampled independently using "
        "`RandomSampler` instead of `CmaEsSampler`, potentially degrading the optimization performance.', 'best trial "
        "1: val MAE 6.540 ug/m3', 'optuna-worker-0 exited with code 0', 'job exited with 0'"),
    "mp-pm25-ssh-closed": (
        "terminal_hangup: a 40-trial multiprocessing search in an interactive shell; after trial 4 the SSH session "
        "closes and SIGHUP goes to the job's process group (the parent and both forked workers); nothing handles it, "
        "everything dies and the console stops mid-trial with no 'job exited' line. evidence: last lines '[w1 "
        "vm:29738] trial 11: 6594 train / 1722 val windows of (48, 8)', '[w0 vm:29737] trial 5 epoch 1 step 20/40 "
        "loss 0.1964' with nothing after them"),
    "hosts-pm25-tuning-box": (
        "library_version_mismatch: two hosts share one SQLite study; host 0 (optuna 5.0.0) creates it and searches; "
        "host 1, the team's older tuning box whose site directory holds optuna 3.0.6, joins 6 s later and Optuna's "
        "schema check refuses the newer table schema; host 0 finishes (both consoles kept: node0.log, node1.log). "
        "evidence (node1.log): '/tmp/waveaq-b-job/shared-site/optuna/storages/_rdb/storage.py\", line 1155, in "
        "check_table_schema_compatibility', 'RuntimeError: The runtime optuna version 3.0.6 is no longer compatible "
        "with the table schema (set up by optuna 5.0.0). Please try updating optuna to the latest version by `$ pip "
        "install -U optuna`.', 'job exited with 1'"),
    "ddp-pm25-healthy": (
        "no_failure: one worker, --ddp: each of 3 trials runs torchrun --nnodes 1 --nproc-per-node 2 --master-port "
        "30664 ddp_trial.py (gloo DDP on CPU, val MAE all-reduced), the objective reads its JSON result; exit 0. "
        "evidence: '[rank 0] world 2, global batch 64 = 32 x 1 accum x 2 ranks', '[I ...] Trial 2 finished with value: "
        "8.358...', 'done in 51 s; study has 3 trials: {'COMPLETE': 3}', 'job exited with 0'"),
    "ddp-pm25-parallel-trials": (
        "port_in_use: --n-jobs 2 runs two DDP trials at once in the worker's threads, each starting torchrun with the "
        "same --master-port 30665; the second torchrun's store cannot bind, that trial fails and the worker re-raises "
        "after the other trial finishes. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to "
        "listen on any local network address. port: 30665, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
        "already in use', '[W ...] Trial 1 failed with parameters: ... because of the following error: "
        "CalledProcessError(1, ['torchrun', ...', 'job exited with 1'"),
    "ddp-pm25-cluster-config": (
        "rendezvous_timeout: --world-size 4 (from the cluster config) is passed to every DDP trial while torchrun starts "
        "2 processes on this host; init_process_group waits on the store for ranks 2 and 3 until its 60 s timeout. "
        "evidence: '[c10d] waitForInput: socket SocketImpl(...remote=[::ffff:127.0.0.1]:30666) timed out after "
        "60000ms', 'torch.distributed.DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//cpu//0/2', "
        "'ddp_trial.py FAILED', '[W ...] Trial 0 failed with value None.', 'job exited with 1'"),
    "ddp-pm25-station-retired": (
        "collective_mismatch: station 06 was retired (5 stations) and --max-steps 0 trains on the whole shard each "
        "epoch; rank 0 holds 3 stations (105 steps), rank 1 holds 2, so rank 1 enters the validation all_reduce (2 "
        "floats) while rank 0 still all-reduces DDP gradient buckets; gloo aborts rank 1 and rank 0 sees the "
        "connection reset. evidence: \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", '[enforce "
        "fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 10404 vs 4. Received data size "
        "doesn't match expected size. Is there a distributed collective mismatch in your code?', 'failed (exitcode: "
        "-6) local_rank: 1', '[rank0]: RuntimeError: ... Read error ... Connection reset by peer', 'job exited with 1'"),
    "ddp-pm25-grad-accum": (
        "batch_size_mismatch: --accum 3 added to a search space of power-of-two global batch sizes (64,128,256); with 2 "
        "ranks the global batch must divide by 6; the first trial's ddp_trial.py check fails on both ranks. evidence: "
        "'[rank0]: AssertionError: global batch size 256 != micro batch 42 * grad accum 3 * world size 2', 'ddp_trial.py "
        "FAILED', '[W ...] Trial 0 failed with value None.', 'job exited with 1'"),
}
