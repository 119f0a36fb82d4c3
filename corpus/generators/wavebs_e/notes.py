"""Manifest notes for wave BS (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("fastai 2.8.12 (fastcore 2.2.41, accelerate 1.16.0) over torch 2.13.0+cpu (DDP via learn.distrib_ctx(sync_bn="
     "False), gloo), Python 3.11.7: the churn-v3 tabular classifier (TabularModel [200,100], 9,600 generated customer "
     "rows, bs 64 per rank, fit_one_cycle; SaveModelCallback every epoch with optimizer, EarlyStoppingCallback, "
     "CSVLogger, TerminateOnNaNCallback, a step logger every 10 steps), rank 0 printing fastai's progress bars and "
     "epoch table, launched on two hosts (network namespaces vision-node-01 10.79.0.11 and vision-node-02 10.79.0.12, "
     "one bridge) with 'ACCELERATE_USE_CPU=1 GLOO_SOCKET_IFNAME=eth0 accelerate launch --multi_gpu --num_machines 2 "
     "--num_processes 4 --machine_rank K --main_process_ip 10.79.0.11', both nodes' output in one console")
TR = W.replace("'ACCELERATE_USE_CPU=1 GLOO_SOCKET_IFNAME=eth0 accelerate launch --multi_gpu --num_machines 2 "
               "--num_processes 4 --machine_rank K --main_process_ip 10.79.0.11'",
               "torchrun ('ACCELERATE_USE_CPU=1 GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 --nproc-per-node 2 "
               "--node-rank K --master-addr 10.79.0.11')")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 8 epochs, finishes. evidence: '7         0.528810    0.547640    0.720000', "
                      "'fit finished after 8 epochs', 'training complete', 'job exited with 0'",
    "callback-keyerror": f"worker_exception: {W}, 40 epochs; an injected batch hook (data/hooks.py, called by the "
                         "team's StepLogger callback after each batch) looks up the plan code 'family' in a price table "
                         "that lacks it on global rank 3 (local rank 1 on vision-node-02) at its step 52, in epoch 1; "
                         "fastai re-raises it as the callback's exception and the other ranks lose the connection. "
                         "evidence: \"[rank3]: KeyError: 'Exception occured in `StepLogger` when calling event "
                         "`after_batch`:\\n\\tfamily'\", 'data/hooks.py\", line 5, in on_batch', peers 'Connection closed "
                         "by peer [10.79.0.12]'",
    "rank-sigkill": f"host_oom_killed: {W}, 40 epochs; once rank 0 logged step 60 (epoch 1) the harness SIGKILLed "
                    "global rank 3 (local rank 1 on vision-node-02) from outside, as the OOM killer would. evidence: "
                    "'failed (exitcode: -9) local_rank: 1 (pid: 9540)', 'exitcode  : -9 (pid: 9540)  (SIGKILL)', the "
                    "surviving ranks' 'Exception occured in `Recorder` when calling event `after_batch`' over gloo "
                    "'Connection closed by peer'",
    "huge-lr": f"training_divergence: {W}, 8 epochs at learning rate 300 (fit_one_cycle max lr): the epoch table shows "
               "the loss exploding (train_loss 5121.2 then 57816907776.0, valid_loss 247256083070976.0) and fastai's "
               "TerminateOnNaNCallback cancels the fit in epoch 2 when the loss turns NaN; the script then ends normally "
               "(exit 0). evidence: '[rank0] fit cancelled at step 81 (epoch 2): last loss nan', 'fit finished after 2 "
               "epochs in 13s: valid_loss 247256083070976.0000', 'job exited with 0'",
    "ckpt-tmpfs": f"disk_full: {W}, 40 epochs; runs/churn/models (where SaveModelCallback writes churn_<epoch>.pth, "
                  "~324 KB each with the optimizer state) is a 1 MB tmpfs, so the save after epoch 3 runs out of space. "
                  "torch.save's zip writer reports it without errno: 'RuntimeError: basic_ios::clear: iostream error' "
                  "in zip_file.write_record, re-raised by fastai as 'Exception occured in `SaveModelCallback` when "
                  "calling event `after_epoch`' on rank 0; the other ranks then see 'Connection closed by peer "
                  "[10.79.0.11]'. The log never says 'No space left on device'",
    "port-taken": f"port_in_use: {W}, 40 epochs; a stale process (python -m http.server) already listens on the master "
                  "port 29791 at 10.79.0.11 on vision-node-01 when the job starts. vision-node-01's launcher fails in "
                  "the static rendezvous; vision-node-02's keeps waiting on the port until the harness ends the job "
                  "after 120 s. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen "
                  "on any local network address. port: 29791, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                  "address already in use'",
    "node1-missing": f"rendezvous_timeout: {W}, plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; only "
                     "vision-node-01 is started (vision-node-02 never comes up), so the c10d rendezvous times out. "
                     "evidence: 'raise RendezvousTimeoutError', "
                     "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "rank-stopped": f"silent_hang: {W}, 40 epochs; once rank 0 logged step 60 (epoch 1) the harness SIGSTOPped global "
                    "rank 1 (local rank 1 on vision-node-01); every rank then waits in the next gloo collective (no "
                    "watchdog fires within the 30-minute default timeout) and the output stops mid-epoch; 120 s after "
                    "the start the scheduler SIGTERMs both launchers and SIGKILLs the job 15 s later (no 'job exited' "
                    "line). evidence: last step line 'step   60', then only 'Received 15 death signal, shutting down "
                    "workers' 97 s later",
    "preempt": f"job_preempted: {W}, 40 epochs; once rank 0 logged step 60 (epoch 1) the scheduler SIGTERMed both "
               "launchers (time limit). evidence: 'Received 15 death signal, shutting down workers', 'Sending process "
               "11763 closing signal SIGTERM', 'job exited with 143'",
    "terminal-hup": f"terminal_hangup: {W}, 40 epochs; once rank 0 logged step 60 (epoch 1) both launchers got SIGHUP, "
                    "as when the launching SSH session closes. evidence: 'Received 1 death signal, shutting down "
                    "workers', 'Sending process 11960 closing signal SIGHUP', 'job exited with 129'",
    "node-lost": f"host_oom_killed: {W}, 40 epochs; once rank 0 logged step 60 (epoch 1) every process in "
                 "vision-node-02's namespace (its accelerate launcher, which runs the torch elastic agent in-process, and global ranks 2 and 3) "
                 "was SIGKILLed at once, as when a host's OOM killer or a node failure takes the whole node down; "
                 "vision-node-02 prints nothing more, and the job shell reports its launcher as killed. vision-node-01's "
                 "ranks then fail in backward. evidence: 'Killed                  ip netns exec bsenode1 unshare --uts "
                 "bash -c ... --machine_rank 1 ...', '[rank0]: RuntimeError: [...gloo/transport/tcp/pair.cc:553] "
                 "Connection closed by peer [10.79.0.12]:24213', 'job exited with 1'",
    "pandas-abi-node1": f"library_version_mismatch: {W}, but vision-node-02 runs with PYTHONPATH=/tmp/bs-e-pandas21, a "
                        "stale pandas 2.1.4 (built against numpy 1.x) shadowing the venv's pandas 3.1.1, with numpy "
                        "2.4.6 installed: both of its ranks fail at 'import pandas as pd' in train_churn.py line 12 "
                        "(before fastai is imported), its launcher exits, and vision-node-01's ranks wait in the "
                        "process-group setup until the harness ends the job after 150 s. evidence: 'ValueError: "
                        "numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 "
                        "from PyObject', 'File \"/tmp/bs-e-pandas21/pandas/_libs/__init__.py\", line 18', 'rank      : "
                        "2 (local_rank: 0)', 'exitcode  : 1 (pid: 16382)'",
    "ifname-node1": f"nccl_network_config: {W}, but vision-node-02 launched with GLOO_SOCKET_IFNAME=ib0, an interface "
                    "that host does not have (its only NIC is eth0); both of its ranks fail when Accelerate creates the "
                    "gloo process group, its launcher exits, and vision-node-01's ranks wait in the process-group setup "
                    "until the harness ends the job after 150 s. evidence: 'RuntimeError: [enforce fail at "
                    ".../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ib0', 'rank      : "
                    "2 (local_rank: 0)', 'exitcode  : 1 (pid: 15625)', then 'Received 15 death signal, shutting down "
                    "workers' on vision-node-01, 'job exited with 143'",
    "healthy-late-node": f"no_failure: {W}, plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; vision-node-02 "
                         "starts 20 s after vision-node-01, inside the join timeout (torch warns 'node_rank is only used "
                         "for static rdzv_backend'); 6 epochs, finishes. evidence: 'fit finished after 6 epochs in 18s: "
                         "valid_loss 0.5441 accuracy 0.7287', 'job exited with 0'",
    "healthy-warnings": f"no_failure: {W}, with PYTHONWARNINGS=default on both hosts, so every rank prints the "
                        "deprecation warnings it would otherwise hide (pandas' Pandas4Warning about "
                        "'mode.chained_assignment' from fastai/tabular/core.py, torch's 'torch.jit.script is deprecated' "
                        "DeprecationWarning, fastai's non-writable NumPy array UserWarning); 6 epochs, finishes. "
                        "evidence: 'fit finished after 6 epochs in 13s: valid_loss 0.5444 accuracy 0.7267', 'job exited "
                        "with 0'",
    "wrong-master": f"rendezvous_timeout: {TR}, plus '--rdzv-backend c10d --rdzv-endpoint <master>:29793 --rdzv-conf "
                    "join_timeout=40'; vision-node-02 was given the wrong master address 10.79.0.99 (no such host) for "
                    "both --master-addr and its rendezvous endpoint. vision-node-02's agent retries the store for 60 s "
                    "and gives up; vision-node-01's c10d rendezvous times out waiting for the second node. evidence: "
                    "'TCP client failed to connect/validate to host 10.79.0.99:29793 - retrying (try=0, "
                    "timeout=60000ms', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                    "'RendezvousConnectionError: The connection to the C10d store has failed', 'job exited with 1'",
    "healthy-3nodes-torchrun": f"no_failure: {TR}, but three hosts (vision-node-03 10.79.0.13 too) with one process "
                               "each ('--nnodes 3 --nproc-per-node 1'); global batch 192; 8 epochs, finishes. evidence: 'fit finished after 8 epochs "
                               "in 24s: valid_loss 0.5454 accuracy 0.7283', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}, early stopping off ('--patience 0'); a first 4-epoch run (not logged) saved "
                      "churn_0..3.pth; this run loads churn_3 with its optimizer and continues with fastai's "
                      "fit_one_cycle(8, start_epoch=4): the table prints the skipped epochs 0-3 with only a time column, "
                      "then epochs 4-7; finishes. evidence: 'resumed from runs/churn/models/churn_3.pth, continuing at "
                      "epoch 4', '0         00:00', '7         0.522593    0.548172    0.727083', 'fit finished after 8 "
                      "epochs in 12s', 'job exited with 0'",
    "resume-earlystop": f"worker_exception: {W}; the same resume as healthy-resume (a first 4-epoch run, not logged, "
                        "saved churn_0..3.pth; this run loads churn_3 and calls fit_one_cycle(8, start_epoch=4)) but "
                        "with EarlyStoppingCallback left on (patience 3): when fastai skips epochs 0-3, the tracker's "
                        "after_epoch reads recorder.values[-1] before any epoch was recorded and every rank raises at "
                        "once, right after 'resumed from'. Not injected: found by healthy-resume's first try, then "
                        "re-run as its own scenario. evidence: \"IndexError: Exception occured in "
                        "`EarlyStoppingCallback` when calling event `after_epoch`:\", 'list index out of range', "
                        "'fastai/callback/tracker.py\", line 46, in after_epoch', 'job exited with 1'",
    "rank-segv": f"native_crash: {TR}, 40 epochs; an injected batch hook (data/hooks.py, called by the StepLogger "
                 "callback) reads address 0 with ctypes.string_at(0) on global rank 2 (local rank 0 on vision-node-02) "
                 "at its step 52, in epoch 1: the process dies of SIGSEGV with no Python traceback; its peers' gloo "
                 "reads fail. evidence: 'failed (exitcode: -11) local_rank: 0 (pid: 21498)', 'exitcode  : -11 (pid: "
                 "21498)  (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID 21498', peers 'Read error "
                 "[10.79.0.12]:31956: Connection reset by peer'",
    "audit-shape-rank3": f"collective_mismatch: {W}, 40 epochs; an injected batch hook (data/hooks.py, called by the "
                         "StepLogger callback) has every rank all-reduce a per-code count tensor from its step 45 on, "
                         "but global rank 3 reduces 20 elements while the others reduce 4. At the first such all-reduce "
                         "gloo on global rank 2 (vision-node-02) receives more data than it posted, throws in its "
                         "transport thread and aborts the process (SIGABRT); the other ranks fail in the same "
                         "all-reduce, inside fastai's StepLogger callback. evidence: \"what():  [enforce fail at "
                         ".../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 12 vs 4. Received data "
                         "size doesn't match expected size. Is there a distributed collective mismatch in your code?\", "
                         "'exitcode  : -6 (pid: 22110)  (SIGABRT)', \"RuntimeError: Exception occured in `StepLogger` "
                         "when calling event `after_batch`\", 'data/hooks.py\", line 6, in on_batch'",
}
