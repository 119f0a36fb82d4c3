"""Manifest notes for wave BO (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face transformers 4.57.6 Trainer over torch 2.13.0+cpu (DDP, gloo, use_cpu=True), Python 3.11.7: "
     "GPT-2-architecture causal LM (2 layers, character vocabulary) on SQL query logs, logging as in run_clm.py, "
     "eval and a checkpoint every 40 steps, launched on two hosts (network namespaces trn-c03 10.73.0.11 and trn-c04 "
     "10.73.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 torchrun --nnodes 2 --nproc-per-node 2 --node-rank K "
     "--master-addr 10.73.0.11', both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 2 epochs, finishes. evidence: 'train_loss = 1.2074', 'eval_loss = 0.4834', "
                      "'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (trn-c05 10.73.0.13 too) with one process each; finishes. "
                      "evidence: 'train_loss = 1.0387', 'eval_loss = 0.409', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W} plus '--rdzv-backend c10d --rdzv-conf join_timeout=40'; trn-c04 starts 20 s "
                         "after trn-c03, inside the join timeout; finishes. evidence: 'eval_loss = 0.5425', 'job "
                         "exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}, 4 epochs; at epoch 0.3 the harness SIGKILLed global rank 3 (local rank "
                    "1 on trn-c04) from outside, as the OOM killer would. evidence: 'exitcode  : -9 (pid: 19389)  "
                    "(SIGKILL)', 'Signal 9 (SIGKILL) received by PID 19389', peers 'Connection closed by peer "
                    "[10.73.0.12]'",
    "cgroup-oom": f"host_oom_killed: {W}, but 1536 wide and batch 32 under a 2.5 GB cgroup-v1 memory limit for the "
                  "job; the kernel OOM killer SIGKILLs global rank 2 (trn-c04). evidence: 'exitcode  : -9 (pid: 19460) "
                  " (SIGKILL)', peers 'Connection closed by peer [10.73.0.12]'",
    "rank-segv": f"native_crash: {W}; a step hook on rank 2 calls ctypes.string_at(0) at step 30, a real SIGSEGV. "
                 "evidence: 'exitcode  : -11 (pid: 19531)  (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID 19531', "
                 "peers 'Connection reset by peer'",
    "huge-lr": f"training_divergence: {W}, learning rate 50: the loss is 198127 at the first logged step (a "
               "character LM starts near ln(40) ~ 3.7) and stays in the thousands to hundreds of thousands; the run "
               "'finishes'. evidence: \"{{'loss': 198127.4375, 'grad_norm': 1523.62..., 'learning_rate': "
               "48.76..., 'epoch': 0.05}}\", 'train_loss = 106081.3555', 'eval_loss = 4466.228', 'job exited with 0'",
    "rank-keyerror": f"worker_exception: {W}; a step hook on rank 1 looks up a shard the map lacks at step 35. "
                     "evidence: \"[rank1]: KeyError: 'ap-south'\", peers 'Connection closed by peer [10.73.0.11]'",
    "ckpt-tmpfs": f"disk_full: {W}; outputs/ is a 400 KB tmpfs, the step-40 checkpoint does not fit. evidence: "
                  "'[rank0]: safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: No "
                  "space left on device (os error 28)', peers 'Connection closed by peer'",
    "port-taken": f"port_in_use: {W}; another process (a Python http.server) already listens on trn-c03's master port "
                  "38120; node 1's agent waits on it until the harness ends the job after 120 s. evidence: "
                  "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
                  "address. port: 38120, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'",
    "node1-missing": f"rendezvous_timeout: {W} plus '--rdzv-backend c10d --rdzv-conf join_timeout=40'; trn-c04 never "
                     "starts. evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job "
                     "exited with 1'",
    "preempt": f"job_preempted: {W}, 4 epochs; at epoch 0.4 the harness sends SIGTERM to both nodes' torchrun as a "
               "scheduler would. evidence: 'Sending process 20411 closing signal SIGTERM', 'SignalException: Process "
               "... got signal: 15', 'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}, 4 epochs; at epoch 0.4 both torchrun agents get SIGHUP as from a closed "
                    "terminal. evidence: 'Sending process 20484 closing signal SIGHUP', 'SignalException: Process ... "
                    "got signal: 1'",
    "rank-stopped": f"silent_hang: {W}, 4 epochs; at epoch 0.4 the harness SIGSTOPs global rank 1 (trn-c03); every "
                    "rank stops making progress (gloo's default 30-minute timeout) and the harness sends SIGTERM to "
                    "the launchers 150 s after the start, then SIGKILL. evidence: the progress bars stop, 'Sending "
                    "process 20555 closing signal SIGTERM'",
}
