"""Manifest notes for wave AX (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("snakemake --cores 2 --config port=P ... (Snakemake 9.27.1; Snakefile rules clean_readings -> build_features -> "
     "train, whose shell: runs timeout T torchrun --nproc-per-node 2 train_burst.py, DDP over gloo on CPU -> "
     "evaluate), water utility pipe-burst risk classifier")
NOTES = {
    "smk-burst-healthy": (
        f"no_failure: {W}, 3 epochs; every rule finishes, evaluate passes the accuracy gate. evidence: "
        "'[rank0] finished 3 epochs, val acc 0.951', 'evaluate: burst-risk model passed the gate, ready to publish', "
        "'5 of 5 steps (100%) done', 'job exited with 0'"),
    "smk-burst-healthy-logger-errors": (
        f"no_failure: {W}; the SCADA export has 5 readings whose pressure logger wrote ERR; clean_readings logs each at "
        "ERROR level and drops it; training and evaluation succeed. evidence: \"2026-11-30 23:24:33,686 ERROR "
        "clean_readings: reading N000000 (main M050): pressure logger value 'ERR' is not a number, dropped\", "
        "'INFO clean_readings: kept 2395 readings (5 dropped)', '5 of 5 steps (100%) done', 'job exited with 0'"),
    "smk-burst-healthy-port-retry": (
        f"no_failure: {W}; a python -m http.server left on the master port 33005 makes the first torchrun fail with "
        "EADDRINUSE and Snakemake reports the train job failed; the rule's retries: directive (--config retries=2) "
        "restarts it, the server is stopped meanwhile, and the retry trains to the end (recovered fault). evidence: "
        "'name: EADDRINUSE, message: address already in use', 'Error in rule train:', 'Trying to restart job 2.', "
        "'5 of 5 steps (100%) done', 'job exited with 0'"),
    "smk-burst-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run, --config epochs=5 resume=true: Snakemake reruns train because "
        "its params changed, the ranks load checkpoints/last.pt and train epochs 3-5. evidence: 'reason: Params have "
        "changed since last execution', '[rank0] resumed from checkpoints/last.pt (epoch 2)', '[rank0] finished 5 "
        "epochs, val acc 0.981', '3 of 3 steps (100%) done'"),
    "smk-burst-healthy-rerun": (
        f"no_failure: {W}; rerun after an earlier run whose train job failed (optimizer typo, not in this log): "
        "clean_readings and build_features are up to date and skipped, only train, evaluate and all run (3 jobs) and "
        "succeed. evidence: 'total           3', '[rank0] finished 3 epochs, val acc 0.951', '3 of 3 steps (100%) "
        "done', 'job exited with 0'"),
    "smk-burst-renamed-column": (
        f"worker_exception: {W}; the SCADA upgrade renamed the export column flow_lps to flow_m3h; clean_readings "
        "raises KeyError, Snakemake reports the failed rule and stops. evidence: \"KeyError: 'flow_lps'\", "
        "'Error in rule clean_readings:', 'Exiting because a job execution failed. Look above for error messages', "
        "'job exited with 1'"),
    "smk-burst-optimizer-typo": (
        f"worker_exception: {W}; the run is launched with --config optimizer=adamW (typo for adamw); both ranks raise "
        "ValueError, torchrun reports ChildFailedError and Snakemake reports the failed train rule. evidence: "
        "\"[rank0]: ValueError: unknown optimizer 'adamW'\", 'torch.distributed.elastic.multiprocessing.errors."
        "ChildFailedError: ', 'Error in rule train:', 'Exiting because a job execution failed. Look above for error "
        "messages'"),
    "smk-burst-config-key-typo": (
        f"worker_exception: {W}; an edit of config.yaml misspelt the key micro_batch as micro_bacth; the Snakefile's "
        "params for rule train read config['micro_batch'] while Snakemake parses the workflow, so it fails with "
        "KeyError before any job runs. evidence: 'KeyError in file \"/tmp/waveax-a-job/run/Snakefile\", line 50:', "
        "\"'micro_batch'\", 'job exited with 1'"),
    "smk-burst-augment-oom": (
        f"host_oom_killed: {W}; --config augment_copies=16000 makes each rank build ~2.5 GB of sensor-noise copies up "
        "front; the job runs in a 1.2 GB cgroup-v1 memory cgroup and the kernel OOM killer SIGKILLs rank 1 (dmesg: "
        "'Memory cgroup out of memory: Killed process 8783 (python3)'); torchrun SIGTERMs rank 0 and Snakemake "
        "reports the failed train rule. evidence: '[rank1] augmentation: built 2000 of 16000 copies', '  exitcode  : "
        "-9 (pid: 8783)  (SIGKILL)', '  traceback : Signal 9 (SIGKILL) received by PID 8783', 'Error in rule train:'"),
    "smk-burst-feeder-loop": (
        f"native_crash: {W}; the export records main M041 as fed from M050 and M050 from M041; build_features' "
        "lru_cache-wrapped trunk() recursion (recursion limit raised to 1e6) overflows the C stack and the script dies "
        "with SIGSEGV, no Python traceback; Snakemake reports the signal. evidence: \"Command 'set -euo pipefail;  "
        "python scripts/build_features.py --readings work/readings.pkl --train work/features/train.pkl --val "
        "work/features/val.pkl --val-fraction 0.2' died with <Signals.SIGSEGV: 11>.\", 'Error in rule build_features:'"),
    "smk-burst-ckpt-volume": (
        f"disk_full: {W}, 4 epochs; checkpoints/ is a 64 KiB tmpfs (a small volume); rank 0's first torch.save of the "
        "epoch checkpoint runs out of space and PyTorch's zip writer reports it as an iostream error (no errno in the "
        "log), rank 1 then loses its peer in the barrier and Snakemake reports the failed train rule. evidence: "
        "'[rank0]:     torch.save(st, os.path.join(a.ckpt_dir, f\"epoch-{epoch}.pt\"))', '[rank0]:     "
        "self.file_like.write_end_of_file()', '[rank0]: RuntimeError: basic_ios::clear: iostream error', "
        "'Error in rule train:'"),
    "smk-burst-container-shm": (
        f"shm_exhausted: {W}; --config loader_workers=2 inside a mount namespace whose /dev/shm is a 32 KiB tmpfs "
        "(container default-sized shm); creating the DataLoader's multiprocessing semaphores in /dev/shm fails on both "
        "ranks and Snakemake reports the failed train rule. evidence: '[rank0]:     sl = self._semlock = "
        "_multiprocessing.SemLock(', '[rank0]: OSError: [Errno 28] No space left on device', 'Error in rule train:'"),
    "smk-burst-meter-offline": (
        f"training_divergence: {W}; district D04's flow meter reported 0 l/s (meter offline), so build_features' "
        "log-flow and night-flow-ratio features are -inf/inf and NaN after standardising (numpy RuntimeWarnings "
        "only); the first training step's loss is NaN and the training script's finite-loss check raises on both "
        "ranks. evidence: '/tmp/waveax-a-job/run/scripts/build_features.py:37: RuntimeWarning: divide by zero "
        "encountered in log', '[rank1]: FloatingPointError: loss is nan at epoch 1 step 1', 'Error in rule train:'"),
    "smk-burst-stopped-rank": (
        f"silent_hang: {W}, 8 epochs with --config step_delay=0.1 pg_timeout=1800 time_limit=60; rank 1 is "
        "SIGSTOPped in epoch 2 (process-group timeout 1800 s, so no collective error); training output stops and at "
        "the rule's 60 s limit the timeout wrapper SIGTERMs torchrun, which cannot stop the frozen rank and SIGKILLs "
        "it; Snakemake reports exit status 124. evidence: '[rank1] epoch 2 step 10 loss 0.4105', 'Received 15 death "
        "signal, shutting down workers', 'Unable to shutdown process 9795 via 15, forcefully exiting via 9', "
        "'returned non-zero exit status 124.', 'Error in rule train:'"),
    "smk-burst-rank-paused": (
        f"collective_timeout: {W}, 8 epochs with --config step_delay=0.1 pg_timeout=30; rank 1 is SIGSTOPped in epoch "
        "2; rank 0's gloo collective times out after 30 s, torchrun cannot stop the frozen rank with SIGTERM and "
        "SIGKILLs it, Snakemake reports the failed train rule. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms "
        "for recv operation to complete', 'Unable to shutdown process 10200 via 15, forcefully exiting via 9', "
        "'Error in rule train:'"),
    "smk-burst-preempted": (
        f"job_preempted: {W}, 30 epochs; in epoch 3 the scheduler SIGTERMs the job's process group (the shell and "
        "snakemake; the train rule's timeout wrapper runs torchrun in its own process group, so training does not get "
        "the signal); the shell dies (no exit line), Snakemake stops scheduling, waits for the running train job to "
        "finish its 30 epochs and then exits without running evaluate. evidence: '[rank0] epoch 3 step 10 loss "
        "0.2593', 'Will exit after finishing currently running jobs (scheduler).', '3 of 5 steps (60%) done', "
        "'WorkflowError:', 'At least one job did not complete successfully.'"),
    "smk-burst-ssh-closed": (
        f"terminal_hangup: {W}, 30 epochs, started from an SSH shell; the session closes in epoch 2 and the shell's "
        "process group (bash, snakemake) gets SIGHUP; snakemake has no SIGHUP handler and dies silently, the shell "
        "too (no exit line); the train rule's timeout wrapper keeps torchrun in its own process group, so the "
        "orphaned ranks train on to epoch 30 and the log just ends, with no Snakemake line after the train job's "
        "header and evaluate never run. No line names the signal. evidence: '[rank0] epoch 2 step 10 loss 0.4560' "
        "(signal sent after it), '    resources: tmpdir=/tmp, runtime=15' (last Snakemake line), '[rank0] finished 30 "
        "epochs, val acc 0.989' (last line)"),
    "smk-burst-batch-config": (
        f"batch_size_mismatch: {W}; --config micro_batch=64 while config.yaml keeps global_batch 128 and grad_accum 2 "
        "on 2 ranks; both ranks raise at start-up and Snakemake reports the failed train rule. evidence: '[rank0]: "
        "ValueError: global batch 128 != micro batch 64 x grad accum 2 x world size 2', 'Error in rule train:'"),
    "smk-burst-notebook-port": (
        f"port_in_use: {W}; a python -m http.server someone left running holds the master port 33041; torchrun's "
        "TCPStore cannot listen and the train job fails (retries 0 in config.yaml). evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 33041, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'Error in rule "
        "train:'"),
    "smk-burst-node-drain": (
        f"job_preempted: {W}, 30 epochs; in epoch 3 the node is drained and every process of the job (snakemake, the "
        "rule's timeout wrapper, torchrun) gets SIGTERM; torchrun shuts its ranks down and raises SignalException, "
        "the train job fails and Snakemake, already told to stop, exits without evaluate. evidence: 'Received 15 "
        "death signal, shutting down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: "
        "Process 14724 got signal: 15', 'Will exit after finishing currently running jobs (scheduler).', 'Error in "
        "rule train:'"),
    "smk-burst-rare-grade": (
        f"collective_mismatch: {W}; --config class_weights=true with an export holding a single 'high' risk-grade "
        "reading: each rank's torch.bincount of its shard has a different length (3 vs 2), so the all_reduce shapes "
        "differ; TORCH_DISTRIBUTED_DEBUG=DETAIL reports it. evidence: '[rank1]: RuntimeError: Detected mismatch "
        "between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=0, "
        "OpType=ALLREDUCE, TensorShape=[2]', 'Error in rule train:'"),
    "smk-burst-second-host": (
        f"rendezvous_timeout: {W}; --config nnodes=2 while no second node is ever started; torchrun's static "
        "rendezvous TCPStore on node 0 waits 60 s (--rdzv-conf timeout=60) for the other agent and gives up, "
        "Snakemake reports the failed train rule. evidence: 'torch.distributed.DistStoreError: Timed out after 61 "
        "seconds waiting for clients. 1/2 clients joined.', 'Error in rule train:'"),
}
