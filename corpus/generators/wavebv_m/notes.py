"""Manifest notes for wave BV (m)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("NeuralForecast 3.3.0 (pytorch-lightning 2.6.6, utilsforecast 0.2.17, coreforecast 0.0.20) over torch "
     "2.13.0+cpu (gloo), Python 3.11.7: NeuralForecast(models=[NHITS(h=12, input_size=36, mlp_units 3x[64,64], 50.6K "
     "parameters, MAE, standard scaler, batch_size 16, windows_batch_size 64, max_steps 200, val_check_steps 50)], "
     "freq='ME').fit(df, val_size=12) on 240 generated monthly demand series (project/train.py), Lightning trainer "
     "kwargs through the model (accelerator='cpu', devices=2, num_nodes=N, strategy='ddp', enable_checkpointing, a "
     "ModelCheckpoint every 50 steps, progress bar off unless noted), the script's own '[train] step N train_loss X' "
     "every 10 steps on rank 0, launched on two hosts (network namespaces fc-worker-0 10.87.0.11 and fc-worker-1 "
     "10.87.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 "
     "--nproc-per-node 2 --node-rank K --master-addr 10.87.0.11', both nodes' output in one console")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "fc-worker-1 10.87.0.12, one bridge", "fc-worker-1 10.87.0.12, fc-worker-2 10.87.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
WL = W.replace("max_steps 200", "max_steps 600")
AT = "once rank 0 printed '[train] step 100 train_loss 0.3157'"
HOOK = "a team Lightning callback (train_hooks.py, picked up by train.py when present)"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end, nothing injected. evidence: 'Initializing "
                      "distributed: GLOBAL_RANK: 3, MEMBER: 4/4', \"Epoch 49, global step 200: 'train_loss' reached "
                      "0.28937 (best 0.28529), saving model to '/tmp/wavebv-m-job/run/checkpoints/step=200.ckpt' as "
                      "top 4\", '`Trainer.fit` stopped: `max_steps=200` reached.', '[train] done', 'job exited with "
                      "0'; the warnings are Lightning's own deprecation notices (LeafSpec, all_gather).",
    "healthy-3nodes-lstm": f"no_failure: {W3.replace('NHITS(h=12, input_size=36, mlp_units 3x[64,64], 50.6K parameters', 'LSTM(h=12, input_size=36, hidden 32, 1 layer')}"
                           "; rich progress bar on (only its final state is printed, no TTY). Nothing injected. "
                           "evidence: 'Initializing distributed: GLOBAL_RANK: 5, MEMBER: 6/6', '`Trainer.fit` "
                           "stopped: `max_steps=200` reached.', 'job exited with 0'.",
    "healthy-resume": f"no_failure: {W}; an unlogged first job fitted 100 steps and saved the model with "
                      "NeuralForecast.save to saved/; this job loads it (NeuralForecast.load) and fits on to 200 "
                      "steps. evidence: 'UserWarning: Ignoring runtime settings stored in saved/NHITS_0.safetensors: "
                      "default_root_dir, num_nodes, strategy.' (NeuralForecast's own, once per rank), '[train] "
                      "resuming NHITS from saved', '`Trainer.fit` stopped: `max_steps=200` reached.', 'job exited "
                      "with 0'.",
    "healthy-late-node": f"no_failure: {W}, with c10d rendezvous ('--rdzv-backend c10d --rdzv-conf "
                         "join_timeout=40') and the progress bar on; node fc-worker-1 was started 20 s after "
                         "fc-worker-0, inside the join timeout. evidence: 'Initializing distributed: GLOBAL_RANK: 3, "
                         "MEMBER: 4/4', '`Trainer.fit` stopped: `max_steps=200` reached.', 'job exited with 0'.",
    "region-keyerror": f"worker_exception: {W}; {HOOK} looks up REGION_OF_RANK[trainer.global_rank] from step 80, "
                       "a table written for 3 ranks, so global rank 3 (fc-worker-1) raises KeyError in "
                       "on_train_batch_end. evidence: '[rank3]:     region = REGION_OF_RANK[trainer.global_rank]', "
                       "'[rank3]: KeyError: 3', then the other ranks' '[rank2]: RuntimeError: [...pair.cc:553] "
                       "Connection closed by peer [10.87.0.12]:46466.' and torchrun's ChildFailedError; 'job exited "
                       "with 1'. Last progress line '[train] step 80 train_loss 0.3254'.",
    "rank-segv": f"native_crash: {W}; {HOOK} calls ctypes.string_at(0) on global rank 2 (fc-worker-1, local rank 0) "
                 "at step 90: a SIGSEGV with no Python traceback. evidence: \"failed (exitcode: -11) local_rank: 0 "
                 "(pid: 5768)\", '  exitcode  : -11 (pid: 5768)  (SIGSEGV)', '  traceback : Signal 11 (SIGSEGV) "
                 "received by PID 5768', peers' 'Connection closed by peer', 'job exited with 1'.",
    "rank-leak-cgroup": f"host_oom_killed: {WL}; the whole job ran in a cgroup-v1 memory limit of 3 GiB and {HOOK} "
                        "on global rank 1 (fc-worker-0, local rank 1) keeps a 512 MiB float64 block per step from "
                        "step 60, so the kernel OOM killer SIGKILLs it. evidence: '[train] step 60 train_loss "
                        "0.3513' (last), 'failed (exitcode: -9) local_rank: 1 (pid: 5926)', '  exitcode  : -9 "
                        "(pid: 5926)  (SIGKILL)', the others' 'Connection closed by peer [10.87.0.11]'; no OOM text "
                        "in the log (the kernel's message goes to dmesg).",
    "ckpt-tmpfs": f"disk_full: {W}; checkpoints/ (ModelCheckpoint's dirpath) was a 1 MB tmpfs: the step-50 "
                  "checkpoint (~0.6 MB) fits, the step-100 one does not, and rank 0 raises inside Lightning's "
                  "checkpoint save. evidence: \"Epoch 12, global step 50: 'train_loss' reached 0.34085 (best "
                  "0.34085), saving model to '/tmp/wavebv-m-job/run/checkpoints/step=50.ckpt' as top 1\", \"[rank0]: "
                  "OSError: [Errno 28] No space left on device: '/tmp/tmp9regw5ub' -> "
                  "'/tmp/wavebv-m-job/run/checkpoints/step=100.ckpt'\", peers' 'Connection closed by peer', 'job "
                  "exited with 1'.",
    "huge-lr": f"training_divergence: {W}, with learning_rate=1e12: the loss is NaN from the first steps and "
               "NeuralForecast's own check in training_step stops every rank (before the first '[train] step 10' "
               "line). evidence: 'Model Parameters \"accelerator\": ...' (NeuralForecast's dump of hparams), "
               "'[rank3]:     raise Exception(\"Loss is NaN, training stopped.\")', '[rank3]: Exception: Loss is "
               "NaN, training stopped.' (all four ranks), torchrun's ChildFailedError, 'job exited with 1'.",
    "rank-stopped": f"silent_hang: {WL}; SIGSTOP to global rank 1 (fc-worker-0, local rank 1) {AT}: the other "
                    "ranks block in DDP's gradient all-reduce with the default 30-minute timeout and nothing is "
                    "printed; at 100 s the harness (as a scheduler) sent SIGTERM to both launchers and SIGKILL 15 s "
                    "later. evidence: last progress '[train] step 100 valid_loss 13.8096', then only 'Received 15 "
                    "death signal, shutting down workers', 'Sending process 6290 closing signal SIGTERM', '[rank: 1] "
                    "Received SIGTERM: 15' (Lightning's handler); no 'job exited' line (killed).",
    "preempt": f"job_preempted: {WL}, progress bar on; a healthy job, SIGTERM to both launchers {AT} (scheduler "
               "style), SIGKILL 15 s later. evidence: \"Epoch 24, global step 100: 'train_loss' reached 0.31573 "
               "(best 0.31573), saving model to '/tmp/wavebv-m-job/run/checkpoints/step=100.ckpt' as top 2\", 'W1204 "
               "19:42:17.503000 6404 site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 "
               "death signal, shutting down workers', '[rank: 0] Received SIGTERM: 15'; no 'job exited' line.",
    "terminal-hup": f"terminal_hangup: {WL}; SIGHUP to both launchers {AT}, as when the ssh session closes. "
                    "evidence: 'api.py:753] Received 1 death signal, shutting down workers', 'Sending process 6526 "
                    "closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process "
                    "6521 got signal: 1', 'job exited with 1'.",
    "node1-missing": f"rendezvous_timeout: {W}, with c10d rendezvous (join_timeout=40); node fc-worker-1 was never "
                     "started, so fc-worker-0's launcher waits for the second node and gives up. evidence: '    raise "
                     "RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                     "'job exited with 1'; no NeuralForecast output at all (no worker started).",
    "port-taken": f"port_in_use: {W}; a stale 'python -m http.server' already listened on 10.87.0.11:29884 (the "
                  "master port) on fc-worker-0. evidence: 'torch.distributed.DistNetworkError: The server socket has "
                  "failed to listen on any local network address. port: 29884, useIpv6: false, code: -98, name: "
                  "EADDRINUSE, message: address already in use', 'job exited with 1' (after the harness ended "
                  "fc-worker-1's launcher, which waited silently on the HTTP server at 90 s).",
    "ifname-node1": f"nccl_network_config: {W}, except GLOO_SOCKET_IFNAME=ib0 on fc-worker-1 (no such interface): "
                    "its ranks fail creating the gloo device in Lightning's init_process_group. evidence: "
                    "'RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
                    "device.cc:84] ifa != nullptr. Unable to find address for: ib0', torchrun's ChildFailedError; "
                    "fc-worker-0's ranks waited in the store until the harness sent SIGTERM at 150 s; 'job exited "
                    "with 1'.",
    "hist-shape-rank3": f"collective_mismatch: {W}; {HOOK} all-reduces a per-rank target histogram every 20 steps "
                        "from step 60; global rank 3 builds it with 33 bins, the others 32. evidence: 'terminate "
                        "called after throwing an instance of 'gloo::EnforceNotMet'', '  what():  [enforce fail at "
                        "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= "
                        "op.nbytes. 20 vs 16. Received data size doesn't match expected size. Is there a distributed "
                        "collective mismatch in your code?', '  exitcode  : -6 (pid: 6995)  (SIGABRT)' (global rank "
                        "2, which received the odd tensor), 'job exited with 1'.",
    "slow-rank2-pg-timeout": f"collective_timeout: {W}, with strategy=DDPStrategy(timeout=20 s); {HOOK} stalls "
                             "global rank 2 (fc-worker-1) for 90 s at the start of step 80, so the others wait in "
                             "DDP's gradient all-reduce past the process-group timeout. evidence: '[rank0]: "
                             "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
                             "unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', "
                             "'[rank3]: RuntimeError: [...unbound_buffer.cc:129] Timed out waiting 20000ms for send "
                             "operation to complete', torchrun's ChildFailedError, 'job exited with 1'.",
    "old-utilsforecast-node1": f"library_version_mismatch: {W}; fc-worker-1 had utilsforecast 0.0.10 (pip "
                               "--target dir) on its PYTHONPATH, older than NeuralForecast 3.3.0 needs: its ranks "
                               "fail at 'import neuralforecast'. evidence: \"ImportError: cannot import name "
                               "'DFType' from 'utilsforecast.compat' (/tmp/bv-m-pydeps/utilsforecast/compat.py)\" "
                               "(both ranks of fc-worker-1), torchrun's ChildFailedError; fc-worker-0's ranks "
                               "waited until the harness's SIGTERM at 100 s; 'job exited with 1'.",
    "tiny-shm-workers": f"shm_exhausted: {W}, with dataloader_kwargs num_workers=2 and each node in its own mount "
                        "namespace with a 64 KiB tmpfs on /dev/shm: creating the DataLoader's worker semaphores "
                        "(POSIX semaphores live in /dev/shm) fails on every rank. evidence: '[rank3]:     "
                        "self._workers_done_event = multiprocessing_context.Event()', '[rank3]:     sl = "
                        "self._semlock = _multiprocessing.SemLock(', '[rank3]: OSError: [Errno 28] No space left on "
                        "device' (all four ranks; the log never names /dev/shm), 'job exited with 1'.",
    "wrong-master": f"rendezvous_timeout: {W}, with c10d rendezvous (join_timeout=40); fc-worker-1 was launched with "
                    "--master-addr 10.87.0.99 (nobody there). evidence: '[c10d] TCP client failed to connect/validate "
                    "to host 10.87.0.99:29880 - retrying (try=0, timeout=60000ms, delay=478ms)', "
                    "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError' (fc-worker-0, waiting for the "
                    "second node), 'torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The "
                    "connection to the C10d store has failed.' (fc-worker-1), 'job exited with 1'.",
}
