"""Manifest notes for wave BN (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face Accelerate 1.16.0 over torch 2.13.0+cpu (gloo, MULTI_CPU), Python 3.11.7: support-ticket intent "
     "classifier (bag-of-embeddings + MLP), custom loop with accelerator.backward/reduce/gather_for_metrics and "
     "accelerator.save_state every 40 steps, launched on two hosts (network namespaces ml-node-07 10.70.0.11 and "
     "ml-node-08 10.70.0.12, one bridge) with 'ACCELERATE_USE_CPU=1 GLOO_SOCKET_IFNAME=eth0 accelerate launch "
     "--multi_gpu --num_machines 2 --num_processes 4 --machine_rank K --main_process_ip 10.70.0.11' (torchrun "
     "underneath), both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 4 epochs, every rank finishes, exit 0. evidence: '[RANK 3] [ml-node-08] "
                      "rank 3 done: 172 steps in 12.0s', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; an earlier unlogged 1-epoch run left checkpoint_40; --resume loads it and "
                      "the run finishes. evidence: 'Resumed from checkpoint outputs/checkpoints/checkpoint_40 at step "
                      "40', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; node ml-node-08 "
                         "started 20 s after ml-node-07, inside the join timeout; finishes. evidence: 'rank 2 done: "
                         "172 steps', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (ml-node-09 10.70.0.13 too) with one process each; "
                      "finishes. evidence: '[RANK 2] [ml-node-09] rank 2 done: 228 steps in 14.2s', 'job exited with 0'",
    "healthy-node1-ifname-lo": f"no_failure: {W}, with GLOO_SOCKET_IFNAME=lo on ml-node-08 (planned as a wrong "
                               "interface, but gloo connected every pair and the run finished). evidence: 'rank 3 "
                               "done: 172 steps', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}; at step 60 the harness SIGKILLed global rank 3 (local rank 1 on "
                    "ml-node-08) from outside, as the OOM killer would; its peers' gloo pairs break and both agents "
                    "fail. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 12070)', 'exitcode  : -9 (pid: "
                    "12070)  (SIGKILL)', 'Read error [10.70.0.12]:17627: Connection reset by peer'",
    "rank-segv": f"native_crash: {W}; a step hook (data/hooks.py) on rank 3 calls ctypes.string_at(0) at step 60, "
                 "a real SIGSEGV. evidence: 'exitcode  : -11 (pid: 12141)  (SIGSEGV)', peers 'Connection closed by "
                 "peer'",
    "rank-abort": f"native_crash: {W}; a step hook on rank 1 calls os.abort() at step 55 (SIGABRT). evidence: "
                  "'exitcode  : -6 (pid: 12211)  (SIGABRT)'",
    "huge-lr": f"training_divergence: {W}, --lr 1e4: the loss is NaN at the first logged step and the script's "
               "finite-loss check raises on every rank. evidence: 'ValueError: Non-finite loss nan at step 10 "
               "(epoch 0); stopping'",
    "rank-keyerror": f"worker_exception: {W}; a step hook on rank 2 looks up a label the map lacks at step 70. "
                     "evidence: \"KeyError: 'escalation'\"",
    "grad-shape": f"collective_mismatch: {W}; at step 50 every rank all_reduces an extra tensor, rank 1 with 12 "
                  "elements and the others with 8; gloo aborts the receiving rank. evidence: 'terminate called "
                  "after throwing an instance of 'gloo::EnforceNotMet'', 'op.preamble.length <= op.nbytes. 8 vs 4. "
                  "Received data size doesn't match expected size. Is there a distributed collective mismatch in "
                  "your code?', 'exitcode  : -6 (pid: 12519)  (SIGABRT)'",
    "ckpt-tmpfs": f"disk_full: {W}; outputs/ is a 300k tmpfs, so accelerator.save_state at step 40 fills it; torch's "
                  "zip writer fails on every rank saving its state. evidence: 'RuntimeError: basic_ios::clear: "
                  "iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 64 "
                  "vs 0' (no 'No space left' line is printed)",
    "port-taken": f"port_in_use: {W}; an http.server already listens on 10.70.0.11:37120 on ml-node-07, the main "
                  "process port; node 0's static rendezvous store cannot bind, node 1 waits until the job is "
                  "ended. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on "
                  "any local network address. port: 37120, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                  "address already in use'",
    "ifname-missing": f"nccl_network_config: {W}, with GLOO_SOCKET_IFNAME=ib0 on ml-node-08, which has no such "
                      "interface; node 1's ranks fail creating the gloo device, node 0 waits until the job is "
                      "ended. evidence: 'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa "
                      "!= nullptr. Unable to find address for: ib0'",
    "node1-missing": f"rendezvous_timeout: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; only "
                     "ml-node-07 was started, so the rendezvous never completes. evidence: "
                     "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "wrong-master": f"rendezvous_timeout: {W} plus c10d rendezvous (join_timeout=40); ml-node-08 was given "
                    "--main_process_ip 10.70.0.99 (no such host), keeps failing to reach the store, and node 0's "
                    "rendezvous times out. evidence: 'TCP client failed to connect/validate to host 10.70.0.99:37160 "
                    "- retrying', 'RendezvousConnectionError: The connection to the C10d store has failed', "
                    "'RendezvousTimeoutError'",
    "preempt": f"job_preempted: {W}, 6 epochs; at step 60 the harness sent SIGTERM to both launchers as a scheduler "
               "does, then SIGKILL 15 s later. evidence: 'Received 15 death signal, shutting down workers', 'job "
               "exited with 143'",
    "terminal-hup": f"terminal_hangup: {W}, 6 epochs; at step 60 both launchers got SIGHUP, as when the launching "
                    "terminal closes. evidence: 'Received 1 death signal, shutting down workers', 'Sending process "
                    "13059 closing signal SIGHUP', 'job exited with 129'",
    "rank-stopped": f"silent_hang: {W}, 6 epochs; at step 60 global rank 2 was SIGSTOPped; the other ranks block in "
                    "their next collective (gloo's 30 min timeout never fires) and output stops; 60 s later the "
                    "harness ended the job like a scheduler (SIGTERM, SIGKILL). evidence: the last step line, then "
                    "'Received 15 death signal, shutting down workers' about 50 s later",
    "cgroup-oom": f"host_oom_killed: {W}, --dim 4096, the whole job in a 900 MB memory cgroup (cgroup v1); the "
                  "kernel OOM killer killed ml-node-07's launcher while its workers started; ml-node-08 waits until "
                  "the job is ended. evidence: 'bash: line 1: 13239 Killed                  ip netns exec bdnode0 "
                  "unshare --uts bash -c ...', 'job exited with 137'",
}
