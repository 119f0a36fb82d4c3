"""What each committed run showed (a manifest note per scenario; written after the runs)."""

_P = ("python yield_pipeline.py run from the team's shell (Prefect 3.9.1 flow 'crop-yield-training' reporting to a "
      "local Prefect server; fetch_region.map on a ThreadPoolTaskRunner, the 'parcel-lineage' subflow on a "
      "ProcessPoolTaskRunner, train_model running torchrun --nproc_per_node=2, DDP over gloo)")

NOTES = {
    "prefect-yield-healthy":
        "no_failure: " + _P + ", 3 epochs, evaluation and the 'register-model' subflow all Completed; no noise beyond "
        "Prefect's per-run 'View at http://127.0.0.1:31390/...' lines. evidence: '[rank0] finished 3 epochs, 126 "
        "steps', 'pipeline done: model v1, RMSE 1.108 t/ha', 'job exited with 0'",
    "prefect-yield-healthy-retry":
        "no_failure: the same pipeline while region 3's export was still being written (the file moved into place "
        "by hand after Prefect logged the first failure): fetch_region fails once with FileNotFoundError (logged with "
        "its traceback), Prefect's task retry (retries=2, retry_delay_seconds=3) succeeds and the flow completes. "
        "evidence: \"Task run failed with exception: FileNotFoundError(2, 'No such file or directory') - Retry 1/2 "
        "will start 3 second(s) from now\", 'region 3: 1500 fields, mean yield 6.07 (yield_t_ha), staged to "
        "staging/region-03.npz', 'job exited with 0'",
    "prefect-yield-healthy-resume":
        "no_failure: an earlier unlogged pipeline run (--epochs 2) left checkpoints/last.pt and registry/v1; this run "
        "passes --epochs 5 --resume, both ranks resume at epoch 2 and the model is registered as v2. evidence: "
        "'[rank0] resumed from checkpoints/last.pt (epoch 2, step 84)', '[rank0] finished 5 epochs, 210 steps', "
        "'pipeline done: model v2, RMSE 1.052 t/ha'",
    "prefect-yield-healthy-restart":
        "no_failure: train_model with Prefect retries=1 (--train-retries 1) and --resume; rank 1 SIGKILLed from "
        "outside in epoch 2: gloo 'Connection reset by peer' on rank 0, torchrun's ChildFailedError (exitcode -9), "
        "Prefect retries the task, the new torchrun resumes from the epoch-1 checkpoint and the flow completes. "
        "evidence: 'exitcode  : -9 (pid: 19297)  (SIGKILL)', '[rank1] resumed from checkpoints/last.pt (epoch 1, "
        "step 42)', '[rank0] finished 4 epochs, 168 steps'",
    "prefect-yield-result-store":
        "no_failure: the same pipeline with the team's PREFECT_RESULTS_PERSIST_BY_DEFAULT=true and "
        "PREFECT_LOCAL_STORAGE_PATH=results, where results/ is a 1 MB tmpfs already full of earlier runs' archive: "
        "every task's result commit fails with ERROR-level tracebacks (OSError: [Errno 28]) and the flows warn that "
        "results were not persisted, but Prefect carries on and training, evaluation and registration complete "
        "(exit 0). Noise: ERROR 'An error was encountered while committing transaction ...' lines with tracebacks. "
        "evidence: 'OSError: [Errno 28] No space left on device', 'Encountered an error while persisting result: "
        "[Errno 28] No space left on device Execution will continue, but the result has not been persisted', "
        "'job exited with 0'",
    "prefect-yield-new-crop":
        "worker_exception: region 2 re-exported with a fourth crop (sorghum) that the frozen vocabulary lacks; "
        "fetch_region gives it id 3 and the 3-row crop embedding raises on both ranks; torchrun fails, the "
        "train_model task and the flow end Failed (CalledProcessError). evidence: '[rank0]: IndexError: index out of "
        "range in self', 'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: '",
    "prefect-yield-renamed-column":
        "worker_exception: region 1 re-exported with the rainfall columns renamed (precip_w0.. instead of rain_w0..); "
        "fetch_region raises KeyError on all three attempts (retries=2) and the flow fails before training. evidence: "
        "\"Task run failed with exception: KeyError('rain_w0') - Retries are exhausted\", \"KeyError: 'rain_w0'\"",
    "prefect-yield-interp-weather":
        "host_oom_killed: train option --daily-cache 60 (per-field daily weather kept in memory, ~870 MiB a rank) with "
        "the whole job in a 1.2 GB cgroup-v1 memory cgroup: the kernel OOM killer kills rank 0; torchrun reports "
        "exitcode -9, the Prefect task fails with CalledProcessError. evidence: 'failed (exitcode: -9) local_rank: 0', "
        "'exitcode  : -9 (pid: 18878)  (SIGKILL)'",
    "prefect-yield-parcel-merge":
        "native_crash: the export's parcel_merges.json records a land consolidation (parcel 1 merged into parcel 3) "
        "that closes a cycle in the parcel lineage; the lru_cache'd recursive lookup in parcel_features, with "
        "sys.setrecursionlimit(1_000_000), overflows the C stack and the ProcessPoolTaskRunner worker dies with "
        "SIGSEGV (dmesg: segfault in libpython3.11.so); Prefect only sees a broken pool. evidence: "
        "'concurrent.futures.process.BrokenProcessPool: A process in the process pool was terminated abruptly while "
        "the future was running or pending.', \"Flow run 'bald-deer' - Encountered exception during execution: "
        "BrokenProcessPool('A process in the process pool was terminated abruptly while the future was running or "
        "pending.')\"",
    "prefect-yield-ckpt-volume":
        "disk_full: checkpoints/ is a 1 MB tmpfs already holding ~950 kB of earlier runs' archive; the epoch-1 "
        "checkpoint fits, the epoch-2 torch.save on rank 0 fails, rank 1 then sees the connection close. evidence: "
        "'[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 3648 vs 3600'",
    "prefect-yield-container-shm":
        "shm_exhausted: the job runs in a mount namespace with a 32 kB /dev/shm (container-sized); the "
        "ProcessPoolTaskRunner of the parcel-lineage subflow cannot create its multiprocessing queue lock "
        "(SemLock on /dev/shm) and the subflow and flow fail before training. evidence: 'SemLock.__init__(self, "
        "SEMAPHORE, 1, 1, ctx=ctx)', 'OSError: [Errno 28] No space left on device', \"Finished in state "
        "Failed('Flow run encountered an exception: OSError: [Errno 28] No space left on device')\"",
    "prefect-yield-kg-export":
        "training_divergence: region 0 re-exported with yield in kg/ha (yield_kg_ha, values x1000) which fetch_region "
        "takes as-is; with SGD (lr 0.01, momentum) the MSE loss overflows at step 3 and the finite-loss check stops "
        "both ranks. evidence: '[rank0]: FloatingPointError: loss is inf at epoch 1 step 3 on rank 0', 'region 0: "
        "1500 fields, mean yield 6372.63 (yield_kg_ha), staged to staging/region-00.npz'",
    "prefect-yield-stalled-mount":
        "silent_hang: region 2's export is a FIFO nobody writes (a stalled export mount): its fetch_region thread "
        "blocks in open() forever while regions 0, 1 and 3 finish; nothing is logged for 90 s until the user presses "
        "Ctrl-C twice (the second one to get past the thread pool's shutdown join). evidence: \"Flow run "
        "'resourceful-salmon' - Crash detected! Execution was aborted by an interrupt signal.\", 'KeyboardInterrupt' "
        "(only three of four 'fetch_region' tasks finished)",
    "prefect-yield-task-timeout":
        "silent_hang: rank 1 SIGSTOPped in epoch 2 with --pg-timeout 1800 (no gloo timeout in sight): training output "
        "stops and the train_model task's Prefect timeout (--train-timeout 60, timeout_seconds) fires without saying "
        "why. evidence: \"Task run failed with exception: TaskRunTimeoutError('Scope timed out after 60.0 "
        "second(s).')\", \"Finished in state TimedOut('Task run exceeded timeout of 60.0 second(s)', type=FAILED)\"",
    "prefect-yield-rank-paused":
        "collective_timeout: rank 1 SIGSTOPped in epoch 2 with --pg-timeout 30: rank 0's gloo collective times out "
        "after 30 s, torchrun SIGKILLs the stopped rank, the task fails. evidence: '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for "
        "recv operation to complete'",
    "prefect-yield-time-limit":
        "job_preempted: a 30-epoch run; in epoch 3 every process of the job except the launching shell got SIGTERM "
        "from outside (a scheduler's time limit): the ranks die, Prefect marks the task and flow Crashed, the shell "
        "reports 143. evidence: \"Finished in state Crashed('Execution was aborted by a termination signal.')\", "
        "'Terminated', 'job exited with 143'",
    "prefect-yield-ssh-closed":
        "terminal_hangup: a 30-epoch run; in epoch 2 the launching terminal's process group got SIGHUP (SSH session "
        "closed): the flow process dies silently, torchrun forwards SIGHUP to the ranks and exits; no 'job exited' "
        "line (the shell died too). evidence: 'Received 1 death signal, shutting down workers', 'Sending process 19663 "
        "closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19661 got "
        "signal: 1'",
    "prefect-yield-batch-config":
        "batch_size_mismatch: train option --micro-batch 128 with the configured global batch 128 on 2 ranks; the "
        "trainer's batch check raises on both ranks. evidence: '[rank0]: ValueError: global batch 128 != micro batch "
        "128 x grad accum 1 x world size 2'",
    "prefect-yield-notebook-port":
        "port_in_use: a python -m http.server (someone's notebook file share) already listens on the master port "
        "31335; torchrun's TCPStore cannot bind and the train task fails. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 31335, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'",
    "prefect-yield-second-host":
        "rendezvous_timeout: the pipeline run with --nnodes 2 (torchrun --rdzv-backend=c10d --rdzv-conf "
        "join_timeout=60) but the second trainer host never started: after 60 s the c10d rendezvous gives up. "
        "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'launching: torchrun --nnodes=2 "
        "--rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:31337 --rdzv-conf=join_timeout=60 --nproc_per_node=2 "
        "--max-restarts=0 train_yield.py --epochs 3'",
}
