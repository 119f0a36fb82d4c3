"""Manifest notes for wave BR (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch RPC framework on torch 2.13.0+cpu, Python 3.11.7: a click-through-rate model for a recommendations feed; "
     "rank 0 is a parameter server ('ps') holding the user/item/category embedding tables and serving lookups over "
     "torch.distributed.rpc (TensorPipe backend); ranks 1-3 are trainers ('trainerN') that call rpc_sync inside a "
     "dist_autograd context, run a dense tower under DDP over a gloo group of the trainers, backpropagate with "
     "dist_autograd.backward and step a DistributedOptimizer(Adagrad) over the remote tables and the local tower; "
     "trainer1 checkpoints every 50 steps (the ps writes its tables itself, over RPC); logging every 10 steps; "
     "launched on two hosts (network namespaces gpu-ps-01 10.76.0.11 and gpu-ps-02 10.76.0.12, one bridge) with "
     "'GLOO_SOCKET_IFNAME=eth0 TP_SOCKET_IFNAME=eth0 torchrun --nnodes 2 --nproc-per-node 2 --node-rank K "
     "--master-addr 10.76.0.11 --master-port P ctr_ps.py', both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 400 steps, finishes and rpc.shutdown() returns on every worker. evidence: "
                      "'training complete: 400 steps, final logloss 1.0684  acc 0.6383', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W}, but three hosts (gpu-ps-03 10.76.0.13 too) with one process each (ps + 2 "
                      "trainers); 400 steps, finishes. evidence: 'training complete: 400 steps, final logloss 0.7622  "
                      "acc 0.6545', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; a first run (not logged) stopped after 200 steps with its checkpoint, this run "
                      "is started with --resume --max-steps 400: the ps reloads its tables and the trainers their "
                      "tower, then it finishes. evidence: 'ps: resumed embedding tables from "
                      "checkpoints/ps-tables-step00200.pt (step 200)', 'training complete: 400 steps', 'job exited "
                      "with 0'",
    "bad-item-id": f"worker_exception: {W}; one impression near the end of data shard 4 (trainer2's holdout rows) "
                   "carries item id 5123 from a newer catalogue than the 5000-row item table, so at the first "
                   "evaluation (step 50) the ps's embedding lookup raises inside the remote call and rpc_sync "
                   "re-raises it on trainer2; the other trainers then lose their gloo peer. evidence: '[rank2]: "
                   "RuntimeError: IndexError: On WorkerInfo(id=0, name=ps):', \"[rank2]: IndexError('index out of "
                   "range in self')\", frame 'ctr_ps.py, line 59, in ps_lookup'",
    "trainer-sigkill": f"host_oom_killed: {W}, 4000 steps; right after the step-100 checkpoint the harness SIGKILLed "
                       "global rank 3 (trainer3, local rank 1 on gpu-ps-02) from outside, as the OOM killer would. "
                       "evidence: 'exitcode  : -9 (pid: 7284)  (SIGKILL)', peers 'Read error [10.76.0.12]:39069: "
                       "Connection reset by peer', 'RPC agent for ps encountered error when sending outgoing request "
                       "#619 to trainer3: ECONNRESET'",
    "node1-sigkill": f"host_oom_killed: {W}, 4000 steps; right after the step-100 checkpoint the harness SIGKILLed all "
                     "of gpu-ps-02: its torchrun agent, then trainer2 and trainer3 (0.2 s apart; trainer3 still "
                     "printed a gloo 'Connection reset by peer' traceback before it died). gpu-ps-02 prints no failure "
                     "summary; the shared console shows the job shell's 'Killed' line for that host's launcher, so the "
                     "first failure is visible (labelled by what killed it, not peer_process_died). evidence: 'bash: "
                     "line 1:  8139 Killed                  ip netns exec brdnode1 ... torchrun ... --node-rank 1', "
                     "trainer1 'Read error [10.76.0.12]:23241: Connection reset by peer'",
    "transform-segv": f"native_crash: {W}; the team's dense-feature transform (data/transforms.py, loaded by the "
                      "trainers) calls ctypes.string_at(0) on trainer2's 40th batch, a real SIGSEGV. evidence: "
                      "'failed (exitcode: -11) local_rank: 0 (pid: 4842)', 'exitcode  : -11 (pid: 4842)  (SIGSEGV)', "
                      "peers 'Connection closed by peer [10.76.0.12]'",
    "huge-lr": f"training_divergence: {W}, but '--optim sgd --lr 2000': the logits overflow within the first steps "
               "and the trainers' own finite-loss check stops every trainer at step 4 (before the first logged step). "
               "evidence: 'trainer2: loss is nan at step 4 (logits range -inf..-2.96e+09)', 'FloatingPointError: "
               "Loss is nan at step 4; stopping: check the learning rate'",
    "ckpt-tmpfs": f"disk_full: {W}; checkpoints/ is a 2 MB tmpfs: the step-50 checkpoint fits, the ps's write of the "
                  "step-100 tables fails inside the remote call and rpc_sync re-raises it on trainer1. evidence: "
                  "'[rank1]: RuntimeError: OSError: On WorkerInfo(id=0, name=ps):', '[rank1]: OSError: [Errno 28] No "
                  "space left on device', peers 'Connection closed by peer [10.76.0.11]'",
    "port-taken": f"port_in_use: {W}; another process (a Python http.server) already listens on gpu-ps-01's master "
                  "port 29761: gpu-ps-01's torchrun cannot host the store and exits; gpu-ps-02's agent connects to "
                  "the http.server and waits silently until the harness ends the job after 120 s. evidence: "
                  "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
                  "address. port: 29761, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in "
                  "use'. A short log (42 lines): nothing else ran",
    "trainer-stopped": f"silent_hang: {W}, 4000 steps; right after the step-100 checkpoint (10:14:23) the harness "
                       "SIGSTOPs global rank 2 (trainer2 on gpu-ps-02): the other trainers block in the DDP all-reduce "
                       "(gloo's 30-minute default timeout), the ps idles, nothing is printed; the harness sends SIGTERM "
                       "to both launchers 110 s after the start (10:15:48), then SIGKILL. evidence: no output after "
                       "'saved checkpoint checkpoints/step-100', 'Received 15 death signal, shutting down workers'",
    "preempt": f"job_preempted: {W}, 4000 steps; right after the step-100 checkpoint the harness sends SIGTERM to both "
               "nodes' launchers as a scheduler would. evidence: 'Received 15 death signal, shutting down workers', "
               "'SignalException: Process 8990 got signal: 15'",
    "terminal-hup": f"terminal_hangup: {W}, 4000 steps; right after the step-100 checkpoint both launchers get SIGHUP "
                    "as from a closed terminal. evidence: 'Received 1 death signal, shutting down workers', 'Sending "
                    "process 9345 closing signal SIGHUP', 'SignalException: Process 9335 got signal: 1'",
    "wrong-ifname": f"nccl_network_config: {W}, but gpu-ps-02 is launched with GLOO_SOCKET_IFNAME=ib0 (no such "
                    "interface there): both of its ranks fail in init_process_group; gpu-ps-01's ranks wait for them "
                    "until the harness ends the job after 200 s. evidence: 'RuntimeError: [enforce fail at "
                    ".../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ib0'",
    "healthy-late-node": f"no_failure: {W}; gpu-ps-02 is started 25 s after gpu-ps-01 (static rendezvous waits for "
                         "it; the two agents' store connections at 10:20:17 and 10:20:41), then 400 steps finish. "
                         "evidence: 'training complete: 400 steps, final logloss 1.0485  acc 0.6443', 'job exited "
                         "with 0'",
    "healthy-warnings": f"no_failure: {W}, 300 steps; data shard 2 holds 314 impressions without categories "
                        "(trainer3 reads shards 2 and 5, warns and embeds them as zeros) and gpu-ps-02 runs without TP_SOCKET_IFNAME; "
                        "besides torch's own deprecation warnings (ProcessGroupGloo as a ProcessGroup, TorchScript "
                        "functional optimizers) nothing else; finishes. evidence: 'trainer3 WARNING ctr_ps: shards "
                        "[2, 5]: 314 impressions without categories (empty bags embed as zeros)', 'training complete: "
                        "300 steps', 'job exited with 0'",
    "ps-cgroup-oom": f"host_oom_killed: {W}, but '--user-rows 8000000' (the user table sized for the full user base: "
                     "128 M parameters on the ps) under a 3 GB cgroup-v1 memory limit for the job: while the three "
                     "trainers' DistributedOptimizers create their Adagrad states on the ps, the kernel OOM killer "
                     "kills the ps (rank 0) and every trainer's outstanding RPC fails. evidence: 'exitcode  : -9 "
                     "(pid: 15721)  (SIGKILL)' (rank 0, gpu-ps-01), '[rank2]: RuntimeError: EOF: end of file (this "
                     "error originated at tensorpipe/transport/uv/connection_impl.cc:132)' in "
                     "DistributedOptimizer.__init__/_wait_for_all, 'RPC agent for trainer2 encountered error when "
                     "reading incoming response from ps: EOF'",
    "node1-missing": f"rendezvous_timeout: {W} plus '--rdzv-backend c10d --rdzv-endpoint 10.76.0.11:29762 "
                     "--rdzv-conf join_timeout=40'; gpu-ps-02 never starts, gpu-ps-01's agent waits alone. A short "
                     "log (43 lines). evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                     "'job exited with 1'",
    "wrong-master": f"rendezvous_timeout: {W} plus c10d rendezvous with join_timeout=40, but gpu-ps-02 is given "
                    "'--master-addr 10.76.0.99 --rdzv-endpoint 10.76.0.99:29763' (no such host): it never reaches the "
                    "store and gpu-ps-01 waits alone. evidence: '[c10d] The client socket has failed to connect to "
                    "any network address of (10.76.0.99, 29763)', 'TCP client failed to connect/validate to host "
                    "10.76.0.99:29763 - timed out', 'RendezvousTimeoutError' (gpu-ps-01), 'RendezvousConnectionError: "
                    "The connection to the C10d store has failed' (gpu-ps-02)",
    "metrics-drift": f"collective_mismatch: {W}, but gpu-ps-02 is launched with '--eval-metrics "
                     "logloss,acc,calibration' (config drift): at the step-50 evaluation its trainers all-reduce 33 "
                     "metric sums while trainer1 on gpu-ps-01 all-reduces 3; gloo's size check aborts trainer1 and the "
                     "others lose their peer. evidence: \"[enforce fail at .../gloo/transport/tcp/pair.cc:456] "
                     "op.preamble.length <= op.nbytes. 48 vs 8. Received data size doesn't match expected size. Is "
                     "there a distributed collective mismatch in your code?\", 'exitcode  : -6 (pid: 14345)  "
                     "(SIGABRT)' (the abort is the check's, not a native bug)",
    "pandas-numpy-abi": f"library_version_mismatch: {W}, but run from a venv that also holds pandas 1.5.3 (compiled "
                        "against numpy 1.x) over numpy 2.4.6: the module-level 'import pandas' fails on every rank "
                        "before anything starts. evidence: 'ValueError: numpy.dtype size changed, may indicate binary "
                        "incompatibility. Expected 96 from C header, got 88 from PyObject' under "
                        "'/tmp/venv-br-d-pd15/lib/python3.11/site-packages/pandas/__init__.py', 'job exited with 1'",
}
