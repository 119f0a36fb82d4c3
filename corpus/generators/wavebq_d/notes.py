"""Manifest notes for wave BQ (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face Accelerate 1.16.0 custom training loop with its FSDP plugin (fsdp_version 2, transformer-based "
     "auto-wrap of GPT2Block, SHARDED_STATE_DICT; transformers 4.57.6) over torch 2.13.0+cpu (gloo), Python 3.11.7: "
     "pre-training a tiny character-level GPT-2 (2 layers, 64 wide) on a synthetic product-description corpus, "
     "global batch 32 split over the processes, loss logged every 10 steps, eval every 50, accelerator.save_state "
     "every 40 steps, launched on two hosts (network namespaces ml-node-a1 10.75.0.11 and ml-node-a2 10.75.0.12, one "
     "bridge) with 'ACCELERATE_USE_CPU=1 GLOO_SOCKET_IFNAME=eth0 accelerate launch --config_file fsdp_config.yaml "
     "--num_machines 2 --num_processes 4 --machine_rank K --main_process_ip 10.75.0.11', both nodes' output in one "
     "console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 300 steps, finishes. evidence: 'training complete: 300 steps, final loss "
                      "1.2453', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (ml-node-a3 10.75.0.13 too) with one process each and a "
                      "global batch of 24; 200 steps, finishes. evidence: 'training complete: 200 steps' (once per "
                      "node), 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; a first, unlogged run of 120 steps left checkpoints/step_120, this run (240 "
                      "steps) resumes from it with accelerator.load_state and finishes. evidence: 'Resuming from "
                      "checkpoint outputs/prodlm/checkpoints/step_120', 'resumed at step 120', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40'; ml-node-a2 starts "
                         "20 s after ml-node-a1, inside the join timeout; 200 steps, finishes. evidence: 'training "
                         "complete: 200 steps, final loss 1.4445', 'job exited with 0'",
    "healthy-cli-flags": f"no_failure: {W}, but the FSDP settings passed as flags ('--use_fsdp --fsdp_version 2 "
                         "--fsdp_reshard_after_forward false ...', SHARD_GRAD_OP) instead of the config file, so "
                         "accelerate prints its harmless 'The following values were not passed to `accelerate launch` "
                         "and had defaults used instead' warning on both nodes; 200 steps, finishes. evidence: 'FSDP "
                         "SHARD_GRAD_OP (fsdp_version 2, SHARDED_STATE_DICT) over 4 processes', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}, 3000 steps; right after the step-40 checkpoint the harness SIGKILLed global "
                    "rank 3 (local rank 1 on ml-node-a2) from outside, as the OOM killer would. evidence: 'exitcode  : "
                    "-9 (pid: 6584)  (SIGKILL)', 'Signal 9 (SIGKILL) received by PID 6584', peers 'Connection closed "
                    "by peer [10.75.0.12]'",
    "rank-segv": f"native_crash: {W}, 3000 steps; a step hook in the training loop dereferences a NULL pointer with "
                 "ctypes.string_at(0) on global rank 2 (ml-node-a2) at step 35. evidence: 'exitcode  : -11 (pid: "
                 "6657)  (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID 6657', peers 'Connection reset by peer'",
    "huge-lr": f"training_divergence: {W}, learning rate 300: the loss is NaN by step 10 and the script's "
               "non-finite-loss check (accelerator.set_trigger/check_trigger) stops every rank. evidence: 'step 10: "
               "non-finite loss (nan) on process 0; stopping the run' (all four ranks), 'job exited with 1'",
    "rank-keyerror": f"worker_exception: {W}, 3000 steps; the step hook (data/hooks.py, on_step) raises on global rank "
                     "3 (ml-node-a2) at step 45 looking up a product attribute that is not there; the other ranks then "
                     "lose their peer. evidence: \"[rank3]: KeyError: 'category'\", \"return attrs['category']\", "
                     "'exitcode  : 1 (pid: 6809)'",
    "ckpt-tmpfs": f"disk_full: {W}, but 256 wide (1.6 M params); outputs/ is a 4 MB tmpfs, so the first "
                  "accelerator.save_state (step 40, FSDP sharded DCP write) fails on every rank. evidence: '[rank1]: "
                  "OSError: [Errno 28] No space left on device' in torch.distributed.checkpoint filesystem.py "
                  "create_stream, 'job exited with 1'",
    "port-taken": f"port_in_use: {W}; a stale process (a Python http.server) already listens on 10.75.0.11:39810, the "
                  "main process port, so ml-node-a1's launcher cannot start the static rendezvous store; ml-node-a2 "
                  "waits until the harness ends the job after 120 s. evidence: 'torch.distributed.DistNetworkError: "
                  "The server socket has failed to listen on any local network address. port: 39810, useIpv6: false, "
                  "code: -98, name: EADDRINUSE, message: address already in use'",
    "node2-missing": f"rendezvous_timeout: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40', but ml-node-a2 "
                     "is never started; ml-node-a1's launcher gives up after the join timeout. evidence: "
                     "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "preempt": f"job_preempted: {W}, 3000 steps; right after the step-40 checkpoint the harness sends SIGTERM to both "
               "nodes' launchers as a scheduler's time limit would (SIGKILL 15 s later). evidence: 'Received 15 death "
               "signal, shutting down workers' (both launchers), 'job exited with 143'",
    "terminal-hup": f"terminal_hangup: {W}, 3000 steps; right after the step-40 checkpoint both launchers get SIGHUP, as "
                    "when the terminal/SSH session that started them closes. evidence: 'Received 1 death signal, "
                    "shutting down workers', 'Sending process 8239 closing signal SIGHUP', 'job exited with 129'",
    "rank-stopped": f"silent_hang: {W}, 3000 steps; right after the step-40 checkpoint global rank 1 (ml-node-a1) is "
                    "SIGSTOPped; every rank then blocks in the next collective with no error or timeout, and 61 s "
                    "after the last line the scheduler's SIGTERM ends the job (SIGKILL 15 s later, no exit line). "
                    "evidence: last progress 'Saved checkpoint outputs/prodlm/checkpoints/step_40', then only 'Received "
                    "15 death signal, shutting down workers'",
    "global-batch-30": f"batch_size_mismatch: {W}, but '--global-batch 30' with split_batches=True over 4 processes; "
                       "accelerator.prepare rejects the DataLoader on every rank before the first step. evidence: "
                       "'ValueError: To use a `DataLoader` in `split_batches` mode, the batch size (30) needs to be a "
                       "round multiple of the number of processes (4).'",
    "short-batch-gather": f"collective_mismatch: {W} plus 'accelerate launch --debug' (ACCELERATE_DEBUG_MODE); at step "
                          "30 global rank 2 trains on a half batch (a step hook truncates it), so its per-sample loss "
                          "tensor has 4 rows where the others have 8 and accelerator.gather at the logging step is "
                          "refused on every rank. evidence: 'accelerate.utils.operations.DistributedOperationException: "
                          "Cannot apply desired operation due to shape mismatches', 'Operation: "
                          "`accelerate.utils.operations.gather`', '- Process 2: [4]'",
    "ifname-node2": f"nccl_network_config: {W}, but ml-node-a2 is launched with GLOO_SOCKET_IFNAME=ib0, an interface "
                    "that host does not have (it has eth0); both of its ranks fail creating the gloo device in "
                    "init_process_group, and ml-node-a1's ranks wait in the rendezvous until the harness ends the job "
                    "after 200 s. evidence: 'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa "
                    "!= nullptr. Unable to find address for: ib0', 'job exited with 143'",
    "old-tokenizers-node2": f"library_version_mismatch: {W}, but ml-node-a2's environment puts an old tokenizers "
                            "0.21.4 first on PYTHONPATH; transformers 4.57.6's import-time dependency check rejects it "
                            "while the accelerate CLI itself starts (accelerate imports transformers), so ml-node-a2 "
                            "never launches and ml-node-a1 waits until the harness ends the job after 120 s. evidence: "
                            "'ImportError: tokenizers>=0.22.0,<=0.23.0 is required for a normal functioning of this "
                            "module, but found tokenizers==0.21.4.', 'job exited with 143'",
    "node2-lost": f"host_oom_killed: {W}, 3000 steps; a few seconds after the step-40 checkpoint every process of "
                  "ml-node-a2 (its launcher and both ranks) is SIGKILLed from outside, as when the OOM killer or a "
                  "node-level kill takes the whole node; ml-node-a1's ranks see the connection drop and its launcher "
                  "stops. The job shell reports ml-node-a2's launcher as Killed, so the first failure is visible "
                  "(hence not peer_process_died). evidence: 'bash: line 1: 10214 Killed  ip netns exec bqdnode1 "
                  "...', '[rank0]: RuntimeError: ... Read error [10.75.0.12]:24234: Connection reset by peer', 'job "
                  "exited with 1'",
    "rank-abort": f"native_crash: {W}, 3000 steps; the step hook calls os.abort() on global rank 1 (local rank 1 on "
                  "ml-node-a1) at step 35 (SIGABRT, as an assert in a native library would). evidence: 'failed "
                  "(exitcode: -6) local_rank: 1 (pid: 10576)', 'exitcode  : -6 (pid: 10576)  (SIGABRT)', peers "
                  "'Connection closed by peer'",
    "cgroup-oom": f"host_oom_killed: {W}, but a 1024-wide 4-layer model (about 50 M params) with a global batch of 64 "
                  "under a 2 GB cgroup-v1 memory limit for the whole job; while the ranks build the model the memcg OOM "
                  "killer kills ml-node-a1's launcher (the torchrun agent, task pt_elastic, per dmesg: 'Memory cgroup "
                  "out of memory: Killed process 10665 (pt_elastic)'), its two orphaned ranks and ml-node-a2's two "
                  "thrash at the limit without logging a step, and the harness ends the job after 300 s. A short log "
                  "(11 lines). evidence: 'bash: line 1: 10665 Killed  ip netns exec bqdnode0 ...', 'job exited with "
                  "137'",
    "wrong-master": f"rendezvous_timeout: {W} plus '--rdzv_backend c10d --rdzv_conf join_timeout=40', but ml-node-a2 "
                    "is given a wrong --main_process_ip 10.75.0.99 (no such host); its launcher retries the store at "
                    "10.75.0.99:39930 and gives up, while ml-node-a1 waits alone until its join timeout. evidence: "
                    "'TCP client failed to connect/validate to host 10.75.0.99:39930 - retrying', '(errno: 113 - No "
                    "route to host)', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                    "'RendezvousConnectionError: The connection to the C10d store has failed', 'job exited with 1'",
    "node2-lost-teed": f"peer_process_died: {W}, 3000 steps, but ml-node-a2's console output goes through `tee` "
                       "into node-logs/ml-node-a2.log; a few seconds after the step-40 checkpoint every process of "
                       "ml-node-a2 (launcher and both ranks) is SIGKILLed from outside (the node is lost), and because "
                       "its output is a pipeline the job shell prints no 'Killed' line: the log only shows ml-node-a1's "
                       "ranks losing their peers and its launcher stopping. evidence: '[rank1]: RuntimeError: ... Read "
                       "error [10.75.0.12]:45266: Connection reset by peer', '[rank0]: RuntimeError: ... Connection "
                       "closed by peer [10.75.0.11]:16257', 'job exited with 1'",
}
