"""Manifest notes for wave BR (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Keras 3.15.1 on the JAX backend (jax/jaxlib 0.10.2, CPU collectives gloo), Python 3.11.7: 'vibration-anomaly', "
     "a 4-class MLP over 48 synthetic pump-vibration spectral features, trained multi-process with "
     "jax.distributed.initialize(coordinator_address='tpu-sim-a:PORT', initialization_timeout=60) and "
     "keras.distribution.DataParallel over a DeviceMesh of one CPU device per process, model.fit(verbose=2) with a "
     "step logger every 10 steps, TerminateOnNaN, BackupAndRestore, ModelCheckpoint every epoch and CSVLogger; one "
     "process per host on two hosts (network namespaces tpu-sim-a 10.77.0.11 and tpu-sim-b 10.77.0.12, one bridge), "
     "started from one job shell, both hosts' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 6 epochs x 50 steps, finishes. evidence: 'training complete: final loss "
                      "0.7761, val accuracy 0.533', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (tpu-sim-c 10.77.0.13 too), global batch 64 split 21 per "
                      "process; finishes. evidence: 'training complete: final loss 0.7406', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}, 8 epochs; an earlier attempt of the same job (not logged) was SIGKILLed on "
                      "both hosts at step 170 (in epoch 4), so BackupAndRestore resumes from its epoch-3 backup: the "
                      "logged run starts at 'Epoch 4/8' and finishes. evidence: 'Epoch 4/8', 'training complete: "
                      "final loss 0.6535', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}; tpu-sim-b starts 25 s after tpu-sim-a, inside the 60 s initialization "
                         "timeout; finishes. evidence: 'Connecting to JAX distributed service on tpu-sim-a:29774' "
                         "25 s apart, 'training complete', 'job exited with 0'",
    "healthy-wide": f"no_failure: {W}, a 128-wide model, global batch 128, logging every 5 steps, 5 epochs; "
                    "finishes. evidence: 'training complete: final loss 0.7470', 'job exited with 0'",
    "rank-keyerror": f"worker_exception: {W}, 40 epochs; the team's per-step hook (site_hooks.py, imported by the "
                     "script) on tpu-sim-b (process 1) looks up class 3 in a label map that lacks it at step 130 and "
                     "raises; process 0 then waits in the next gloo all-reduce and process 1 in JAX's shutdown "
                     "barrier, so the job hangs until the harness SIGTERMs both python processes 200 s in (JAX "
                     "logs 'SIGTERM caught') and SIGKILLs them 15 s later. evidence: 'File "
                     "\"/tmp/wavebr-e-job/run/site_hooks.py\", line 8, in on_step', 'KeyError: 3'",
    "rank-sigkill": f"host_oom_killed: {W}, 40 epochs; after the epoch-3 checkpoint the harness SIGKILLed the python "
                    "process of tpu-sim-b (process 1) from outside, as the OOM killer would. evidence: 'bash: line 1: "
                    " 7871 Killed  ip netns exec brenode1 ...', on tpu-sim-a 'Gloo all-reduce failed: ... Read error "
                    "[10.77.0.12]:52864: Connection reset by peer', 'Task 1 heartbeat timeout', then its own abort "
                    "'Terminating process because the JAX distributed service detected fatal errors', "
                    "'job exited with 134'",
    "cgroup-oom": f"host_oom_killed: {W}, 40 epochs under a 1.6 GB cgroup-v1 memory limit for the whole job; from "
                  "step 130 the per-step hook on tpu-sim-b keeps a 400 MB buffer per step and the kernel's memcg OOM "
                  "killer kills that python process (dmesg: 'Memory cgroup out of memory: Killed process 9221'). "
                  "evidence: 'bash: line 1:  9221 Killed ...brenode1...', on tpu-sim-a 'Gloo all-reduce failed: "
                  "... Connection closed by peer [10.77.0.12]', 'Task 1 heartbeat timeout', 'job exited with 134'",
    "rank-segv": f"native_crash: {W}, 40 epochs; at step 130 the per-step hook on tpu-sim-b reads address 0 "
                 "through ctypes.string_at (SIGSEGV; no faulthandler, so no Python trace). evidence: 'bash: line 1: "
                 "10217 Segmentation fault  ip netns exec brenode1 ...', on tpu-sim-a 'Gloo all-reduce failed: ... "
                 "Connection closed by peer [10.77.0.12]:5355', then tpu-sim-a's own abort, 'job exited with 134'",
    "rank-abort": f"native_crash: {W}, 40 epochs; at step 130 the per-step hook on tpu-sim-b calls os.abort() "
                  "(SIGABRT, no message). evidence: 'bash: line 1: 11315 Aborted  ip netns exec brenode1 ...', "
                  "tpu-sim-a 'Gloo all-reduce failed: ... Connection reset by peer' and later its own 'Terminating "
                  "process because the JAX distributed service detected fatal errors' abort (11312 Aborted), "
                  "'job exited with 134'",
    "huge-lr": f"training_divergence: {W}, learning rate 1e5 (AdamW), 20 epochs planned; the loss turns NaN at batch 4 "
               "and Keras' TerminateOnNaN stops training on both hosts; the script then reports completion and exits "
               "0. evidence: 'Batch 4: Invalid loss, terminating training', 'loss: nan - ... val_loss: nan', "
               "'training complete: final loss nan'",
    "port-taken": f"port_in_use: {W}, but a stale 'python -m http.server' left on tpu-sim-a holds 10.77.0.11:29773, "
                  "the coordinator port; JAX's coordination service cannot bind [::]:29773 and process 0 crashes, "
                  "process 1 cannot register. evidence: 'Failed to add port to server: No address added out of total "
                  "1 resolved for '[::]:29773'', 'bash: line 1: 13690 Segmentation fault ...brenode0...', on "
                  "tpu-sim-b 'DEADLINE_EXCEEDED: Deadline Exceeded' / 'RPC: "
                  "/xla.coordination.CoordinationService/RegisterTask', 'job exited with 139'",
    "node1-missing": f"rendezvous_timeout: {W}, but only tpu-sim-a is started (tpu-sim-b never comes up); after the "
                     "60 s initialization timeout process 0 aborts. evidence: 'Starting JAX distributed service on "
                     "[::]:29774', 'absl::Status: DEADLINE_EXCEEDED: Deadline Exceeded', 'RPC: "
                     "/xla.coordination.CoordinationService/RegisterTask', 'job exited with 134'",
    "wrong-coordinator": f"rendezvous_timeout: {W}, but tpu-sim-b is given --coordinator 10.77.0.99:29775 (no such "
                         "host); both processes abort after the 60 s initialization timeout. evidence: 'Connecting to "
                         "JAX distributed service on 10.77.0.99:29775', 'DEADLINE_EXCEEDED: Deadline Exceeded' / "
                         "'RegisterTask' on both hosts, 'job exited with 134'",
    "preempt": f"job_preempted: {W}, 40 epochs; after the epoch-3 checkpoint the harness, like a scheduler at a time "
               "limit, SIGTERMs the python process on both hosts; JAX's preemption notifier catches it and training "
               "goes on (nothing acts on it) until the SIGKILL 15 s later cuts the log in epoch 10. evidence: "
               "'preemption_notifier.cc:90] SIGTERM caught at 2026-12-04T10:27:33', last line 'Epoch 10/40'",
    "terminal-hup": f"terminal_hangup: {W}, 40 epochs; after the epoch-3 checkpoint the harness sends SIGHUP to the "
                    "python process on both hosts (the launching terminal closing); both die at once. evidence: "
                    "'bash: line 1: 15270 Hangup  ip netns exec brenode0 ...', '15273 Hangup ...brenode1...', "
                    "'job exited with 129'",
    "rank-stopped": f"silent_hang: {W}, 40 epochs; right after the epoch-3 checkpoint the harness SIGSTOPped the "
                    "python process of tpu-sim-b (process 1); both hosts' output stops after 'Epoch 4/40' (process 0 "
                    "waits in a gloo all-reduce; 80 s is inside JAX's 100 s heartbeat timeout, so no coordination "
                    "error); at 80 s the scheduler SIGTERMs both, only tpu-sim-a's JAX logs it, SIGKILL 15 s later. "
                    "evidence: last step line 'step 150 loss 0.9338' on both hosts, 'Epoch 4/40', then a single "
                    "'preemption_notifier.cc:90] SIGTERM caught' about 55 s later, no error",
    "width-mismatch": f"collective_mismatch: {W}, but a host-local override in site_hooks.py makes tpu-sim-b build "
                      "its first Dense layer 48 wide instead of 64, so the two processes put differently shaped "
                      "replicated weights; JAX's cross-process equality check (a gloo all-gather) receives mismatched "
                      "sizes. evidence: '[enforce fail at external/gloo/gloo/transport/tcp/pair.cc:459] "
                      "op.preamble.length <= op.nbytes. 6144 vs 4608. Received data size doesn't match expected size. "
                      "Is there a distributed collective mismatch in your code?', 'AssertionError: <class "
                      "'jaxlib._jax.ArrayImpl'> passed to device_put is not the same on each process', then 'Task 1 "
                      "heartbeat timeout', both hosts 'Aborted', 'job exited with 134'",
    "healthy-warnings": f"no_failure: {W}, both hosts run with PYTHONWARNINGS=default, so Keras' harmless "
                        "DeprecationWarnings (normally hidden) are printed; 6 epochs, finishes. evidence: "
                        "'keras/src/backend/jax/core.py:409: DeprecationWarning: __array__ implementation doesn't "
                        "accept a copy keyword', 'training complete: final loss 0.7761', 'job exited with 0'",
    "ckpt-tmpfs": f"disk_full: {W}, a 512-wide model; checkpoints/ is an 8 MB tmpfs, and the first epoch's two "
                  "4 MB ModelCheckpoint files (one per host) do not fit: h5py fails on both hosts, then both "
                  "processes segfault while exiting. evidence: 'OSError: [Errno 28] Can't synchronously write data "
                  "(... filename = 'checkpoints/tpu-sim-b/vibration-e01.weights.h5', ... errno = 28, error message = "
                  "'No space left on device'', 'Segmentation fault' on both hosts, 'job exited with 139'",
    "jaxlib-mismatch": f"library_version_mismatch: {W}, but tpu-sim-b has a stale jaxlib 0.8.0 ahead of the venv's on "
                       "its PYTHONPATH; jax refuses to import there, and tpu-sim-a's process 0 aborts after the 60 s "
                       "initialization timeout waiting for it. evidence: 'RuntimeError: jaxlib is version 0.8.0, but "
                       "this version of jax requires version >= 0.10.1.', then 'DEADLINE_EXCEEDED: Deadline Exceeded' "
                       "/ 'RPC: /xla.coordination.CoordinationService/RegisterTask', 'job exited with 134'",
    "odd-batch": f"batch_size_mismatch: {W}, but each host exposes 2 CPU devices "
                 "(XLA_FLAGS=--xla_force_host_platform_device_count=2: a 4-device mesh) and the global batch is 62, "
                 "31 per process, which the 4-way batch sharding cannot split; both processes fail on the first "
                 "batch. evidence: 'jax._src.sharding.IndivisibleError: Sharding NamedSharding(mesh=Mesh('batch': 4, "
                 "...)) implies that array axis 0 is partitioned 4 times, but the dimension size is 62', 'job exited "
                 "with 1'",
}
