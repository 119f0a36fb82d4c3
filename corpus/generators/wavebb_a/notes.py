"""Manifest notes for wave BB (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("multi-node torchrun across two network hosts (Linux network namespaces wtg-train-01 10.77.0.1 and wtg-train-02 "
     "10.77.0.2 on one veth link, 'GLOO_SOCKET_IFNAME=eth0 torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d "
     "--rdzv-endpoint 10.77.0.1:P --rdzv-id pcurve-train train.py', both nodes' output in one console), 4 ranks DDP "
     "over gloo on CPU (torch 2.13.0+cpu); wind farm turbine power-curve / fault predictor on SCADA records")
NOTES = {
    "mn-pcurve-healthy": (
        f"no_failure: {W}, 3 epochs; every rank trains, rank 0 validates and checkpoints each epoch. evidence: "
        "'[wtg-train-01 rank0] 13:28:10 finished 3 epochs', 'job exited with 0'"),
    "mn-pcurve-healthy-garbled-scada": (
        f"no_failure: {W}; 3 SCADA records have wind speed '#####'; rank 0 logs each at ERROR and drops it, training "
        "succeeds. evidence: \"[wtg-train-01 rank0] 13:28:31 ERROR record 4943 (WTG-04 day 4 slot 47): could not "
        "convert string to float: '#####', dropped\", 'job exited with 0'"),
    "mn-pcurve-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), '--epochs 4 --resume': every rank loads "
        "checkpoints/latest.pt and trains epochs 3-4. evidence: '[wtg-train-01 rank1] 13:29:50 resumed from "
        "checkpoints/latest.pt (epoch 2)', '[wtg-train-01 rank0] 13:30:04 finished 4 epochs', 'job exited with 0'"),
    "mn-pcurve-healthy-late-node": (
        f"no_failure: {W}; node 1 is started 25 s after node 0 (within the rendezvous join timeout); node 0's agent "
        "waits in the rendezvous, then all 4 ranks train 3 epochs. evidence: '[wtg-train-01 rank0] 13:31:40 process "
        "group up: world 4, local rank 0, master wtg-train-01:45325', '[wtg-train-01 rank1] 13:32:09 finished 3 "
        "epochs', 'job exited with 0'"),
    "mn-pcurve-elastic-restart": (
        f"host_oom_killed: {W}; '--max-restarts 2 ... --epochs 4 --resume'; in epoch 2 local rank 1 on wtg-train-02 "
        "is SIGKILLed from outside (kill -9, no OOM); the peers see the connection drop, both agents restart their "
        "workers, but the restarted ranks fail to connect the gloo full mesh (Connection refused) and the agents end "
        "in RendezvousClosedError. evidence: 'E1201 13:30:46.056000 25590 "
        "torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 (pid: 25797) of "
        "binary: /tmp/corpus-venv-bb-a/bin/python3', 'torch.distributed.elastic.rendezvous.api.RendezvousClosedError', "
        "'job exited with 1'"),
    "mn-pcurve-missing-ifname": (
        f"nccl_network_config: {W}; node 1 is launched with GLOO_SOCKET_IFNAME=ens5, an interface that host does not "
        "have; its ranks fail creating the gloo device, node 0's ranks time out waiting for their addresses "
        "('--pg-timeout 30'). evidence: 'RuntimeError: [enforce fail at "
        "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address "
        "for: ens5', 'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/2', "
        "'job exited with 1'"),
    "mn-pcurve-node1-missing": (
        f"rendezvous_timeout: {W}; only node 0 is started (with '--rdzv-conf join_timeout=40'); node 1 never joins "
        "and node 0's agent gives up the rendezvous. evidence: "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "mn-pcurve-store-port-blocked": (
        f"rendezvous_timeout: {W}; '--rdzv-conf join_timeout=40'; a firewall rule on wtg-train-01 (iptables -A INPUT "
        "-i eth0 -p tcp --dport 29910 -j DROP) drops the rendezvous store's port from the network while everything "
        "else is open; node 1's agent cannot reach the c10d store, node 0's rendezvous times out. evidence: "
        "'[E1201 13:38:52.044109270 socket.cpp:1028] [c10d] The client socket has timed out after 60000ms while "
        "trying to connect to (10.77.0.1, 29910).', 'torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: "
        "The connection to the C10d store has failed. See inner exception for details.', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "mn-pcurve-link-down": (
        f"collective_timeout: {W}, '--pg-timeout 30'; in epoch 2 the link between the hosts goes down (ip link set "
        "eth0 down on wtg-train-02); every rank's gloo send/recv times out after 30 s, node 0's agent reports the "
        "failure and exits, node 1's agent can no longer reach the store and hangs; the harness ended the job after "
        "200 s (no 'job exited' line). evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 30000ms "
        "for send operation to complete', '[rank1]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for "
        "recv operation to complete'"),
    "mn-pcurve-node1-lost": (
        f"peer_process_died: {W}, '--pg-timeout 60'; in epoch 2 every process on wtg-train-02 (its agent, both ranks, "
        "the shell that started it) is SIGKILLed at once, the host lost; node 1 prints nothing more, node 0's ranks "
        "see their gloo connections to 10.77.0.2 close and node 0's agent reports the failure. evidence: '[rank1]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by "
        "peer [10.77.0.2]:62695. This is typically caused by a remote worker crashing. Check the logs of the remote "
        "worker before reporting an error.', 'job exited with 1'"),
    "mn-pcurve-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 32 KiB tmpfs; after epoch 1's validation rank 0's torch.save of the "
        "checkpoint runs out of space, rank 0 exits, the other ranks see its connection close and both agents report "
        "the failure. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos 28480 vs 28372', 'job exited with 1'"),
    "mn-pcurve-new-model": (
        f"worker_exception: {W}; the fleet table lists a turbine of model GX-5.0 commissioned on the export's last "
        "record (one row), a model missing from the training code's rated-power table; in epoch 1 the rank whose "
        "batch holds that row (rank 0 on wtg-train-01) raises KeyError, the other ranks see its connection close, "
        "node 1's agent then loses the rendezvous store. evidence: \"[rank0]: KeyError: 'GX-5.0'\", '[rank0]:     "
        "rated = torch.tensor([RATED_KW[model_of[turbines[t]]] for t in tb.tolist()])', 'job exited with 1'"),
    "mn-pcurve-preempted": (
        f"job_preempted: {W}, 8 epochs; in epoch 2 SIGTERM goes to the job's whole process group (the launch script, "
        "both nodes' torchrun agents and ranks), as a scheduler preempting the job; both agents shut their workers "
        "down and exit with SignalException; the launch script died too (no 'job exited' line). evidence: "
        "'W1201 13:47:33.877000 18525 torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, "
        "shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 18525 got "
        "signal: 15'"),
    "mn-pcurve-rank-stopped": (
        f"collective_timeout: {W}, '--pg-timeout 20', 6 epochs; in epoch 2 local rank 1 on wtg-train-02 (rank 3) is "
        "SIGSTOPped; the other ranks' gloo all_reduce times out after 20 s, node 0's agent ends and closes the "
        "store, node 1's agent cannot send heartbeats, SIGKILLs the stopped rank and reports the failure. evidence: "
        "'[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed "
        "out waiting 20000ms for send operation to complete', '[rank2]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for "
        "recv operation to complete', 'W1201 13:48:59.492000 19361 torch/distributed/elastic/multiprocessing/api.py:1047] "
        "Unable to shutdown process 19593 via 15, forcefully exiting via 9', 'job exited with 1'"),
    "mn-pcurve-stuck-density": (
        f"training_divergence: {W}; turbine WTG-05's air-density sensor reads 0 from day 6, so its log-density "
        "feature is -inf and the loss is NaN on the first step; three ranks' finite-loss check raises "
        "FloatingPointError, the fourth sees their connections close. evidence: '[rank1]: FloatingPointError: loss "
        "is nan at epoch 1 step 1', '[rank0]: FloatingPointError: loss is nan at epoch 1 step 1', 'job exited with 1'"),
    "mn-pcurve-terminal-closed": (
        f"terminal_hangup: {W}, 8 epochs; in epoch 2 the terminal that ran the launch script closes: SIGHUP to the "
        "job's process group; both torchrun agents get it, pass SIGHUP to their workers and exit with "
        "SignalException; the launch script died too (no 'job exited' line). evidence: 'W1201 13:49:42.721000 21238 "
        "torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 21238 got signal: 1'"),
    "mn-pcurve-new-turbine": (
        f"collective_mismatch: {W}; '--turbine-weights' with TORCH_DISTRIBUTED_DEBUG=DETAIL; a turbine commissioned "
        "on the export's last record has one row, so rank 1's per-turbine bincount has 13 entries and the other "
        "ranks' 12; the all_reduce shapes differ and every rank raises. evidence: '[rank1]: RuntimeError: Detected "
        "mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=0, "
        "OpType=ALLREDUCE, TensorShape=[13], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float "
        "(default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false "
        "(default), memory_format=(nullopt))), but Rank 0 is running collective: CollectiveFingerPrint("
        "SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[12], TensorDtypes=Long, TensorDeviceTypes=TensorOptions("
        "dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   "
        "Tensor Tensor shapes: 13vs 12', 'job exited with 1'"),
    "mn-pcurve-stopped-quiet": (
        f"silent_hang: {W}, 8 epochs, '--pg-timeout 1800'; in epoch 2 local rank 1 on wtg-train-02 (rank 3) is "
        "SIGSTOPped right after its step-40 line; the other ranks wait in the next all_reduce with a 30-minute "
        "timeout, nothing more is printed, and the harness ended the job after 90 s (no 'job exited' line). "
        "evidence: '[wtg-train-02 rank3] 13:50:26 epoch 2 step 40/60 loss 0.0156' (the log's last line)"),
    "mn-pcurve-healthy-rerun-done": (
        f"no_failure: {W}; rerun of a finished 2-epoch run (not in this log) with '--epochs 2 --resume': every rank "
        "loads the checkpoint, no epoch is left, the job ends at once. evidence: '[wtg-train-01 rank0] 13:52:26 "
        "resumed from checkpoints/latest.pt (epoch 2)', '[wtg-train-01 rank0] 13:52:26 finished 2 epochs', "
        "'job exited with 0'"),
    "mn-pcurve-static-port-held": (
        "port_in_use: multi-node torchrun across two network hosts (Linux network namespaces wtg-train-01 10.77.0.1 "
        "and wtg-train-02 10.77.0.2 on one veth link), launched with the static rendezvous: 'GLOO_SOCKET_IFNAME=eth0 "
        "torchrun --nnodes 2 --nproc-per-node 2 --node-rank N --master-addr 10.77.0.1 --master-port 29924 train.py', "
        "both nodes' output in one console; torch 2.13.0+cpu, gloo; wind farm turbine power-curve / fault predictor. "
        "A notebook server (python -m http.server 29924) was left running on the master host; node 0's agent cannot "
        "listen on the master port and exits, node 1's agent keeps waiting on the notebook server as if it were the "
        "store; the harness ended the job after 120 s (no 'job exited' line). evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29924, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'"),
    "mn-pcurve-node1-oom": (
        f"host_oom_killed: {W}; '--cache-copies 1200' (1200 jittered copies of the train set kept in memory per "
        "rank); node 1's processes run in a 900 MB cgroup-v1 memory cgroup (the host's memory); while building the "
        "cache the kernel OOM killer kills local rank 0 on wtg-train-02 (dmesg: 'Memory cgroup out of memory: "
        "Killed process 22848 (python3)'); node 1's agent reports -9, node 0's ranks see the connection close. "
        "evidence: 'E1201 13:54:45.421000 22842 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -9) local_rank: 0 (pid: 22848) of binary: /tmp/corpus-venv-bb-a/bin/python3', '  exitcode  : -9 "
        "(pid: 22848)  (SIGKILL)', 'job exited with 1'"),
    "mn-pcurve-data-on-master-only": (
        f"worker_exception: {W}, '--pg-timeout 30'; the SCADA export was only copied to wtg-train-01: on wtg-train-02 "
        "the job directory's data/ is empty (a host-local mount); both of node 1's ranks raise FileNotFoundError "
        "loading the fleet table right after the process group forms, node 0's ranks see their connections close. "
        "evidence: \"[rank2]: FileNotFoundError: [Errno 2] No such file or directory: 'data/fleet.csv'\", '[rank1]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by "
        "peer [10.77.0.2]:62646. This is typically caused by a remote worker crashing. Check the logs of the remote "
        "worker before reporting an error. GLHF! 🏖️', 'job exited with 1'"),
    "mn-pcurve-master-firewall": (
        f"rendezvous_timeout: {W}, '--pg-timeout 30'; wtg-train-01's firewall opens only the rendezvous port to the "
        "other host (iptables: ACCEPT tcp dport 29927 on eth0, then DROP new TCP connections on eth0); the c10d "
        "rendezvous forms, but node 1's ranks cannot connect to the process-group store torchrun started on another "
        "port of the master (MASTER_PORT 41187), and node 0's ranks time out waiting for ranks 2 and 3 in "
        "init_process_group; no training step runs. evidence: '[E1201 13:57:59.818603592 socket.cpp:1028] [c10d] The "
        "client socket has timed out after 30000ms while trying to connect to (wtg-train-01, 41187).', "
        "'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/2', "
        "'job exited with 1'"),
}
