"""What each committed run showed (a manifest note per scenario; written after the runs)."""

NOTES = {
    "ddp-solar-healthy-verbose":
        "no_failure: LOGLEVEL=INFO torchx run -s local_cwd dist.ddp -j 1x2 --script train_solar.py -- --epochs 4: "
        "torchrun under TorchX (its elastic agent's INFO lines relayed by torchx), 2 gloo ranks, 4 epochs, checkpoints "
        "each epoch. evidence: 'rdzv_endpoint            : localhost:0', '[rank0] epoch 4 val RMSE 128.9 kW over 6528 "
        "forecast steps', '[rank0] finished 4 epochs in 7.4 s', 'Local worker group finished (WorkerState.SUCCEEDED)', "
        "'torchx ... INFO     Job finished: SUCCEEDED', 'job exited with 0'",
    "spmd-solar-healthy-keep":
        "no_failure: torchx run -s local_cwd dist.spmd -j 1x2 ... --epochs 5 --keep 2 on this CPU-only host: the "
        "spmd component's default named resource gpu.small makes TorchX warn (nproc_per_node=2 vs 1 GPU, replicas that "
        "require GPUs without CUDA_VISIBLE_DEVICES may hit CUDA OutOfMemory) although no GPU is used; the 5 epochs "
        "complete. evidence: \"UserWarning: In `-j 1x2` you specified nproc_per_node=2 which does not equal the number "
        "of GPUs on a gpu.small: 1\", 'such as CUDA OutOfMemory errors.', '[rank0] finished 5 epochs in 13.7 s', "
        "'Job finished: SUCCEEDED', 'job exited with 0'",
    "custom-solar-healthy":
        "no_failure: the project's own component (torchx run forecast.py:trainer -- --epochs 4): an AppDef with one "
        "role 'trainer', 2 replicas, each one python process with RANK from the replica id and MASTER_PORT 30840 from "
        ".torchxconfig ([component:forecast.py:trainer]); env:// rendezvous, DDP over gloo. evidence: 'loaded configs "
        "from .../.torchxconfig', 'local_cwd://torchx/solar-forecast-...', 'trainer/0 [rank0] finished 4 epochs in "
        "8.8 s', 'Job finished: SUCCEEDED', 'job exited with 0'",
    "api-solar-healthy-resume":
        "no_failure: run_pipeline.py (a pipeline step using torchx.runner.get_runner().run(dist.ddp(...), "
        "scheduler='local_cwd'), then runner.log_lines and runner.wait) resumes from the epoch-2 checkpoint an earlier "
        "pipeline run (not logged) left, and trains epochs 3-5. evidence: 'pipeline: launched local_cwd://torchx/"
        "train_solar-...', '[rank0] resumed from checkpoints/epoch-002.pt (epoch 2, val RMSE 135.0 kW)', '[rank0] "
        "finished 3 epochs in 5.8 s', 'pipeline: local_cwd://torchx/train_solar-... finished: SUCCEEDED', "
        "'job exited with 0'",
    "ddp-solar-site-export":
        "worker_exception: dist.ddp -j 1x2; site-03's irradiance was re-exported without the wind_ms column (4 "
        "columns instead of 5) while meta.json still normalises 37 features. Only rank 1 (sites 01, 03, 05) reads "
        "site-03: its DataLoader raises in the first epoch; rank 0 then sees the gloo connection close; torchrun "
        "reports both and torchx shows rank 1's error file. evidence: \"[rank1]: ValueError: operands could not be "
        "broadcast together with shapes (48,36) (37,)\" (in train_solar.py features '(x - self.mean) / self.std'), "
        "'[rank0]: RuntimeError: ... pair.cc:553] Connection closed by peer', 'exitcode  : 1' with 'error_file: "
        ".../attempt_0/1/error.json', 'Job finished: FAILED', 'job exited with 1'",
    "custom-solar-new-site":
        "worker_exception: forecast.py:trainer --port 30841; a seventh site folder (site-06) was added to data/ but "
        "not to sites.csv. Rank 0 (sites 00, 02, 04, 06) raises KeyError looking up its capacity; rank 1, already in "
        "DDP's constructor, sees the connection close. torchx's AppStatus quotes rank 0's error file. evidence: "
        "\"trainer/0 [rank0]: KeyError: 'site-06'\" (in main 'sites.append(load_site(d, caps[d.name]))'), "
        "'trainer/1 [rank1]: RuntimeError: ... Connection closed by peer', \"message: 'KeyError: ''site-06'''\", "
        "'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-window-preload":
        "host_oom_killed: dist.ddp -j 1x2 --preload --window 288 --stride 1 inside a 1.5 GB memory cgroup: each rank "
        "materialises every 3-day window as float64 (about 0.8 GB a rank, twice while np.stack copies); the kernel "
        "OOM killer kills rank 0 while it builds the cache (after 'loading site-04'); torchrun SIGTERMs rank 1. No "
        "Python error. evidence: 'failed (exitcode: -9) local_rank: 0', 'exitcode  : -9 (pid: ...)  (SIGKILL)', "
        "'error_file: <N/A>', 'structured_error_msg: <NONE>', 'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-feature-refresh":
        "native_crash: dist.ddp -j 1x2 --epochs 8; the trainer reads each site's sky-camera features memory-mapped "
        "(np.load mmap_mode='r'). In epoch 2 the camera pipeline (make_sky.py --stream, started from outside, not "
        "logged) re-exports site-01's sky.npy in place: the file is truncated and rewritten block by block, so rank 1's "
        "next read of a mapped page past the new end of file raises SIGBUS. evidence: 'train_solar/0 [1]:Fatal Python "
        "error: Bus error' (in train_solar.py features, via DataLoader __next__), 'failed (exitcode: -7) local_rank: "
        "1', 'exitcode  : -7 (pid: ...)  (SIGBUS)', 'traceback : Signal 7 (SIGBUS) received by PID', rank 0 "
        "'Connection closed by peer', 'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-debug-flags":
        "native_crash: torchx run -s local_cwd dist.ddp -j 1x2 --debug True: TorchX's preset debug flags "
        "(TORCH_DISTRIBUTED_DEBUG=DETAIL, NCCL_DESYNC_DEBUG=1, CUDA_LAUNCH_BLOCKING=1, TORCH_SHOW_CPP_STACKTRACES=1) "
        "on this torch 2.13.0 CPU build: both ranks die of SIGSEGV inside DDP's constructor (_ddp_init_helper), "
        "before the first step; nothing in the training code is at fault and the same run without --debug succeeds. "
        "evidence: 'train_solar/0 [0]:Fatal Python error: Segmentation fault', 'distributed.py\", line 1473 in "
        "_ddp_init_helper', 'failed (exitcode: -11) local_rank: 0', 'exitcode  : -11 (pid: ...)  (SIGSEGV)', "
        "'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-checkpoints":
        "disk_full: dist.ddp -j 1x2 --epochs 6 with checkpoints/ on a 2 MB scratch volume (tmpfs); each checkpoint "
        "is 0.55 MB, so the fourth torch.save runs out of space. PyTorch's zip writer reports it as a stream error, not "
        "ENOSPC. evidence: '[rank0] saved checkpoint checkpoints/epoch-003.pt (0.55 MB)', '[rank0] epoch 4 val RMSE "
        "128.9 kW', '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail "
        "at inline_container.cc:672] . unexpected pos 442368 vs 442260' (in main 'torch.save(...)'), rank 1 "
        "'Connection closed by peer', 'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-longer-export":
        "collective_mismatch: dist.ddp -j 1x2; site-01 was re-exported with 7,000 steps instead of 4,000, so rank 1 "
        "(sites 01, 03, 05) has 49 batches an epoch and rank 0 39. Rank 0 finishes the epoch and all-reduces its 2 "
        "validation sums while rank 1 is still in DDP's gradient all-reduce (44,408 floats): gloo aborts rank 0 on the "
        "size mismatch, rank 1 then sees the connection reset. evidence: \"terminate called after throwing an instance "
        "of 'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. 44408 vs 8. Received data size doesn't match "
        "expected size. Is there a distributed collective mismatch', 'Fatal Python error: Aborted' (rank 0 in "
        "all_reduce, train_solar.py line 211), '[rank1]: RuntimeError: ... Read error ... Connection reset by peer' (in "
        "loss.backward()), 'exitcode  : -6 ... (SIGABRT)', 'job exited with 1'",
    "ddp-solar-team-libs":
        "library_version_mismatch: dist.ddp -j 1x2 --env PYTHONPATH=/tmp/wavear-c-job/team-libs: a shared library "
        "folder holding pandas 1.5.3 (built against NumPy 1.x) shadows the venv's pandas while the venv has NumPy "
        "2.4; both ranks fail importing pandas, before the process group. evidence: 'File \"/tmp/wavear-c-job/"
        "team-libs/pandas/__init__.py\"', 'ValueError: numpy.dtype size changed, may indicate binary incompatibility. "
        "Expected 96 from C header, got 88 from PyObject' (at 'import pandas as pd'), 'exitcode  : 1', 'Job "
        "finished: FAILED', 'job exited with 1'",
    "ddp-solar-grad-accum":
        "batch_size_mismatch: dist.ddp -j 1x2 --batch-size 96 --grad-accum 5: the global batch does not divide into "
        "grad accum x world size (96 / 10); the script's check raises on both ranks before training. evidence: "
        "'ValueError: global batch size 96 != micro batch 9 * grad accum 5 * world size 2', 'error_file: "
        ".../attempt_0/0/error.json', 'Job finished: FAILED', 'job exited with 1'",
    "spmd-solar-scada-watts":
        "training_divergence: dist.spmd -j 1x2 --optimizer sgd --lr 0.01 --log-every 2; site-02's power was "
        "re-exported from the inverter SCADA in watts instead of kW, so rank 0's targets (power / capacity) are about "
        "1000x too large; SGD with momentum blows up (DDP shares the update, so rank 1's loss follows) and the loss is "
        "NaN at step 9; the script's finite-loss check stops both ranks. evidence: '[rank0] epoch 1 step 2/39 loss "
        "28685.79297', '[rank1] epoch 1 step 6/39 loss 138.95363', '[rank0] epoch 1 step 8/39 loss "
        "4769794390048725777988452352.00000', 'FloatingPointError: loss is nan at epoch 1 step 9' on both ranks, "
        "'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-site-report":
        "collective_timeout: dist.ddp -j 1x2 --site-report 50 --pg-timeout 20: after each epoch's checkpoint rank 0 "
        "alone computes per-site MC-dropout forecast intervals (50 stochastic passes for every validation window of all "
        "six sites, tens of seconds) while rank 1 waits in the epoch's closing dist.barrier(); with the process group "
        "timeout at 20 s the gloo barrier on rank 1 times out and torchrun SIGTERMs rank 0, which never prints its "
        "coverage line. evidence: '[rank0] saved checkpoint checkpoints/epoch-001.pt (0.55 MB)', '[rank1]: "
        "RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to "
        "complete' (in main 'dist.barrier()'), 'Sending process ... closing signal SIGTERM', 'failed (exitcode: 1) "
        "local_rank: 1', 'Job finished: FAILED', 'job exited with 1'",
    "ddp2-solar-time-limit":
        "job_preempted: torchx run -s local_cwd dist.ddp -j 2x1 --rdzv_port 30845 ... --epochs 40 (two replicas, each "
        "a torchrun agent, c10d rendezvous on 30845); in epoch 3 the torchx launcher gets SIGTERM from outside (a "
        "scheduler's time limit). TorchX's local scheduler turns it into a SignalException and terminates its replicas; "
        "both agents report the death signal and SIGTERM their workers. evidence: 'train_solar/0 ... "
        "api.py:753] Received 15 death signal, shutting down workers', 'train_solar/1 ... Received 15 death signal', "
        "'[rank1]: RuntimeError: ... Connection reset by peer' (a symptom), 'torchx.schedulers.local_scheduler."
        "SignalException: Process ... got signal: 15' (in runner.wait), 'job exited with 1'",
    "ddp2-solar-ssh-closed":
        "terminal_hangup: torchx run -s local_cwd dist.ddp -j 2x1 --rdzv_port 30846 ... --epochs 40 from a terminal "
        "session; in epoch 2 the session closes and SIGHUP reaches its process group. TorchX's local scheduler handles "
        "only SIGTERM/SIGINT, so the torchx process (and the shell) die of the hangup at once without a word; the "
        "replicas run in their own sessions, so they keep training orphaned, their output no longer relayed. The log "
        "simply stops: no error, no 'Job finished', no 'job exited' line. evidence: last lines 'train_solar/0 "
        "[0]:[rank0] epoch 2 step 20/39 loss 0.00500 avg 0.00861', 'train_solar/1 [0]:[rank1] epoch 2 step 20/39 loss "
        "0.01522 avg 0.01168'; nothing after",
    "custom-solar-export-lock":
        "silent_hang: forecast.py:trainer --port 30842; the camera pipeline's exporter (make_sky.py --stream for "
        "site-03, started before the job, not logged) holds site-03's export lock exclusively while it appends frames at "
        "camera pace. The trainer takes a shared lock before reading a site, so rank 1 blocks on it after 'loading "
        "site-03' with no message; rank 0 loaded its sites and waits in DDP's constructor for rank 1 (gloo timeout 30 "
        "min). Nothing is printed for 100 s, then the user presses Ctrl-C: TorchX's local scheduler raises its "
        "SignalException and terminates the replicas. evidence: last training lines 'trainer/0 [rank0] sites "
        "['site-00', 'site-02', 'site-04']: 2508 train / 408 val windows', 'trainer/1 [rank1] loading site-01', "
        "'trainer/1 [rank1] loading site-03' (no 'sites' line from rank 1), 'torchx.schedulers.local_scheduler."
        "SignalException: Process ... got signal: 2', 'job exited with 1'",
    "custom-solar-healthy-cold-cache":
        "no_failure: forecast.py:trainer --port 30844 --cache node-cache -- --epochs 4 --pg-timeout 60: replica 0's "
        "node-local feature cache is warm, replica 1's is empty, so replica 1 first rebuilds the sky features from raw "
        "frames (about 55 s) while rank 0 waits for it in the env:// store; it joins within the 60 s timeout and the 4 "
        "epochs complete. evidence: 'trainer/1 site-00: extracting sky features from 4000 frames' ... 'trainer/1 wrote "
        "6 site(s) to node-cache/node-1', 'trainer/0 [rank0] finished 4 epochs in 7.9 s', 'Job finished: SUCCEEDED', "
        "'job exited with 0'",
    "custom-solar-plots-server":
        "port_in_use: forecast.py:trainer --port 30843 while a colleague's 'python -m http.server 30843' (started "
        "before, not logged) holds the port on this host. Rank 0's TCPStore server cannot listen; rank 1's store client "
        "connected to the HTTP server and waits without a word, and TorchX keeps waiting for it; after 80 s the user "
        "presses Ctrl-C. evidence: 'trainer/0 torch.distributed.DistNetworkError: The server socket has failed to "
        "listen on any local network address. port: 30843, useIpv6: false, code: -98, name: EADDRINUSE, message: "
        "address already in use' (in init_process_group -> _env_rendezvous_handler -> TCPStore), "
        "'torchx.schedulers.local_scheduler.SignalException: Process ... got signal: 2', 'job exited with 1'",
    "custom-solar-cold-cache":
        "rendezvous_timeout: forecast.py:trainer --port 30847 --cache node-cache -- --epochs 4 --pg-timeout 30: "
        "replica 0's node-local feature cache is warm, replica 1's is empty, so replica 1 first rebuilds the sky "
        "features from raw frames (about a minute and a half) before it starts the trainer. Rank 0's env:// store "
        "waits 30 s for the second client and gives up; when replica 1 finally starts, nobody listens on 30847 and its "
        "store client times out too. evidence: 'trainer/1 site-00: extracting sky features from 4000 frames', "
        "'trainer/0 torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 1/2 clients "
        "joined.', 'trainer/1 wrote 6 site(s) to node-cache/node-1', '[c10d] The client socket has timed out after "
        "30000ms while trying to connect to (localhost, 30847).', 'trainer/1 torch.distributed.DistNetworkError: The "
        "client socket has timed out', 'Job finished: FAILED', 'job exited with 1'",
    "ddp-solar-loader-workers":
        "shm_exhausted: dist.ddp -j 1x2 --workers 2 --window 288 --batch-size 1024 in a container-sized /dev/shm of "
        "64 MB (a private mount namespace with its own tmpfs there): each DataLoader worker hands its 512-window batch "
        "(about 22 MB) to the rank through shared memory, two workers with two batches in flight each for each of two "
        "ranks; rank 1's worker cannot allocate its segment in the first step. evidence: '[rank1]: RuntimeError: "
        "Caught RuntimeError in DataLoader worker process 0.', '[rank1]: RuntimeError: unable to allocate shared "
        "memory(shm) for file </torch_...>: No space left on device (28)' (in collate, _new_shared), rank 0 "
        "'Connection closed by peer', 'failed (exitcode: 1) local_rank: 1', 'Job finished: FAILED', 'job exited with 1'",
}
