"""Manifest notes for wave BU (h)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("nanoGPT (karpathy/nanoGPT commit 3adf61e: its own train.py/model.py/configurator.py, two CPU patches + an "
     "optional per-iteration hook, see README) over torch 2.13.0+cpu (gloo, device='cpu', float32, compile=False), "
     "Python 3.11.7: a tiny character-level GPT (2 layers, 2 heads, n_embd 64, block 64, 0.11M parameters, vocab 103) "
     "on Python's bundled pydoc topic texts, config/train_pydocs_char.py (batch_size 8, gradient_accumulation_steps "
     "12 split over the ranks, 240 iterations, 'iter N: loss ...' every 2, 'step N: train loss ..., val loss ...' and "
     "ckpt.pt to out-pydocs-char every 40), launched on two hosts (network namespaces gpt-node-01 10.82.0.11 and "
     "gpt-node-02 10.82.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 "
     "--nproc-per-node 2 --node-rank K --master-addr 10.82.0.11', both nodes' output in one console")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "gpt-node-02 10.82.0.12, one bridge", "gpt-node-02 10.82.0.12, gpt-node-03 10.82.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
AT = "once rank 0 logged 'iter 100: loss 2.7652'"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'step 240: train loss "
                      "2.5381, val loss 2.4127', 'saving checkpoint to out-pydocs-char', 'iter 240: loss 2.3415', "
                      "'job exited with 0'; the only warnings are nanoGPT's own (FutureWarning: "
                      "`torch.cuda.amp.GradScaler(args...)` is deprecated, once per rank) and c10d's 'The hostname of "
                      "the client socket cannot be retrieved. err=-3'",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks); a plain run to the end: nothing injected. evidence: 'step 240: "
                      "train loss 2.5348, val loss 2.4490', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job trained 120 iterations and saved "
                      "out-pydocs-char/ckpt.pt; the logged job resumes from it with --init_from=resume (all four "
                      "ranks load the checkpoint) and trains to 240. evidence: 'Overriding: init_from = resume', "
                      "'Resuming training from out-pydocs-char', 'step 120: ...' as its first eval, 'step 240: train "
                      "loss', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, with the c10d rendezvous ('--rdzv-backend c10d --rdzv-endpoint "
                         "10.82.0.11:29834 --rdzv-conf join_timeout=40'); gpt-node-02's launcher starts 20 s after "
                         "gpt-node-01's (a slow node), within the join timeout, and the run trains to the end. "
                         "evidence: 'node_rank is only used for static rdzv_backend. It will be ignored for "
                         "rdzv_backend=c10d.', 'step 240: train loss 2.5381, val loss 2.4127', 'job exited with 0'",
    "shard-keyerror": f"worker_exception: {W}; the team's per-iteration hook (train_hooks.py, called by train.py "
                      "after each optimizer step) audits tokens per data shard from iteration 90 with a rank->shard "
                      "table written for a 3-rank setup; global rank 3 (local rank 1 on gpt-node-02) raises at "
                      "iteration 90, the other ranks then lose the gloo connection. evidence: '[rank3]:   File "
                      "\"/tmp/wavebu-h-job/run/train_hooks.py\", line 7, in on_iter', '[rank3]:     shard = "
                      "SHARD_OF_RANK[rank]', '[rank3]: KeyError: 3', 'rank      : 3 (local_rank: 1)' / 'exitcode  : 1' "
                      "under 'Root Cause (first observed failure)', peers 'Connection closed by peer [10.82.0.12]'",
    "rank-segv": f"native_crash: {W}; the per-iteration hook calls ctypes.string_at(0) on global rank 2 (local rank "
                 "0 on gpt-node-02) at iteration 100: SIGSEGV, no Python traceback. evidence: 'failed (exitcode: -11) "
                 "local_rank: 0', 'exitcode  : -11 (pid: 7674)  (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID "
                 "7674', peers 'Connection closed by peer [10.82.0.12]'",
    "rank-sigkill": f"host_oom_killed: {W}; {AT} the harness SIGKILLed global rank 3 (local rank 1 on gpt-node-02) "
                    "from outside, as the kernel OOM killer would (no kernel message in the log). evidence: 'failed "
                    "(exitcode: -9) local_rank: 1', 'exitcode  : -9 (pid: 7793)  (SIGKILL)', 'Signal 9 (SIGKILL) "
                    "received by PID 7793', the other ranks' 'Connection closed by peer [10.82.0.12]'",
    "ckpt-tmpfs": f"disk_full: {W}, with out-pydocs-char a 1 MB tmpfs (ckpt.pt with the AdamW state is ~1.3 MB): the "
                  "first save at step 40 fails in rank 0's torch.save (train.py line 293); torch's zip writer "
                  "reports it without errno text; the other ranks then fail in the next all-reduce. evidence: "
                  "'saving checkpoint to out-pydocs-char', '[rank0]: RuntimeError: basic_ios::clear: iostream "
                  "error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 1041792 "
                  "vs 1041744', peers 'Connection closed by peer [10.82.0.11]', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}, launched with '--learning_rate=30.0 --grad_clip=0.0 --warmup_iters=0' "
               "(no warmup, no clipping): the loss is nan from iteration 2 on; nanoGPT has no NaN check, so the job "
               "keeps training, evaluating and saving checkpoints of NaN weights and exits 0. evidence: 'iter 0: loss "
               "4.5196', 'iter 2: loss nan', 'step 40: train loss nan, val loss nan', 'iter 240: loss nan', 'job "
               "exited with 0'",
    "rank-stopped": f"silent_hang: {W}; {AT} the harness sent SIGSTOP to global rank 1 (local rank 1 on gpt-node-01): "
                    "the other ranks block in the next gloo all-reduce (default 30 min timeout), nothing more is "
                    "printed; after 110 s the harness, as a scheduler at a time limit, sent SIGTERM to both launchers "
                    "and SIGKILL to the whole job 15 s later (no 'job exited' line). evidence: last progress 'iter "
                    "100: loss 2.7652', then only 'Received 15 death signal, shutting down workers' (both launchers), "
                    "'Sending process ... closing signal SIGTERM', 'SignalException: Process 8223 got signal: 15'",
    "preempt": f"job_preempted: {W}; {AT} the harness, as a scheduler preempting the job, sent SIGTERM to both nodes' "
               "torchrun launchers (SIGKILL 15 s later if still running); they forward it to their workers and exit. "
               "evidence: 'Received 15 death signal, shutting down workers' (both launchers), 'Sending process ... "
               "closing signal SIGTERM', 'SignalException: Process 8416 got signal: 15', 'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; {AT} the harness sent SIGHUP to both nodes' torchrun launchers, as a "
                    "closing SSH session/terminal would; they forward it to their workers and exit. evidence: "
                    "'Received 1 death signal, shutting down workers' (both launchers), 'Sending process 8541 closing "
                    "signal SIGHUP', 'job exited with 1'",
    "node1-missing": f"rendezvous_timeout: {W.replace('both nodes', 'the node')}, with the c10d rendezvous "
                     "('--rdzv-backend c10d --rdzv-endpoint 10.82.0.11:29833 --rdzv-conf join_timeout=40'); "
                     "gpt-node-02 never starts (its launcher is not run), so node 0's torchrun waits for the second "
                     "node and gives up after 40 s, before any worker starts. evidence: 'raise "
                     "RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                     "'job exited with 1'",
    "port-taken": f"port_in_use: {W}; a stale process (python -m http.server) holds 10.82.0.11:29834, the master "
                  "port, on gpt-node-01 before the job starts: node 0's torchrun cannot create its TCPStore and "
                  "exits; node 1's launcher (its TCP connect reaches the stale server) waits silently until the "
                  "harness ends the job after 120 s. evidence: 'torch.distributed.DistNetworkError: The server "
                  "socket has failed to listen on any local network address. port: 29834, useIpv6: false, code: -98, "
                  "name: EADDRINUSE, message: address already in use', 'job exited with 1'",
}
NOTES["ifname-node1"] = (
    f"nccl_network_config: {W}; gpt-node-02's launcher runs with GLOO_SOCKET_IFNAME=ib0, an interface that host does "
    "not have (its only NIC is eth0): both of its ranks fail in init_process_group (train.py line 84) while creating "
    "the gloo device; gpt-node-01's ranks wait in the process-group setup until the harness ends the job after 150 s "
    "(SIGTERM to the launchers). evidence: 'RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/"
    "gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ib0' (twice), 'host      : "
    "gpt-node-02', 'Received 15 death signal, shutting down workers', 'job exited with 1'")
NOTES["hist-shape-rank3"] = (
    f"collective_mismatch: {W}; the team's per-iteration hook all-reduces a per-rank token histogram every 30 "
    "iterations from iteration 60; global rank 3 builds it with 104 buckets, the others with 103, so the ranks "
    "all-reduce tensors of different sizes: gloo on global rank 2 (local rank 0 on gpt-node-02) aborts the process "
    "(SIGABRT), the others then lose their connections. evidence: 'terminate called after throwing an instance of "
    "'gloo::EnforceNotMet'', 'what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
    "pair.cc:456] op.preamble.length <= op.nbytes. 52 vs 48. Received data size doesn't match expected size. Is there "
    "a distributed collective mismatch in your code?', '[rank3]:     dist.all_reduce(hist)', 'exitcode  : -6 (pid: "
    "11070)  (SIGABRT)', 'job exited with 1'")
NOTES["old-typing-ext-node1"] = (
    f"library_version_mismatch: {W}; gpt-node-02's environment has PYTHONPATH=/tmp/bu-h-pydeps, a site directory "
    "holding typing_extensions 4.7.1 (torch 2.13 needs a newer one): 'import torch' fails in gpt-node-02's launcher "
    "itself, so no worker starts there; gpt-node-01's launcher waits in the static rendezvous, printing nothing, until "
    "the harness ends the job after 120 s (SIGTERM; exit 143). evidence: 'File \"/root/.pyenv/versions/3.11.7/lib/"
    "python3.11/site-packages/torch/__init__.py\", line 35, in <module>', 'ImportError: cannot import name 'TypeIs' "
    "from 'typing_extensions' (/tmp/bu-h-pydeps/typing_extensions.py)', 'job exited with 143'")
NOTES["wrong-master"] = (
    f"rendezvous_timeout: {W}, with the c10d rendezvous ('--rdzv-backend c10d --rdzv-endpoint MASTER:29838 "
    "--rdzv-conf join_timeout=40'); gpt-node-02 is launched with --master-addr 10.82.0.99 (a stale address, no host "
    "there), so it never reaches the store on 10.82.0.11: gpt-node-01's launcher gives up after the 40 s join timeout, "
    "gpt-node-02's after its 60 s store connect timeout; no worker starts. evidence: 'TCP client failed to "
    "connect/validate to host 10.82.0.99:29838 - retrying (try=0, timeout=60000ms, delay=654ms)', '(errno: 113 - No "
    "route to host)', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'torch.distributed.elastic."
    "rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for "
    "details.', 'job exited with 1'")
