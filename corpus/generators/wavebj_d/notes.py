"""Manifest notes for wave BJ (d): scenario -> note, written after the run; evidence quoted exactly from the log."""

RUN = ("sentence-transformers 6.2.0 SentenceTransformerTrainer (transformers 5.24.0, accelerate 1.15.0, datasets 5.2.0, "
       "torch 2.13.0+cpu) fine-tuning a 2-layer 64-dim BERT-style encoder built from a local config + WordPiece "
       "tokenizer, DDP on gloo, 2 CPU ranks, `torchrun --nproc_per_node 2 train.py`")

NOTES = {
    "st-healthy": f"no_failure: {RUN}, MultipleNegativesRankingLoss on anchor/positive pairs, 40 steps, "
                  "EmbeddingSimilarityEvaluator and a checkpoint every 10 steps; DeprecationWarning/FutureWarning "
                  "noise only. evidence: '[transformers]   Total optimization steps = 40', "
                  "'Training completed. Do not forget to share your model on huggingface.co/models =)'",
    "st-healthy-cosine": f"no_failure: {RUN}, `--train-file data/sts_train.jsonl --loss cosine --max-steps 60 "
                         "--no-duplicates` (CosineSimilarityLoss on sentence1/sentence2/score, NO_DUPLICATES batch "
                         "sampler). evidence: '[transformers]   Total optimization steps = 60', "
                         "'job exited with 0'",
    "st-healthy-resume": f"no_failure: {RUN}; an earlier unlogged 20-step run left checkpoints/checkpoint-20, "
                         "`--resume auto --max-steps 60` resumes it and finishes. evidence: "
                         "'[transformers]   Fast-forwarding the dataloader past 0 epochs and 20 batches to resume "
                         "from the exact training state.', 'job exited with 0'",
    "st-healthy-metrics": f"no_failure: {RUN}, `--metrics-file metrics/train_metrics.jsonl` on a 4 KiB tmpfs; rank 0 "
                          "logs an ERROR with an ENOSPC traceback from the metrics callback, disables the file and "
                          "training finishes 80 steps. evidence: 'OSError: [Errno 28] No space left on device', "
                          "'job exited with 0'",
    "st-pairs-cosine": f"worker_exception: {RUN}, `--loss cosine` on the anchor/positive pairs file (no score/label "
                       "column): CosineSimilarityLoss gets labels=None in the first step and raises on both ranks. "
                       "evidence: \"[rank1]:     if labels.numel() != batch_size:\", "
                       "\"[rank0]: AttributeError: 'NoneType' object has no attribute 'numel'\"",
    "st-three-procs": f"batch_size_mismatch: {RUN} but `--nproc_per_node 3` with the 2-rank config (global batch 32 = "
                      "16 x 1 x 2); train.py's config check raises on all 3 ranks before the model is built. "
                      "evidence: 'ValueError: global_batch_size (32) must equal per_device_train_batch_size (16) x "
                      "gradient_accumulation_steps (1) x world_size (3)'",
    "st-report-tensorboard": f"library_version_mismatch: {RUN}, `--report-to tensorboard` with neither tensorboard "
                             "nor tensorboardX installed; the trainer's TensorBoardCallback raises on both ranks at "
                             "trainer construction. evidence: '[rank0]: RuntimeError: TensorBoardCallback requires "
                             "tensorboard to be installed. Either update your PyTorch version or install "
                             "tensorboardX.'",
    "st-preempt": f"job_preempted: {RUN}, `--max-steps 3000 --save-steps 100 --eval-steps 100 --logging-steps 20`; "
                  "the harness (as a scheduler at a time limit) sends SIGTERM to torchrun right after "
                  "checkpoint-200 is written; healthy progressing job. evidence: 'W1202 10:01:23.630000 17613 "
                  "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting "
                  "down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 17613 got "
                  "signal: 15'",
    "st-terminal-closed": f"terminal_hangup: {RUN}, same long run; SIGHUP to torchrun (as when the launching "
                          "terminal closes) after checkpoint-200. evidence: 'W1202 10:02:10.292000 18269 "
                          "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, "
                          "shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 18269 "
                          "got signal: 1'",
    "st-rank-killed": f"host_oom_killed: {RUN}, same long run; SIGKILL to rank 1 from outside (OOM-killer style) ~4 s "
                      "after checkpoint-100; rank 0's gloo all-reduce sees the connection reset. evidence: "
                      "'E1202 10:03:09.507000 19116 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] "
                      "failed (exitcode: -9) local_rank: 1 (pid: 19184) of binary: /tmp/venv-bj-d/bin/python', "
                      "'  traceback : Signal 9 (SIGKILL) received by PID 19184'",
    "st-ckpt-tmpfs": f"disk_full: {RUN}, 40-step run with checkpoints/ on a 1 MiB tmpfs; checkpoint-10's config, "
                     "weights and tokenizer fit, then torch.save of the optimizer state hits the full filesystem on "
                     "rank 0 (the error text is an iostream failure, not ENOSPC); rank 1 then sees the gloo "
                     "connection close. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', "
                     "'[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 572480 vs "
                     "572372'",
    "st-lr": f"training_divergence: {RUN}, `--lr 5e6 --max-steps 200 --logging-steps 5` (a learning rate off by "
             "~10 orders of magnitude): the gradient norm is NaN from the first logged step and the MNRL loss "
             "collapses to 0; nothing stops the run, which finishes and exits 0 with a useless model. evidence: "
             "\"{'loss': '2.163', 'grad_norm': 'nan', 'learning_rate': '1e+06', 'epoch': '0.1351'}\", "
             "\"{'loss': '0', 'grad_norm': 'nan', 'learning_rate': '2.25e+06', 'epoch': '0.2703'}\", "
             "'2026-12-02 10:12:41,115 [rank0] INFO sentence_transformers.sentence_transformer.evaluation."
             "embedding_similarity: Cosine-Similarity:\tPearson: nan\tSpearman: nan'",
    "st-wide-oom": f"host_oom_killed: {RUN}, but model_init/ built with hidden size 768 x 8 layers (38.7M params) "
                   "and batch 64 per rank, the whole job in a 1.3 GB cgroup-v1 memory limit; the cgroup OOM killer "
                   "SIGKILLs rank 1 while DDP verifies parameter shapes across ranks; rank 0's gloo pair sees the "
                   "connection close. evidence: 'E1202 10:10:11.864000 26042 "
                   "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) "
                   "local_rank: 1 (pid: 26120) of binary: /tmp/venv-bj-d/bin/python', '  traceback : Signal 9 "
                   "(SIGKILL) received by PID 26120'",
    "st-rank-stopped": f"silent_hang: {RUN}, long run (`--max-steps 3000 --save-steps 100 --eval-steps 100 "
                       "--logging-steps 20`, default 1800 s ddp_timeout); SIGSTOP to rank 1 right after checkpoint-200 "
                       "so it stops progressing and rank 0 blocks in DDP's gradient all-reduce with nothing printed; "
                       "45 s later the harness (as a scheduler at its time limit) SIGTERMs torchrun, which SIGTERMs "
                       "both ranks and 30 s later SIGKILLs the stopped rank 1. evidence: '2026-12-02 10:04:48,444 "
                       "[rank0] INFO sentence_transformers.base.trainer: Saving model checkpoint to "
                       "checkpoints/checkpoint-200', 'W1202 10:06:03.658000 21079 "
                       "site-packages/torch/distributed/elastic/multiprocessing/api.py:1047] Unable to shutdown "
                       "process 21103 via 15, forcefully exiting via 9'",
    "st-port-held": f"port_in_use: {RUN}; a `python -m http.server 29675` (left over, not logged) already holds the "
                    "master port, torchrun's TCPStore cannot listen. evidence: 'torch.distributed.DistNetworkError: "
                    "The server socket has failed to listen on any local network address. port: 29675, useIpv6: "
                    "false, code: -98, name: EADDRINUSE, message: address already in use'",
    "st-second-node-missing": f"rendezvous_timeout: {RUN} but as `torchrun --nnodes 2 --rdzv-backend c10d "
                              "--rdzv-endpoint localhost:29676 --rdzv-id embed-ft --rdzv-conf join_timeout=30`, only "
                              "this node started; the rendezvous times out after 30 s before any worker starts. "
                              "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError'",
    "st-bad-row": f"worker_exception: {RUN}; a hand-added row at the end of data/train.jsonl has "
                  "`\"positive\": null`; the trainer's model-card callback samples widget examples from the "
                  "dataset at trainer construction and raises on both ranks before training starts. evidence: "
                  "'[rank1]:     lengths[idx] = sum(len(value) for value in values)', "
                  "\"[rank0]: TypeError: object of type 'NoneType' has no len()\"",
    "st-rank-stopped-timeout": f"collective_timeout: {RUN}, long run with `--ddp-timeout 20` (train.py sets up the "
                               "gloo group itself with that timeout, since the trainer does not pass ddp_timeout "
                               "with use_cpu); SIGSTOP to rank 1 right after checkpoint-200; rank 0's DDP gradient "
                               "all-reduce in backward hits gloo's 20 s timeout and raises, torchrun then SIGKILLs the "
                               "stopped rank 1. evidence: '[rank0]: RuntimeError: Application timeout caused pair "
                               "closure', '  exitcode  : -9 (pid: 30616)  (SIGKILL)'",
}
