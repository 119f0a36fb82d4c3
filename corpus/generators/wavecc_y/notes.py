"""Manifest notes for wave CC (y)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("PyTorch Tabular 1.2.0 (TabularModel, CategoryEmbeddingModelConfig layers 64-32, AdamW lr 1e-3) over PyTorch "
     "Lightning 2.6.6 DDP (strategy='ddp', num_nodes via TrainerConfig.trainer_kwargs, gloo on CPU) and torch "
     "2.13.0+cpu, Python 3.11.7: a churn classifier on a synthetic 16,000-row customer table (6 numeric, 3 "
     "categorical features) trained by the team's train_tabular.py (batch 64 per rank, ModelCheckpoint on "
     "valid_loss under saved_models every epoch, a '[rank N] epoch E step S loss L' line per rank every 20 steps, "
     "then evaluate() and save_model() to export/churn-model), launched on two hosts (network namespaces "
     "churn-trn-a1 10.112.0.11 and churn-trn-a2 10.112.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m "
     "torch.distributed.run --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.112.0.11', both nodes' "
     "output in one console")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "churn-trn-a2 10.112.0.12, one bridge", "churn-trn-a2 10.112.0.12, churn-trn-a3 10.112.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
WL = W.replace("every 20 steps", "every 50 steps").replace("trained by", "trained for 30 epochs (~1,400 steps) by")
PEERS = ("the other ranks then fail in the next gloo collective ('Connection closed by peer [10.112.0.1x]:NNNN. This "
         "is typically caused by a remote worker crashing') and torchrun SIGTERMs their siblings")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain 5-epoch run to the end: nothing injected. evidence: 'All distributed "
                      "processes registered. Starting with 4 processes', '`Trainer.fit` stopped: `max_epochs=5` "
                      "reached.', 'test metrics: {'test_loss_0': 0.266, 'test_loss': 0.266, 'test_accuracy': 0.878}', "
                      "'model saved to export/churn-model: [...]', 'job exited with 0'; the only warnings are "
                      "Lightning's own (the tensorboardX/CSVLogger note, 'It is recommended to use "
                      "`self.log('train_loss_0', ..., sync_dist=True)`', the DistributedSampler note during "
                      "trainer.test()), torch's pin_memory UserWarning and c10d's 'The hostname of the client socket "
                      "cannot be retrieved. err=-3'",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks); a plain 4-epoch run to the end: nothing injected. evidence: 'All "
                      "distributed processes registered. Starting with 6 processes', '`Trainer.fit` stopped: "
                      "`max_epochs=4` reached.', 'job exited with 0'",
    "healthy-gandalf": f"no_failure: {W}, but with GANDALFConfig (gflu_stages 3, lr 5e-3) instead of the MLP; a plain "
                       "3-epoch run to the end: nothing injected. evidence: 'Preparing the Model: GANDALFModel', "
                       "'`Trainer.fit` stopped: `max_epochs=3` reached.', 'test_accuracy': 0.8755, 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, with the c10d rendezvous ('--rdzv-backend c10d --rdzv-endpoint "
                         "10.112.0.11:30133 --rdzv-conf join_timeout=40'); churn-trn-a2 started 20 s after "
                         "churn-trn-a1 (inside join_timeout), 4 epochs to the end. evidence: 'All distributed "
                         "processes registered. Starting with 4 processes', '`Trainer.fit` stopped: `max_epochs=4` "
                         "reached.', 'job exited with 0'",
    "healthy-warmstart": f"no_failure: {W}; before the logged job a first (unlogged) 2-epoch job wrote its "
                         "ModelCheckpoint, copied to ckpt/churn-v1.ckpt; the logged job starts from it (the script's "
                         "WarmStart callback loads the checkpoint's state_dict in on_fit_start) and trains 3 epochs. "
                         "evidence: 'warm start from ckpt/churn-v1.ckpt (epoch 1, global_step 94)', '`Trainer.fit` "
                         "stopped: `max_epochs=3` reached.', 'job exited with 0'",
    "region-keyerror": f"worker_exception: {WL}; the team's per-batch hook (train_hooks.py) counts samples per region "
                       "with a table that lacks 'apac'; on global rank 3 (churn-trn-a2) from step 150 it raises; "
                       f"{PEERS}. evidence: '[rank3]:   File \"/tmp/wavecc-y-job/run/train_hooks.py\", line 7, in "
                       "on_step', '[rank3]:     counts[REGION_CODES[r]] += 1', \"[rank3]: KeyError: 'apac'\", "
                       "'failed (exitcode: 1) local_rank: 1', 'job exited with 1'",
    "rank2-segv": f"native_crash: {WL}; the team's hook calls ctypes.string_at(0) (a NULL read in a C helper) on "
                  f"global rank 2 (churn-trn-a2, local rank 0) at step 150: SIGSEGV; {PEERS}. evidence: 'failed "
                  "(exitcode: -11) local_rank: 0', 'exitcode  : -11 (pid: NNNN)  (SIGSEGV)', 'traceback : Signal 11 "
                  "(SIGSEGV) received by PID NNNN', 'job exited with 1'",
    "rank1-leak-oom": f"host_oom_killed: {WL}; the job ran in a 3 GiB cgroup-v1 memory limit and the team's hook kept "
                      "a 64 MB tensor per step on global rank 1 (churn-trn-a1, local rank 1) from step 80; the kernel's "
                      "memcg OOM killer SIGKILLed it (dmesg on the collector: 'Memory cgroup out of memory: Killed "
                      f"process 15708 (python)'); {PEERS}. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 15708)', "
                      "'exitcode  : -9 (pid: 15708)  (SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID "
                      "15708', 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W} (6 epochs); saved_models (the ModelCheckpoint directory) was a 120 KB tmpfs: the "
                  "epoch-0 checkpoint (76,560 bytes) fits, the epoch-1 one does not, and rank 0's save through "
                  "Lightning's _atomic_save / fsspec's transaction commit fails (the other ranks then see 'Connection "
                  "closed by peer [10.112.0.11]'). evidence: \"[rank0]: OSError: [Errno 28] No space left on device: "
                  "'/tmp/tmp8mcu_rv0' -> '/tmp/wavecc-y-job/run/saved_models/classification-1_epoch=1-valid_loss="
                  "0.33.ckpt'\", 'lightning_fabric/plugins/io/torch_io.py\", line 58, in save_checkpoint', "
                  "'job exited with 1'",
    "huge-lr": f"training_divergence: {W} with --lr 1e8 and the script's --stop-on-nan guard (a Lightning callback that "
               "raises FloatingPointError when a batch loss is not finite): the loss is nan at step 3 on every rank, "
               "and each rank's guard raises. evidence: '[rank3]: FloatingPointError: rank 3: non-finite train loss "
               "nan at step 3 (epoch 0, batch 2)' (the same on ranks 0-2), 'failed (exitcode: 1) local_rank: 0', "
               "'job exited with 1'",
    "rank1-stopped": f"silent_hang: {WL}; once the step-300 loss lines were printed the harness sent SIGSTOP to global "
                     "rank 1 (churn-trn-a1, local rank 1, pid 16200); the other ranks block in the next DDP gloo "
                     "collective (default 30 min timeout) and nothing more is printed; 60 s after the start the "
                     "harness, like a scheduler, SIGTERMed both torchrun agents and SIGKILLed the job 15 s later (the "
                     "stopped rank cannot die on the forwarded SIGTERM): no exit line. evidence: last progress "
                     "'[rank 1] epoch 6 step 300 loss 0.3029', then only 'Received 15 death signal, shutting down "
                     "workers' and 'Sending process 16200 closing signal SIGTERM'",
    "preempt": f"job_preempted: {WL}; once the step-300 loss lines were printed the harness, like a scheduler ending "
               "the allocation, sent SIGTERM to both torchrun agents and SIGKILLed the job 15 s later (before the "
               "agents finished: no exit line). The agents forward SIGTERM to their workers; Lightning's signal "
               "connector prints its own notice on each, and the half-stopped DDP group then falls apart (one worker "
               "aborts in gloo with a size-mismatch enforce, the others see 'Connection reset by peer'): symptoms of "
               "the SIGTERM. evidence: 'Received 15 death signal, shutting down workers' (both agents, first), "
               "'Sending process 16719 closing signal SIGTERM', '[rank: 0] Received SIGTERM: 15', then \"terminate "
               "called after throwing an instance of 'gloo::EnforceNotMet'\", 'Read error [10.112.0.12]:10432: "
               "Connection reset by peer'",
    "terminal-hup": f"terminal_hangup: {WL}; once the step-300 loss lines were printed the harness sent SIGHUP to both "
                    "torchrun agents (the launching terminal closing); each agent forwards SIGHUP to its workers and "
                    "exits. evidence: 'Received 1 death signal, shutting down workers', 'Sending process 17060 "
                    "closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process "
                    "16963 got signal: 1' (both agents), 'job exited with 1'",
    "node-a2-missing": f"rendezvous_timeout: {W}, with the c10d rendezvous (join_timeout=40); churn-trn-a2 never "
                       "started (only churn-trn-a1's agent ran), so the agent times out waiting for the second node "
                       "before any worker starts. evidence: 'torch.distributed.elastic.rendezvous.api."
                       "RendezvousTimeoutError', 'job exited with 1'",
    "port-taken": f"port_in_use: {W}; before the job a stale 'python -m http.server --bind 10.112.0.11 30135' held the "
                  "master port on churn-trn-a1; its agent cannot create the TCPStore and exits at once, while "
                  "churn-trn-a2's agent (talking to the HTTP server) waits silently until the harness, like a "
                  "scheduler, SIGTERMs the job after 90 s. evidence: 'torch.distributed.DistNetworkError: The server "
                  "socket has failed to listen on any local network address. port: 30135, useIpv6: false, code: -98, "
                  "name: EADDRINUSE, message: address already in use', 'job exited with 1'",
    "ifname-node-a2": f"nccl_network_config: {W}; churn-trn-a2's agent and workers ran with GLOO_SOCKET_IFNAME=ib0, an "
                      "interface that host does not have: both of its workers fail creating the gloo device when "
                      "Lightning initialises the process group; churn-trn-a1's workers wait in the group's setup until "
                      "the harness, like a scheduler, SIGTERMs the job after 100 s. evidence: 'RuntimeError: [enforce "
                      "fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. "
                      "Unable to find address for: ib0' (twice), 'failed (exitcode: 1) local_rank: 0', 'Received 15 "
                      "death signal, shutting down workers', 'job exited with 1'",
    "head-shape-rank3": f"collective_mismatch: {WL}; the team's hook all_reduces the flattened head weights every 100 "
                        "steps from step 100 (a drift check), and global rank 3 also appends the head's bias, so it "
                        "sends a longer tensor; gloo aborts global rank 2 (churn-trn-a2, local rank 0) on the size "
                        "check (SIGABRT) and the others see the connection reset/closed. evidence: \"terminate called "
                        "after throwing an instance of 'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. 36 "
                        "vs 32. Received data size doesn\'t match expected size. Is there a distributed collective "
                        "mismatch in your code?', 'exitcode  : -6 (pid: 19323)  (SIGABRT)', 'job exited with 1'",
    "tiny-shm-node-a2": f"shm_exhausted: {W}, with DataConfig(num_workers=2) (two DataLoader worker processes per "
                        "loader); churn-trn-a2 ran in its own mount namespace with /dev/shm a 16 KB tmpfs: when "
                        "Lightning's sanity-check validation loop creates the DataLoader iterator, the multiprocessing "
                        "queue's SemLock cannot be created in /dev/shm on both of churn-trn-a2's ranks; the ranks on "
                        "churn-trn-a1 then see 'Connection closed by peer [10.112.0.12]'. evidence: '_multiprocessing."
                        "SemLock(', '[rank2]: OSError: [Errno 28] No space left on device' (the same on rank 3), "
                        "'dataloader.py\", line 1134, in __init__', 'job exited with 1'",
    "extra-cat-node-a2": f"worker_exception: {W}; churn-trn-a2 was launched with a stale option '--extra-cat "
                         "customer_tier' (a categorical column the table does not have) in its DataConfig: both of its "
                         "ranks raise in PyTorch Tabular's TabularDatamodule._update_config before the process group "
                         "forms; churn-trn-a1's ranks wait in Lightning's DDP setup until the harness, like a "
                         "scheduler, SIGTERMs the job after 100 s. evidence: 'pytorch_tabular/tabular_datamodule.py\", "
                         "line 306, in _update_config', 'KeyError: \"[\'customer_tier\'] not in index\"' (twice), "
                         "'failed (exitcode: 1) local_rank: 1', 'Received 15 death signal, shutting down workers', "
                         "'job exited with 1'",
}
