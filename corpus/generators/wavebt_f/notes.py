"""Manifest notes for wave BT (f)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("timm 1.0.28 (its own train.py v1.0.28: ClassificationTask, DDP, CheckpointSaver, cosine scheduler) over torch "
     "2.13.0+cpu (gloo, --device cpu), Python 3.11.7: the leafspot-v2 leaf-disease classifier (test_resnet, 373k "
     "parameters, 64x64 px, 4 classes, 640 generated training PNGs in an ImageFolder, -b 8 per rank, 20 updates per "
     "epoch, 'Train: E [ n/20 ...]  Loss: ...' every 5 updates, checkpoints runs/leafspot-v2/checkpoint-E.pth.tar + "
     "last/model_best), launched on two hosts (network namespaces img-node-01 10.80.0.11 and img-node-02 10.80.0.12, "
     "one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 --nproc-per-node 2 "
     "--node-rank K --master-addr 10.80.0.11', both nodes' output in one console")
NOTES = {
    "label-keyerror": f"worker_exception: {W}, 30 epochs; the team's per-batch audit hook (batch_hooks.py, called by "
                      "train.py after each update) looks class ids up in a severity table that lacks class 3 ('rust') "
                      "on global rank 3 (local rank 1 on img-node-02) at its update 52 (epoch 2); the other ranks then "
                      "lose the gloo connection. evidence: '[rank3]:   File \"/tmp/wavebt-f-job/run/batch_hooks.py\", "
                      "line 4, in on_batch', '[rank3]: KeyError: 3', peers 'Connection closed by peer [10.80.0.12]'",
    "rank-segv": f"native_crash: {W}, 30 epochs; the per-batch hook calls ctypes.string_at(0) on global rank 2 (local "
                 "rank 0 on img-node-02) at its update 52: SIGSEGV, no Python traceback. evidence: 'failed (exitcode: "
                 "-11) local_rank: 0', 'exitcode  : -11 (pid: ...)  (SIGSEGV)', 'Signal 11 (SIGSEGV) received by "
                 "PID', peers 'Read error [10.80.0.12]:...: Connection reset by peer'",
    "rank-sigkill": f"host_oom_killed: {W}, 30 epochs; once rank 0 logged 'Train: 2 [  10/20' the harness SIGKILLed "
                    "global rank 3 (local rank 1 on img-node-02) from outside, as the OOM killer would. evidence: "
                    "'exitcode  : -9 (pid: ...)  (SIGKILL)', 'Signal 9 (SIGKILL) received by PID', the surviving "
                    "ranks' gloo 'Connection closed by peer [10.80.0.12]'",
    "ckpt-tmpfs": f"disk_full: {W}, 30 epochs, with runs/leafspot-v2 a 2 MB tmpfs (a checkpoint with optimizer state "
                  "is ~3 MB): the first save at the end of epoch 0 fails inside timm's CheckpointSaver "
                  "(save_checkpoint -> _save -> torch.save); torch's zip writer reports it without errno text. "
                  "evidence: 'checkpoint_saver.py\", line 110, in _save', '[rank0]: RuntimeError: [enforce fail at "
                  "inline_container.cc:672] . unexpected pos 1953792 vs 1953688', the other ranks then fail in the "
                  "next collective",
}
NOTES["port-taken"] = (f"port_in_use: {W}, 30 epochs; a stale process (python -m http.server) holds 10.80.0.11:29801, "
                       "the master port, on img-node-01 before the job starts: node 0's torchrun cannot create its "
                       "TCPStore and exits; node 1 keeps trying to reach the store until the harness ends the job "
                       "after 150 s. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to "
                       "listen on any local network address. port: 29801, useIpv6: false, code: -98, name: "
                       "EADDRINUSE, message: address already in use', 'job exited with 1'")
NOTES["torchvision-cuda-node1"] = (
    f"library_version_mismatch: {W}, 30 epochs; img-node-02's environment has PYTHONPATH=/tmp/bt-f-tv-cuda, a site "
    "directory with the stock torchvision 0.28.0 wheel (CUDA build, _C.so linking libc10_cuda.so) next to the CPU "
    "torch 2.13.0: both of its ranks die at 'import torchvision.utils' in train.py line 31 before joining the process "
    "group; node 0's ranks wait for them until the harness ends the job after 150 s (SIGTERM to the launchers). "
    "evidence: 'File \"/tmp/bt-f-tv-cuda/torchvision/_meta_registrations.py\", line 163', 'RuntimeError: operator "
    "torchvision::nms does not exist' (twice), 'exitcode  : 1', 'job exited with 1'")
NOTES["preempt"] = (f"job_preempted: {W}, 30 epochs; once rank 0 logged 'Train: 2 [  10/20' the harness, as a "
                    "scheduler at a time limit, sent SIGTERM to both nodes' torchrun launchers (SIGKILL 15 s later if "
                    "still running); they forward it to their workers and exit. evidence: 'Received 15 death signal, "
                    "shutting down workers' (both launchers), 'Sending process ... closing signal SIGTERM', "
                    "'SignalException: Process ... got signal: 15', 'job exited with 1'")
NOTES["terminal-hup"] = (f"terminal_hangup: {W}, 30 epochs; once rank 0 logged 'Train: 2 [  10/20' the harness sent "
                         "SIGHUP to both nodes' torchrun launchers, as a closing SSH session/terminal would; they "
                         "forward it to their workers and exit. evidence: 'Received 1 death signal, shutting down "
                         "workers' (both launchers), 'Sending process ... closing signal SIGHUP', 'job exited with 1'")
NOTES["node1-missing"] = (f"rendezvous_timeout: {W.replace('both nodes', 'the node')}, 30 epochs, with the c10d "
                          "rendezvous ('--rdzv-backend c10d --rdzv-endpoint 10.80.0.11:29802 --rdzv-conf "
                          "join_timeout=40'); img-node-02 never starts (its launcher is not run), so node 0's torchrun "
                          "waits for the second node and gives up after 40 s, before any worker starts. evidence: "
                          "'raise RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api."
                          "RendezvousTimeoutError', 'job exited with 1'")
