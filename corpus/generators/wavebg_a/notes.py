"""Manifest notes for wave BG (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch Lightning 2.6.6 LightningCLI (jsonargparse 4.53.0, torch 2.13.0+cpu, Python 3.11.7), DDPStrategy "
     "(process_group_backend gloo) on CPU, devices 2, CSVLogger, ModelCheckpoint (monitor val_loss, top 2 + last), "
     "EarlyStopping (val_loss, patience 3), LearningRateMonitor, a StepPrinter callback (progress bar off); a small "
     "utility's household load forecaster (GRU over 48 half-hourly kWh/temperature readings + tariff embedding, "
     "3900 training / 780 validation windows from prep_data.py)")
PL = W + ", launched with Lightning's own subprocess launcher: 'MASTER_PORT=P nice -n 5 python train.py fit --config config.yaml'"
TR = W + ", launched with 'nice -n 5 torchrun --nproc_per_node 2 --master_port P train.py fit --config config.yaml'"
NOTES = {
    "load-healthy": (
        f"no_failure: {PL}; 6 epochs, validation and checkpoints each epoch, a deprecation warning from Lightning's "
        "_pytree on both ranks, exit 0. evidence: '`Trainer.fit` stopped: `max_epochs=6` reached.', "
        "'job exited with 0'"),
    "load-healthy-torchrun-vacant": (
        f"no_failure: {TR}; the export has three vacant homes in validation (all readings zero), so the MAPE metric "
        "(not the loss, not monitored) is inf every epoch; loss trains normally, exit 0. evidence: 'epoch 0 "
        "validation: val_loss=0.0385 val_mae=0.1455 val_mape=inf', '`Trainer.fit` stopped: `max_epochs=6` "
        "reached.', 'job exited with 0'"),
    "load-healthy-resume": (
        f"no_failure: {PL}, '--trainer.max_epochs 6 --ckpt_path checkpoints/last.ckpt'; after an earlier 3-epoch run "
        "(not in this log) Lightning restores last.ckpt and trains epochs 3-5, exit 0. evidence: 'Restoring states "
        "from the checkpoint path at checkpoints/last.ckpt', 'Restored all states from the checkpoint at "
        "checkpoints/last.ckpt', '`Trainer.fit` stopped: `max_epochs=6` reached.', 'job exited with 0'"),
    "load-healthy-weather-retry": (
        f"no_failure: {TR}; the batch script starts the data export in the background (its weather-station file "
        "lands 20 s later) and launches at once: both ranks log an ERROR, wait 5 s and retry, then train 6 epochs, "
        "exit 0. evidence: '2026-12-02 03:06:00,865 ERROR forecaster: [rank 0] weather station file not available "
        "(attempt 1/5): [Errno 2] No such file or directory: 'data/weather_stations.json'; retrying in 5 s', "
        "'`Trainer.fit` stopped: `max_epochs=6` reached.', 'job exited with 0'"),
    "load-healthy-early-stop": (
        f"no_failure: {TR}, '--data.num_workers 2', with the team's config edited to EarlyStopping patience 1 and "
        "max_epochs 15: val_loss stops improving after epoch 3 and EarlyStopping ends the run early on both ranks, "
        "exit 0. evidence: '[rank: 0] Monitored metric val_loss did not improve in the last 1 records. Best score: "
        "0.003. Signaling Trainer to stop.', 'job exited with 0'"),
    "load-venv-not-active": (
        f"library_version_mismatch: {TR}, but the job's shell did not have the project venv on PATH: torchrun and "
        "python came from the system interpreter, which has torch but not lightning; both ranks fail at import, "
        "torchrun reports the failure, exit 1. evidence: 'ModuleNotFoundError: No module named 'lightning'', "
        "'job exited with 1'"),
    "load-port-held": (
        f"port_in_use: {TR}; another process (a python http.server left running) already listened on the master "
        "port 29814, so torchrun's TCPStore could not bind before any rank started, exit 1. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29814, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "load-port-held-lightning": (
        f"port_in_use: {PL} with P=29828; a python http.server left running already listened on 29828, so rank 0's "
        "TCPStore (MASTER_PORT) could not bind right after Lightning's 'Initializing distributed' line; rank 0 "
        "exits 1 (the rank-1 process it had started was left waiting and ended by the harness). evidence: "
        "'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2', 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 29828, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', 'job exited with 1'"),
    "load-second-node-missing": (
        f"rendezvous_timeout: {W}, launched as node 0 of two with 'nice -n 5 torchrun --nproc_per_node 2 --nnodes 2 "
        "--rdzv-backend c10d --rdzv-endpoint localhost:29815 --rdzv-id load-fc --rdzv-conf join_timeout=40 train.py "
        "fit --config config.yaml --trainer.num_nodes 2'; the second node's job was never started, the c10d "
        "rendezvous waited 40 s and gave up, exit 1. evidence: "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "load-rank-stopped-valid": (
        f"collective_timeout: {PL}, '--trainer.strategy.timeout 0:00:20 --trainer.max_epochs 8'; the rank-1 process "
        "was stopped (SIGSTOP from outside) after the 20th step of epoch 2; rank 0's DDP gradient all-reduce timed "
        "out after the 20 s process-group timeout, rank 0 exited, the harness then killed the stopped rank 1, "
        "exit 1. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', 'job exited with 1'"),
    "load-rank-stopped": (
        f"silent_hang: {TR}, '--trainer.max_epochs 8' (default 30 min process-group timeout); the rank-1 process was "
        "stopped (SIGSTOP from outside) after the 20th step of epoch 2: no further output from either rank, no "
        "error; the harness killed the job 110 s after the start (no exit line). evidence: 'epoch 2 step 20/61 "
        "train_loss=0.0029' (last line)"),
    "load-wide-gru-oom": (
        f"host_oom_killed: {TR}, '--model.hidden_size 8192' with the job in a 2.2 GB cgroup-v1 memory cgroup; while "
        "the ranks built the wide GRU the kernel's memcg OOM killer killed rank 1 (dmesg: 'Memory cgroup out of "
        "memory: Killed process ... (python)'), torchrun reports exitcode -9, exit 1. evidence: 'E1202 "
        "03:10:10.181000 11051 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -9) local_rank: 1 (pid: 11054) of binary: /tmp/venv-bg-a/bin/python', 'job exited with 1'"),
    "load-rank-killed": (
        f"peer_process_died: {PL}, '--trainer.max_epochs 8'; the rank-1 process (started by Lightning's launcher, "
        "whose death nothing reports) was SIGKILLed from outside after the 20th step of epoch 2; the log only shows "
        "rank 0 losing its peer in the gradient all-reduce, exit 1. evidence: '[rank0]: RuntimeError: [/__w/pytorch/"
        "pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:30624: Connection reset "
        "by peer. This is typically caused by a remote worker hanging or bugs in the application. Check the logs "
        "of the remote worker before reporting an error. GLHF! 🏖️', 'job exited with 1'"),
    "load-preempted": (
        f"job_preempted: {TR}, '--trainer.max_epochs 8'; SIGTERM sent to torchrun (as a scheduler does at "
        "preemption) after the 20th step of epoch 2: torchrun forwards it, Lightning's signal handler logs it on "
        "both ranks, torchrun raises SignalException, exit 1. evidence: 'W1202 03:11:16.540000 11572 "
        "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down "
        "workers', '[rank: 0] Received SIGTERM: 15', 'job exited with 1'"),
    "load-preempted-lightning": (
        f"job_preempted: {PL}, '--trainer.max_epochs 8'; SIGTERM sent to the launching (rank-0) process, as a "
        "scheduler does at preemption, after the 20th step of epoch 2: Lightning's signal handler logs it on rank 0, "
        "forwards it to rank 1 and stops the run early (epoch 2 of 8 unfinished) and the shell sees exit 0. "
        "evidence: '[rank: 0] Received SIGTERM: 15', '[rank: 1] Received SIGTERM: 15', 'job exited with 0'"),
    "load-terminal-closed": (
        f"terminal_hangup: {TR}, '--trainer.max_epochs 8'; SIGHUP sent to torchrun (the launching terminal "
        "closing) after the 20th step of epoch 2: torchrun forwards SIGHUP to the ranks and raises SignalException "
        "with signal 1, exit 1. evidence: 'W1202 03:14:00.450000 13576 site-packages/torch/distributed/elastic/"
        "agent/server/api.py:753] Received 1 death signal, shutting down workers', 'job exited with 1'"),
    "load-meter-gaps": (
        f"training_divergence: {PL}; the export has two training meters with a communication gap written as NaN "
        "readings: the loss is NaN from the first logged step, the weights turn NaN, EarlyStopping's finite check "
        "stops the run after epoch 0 and the job exits 0 (a checkpoint named val_loss=nan is saved). evidence: "
        "'epoch 0 step 20/61 train_loss=nan', '[rank: 0] Monitored metric val_loss = nan is not finite. Previous "
        "best value was inf. Signaling Trainer to stop.', 'job exited with 0'"),
    "load-debug-detail": (
        f"native_crash: {W}, launched with 'TORCH_DISTRIBUTED_DEBUG=DETAIL nice -n 5 torchrun --nproc_per_node 2 "
        "--master_port 29830 train.py fit --config config.yaml' (the team turned on torch.distributed's DETAIL "
        "debug mode); both ranks die of SIGSEGV right after the data setup, before the first step (reproducible "
        "with this torch 2.13.0+cpu / gloo build in this sandbox), torchrun reports exitcode -11, exit 1. evidence: "
        "'E1202 03:17:22.022000 15732 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -11) local_rank: 0 (pid: 15734) of binary: /tmp/venv-bg-a/bin/python', '  traceback : Signal "
        "11 (SIGSEGV) received by PID 15734', 'job exited with 1'"),
    "load-peak-report": (
        f"collective_mismatch: {TR}, '--model.peak_report true': the model's peak-hour report all-gathers each "
        "rank's errors on windows above 0.5 kWh, a tensor whose length differs between the ranks; at the end of "
        "epoch 0's validation gloo's all_gather sees the size mismatch, rank 0 aborts (SIGABRT, exitcode -6) and "
        "rank 1 loses its peer, exit 1. evidence: \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", '  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 440 vs 254. Received data size doesn't match "
        "expected size. Is there a distributed collective mismatch in your code?', 'E1202 03:17:31.573000 15794 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6) local_rank: 0 "
        "(pid: 15796) of binary: /tmp/venv-bg-a/bin/python', 'job exited with 1'"),
    "load-new-tariff": (
        f"worker_exception: {TR}; the export gives some validation meters a tariff code ('EV') missing from "
        "tariffs.json: the dataset's tariff lookup raises KeyError in __getitem__ on both ranks during Lightning's "
        "sanity-check validation, torchrun reports the failure, exit 1. evidence: \"[rank1]: KeyError: 'EV'\", "
        "'job exited with 1'"),
    "load-ckpt-tmpfs": (
        f"disk_full: {PL}, '--model.hidden_size 128', with checkpoints/ a 2 MB tmpfs; the epoch-1 checkpoint does "
        "not fit: rank 0 fails moving the saved file into checkpoints/ with ENOSPC, rank 1 then loses its peer, "
        "exit 1. evidence: \"[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmpx74ry28h' -> "
        "'/tmp/wavebg-a-job/run/checkpoints/load-epoch=01-val_loss=0.0031.ckpt'\", 'job exited with 1'"),
    "load-windows-rewritten": (
        f"native_crash: {PL}, '--trainer.max_epochs 8'; the memory-mapped data/train_windows.npy was truncated in "
        "place (another job rewriting the export) after the 20th step of epoch 2: rank 0's next read of the "
        "mapping died of SIGBUS, bash reports the bus error, exit 135 (the harness then killed the orphaned rank "
        "1). evidence: 'bash: line 1: 14165 Bus error               MASTER_PORT=29826 nice -n 5 python train.py "
        "fit --config config.yaml --trainer.max_epochs 8', 'job exited with 135'"),
}
NOTES = {k: v for k, v in NOTES.items() if v}
