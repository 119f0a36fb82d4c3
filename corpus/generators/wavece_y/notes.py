"""Manifest notes for wave CE (y)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("TorchGeo 0.8.1 with Lightning 2.6.6, timm 1.0.31, kornia 0.9.0, torchmetrics 1.9.0, rasterio 1.4.4 over torch "
     "2.13.0+cpu (gloo), Python 3.11.7: the team's train_landcover.py trains torchgeo.trainers.ClassificationTask "
     "(timm mobilenetv3_small_050 built from its config, weights=None, 4 input bands, 5 classes, AdamW lr 1e-3) on "
     "synthetic 4-band 32x32 GeoTIFF chips (768/192/192, written by rank 0 with rasterio) through a TorchGeo "
     "NonGeoDataModule (batch 16 per process), with Lightning's Trainer(accelerator='cpu', devices=2, num_nodes=2, "
     "strategy=DDPStrategy(process_group_backend='gloo'), max_epochs=4), ModelCheckpoint (every epoch + last.ckpt) "
     "and CSVLogger, then trainer.test; launched on two hosts (network namespaces geo-cpu-a01 10.116.0.11 and "
     "geo-cpu-a02 10.116.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 "
     "--nproc-per-node 2 --node-rank K --master-addr 10.116.0.11', both nodes' output in one console")
W3 = W.replace("num_nodes=2", "num_nodes=3").replace("on two hosts", "on three hosts").replace(
    "geo-cpu-a02 10.116.0.12, one bridge", "geo-cpu-a02 10.116.0.12, geo-cpu-a03 10.116.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: '`Trainer.fit` "
                      "stopped: `max_epochs=4` reached.', 'training done: test=[{'test_AverageAccuracy': "
                      "0.943702220916748', 'job exited with 0'; the only warnings are Lightning's ('It is recommended "
                      "to use `self.log('val_loss', ..., sync_dist=True)`', a LeafSpec deprecation) and c10d's ('The "
                      "hostname of the client socket cannot be retrieved. err=-3')",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks), --epochs 3; a plain run to the end: nothing injected. evidence: "
                      "'Initializing distributed: GLOBAL_RANK: 5, MEMBER: 6/6', '[rank 0] epoch 2 metrics', 'job "
                      "exited with 0' (the test accuracy stays low after 3 epochs: 'test_OverallAccuracy': 0.15625; "
                      "the run itself is healthy)",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) 2-epoch job wrote "
                      "out-lc/checkpoints/last.ckpt; the logged job resumes from it with trainer.fit(ckpt_path=...) "
                      "to 5 epochs. evidence: 'Restoring states from the checkpoint path at "
                      "out-lc/checkpoints/last.ckpt', 'Restored all states from the checkpoint at "
                      "out-lc/checkpoints/last.ckpt', '[rank 0] epoch 4 metrics', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, with c10d rendezvous (--rdzv-backend c10d, join_timeout=40); "
                         "geo-cpu-a02 starts 20 s after geo-cpu-a01 (within the join timeout): nothing else "
                         "injected. evidence: 'node_rank is only used for static rdzv_backend. It will be ignored "
                         "for rdzv_backend=c10d.', 'Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/4', "
                         "'job exited with 0'",
    "healthy-resnet-workers": f"no_failure: {W}, with model resnet10t (4.9 M params), one DataLoader worker per "
                              "rank, batch 32, lr 5e-4, 2 epochs: nothing injected. evidence: '│ 0 │ model         "
                              "│ ResNet           │  4.9 M │', '`Trainer.fit` stopped: `max_epochs=2` reached.', "
                              "'job exited with 0'",
    "group-keyerror": f"worker_exception: {W}; the team's per-batch hook (a Lightning Callback's "
                      "on_train_batch_end) looks up GROUP_OF_RANK[rank] in a table written for the 2-rank pilot; "
                      "global ranks 2 and 3 (both on geo-cpu-a02) raise KeyError in epoch 1 at batch 3; ranks 0 and 1 "
                      "then fail in their next gloo collective. evidence: '[rank3]:   File "
                      "\"/tmp/wavece-y-job/run/train_hooks.py\", line 6, in on_batch', '[rank3]: KeyError: 3', "
                      "'[rank2]: KeyError: 2', then '[rank0]: RuntimeError: [...gloo/transport/tcp/pair.cc:553] "
                      "Connection closed by peer [10.116.0.12]:7844', 'job exited with 1'",
    "rank1-segv": f"native_crash: {W}; the team's per-batch hook calls a C helper through ctypes that reads a NULL "
                  "pointer (ctypes.string_at(0)) on global rank 1 (geo-cpu-a01) in epoch 1 at batch 5: SIGSEGV, no "
                  "Python traceback for rank 1; the other ranks then fail in gloo. evidence: 'failed (exitcode: -11) "
                  "local_rank: 1 (pid: 8028) of binary: /tmp/venv-ce-y/bin/python', 'exitcode  : -11 (pid: 8028)  "
                  "(SIGSEGV)', 'traceback : Signal 11 (SIGSEGV) received by PID 8028', then '[rank0]: RuntimeError: "
                  "[...pair.cc:537] Read error [10.116.0.11]:12684: Connection reset by peer', 'job exited with 1'",
    "rank3-abort-val": f"native_crash: {W}; the team's validation hook (a Lightning Callback's "
                       "on_validation_batch_end) calls a C helper that aborts (libc abort() through ctypes) on "
                       "global rank 3 (geo-cpu-a02, local rank 1) at validation batch 1 of epoch 1: SIGABRT, no "
                       "Python traceback for rank 3; the other ranks then fail in gloo. evidence: 'failed (exitcode: "
                       "-6) local_rank: 1 (pid: 8243) of binary: /tmp/venv-ce-y/bin/python', 'exitcode  : -6 (pid: "
                       "8243)  (SIGABRT)', 'traceback : Signal 6 (SIGABRT) received by PID 8243', then '[rank0]: "
                       "RuntimeError: [...pair.cc:553] Connection closed by peer [10.116.0.12]:3786', 'job exited "
                       "with 1'",
    "rank1-leak-oom": f"host_oom_killed: {W}; the whole job runs under a 3 GiB cgroup-v1 memory limit and the "
                      "team's per-batch hook on global rank 1 (geo-cpu-a01) keeps a 64 MB tensor per batch from "
                      "batch 6 of epoch 0 (a feature-map 'drift plot' history); the kernel's OOM killer SIGKILLs rank "
                      "1 in epoch 1, no Python traceback for it; the other ranks then fail in gloo. evidence: "
                      "'[rank 1] epoch 1 step 21 batch 8 loss 0.2803' (its last line), 'failed (exitcode: -9) "
                      "local_rank: 1 (pid: 8494) of binary: /tmp/venv-ce-y/bin/python', 'exitcode  : -9 (pid: 8494)  "
                      "(SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID 8494', and '[rank0]: RuntimeError: "
                      "[...pair.cc:553] Connection closed by peer [10.116.0.11]:8358', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}; out-lc/checkpoints is a 20 MB tmpfs: lc-epoch=00.ckpt and last.ckpt (7.1 MB "
                  "each) fit, the epoch-1 checkpoint does not; Lightning's ModelCheckpoint save on rank 0 fails "
                  "(the checkpoint is written to a temp file, then moved); the other ranks then fail in gloo. "
                  "evidence: '[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmpgxub6dde' -> "
                  "'/tmp/wavece-y-job/run/out-lc/checkpoints/lc-epoch=01.ckpt'', then '[rank1]: RuntimeError: "
                  "[...pair.cc:553] Connection closed by peer [10.116.0.11]:51850', 'job exited with 1'",
    "huge-lr-nan": f"training_divergence: {W}, with lr 1e30 and the team's --stop-on-nan (Lightning's "
                   "EarlyStopping(monitor='train_loss', check_finite=True)); the loss is NaN on every rank from "
                   "epoch 0 batch 4, EarlyStopping stops the fit after epoch 0, the test runs on the NaN model and "
                   "the job exits 0. evidence: '[rank 0] epoch 0 step 5 batch 4 loss nan', \"'train_loss': nan\", "
                   "'[rank: 0] Monitored metric train_loss = nan is not finite. Previous best value was inf. "
                   "Signaling Trainer to stop.', '│         test_loss         │            nan            │', "
                   "'job exited with 0'",
    "rank1-stopped": f"silent_hang: {W}; global rank 1 (geo-cpu-a01) is frozen with SIGSTOP as soon as epoch 1 "
                     "batch 4 shows (all four ranks had printed that batch); the other ranks block in DDP's gloo "
                     "all-reduce (default 1800 s process-group timeout) and print nothing more; 70 s after the start "
                     "the scheduler sends SIGTERM to both launchers and SIGKILL to the job 15 s later (the log ends "
                     "there, without a 'job exited' line). evidence: '[rank 1] epoch 1 step 17 batch 4 loss 2.6302' "
                     "(the last training line), 'Received 15 death signal, shutting down workers', 'Sending process "
                     "9708 closing signal SIGTERM'",
    "preempt": f"job_preempted: {W}; when epoch 1 batch 4 shows, the scheduler sends SIGTERM to both launchers "
               "(SIGKILL planned 15 s later, not needed): torchelastic forwards SIGTERM to its workers and exits "
               "with SignalException. evidence: 'Received 15 death signal, shutting down workers', 'Sending process "
               "10371 closing signal SIGTERM', '[rank: 1] Received SIGTERM: 15' (Lightning's signal handler), "
               "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 10367 got signal: 15', 'job "
               "exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; when epoch 1 batch 4 shows, both launchers get SIGHUP (the launching "
                    "terminal closing): torchelastic forwards SIGHUP to its workers and exits with SignalException. "
                    "evidence: 'Received 1 death signal, shutting down workers', 'Sending process 10567 closing "
                    "signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 10549 "
                    "got signal: 1', 'job exited with 1'",
}
