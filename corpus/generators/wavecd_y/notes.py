"""Manifest notes for wave CD (y)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("RecBole 1.2.1 (BPR, embedding 32, 160,064 parameters) over torch 2.13.0+cpu (gloo), numpy 1.26.4, pandas "
     "2.2.3, scipy 1.14.1, Python 3.11.7: RecBole's own Config/create_dataset/data_preparation/Trainer.fit/evaluate, "
     "logger and checkpoints in its distributed mode (local_rank/offset/world_size/nproc/ip/port in the config dict; "
     "the team's CpuClusterConfig makes its init_process_group use gloo and the CPU) on a synthetic purchase log "
     "(data/synthshop/synthshop.inter, 4,000 users, 1,000 items, 70,230 interactions) by the team's train_rec.py "
     "(12 epochs, batch 1024, lr 1e-3, full-sort NDCG@10 validation every epoch, best model to "
     "saved/BPR-synthshop.pth by global rank 0), launched on two hosts (network namespaces recsys-cpu-01 10.114.0.11 "
     "and recsys-cpu-02 10.114.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run "
     "--nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.114.0.11', both nodes' output in one console; "
     "RecBole's logger prints on global rank 0 only (state=error elsewhere)")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "recsys-cpu-02 10.114.0.12, one bridge", "recsys-cpu-02 10.114.0.12, recsys-cpu-03 10.114.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
AT = "once rank 0 logged 'epoch 3 training [...]'"
PEERS = "the other ranks then fail in their next gloo collective ('Connection closed by peer')"
NOTES = {
    "healthy-bpr-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'epoch 11 "
                          "training [time: ...', 'Saving current: saved/BPR-synthshop.pth', 'train done: model=BPR "
                          "best_valid_score=0.2009 world_size=4', 'job exited with 0'; the only warnings are pandas' "
                          "FutureWarning from RecBole's dataset.py ('A value is trying to be set on a copy of a "
                          "DataFrame') and torch's '`torch.cuda.amp.GradScaler(args...)` is deprecated' and the "
                          "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD UserWarning when the best model is loaded",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks); a plain run to the end: nothing injected. evidence: "
                      "'world_size = 6', 'train done: model=BPR best_valid_score=0.2009 world_size=6', 'job exited "
                      "with 0'",
    "healthy-neumf": f"no_failure: {W.replace('BPR, embedding 32, 160,064 parameters', 'NeuMF, 322,785 parameters')}"
                     "; --model NeuMF --epochs 6: nothing injected. evidence: 'Trainable parameters: 322785', "
                     "'Saving current: saved/NeuMF-synthshop.pth', 'train done: model=NeuMF best_valid_score=0.2108 "
                     "world_size=4', 'job exited with 0'",
    "healthy-sasrec": f"no_failure: {W.replace('BPR, embedding 32, 160,064 parameters', 'SASRec, 1 layer, 2 heads, hidden 32, CE loss, 41,280 parameters')}"
                      "; --model SASRec --epochs 6 --lr 2e-3 (sequential model, no negative sampling): nothing "
                      "injected. evidence: 'Trainable parameters: 41280', 'epoch 0 training [time: 7.53s, train "
                      "loss: 371.7156]', 'train done: model=SASRec best_valid_score=0.1741 world_size=4', 'job "
                      "exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job trained 5 epochs into "
                      "saved/BPR-synthshop.pth; the logged job resumes with RecBole's trainer.resume_checkpoint and "
                      "trains epochs 5-11. evidence: 'Checkpoint loaded. Resume training from epoch 5', 'epoch 5 "
                      "training [time: 0.81s, train loss: 35.2268]', 'train done: model=BPR best_valid_score=0.2007 "
                      "world_size=4', 'job exited with 0'",
    "segment-keyerror": f"worker_exception: {W}; the team's per-batch hook (train_hooks.py) looks up a segment table "
                        "written for the 2-rank dev setup from batch 30 on: global ranks 2 and 3 (recsys-cpu-02) "
                        f"raise KeyError; {PEERS}. evidence: '[rank3]:   File \"/tmp/wavecd-y-job/run/train_hooks.py\""
                        ", line 6, in on_batch', '[rank3]: KeyError: 3', '[rank2]: KeyError: 2', '[rank0]: "
                        "RuntimeError: [...pair.cc:553] Connection closed by peer [10.114.0.12]:49360', 'job exited "
                        "with 1'",
    "rank3-segv": f"native_crash: {W}; the team's hook reads a NULL buffer through ctypes (ctypes.string_at(0)) on "
                  f"global rank 3 (recsys-cpu-02) at batch 40 in epoch 0: SIGSEGV; {PEERS}. No Python traceback "
                  "from the crashed rank. evidence: 'failed (exitcode: -11) local_rank: 1 (pid: 14969)', 'host      "
                  ": recsys-cpu-02', 'rank      : 3 (local_rank: 1)', 'exitcode  : -11 (pid: 14969)  (SIGSEGV)', "
                  "'[rank0]: RuntimeError: [...pair.cc:553] Connection closed by peer [10.114.0.12]', 'job exited "
                  "with 1'",
    "saved-tmpfs": f"disk_full: {W}; saved/ (the checkpoint_dir) is a 400 KB tmpfs: global rank 0's first "
                   "checkpoint save after epoch 0 (about 1.9 MB) fills it; torch.save reports it as an iostream "
                   f"error, not as errno 28; {PEERS}. evidence: 'epoch 0 evaluating [time: 0.27s, valid_score: "
                   "0.009600]', '[rank0]:   File \".../recbole/trainer/trainer.py\", line 308, in _save_checkpoint', "
                   "'[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail "
                   "at inline_container.cc:672] . unexpected pos 6208 vs 6102', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}; --lr 1e20: the loss is NaN within epoch 0 and RecBole's own _check_nan "
               "raises on every rank. evidence: '[rank2]:     raise ValueError(\"Training loss is nan\")', '[rank0]: "
               "ValueError: Training loss is nan', '[rank3]: ValueError: Training loss is nan', 'job exited with 1'",
    "preempt": f"job_preempted: {W}; {AT} the scheduler sent SIGTERM to both launchers (SIGKILL 15 s later, not "
               "needed). evidence: 'epoch 3 training [time: 0.67s, train loss: 39.3001]', 'Received 15 death signal, "
               "shutting down workers', 'Sending process 15544 closing signal SIGTERM', 'SignalException: Process "
               "15488 got signal: 15', 'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; {AT} both launchers got SIGHUP (the launching terminal closed). "
                    "evidence: 'Received 1 death signal, shutting down workers', 'Sending process 15713 closing "
                    "signal SIGHUP', 'SignalException: Process 15709 got signal: 1', 'job exited with 1'",
    "rank1-leak-oom": f"host_oom_killed: {W}; the job runs in a 3 GiB cgroup-v1 memory limit; the team's hook keeps a "
                      "64 MB tensor per batch on global rank 1 (recsys-cpu-01) from batch 15: the kernel's memcg OOM "
                      "killer SIGKILLs it in epoch 0 (dmesg on the collector: 'Memory cgroup out of memory: Killed "
                      f"process 16812 (python)'); {PEERS}. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: "
                      "16812)', 'rank      : 1 (local_rank: 1)', 'exitcode  : -9 (pid: 16812)  (SIGKILL)', 'Signal 9 "
                      "(SIGKILL) received by PID 16812', 'job exited with 1'",
    "eval-prior-index": f"worker_exception: {W}; the team's evaluation hook (on_eval, before each full_sort_predict) "
                        "indexes a 1000-entry popularity prior with the newest item ids (RecBole's n_items is 1001 "
                        "with its padding id 0) on global rank 2 (recsys-cpu-02) in the epoch-0 validation: "
                        f"IndexError; {PEERS}. evidence: 'epoch 0 training [time: 0.68s, train loss: 40.8855]', "
                        "'[rank2]:   File \"/tmp/wavecd-y-job/run/train_hooks.py\", line 7, in on_eval', '[rank2]: "
                        "IndexError: index 1000 is out of bounds for dimension 0 with size 1000', '[rank1]: "
                        "RuntimeError: [...pair.cc:553] Connection closed by peer [10.114.0.12]:36022', 'job exited "
                        "with 1'",
    "rank1-stopped": f"silent_hang: {W}; {AT} global rank 1 (recsys-cpu-01) was stopped with SIGSTOP; the other "
                     "ranks wait in gloo (default 30 min timeout) and nothing more is printed until the scheduler "
                     "sends SIGTERM to both launchers about 58 s later (SIGKILL 15 s after that; no 'job exited' "
                     "line). evidence: '05 Dec 22:27    INFO  epoch 3 training [time: 0.62s, train loss: 39.3001]' "
                     "then 'W1205 22:28:02.294000 17616 ... Received 15 death signal, shutting down workers', "
                     "'Sending process 17626 closing signal SIGTERM', 'SignalException: Process 17620 got signal: 15'",
    "port-taken": f"port_in_use: {W}; before the job a stale 'python -m http.server' was left listening on "
                  "10.114.0.11:30158 (the job's master port) on recsys-cpu-01: node 0's torchrun cannot create its "
                  "static-rendezvous TCPStore and exits at once; node 1's launcher keeps trying the port until the "
                  "harness ends it after 100 s (no training line in the log). evidence: 'static_tcp_rendezvous.py\", "
                  "line 67, in next_rendezvous', 'torch.distributed.DistNetworkError: The server socket has failed "
                  "to listen on any local network address. port: 30158, useIpv6: false, code: -98, name: "
                  "EADDRINUSE, message: address already in use', 'job exited with 1'",
    "ifname-node-b": f"nccl_network_config: {W}; recsys-cpu-02 was launched with GLOO_SOCKET_IFNAME=ib0 (no such "
                     "interface there): both its ranks fail in init_process_group (inside RecBole's Config, before "
                     "any RecBole log line); node 0's ranks keep waiting for the group until the harness ends the "
                     "job after 120 s. evidence: 'RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/"
                     "gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ib0', "
                     "'failed (exitcode: 1) local_rank: 0 (pid: 19377)', then 'Received 15 death signal, shutting "
                     "down workers', 'job exited with 1'",
}
