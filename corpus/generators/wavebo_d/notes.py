"""Manifest notes for wave BO (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Ray 2.60 Train V2 TorchTrainer over torch 2.13.0+cpu (DDP, gloo), Python 3.11.7: two-tower click-through "
     "recommender, 4 workers x 1 CPU, a checkpoint per epoch to shared storage, on a 2-node Ray cluster started "
     "Slurm-style by one job script (head gpu-a17 10.72.0.11 and worker node gpu-a18 10.72.0.12: network namespaces "
     "on one bridge, each with a private /tmp/ray), token auth on; the log is the head's 'ray start --head' output "
     "and the driver's console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 3 epochs, finishes. evidence: 'Training finished: {{'epoch': 2, ...}}', "
                      "'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three nodes (gpu-a19 10.72.0.13 too) and 3 workers x 2 CPUs; finishes. "
                      "evidence: 'Training finished', 'job exited with 0'",
    "healthy-retry": f"no_failure: {W}, FailureConfig(max_failures=2); rank 0's step hook raises a ConnectionError "
                     "once (first attempt only), the controller retries ('[FailurePolicy] RETRY', 'Error count: 1 "
                     "(max allowed: 2)'), the new worker group resumes from the epoch-0 checkpoint ('rank 2: resumed "
                     "from epoch 0 (step 46)') and the run finishes: 'Training finished', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}; the driver starts before the worker node, which joins 25 s later; the "
                         "controller waits for 4 CPUs ('Requesting resources: {{'CPU': 1}} * 4') and trains once it "
                         "has them. evidence: 'Training finished', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}; at step 100 the harness SIGKILLed global rank 3 (gpu-a18, pid 7096) from "
                    "outside, as the OOM killer would. evidence: '(raylet) A worker died or was killed while executing "
                    "a task by an unexpected system error', 'Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
                    "unexpectedly exits with a connection error code 2. End of file', peers 'Connection closed by "
                    "peer [10.72.0.12]', 'job exited with 1'",
    "ray-memory-monitor": f"host_oom_killed: {W}, RAY_memory_usage_threshold=0.4; from step 40 rank 2's step hook "
                          "keeps 256 MB arrays; Ray's memory monitor kills the workers. evidence: '7 worker(s) were "
                          "killed due to the node running low on memory. Memory on the node (IP: 10.72.0.11, ...) was "
                          "9.36GB used / 23.54GB limit (0.397779)', 'OOM kill reason: Memory usage 10180501504B "
                          "exceeded threshold of 10110389248B (40.0% of 25275973632B limit)', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}; rank 3's step hook calls ctypes.string_at(0) at step 60, a real SIGSEGV. "
                 "evidence: '*** SIGSEGV received at time=... on cpu 0 ***', 'Fatal Python error: Segmentation fault', "
                 "peers 'Connection reset by peer'",
    "rank-keyerror": f"worker_exception: {W}; rank 1's step hook looks up a segment the map lacks at step 70. "
                     "evidence: 'Error in training function:', \"KeyError: 'dormant'\", 'Training failed due to "
                     "worker errors'",
    "grad-shape": f"collective_mismatch: {W}; at step 50 every rank all_reduces an extra tensor, rank 2 with 12 "
                  "elements and the others with 8. evidence: 'Unhandled exception: N4gloo13EnforceNotMetE. what(): "
                  "[enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes', 'Fatal "
                  "Python error: Aborted', peers 'Connection reset by peer'",
    "lr-blowup": f"training_divergence: {W}; at step 45 a step hook multiplies Adam's learning rate by 1e7; the loss "
                 "goes from 0.69 to ~4e30 and the run still 'finishes'. evidence: 'epoch 0 done: train_loss=0.6916', "
                 "'epoch 1 done: train_loss=3753076557790491532975688122368.0000', 'Training finished: {{'epoch': 3, "
                 "'train_loss': 3.8822578797820765e+30, ...}}', 'job exited with 0'",
    "ckpt-tmpfs": f"disk_full: {W}; the shared storage path is a 300 KB tmpfs and the checkpoint is ~400 KB. "
                  "evidence: 'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on "
                  "device' (pyarrow), 'Training failed due to worker errors'",
    "ifname-missing": f"nccl_network_config: {W}, GLOO_SOCKET_IFNAME=ib0 (no such interface on the nodes). evidence: "
                      "'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to "
                      "find address for: ib0', 'Training failed due to controller error'",
    "pg-too-big": f"ray_scheduling_stall: {W}, but 3 workers x 2 CPUs on 4 CPUs in all; the worker group never "
                  "starts and the harness ends the job after 150 s as a scheduler would. evidence: 'Requesting "
                  "resources: {{'CPU': 2.0}} * 3', 'WorkerGroupStartupTimeoutError: The worker group startup timed out "
                  "after 60.0 seconds waiting for 3 workers. Potential causes include: (1) temporary insufficient "
                  "cluster resources ...', '[FailurePolicy] RETRY'",
    "node-missing": f"ray_scheduling_stall: {W}; the worker node never joins (its start is delayed past the job), so "
                    "4 workers x 1 CPU cannot be placed on the head's 2 CPUs; ended by the harness after 150 s. "
                    "evidence: 'Requesting resources: {{'CPU': 1}} * 4', 'WorkerGroupStartupTimeoutError: The worker "
                    "group startup timed out after 60.0 seconds waiting for 4 workers'",
    "preempt": f"job_preempted: {W}; at step 100 the harness sends SIGTERM to the driver as a scheduler would and "
               "SIGKILLs the job 15 s later. evidence: '*** SIGTERM received at time=... on cpu 0 ***' (driver pid), "
               "'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; at step 100 the driver gets SIGHUP as from a closed terminal. evidence: "
                    "'cluster.sh: line 27: 15046 Hangup                  python train.py \"$@\"', 'job exited with 129'",
    "rank-stopped": f"collective_timeout: {W}, TorchConfig(timeout_s=30); at step 100 the harness SIGSTOPs rank 1 "
                    "(gpu-a17); the others' gloo all_reduce times out. evidence: 'RuntimeError: [.../gloo/transport/"
                    "tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', 'Training "
                    "failed due to worker errors'",
}
