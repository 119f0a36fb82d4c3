"""Manifest notes for wave BW (p)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("OpenCLIP 3.3.0's own trainer (open_clip_train.main: synthetic dataset, DDP, AdamW, cosine LR, 'Train Epoch: E "
     "[n/256 (p%)] ... Loss: ...' every 2 steps, epoch_E.pt checkpoints every epoch under "
     "logs/clip-tiny-sd-synth/checkpoints) over torch 2.13.0+cpu (gloo, --device cpu), Python 3.11.7, training the "
     "team's tiny CLIP config clip-tiny-sd (ViT 2x64 at 32 px, text tower 2x64, context 32, SimpleTokenizer, embed 64; "
     "256 synthetic samples, batch 8 per rank, 8 steps per epoch), launched on two hosts (network namespaces "
     "clip-node-a 10.90.0.11 and clip-node-b 10.90.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m "
     "torch.distributed.run --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 10.90.0.11:PORT', both "
     "nodes' output in one console")
W3 = W.replace("on two hosts (network namespaces clip-node-a 10.90.0.11 and clip-node-b 10.90.0.12, one bridge)",
               "on three hosts (network namespaces clip-node-a/b/c 10.90.0.11-13, one bridge)").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
HOOK = ("the team's train_hooks.py (imported by its launcher train_clip.py before open_clip_train.main) wraps "
        "open_clip.loss.ClipLoss.forward")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}, 3 epochs; nothing injected, the run finishes. The constant loss (3.4657 = "
                      "ln 32) is OpenCLIP's synthetic data (one image and caption repeated). evidence: 'Train Epoch: "
                      "2 [256/256 (100%)]', c10d's 'has failed to shutdown the rendezvous 'none' due to an error of "
                      "type RendezvousConnectionError' on the second node at exit (benign), 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; an unlogged first job trained 2 epochs (epoch_1.pt, epoch_2.pt), this one "
                      "runs with '--epochs 4 --resume latest' and continues from the last checkpoint to the end. "
                      "evidence: 'Found latest resume checkpoint at ./logs/clip-tiny-sd-synth/checkpoints/epoch_2.pt.', "
                      "\"=> resuming checkpoint './logs/clip-tiny-sd-synth/checkpoints/epoch_2.pt' (epoch 2)\", "
                      "'Train Epoch: 3 [256/256 (100%)]', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, 3 epochs; clip-node-b's launcher starts 20 s after clip-node-a's, inside "
                         "the c10d join_timeout=40, and the job runs normally once it joins. evidence: 20 s between "
                         "the first two c10d 'The hostname of the client socket cannot be retrieved' warnings, "
                         "'Train Epoch: 2 [256/256 (100%)]', 'job exited with 0'",
    "audit-keyerror": f"worker_exception: {W}, 8 epochs; {HOOK} with a per-source loss audit whose weight table lacks "
                      "the source of global rank 3 (clip-node-b, local rank 1); from its 20th loss call it raises and "
                      "the other ranks lose the gloo connection. evidence: '[rank3]:   File "
                      "\"/tmp/wavebw-p-job/run/train_hooks.py\", line 13, in forward', \"[rank3]: KeyError: "
                      "'redcaps'\", peers 'Connection closed by peer [10.90.0.12]', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}, 8 epochs; {HOOK} and calls ctypes.string_at(0) on global rank 2 (clip-node-b, "
                 "local rank 0) at its 20th loss call (epoch 2): SIGSEGV, no Python traceback. evidence: 'failed "
                 "(exitcode: -11) local_rank: 0', 'exitcode  : -11 (pid: 2752)  (SIGSEGV)', 'Signal 11 (SIGSEGV) "
                 "received by PID 2752', peers 'Connection closed by peer [10.90.0.12]', 'job exited with 1'",
    "rank-memgrow": f"host_oom_killed: {W}, 8 epochs, the whole job in a 2500 MB cgroup-v1 memory limit; {HOOK} and on "
                    "global rank 3 (clip-node-b, local rank 1) keeps a 120 MB tensor per step from step 12, until "
                    "the kernel's memory-cgroup OOM killer kills that rank (dmesg: 'Memory cgroup out of memory: "
                    "Killed process 2997 (python)'). evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 2997)', "
                    "'Signal 9 (SIGKILL) received by PID 2997', peers 'Read error [10.90.0.12]:...: Connection reset "
                    "by peer', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}, 8 epochs, with logs/clip-tiny-sd-synth/checkpoints a 60 MB tmpfs (one checkpoint "
                  "with AdamW state is 39 MB): epoch_1.pt fits, the save of epoch_2.pt in OpenCLIP's main (main.py "
                  "line 521, torch.save) fails on rank 0; torch's zip writer reports it without errno text. "
                  "evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: "
                  "[enforce fail at inline_container.cc:672] . unexpected pos 15393792 vs 15393684', the other ranks' "
                  "'Connection closed by peer [10.90.0.11]', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}, 3 epochs with '--lr 1e3 --warmup 0': AdamW's decoupled weight decay at "
               "that rate blows the weights up and the loss is NaN from the second logged step on; OpenCLIP has no "
               "NaN check, so the run goes on to the end and exits 0. evidence: 'LR: 1000.000000 ... Loss: 3.4657', "
               "'LR: 982.962913 Logit Scale: 14.286 Contrastive_loss: nan (nan) Loss: nan (nan)', 'job exited with 0'",
}
NOTES["rank-stopped"] = (
    f"silent_hang: {W}, 8 epochs; once rank 0 logged 'Train Epoch: 2 [ 96/256' the harness sent SIGSTOP to global "
    "rank 1 (clip-node-a, local rank 1): the other ranks block in the next DDP all-reduce (gloo's default 30 min "
    "timeout) and nothing more is printed for a minute, until the harness, as a scheduler, sends SIGTERM to both "
    "launchers at 75 s and SIGKILL 15 s later (the stopped rank cannot exit). evidence: last progress line 'Train "
    "Epoch: 2 [ 96/256 (38%)]' at 23:39:22, then at 23:40:22 'Received 15 death signal, shutting down workers' (both "
    "launchers), 'Sending process ... closing signal SIGTERM', no 'job exited' line")
NOTES["preempt"] = (f"job_preempted: {W}, 8 epochs; once rank 0 logged 'Train Epoch: 2 [ 96/256' the harness, as a "
                    "scheduler at a time limit, sent SIGTERM to both nodes' torchrun launchers (SIGKILL 15 s later if "
                    "still running); they forward it to their workers and exit. evidence: 'Received 15 death signal, "
                    "shutting down workers' (both launchers), 'SignalException: Process 4988 got signal: 15', 'job "
                    "exited with 1'")
NOTES["terminal-hup"] = (f"terminal_hangup: {W}, 8 epochs; once rank 0 logged 'Train Epoch: 2 [ 96/256' the harness "
                         "sent SIGHUP to both nodes' torchrun launchers, as a closing SSH session/terminal would; they "
                         "forward it to their workers and exit. evidence: 'Received 1 death signal, shutting down "
                         "workers' (both launchers), 'SignalException: Process 5293 got signal: 1', 'job exited with 1'")
NOTES["node-b-missing"] = (f"rendezvous_timeout: {W.replace('both nodes', 'the node')}, 3 epochs, c10d "
                           "join_timeout=30; clip-node-b never starts (its launcher is not run), so clip-node-a's "
                           "torchrun waits for the second node and gives up after 30 s, before any worker starts. "
                           "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited "
                           "with 1'")
NOTES["ifname-node-b"] = (f"nccl_network_config: {W}, 3 epochs; clip-node-b's launcher runs with GLOO_SOCKET_IFNAME=ib0 "
                          "(no such interface in that host): both of its ranks fail in init_process_group, called by "
                          "OpenCLIP's init_distributed_device, while creating the gloo process group; its launcher "
                          "exits and clip-node-a's ranks wait until the harness ends the job after 100 s. evidence: "
                          "'RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
                          "device.cc:84] ifa != nullptr. Unable to find address for: ib0' (twice), 'failed (exitcode: "
                          "1) local_rank: 0', 'Received 15 death signal, shutting down workers', 'job exited with 1'")
NOTES["hist-shape-rank3"] = (
    f"collective_mismatch: {W}, 8 epochs; {HOOK} and from its 20th call every 10 steps all-reduces a histogram of the "
    "image features with 33 buckets on global rank 3 and 32 on the others: gloo detects the size mismatch and a rank "
    "on clip-node-b aborts (pid 9205, local rank 0), the others then lose their connections. evidence: 'terminate "
    "called after throwing an instance of 'gloo::EnforceNotMet'', 'op.preamble.length <= op.nbytes. 20 vs 16. "
    "Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?', "
    "'exitcode  : -6 (pid: 9205)  (SIGABRT)', '[rank1]: ... Read error [10.90.0.12]:39571: Connection reset by peer', "
    "'job exited with 1'")
NOTES["slow-rank1-pg-timeout"] = (
    f"collective_timeout: {W}, 8 epochs; the team's train_hooks.py sets a 20 s process-group timeout (wrapping "
    "torch.distributed.init_process_group, which OpenCLIP's init_distributed_device calls) and, wrapping "
    "ClipLoss.forward, leaves a 60 s debug pause on global rank 1 at its 20th loss call: the other ranks wait in "
    "OpenCLIP's ClipLoss.gather_features all_gather until gloo's 20 s timeout. evidence: '[rank2]:   File "
    "\"/tmp/venv-bw-p/lib/python3.11/site-packages/open_clip/loss.py\", line 56, in gather_features', '[rank2]: "
    "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting "
    "20000ms for recv operation to complete', '[rank0]: RuntimeError: ... Timed out waiting 20000ms for send operation "
    "to complete', 'job exited with 1'")
NOTES["wrong-master"] = (
    f"rendezvous_timeout: {W}, 3 epochs, c10d join_timeout=30; clip-node-b's launcher is given the wrong rendezvous "
    "endpoint 10.90.0.99:29919 (no such host): clip-node-a's torchrun waits for the second node and gives up after "
    "30 s, clip-node-b's store client retries for 60 s and fails. evidence: '[c10d] TCP client failed to "
    "connect/validate to host 10.90.0.99:29919 - retrying (try=0, timeout=60000ms, delay=419ms)', "
    "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'torch.distributed.DistNetworkError: The "
    "client socket has failed to connect to any network address of (10.90.0.99, 29919).', 'job exited with 1'")
NOTES["tiny-shm-node-b"] = (
    f"shm_exhausted: {W}, 3 epochs with '--workers 2' (OpenCLIP's DataLoader workers); clip-node-b runs in its own "
    "mount namespace with a 64 KB tmpfs on /dev/shm: global rank 3 cannot even create its DataLoader's worker queue "
    "semaphore, global rank 2's worker cannot allocate the shared-memory segment for a batch; clip-node-a's ranks then "
    "lose the connection. evidence: '[rank3]: OSError: [Errno 28] No space left on device' (multiprocessing "
    "SemLock in DataLoader start-up), '[rank2]: RuntimeError: Caught RuntimeError in DataLoader worker process 0.', "
    "'[rank2]: RuntimeError: unable to allocate shared memory(shm) for file </torch_10102_4204974547_0>: No space left "
    "on device (28)', 'Connection closed by peer [10.90.0.12]', 'job exited with 1'")
NOTES["rank-abort"] = (f"native_crash: {W}, 8 epochs; {HOOK} and, as a native sanity check would, calls os.abort() on "
                       "global rank 1 (clip-node-a, local rank 1) at its 20th loss call (epoch 2): SIGABRT, no Python "
                       "traceback. evidence: 'failed (exitcode: -6) local_rank: 1 (pid: 10483)', 'exitcode  : -6 "
                       "(pid: 10483)  (SIGABRT)', 'Signal 6 (SIGABRT) received by PID 10483', 'job exited with 1'")
NOTES["healthy-3nodes"] = (f"no_failure: {W3}, 3 epochs, 6 ranks (5 steps per epoch); nothing injected, the run "
                           "finishes. evidence: 'Running in distributed mode with multiple processes. Device: "
                           "cpu.Process (global: 5, local 1), total 6.', 'Train Epoch: 2 [240/256 (100%)]', 'job "
                           "exited with 0'")
WS = W.replace("--rdzv-backend c10d --rdzv-endpoint 10.90.0.11:PORT", "--node-rank K --master-addr 10.90.0.11 "
              "--master-port 29914")
NOTES["port-taken"] = (f"port_in_use: {WS}, 3 epochs; a stale process (python -m http.server) holds "
                       "10.90.0.11:29914, the master port, "
                       "on clip-node-a before the job starts: node 0's torchrun cannot create its TCPStore and exits; "
                       "clip-node-b's torchrun waits on the stale port until the harness ends the job after 100 s. "
                       "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any "
                       "local network address. port: 29914, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                       "address already in use', 'job exited with 1'")
NOTES["old-webdataset-node-b"] = (
    f"library_version_mismatch: {W}, 3 epochs; clip-node-b's environment has PYTHONPATH=/tmp/bw-p-wds, a site "
    "directory with webdataset 0.1.103 (OpenCLIP's training extra needs >=0.2.5): both of its ranks die importing "
    "open_clip_train.data (train_clip.py line 13 -> open_clip_train/main.py line 32 -> data.py line 16 'import "
    "webdataset'), whose old iterators module seeds random with a tuple, which Python 3.11 rejects; clip-node-a's "
    "ranks wait for them until the harness ends the job after 100 s. evidence: 'File "
    "\"/tmp/bw-p-wds/webdataset/iterators.py\", line 148, in <module>', 'TypeError: The only supported seed types are: "
    "None,' (twice), 'failed (exitcode: 1) local_rank: 1', 'host      : clip-node-b', 'job exited with 1'")
