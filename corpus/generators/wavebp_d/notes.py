"""Manifest notes for wave BP (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("TRL 0.25.0 GRPOTrainer (transformers 4.57.6, accelerate 1.16.0) over torch 2.13.0+cpu (DDP, gloo), Python "
     "3.11.7: GRPO of a tiny GPT-2 policy (2 layers, byte-level BPE) on addition prompts, generation by the policy "
     "itself (no vLLM), a rule-based reward, TRL's rich completion tables, a checkpoint every 20 steps, launched on two "
     "hosts (network namespaces rl-gpu-21 10.74.0.11 and rl-gpu-22 10.74.0.12, one bridge) with 'ACCELERATE_USE_CPU=1 "
     "GLOO_SOCKET_IFNAME=eth0 accelerate launch --multi_gpu --num_machines 2 --num_processes 4 --machine_rank K "
     "--main_process_ip 10.74.0.11', both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 80 steps, finishes. evidence: 'train_loss = 0.0024', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (rl-gpu-23 10.74.0.13 too) with one process each; 60 steps, "
                      "finishes. One completion in a table holds a NUL byte the policy generated (kept as printed). "
                      "evidence: 'train_loss = -0.0037', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; rl-gpu-22 starts "
                         "20 s after rl-gpu-21, inside the join timeout; finishes. evidence: 'train_loss = -0.0011', "
                         "'job exited with 0'",
    "healthy-8gen": f"no_failure: {W}, 8 prompts per device and 8 generations per prompt, 40 steps; finishes. "
                    "evidence: 'train_loss = -0.0031', 'job exited with 0'",
    "healthy-batch3": f"no_failure: {W}, 3 prompts per device (12 per step across 4 processes, divisible by the 4 "
                      "generations), 60 steps; finishes. evidence: 'train_loss = -0.0009', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}, 600 steps; right after the step-40 checkpoint the harness SIGKILLed global "
                    "rank 3 (local rank 1 on rl-gpu-22) from outside, as the OOM killer would. evidence: 'exitcode  : "
                    "-9 (pid: 7801)  (SIGKILL)', peers 'Connection closed by peer [10.74.0.12]'",
    "cgroup-oom": f"host_oom_killed: {W}, but a 1536-wide policy, 32 prompts per device and 8 generations under a 2.5 GB "
                  "cgroup-v1 memory limit for the job; the kernel OOM killer SIGKILLs workers on both hosts. evidence: "
                  "'exitcode  : -9 (pid: 7921)  (SIGKILL)', 'Signal 9 (SIGKILL) received by PID 7920'",
    "huge-lr": f"training_divergence: {W}, learning rate 5: the policy's logits turn NaN within the first steps (before "
               "the first logged step) and sampling fails on every rank. evidence: 'RuntimeError: probability tensor "
               "contains either `inf`, `nan` or element < 0', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}, a 256-wide policy; outputs/ is a 3 MB tmpfs and a checkpoint does not fit. evidence: "
                  "'[rank0]: safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: No "
                  "space left on device (os error 28)', peers 'Connection closed by peer [10.74.0.11]'",
    "port-taken": f"port_in_use: {W}; another process (a Python http.server) already listens on rl-gpu-21's main "
                  "process port 39130; rl-gpu-22's agent waits for it until the harness ends the job after 120 s. "
                  "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
                  "network address. port: 39130, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
                  "already in use'",
    "node1-missing": f"rendezvous_timeout: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; rl-gpu-22 never "
                     "starts. evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job "
                     "exited with 1'",
    "wrong-master": f"rendezvous_timeout: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40', but rl-gpu-22 is "
                    "given '--main_process_ip 10.74.0.99' (no such host), so it never reaches the store and rl-gpu-21 "
                    "waits alone. evidence: '[c10d] The client socket has failed to connect to any network address of "
                    "(10.74.0.99, 39150)', 'RendezvousTimeoutError'",
    "preempt": f"job_preempted: {W}, 600 steps; right after the step-40 checkpoint the harness sends SIGTERM to both "
               "nodes' launchers as a scheduler would. evidence: 'Received 15 death signal, shutting down workers', "
               "'Sending process 9224 closing signal SIGTERM'",
    "terminal-hup": f"terminal_hangup: {W}, 600 steps; right after the step-40 checkpoint both launchers get SIGHUP as "
                    "from a closed terminal. evidence: 'Sending process 9375 closing signal SIGHUP'",
    "rank-stopped": f"silent_hang: {W}, 600 steps; right after the step-40 checkpoint (17:04:49) the harness SIGSTOPs "
                    "global rank 1 (rl-gpu-21); every rank stops making progress (gloo's default 30-minute timeout) "
                    "and the harness sends SIGTERM to the launchers 150 s after the start (17:06:27), then SIGKILL. "
                    "evidence: no output after the step-40 checkpoint, 'Received 15 death signal, shutting down "
                    "workers'",
    "healthy-low-lr": f"no_failure: {W}, learning rate 1e-5, 40 steps; finishes. evidence: 'train_loss = -0.0012', "
                      "'job exited with 0'",
    "reward-segv": f"native_crash: {W}; the reward function's hook on rank 2 calls ctypes.string_at(0) at its 12th call, "
                   "a real SIGSEGV. evidence: 'exitcode  : -11 (pid: 13946)  (SIGSEGV)'",
    "reward-keyerror": f"worker_exception: {W}; the reward function's hook on rank 1 looks up a unit its map lacks at "
                       "its 14th call. evidence: \"[rank1]: KeyError: 'fraction'\"",
    "reward-memerr": f"host_oom_killed: {W}, under a 3 GB cgroup-v1 memory limit for the job; the reward function's hook "
                     "on rank 3 keeps allocating 256 MB buffers at its 12th call and the kernel OOM killer SIGKILLs it. "
                     "evidence: 'exitcode  : -9 (pid: 14124)  (SIGKILL)'",
    "reward-shape": f"collective_mismatch: {W}; at the reward function's 10th call every rank all_reduces an extra "
                    "tensor, rank 3 with 12 elements and the others with 8. evidence: 'what():  [enforce fail at "
                    ".../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 8 vs 4. Received data size "
                    "doesn't match expected size.', peers 'Connection reset by peer'",
    "gen-batch": f"batch_size_mismatch: {W}, 3 prompts per device (12 per step across 4 processes) with 8 generations "
                 "per prompt: GRPOConfig's check fails on every rank before training. evidence: '[rank2]: ValueError: "
                 "generation_batch_size (12) must be divisible by num_generations (8).'",
}
