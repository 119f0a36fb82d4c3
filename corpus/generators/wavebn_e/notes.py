"""Manifest notes for wave BN (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch Lightning 2.6.6 over torch 2.13.0+cpu, Python 3.11.7: day-ahead feeder-load forecaster (MLP over a 24 h "
     "window), Trainer(accelerator='cpu', devices=2, num_nodes=2, DDPStrategy(process_group_backend='gloo')), "
     "ModelCheckpoint top-2 + last; two hosts (network namespaces gpu-a01 10.71.0.11 and gpu-a02 10.71.0.12), each "
     "launched with 'MASTER_ADDR=10.71.0.11 MASTER_PORT=P NODE_RANK=K GLOO_SOCKET_IFNAME=eth0 python train.py' "
     "(Lightning starts the node's second local process), both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 4 epochs, finishes, exit 0. evidence: '`Trainer.fit` stopped: "
                      "`max_epochs=4` reached.', 'training finished: best val_mae 0.2491', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; an earlier unlogged 2-epoch run left last.ckpt; --resume "
                      "(ckpt_path='last') continues to 5 epochs. evidence: 'training finished', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (gpu-a03 too) with one process each, 3 epochs. evidence: "
                      "'Starting with 3 processes', 'training finished', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}, 12 epochs; when rank 0 printed step 120 the harness SIGKILLed global rank 3 "
                    "(gpu-a02's second process) from outside, as the OOM killer would. Nothing in the log names the "
                    "kill: the other ranks' gloo reads fail. evidence: 'Read error [10.71.0.12]:26536: Connection reset "
                    "by peer', 'Connection closed by peer [10.71.0.12]:50879', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}, 12 epochs; a step hook (data/hooks.py) on rank 3 calls ctypes.string_at(0) at "
                 "global step 120, a real SIGSEGV; Lightning's launcher on gpu-a02 reports it. evidence: '[rank: 1] "
                 "Child process with PID 14809 terminated with code -11. Forcefully terminating all other processes "
                 "to avoid zombies'",
    "rank-abort": f"native_crash: {W}, 12 epochs; a step hook on rank 1 (gpu-a01's second process) calls os.abort() "
                  "at global step 110 (SIGABRT). Nothing in the log names the abort (gpu-a01's launching process died "
                  "of its own gloo error before reporting its child): the other ranks' gloo reads fail. evidence: "
                  "'Connection closed by peer [10.71.0.11]', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}, --lr 1e4: the loss explodes to ~1e33 and validation MAE to ~5e16, but stays "
               "finite, so nothing raises and the job exits 0 with a useless model. evidence: 'epoch 3 step 320 "
               "train_mse 2711039477918421208163154810372096.0000', 'epoch 3 val_mae 48172318832197632.0000', 'job "
               "exited with 0'",
    "rank-typeerror": f"worker_exception: {W}, 12 epochs; a step hook on rank 2 adds a str to an int at global step "
                      "130. evidence: \"[rank2]: TypeError: unsupported operand type(s) for +: 'int' and 'str'\"",
    "ckpt-tmpfs": f"disk_full: {W}, 12 epochs; checkpoints/ is a 200k tmpfs, the second epoch's checkpoint does not "
                  "fit. evidence: \"[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmp5efr10x4' -> "
                  "'.../checkpoints/load-epoch=01-val_mae=0.2756.ckpt'\"",
    "port-taken": f"port_in_use: {W}; an http.server already listens on 10.71.0.11:38100 on gpu-a01, the MASTER_PORT; "
                  "rank 0's store cannot bind, gpu-a02 waits until the job is ended. evidence: "
                  "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
                  "address. port: 38100, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'",
    "ifname-missing": f"nccl_network_config: {W}, --pg-timeout 40, with GLOO_SOCKET_IFNAME=eth1 on gpu-a02, which has "
                      "no such interface: its processes fail creating the gloo device and gpu-a01's time out waiting "
                      "for them. evidence: 'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != "
                      "nullptr. Unable to find address for: eth1', 'torch.distributed.DistStoreError: wait timeout "
                      "after 40000ms, keys: /default_pg/0//cpu//0/2'",
    "node1-missing": f"rendezvous_timeout: {W}, --pg-timeout 40; only gpu-a01 was started, so the store never sees "
                     "the other two processes. evidence: 'torch.distributed.DistStoreError: Timed out after 41 seconds "
                     "waiting for clients. 2/4 clients joined.'",
    "preempt": f"job_preempted: {W}, 12 epochs; at step 120 the harness sent SIGTERM to both nodes' launching "
               "processes as a scheduler does, then SIGKILL 15 s later. evidence: '[rank: 0] Received SIGTERM: 15', "
               "'[rank: 1] Received SIGTERM: 15' (no exit line: the job was killed)",
    "terminal-hup": f"terminal_hangup: {W}, 12 epochs; at step 120 both nodes' launching processes got SIGHUP, as "
                    "when the launching terminal closes. evidence: 'bash: line 1: 15479 Hangup ip netns exec benode0 "
                    "...', 'job exited with 129'",
    "rank-stopped": f"silent_hang: {W}, 12 epochs; at step 120 global rank 2 (gpu-a02's launching process) was "
                    "SIGSTOPped; the others block in their next collective (30 min timeout) and output stops; the "
                    "harness ended the job like a scheduler 50 s later (SIGTERM, SIGKILL). evidence: 'epoch 1 step 120 "
                    "train_mse 0.2274' is the last line",
    "cgroup-oom": f"host_oom_killed: {W}, --hidden 6000, the whole job in a 1 GB memory cgroup (cgroup v1): the kernel "
                  "OOM killer killed both nodes' processes during start-up. evidence: 'bash: line 1: 15668 Killed "
                  "ip netns exec benode0 ...', 'job exited with 137'",
}
