"""Manifest notes for wave CC (x)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Darts (u8darts 0.41.0) NBEATSModel (generic, 4 stacks x 1 block x 2 layers x 64 wide, 26.5K parameters) trained "
     "by Darts' own fit() under PyTorch Lightning 2.5.2 DDPStrategy(process_group_backend='gloo') over torch "
     "2.13.0+cpu, Python 3.11.7, on 24 synthetic daily store-demand series (input 24, output 12, batch 32, 10 epochs "
     "of 32 steps, save_checkpoints=True, validation on the last 36 days) by the team's train_forecast.py (a log line "
     "every 10 steps and one per rank per epoch), launched on two hosts (network namespaces fcst-cpu-01 10.111.0.11 "
     "and fcst-cpu-02 10.111.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run "
     "--nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.111.0.11', both nodes' output in one console")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "fcst-cpu-02 10.111.0.12, one bridge", "fcst-cpu-02 10.111.0.12, fcst-cpu-03 10.111.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
AT = "once rank 0's 'step 100 train_loss' line was printed"
PEERS = "the other ranks then fail in the next gloo collective"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'All distributed "
                      "processes registered. Starting with 4 processes', '`Trainer.fit` stopped: `max_epochs=10` "
                      "reached.', 'train done: epochs=10 global_step=320 holdout MAE 1.1154', 'job exited with 0'; "
                      "the only warnings are Darts' optional-module notices (StatsForecast, XGBoost), Lightning's "
                      "deprecation and pin_memory warnings and c10d's 'The hostname of the client socket cannot be "
                      "retrieved. err=-3'",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks, 22 steps per epoch); a plain run to the end: nothing injected. "
                      "evidence: 'Initializing distributed: GLOBAL_RANK: 5, MEMBER: 6/6', 'All distributed processes "
                      "registered. Starting with 6 processes', 'train done: epochs=10 global_step=220 holdout MAE "
                      "1.9373', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job trained 5 epochs; the logged "
                      "job loads it with NBEATSModel.load_from_checkpoint(best=False) and fit(epochs=10) resumes "
                      "from the last checkpoint to epoch 10. evidence: 'Restoring states from the checkpoint path at "
                      "darts_logs/demand-nbeats/checkpoints/last-epoch=4.ckpt', Lightning's own warning 'Be aware "
                      "that when using `ckpt_path`, callbacks used to create the checkpoint need to be provided "
                      "during `Trainer` instantiation.', 'Restored all states from the checkpoint at darts_logs/"
                      "demand-nbeats/checkpoints/last-epoch=4.ckpt', 'train done: epochs=10 global_step=320 holdout "
                      "MAE 1.1154', 'job exited with 0' (the script's own 'resumed ... (epochs trained: 0)' line "
                      "prints Darts' epochs_trained of the loaded wrapper before fit, which reads 0)",
    "healthy-late-node": f"no_failure: {W}, with the c10d rendezvous ('--rdzv-backend c10d --rdzv-endpoint "
                         "10.111.0.11:30124 --rdzv-conf join_timeout=40'); fcst-cpu-02's launcher starts 20 s after "
                         "fcst-cpu-01's (a slow node), within the join timeout, and the run trains to the end. "
                         "evidence: 'node_rank is only used for static rdzv_backend. It will be ignored for "
                         "rdzv_backend=c10d.', 'All distributed processes registered. Starting with 4 processes', "
                         "'train done: epochs=10 global_step=320 holdout MAE 1.1154', 'job exited with 0'",
    "healthy-lstm": f"no_failure: {W}, but with Darts' RNNModel (LSTM, hidden 32, 1 layer, training_length 36) and 6 "
                    "epochs: a plain run to the end. evidence: 'Train dataset contains 4032 samples.', 'All "
                    "distributed processes registered. Starting with 4 processes', 'train done: epochs=6 "
                    "global_step=192 holdout MAE 6.9981', 'job exited with 0'",
    "store-keyerror": f"worker_exception: {W}; the team's per-batch hook (train_hooks.py, a Lightning Callback's "
                      "on_train_batch_end) audits a per-store table every 40 steps from step 120 and the table has "
                      "no entry for rank 2, so rank 2 raises KeyError at step 120; {PEERS} ('Connection closed by "
                      "peer [10.111.0.12]'). evidence: '[rank2]:   File \"/tmp/wavecc-x-job/run/train_hooks.py\", line "
                      "6, in on_step', '[rank2]:     store = STORE_OF_RANK[rank]', '[rank2]: KeyError: 2', "
                      "'[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
                      " Connection closed by peer [10.111.0.12]:26249.', 'job exited with 1'",
    "inlen-node-b": f"worker_exception: {W}; fcst-cpu-02 was started with a stale config ('--in-len 220'): its two "
                    "ranks' Darts fit() rejects the series before joining the process group (input 220 + output 12 "
                    "> 204 days), their launcher reports the failure and exits, while fcst-cpu-01's ranks wait in "
                    "DDP init until the scheduler (the harness, after 150 s) sends SIGTERM to the launchers. "
                    "evidence: 'ERROR main_logger: ValueError: The input `series` are too short to extract even a "
                    "single sample. Expected min length: `232`, received max length: `204`.', 'host      : "
                    "fcst-cpu-02', 'rank      : 3 (local_rank: 1)', 'exitcode  : 1 (pid: 15388)', then 'Received "
                    "15 death signal, shutting down workers' on fcst-cpu-01 (the harness's end of the hung job)",
    "rank3-segv": f"native_crash: {W}; the team's per-batch hook calls a C helper through ctypes that reads a NULL "
                  "pointer on rank 3 at step 150 (ctypes.string_at(0)): rank 3 dies of SIGSEGV; its launcher "
                  f"stops rank 2 and {PEERS}. evidence: 'failed (exitcode: -11) local_rank: 1 (pid: 16731) of "
                  "binary: /tmp/venv-cc-x/bin/python', 'exitcode  : -11 (pid: 16731)  (SIGSEGV)', 'traceback : "
                  "Signal 11 (SIGSEGV) received by PID 16731', 'job exited with 1'",
    "rank2-abort": f"native_crash: {W}; {AT} the harness sent SIGABRT to rank 2 (fcst-cpu-02, local rank 0), as an "
                   "abort() in native code would; its launcher stops rank 3 and the ranks on fcst-cpu-01 fail in the "
                   "next collective. evidence: 'failed (exitcode: -6) local_rank: 0 (pid: 16865) of binary: "
                   "/tmp/venv-cc-x/bin/python', 'exitcode  : -6 (pid: 16865)  (SIGABRT)', 'traceback : Signal 6 "
                   "(SIGABRT) received by PID 16865', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/"
                   "gloo/gloo/transport/tcp/pair.cc:537] Read error [10.111.0.12]:10408: Connection reset by peer.', "
                   "'job exited with 1'",
    "rank1-leak-oom": f"host_oom_killed: {W}; the whole job ran in a 3 GiB cgroup-v1 memory limit and the team's "
                      "per-batch hook keeps a 64 MB scratch tensor every step from step 80 on rank 1 (fcst-cpu-01, "
                      "local rank 1): the kernel's memory-cgroup OOM killer SIGKILLs rank 1 shortly after step 90 "
                      "(dmesg: 'Memory cgroup out of memory: Killed process 17275 (python)'); its launcher stops rank "
                      f"0 and {PEERS}. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 17275) of binary: "
                      "/tmp/venv-cc-x/bin/python', 'host      : fcst-cpu-01', 'exitcode  : -9 (pid: 17275)  "
                      "(SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID 17275'",
    "ckpt-tmpfs": f"disk_full: {W}; the checkpoint directory darts_logs was a 400 KB tmpfs: at the end of epoch 0 "
                  "Lightning's ModelCheckpoint (Darts' save_checkpoints) on rank 0 cannot write last-epoch=0.ckpt; "
                  f"{PEERS}. evidence: \"[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmpt1iia7nq' "
                  "-> '/tmp/wavecc-x-job/run/darts_logs/demand-nbeats/checkpoints/last-epoch=0.ckpt'\", '[rank1]: "
                  "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection "
                  "closed by peer [10.111.0.11]:30936.', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}, with lr 1e8 and --stop-on-nan (Lightning's EarlyStopping on train_loss "
               "with check_finite=True, then the script refuses to publish a model whose final loss is not "
               "finite): the loss is NaN from the first logged step, Lightning stops after epoch 0 and every rank "
               "raises the script's RuntimeError. evidence: 'epoch 0 step 10 train_loss nan', '[rank: 0] Monitored "
               "metric train_loss = nan is not finite. Previous best value was inf. Signaling Trainer to stop.', "
               "'[rank0]: RuntimeError: training loss is nan after epoch 0; refusing to publish demand-nbeats', 'job "
               "exited with 1'",
    "rank-stopped": f"silent_hang: {W}; {AT} the harness sent SIGSTOP to rank 1 (fcst-cpu-01, local rank 1): the "
                    "other ranks block in the next DDP gradient all-reduce (the default 30-minute process-group "
                    "timeout, so no watchdog fires) and the console goes quiet; 70 s after the start the scheduler "
                    "(the harness) sends SIGTERM to both launchers and SIGKILL 15 s later (the stopped rank cannot "
                    "exit, so the launchers never print a summary). evidence: the last progress line '2026-12-05 "
                    "20:32:11,815 INFO train_forecast: epoch 3 step 100 train_loss 8.61195', then 56 s of silence, "
                    "then 'Received 15 death signal, shutting down workers' on both launchers and 'Sending process "
                    "17982 closing signal SIGTERM'; the log ends there with no 'job exited' line",
    "preempt": f"job_preempted: {W}; {AT} the scheduler (the harness) sent SIGTERM to both launchers (a preemption), "
               "SIGKILL 15 s later if needed; the launchers shut the workers down and exit. evidence: 'epoch 3 step "
               "100 train_loss 8.61195', 'Received 15 death signal, shutting down workers', "
               "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 18353 got signal: 15', 'job "
               "exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; {AT} both launchers got SIGHUP, as when the SSH session that started "
                    "them closes; they send SIGHUP to their workers and exit. evidence: 'Received 1 death signal, "
                    "shutting down workers', 'Sending process 18687 closing signal SIGHUP', 'torch.distributed."
                    "elastic.multiprocessing.api.SignalException: Process 18677 got signal: 1', 'job exited with 1'",
}
