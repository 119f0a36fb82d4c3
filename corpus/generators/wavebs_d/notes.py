"""Manifest notes for wave BS (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("torchft 0.2.0 over torch 2.13.0+cpu, Python 3.11.7: 'bearing-fault-ft', fault-tolerant data-parallel training of "
     "a 6.5k-parameter MLP on synthetic vibration spectra (torchft.Manager over ProcessGroupGloo, torchft "
     "DistributedDataParallel + OptimizerWrapper over AdamW, torchft.data.DistributedSampler, 200 steps, a log line "
     "every 10 steps, a checkpoint every 50); a torchft_lighthouse on ft-node-01 (10.78.0.11:29780) and one replica "
     "group per host (network namespaces ft-node-01/02 10.78.0.11-12 on one bridge), each launched by its own "
     "'torchrun --nnodes 1 --nproc-per-node 1' with REPLICA_GROUP_ID=K, TORCHFT_LIGHTHOUSE, GLOO_SOCKET_IFNAME=eth0; "
     "lighthouse and all nodes' output in one console")
F = " min_replicas 2 (lighthouse and Manager), so losing one replica group stops the job"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; min_replicas 1; ft-node-02's group joins at step ~50 and heals from "
                      "ft-node-01's live state dict, both finish. evidence: 'healing required, fetching checkpoint "
                      "metadata from recover_src_manager_address', 'finished 200 steps (replica group 1, 344 batches "
                      "committed)', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (ft-node-03 10.78.0.13 too), min_replicas 1; ft-node-01's "
                      "group finishes before the slow-starting third group, which heals from a peer and finishes too. "
                      "evidence: 'finished 200 steps (replica group 2, 382 batches committed)', 'job exited with 0'",
    "healthy-resumed": f"no_failure: {W}, min_replicas 1, '--resume' after an earlier 100-step run of the same job "
                       "(not logged) left checkpoints; group 0 resumes, group 1 heals from it; finishes. evidence: "
                       "'resumed from checkpoints/replica_0/step_50.pt (manager step 51)', 'job exited with 0'",
    "healthy-warnings": f"no_failure: {W}, min_replicas 1, with harmless warnings (a UserWarning from the script, "
                        "TORCH_CPP_LOG_LEVEL=INFO on ft-node-02, DDP find_unused_parameters, torchft's 'Unable to "
                        "reset NCCL flight recorder recording'); finishes. evidence: 'UserWarning: "
                        "torch.utils.data.DataLoader: pin_memory=True but no accelerator is found', 'job exited with 0'",
    "replica-killed-restarted": f"no_failure: {W}, min_replicas 1, torchrun '--max-restarts 2'; at step 80 the "
                                "harness SIGKILLs replica group 1's worker on ft-node-02; group 0 goes on alone and "
                                "finishes, torchrun restarts group 1, which then trains its 200 steps and finishes: "
                                "the job completes (a replica was lost and tolerated). evidence: 'failed (exitcode: -9) "
                                "local_rank: 0 (pid: 9867)', 'finished 200 steps (replica group 1, 200 batches "
                                "committed)', 'job exited with 0'",
    "replica-killed-3nodes": f"no_failure: {W}, but three hosts, min_replicas 1; at step 80 the harness SIGKILLs "
                             "replica group 2's worker on ft-node-03; groups 0 and 1 go on in a new quorum and finish "
                             "their 200 steps (the shell still reports ft-node-03's non-zero exit). evidence: "
                             "'exitcode  : -9 (pid: 10215)  (SIGKILL)', 'finished 200 steps (replica group 0, 289 "
                             "batches committed)', 'job exited with 1'",
    "label-keyerror": f"worker_exception: {W},{F}; at step 80 replica group 1's label-remap table lacks class 3 (user "
                      "code) and it raises; group 0's quorum then times out. evidence: 'in remap_labels ... KeyError: "
                      "3' on ft-node-02, then 'TimeoutError: status: Cancelled, message: \"Timeout expired\"' from "
                      "_async_quorum on ft-node-01, 'job exited with 1'",
    "rank-sigkill": f"host_oom_killed: {W},{F}; at step 80 the harness SIGKILLs replica group 1's worker from outside, "
                    "as the OOM killer would; group 0's quorum times out. evidence: 'exitcode  : -9 (pid: 10733)  "
                    "(SIGKILL)', 'Signal 9 (SIGKILL) received by PID 10733', then 'Timeout expired' on ft-node-01",
    "cgroup-oom": f"host_oom_killed: {W},{F}; the whole job runs under a 2 GB cgroup-v1 memory limit and from step 80 "
                  "replica group 1 grows a tensor cache in 64 MB pieces until the kernel OOM killer kills it (dmesg: "
                  "'Memory cgroup out of memory: Killed process 10990 (python)'). evidence: 'exitcode  : -9 (pid: "
                  "10990)  (SIGKILL)', then 'Timeout expired' on ft-node-01",
    "fft-segv": f"native_crash: {W},{F}; at step 80 replica group 1's 'FFT feature kernel' dereferences NULL through "
                "ctypes (ctypes.string_at(0)). evidence: 'exitcode  : -11 (pid: 11366)  (SIGSEGV)', 'Signal 11 "
                "(SIGSEGV) received by PID 11366', then 'Timeout expired' on ft-node-01",
    "huge-lr": f"training_divergence: {W},{F}; learning rate 400 (typo for 4e-4): the loss is inf by step 20 and the "
               "script's own finite-loss check raises on both groups (torchft has no NaN check). evidence: "
               "'FloatingPointError: loss is inf at step 20: training diverged', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W},{F}, a checkpoint every 20 steps; checkpoints/ is a 160 KB tmpfs, full after the "
                  "first saves: torch.save fails mid-write (torch's face of ENOSPC: no errno in the message). "
                  "evidence: 'saved checkpoint checkpoints/replica_1/step_20.pt', then in torch.save 'RuntimeError: "
                  "basic_ios::clear: iostream error' and 'RuntimeError: [enforce fail at inline_container.cc:672] . "
                  "unexpected pos 63296 vs 63184', 'job exited with 1'",
    "lighthouse-port-taken": f"port_in_use: {W},{F}; a stale process (python -m http.server) already holds "
                             "10.78.0.11:29780 on ft-node-01, so torchft_lighthouse cannot bind and exits; both "
                             "groups' quorum requests time out. evidence: 'RuntimeError: Address already in use (os "
                             "error 98)' from torchft_lighthouse, then 'Timeout expired' on both hosts",
    "node2-missing": f"rendezvous_timeout: {W},{F}; ft-node-02's replica group is never started, so the lighthouse "
                     "never has 2 participants and ft-node-01's quorum times out. evidence: 'Quorum status: New quorum "
                     "not ready, only have 1 participants, need min_replicas 2', 'TimeoutError: status: Cancelled, "
                     "message: \"Timeout expired\"', 'job exited with 1' (83 lines: it ends early)",
    "wrong-lighthouse": f"rendezvous_timeout: {W},{F}; ft-node-02 is given TORCHFT_LIGHTHOUSE=http://10.78.0.99:29780 "
                        "(a wrong address): it never reaches the lighthouse, ft-node-01's quorum times out. evidence: "
                        "'RuntimeError: failed to connect to http://10.78.0.99:29780 within timeout of 60s ... No "
                        "route to host', 'Timeout expired' on ft-node-01",
    "rank-stopped": f"silent_hang: {W},{F}; at step 80 the harness SIGSTOPs replica group 1's worker on ft-node-02: "
                    "its output stops with no error; it stops heartbeating, so group 0's next quorum times out and "
                    "group 0 exits; ft-node-02 stays hung until the scheduler's SIGTERM at 150 s. evidence: last "
                    "'[ft-node-02 rg1 r0] bearing_ft: step 80', 'Timeout expired' on ft-node-01, then 'Received 15 "
                    "death signal, shutting down workers' on ft-node-02",
    "preempt": f"job_preempted: {W},{F}; at step 80 the scheduler SIGTERMs both torchrun launchers (time limit). "
               "evidence: 'Received 15 death signal, shutting down workers', 'SignalException: Process 15940 got "
               "signal: 15', 'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W},{F}; at step 80 both torchrun launchers get SIGHUP (the launching terminal "
                    "closed). evidence: 'Received 1 death signal, shutting down workers', 'Sending process 16073 "
                    "closing signal SIGHUP', 'SignalException: Process 16060 got signal: 1'",
    "wrong-ifname": f"nccl_network_config: {W},{F}; ft-node-02 is launched with GLOO_SOCKET_IFNAME=ib0, an interface "
                    "it does not have: torchft's ProcessGroupGloo configure fails there, ft-node-01's configure waits "
                    "for it in the store and times out; both crash. evidence: 'got exception in pg configure: [enforce "
                    "fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ib0', "
                    "'DistStoreError: wait timeout after 15000ms, keys: /torchft/1/0/0/1', \"AttributeError: 'Future' "
                    "object has no attribute '_fut'\"",
    "node2-vanishes": f"host_oom_killed: {W},{F}; at step 80 the harness SIGKILLs ft-node-02's torchrun agent and "
                      "then its worker (the host's processes vanish without a word); only ft-node-01's side of the "
                      "loss is in the log: ft-node-02's output stops after step 80, the lighthouse drops to '[1/1 "
                      "participants healthy][1 heartbeating]', and ft-node-01's quorum times out. evidence: last "
                      "'[ft-node-02 rg1 r0] bearing_ft: step 80', 'TimeoutError: status: Cancelled, message: \"Timeout "
                      "expired\"', 'exitcode  : 1 (pid: 17204)', 'job exited with 1'",
    "metric-shape": f"collective_mismatch: {W},{F}; from step 80 replica group 1 all-reduces a 5-entry per-class hit "
                    "counter while group 0 sends 4 entries (a class-count mismatch in the metric code); gloo aborts "
                    "group 0's process, group 1 sees the reset and its quorum times out. evidence: 'terminate called "
                    "after throwing an instance of 'gloo::EnforceNotMet'', 'op.preamble.length <= op.nbytes. 8 vs 4. "
                    "Received data size doesn't match expected size. Is there a distributed collective mismatch in "
                    "your code?', 'exitcode  : -6 (pid: 16410)  (SIGABRT)'",
    "healthy-late-node": f"no_failure: {W}, min_replicas 2; ft-node-02 starts 20 s after ft-node-01, whose first "
                         "quorum waits for it (inside the 45 s quorum timeout); group 1 heals from group 0 and both finish. evidence: "
                         "'Quorum status: Valid quorum found [2/2 participants healthy]' 19 s after group 0 started, "
                         "'finished 200 steps (replica group 1, 400 batches committed)', 'job exited with 0'",
}
