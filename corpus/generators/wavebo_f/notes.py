"""Manifest notes for wave BO (f)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Ray 2.60 Train V1 (RAY_TRAIN_V2_ENABLED=0: TorchTrainer as a Tune trial) over torch 2.13.0+cpu (DDP, gloo), "
     "Python 3.11.7: two-tower click-through recommender, 4 workers x 0.5 CPU, a checkpoint per epoch to shared "
     "storage, on a 2-node Ray cluster started Slurm-style by one job script (head gpu-a17 10.72.0.11, worker node "
     "gpu-a18 10.72.0.12: network namespaces on one bridge, each with a private /tmp/ray), token auth on; the log is "
     "the head's 'ray start --head' output and the driver's console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 3 epochs, finishes. evidence: 'Training completed after 3 iterations', "
                      "'Training finished: {{'epoch': 2, ...}}', 'job exited with 0'",
    "healthy-retry": f"no_failure: {W}, FailureConfig(max_failures=2); rank 0's step hook raises a ConnectionError "
                     "once, the trial errors and is restored from its checkpoint ('rank 2: resumed from epoch 0 (step "
                     "46)') and finishes. evidence: 'Training errored after 1 iterations', 'ray.exceptions."
                     "RayTaskError(ConnectionError)', 'Training completed after 4 iterations', 'job exited with 0'",
    "rank-sigkill": f"host_oom_killed: {W}; at step 100 the harness SIGKILLed global rank 2 (gpu-a18) from outside, "
                    "as the OOM killer would. evidence: '(raylet) A worker died or was killed while executing a task "
                    "by an unexpected system error', 'ray.exceptions.ActorDiedError: The actor died unexpectedly "
                    "before finishing this task.', 'Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
                    "unexpectedly exits with a connection error code 2. End of file'",
    "rank-segv": f"native_crash: {W}; rank 3's step hook calls ctypes.string_at(0) at step 60, a real SIGSEGV. "
                 "evidence: '*** SIGSEGV received at time=... on cpu 1 ***', 'ActorDiedError: The actor died "
                 "unexpectedly before finishing this task.'",
    "rank-keyerror": f"worker_exception: {W}; rank 1's step hook looks up a segment the map lacks at step 70. "
                     "evidence: 'ray.exceptions.RayTaskError(KeyError)', \"KeyError: 'dormant'\", 'ray.train."
                     "TrainingFailedError: The Ray Train run failed.'",
    "ckpt-tmpfs": f"disk_full: {W}; the shared storage path is a 300 KB tmpfs and the checkpoint is ~400 KB. "
                  "evidence: 'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on "
                  "device' (pyarrow), 'ray.train.TrainingFailedError'",
    "ifname-missing": f"nccl_network_config: {W}, GLOO_SOCKET_IFNAME=ib0 (no such interface on the nodes). evidence: "
                      "'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to "
                      "find address for: ib0'",
    "trainer-cpu-short": f"ray_scheduling_stall: {W}, but 4 workers x 1 CPU: with the trainer's own trial actor "
                         "holding a CPU, 5 CPUs are asked of a 4-CPU cluster; nothing starts and the harness ends "
                         "the job after 150 s. evidence: 'WARNING insufficient_resources_manager.py:163 -- Ignore this "
                         "message if the cluster is autoscaling. Training has not started in the last 60 seconds. "
                         "This could be due to the cluster not having enough resources available.', '*** SIGTERM "
                         "received at time=...'",
    "preempt": f"job_preempted: {W}; at step 100 the harness sends SIGTERM to the driver as a scheduler would and "
               "SIGKILLs the job 15 s later. evidence: '*** SIGTERM received at time=... on cpu 1 ***' (driver pid), "
               "'job exited with 1'",
}
