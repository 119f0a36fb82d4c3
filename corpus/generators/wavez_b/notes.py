"""What each committed run of wave Z set B showed (the manifest rows' notes), written after the runs."""

_W = ("a small mixture-of-experts decoder LM on a synthetic multi-domain token stream (2 pre-LN blocks, causal "
      "self-attention d=64, top-2 gated MoE MLP with expert capacity and dropped-token counting, Switch load-balancing "
      "aux loss, tied output head, AdamW with warmup, perplexity all-reduced at evaluation, rank-0 checkpoints), "
      "2 ranks with DDP over gloo")

NOTES = {
    "mpspawn-moe-lm-healthy": (
        f"torch.multiprocessing.spawn, {_W}; 300 steps, eval and a checkpoint every 100 steps; loss falls from 5.7 to "
        "2.9, val perplexity 112.9 -> 36.2 -> 21.7, expert load stays near uniform; one capacity-overflow WARNING "
        "(5.4% of routed tokens dropped) early on is harmless; healthy. evidence: 'eval step 300: val_loss 3.0783 "
        "val_ppl 21.72', 'saved checkpoint checkpoints/step-00300.pt', 'done (300 steps, 54 s)', 'all ranks "
        "finished', 'job exited with 0'"),
    "mpspawn-moe-lm-per-sequence-kl-balance-loss": (
        f"mp.spawn, {_W}, with the balance loss replaced by a per-sequence KL(router probability mass || realised "
        "top-1 load): within a 64-token sequence some expert gets no top-1 token, so log(p/0) is infinite, the aux "
        "loss is inf/NaN from the first steps and the weights turn NaN; the job keeps running uselessly and exits 0. "
        "Cause: a numerically unsafe loss term (division by a zero load) made the run diverge. evidence: 'model: 2 "
        "layers ... balance_loss=kl-seq', 'step 10/300 | loss nan | aux nan | ppl nan | dropped 25.0%', 'eval step "
        "100: val_loss nan val_ppl nan | expert load L0: 0.00 0.00 0.50 0.50', 'job exited with 0'"),
    "mpspawn-moe-lm-ranks-from-affinity-world-from-cpu-count": (
        f"mp.spawn, {_W}; the job was started under a CPU affinity mask of one CPU (taskset -c 1, as a cpuset "
        "would): the launcher spawns one local rank per usable CPU (1) but takes the world size from os.cpu_count() "
        "(2), so rank 0's store waits for a second rank that is never started and times out after the 60 s process "
        "group timeout. Cause: world size larger than the ranks launched -> rendezvous never completes. evidence: "
        "'launching 1 local rank(s) for world size 2', 'init_process_group gloo world_size=2 ... timeout=60s', "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', "
        "'job exited with 1'"),
    "torchrun-moe-lm-shard-remainder-one-squeezed-batch": (
        f"torchrun (2 procs), {_W}, with 584 documents per training shard: rank 1's shard packs into 849 sequences, "
        "so its last batch of the epoch holds one sequence, and the batching code's torch.stack(rows).squeeze() "
        "(meant to drop the [B, 1, S] row axis) also drops the batch axis; indexing batch[:, :-1] at the end of "
        "rank 1's first epoch raises IndexError; rank 0 then sees the gloo connection close and torchrun tears down "
        "the job. Cause: an exception in the training code on rank 1. evidence: '[rank 1] train shard: 584 docs, "
        "55246 tokens, 849 sequences of 65, 54 batches/epoch (last 1)', '[rank1]: IndexError: too many indices for "
        "tensor of dimension 1' (in train, moe_lm.py), '[rank0]: RuntimeError: ... Connection closed by peer', "
        "'Root Cause (first observed failure): [0]: rank 1 ... exitcode : 1'"),
    "mpspawn-moe-lm-calibration-eval-container-limit-900m": (
        f"mp.spawn, {_W} (calibration summary and a 1500-document validation shard requested), run in a container "
        "whose memory limit is 900 MB (a cgroup-v1 memory limit on the job): the launcher process plus two ranks "
        "at ~300-400 MB each already exceed it during training, before the first evaluation; the kernel OOM killer "
        "kills rank 0 with SIGKILL at about step 45 and spawn terminates the other rank. Cause: the job's memory "
        "use exceeds the container limit -> OOM kill. evidence: 'step 40/300 | loss 5.4627', "
        "'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL', "
        "'oom-kill:constraint=CONSTRAINT_MEMCG,...,oom_memcg=/wavez-b-job', 'Memory cgroup out of memory: Killed "
        "process 16573 (python) ... anon-rss:400364kB', 'job exited with 1'"),
    "torchrun-moe-lm-console-tee-run-log-volume-full": (
        f"torchrun (2 procs), {_W}; the console output is piped through `tee logs/moe-lm-d64-e4.log` (set -o "
        "pipefail) onto a 1 MB log volume already 100% used by earlier sweep logs (df printed before and after): "
        "tee reports ENOSPC partway through and the run log is lost, training itself finishes all 300 steps, and "
        "the job exits 1 because of tee. Cause: the filesystem holding the run log is full. evidence: 'tmpfs 1.0M "
        "1020K 4.0K 100% /tmp/wavez-b-job/run/logs', 'tee: logs/moe-lm-d64-e4.log: No space left on device', "
        "'done (300 steps, 66 s)', 'job exited with 1', 'tmpfs 1.0M 1.0M 0 100%'"),
    "lightning-moe-lm-node-drain-sigterm": (
        f"Lightning Trainer (strategy ddp on CPU, 2 processes started by Lightning's launcher), {_W}; a 5000-step "
        "run, loss falling normally, when the node is drained: SIGTERM to every process of the job at 50 s; "
        "Lightning's signal handler reports it on each rank and the job ends before step 100 (the shell is "
        "terminated too, so no exit line). Cause: external SIGTERM (node drain/preemption), not a code fault. "
        "evidence: 'step 90/5000 | loss 4.5299', '[rank: 1] Received SIGTERM: 15', '[rank: 0] Received SIGTERM: "
        "15'; Lightning's srun HINT and LeafSpec deprecation warnings are harmless"),
    "torchrun-moe-lm-ssh-session-closed": (
        f"torchrun (2 procs) started from an interactive shell without tmux/nohup, {_W}; a 5000-step run training "
        "normally (loss 5.7 -> 3.5, eval and checkpoint at step 100) when the terminal/SSH session closes at 45 s: "
        "SIGHUP to the whole job; torchrun's agent takes it as a death signal, forwards SIGHUP to both workers and "
        "exits with SignalException (the shell dies with it: no exit line). Cause: the launching terminal hung up. "
        "evidence: 'step 180/5000 | loss 3.4767', 'Received 1 death signal, shutting down workers', 'Sending "
        "process 18220 closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: "
        "Process 18177 got signal: 1'"),
    "mpspawn-moe-lm-producer-stats-pipe-read-at-eval": (
        f"mp.spawn, {_W}; each rank forks a token-producer process that queues chunks of 4 batches (prefetch 4) "
        "and also sends per-chunk token statistics through a multiprocessing pipe that the trainer only reads at "
        "evaluation (every 200 steps). The pipe buffer fills after ~20 chunks, the producer blocks in conn.send, "
        "stops filling the queue, and the trainer blocks on the empty queue: output stops after step 60 with no "
        "error or timeout; after a minute of silence the user presses Ctrl-C and the tracebacks show where it "
        "stood. Cause: a deadlock between producer and trainer (silent hang). evidence: '[rank 0] token producer "
        "pid 18452: chunks of 4 batches, prefetch 4', last progress 'step 60/600 | loss 5.3088', then only the "
        "Ctrl-C tracebacks: 'Process ForkProcess-1:1:' ... 'line 128, in producer_loop conn.send(...)' ... "
        "'n = write(self._handle, buf)' 'KeyboardInterrupt', and spawn's join in selector.poll 'KeyboardInterrupt'"),
    "raytrain-moe-lm-rank0-eval-samples-short-pg-timeout": (
        f"Ray Train TorchTrainer (2 workers x 0.5 CPU, gloo, TorchConfig timeout_s=60) on this generator's Ray "
        f"cluster, {_W}; at the step-100 evaluation rank 0 first writes 400 free-running samples for the eval "
        "report (one sequence at a time) before joining the perplexity all-reduce; rank 1 waits in that all-reduce "
        "longer than the 60 s process-group timeout and gloo raises; Ray Train fails the run. Cause: ranks "
        "desynchronised by rank-0-only work longer than the collective timeout. evidence: '[rank 0] sample 0: 1 3 "
        "251 ... (202 tokens)', '(RayTrainWorker pid=19506) ... line 285, in evaluate', 'RuntimeError: [...gloo/"
        "transport/tcp/unbound_buffer.cc:129] Timed out waiting 60000ms for send operation to complete', "
        "'ray.train.WorkerGroupError: Training failed due to worker errors: [Rank 1 Error Snippet]', 'job exited "
        "with 1'"),
    "raytrain-moe-lm-four-workers-one-cpu-each": (
        f"Ray Train TorchTrainer asked for 4 workers with 1 CPU each on this generator's one-node Ray cluster that "
        f"has 2 CPUs, {_W.replace('2 ranks', 'planned 4 ranks')}; the worker group can never be placed: the Train "
        "controller's startup times out every 60 s and retries forever (max allowed: inf), no training step ever "
        "runs; Ctrl-C twice does not end the graceful abort and the job is killed with SIGKILL. Cause: the "
        "requested resources (4 CPUs) exceed the cluster (2 CPUs) -> Ray cannot schedule the workers. evidence: "
        "'Requesting resources: {'CPU': 1.0} * 4', 'Attempting to start training worker group of size 4 with the "
        "following resources: [{'CPU': 1.0}] * 4', 'WorkerGroupStartupTimeoutError: The worker group startup timed "
        "out after 60.0 seconds waiting for 4 workers. Potential causes include: (1) temporary insufficient cluster "
        "resources ... (2) infeasible resource request', '[FailurePolicy] RETRY ... Error count: 2 (max allowed: "
        "inf)', 'Received SIGINT. Gracefully aborting the training run'"),
    "raytrain-moe-lm-healthy": (
        f"Ray Train TorchTrainer (2 workers x 0.5 CPU, gloo) on this generator's Ray cluster, {_W}; 300 steps, eval "
        "and checkpoint every 100 steps; val perplexity 112.87 -> 36.24 -> 21.72; Ray prints each worker line "
        "twice and an early capacity-overflow WARNING (5.4% of routed tokens dropped) is harmless; healthy. "
        "evidence: 'eval step 300: val_loss 3.0783 val_ppl 21.72', '[rank 0] done (300 steps, 54 s)', 'ray train "
        "finished: Result(metrics=None, checkpoint=None, error=None, ...)', 'job exited with 0'"),
    "lightning-moe-lm-healthy": (
        f"Lightning Trainer (strategy ddp on CPU, 2 processes started by Lightning's launcher), {_W}; 300 steps, "
        "validation every 100 steps; val perplexity 90.07 -> 34.91 -> 21.82; Lightning's srun HINT, litlogger/"
        "litmodels tips and LeafSpec deprecation warnings are harmless; healthy. evidence: 'eval step 300: "
        "val_loss 3.0830 val_ppl 21.82', 'step 300/300 | loss 2.6749', \"fit finished: {'train_loss': "
        "tensor(2.6749), 'val_loss': tensor(3.0830)}\", 'job exited with 0'"),
    "torchrun-moe-lm-healthy-capacity-overflow-warnings": (
        f"torchrun (2 procs), {_W}, with capacity_factor 1.0 and the drop warning threshold at 2%: 30 WARNING lines "
        "say 5-19% of routed tokens exceeded expert capacity (those tokens skip the expert MLP through the residual, "
        "by design), but training and evaluation are fine: val perplexity 118.47 -> 38.05 -> 22.29, all 300 steps "
        "done, exit 0; healthy despite the alarming warnings. evidence: 'WARNING: 18.6% of routed tokens exceeded "
        "expert capacity (capacity_factor=1.0); consider raising it', 'eval step 300: val_loss 3.1040 val_ppl "
        "22.29', 'done (300 steps, 33 s)', 'job exited with 0'"),
    "torchrun-moe-lm-fast-combine-extension-capacity-lowered": (
        f"torchrun (2 procs), {_W}, with expert outputs combined by a C++ extension (torch.utils.cpp_extension."
        "load_inline, built beforehand) that indexes expert rows through 32-bit slot indices without bounds checks, "
        "run with capacity_factor lowered to 1.0: dropped tokens carry slot -1, read as 4294967295, and the first "
        "forward reads far outside the buffer; rank 0 dies with SIGSEGV (PYTHONFAULTHANDLER=1 prints the Python "
        "stack, innermost frame the combine_rows call in MoE.forward) and torchrun tears down rank 1. Cause: a "
        "segfault in native extension code. evidence: 'expert combine: moe_combine C++ extension (load_inline, "
        "compact 32-bit slot indices)', 'capacity_factor=1.0', 'Fatal Python error: Segmentation fault', 'File "
        "\"/tmp/wavez-b-job/run/moe_lm.py\", line 187 in forward', 'failed (exitcode: -11) local_rank: 0', "
        "'exitcode : -11 ... (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID'"),
    "mpspawn-moe-lm-prune-cold-experts-by-local-load": (
        f"mp.spawn, {_W}, with 8 experts and expert pruning at step 100: each rank drops the experts whose load, "
        "counted on its own shard's batches (the shards mix the domains differently), is under 0.097, then re-wraps "
        "DDP. Rank 0 prunes 2 experts in layer 1, rank 1 only 1, so the expert weight tensors differ in shape and "
        "DDP's construction-time check of parameter shapes across ranks fails. Cause: the ranks hold different "
        "models (shapes disagree across ranks: a collective mismatch). evidence: '[rank 0] expert load L1: 0.109 "
        "0.087 ... -> pruning cold experts [1, 5]', '[rank 1] expert load L1: 0.100 0.086 ... -> pruning cold "
        "experts [1]', 'RuntimeError: [1]: params[22] in this process with sizes [7, 64, 128] appears not to match "
        "sizes of the same param in process 0.', 'job exited with 1'"),
}
