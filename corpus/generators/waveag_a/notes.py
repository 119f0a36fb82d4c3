"""What each committed wave AG (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "nowcast.py (precipitation nowcaster: ConvLSTM encoder-forecaster over synthetic 32x32 radar rain-rate frames, 6 " \
    "frames in, 4 out, exp(rain/tau)-weighted MSE, validation CSI at 1 mm/h vs persistence, gloo)"
NOTES = {
    "torchrun-nowcast-healthy":
        f"torchrun, 2 ranks, {W}, 2 shards of 360 frames, 6 epochs; healthy: checkpoint every epoch, finishes. "
        "evidence: \"rank 0: shards ['radar-00.npy'], 351 windows\", 'eval epoch 5: train loss 20.7652 val MSE 7.250 "
        "CSI@1mm/h 0.403 (persistence 0.682)', 'done: 6 epochs', 'job exited with 0'",
    "torchrun-nowcast-radar-outage-gap":
        f"torchrun, 2 ranks, {W}; a radar outage removed three frames from shard radar-01.npy (its timestamp list "
        "skips 16:45-16:55) but the window list still assumes contiguous 5-minute frames, so rank 1's Dataset raises "
        "KeyError looking up a missing timestamp; rank 0 then loses its peer in the DDP all-reduce. evidence: "
        "\"[rank1]:   File \\\"/tmp/waveag-a-job/run/nowcast.py\\\", line 68, in __getitem__\", "
        "\"[rank1]: KeyError: '2024-06-02T16:45'\", rank 0's 'Connection closed by peer', torchrun's failure summary "
        "'rank : 1 (local_rank: 1) exitcode : 1', 'job exited with 1'",
    "torchrun-nowcast-shard-rewritten":
        f"torchrun, 2 ranks, {W}; after the first epoch the training shard radar-01.npy, memory-mapped by rank 1, was "
        "truncated in place (an archive sync rewriting the file), so rank 1's next read of the mapping hit pages past "
        "the end of the file: SIGBUS in numpy's memmap __getitem__ (faulthandler stack), rank 0 then sees the peer "
        "close. evidence: 'Fatal Python error: Bus error', 'File \".../numpy/_core/memmap.py\", line 360 in "
        "__getitem__', 'File \"/tmp/waveag-a-job/run/nowcast.py\", line 70 in __getitem__', 'exitcode : -7 (pid: "
        "...) (SIGBUS)', 'Signal 7 (SIGBUS) received by PID', 'job exited with 1'",
    "torchrun-nowcast-wallclock-limit":
        f"torchrun, 2 ranks, {W}, 30 epochs planned under a 45 s wall-clock limit (`timeout 45 torchrun ...`); at "
        "the limit the job got SIGTERM: both ranks checkpoint and exit, torchrun reports the signal. evidence: "
        "'Sending process ... closing signal SIGTERM', 'rank 1: received SIGTERM, will checkpoint and exit after this "
        "step', 'rank 0: exiting on SIGTERM at epoch 3 step 64', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process ... got signal: 15', 'job exited with 124'",
    "mpirun-nowcast-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, 3 shards of 260 frames, 6 epochs; healthy (rank lines interleaved on the "
        "console). evidence: \"rank 2: shards ['radar-02.npy'], 251 windows\", 'eval epoch 5: train loss 18.4322 val "
        "MSE 6.051 CSI@1mm/h 0.671 (persistence 0.682)', 'done: 6 epochs', 'job exited with 0'",
    "mpirun-nowcast-hail-cores":
        f"Open MPI mpirun -np 2, {W}; rank 0's shard holds hail-contaminated convective cores (rain rates up to "
        "~920 mm/h) and the loss weight exp(rain / tau) with tau 10 overflows float32 (exp(92) = inf): the weighted "
        "MSE is inf/inf = NaN from the first step, the gradients and weights go NaN, the script stops after 15 "
        "non-finite steps and rank 1 loses its peer. evidence: \"rank 0: shards ['radar-00.npy'], 351 windows, rain "
        "max 920.5 mm/h\" (rank 1: 60.5 mm/h), \"args {... 'tau': 10.0 ...}\", 'epoch 0 step 5 loss nan grad-norm "
        "nan', 'rank 0: loss not finite for 15 steps (last nan), stopping', mpirun 'Exit code: 3', 'job exited with 3'",
    "mpirun-nowcast-tmpdir-volume":
        f"Open MPI mpirun -np 2, {W}, TMPDIR exported to a 1 MB scratch volume already holding 400 KB; rank 0 writes "
        "each checkpoint (model + Adam state, ~0.9 MB) to a tempfile in TMPDIR first, which fills the volume at the "
        "first save: OSError Errno 28, then torch's zip writer fails; rank 1 loses its peer. evidence: '[rank0]: "
        "OSError: [Errno 28] No space left on device', 'tempfile.py\", line 483, in func_wrapper', 'torch.save(state, "
        "tmp)  # write aside, then move into place', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] "
        ". unexpected pos 589504 vs 589396', 'job exited with 1'",
    "deepspeed-nowcast-healthy-resume-older-model":
        f"DeepSpeed launcher --num_gpus 2 on its CPU accelerator (ZeRO stage 0, torch Adam), {W}, --resume from a "
        "checkpoint saved by an older model without the forecaster's frame embedding (epoch 1), 7 epochs; healthy "
        "despite the missing-keys warning and DeepSpeed's accelerator/hostfile warnings. evidence: 'UserWarning: rank "
        "0: ckpt/last.pt does not match the model (missing 2, unexpected 0 keys: ['emb.weight', 'emb.bias']); loaded "
        "what matched', 'rank 0: resumed from ckpt/last.pt (epoch 1, val CSI 0.412)', 'eval epoch 6: ... CSI@1mm/h "
        "0.478', 'done: 7 epochs', 'job exited with 0'",
    "deepspeed-nowcast-preview-server":
        f"DeepSpeed launcher --num_gpus 2 --master_port 29773, {W}, while a forecast-preview web server (`python -m "
        "http.server 29773`) started earlier on the host listens on that port: rank 0 cannot create the TCPStore. "
        "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29773, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'sigkill_handler', 'job exited with 1'",
    "deepspeed-nowcast-augmented-windows":
        f"DeepSpeed launcher --num_gpus 2, {W} with --materialize (every 10-frame window with its 8 flips/rotations "
        "precomputed as float64, ~1.5 GB per rank for 1200-frame shards) inside a 1.2 GB memory cgroup: the kernel OOM "
        "killer SIGKILLs a rank while it materialises (no Python error), the launcher kills the other. evidence: \"args {... "
        "'materialize': True ...}\", 'materializing ... windows x 8 flips/rotations (float64)', the growing MiB "
        "progress lines, \"exits with return code = -9\", 'job exited with 247'",
    "accelerate-nowcast-healthy-radar-outage":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo), {W}, 6 epochs; the validation set holds three "
        "radar-outage frames (NaN), which the Dataset fills from the previous valid frame with a warning on each rank; "
        "healthy (harmless warnings). evidence: \"UserWarning: val.npy: 3 frames with missing data (radar outage) at "
        "['2024-06-03T03:20', '2024-06-03T03:25', '2024-06-03T08:05']; filled from the previous valid frame\", "
        "'eval epoch 5: ... CSI@1mm/h', 'done: 6 epochs', 'job exited with 0'",
    "accelerate-nowcast-index-lock":
        f"accelerate launch --multi_gpu --num_processes 2, {W} with --refresh-index: rank 0 takes an exclusive flock "
        "on data/index.lock to rewrite data/index.json and calls dist.barrier() while holding it; rank 1 takes a "
        "shared flock to read the index and then enters the same barrier while holding that. Rank 1 got its lock "
        "first, so rank 0 blocks in flock(LOCK_EX) and rank 1 waits in the barrier forever (default 30 min "
        "process-group timeout): no output after the args line for 76 s, then the user presses Ctrl-C. evidence: "
        "the last progress line '[09:11:42] nowcast ConvLSTM: world 2 ...' and then 'W1129 09:12:58.344000 ... "
        "Received 2 death signal, shutting down workers', '[rank0]:   File \"/tmp/waveag-a-job/run/nowcast.py\", "
        "line 125, in refresh_index', '[rank0]:     fcntl.flock(lk, fcntl.LOCK_EX)', '[rank0]: KeyboardInterrupt', "
        "'[rank1]:     dist.barrier()' in refresh_index, 'SignalException: Process ... got signal: 2', "
        "'job exited with 1'",
    "torchrun-nowcast-dry-batches":
        f"torchrun, 2 ranks, {W} with --skip-dry: each rank independently skips batches whose targets are under 2% "
        "wet; rank 1's shard is mostly dry season, so it skips many batches, runs fewer DDP gradient all-reduces and "
        "reaches the evaluation all-reduce (10 float64 counters) while rank 0 is still in a gradient all-reduce: gloo "
        "receives a buffer of the wrong size, aborts rank 1 (SIGABRT), and torchrun tears down rank 0. evidence: "
        "\"rank 1: shards ['radar-01.npy'], 351 windows, rain max 48.7 mm/h, wet fraction 0.036\", 'rank 1: step 9: "
        "dry batch (0.007 wet), skipped' (many), \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", "
        "'op.preamble.length <= op.nbytes. 75940 vs 24. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', 'File \"/tmp/waveag-a-job/run/nowcast.py\", line 346 in main' "
        "under all_reduce, 'exitcode : -6 (pid: ...) (SIGABRT)', 'job exited with 1'",
    "mpirun-nowcast-archive-verify":
        f"Open MPI mpirun -np 2, {W} with --verify-archive and a 6 s process-group timeout: rank 0 checks every frame of "
        "both 16000-frame shards (pure-Python reflectivity range check and CRC) before calling init_process_group, "
        "so it has not opened the TCPStore at MASTER_PORT when rank 1, which skips the check, tries to connect; "
        "rank 1's store client times out (one retry) and raises DistNetworkError in init_process_group; mpirun aborts "
        "the job. evidence: 'rank 0: verifying archive data/ before start (2 shards)', '[c10d] The client socket has "
        "timed out after 6000ms while trying to connect to (127.0.0.1, 29765)', 'TCP client failed to connect/validate "
        "to host 127.0.0.1:29765 - timed out (try=1, timeout=6000ms)', 'in _env_rendezvous_handler', "
        "'torch.distributed.DistNetworkError: The client socket has timed out after 6000ms while trying to connect to "
        "(127.0.0.1, 29765).', mpirun 'Process name: [[...,1],1] Exit code: 1', 'job exited with 1'",
    "accelerate-nowcast-forecast-previews":
        f"accelerate launch --multi_gpu --num_processes 2, {W} with --preview and a 20 s process-group timeout: after "
        "the first epoch rank 0 renders colour-mapped 6x bilinear previews of every validation forecast pixel by pixel "
        "in Python (tens of seconds) before the evaluation all-reduce, while rank 1 waits in that all-reduce: gloo "
        "times rank 1 out after 20 s; the launcher SIGTERMs rank 0, which then finds its peer gone. evidence: \"args "
        "{... 'preview': True ... 'pg_timeout': 20 ...}\", 'epoch 0 step 20 loss 64.5885' then 20 s of silence, "
        "'[rank1]:     dist.all_reduce(part)', '[rank1]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] "
        "Timed out waiting 20000ms for recv operation to complete', 'Sending process ... closing signal SIGTERM', "
        "'job exited with 1'",
}
