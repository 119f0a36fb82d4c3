"""Manifest notes for wave BU (i)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("fairscale 0.4.13 (OSS sharding AdamW state + ShardedDataParallel) over torch 2.13.0+cpu (gloo), Python 3.11.7: "
     "the team's churn-risk tabular classifier (project/train.py: a 243k-parameter MLP over 48 generated features, 6 "
     "classes, 6144 training rows, batch 32 per rank, cosine LR with one warm-up epoch, OSS.clip_grad_norm(1.0), "
     "python logging '<time> LEVEL [host rank r/W] name: msg', rank 0 logs the loss every 8 steps, every rank logs "
     "'epoch E done: ... val_acc', OSS.consolidate_state_dict on rank 0 -> checkpoints/epochNNN.pt + last.pt every "
     "epoch, resumed from last.pt when present, a per-class precision/recall table after the last epoch), launched on "
     "two hosts (network namespaces fs-worker-a 10.83.0.11 and fs-worker-b 10.83.0.12, one bridge) with "
     "'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 --nproc-per-node 2 --node-rank K "
     "--master-addr 10.83.0.11', 4 ranks, 48 steps per epoch, both nodes' output in one console")
W3 = W.replace("two hosts (network namespaces fs-worker-a 10.83.0.11 and fs-worker-b 10.83.0.12, one bridge)",
               "three hosts (network namespaces fs-worker-a/b/c 10.83.0.11-13, one bridge)").replace(
    "--nnodes 2", "--nnodes 3").replace("4 ranks, 48 steps per epoch, both nodes'", "6 ranks, 32 steps per epoch, all "
                                        "nodes'")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}, 8 epochs, nothing injected; every epoch validates and saves, rank 0 prints "
                      "the evaluation table and both launchers exit 0. Each epoch every rank also logs fairscale's "
                      "'ShardedDDP detected that the trainable params changed, either because of eval/train mode or "
                      "parameter freezing/unfreeze.' WARNING (the model.eval()/train() switch for validation; harmless). "
                      "evidence: 'churn.train: macro avg                         0.5680     1536', 'training "
                      "finished', 'job exited with 0'",
    "healthy-3nodes": f"no_failure: {W3}, 6 epochs, nothing injected; finishes with the evaluation table. evidence: "
                      "'world size 6', 'churn.train: macro avg                         0.5640     1536', 'job exited "
                      "with 0'",
    "healthy-resume": f"no_failure: {W}, 8 epochs; before this job an unlogged 3-epoch run of the same command left "
                      "checkpoints/last.pt, so every rank resumes at epoch 3 and trains to the end. evidence: "
                      "'resumed from checkpoints/last.pt (finished epoch 2, val_acc 0.5482)' (all 4 ranks), 'epoch 7 "
                      "done', 'macro avg', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, 6 epochs, with the c10d rendezvous ('--rdzv-backend c10d "
                         "--rdzv-endpoint 10.83.0.11:29844 --rdzv-conf join_timeout=40'); fs-worker-b's launcher "
                         "starts 20 s after fs-worker-a's, inside the join timeout, so the job waits and then trains "
                         "normally. evidence: 'node_rank is only used for static rdzv_backend. It will be ignored for "
                         "rdzv_backend=c10d.', 'churn.train: macro avg                         0.5707     1536', 'job "
                         "exited with 0'",
    "label-keyerror": f"worker_exception: {W}, 40 epochs; the team's per-step hook (step_hooks.py, called by train.py "
                      "after each step) tallies labels by risk tier on the last rank every 100 steps, and its TIER "
                      "table lacks class 5 ('churned'): global rank 3 (local rank 1 on fs-worker-b) raises at step 100 "
                      "(epoch 2); the others then lose the gloo connection. evidence: '[rank3]:   File "
                      "\"/tmp/wavebu-i-job/run/step_hooks.py\", line 15, in after_step', '[rank3]: KeyError: 5', peers "
                      "'Connection closed by peer [10.83.0.12]', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}, 40 epochs; the per-step hook (step_hooks.py, standing for the team's C helper "
                 "reading a freed buffer) calls ctypes.string_at(0) on global rank 2 (local rank 0 on fs-worker-b) at "
                 "step 100: SIGSEGV, no Python traceback from it. evidence: 'failed (exitcode: -11) local_rank: 0', "
                 "'exitcode  : -11 (pid: 9760)  (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID 9760', peers 'Read "
                 "error [10.83.0.12]:46222: Connection reset by peer', 'job exited with 1'",
    "rank-sigkill": f"host_oom_killed: {W}, 40 epochs; once rank 0 logged 'epoch 2 step 24/48' the harness SIGKILLed "
                    "global rank 3 (local rank 1 on fs-worker-b) from outside, as the kernel OOM killer would. "
                    "evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 9919)', 'exitcode  : -9 (pid: 9919)  "
                    "(SIGKILL)', surviving ranks 'Connection closed by peer [10.83.0.12]' / 'Connection reset by "
                    "peer', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}, 40 epochs, with checkpoints/ a 2 MB tmpfs on fs-worker-a (a consolidated "
                  "checkpoint with AdamW state is ~2.9 MB): rank 0's first torch.save at the end of epoch 0 fails; "
                  "torch's zip writer reports it without errno text; the other ranks then fail in the dist.barrier "
                  "after the save. evidence: '[rank0]:     torch.save(state, tmp)', '[rank0]: RuntimeError: "
                  "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] "
                  ". unexpected pos 1726784 vs 1726672', peers 'Connection closed by peer [10.83.0.11]', 'job exited "
                  "with 1'",
    "lr-typo": f"training_divergence: {W}, 6 epochs, launched with '--lr 1e3' (a typo for 1e-3): AdamW's decoupled "
               "weight decay (lr*wd = 10) and the huge steps blow the weights up within the warm-up; the loss overflows "
               "to nan at step 32 and stays nan; neither fairscale nor the script checks for it, so the run finishes "
               "'normally' with chance accuracy and exit 0. evidence: 'epoch 0 step 24/48 (global 24) loss "
               "855480438554831131508736.0000', 'epoch 0 step 32/48 (global 32) loss nan grad_norm nan', 'train_loss "
               "nan val_loss nan val_acc 0.1764', 'job exited with 0'",
    "rank-stopped": f"silent_hang: {W}, 40 epochs; once rank 0 logged 'epoch 2 step 24/48' the harness SIGSTOPped "
                    "global rank 1 (local rank 1 on fs-worker-a): the other ranks block in their next gloo "
                    "collective with no error (the default 30-minute gloo timeout); 87 s later the harness, as a "
                    "scheduler, sent SIGTERM to both launchers and SIGKILLed the job 15 s after that (fs-worker-a's "
                    "launcher still waiting for the stopped worker; no 'job exited' line). evidence: last progress "
                    "line 'epoch 2 step 24/48 (global 120) loss 1.3366', then 'Received 15 death signal, shutting down "
                    "workers', 'SignalException: Process 10476 got signal: 15'",
    "preempt": f"job_preempted: {W}, 40 epochs; once rank 0 logged 'epoch 2 step 24/48' the harness, as a scheduler at "
               "a time limit, sent SIGTERM to both nodes' launchers; they forward it to their workers and exit. "
               "evidence: 'Received 15 death signal, shutting down workers' (both launchers), 'Sending process ... "
               "closing signal SIGTERM', 'SignalException: Process 12179 got signal: 15', 'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}, 40 epochs; once rank 0 logged 'epoch 2 step 24/48' the harness sent SIGHUP "
                    "to both nodes' launchers, as a closing SSH session would; they forward it and exit. evidence: "
                    "'Received 1 death signal, shutting down workers' (both launchers), 'Sending process 12338 closing "
                    "signal SIGHUP', 'SignalException: Process 12308 got signal: 1', 'job exited with 1'",
    "node1-missing": f"rendezvous_timeout: {W.replace('both nodes', 'the node')}, 40 epochs, with the c10d rendezvous "
                     "(join_timeout=40); fs-worker-b never starts (its launcher is not run), so fs-worker-a's torchrun "
                     "waits for the second node and gives up after 40 s, before any worker starts. evidence: 'raise "
                     "RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job "
                     "exited with 1'",
    "port-taken": f"port_in_use: {W}, 40 epochs; a stale process (python -m http.server) holds 10.83.0.11:29844, the "
                  "master port, on fs-worker-a before the job starts: node 0's torchrun cannot create its TCPStore "
                  "and exits at once; fs-worker-b's launcher keeps trying to reach the store until the harness ends "
                  "the job after 120 s. evidence: 'torch.distributed.DistNetworkError: The server socket has failed "
                  "to listen on any local network address. port: 29844, useIpv6: false, code: -98, name: EADDRINUSE, "
                  "message: address already in use', 'job exited with 1'",
    "ifname-node1": f"nccl_network_config: {W}, 40 epochs, but fs-worker-b's environment says GLOO_SOCKET_IFNAME=ib0 "
                    "(an interface that host does not have): both of its ranks fail creating the gloo device in "
                    "init_process_group; fs-worker-a's ranks wait in the process-group setup until the harness ends "
                    "the job after 150 s (SIGTERM to the launchers). evidence: 'RuntimeError: [enforce fail at "
                    "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to "
                    "find address for: ib0' (twice), 'Received 15 death signal', 'job exited with 1'",
    "pred-hist": f"collective_mismatch: {W}, 40 epochs; the team's per-step hook (step_hooks.py) all_reduces a "
                 "prediction histogram every 16 steps built with torch.bincount(logits.argmax(1)) without minlength, "
                 "so its length depends on which classes each rank predicted (at step 16: 6 on rank 0, 5 on the "
                 "others, confirmed by the pred-hist-debug run of the same seed). Gloo does not detect it: every rank "
                 "hangs in that all_reduce with no error until the harness ends the job after 150 s. evidence: last "
                 "progress line 'epoch 0 step 8/48 (global 8) loss 1.7321', then nothing until 'Received 15 death "
                 "signal, shutting down workers' (both launchers), 'job exited with 1'",
    "pred-hist-debug": f"collective_mismatch: {W}, 40 epochs, with TORCH_DISTRIBUTED_DEBUG=DETAIL on both nodes, and "
                       "the same per-step prediction-histogram hook as pred-hist (torch.bincount without minlength, "
                       "all_reduced every 16 steps): the debug wrapper checks the collective fingerprints and every "
                       "rank raises at step 16. evidence: '[rank3]: RuntimeError: Detected mismatch between "
                       "collectives on ranks. Rank 3 is running collective: CollectiveFingerPrint(SequenceNumber=156, "
                       "OpType=ALLREDUCE, TensorShape=[5]', '[rank0]: ... Rank 0 is running collective: "
                       "CollectiveFingerPrint(SequenceNumber=156, OpType=ALLREDUCE, TensorShape=[6]', 'job exited "
                       "with 1'",
    "fairscale-old-node1": f"library_version_mismatch: {W}, 40 epochs, but fs-worker-b's environment has "
                           "PYTHONPATH=/tmp/bui-fs-030, a site directory with fairscale 0.3.0 (the other host runs "
                           "0.4.13): the two versions bucket and reduce the gradients differently (fs-worker-b's ranks "
                           "log 'ShardedDDP bucket size: 0.00M parameters', fs-worker-a's '0.23M'), so the first "
                           "backward's reduce calls do not match; gloo aborts global rank 3 and the others see the "
                           "connection drop. evidence: 'File \"/tmp/bui-fs-030/fairscale/nn/data_parallel/"
                           "sharded_ddp.py\", line 446, in reduce', \"terminate called after throwing an instance of "
                           "'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. 1252 vs 4. Received data size "
                           "doesn't match expected size. Is there a distributed collective mismatch in your code?', "
                           "'exitcode  : -6 (pid: 14814)  (SIGABRT)', 'job exited with 1'",
}
NOTES["wrong-master"] = (
    f"rendezvous_timeout: {W}, 40 epochs, with the c10d rendezvous ('--rdzv-endpoint MASTER:29849 --rdzv-conf "
    "join_timeout=40'), but fs-worker-b's launcher is given --master-addr/--rdzv-endpoint 10.83.0.99 (a stale address "
    "in that node's launch script): it retries the store for 60 s ('No route to host') while fs-worker-a's torchrun "
    "waits for the second node and gives up after 40 s; no worker ever starts. evidence: 'TCP client failed to "
    "connect/validate to host 10.83.0.99:29849 - retrying (try=1, timeout=60000ms, delay=758ms)', "
    "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api."
    "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.', 'job "
    "exited with 1'")
