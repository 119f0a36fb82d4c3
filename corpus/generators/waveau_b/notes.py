"""Manifest notes of wave AU (b)'s committed runs (written after the runs, from what each log shows)."""
RUN = ("kedro run in the Kedro project birdsong (data_processing + training pipelines; train_classifier runs torchrun "
       "--nproc-per-node 2, DDP over gloo on CPU, and waits for it)")
NOTES = {
    "kedro-birdsong-healthy":
        f"no_failure: {RUN} with the SequentialRunner; 8 of 8 tasks, 3 epochs, checkpoints saved. Harmless noise: "
        "OmegaConf's register_new_resolver() deprecation UserWarnings at start-up. evidence: "
        "'[rank0] finished 3 epochs, val acc 0.378', 'Pipeline execution completed successfully in 11.2 sec.'",
    "kedro-birdsong-healthy-parallel":
        f"no_failure: {RUN} with --runner ParallelRunner (nodes in a process pool, the training node's torchrun "
        "launched from a pool process). Harmless noise: OmegaConf deprecation UserWarnings. evidence: "
        "'[rank0] finished 3 epochs, val acc 0.378', 'Pipeline execution completed successfully in 14.2 sec.'",
    "kedro-birdsong-healthy-threads-noise":
        f"no_failure: {RUN} with --runner ThreadRunner; the nightly export has 6 clips from a station missing from "
        "stations.csv, which the clean_recordings node logs at ERROR level and drops; the run completes. evidence: "
        "'ERROR    6 clips reference stations missing from stations.csv (st99); dropping them', "
        "'Pipeline execution completed successfully in 12.4 sec.'",
    "kedro-birdsong-healthy-resume":
        "no_failure: a first full kedro run (training.epochs=2, not kept) left checkpoints; the logged run is kedro run "
        "--from-nodes train_classifier --params training.epochs=5,training.resume=true: both ranks resume from last.pt "
        "at epoch 2 and train to epoch 5, then evaluate_model runs. evidence: "
        "'[rank0] resumed from data/06_models/checkpoints/last.pt (epoch 2)', "
        "'Pipeline execution completed successfully in 9.8 sec.'",
    "kedro-birdsong-healthy-port-retry":
        "no_failure: a developer's python -m http.server held the master port (31511) when the run started; the "
        "training node's first torchrun fails with EADDRINUSE, the node (training.attempts=2) logs a retry and waits "
        "10 s, the dev server is stopped meanwhile, and the second torchrun trains and the pipeline completes. "
        "A recovered fault. evidence: 'WARNING  torchrun exited with code 1 (attempt 1 of 2); retrying in 10 s', "
        "'[rank0] finished 3 epochs, val acc 0.378', 'job exited with 0'",
    "kedro-birdsong-new-species":
        f"worker_exception: the station export now contains a species (code firecr) that is not in the species "
        f"checklist; to_tensors gives it label 12 while the model head has 12 classes; {RUN}: cross_entropy raises on "
        "both ranks, torchrun fails, the Kedro node fails. evidence: '[rank0]: IndexError: Target 12 is out of bounds.', "
        "'RuntimeError: torchrun exited with code 1'",
    "kedro-birdsong-renamed-column":
        "worker_exception: an export tool update renamed the snr_db column to snr; kedro run --pipeline data_processing: "
        "the clean_recordings node raises KeyError (pandas), Kedro prints its rich traceback. No torch involved. "
        "evidence: 'ERROR    Node clean_recordings: clean_recordings([recordings;stations;params:features]) -> "
        "[clips_clean] failed with error:', \"KeyError: 'snr_db'\"",
    "kedro-birdsong-augment-oom":
        f"host_oom_killed: --params training.augment_copies=1500 (each rank builds 1500 float64 augmented copies of "
        f"its clips up front) with the whole job in a 1.2 GB cgroup-v1 memory cgroup; {RUN}: the kernel OOM killer "
        "SIGKILLs rank 0 while building the copies. evidence: 'exitcode  : -9 (pid: 25377)  (SIGKILL)', "
        "'traceback : Signal 9 (SIGKILL) received by PID 25377'",
    "kedro-birdsong-taxonomy-cycle":
        "native_crash: a checklist revision (species.csv) makes the family turdidae a child of the song thrush "
        "(sonthr -> turdidae -> sonthr); the attach_taxonomy node walks parent links with an lru_cache'd recursive "
        "function after sys.setrecursionlimit(1_000_000), the cycle overflows the C stack and the process dies of "
        "SIGSEGV (exit 139 when run sequentially); here kedro run --runner ParallelRunner, so the pool worker dies "
        "and Kedro reports a broken pool, no Python traceback of the crash. evidence: "
        "'BrokenProcessPool: A process in the process pool was terminated abruptly while the future was running or "
        "pending.'",
    "kedro-birdsong-checklist-loop":
        "native_crash: a checklist revision puts the family paridae under the great tit (gretit -> paridae -> gretit); "
        "kedro run --pipeline data_processing (SequentialRunner): attach_taxonomy's lru_cache'd recursion (recursion "
        "limit raised to 1,000,000) overflows the C stack and the kedro process dies of SIGSEGV mid-node; the shell "
        "reports it. evidence: 'bash: line 1:  3179 Segmentation fault      kedro run --pipeline data_processing "
        "--params \"training.master_port=31541\"', 'job exited with 139'",
    "kedro-birdsong-ckpt-volume":
        f"disk_full: data/06_models/checkpoints is a 512 KB tmpfs; {RUN} with training.epochs=4: rank 0's torch.save of "
        "a checkpoint runs out of space (PyTorch's ENOSPC symptoms, no errno text), rank 1 then sees the peer close. "
        "evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', "
        "'[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 2560 vs 2454'",
    "kedro-birdsong-intermediate-volume":
        "disk_full: data/02_intermediate is a 1 MB tmpfs; kedro run (SequentialRunner): the clean_recordings node's "
        "output clips_clean (pandas.CSVDataset, ~2 MB) cannot be written; Kedro raises DatasetError. evidence: "
        "'OSError: [Errno 28] No space left on device', 'DatasetError: Failed while saving data to dataset '",
    "kedro-birdsong-container-shm":
        f"shm_exhausted: the job runs in a mount namespace whose /dev/shm is a 32 KB tmpfs (container default-like); "
        f"{RUN} with training.loader_workers=2: creating the DataLoader worker queues (POSIX semaphores in /dev/shm) "
        "fails on both ranks. evidence: '[rank1]: OSError: [Errno 28] No space left on device', "
        "'RuntimeError: torchrun exited with code 1'",
    "kedro-birdsong-recorder-dropout":
        f"training_divergence: one station's recorder (st03) writes dropped frames as inf in the export; the features "
        f"carry inf into training; {RUN}: the loss is NaN from the first logged step and the trainer's finite-loss check "
        "stops both ranks. evidence: '[rank0]: FloatingPointError: loss is nan at epoch 1 step 2'",
    "kedro-birdsong-stopped-rank-wrapper":
        f"silent_hang: {RUN} under the team's wrapper timeout 100 with a 1800 s process-group timeout; rank 1 is "
        "stopped (SIGSTOP) at epoch 2 step 10, rank 0 blocks in the next collective and nothing more is printed for "
        "about 90 s, until timeout's SIGTERM kills kedro and torchrun. evidence: '[rank1] epoch 2 step 10 loss 2.3221', "
        "'Received 15 death signal, shutting down workers', 'job exited with 124'",
    "kedro-birdsong-rank-paused":
        f"collective_timeout: {RUN} with training.pg_timeout=30; rank 1 is stopped (SIGSTOP) at epoch 2 step 10, rank "
        "0's gloo collective times out after 30 s. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete'",
    "kedro-birdsong-rare-species":
        f"collective_mismatch: this season's export has only 2 clips of the wren (the last class); with "
        f"training.class_weights=true each rank all-reduces torch.bincount of its own shard's labels, and one rank's "
        f"shard has no wren, so the ranks all-reduce tensors of 11 and 12 elements; TORCH_DISTRIBUTED_DEBUG=DETAIL "
        f"was set by the team; {RUN}. evidence: '[rank1]: RuntimeError: Detected mismatch between collectives on "
        "ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, "
        "TensorShape=[11]'",
    "kedro-birdsong-time-limit":
        f"job_preempted: {RUN} (30 epochs); at epoch 3 the 'scheduler' sends SIGTERM to every process of the job "
        "(kedro, torchrun, ranks): kedro dies at once (exit 143), torchrun shuts its workers down. evidence: "
        "'Received 15 death signal, shutting down workers', 'job exited with 143', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 30491 got signal: 15'",
    "kedro-birdsong-cron-limit":
        f"job_preempted: {RUN} (30 epochs) started by a cron wrapper with a 30 s time limit (timeout 30); training "
        "progresses until timeout's SIGTERM kills kedro and torchrun. evidence: "
        "'Received 15 death signal, shutting down workers', 'job exited with 124'",
    "kedro-birdsong-ssh-closed":
        f"terminal_hangup: {RUN} in the foreground of an SSH session that closed at epoch 2: SIGHUP to the job's "
        "process group; the shell and kedro die, torchrun shuts its workers down. evidence: "
        "'Received 1 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 30634 got signal: 1'",
    "kedro-birdsong-batch-config":
        f"batch_size_mismatch: --params training.micro_batch=64 with global_batch 128, grad_accum 2 on 2 ranks; {RUN}: "
        "the trainer's batch check raises on both ranks. evidence: "
        "'[rank0]: ValueError: global batch 128 != micro batch 64 x grad accum 2 x world size 2'",
    "kedro-birdsong-notebook-port":
        f"port_in_use: a python -m http.server left running on the master port 31537; {RUN} (static rendezvous on "
        "127.0.0.1:31537): torchrun cannot create its store. evidence: 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 31537, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use'",
    "kedro-birdsong-second-host":
        f"rendezvous_timeout: --params training.nnodes=2 (the second host's job was never started); {RUN}: the static "
        "rendezvous waits 60 s (rdzv timeout) for the second node and fails. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.'",
    "kedro-birdsong-optimizer-typo":
        f"worker_exception: --params training.optimizer=adamW (typo for adamw); {RUN}: the trainer raises on both "
        "ranks when building the optimizer. evidence: \"[rank1]: ValueError: unknown optimizer 'adamW'\"",
}
