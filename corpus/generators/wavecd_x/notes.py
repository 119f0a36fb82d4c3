"""Manifest notes for wave CD (x)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Flair 0.15.1 (transformers 4.57.6 installed, unused) over torch 2.13.0+cpu (gloo), Python 3.11.7: a small "
     "SequenceTagger (OneHotEmbeddings 32-d + CharacterEmbeddings built from the corpus, BiLSTM hidden 32, no CRF) "
     "trained by the team's train_ner.py with Flair's ModelTrainer.train(..., multi_gpu=True, "
     "save_model_each_k_epochs=1) on a synthetic CoNLL NER corpus (1200/150/150 sentences; mini_batch_size 16 per "
     "process, lr 0.1, 4 epochs, model_epoch_N.pt each epoch, final-model.pt), the script's own "
     "init_process_group('gloo') and a shim that drops DDP's device_ids on CPU; launched on two hosts (network "
     "namespaces nlp-train-07 10.113.0.11 and nlp-train-08 10.113.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 "
     "python -m torch.distributed.run --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.113.0.11', both "
     "nodes' output in one console; only rank 0 prints Flair's log lines")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "nlp-train-08 10.113.0.12, one bridge", "nlp-train-08 10.113.0.12, nlp-train-09 10.113.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
PEERS = "the other ranks then fail in their next gloo collective ('Connection closed by peer [10.113.0.12]')"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'EPOCH 4 done: loss "
                      "0.4478 - lr: 0.100000', 'training done: test_score=0.8454', 'job exited with 0'; the only "
                      "warnings are a FutureWarning from Flair ('`torch.cuda.amp.GradScaler(args...)` is "
                      "deprecated'), one from DDP ('find_unused_parameters=True was specified in DDP constructor, but "
                      "did not find any unused parameters') and one from c10d ('The hostname of the client socket "
                      "cannot be retrieved. err=-3')",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks), --epochs 3; a plain run to the end: nothing injected. evidence: "
                      "'[rank 4/6] nlp-train-09: gloo process group up (flair 0.15.1, torch 2.13.0+cpu)', 'EPOCH 3 "
                      "done: loss 0.9821 - lr: 0.100000', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) 2-epoch job wrote "
                      "out-ner/model_epoch_2.pt; the logged job loads it with SequenceTagger.load and trains 3 more "
                      "epochs at lr 0.05 into out-ner-ft (Flair counts the epochs from 1 again). evidence: '[rank 1] "
                      "resumed weights from out-ner/model_epoch_2.pt', 'EPOCH 3 done: loss 0.5642 - lr: 0.050000', "
                      "'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}, with c10d rendezvous (--rdzv-backend c10d, join_timeout=40); "
                         "nlp-train-08 starts 20 s after nlp-train-07 (within the join timeout): nothing else "
                         "injected. evidence: '[rank 3/4] nlp-train-08: gloo process group up', 'training done: "
                         "test_score=0.8454', 'job exited with 0'",
    "healthy-chunked": f"no_failure: {W}, with mini_batch_size 32 split into mini_batch_chunk_size 8 (gradient "
                       "accumulation under DDP no_sync), one-hot embeddings only (--no-char), 5 epochs: nothing "
                       "injected. evidence: ' - mini_batch_size: \"32\"', 'EPOCH 5 done: loss 0.6850 - lr: "
                       "0.100000', 'job exited with 0'",
    "shard-keyerror": f"worker_exception: {W}; the team's per-batch hook (a Flair TrainerPlugin's "
                      "after_training_batch) looks up SHARD_OF_RANK[rank] in a table written for 3 ranks; global "
                      "rank 3 (nlp-train-08) raises in epoch 2 at batch 5; " + PEERS + ". evidence: '[rank3]:   "
                      "File \"/tmp/wavecd-x-job/run/train_hooks.py\", line 6, in on_batch', '[rank3]: KeyError: 3', "
                      "'Root Cause (first observed failure):' with 'rank      : 3 (local_rank: 1)', 'job exited "
                      "with 1'",
    "seed-per-rank-node-b": f"worker_exception: {W}; nlp-train-08 is launched with the script's --seed-per-rank "
                            "(flair.set_seed(42 + rank)), so Flair's corpus check in multi_gpu mode samples "
                            "different sentences per process and raises on every rank before training (a "
                            "configuration error the framework rejects). evidence: '[rank3]:   File \"/tmp/venv-cd-x/"
                            "lib/python3.11/site-packages/flair/distributed_utils.py\", line 89, in "
                            "_validate_dataset_same_each_process', '[rank0]: ValueError: Dataset must be the same on "
                            "each process', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}; the team's per-batch hook reads a NULL pointer through ctypes "
                 "(ctypes.string_at(0)) on global rank 2 (nlp-train-08, local rank 0) in epoch 2 at batch 9: the "
                 "process dies with SIGSEGV; " + PEERS + ". evidence: 'failed (exitcode: -11) local_rank: 0', "
                 "'exitcode  : -11 (pid: 11448)  (SIGSEGV)', 'traceback : Signal 11 (SIGSEGV) received by PID "
                 "11448', 'Connection closed by peer [10.113.0.12]:26298'",
    "rank1-leak-oom": f"host_oom_killed: {W}; the whole job runs in a 3 GiB cgroup-v1 memory limit and the "
                      "team's per-batch hook keeps a 64 MB tensor per batch on global rank 1 (nlp-train-07) from "
                      "batch 11 of epoch 1: the kernel's memcg OOM killer SIGKILLs rank 1 early in epoch 2 (dmesg: "
                      "Memory cgroup out of memory: Killed process 11615); the peers then fail on the closed "
                      "connection. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 11615)', 'exitcode  : -9 "
                      "(pid: 11615)  (SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID 11615', 'job exited "
                      "with 1'",
    "ckpt-tmpfs": f"disk_full: {W}; the checkpoint dir out-ner is a 300 KB tmpfs (each model_epoch_N.pt is about "
                  "135 KB): rank 0 writes model_epoch_1.pt, then the epoch-2 checkpoint save by Flair's "
                  "CheckpointPlugin (Model.save -> torch.save) fails on the full filesystem; torch reports the short "
                  "write without errno text; " + PEERS.replace("10.113.0.12", "10.113.0.11") + ". evidence: "
                  "'[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]:     self.model.save(self."
                  "base_path / model_name, checkpoint=self.save_optimizer_state)', '[rank0]: RuntimeError: [enforce "
                  "fail at inline_container.cc:672] . unexpected pos 132864 vs 132752', 'job exited with 1'",
    "rank-stopped": f"silent_hang: {W}; SIGSTOP to global rank 1 (nlp-train-07) once the 'epoch 2 - iter 6/19' line "
                    "was printed; the other ranks block in the next DDP allreduce (default 30 min gloo timeout) and "
                    "nothing more is printed until the harness, acting as the scheduler, sends SIGTERM to both "
                    "launchers at 80 s and SIGKILL 15 s later (the stopped rank ignores the forwarded SIGTERM, so "
                    "there is no 'job exited' line). evidence: last training line '2026-12-05 22:20:54,965 epoch 2 - "
                    "iter 6/19 - loss 1.17648769', then 53 s of silence, then 'Received 15 death signal, shutting "
                    "down workers' and 'SignalException: Process 12923 got signal: 15'",
    "preempt": f"job_preempted: {W}; the scheduler (the harness) sends SIGTERM to both torchrun launchers right after "
               "the 'epoch 2 - iter 6/19' line; they forward it to their workers and exit. evidence: 'Received 15 "
               "death signal, shutting down workers', 'Sending process 14174 closing signal SIGTERM', "
               "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 13937 got signal: 15', 'job "
               "exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; SIGHUP to both torchrun launchers (the launching terminal closing) right "
                    "after the 'epoch 2 - iter 6/19' line; they forward it to their workers and exit. evidence: "
                    "'Received 1 death signal, shutting down workers', 'Sending process 14476 closing signal "
                    "SIGHUP', 'job exited with 1'",
    "node-b-missing": f"rendezvous_timeout: {W}, with c10d rendezvous (join_timeout=40); nlp-train-08 is never "
                      "started, so the launcher on nlp-train-07 waits for the second node and gives up after the "
                      "join timeout without starting any worker. evidence: 'raise RendezvousTimeoutError', "
                      "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
}
