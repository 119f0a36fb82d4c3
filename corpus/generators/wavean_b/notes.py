"""What each committed wave AN (b) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "poi_rec.py (next point-of-interest recommender on synthetic check-in logs over a 16x16 city grid, 1000 venues, " \
    "800 users in 8 parts, each process reading its own parts: a GRU over the last 12 check-ins with venue, " \
    "hour-of-day and session-start embeddings plus a target-hour embedding, cross-entropy over all venues, Adam; " \
    "Ignite create_supervised_trainer/evaluator, DDP via idist.auto_model, Recall@10 (TopKCategoricalAccuracy) and a " \
    "written-out MRR metric on each user's held-out last check-in, all-reduced across ranks; TerminateOnNan, Timer, " \
    "rank-0 Checkpoint/DiskSaver of the last and the two best states, logging through ignite.utils.setup_logger)"
SP = "python poi_rec.py --nproc 2 (ignite.distributed.Parallel(backend='gloo', nproc_per_node=2) spawning the two " \
     "processes through torch.multiprocessing)"
TR = "torchrun --nproc-per-node 2 (ignite.distributed.Parallel(backend='gloo') reading torchrun's environment)"
N = "two 'nodes' on one host, each `python poi_rec.py --nproc 1 --nnodes 2 --node-rank R --master-addr 127.0.0.1 " \
    "--master-port P` (ignite spawning one process per node); only node 0's console kept"
NOTES = {
    "spawn-poi-healthy-early-stop":
        f"{SP}, {W}, --epochs 15 --patience 2: validation MRR peaks after epoch 6 (0.1522), Ignite's EarlyStopping "
        "handler stops the trainer after epoch 8; a healthy, deliberately short run. evidence: 'validation after epoch "
        "6: recall@10 0.2525 mrr 0.1522', 'ignite.handlers.early_stopping.EarlyStopping INFO: EarlyStopping: Stop "
        "training', 'done: 8 epochs, 1528 iterations', 'job exited with 0'",
    "spawn-poi-hourly-prior":
        f"{SP}, {W}, --transition-prior hourly: each rank builds a dense hour x venue x venue float64 transition table "
        "(24 x 1000 x 1000, 192 MB) plus its smoothed and normalised copies, inside a 1.2 GB memory cgroup (the job's "
        "container limit); the kernel OOM killer SIGKILLs rank 1 right after loading, torch.multiprocessing terminates "
        "rank 0. evidence: '\"transition_prior\": \"hourly\"' in the args line, 'Terminating process ... via signal "
        "SIGTERM', 'torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL', "
        "'job exited with 1'",
    "spawn-poi-popularity-correction":
        f"{SP}, {W}, --logq-correction: the logits get log venue popularity subtracted, popularity counted over every "
        "rank's training targets with no smoothing; 115 of the 1000 venues are never a target, log(0) = -inf makes "
        "their logits +inf and the loss NaN at the first iteration; Ignite's TerminateOnNan stops the trainer, the "
        "script finishes normally with no checkpoint (exit 0). evidence: 'venue popularity from 24622 targets, 885 "
        "venues seen', 'TerminateOnNan: Output 'nan' contains NaN or Inf. Stop training', 'Terminate signaled. Engine "
        "will stop after current iteration is finished.', 'best checkpoints: []', 'done: 1 epochs, 1 iterations', "
        "'job exited with 0'",
    "spawn-poi-recs-export":
        f"{SP}, {W}, --epochs 4 --export-recs exports/recs.tsv: after training rank 0 writes the top-10 venues for each "
        "of its users at each hour to exports/, a 1 MB volume already holding 700 KB of earlier exports; the write "
        "fails with errno 28 (and again at close), rank 0 raises, torch.multiprocessing reports it. evidence: 'done' "
        "never printed, 'best checkpoints: ['best_model_3_mrr=0.1071.pt', 'best_model_4_mrr=0.1336.pt']', "
        "'f.write(...)', 'OSError: [Errno 28] No space left on device', '-- Process 0 terminated with the following "
        "error:', 'job exited with 1'",
    "spawn-poi-best-recall":
        f"{SP}, {W}, --best-by recall10: the best-checkpoint handler's score function "
        "(Checkpoint.get_default_score_fn) reads engine.state.metrics['recall10'], but the metric is attached as "
        "'recall@10'; after the first evaluation both ranks raise KeyError in the evaluator, the trainer stops. "
        "evidence: 'evaluator ERROR: Engine run is terminating due to exception: 'recall10'', 'trainer ERROR: Engine "
        "run is terminating due to exception', 'KeyError: 'recall10'', '-- Process 1 terminated with the following "
        "error:', 'job exited with 1'",
    "spawn-poi-relaunch":
        f"{SP}, {W}: an earlier run of the same command on port 30227 (its console not kept) had its launcher killed "
        "with kill -9; the two spawned training processes it left behind keep running and rank 0 still holds the "
        "TCPStore port; the relaunch's rank 0 cannot listen on it. evidence: 'master_port: 30227', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 30227, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
        "with 1'",
    "nodes-poi-healthy":
        f"{N}, {W}, 5 epochs; node 1 starts 15 s after node 0, node 0 waits at the store and training runs normally. "
        "evidence: 'nnodes: 2', 'node_rank: 0', 'validation after epoch 5', 'done: 5 epochs, 955 iterations', 'job "
        "exited with 0'",
    "nodes-poi-second-node":
        f"{N}, {W}, --dist-timeout 60: node 1 was started from an older copy of the job script with --master-port "
        "30231 while node 0 serves the store on 30229; node 0's store waits for its second client and gives up after "
        "60 s (node 1, not kept, times out connecting to 30231). evidence: 'master_port: 30229', 'timeout: 0:01:00', "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', "
        "'job exited with 1'",
    "torchrun-poi-healthy-loader-workers":
        f"{TR}, {W}, --epochs 5 --workers 3: three DataLoader worker processes per rank on a 2-CPU host; torch warns "
        "that the suggested maximum is 2 (harmless), training finishes. evidence: 'UserWarning: This DataLoader will "
        "create 3 worker processes in total. Our suggested max number of worker in current system is 2', 'done: 5 "
        "epochs, 955 iterations', 'job exited with 0'",
    "torchrun-poi-native-sessions":
        f"{TR}, {W}, --sessionize native: session starts come from a small C helper (libsessionize.so via ctypes) "
        "that asserts n > 0; a re-export of part-05 adds four travellers whose check-ins are all at the airport, "
        "outside the city area; after the area filter they have no check-ins, the assertion fails on rank 1 "
        "(SIGABRT) and rank 0 sees the peer close in its first all-reduce. evidence: 'python3: sessionize.c:7: "
        "sessionize: Assertion `n > 0' failed.', '[rank0]: RuntimeError: ... Connection closed by peer', 'failed "
        "(exitcode: -6) local_rank: 1', 'traceback : Signal 6 (SIGABRT) received by PID', 'job exited with 1'",
    "torchrun-poi-part-loader":
        f"{TR}, {W}, --prefetch-shards --workers 2: training parts are streamed by an IterableDataset whose "
        "background reader thread, started in the rank's main process, fills a queue; the DataLoader workers are "
        "forked copies holding only what was queued at fork time and no reader thread, so after 75 iterations rank "
        "0's workers wait forever on an empty queue, rank 0 waits in the DataLoader and rank 1 in the backward "
        "all-reduce; no error, no timeout. After about 95 s without output the user presses Ctrl-C. evidence: last "
        "progress line 'epoch 1 iter 75 loss 5.3365' at 20:32:03, then at 20:33:40 'Received 2 death signal, "
        "shutting down workers', '[rank0]: KeyboardInterrupt' in dataloader.py _try_get_data, '[rank1]: ... "
        "Connection closed by peer' in backward, 'SignalException: Process ... got signal: 2', 'job exited with 1'",
    "torchrun-poi-spot-reclaim":
        f"{TR}, {W}, --epochs 12 --save-on-sigterm: in epoch 3 the scheduler reclaiming the node sends SIGTERM to "
        "torchrun, which passes SIGTERM to both ranks; the script's handler sets a flag, the ranks agree on it "
        "through an all-reduce, Ignite terminates the trainer and rank 0 saves the last checkpoint. evidence: "
        "'Received 15 death signal, shutting down workers', 'Sending process ... closing signal SIGTERM', '[rank 1] "
        "caught SIGTERM, stopping at the next iteration', 'Terminate signaled. Engine will stop after current "
        "iteration is finished.', 'stopped by SIGTERM at epoch 3 iteration 563; checkpoint "
        "checkpoints/last_checkpoint_563.pt', 'SignalException: Process ... got signal: 15', 'job exited with 1'",
    "torchrun-poi-ssh-session":
        f"{TR}, {W}, --epochs 12 started from an SSH session in the foreground; the session closes in epoch 3 and "
        "SIGHUP reaches the job's process group (torchrun, both ranks and the shell); torchrun starts shutting down the "
        "workers and the log stops (no exit line: the shell is gone too). evidence: 'epoch 3 iter 550 loss 3.0283', "
        "'Received 1 death signal, shutting down workers', 'Sending process ... closing signal SIGHUP'",
    "torchrun-poi-new-export":
        f"{TR}, {W}: a re-export of check-in part-03 writes timestamps as ISO 8601 strings instead of unix seconds; "
        "rank 1 (parts 01,03,05,07) raises ValueError while reading it; rank 0 sees the peer close in the first "
        "all-reduce. evidence: '[rank1]: ValueError: invalid literal for int() with base 10: "
        "'2026-01-01T07:27:35Z'', '[rank0]: RuntimeError: ... Connection closed by peer', 'failed (exitcode: 1) "
        "local_rank: 1', 'job exited with 1'",
    "torchrun-poi-rerun":
        f"{TR}, {W}, --dist-timeout 45: an earlier 2-epoch run (not logged) left checkpoints in checkpoints/; the "
        "rerun's rank 0 asks on the terminal whether to overwrite them (input()) and nobody answers, while rank 1 "
        "loads its parts and waits in the first all-reduce; gloo gives up after the 45 s process-group timeout. "
        "evidence: 'checkpoints holds checkpoints of an earlier run; overwrite them? [y/N]', '[rank1]: RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 45000ms for send operation to complete', "
        "'failed (exitcode: 1) local_rank: 1', 'job exited with 1'",
    "spawn-poi-geo-prior":
        f"{SP} with --geo-prior 0.5, {W} on a new city export with 2400 venues: the launcher computes the venue "
        "distance matrix and its Gaussian kernel once (2 x 2400 x 2400 float64, 46 MB each) and hands them to the "
        "spawned processes as arguments; torch.multiprocessing moves them into shared memory, and the container's "
        "/dev/shm is the 64 MB default (private mount namespace), so the second segment cannot be allocated while "
        "the processes are being started. evidence: 'geo prior: 2400 x 2400 venue distances computed once, shared "
        "with the workers', 'reductions.py ... in reduce_storage', 'storage.py ... in _share_fd_cpu_', 'RuntimeError: "
        "unable to allocate shared memory(shm) for file </torch_..._1>: No space left on device (28)', 'job exited "
        "with 1'",
    "torchrun-poi-healthy-resume":
        f"{TR}, {W}, --epochs 6 --resume: an earlier 3-epoch run (not logged) left checkpoints/; Ignite's "
        "Checkpoint.load_objects restores model, optimizer and trainer state and the run continues from epoch 4 to "
        "6. evidence: 'resumed from checkpoints/last_checkpoint_573.pt (epoch 3, iteration 573)', 'validation after "
        "epoch 6', 'done: 6 epochs, 1146 iterations', 'job exited with 0'",
}
