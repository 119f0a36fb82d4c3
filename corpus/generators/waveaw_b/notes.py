"""Manifest notes for wave AW (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("dvc repro of a corrosion-growth classifier pipeline (DVC 3.67.1, git repo, local cache; prepare -> featurize -> "
     "train -> evaluate stages, train's cmd torchrun --nproc_per_node=2 src/train.py, DDP over gloo on CPU)")
X = W.replace("dvc repro of", "dvc exp run of")
NOTES = {
    "dvc-ili-healthy": (
        f"no_failure: {W}, 3 epochs, every stage runs and dvc.lock is updated; no noise beyond DVC's own hint. "
        "evidence: '[rank0] finished 3 epochs, val acc 0.910, wrote models/model.pt', \"Use `dvc push` to send your "
        "updates to remote storage.\", 'job exited with 0'"),
    "dvc-ili-healthy-garbled-rows": (
        f"no_failure: {W}; the ILI export has 6 rows with an unreadable depth that the prepare stage prints as ERROR "
        "lines and drops; the pipeline finishes. evidence: \"ERROR anomaly A000000: unreadable depth_pct '#N/A', row "
        "dropped\", 'read 3000 anomalies, kept 2994 (6 dropped), 60 segments, deepest 59 hops', 'job exited with 0'"),
    "dvc-ili-healthy-exp-resume": (
        f"no_failure: {X}; after an earlier committed 2-epoch run, dvc exp run -S train.epochs=4 skips the unchanged "
        "prepare/featurize stages and train resumes from the persistent models/ckpt out. evidence: \"Stage 'prepare' "
        "didn't change, skipping\", '[rank0] resumed from models/ckpt/last.pt (epoch 2)', 'job exited with 0'"),
    "dvc-ili-healthy-exp-lr": (
        f"no_failure: {X} with -S train.lr=0.002 in a repository without dvc.lock yet; DVC's 'No file hash info found' "
        "WARNINGs are harmless and the experiment finishes. evidence: \"WARNING: No file hash info found for "
        "'/tmp/waveaw-b-job/run/data/features'. It won't be created.\", 'Experiment results have been applied to your "
        "workspace.', 'job exited with 0'"),
    "dvc-ili-healthy-port-rerun": (
        f"no_failure: {W}; a python -m http.server held the master port so the first dvc repro failed at train with "
        "EADDRINUSE; the server was stopped and the team's wrapper re-ran dvc repro, which skipped the unchanged "
        "stages and trained to the end (recovered fault). evidence: 'torch.distributed.DistNetworkError: The server "
        "socket has failed to listen on any local network address. port: 31909, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', \"Stage 'featurize' didn't change, skipping\", 'job exited "
        "with 0'"),
    "dvc-ili-new-growth-class": (
        f"worker_exception: {W}; the ILI export gained a growth class 5 while params.yaml's num_classes is 5, so "
        "cross_entropy raises on rank 1 and rank 0 sees the peer close. evidence: '[rank1]: IndexError: Target 5 is "
        "out of bounds.', \"ERROR: failed to reproduce 'train': failed to run: torchrun --nnodes=1 --nproc_per_node=2 "
        "--node_rank=0 --master_addr=127.0.0.1 --master_port=31911 --rdzv_conf=timeout=60 src/train.py, exited with "
        "1\""),
    "dvc-ili-params-typo": (
        f"worker_exception: {W}; params.yaml's train section spells the key 'optimiser', train.py reads "
        "p['optimizer'] and raises KeyError on both ranks. evidence: \"[rank0]: KeyError: 'optimizer'\", "
        "\"ERROR: failed to reproduce 'train': failed to run: torchrun --nnodes=1 --nproc_per_node=2 --node_rank=0 "
        "--master_addr=127.0.0.1 --master_port=31913 --rdzv_conf=timeout=60 src/train.py, exited with 1\""),
    "dvc-ili-augment-oom": (
        f"host_oom_killed: {W}; train.augment_copies=16000 builds float64 copies up front inside a 1.2 GB cgroup-v1 "
        "memory limit and the kernel OOM killer SIGKILLs a rank. evidence: '[rank1] augmentation: built 0 of 16000 "
        "copies', '  exitcode  : -9 (pid: 17294)  (SIGKILL)'"),
    "dvc-ili-rerouted-line": (
        f"native_crash: {W}; the export re-links segment SEG020 upstream to SEG041 (a loop), the prepare stage's "
        "recursive upstream walk (recursion limit raised to 1,000,000) overflows the C stack and the process dies of "
        "SIGSEGV. evidence: \"ERROR: failed to reproduce 'prepare': failed to run: python src/prepare.py, exited with "
        "-11\""),
    "dvc-ili-cache-volume": (
        f"disk_full: {W}; the DVC cache dir is a 3 MB tmpfs volume already mostly used, so after training DVC cannot "
        "save the train stage's outs into the cache. evidence: \"ERROR: failed to reproduce 'train': [Errno 28] No "
        "space left on device\""),
    "dvc-ili-container-shm": (
        f"shm_exhausted: {W}; train.loader_workers=2 with a 32 kB /dev/shm (private mount namespace): the DataLoader "
        "cannot create its semaphores in /dev/shm. evidence: '[rank1]: OSError: [Errno 28] No space left on device', "
        "'[rank1]:     sl = self._semlock = _multiprocessing.SemLock('"),
    "dvc-ili-vendor-sentinel": (
        f"training_divergence: {W}; one inspection vendor writes wall thickness -1 for unmeasured anomalies, the "
        "log(remaining wall) feature becomes NaN and the loss is NaN from the first step; the finite-loss check "
        "stops the run. evidence: '[rank0]: FloatingPointError: loss is nan at epoch 1 step 1'"),
    "dvc-ili-stopped-rank": (
        f"silent_hang: {W}; rank 1 was SIGSTOPped at epoch 2 step 10 with a 1800 s process-group timeout; no more "
        "progress lines, no error, until timeout 100 SIGTERMs the job (exit 124) and torchrun SIGKILLs the stopped "
        "rank. evidence: 'job exited with 124', 'Unable to shutdown process 18218 via 15, forcefully exiting via 9'"),
    "dvc-ili-rank-paused": (
        f"collective_timeout: {W}; rank 1 was SIGSTOPped at epoch 2 step 10 with pg_timeout 30 s; rank 0's gloo "
        "collective times out. evidence: 'Timed out waiting 30000ms for recv operation to complete'"),
    "dvc-ili-drain": (
        f"job_preempted: {W}; 30-epoch run, at epoch 3 the job's process group got SIGTERM from outside (a node "
        "drain); torchrun forwards it to the ranks, the shell died so no exit line. evidence: 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19314 got signal: 15'"),
    "dvc-ili-ssh-closed": (
        f"terminal_hangup: {W}; at epoch 2 the job's process group got SIGHUP (the launching terminal closed); "
        "torchrun stops the ranks. evidence: 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19482 got signal: 1'"),
    "dvc-ili-batch-config": (
        f"batch_size_mismatch: {W}; params.yaml sets micro_batch 64 with global_batch 128, grad_accum 2 and 2 ranks; "
        "train.py's global-batch check raises on both ranks. evidence: '[rank0]: ValueError: global batch 128 != micro "
        "batch 64 x grad accum 2 x world size 2'"),
    "dvc-ili-notebook-port": (
        f"port_in_use: {W}; a python -m http.server left running holds the master port 31935, torchrun's TCPStore "
        "cannot listen. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any "
        "local network address. port: 31935, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in "
        "use'"),
    "dvc-ili-cron-limit": (
        f"job_preempted: {W} under a cron wrapper's timeout 45; the 30-epoch run is SIGTERMed at the time limit. "
        "evidence: 'job exited with 124', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19686 got signal: 15'"),
    "dvc-ili-rare-severe": (
        f"collective_mismatch: {W}; the export has a single severe (class 4) anomaly and train.class_weights=true: "
        "each rank's torch.bincount over its shard has a different length, the all_reduce shapes differ and "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL reports it. evidence: '[rank0]: RuntimeError: Detected mismatch between "
        "collectives on ranks.'"),
    "dvc-ili-second-host": (
        f"rendezvous_timeout: {W}; params.yaml says train.nnodes=2 but no second host starts its agent; torchrun's "
        "static rendezvous store times out. evidence: 'torch.distributed.DistStoreError: Timed out after 61 seconds "
        "waiting for clients. 1/2 clients joined.'"),
}
