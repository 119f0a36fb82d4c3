"""What each committed run of wave AP (c) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "msrun-yield-healthy": (
        "msrun --worker_num=2 --local_worker_num=2 --master_port=30585 --join=True (worker logs tailed to the console): "
        "2 MindSpore workers train the crop-yield CNN on CPU for 3 epochs with DATA_PARALLEL gradient all-reduce and "
        "flip augmentation; validation RMSE all-reduced per epoch; rank 0 keeps 3 ModelCheckpoint files. Harmless "
        "noise: workers retrying the scheduler at start-up ('Failed to connect to the meta server', 'Topology build "
        "timed out., retry(1/1200)'), 'FusedSparseAdam' deprecation warnings. evidence: '[rank 0] epoch 3 validation "
        "RMSE 2.301 t/ha over 384 fields', \"[rank 0] checkpoints: ['yieldnet-1_20.ckpt', 'yieldnet-2_20.ckpt', "
        "'yieldnet-3_20.ckpt']\", 'job exited with 0'"),
    "msrun-yield-new-crop": (
        "worker_exception: region-04 re-exported with a fourth crop (sorghum) the script's crop table does not know; "
        "the dataset map op's one-hot lookup raises on rank 1 (regions 02,04) in its first batch, MindSpore's dataset "
        "engine wraps it, msrun kills the other worker and the scheduler reports the dead node. evidence: "
        "'RuntimeError: Exception thrown from user defined Python function in dataset.', 'map operation: [PyFunc] "
        "failed.', \"onehot[CROP_IDS[c]] = 1.0\", \"KeyError: 'sorghum'\", 'Worker process 24957 exit with exception. "
        "Error code: 1.', 'The node: 1 is timed out.', 'job exited with 1'"),
    "msrun-yield-fine-patches": (
        "worker_exception: the data were re-exported as 24x24 px patches while the script's --patch stays 16, so the "
        "CNN's dense layer is sized for 16 px; the first training step fails shape inference on both workers. "
        "evidence: \"ValueError: For 'MatMul' the input dimensions must be equal, but got 'x1_col': 1152 and "
        "'x2_row': 512.\" (from train_yield.py construct, img_fc), 'mindspore/ops/infer/ops_func_impl//matmul.cc:200 "
        "InferShape', 'Worker process ... exit with exception. Error code: 1.', 'job exited with 1'"),
    "msrun-yield-drought-year": (
        "training_divergence: --log-target (regress log yield) on a drought-year re-export of region-02 where 4% of "
        "fields were abandoned after crop failure and reported as 0 t/ha; log(0) = -inf makes the loss infinite at "
        "step 2 and MindSpore's LossMonitor stops training on rank 1 (the other worker is then killed by msrun). "
        "evidence: 'RuntimeWarning: divide by zero encountered in log', 'ValueError: In epoch: 1 step: 2, loss is NAN "
        "or INF, training process cannot continue, terminating training.', 'Worker process 4725 exit with exception. "
        "Error code: 1.', 'job exited with 1'"),
    "msrun-yield-drone-grid": (
        "host_oom_killed: --upsample 8 --patch 128 resamples every patch onto a 128 px grid in float64 in memory on "
        "each worker, inside a 1.5 GB cgroup-v1 memory cgroup holding the whole job; the kernel OOM killer SIGKILLs "
        "the workers while they load (dmesg: 'Memory cgroup out of memory: Killed process ... (python)', not in the "
        "log). evidence: 'Worker process 26582 exit with exception. Error code: -9.', \"There's worker exits with "
        "exception, kill all other workers.\", 'Timed out node list is: [const vector]{0, 1}', 'job exited with 1'"),
    "msrun-yield-frequent-ckpt": (
        "disk_full: --ckpt-every 5 --keep-ckpt 20 into checkpoints/, a 1 MB volume already holding 400 KB of earlier "
        "runs; a checkpoint is ~460 KB, the first fits, the second ModelCheckpoint save fails on rank 0. evidence: "
        "'mindspore/train/serialization.py ... _write_parameter_bytes_data', 'OSError: [Errno 28] No space left on "
        "device', 'Worker process 27148 exit with exception. Error code: 1.', 'job exited with 1'"),
    "msrun-yield-time-limit": (
        "job_preempted: a 40-epoch job; in epoch 2 the scheduler's time limit sends SIGTERM to every process of the "
        "job (msrun, the MindSpore scheduler process and both workers); the console stops and the shell reports "
        "the launcher terminated. evidence: 'epoch: 2 step: 10, loss is 5.550783634185791', 'Terminated', 'job exited "
        "with 143'"),
    "msrun-yield-ssh-closed": (
        "terminal_hangup: a 40-epoch msrun --join job in an interactive shell; in epoch 2 the SSH session closes and "
        "SIGHUP goes to the job's process group (the shell, msrun, its tail -f log followers and the scheduler "
        "process; the workers run in their own sessions); msrun prints nothing and the console just stops, no "
        "'job exited' line. evidence: last lines 'epoch: 2 step: 10, loss is 7.263171672821045', 'epoch: 2 step: 10, "
        "loss is 5.550783634185791' with nothing after them"),
    "msrun-yield-second-experiment": (
        "port_in_use: an earlier 40-epoch experiment launched by msrun on --master_port=30593 is still training (its "
        "console not kept) when the user starts a second one with the same port: the new scheduler cannot bind, and "
        "the new workers reach the old scheduler, which refuses them as duplicates. evidence: 'Listen] Failed to call "
        "bind, url: 127.0.0.1:30593 Address already in use', 'Building networking for MS_SCHED failed.', "
        "'RuntimeError: Failed to register the compute graph node: 1. Reason: Repeated registration node: 1 to the "
        "scheduler. Please check if there's another scheduler process with port:30593 still running', 'job exited "
        "with 1'"),
    "msrun-yield-small-shm": (
        "shm_exhausted: --loader-workers 2 --max-rowsize 16 (GeneratorDataset with two Python worker processes and "
        "16 MB shared-memory rows) in a container-sized 64 MB /dev/shm (a private mount namespace with its own "
        "tmpfs): MindSpore's dataset engine refuses to start the loader on both workers. evidence: 'RuntimeError: "
        "Insufficient shared memory available. Required: 1207959552, Available: 67088384. The required memory can't "
        "exceed 80% of the available shared memory', 'RuntimeError: Exception thrown from user defined Python "
        "function in dataset.', 'job exited with 1'"),
    "msrun-yield-data-refresh": (
        "native_crash: --mmap memory-maps the regions' patch arrays (npy); in epoch 2 a colleague's refresh "
        "re-exports region-02 in place with fewer fields (np.save truncates and rewrites the mapped file), and rank "
        "1's next read of a page past the new end of file raises SIGBUS. MindSpore's handler blames /dev/shm, which is "
        "not full (the file truncation is the cause). evidence: 'Unexpected bus error encountered in process. "
        "Non-existent physical address. This might be caused by insufficient shared memory.', 'Worker process 1402 "
        "exit with exception. Error code: -7.', 'job exited with 1'"),
    "msrun-yield-third-host": (
        "rendezvous_timeout: msrun --worker_num=3 --local_worker_num=2 --cluster_time_out=90 on this host; the msrun "
        "for the third worker on the second host was never started, so the two workers and the scheduler wait for "
        "it and give up after 90 s (msrun's tail -f shows only the last lines of each log from its start). evidence: "
        "'BuildCluster] Topology build timed out., retry(180/180).', 'RuntimeError: Failed to initialize distributed "
        "job cluster because some processes in the cluster are not successfully spawned. ... 1.Spawned worker process "
        "number is not as expected.', 'job exited with 1'"),
    "logs-yield-healthy-three-workers": (
        "msrun with 3 workers on the 2-CPU host (console to /dev/null, the msrun_logs folder pasted with tail -n +1), "
        "map op with 2 Python worker processes (python_multiprocessing), 6 regions, 3 epochs; scheduler and worker "
        "start-up retries, 'Cluster currently has 3 alive nodes' every 5 s. evidence: '==> msrun_logs/scheduler.log "
        "<==', 'Node 1 has unregistered.', '[rank 0] epoch 3 validation RMSE 2.299 t/ha over 576 fields', '[rank 2] "
        "finished in 44.0s', 'job exited with 0'"),
    "logs-yield-more-map-workers": (
        "worker_exception: --mp --workers 4 asks the dataset map op for 4 parallel workers on a 2-CPU host; "
        "MindSpore's argument validation raises while the pipeline is built on both workers (log folder pasted). "
        "evidence: 'ValueError: num_parallel_workers exceeds the boundary between 1 and 2!' (from train_yield.py "
        "pipeline, d.map), 'The node: 0 is timed out.', 'job exited with 1'"),
    "logs-yield-new-sensor": (
        "collective_mismatch: regions 02 and 04 re-exported by a newer sensor with 6 bands (red-edge inserted); rank "
        "1 (regions 02,04) builds its CNN for 7 input channels, rank 0 for 6, so the first gradient all-reduce gets "
        "buffers of different sizes (log folder pasted). evidence: '[rank 1] regions region-02,region-04: 640 train / "
        "192 val fields, 6 bands', 'RunRingAllReduce] Memcpy error, errorno(162), dest size is 1728, src size is "
        "2016', 'AllReduceCPUKernelMod launch failed.', 'Launch kernel failed: Default/AllReduce-op0', rank 1 'Client "
        "connected end of file! Peer Worker', 'job exited with 1'"),
    "logs-yield-team-site": (
        "library_version_mismatch: PYTHONPATH points at a team's shared site directory holding numpy 2.4.6, which "
        "shadows the venv's numpy 1.26; MindSpore 2.10's extension was compiled against NumPy 1.x. Both workers "
        "print the NumPy ABI warning and 'Numpy init failed', train the 2 epochs, then do not leave the cluster: the "
        "scheduler times a node out and msrun exits 1 (log folder pasted). evidence: 'A module that was compiled "
        "using NumPy 1.x cannot be run in NumPy 2.4.6 as it may crash.', 'File \"/tmp/waveap-c-job/site-packages/numpy/"
        "core/_multiarray_umath.py\"', 'ImportError:', 'py_parse.cc:132] operator()] Numpy init failed.', '[rank 1] "
        "finished in 22.8s', 'UpdateTopoState] The node: 1 is timed out.', 'job exited with 1'"),
    "env-yield-healthy-late-worker": (
        "the dynamic cluster by environment variables on two \"hosts\" (MS_ROLE, MS_WORKER_NUM=2, MS_SCHED_HOST, "
        "MS_SCHED_PORT=30601, MS_NODE_ID): host 0 runs the scheduler and worker 0 (launch_cluster.sh with "
        "LOCAL_WORKERS=1), host 1's worker (join_cluster.sh) starts 25 s later; worker 0 waits ('Topology build timed "
        "out., retry(62/3600)' warnings, harmless) and the job then trains 3 epochs; both consoles kept. evidence: "
        "node0 'The new node: 1(role: MS_WORKER) ... is registered successfully', 'Cluster is successfully "
        "initialized.', '[rank 0] epoch 3 validation RMSE 2.301 t/ha over 384 fields', 'process 13261 exited with "
        "status 0', 'job exited with 0'; node1 '[rank 1] finished in 28.0s', 'job exited with 0'"),
    "env-yield-healthy-resume": (
        "launch_cluster.sh (MS_ROLE=MS_SCHED plus two MS_ROLE=MS_WORKER processes on one console, MS_SCHED_PORT=30605): "
        "fine-tuning for 2 epochs from an earlier 1-epoch run's checkpoint (--resume checkpoints/yieldnet-1_20.ckpt, "
        "new checkpoints to finetuned/); scheduler heartbeat and socket warnings at shutdown are harmless. evidence: "
        "'[rank 0] resumed from checkpoints/yieldnet-1_20.ckpt (28 tensors, not loaded: [])', '[rank 1] epoch 2 "
        "validation RMSE 2.333 t/ha over 384 fields', 'Node 1 has unregistered.', 'process 14356 exited with status "
        "0', 'job exited with 0'"),
    "env-yield-weather-service": (
        "collective_timeout: launch_cluster.sh (scheduler + 2 workers by MS_ROLE environment variables, port 30603) "
        "with --weather-api: rank 0's regions have cached season-forecast adjustments, rank 1 must fetch region-02 "
        "from the agronomy service, which accepts the connection but never answers (a wedged service, its console "
        "not kept), so rank 1 never reaches training; rank 0's first gradient all-reduce waits for it and fails "
        "after 30 s, the scheduler then times rank 0 out and MindSpore's cluster callback SIGTERMs rank 1, still "
        "blocked in the HTTP read. evidence: 'fetching weather adjustments for region-02 from "
        "http://127.0.0.1:30604' (rank 1's last line), 'RunRingAllReduce] Ring ReduceScatter wait receiving [1,1] "
        "failed.', 'AllReduceCPUKernelMod launch failed.', 'Launch kernel failed: Default/AllReduce-op0', 'The node: "
        "0 is timed out.', 'Callback on exception is called.', 'Kill this process with SIGTERM.', 'process 14788 "
        "exited with status 143', 'job exited with 143'"),
    "hosts-yield-host-lost": (
        "peer_process_died: two \"hosts\" with the dynamic cluster's environment variables (port 30607): host 0 runs "
        "the scheduler and worker 0 (launch_cluster.sh, LOCAL_WORKERS=1), host 1 runs worker 1 (join_cluster.sh); in "
        "epoch 2 of 30 everything on host 1 is SIGKILLed (host lost); only host 0's console is kept: worker 0's "
        "connection to the peer closes, its all-reduce fails, the scheduler times node 1 out and MindSpore's "
        "callback SIGTERMs worker 0. evidence: 'EventCallbackInner] Client connected end of file! Peer Worker ip: "
        "127.0.0.1', 'UpdateTopoState] The node: 1 is timed out.', 'RunRingAllReduce] Ring ReduceScatter wait "
        "receiving [1,573] failed.', 'Kill this process with SIGTERM.', 'Timed out node list is: [const "
        "vector]{1}', 'process 15286 exited with status 143', 'job exited with 143'"),
    "msrun-yield-weather-service": (
        "silent_hang: msrun --join (port 30609) with --weather-api to an agronomy service that accepts connections but "
        "never answers (a wedged service on 30610, its console not kept) and no cached adjustments: both workers "
        "block in their first HTTP read before any collective, the cluster's heartbeats keep it alive, nothing is "
        "printed for 120 s, then the user presses Ctrl-C (SIGINT to the process group) and msrun kills the workers "
        "and exits 0. evidence: last progress lines 'fetching weather adjustments for region-02 from "
        "http://127.0.0.1:30610' and 'fetching weather adjustments for region-01 from http://127.0.0.1:30610' at "
        "01:59:54, then '02:01:54 ... msrun process received SIGINT (Ctrl+C), terminating all workers.', 'job "
        "exited with 0'"),
}
