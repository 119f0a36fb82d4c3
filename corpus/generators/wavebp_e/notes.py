"""Manifest notes for wave BP (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("plain PyTorch 2.13.0+cpu, Python 3.11.7: a character causal transformer LM (2 blocks, 64 wide) sharded with FSDP2 "
     "(fully_shard per block), a Distributed Checkpoint (dcp.save) every 40 steps, gloo, rank 0 logging the all-reduced "
     "loss every 10 steps, launched on two hosts (network namespaces pt-node-31 10.75.0.11 and pt-node-32 10.75.0.12, "
     "one bridge) with 'GLOO_SOCKET_IFNAME=eth0 torchrun --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr "
     "10.75.0.11', both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 120 steps, finishes. evidence: 'training complete: 120 steps', 'job exited "
                      "with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (pt-node-33 10.75.0.13 too) with one process each; finishes. "
                      "evidence: 'training complete: 120 steps', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; an earlier unlogged 80-step run left checkpoints/step-80, this 160-step run "
                      "restores it with dcp.load on every rank and finishes. evidence: 'resumed from "
                      "checkpoints/step-80 in 0.58s', 'training complete: 160 steps', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W} plus '--rdzv-backend c10d --rdzv-conf join_timeout=40'; pt-node-32 starts "
                         "20 s after pt-node-31, inside the join timeout; finishes. evidence: 'training complete: 120 "
                         "steps', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}, 3000 steps; right after the step-40 checkpoint the harness SIGKILLed global "
                    "rank 3 (local rank 1 on pt-node-32) from outside, as the OOM killer would. evidence: 'exitcode  : "
                    "-9 (pid: 10730)  (SIGKILL)', peers 'Connection closed by peer [10.75.0.12]'",
    "cgroup-oom": f"host_oom_killed: {W}, but 1024 wide, 4 blocks and batch 16 under a 2 GB cgroup-v1 memory limit for "
                  "the job; the kernel OOM killer SIGKILLs a worker. evidence: 'failed (exitcode: -9) local_rank: 1 "
                  "(pid: 10822)', 'exitcode  : -9 (pid: 10822)  (SIGKILL)'",
    "rank-segv": f"native_crash: {W}; a step hook on rank 2 calls ctypes.string_at(0) at step 30, a real SIGSEGV. "
                 "evidence: 'exitcode  : -11 (pid: 10926)  (SIGSEGV)', peers 'Connection closed by peer'",
    "rank-abort": f"native_crash: {W}; a step hook on rank 1 calls os.abort() at step 30, a real SIGABRT. evidence: "
                  "'exitcode  : -6 (pid: 11010)  (SIGABRT)'",
    "huge-lr": f"training_divergence: {W}, learning rate 80: the loss is 5.6e11 at step 10 and NaN from step 20 on, and "
               "the run 'finishes'. evidence: 'step   10 | loss 563189514240.0000 | grad_norm nan', 'step   20 | loss "
               "nan', 'training complete: 200 steps', 'job exited with 0'",
    "rank-valueerror": f"worker_exception: {W}; a step hook on rank 3 parses a malformed duration at step 35. evidence: "
                       "\"[rank3]: ValueError: invalid literal for int() with base 10: '12ms,'\", peers 'Connection "
                       "closed by peer [10.75.0.12]'",
    "rank-memerror": f"host_oom_killed: {W}; a step hook on rank 1 caps its address space at 2 GiB (RLIMIT_AS) and "
                     "allocates 4 GiB, so Python raises MemoryError (host memory exhausted for that process). "
                     "evidence: '[rank1]: MemoryError', 'failed (exitcode: 1) local_rank: 1 (pid: 11311)'",
    "dcp-tmpfs": f"disk_full: {W}, 256 wide; checkpoints/ is a 6 MB tmpfs and a Distributed Checkpoint does not fit. "
                 "evidence: '[rank2]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException "
                 "ranks:dict_keys([0, 1, 2, 3])', '[rank2]: OSError: [Errno 28] No space left on device'",
    "port-taken": f"port_in_use: {W}; another process (a Python http.server) already listens on pt-node-31's master "
                  "port 39630. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen "
                  "on any local network address. port: 39630, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                  "address already in use'",
    "node1-missing": f"rendezvous_timeout: {W} plus '--rdzv-backend c10d --rdzv-conf join_timeout=40'; pt-node-32 never "
                     "starts. evidence: 'raise RendezvousTimeoutError', 'job exited with 1'",
    "preempt": f"job_preempted: {W}, 3000 steps; right after the step-40 checkpoint the harness sends SIGTERM to both "
               "nodes' torchrun as a scheduler would. evidence: 'Sending process 11838 closing signal SIGTERM'",
    "terminal-hup": f"terminal_hangup: {W}, 3000 steps; right after the step-40 checkpoint both torchrun agents get "
                    "SIGHUP as from a closed terminal. evidence: 'Sending process 11935 closing signal SIGHUP'",
    "rank-stopped": f"silent_hang: {W}, 3000 steps; right after the step-40 checkpoint (17:20:27) the harness SIGSTOPs "
                    "global rank 1 (pt-node-31); every rank stops making progress (gloo's 600 s timeout here) and the "
                    "harness sends SIGTERM to the launchers 150 s after the start (17:22:39), then SIGKILL. evidence: "
                    "'saved checkpoint checkpoints/step-40' is the last progress, 'Received 15 death signal, shutting "
                    "down workers'",
    "ifname-node1": f"nccl_network_config: {W}, but pt-node-32 runs with GLOO_SOCKET_IFNAME=ib0, an interface it does "
                    "not have: its workers fail creating the gloo device, pt-node-31's wait until the harness ends "
                    "the job after 200 s. evidence: 'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] "
                    "ifa != nullptr. Unable to find address for: ib0'",
    "healthy-4layers": f"no_failure: {W}, but 4 blocks 96 wide, 100 steps; finishes. evidence: 'training complete: 100 "
                       "steps', 'job exited with 0'",
    "slow-rank-timeout": f"collective_timeout: {W}, process group timeout 45 s; a step hook on rank 2 sleeps 120 s at "
                         "step 30 (uneven work), so the other ranks' next collective times out. evidence: '[rank1]: "
                         "RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 45000ms for recv "
                         "operation to complete'",
}
