"""Manifest notes for wave CE (x)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("pytorch-metric-learning 2.9.0 over torch 2.13.0+cpu (gloo), Python 3.11.7: a small embedding model (MLP trunk "
     "32-64-64 + linear embedder to 16-d, both in DDP) trained by the team's train_embed.py with PML's "
     "trainers.MetricLossOnly (TripletMarginLoss(margin 0.1, CosineSimilarity) in DistributedLossWrapper, "
     "MultiSimilarityMiner in DistributedMinerWrapper, MPerClassSampler m=4, Adam lr 1e-3, global batch 128, 20 "
     "iterations x 6 epochs, each rank on its own shard) on synthetic class-clustered features (40 classes); each epoch "
     "ends with PML's GlobalEmbeddingSpaceTester + AccuracyCalculator (CustomKNN, precision_at_1, MAP@R) on rank 0 "
     "and a checkpoint (c_f.save_model + torch.save of the optimizers) under ckpt/; launched on two hosts (network "
     "namespaces emb-cpu-31 10.115.0.11 and emb-cpu-32 10.115.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python "
     "-m torch.distributed.run --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.115.0.11', both nodes' "
     "output in one console; every rank logs (PML's 'PML' logger and the script's 'embed-train' logger, tqdm bars)")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "emb-cpu-32 10.115.0.12, one bridge", "emb-cpu-32 10.115.0.12, emb-cpu-33 10.115.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
PEERS = "the other ranks then fail in their next gloo collective"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'epoch 6 val: "
                      "precision_at_1=1.0000 MAP@R=0.9546', 'training done: 6 epochs, checkpoints [...]', 'job exited "
                      "with 0'; the only warnings are c10d's 'The hostname of the client socket cannot be retrieved. "
                      "err=-3' and a UserWarning from PML's base_trainer ('Converting a tensor with requires_grad=True "
                      "to a scalar may lead to unexpected behavior.')",
    "healthy-3nodes-arcface": f"no_failure: {W3} (6 ranks), --loss arcface (ArcFaceLoss over 40 classes) --epochs 4 "
                              "--global-batch 96 (16 per rank); a plain run to the end: nothing injected. evidence: "
                              "'[rank4]: emb-cpu-33: gloo process group up, world 6', 'epoch 4 val: "
                              "precision_at_1=0.9375 MAP@R=0.7332', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) 3-epoch job wrote ckpt/*_epoch_1..3; "
                      "the logged job runs with --resume --epochs 8 --lr 5e-4 and continues from epoch 4. nothing "
                      "injected. evidence: 'resumed trunk/embedder from ckpt epoch 3', 'epoch 8 val: "
                      "precision_at_1=0.9950 MAP@R=0.9596', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, with c10d rendezvous (--rdzv-backend c10d --rdzv-endpoint "
                         "10.115.0.11:30164 --rdzv-conf join_timeout=40); emb-cpu-32 starts 20 s after emb-cpu-31 "
                         "(within the join timeout). nothing injected. evidence: 'epoch 6 val: precision_at_1=0.9925 "
                         "MAP@R=0.9619', 'job exited with 0'",
    "category-keyerror": f"worker_exception: {W}; the team's end-of-epoch hook (train_hooks.py on_epoch, a per-category "
                         "count) uses a category table written for a 32-class catalogue; from epoch 2 rank 2 "
                         f"(emb-cpu-32) looks up label 32 and raises KeyError; {PEERS}. evidence: '[rank2]:     "
                         "per_cat[CATEGORY[y]] = per_cat.get(CATEGORY[y], 0) + 1', '[rank2]: KeyError: 32', "
                         "'Connection closed by peer [10.115.0.12]', 'job exited with 1'",
    "rank1-segv": f"native_crash: {W}; the team's per-iteration hook calls ctypes.string_at(0) (a NULL read in a 'C "
                  "helper') on rank 1 (emb-cpu-31) at epoch 3 iteration 7: SIGSEGV; the other ranks see the "
                  "connection reset. evidence: 'failed (exitcode: -11) local_rank: 1', 'exitcode  : -11 (pid: "
                  "2772)  (SIGSEGV)', 'Read error [10.115.0.11]:25275: Connection reset by peer', 'job exited with 1'",
    "rank3-leak-oom": f"host_oom_killed: {W}; the whole job runs in a cgroup-v1 memory limit of 3 GiB; from epoch 2 "
                      "the team's per-iteration hook on rank 3 (emb-cpu-32) keeps a 64 MB tensor per iteration, until "
                      "the kernel's OOM killer SIGKILLs rank 3 (no Python traceback on it); "
                      f"{PEERS}. evidence: 'failed (exitcode: -9) local_rank: 1', 'exitcode  : -9 (pid: 2892)  "
                      "(SIGKILL)', 'Connection closed by peer [10.115.0.12]', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}; ckpt/ is a 150 KiB tmpfs: the epoch-2 checkpoint fills it and rank 0's "
                  "torch.save of the optimizer state fails; " + PEERS + " (in the barrier after the checkpoint). The log "
                  "has no 'No space left on device' text: torch's zip writer reports the short write only as an "
                  "iostream error. evidence: '[rank0]:     torch.save({k: o.state_dict() for k, o in opts.items()}, "
                  "ck / f\"optimizers_epoch_{tr.epoch}.pth\")', '[rank0]: RuntimeError: basic_ios::clear: iostream "
                  "error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 10560 "
                  "vs 10448', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}, with --lr 1e30: the weights blow up in the first Adam step and the metric "
               "loss is NaN at iteration 2 of epoch 1 on every rank; the script's non-finite-loss check raises on all "
               "four ranks. evidence: 'ERROR embed-train [rank2]: epoch 1 iter 2: total_loss=nan is not finite; "
               "aborting this run', '[rank0]: FloatingPointError: non-finite metric loss nan at epoch 1 iter 2', "
               "'job exited with 1'",
    "rank1-stopped": f"silent_hang: {W}; rank 1 (emb-cpu-31) is sent SIGSTOP right after it logs 'epoch 3 iter "
                     "10/20'; the other ranks block in their next gloo collective without a timeout (pg timeout "
                     "1800 s) and print nothing; at 60 s the harness, acting as the scheduler, SIGTERMs both "
                     "launchers and SIGKILLs the job 15 s later. evidence: last progress '[rank1]: epoch 3 iter 10/20 "
                     "total_loss=0.23749', then 'Received 15 death signal, shutting down workers', "
                     "'SignalException: Process 3237 got signal: 15'",
    "preempt": f"job_preempted: {W}; when epoch 2 iteration 10 is logged the harness, acting as the scheduler, "
               "sends SIGTERM to both launchers (SIGKILL 15 s later if needed). evidence: 'Received 15 death signal, "
               "shutting down workers', 'Sending process 3689 closing signal SIGTERM', 'SignalException: Process 3685 "
               "got signal: 15'",
    "terminal-hup": f"terminal_hangup: {W}; when epoch 2 iteration 10 is logged both launchers get SIGHUP (the "
                    "terminal that started them closed). evidence: 'Received 1 death signal, shutting down workers', "
                    "'Sending process 3955 closing signal SIGHUP', 'SignalException: Process 3928 got signal: 1'",
    "node-b-missing": f"rendezvous_timeout: {W}, with c10d rendezvous (--rdzv-backend c10d --rdzv-endpoint "
                      "10.115.0.11:30164 --rdzv-conf join_timeout=40); the second node (emb-cpu-32) never starts "
                      "(its launcher is not run), so emb-cpu-31's launcher waits alone for the join timeout and gives "
                      "up; no training line is printed. evidence: 'raise RendezvousTimeoutError', 'torch.distributed."
                      "elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "port-taken": f"port_in_use: {W}; before the job a stale process (a leftover 'python -m http.server' on "
                  "10.115.0.11:30165, started by the harness and not logged) holds the master port: the launcher on "
                  "emb-cpu-31 cannot start its TCPStore and exits at once; the launcher on emb-cpu-32 waits silently "
                  "until the harness, acting as the scheduler, ends the job at 90 s. evidence: 'torch.distributed."
                  "DistNetworkError: The server socket has failed to listen on any local network address. port: "
                  "30165, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
                  "with 1'",
    "ifname-node-b": f"nccl_network_config: {W}, except that emb-cpu-32 is launched with GLOO_SOCKET_IFNAME=ib0, an "
                     "interface that host does not have: both its ranks fail creating the gloo device in "
                     "init_process_group; emb-cpu-31's ranks then wait in init until the harness, acting as the "
                     "scheduler, ends the job at 100 s. evidence: 'RuntimeError: [enforce fail at /__w/pytorch/pytorch/"
                     "third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: "
                     "ib0', 'host      : emb-cpu-32', 'SignalException: Process 5244 got signal: 15', 'job exited with 1'",
    "embedder-shape-rank3": f"collective_mismatch: {W}; the team's per-iteration hook all_reduces the flattened "
                            "embedder weights every 10 iterations from epoch 2 (a drift check), and rank 3 "
                            "(emb-cpu-32) pads its tensor by one element: gloo on rank 2 receives 524 bytes where it "
                            "expects 520 and aborts the process (SIGABRT), then the other ranks see the connection "
                            "reset/closed. evidence: 'op.preamble.length <= op.nbytes. 524 vs 520. Received data size "
                            "doesn't match expected size. Is there a distributed collective mismatch in your code?', "
                            "'exitcode  : -6 (pid: 6102)  (SIGABRT)', 'job exited with 1'",
    "slow-rank0-pg20": f"collective_timeout: {W}, with --pg-timeout 20 (init_process_group timeout 20 s); the team's "
                       "per-iteration hook makes rank 0 (emb-cpu-31) sleep 60 s at epoch 3 iteration 4 (a catalogue "
                       "index rebuild from slow storage); the other ranks wait in the miner's all_gather until gloo's "
                       "20 s timeout fires, then the launchers tear the job down. evidence: '[rank3]: RuntimeError: "
                       "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out "
                       "waiting 20000ms for send operation to complete', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/"
                       "third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv "
                       "operation to complete', 'job exited with 1'",
    "workers-tiny-shm": f"shm_exhausted: {W}, with --workers 2 (PML's trainer builds its DataLoader with 2 worker "
                        "processes); on emb-cpu-32 /dev/shm is a 16 KiB tmpfs (a container started with a tiny shm "
                        "size): when PML's initialize_dataloader creates the DataLoader iterator, the worker queue's "
                        "multiprocessing Lock (a POSIX semaphore in /dev/shm) cannot be created on ranks 2 and 3; "
                        f"{PEERS}. The message does not name /dev/shm. evidence: '[rank3]:   File \"/root/.pyenv/versions/"
                        "3.11.7/lib/python3.11/site-packages/torch/utils/data/dataloader.py\", line 1134, in __init__', "
                        "'[rank3]:     sl = self._semlock = _multiprocessing.SemLock(', '[rank3]: OSError: [Errno 28] "
                        "No space left on device', 'Connection closed by peer [10.115.0.12]:53994', 'job exited with 1'",
    "global-batch-100": f"batch_size_mismatch: {W}, with --global-batch 100: the script divides it by the world "
                        "size (4) into a per-rank batch of 25, which PML's MPerClassSampler (m=4) rejects on every "
                        "rank before training starts. evidence: 'shard of 400 items, per-rank batch 25 (global 100 over "
                        "4 ranks), m=4 per class', '[rank3]:   File \"/tmp/venv-ce-x/lib/python3.11/site-packages/"
                        "pytorch_metric_learning/samplers/m_per_class_sampler.py\", line 33, in __init__', '[rank3]: "
                        "AssertionError: m_per_class must divide batch_size without any remainder', 'job exited with 1'",
}
