"""What each committed wave M (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("moe_forecast.py (patch-transformer forecaster of hourly 8-sensor site series whose feed-forward block is a top-1 "
     "mixture of experts sharded across ranks, tokens exchanged with all_to_all_single; gloo on CPU)")

NOTES = {
    "torchrun-2node-moe-forecast-healthy":
        "healthy: two torchrun agents on this host as two nodes (--nnodes 2 --node-rank 0/1 --nproc-per-node 1, static "
        f"rendezvous on 127.0.0.1:29410; consoles node0.log and node1.log) of {W} for 400 steps, evaluation every 100, "
        "checkpoints at 200 and 400; nothing done to it. evidence: node0.log's step lines, 'eval step 400: ...' and "
        "'done: 400 steps', and 'job exited with 0' in both files; the all_to_all_single FutureWarnings are noise.",
    "torchrun-2node-moe-rdzv-id-per-node":
        "two torchrun agents on this host as two nodes with the c10d rendezvous on the same endpoint "
        "(127.0.0.1:29412, --nnodes 2, --rdzv-conf join_timeout=60) but each started with its own --rdzv-id "
        "(moe-fcst-20261128-a on node 0, ...-b on node 1, as when the id is generated per node), so neither agent "
        f"ever saw a second participant and no worker of {W} started. evidence: node0.log ends in "
        "'raise RendezvousTimeoutError' / 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError' after "
        "the join timeout; node1.log's 'Failed to recv, got 0 bytes', 'Broken pipe' and RendezvousConnectionError "
        "('failed to shutdown the rendezvous moe-fcst-20261128-b') are symptoms of node 0's agent (the store host) "
        "exiting; both 'job exited with 1'.",
    "torchrun-moe-static-capacity-tee-logdir":
        f"torchrun --nproc-per-node 2 --log-dir logs --tee 3 of {W} with --static-capacity: each rank sizes its "
        "expert buffers from its own batch (capacity = ceil(1.25 x tokens / experts)) and skips the count exchange, "
        "so the all_to_all_single split sizes agree only while both ranks have full batches; the ranks' shards hold "
        "different numbers of windows and at the end of rank 0's first epoch (after step 80) its short last batch "
        "gave a smaller capacity than rank 1's. evidence: '[default1]:terminate called after throwing an instance "
        "of 'gloo::EnforceNotMet'' / 'op.preamble.length <= op.nbytes. 245760 vs 15360. Received data size doesn't "
        "match expected size. Is there a distributed collective mismatch in your code?' (rank 1 exitcode -6, "
        "SIGABRT, the Root Cause entry); rank 0's 'Connection reset by peer' in the same all_to_all_single is a "
        "symptom.",
    "torchrun-moe-restarts-resume-copied-ckpt":
        "torchrun --nnodes 1 --nproc-per-node 2 --max-restarts 2 with the c10d rendezvous of "
        f"{W} --resume; the newest checkpoint's dense file (ckpt/step-000100-dense.pt, made by an earlier real run "
        "of the job) had been cut to 60 KiB as an interrupted copy leaves it (the 'ls -l ckpt' at the top shows "
        "61440 bytes beside 1.1 MB expert shards). Every attempt failed the same way until the restarts were "
        "used up. evidence: '[rankN]: resuming from ckpt/step-000100-dense.pt ...' then '[rankN]:     sd = "
        "torch.load(dpath, map_location=\"cpu\")' -> 'torch._C.PyTorchFileReader(name_or_buffer)' -> "
        "'OSError: [Errno 22] Invalid argument' on both ranks in each of the 3 attempts; one restart round's gloo "
        "'connectFullMesh failed ... Connection refused' is a symptom of the other rank dying first; "
        "ChildFailedError, 'job exited with 1'.",
    "mpirun-moe-forecast-healthy-noisy":
        f"healthy: mpirun -np 3 (Open MPI) of {W} for 300 steps, evaluation every 100, checkpoints at 150 and 300, "
        "on shards with scattered missing readings filled by --gap-policy ffill, with --warn-noisy (a "
        "FutureWarning about a deprecated config option and numpy warnings switched on) besides the "
        "all_to_all_single deprecation FutureWarnings from every rank; nothing failed. evidence: rank 0's step and "
        "eval lines, 'done: 300 steps', 'job exited with 0'.",
    "mpirun-moe-socket-ifname-from-cloud-image":
        f"mpirun -np 3 of {W} with GLOO_SOCKET_IFNAME=ens5 exported to every rank (a value from another cloud "
        "image; this host's interfaces are lo and eth0), so gloo could not create its transport device. "
        "evidence: three tracebacks through 'dist.init_process_group(\"gloo\", timeout=timeout)' -> "
        "ProcessGroupGloo( ... ) ending 'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] "
        "ifa != nullptr. Unable to find address for: ens5'; mpirun's 'exited with non-zero status' block and "
        "'job exited with 1' follow.",
    "slurm-moe-forecast-healthy":
        f"healthy: sbatch --wait moe.sbatch (2 tasks through srun --kill-on-bad-exit=1 on the one-node Slurm cluster) "
        f"of {W} for 400 steps; the job's own slurm-<id>.out. evidence: the step/eval lines, 'done: 400 steps', "
        "'srun exited with 0'.",
    "slurm-moe-requeue-hold":
        f"sbatch --wait moe.sbatch (requeue allowed, output opened in append mode) of {W} for 20000 steps; at "
        "step 600 the cluster admin ran 'scontrol requeuehold <job>' (the job is put back in the queue, held) and "
        "later scancel on the held job. The running step got SIGTERM from Slurm and the trainer's handler stopped "
        "it. evidence: 'slurmstepd-vm: error: *** JOB 2 ON vm CANCELLED AT ... DUE TO JOB REQUEUE ***' (and the "
        "STEP line), 'srun: got SIGCONT' / 'srun: forcing job termination', '[rank0] caught signal SIGTERM at step "
        "601, stopping', 'srun: error: vm: tasks 0-1: Exited with exit code 143'.",
    "slurm-moe-short-site-export":
        f"sbatch --wait moe.sbatch (2 tasks through srun --kill-on-bad-exit=1) of {W}; one site's shard "
        "(series-03.npy, read by rank 1) is an export of only the first 100 hours, shorter than one lookback+"
        "horizon window (120 h). evidence: rank 1's traceback '[rank1]:     w = "
        "np.lib.stride_tricks.sliding_window_view(x, W, axis=0)' -> '[rank1]: ValueError: window shape cannot be "
        "larger than input array shape' while loading its training shards; rank 0's 'Connection closed by peer' "
        "(gloo, in the parameter broadcast) and 'srun: error: vm: task 1: Exited with exit code 1' then the step "
        "cancel are symptoms; 'srun exited with 143'.",
    "deepspeed-moe-forecast-healthy":
        f"healthy: deepspeed --num_gpus 2 (DeepSpeed launcher on its CPU accelerator, deepspeed.init_distributed with "
        f"gloo) of {W} for 400 steps; nothing done to it. evidence: the launcher's INFO lines, step/eval lines, "
        "'done: 400 steps', 'job exited with 0'.",
    "deepspeed-moe-gap-fill-val-sensor-dead":
        f"deepspeed --num_gpus 2 of {W} with --gap-policy ffill and a 30 s process-group timeout; in site shard "
        "series-01.npy (rank 1) sensor 3 stopped reporting for the last 15% of the export, so the validation "
        "slice has a column of only NaN and the gap-filling loop (carry a neighbouring reading into each gap until "
        "none is left) never ends on rank 1 at the first evaluation (step 100); rank 0 waited in the evaluation's "
        "all_reduce. evidence: '[rank0] validation: 159 windows' with no rank 1 counterpart, then rank 0's "
        "traceback through 'evaluate(step)' -> 'dist.all_reduce(n, op=dist.ReduceOp.MIN)' ending 'RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete'; "
        "the launcher then kills rank 1 ('caught signal SIGTERM at step 100'), 'job exited with 1'.",
    "deepspeed-moe-mase-stuck-gateway":
        f"deepspeed --num_gpus 2 of {W} with --loss mase (error scaled by the window's seasonal-naive in-sample "
        "error); site shard series-02.npy (rank 0) is a flat line (its gateway repeated the last value), so the "
        "scale is 0 for its windows and the loss divides by zero. evidence: '[rank0] step 1: loss is nan (grad "
        "norm nan); stopping' (and rank 1's), 'FloatingPointError: non-finite loss nan at step 1' on both ranks, "
        "the launcher's sigkill_handler ERROR, 'job exited with 1'.",
    "accelerate-moe-ten-week-lookback-cgroup":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W} with --lookback 1680 --patch 4 (ten weeks "
        "of context: 420 tokens per sensor, the hand-written attention materialising a 420x420 score matrix per "
        "head for 128 sequences per rank) inside a cgroup-v1 memory cgroup limited to 4 GB; the kernel OOM killer "
        "killed rank 0 at step 3. evidence: 'lookback 1680 h / patch 4 -> 420 tokens per sensor', 'step 1/400 | "
        "... | 4 win/s', then 'failed (exitcode: -9) local_rank: 0' and the summary's 'exitcode  : -9 ... "
        "(SIGKILL)' / 'Signal 9 (SIGKILL) received by PID' for rank 0 (rank 1's SIGTERM is the launcher's "
        "clean-up); 'job exited with 1'.",
    "accelerate-moe-gap-fill-val-ctrl-c":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU) of {W} with --gap-policy ffill and the default "
        "30-minute process-group timeout; as in the DeepSpeed run, rank 1's validation shard has a sensor column "
        "of only NaN and its gap-filling loop never ends at the first evaluation, rank 0 waits in the evaluation "
        "all_reduce; nothing is printed for 68 s until the user pressed Ctrl-C (SIGINT to the process group, 90 s "
        "after the start). evidence: '[rank0] validation: 159 windows' as the last progress line, then 'Received "
        "2 death signal, shutting down workers', and rank 1's KeyboardInterrupt traceback inside "
        "'x = fill_gaps(x.copy())' -> 'nan = np.isnan(x)' (rank 0's 'Connection closed by peer' is a symptom); "
        "SignalException, 'job exited with 1'.",
    "mpirun-moe-atomic-save-small-tmpdir":
        f"mpirun -np 3 of {W} with --atomic-save (each checkpoint file is written to a tempfile.NamedTemporaryFile "
        "in TMPDIR, then moved into ckpt/) and TMPDIR exported to the ranks pointing at a 2 MiB scratch "
        "filesystem (the 'df -h' line at the top; every rank's expert shard is about 1.1 MB). The step-150 "
        "checkpoint went through; at step 300 the three ranks wrote their temp files at the same time and the "
        "scratch filesystem filled. evidence: '[rank1]: ... torch.save(obj, f)' -> 'zip_file.write_record' -> "
        "tempfile's func_wrapper -> '[rank1]: OSError: [Errno 28] No space left on device' (then 'unexpected pos "
        "958272 vs 958164'), the same OSError on rank 2; rank 0's 'Connection closed by peer' is a symptom; "
        "mpirun's non-zero-status block, 'job exited with 1'.",
    "mpirun-moe-resume-from-torchrun-run":
        f"mpirun -np 3 of {W} with --resume, in a directory whose checkpoint (step 200, listed by 'ls -l ckpt' at "
        "the top: a dense file and expert shards for ranks 0 and 1) came from an earlier real 2-rank torchrun run "
        "of the job; with 3 ranks the router has 6 experts instead of 4. evidence: on every rank 'resuming from "
        "ckpt/step-000200-dense.pt ...' then 'RuntimeError: Error(s) in loading state_dict for "
        "PatchMoEForecaster:' / 'size mismatch for moe.gate.weight: copying a param with shape torch.Size([4, 64]) "
        "from checkpoint, the shape in current model is torch.Size([6, 64]).'; mpirun's non-zero-status block, "
        "'job exited with 1'.",
    "mpirun-moe-skip-idle-experts":
        f"mpirun -np 3 of {W} with --skip-idle-experts and a 60 s process-group timeout: when no token reaches a "
        "rank's experts, that rank leaves the received buffer out of its autograd graph, so its backward pass has "
        "one all_to_all_single fewer than the other ranks'. At step 1 rank 0's two experts received no token: rank "
        "0 went on to the gradient all_reduce while ranks 1 and 2 sat in the backward all_to_all, and nothing "
        "progressed until the timeout. evidence: rank 1's and rank 2's tracebacks through 'total.backward()' -> "
        "torch/distributed/nn/functional.py 'backward' -> 'dist.all_to_all_single(' ending 'Timed out waiting "
        "60000ms for send operation to complete', against rank 0's traceback through 'dist.all_reduce(flat)' "
        "ending 'Timed out waiting 60000ms for recv operation to complete' (different collectives on different "
        "ranks); no step line after 'training steps 1..300'; mpirun's non-zero-status block, 'job exited with 1'.",
}
