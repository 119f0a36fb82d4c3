"""Manifest notes for wave BX (t)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("SpeechBrain 1.1.2 (pip, with HyperPyYAML 1.2.3, ruamel.yaml 0.18.17, torchaudio 2.11.1 without its CUDA "
     "extension, see README) over torch 2.13.0+cpu (gloo), Python 3.11.7: a recipe-style keyword-spotting job "
     "(train.py: an sb.Brain subclass; hparams/train.yaml: HyperPyYAML, 3-layer MLP encoder + StatisticsPooling + "
     "linear classifier, 39.3k parameters, InputNormalization(global), Adam lr 0.002, 8 epochs, batch 8 per rank; "
     "a DynamicItemDataset from JSON with a CategoricalEncoder over 4 commands, synthetic 40-dim .npy features, 960 "
     "train / 160 valid; the Checkpointer saves end-of-epoch checkpoints keeping the best, a FileTrainLogger), "
     "launched on two hosts (network namespaces asr-node-a 10.94.0.11 and asr-node-b 10.94.0.12, one bridge) with "
     "'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d "
     "--rdzv-endpoint 10.94.0.11:PORT --rdzv-conf join_timeout=40 train.py hparams/train.yaml --device=cpu "
     "--distributed_backend=gloo --noprogressbar', both nodes' output in one console; rank 0 logs '__main__ - epoch "
     "E step S: loss X' every 10 batches")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "asr-node-b 10.94.0.12, one bridge", "asr-node-b 10.94.0.12, asr-node-c 10.94.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
AT = "once rank 0 logged '__main__ - epoch 4 step 20: loss 0.3325'"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'speechbrain.utils."
                      "train_logger - epoch: 8, lr: 2.00e-03 - train loss: 1.54e-01 - valid loss: 2.04e-01, valid "
                      "error: 3.75e-02', '__main__ - training finished', 'job exited with 0'; the only warnings are "
                      "'torchvision is not available - cannot save figures', the CategoricalEncoder's "
                      "'expect_len was never called' and c10d's 'The hostname of the client socket cannot be "
                      "retrieved. err=-3'",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks); a plain run to the end: nothing injected. evidence: 'epoch: 8, "
                      "lr: 2.00e-03 - train loss: 1.17e-01 - valid loss: 2.14e-01, valid error: 3.75e-02', "
                      "'__main__ - training finished', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job trained 4 epochs "
                      "(--number_of_epochs=4) and saved its checkpoint; the logged job's Checkpointer recovers it "
                      "and trains epochs 5-8. evidence: 'speechbrain.utils.checkpoints - Loading a checkpoint from "
                      "results/kws_mlp/1986/save/CKPT+2026-12-05+02-12-02+00', 'speechbrain.utils.epoch_loop - "
                      "Going into epoch 5', 'epoch: 8, ... valid error: 3.75e-02', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}; asr-node-b's launcher starts 20 s after asr-node-a's (a slow node), "
                         "within the c10d join timeout of 40 s, and the run trains to the end. evidence: 'epoch: 8, "
                         "lr: 2.00e-03 - train loss: 1.54e-01', '__main__ - training finished', 'job exited with 0'",
    "label-typo": f"worker_exception: {W}; injected: one train item's label is 'uP' instead of 'up' (an annotation "
                  "typo in data/train.json); SpeechBrain's CategoricalEncoder raises in the data pipeline on the "
                  "rank whose sampler drew it (global rank 3) in epoch 1, the others then lose their peer. "
                  "evidence: \"[rank3]: KeyError: 'Cannot encode unknown label uP. You have not called add_unk() to "
                  "add a special unk-label for unknown labels.'\", last progress '__main__ - epoch 1 step 20: loss "
                  "1.3481', peers' 'Connection closed by peer [10.94.0.12]', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}; injected: the team's per-batch hook (train_hooks.py, called from "
                 "KWSBrain.on_fit_batch_end) calls ctypes.string_at(0) on global rank 2 at epoch 3 step 15. "
                 "evidence: 'rank      : 2 (local_rank: 0)', 'exitcode  : -11 (pid: 6847)  (SIGSEGV)', last "
                 "progress '__main__ - epoch 3 step 10: loss 0.8358', peers' 'Connection closed by peer', 'job "
                 "exited with 1'",
    "rank-memgrow": f"host_oom_killed: {W}; injected: a 3 GiB cgroup-v1 memory limit on the whole job and a hook "
                    "on global rank 1 that keeps a 64 MiB tensor per batch from epoch 2; the kernel OOM killer "
                    "kills rank 1 (no Python error). evidence: 'rank      : 1 (local_rank: 1)', 'exitcode  : -9 "
                    "(pid: 6972)  (SIGKILL)', last progress '__main__ - epoch 2 step 20: loss 1.2728', peers' "
                    "'Connection closed by peer', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}; injected: the output folder results/ is an 800 KB tmpfs; the first end-of-epoch "
                  "checkpoint (~490 KB) fits, the second (epoch 2, written before the first is deleted) fills it "
                  "and torch.save inside the Checkpointer fails on rank 0. torch reports no errno text: evidence: "
                  "'speechbrain.core - Exception:', 'RuntimeError: basic_ios::clear: iostream error', "
                  "'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 45120 vs 45012', after "
                  "'epoch: 2, lr: 2.00e-03 - train loss: 1.31 - valid loss: 1.12', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}; injected: --lr=1e20 --max_grad_norm=-1; the loss goes non-finite in "
               "epoch 1 and SpeechBrain's own check (Brain.check_loss_isfinite, nonfinite_patience 3) stops every "
               "rank. evidence: 'speechbrain.core - Patience not yet exhausted.' (x3), '[rank2]: ValueError: Loss "
               "is not finite and patience is exhausted. To debug, wrap `fit()` with autograd's "
               "`detect_anomaly()`, e.g.', 'job exited with 1'",
    "rank-stopped": f"silent_hang: {W}; injected: SIGSTOP to global rank 1 {AT}; the other ranks wait in the next "
                    "collective with SpeechBrain's 7200 s process-group timeout, nothing is printed; after 70 s a "
                    "scheduler-style SIGTERM to both launchers, SIGKILL 15 s later (the stopped rank never exits, "
                    "no 'job exited' line). evidence: last progress '__main__ - epoch 4 step 20: loss 0.3325', then "
                    "only 'Received 15 death signal, shutting down workers' and 'SignalException: Process 7495 got "
                    "signal: 15'",
    "preempt": f"job_preempted: {W}; injected: scheduler-style SIGTERM to both launchers {AT}. evidence: 'Received "
               "15 death signal, shutting down workers', 'Sending process 7657 closing signal SIGTERM', "
               "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 7646 got signal: 15', 'job "
               "exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; injected: SIGHUP to both launchers {AT} (the ssh session that started "
                    "them closed). evidence: 'Received 1 death signal, shutting down workers', 'Sending process 7778 "
                    "closing signal SIGHUP', 'SignalException: Process 7767 got signal: 1', 'job exited with 1'",
    "node-b-missing": f"rendezvous_timeout: {W}; injected: asr-node-b's launcher is never started; asr-node-a waits "
                      "in the c10d rendezvous until join_timeout=40 s. evidence: 'raise RendezvousTimeoutError', "
                      "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "wrong-master-node-b": f"rendezvous_timeout: {W}; injected: asr-node-b's launcher gets --rdzv-endpoint "
                           "10.94.0.99:29953 (a wrong master address); asr-node-a waits alone until join_timeout=40 s "
                           "and asr-node-b's store client gives up after 60 s. evidence: '[c10d] TCP client failed "
                           "to connect/validate to host 10.94.0.99:29953 - retrying (try=0, timeout=60000ms, "
                           "delay=592ms)', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                           "'torch.distributed.DistNetworkError: The client socket has failed to connect to any "
                           "network address of (10.94.0.99, 29953). The client socket has failed to connect to "
                           "217.85.0.0:24637 (errno: 113 - No route to host).', 'job exited with 1'",
    "port-taken": W.replace("--rdzv-backend c10d --rdzv-endpoint 10.94.0.11:PORT --rdzv-conf join_timeout=40",
                            "--node-rank K --master-addr 10.94.0.11 --master-port 29954 (static rendezvous)")
                  .join(["port_in_use: ", "; injected: a stale 'python -m http.server' already listening on "
                         "10.94.0.11:29954 before the job; asr-node-a's launcher cannot create the store, "
                         "asr-node-b's connects to the stale server and waits silently until the harness ends it. "
                         "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on "
                         "any local network address. port: 29954, useIpv6: false, code: -98, name: EADDRINUSE, "
                         "message: address already in use', 'job exited with 1'"]),
    "ifname-node-b": f"nccl_network_config: {W}; injected: GLOO_SOCKET_IFNAME=ib0 on asr-node-b (no such "
                     "interface); its ranks fail in init_process_group (SpeechBrain's ddp_init_group), asr-node-a's "
                     "ranks wait until the harness's SIGTERM after 120 s. evidence: 'RuntimeError: [enforce fail at "
                     "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable "
                     "to find address for: ib0', 'job exited with 1'",
    "slow-rank2-pg-timeout": f"collective_timeout: {W}, run with --ddp_timeout_s=20 (the recipe then opens the "
                             "process group itself with a 20 s timeout instead of SpeechBrain's 7200 s); injected: "
                             "a hook sleeps 75 s on global rank 2 at epoch 2 step 10 (a stalled shard read); the "
                             "other ranks time out in the next all_reduce (SpeechBrain's InputNormalization global "
                             "statistics / DDP). evidence: '[rank1]: RuntimeError: [/__w/pytorch/pytorch/"
                             "third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms "
                             "for recv operation to complete', '[rank3]: ... Timed out waiting 20000ms for send "
                             "operation to complete', last progress '__main__ - epoch 2 step 10: loss 1.3222', "
                             "'job exited with 1'",
    "ruamel019-node-b": f"library_version_mismatch: {W}; injected: ruamel.yaml 0.19.1 (newer than HyperPyYAML 1.2.3 "
                        "supports) on asr-node-b's PYTHONPATH; its ranks fail loading hparams/train.yaml, asr-node-a "
                        "waits until the harness's SIGTERM after 120 s. evidence: 'if self.loader.max_depth and "
                        "self.depth > self.loader.max_depth:', \"AttributeError: 'Loader' object has no attribute "
                        "'max_depth'\", 'job exited with 1'",
    "tiny-shm-node-b": f"shm_exhausted: {W}, run with --num_workers=2 (DataLoader workers); injected: asr-node-b's "
                       "launcher runs in its own mount namespace with a 64 KB tmpfs on /dev/shm; its ranks fail "
                       "creating the DataLoader's multiprocessing semaphore at the start of epoch 1 (inside "
                       "SpeechBrain's dataloader __iter__). evidence: '[rank2]: OSError: [Errno 28] No space left on "
                       "device' (after '_multiprocessing.SemLock('), peers' 'Connection closed by peer', 'job exited "
                       "with 1'",
}
