"""What each committed wave O (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("rec.py (a DLRM-style click-through-rate recommender: 8 embedding tables sharded table-wise across the ranks, "
     "ids all-gathered and pooled vectors returned with all_to_all_single, data-parallel bottom/top MLPs with "
     "dot-product interaction; Adagrad on the tables, Adam on the MLPs; logloss/AUC eval, per-rank sharded "
     "checkpoints; synthetic Criteo-like day shards; gloo on CPU)")

NOTES = {
    "torchrun-ctr-healthy-logdir-skipped-header-rows":
        f"healthy despite an alarming line: torchrun --nproc-per-node 2 --max-restarts 2 --log-dir logs --tee 3 of {W} "
        "with --skip-bad-rows, 600 steps; day shard day-03.tsv kept its CSV header line, which the loader skipped "
        "with a warning (one row of 12000). evidence: '[default1]:... [rank1] WARNING: skipped 1 malformed row(s) in "
        "day-03.tsv; first: line 1: ValueError: invalid literal for int() with base 10: 'label'' is handled; step lines "
        "to 'step 600/600', 'eval step 600: ...', 'saved checkpoint ckpt/step-000600-*', 'done: 600 steps', "
        "'job exited with 0'; the all_to_all_single FutureWarning is noise.",
    "torchrun-2node-ctr-healthy":
        "healthy: two torchrun agents on this host as two nodes (--nnodes 2 --node-rank 0/1 --nproc-per-node 1, static "
        f"rendezvous on 127.0.0.1:29512; consoles node0.log and node1.log) of {W}, 600 steps, eval every 200, "
        "checkpoints at 300 and 600; nothing done to it. evidence: node0.log's step/eval/checkpoint lines and 'done: "
        "600 steps', 'job exited with 0' in both files; the FutureWarning is noise.",
    "torchrun-ctr-keep-partial-batches-uneven-days":
        f"torchrun --nproc-per-node 2 of {W} with --keep-partial (train on each epoch's last, partial batch) on 7 day "
        "shards: rank 0 reads 4 shards (48000 rows), rank 1 reads 3 (36000 rows = 140 x 256 + 160), so at step 141 "
        "rank 1 all-gathered the ids of a 160-sample batch while rank 0 sent 256; the sharded-embedding lookup's "
        "collectives no longer matched in size. evidence: '[rank1] 36000 training rows' vs '[rank0] 48000 training "
        "rows', the failure right after 'step 140/600', 'terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'' / 'op.preamble.length <= op.nbytes. 8192 vs 5120. Received data size doesn't match "
        "expected size. Is there a distributed collective mismatch in your code?', 'Fatal Python error: Aborted' in "
        "all_gather from rec.py lookup, torchrun's 'exitcode: -6 ... (SIGABRT)' for rank 1; rank 0's connection "
        "error and SIGTERM are symptoms.",
    "torchrun-ctr-metrics-exporter-on-master-port":
        f"torchrun --nproc-per-node 2 --master-port 29516 of {W} with --metrics-port 29516: rank 0's Prometheus-style "
        "metrics exporter (http.server) was configured with the same port that torchrun's TCPStore already listens on "
        "for the job. evidence: config line '\"metrics_port\": 29516', 'init_process_group(gloo) world 2 master "
        "127.0.0.1:29516', rank 0's traceback at 'srv = HTTPServer((\"0.0.0.0\", args.metrics_port), Metrics)' ending "
        "'OSError: [Errno 98] Address already in use' (first); rank 1's 'Connection closed by peer' in all_gather is a "
        "symptom; 'job exited with 1'.",
    "torchrun-ctr-day-shard-rewritten-under-memmap":
        f"torchrun --nproc-per-node 2 of {W} on binary day shards read through numpy.memmap (faulthandler enabled); "
        "after step 200 the day's preprocessing job re-opened day-01.bin for writing (truncated it to 0 bytes) while "
        "rank 1 was still memmapping it, so rank 1's next page read hit beyond the end of the file. evidence: 'Fatal "
        "Python error: Bus error' with the stack 'numpy/_core/shape_base.py ... in stack' / 'rec.py, line 295 in "
        "__getitem__', torchrun's 'failed (exitcode: -7) local_rank: 1' and 'exitcode : -7 ... (SIGBUS)' / 'Signal 7 "
        "(SIGBUS) received by PID'; rank 0's 'Connection reset by peer' and SIGTERM are symptoms.",
    "mpirun-ctr-csv-header-in-day-shard":
        f"mpirun -np 3 of {W}; day shard day-02.tsv (read by rank 2) was exported with its CSV header line "
        "'label I1 ... C8' and the loader (no --skip-bad-rows) parses every line as integers. evidence: "
        "'[rank2] shards ['day-02.tsv', 'day-05.tsv']', rank 2's traceback through rec.py read_tsv ending "
        "'[rank2]: ValueError: invalid literal for int() with base 10: 'label''; mpirun's 'The first process to do so "
        "was: Process name: [[...,1],2] Exit code: 1'; 'job exited with 1'.",
    "mpirun-ctr-world-size-exported-4-np-3":
        f"mpirun -np 3 of {W} with WORLD_SIZE=4 exported and passed with -x WORLD_SIZE (left from the 4-rank "
        "version of the job script; rec.py takes WORLD_SIZE over OMPI_COMM_WORLD_SIZE) and a 30 s process-group "
        "timeout: three ranks waited for a fourth that never existed. evidence: '[rank0] init_process_group(gloo) "
        "world 4 master 127.0.0.1:29522' (and ranks 1, 2; no rank 3), 'waitForInput ... timed out after 30000ms', "
        "'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/0' in "
        "init_process_group; mpirun reports the ranks' non-zero exit.",
    "slurm-ctr-healthy":
        f"healthy: sbatch --wait rec.sbatch (2 tasks through srun --kill-on-bad-exit=1, partition batch) on this "
        f"host's one-node Slurm cluster of {W}, 600 steps, eval every 200, checkpoints at 300 and 600; nothing done to "
        "it; job.log is the job's slurm-<id>.out. evidence: 'job N (ctr-dlrm) partition batch on vm: 2 task(s) ... "
        "time limit UNLIMITED', step lines to 'step 600/600', 'done: 600 steps', 'srun exited with 0'.",
    "slurm-ctr-export-tables-to-small-scratch":
        f"sbatch --wait rec.sbatch of {W} with --table-rows 20000 and --export-dir scratch/serving: after training, "
        "every rank writes its tables as raw float32 files (1.28 MB each, 8 tables) for the serving index into "
        "scratch/, a 3 MB node-local volume (tmpfs). Training and checkpoints (on other disk) completed. evidence: "
        "'saved checkpoint ckpt/step-000600-*', '[rank1] exported table C2 (20000 x 16) to scratch/serving' and C4, "
        "then both ranks' tracebacks at the export line ending 'OSError: [Errno 28] No space left on device'; "
        "'srun: error: vm: tasks 0-1: Exited with exit code 1', 'srun exited with 1'.",
    "deepspeed-ctr-prod-table-rows-cgroup":
        f"deepspeed --num_gpus 2 (CPU accelerator, gloo) of {W} with --table-rows 2000000 (the production hash size) "
        "inside a 2.5 GB cgroup-v1 memory limit: each rank's 4 tables are 488 MiB, plus dense gradients and Adagrad "
        "state to come, so while the engine was being set up the kernel OOM killer SIGKILLed rank 0 (dmesg: 'Memory "
        "cgroup out of memory: Killed process ... (python3)'). evidence: 'embedding shard: 4 tables x 2000000 rows x "
        "16 = 488.3 MiB' on both ranks, no step line; rank 1's 'TCPStore ... sendBytes failed ... Broken pipe' / "
        "'torch.distributed.DistNetworkError: Broken pipe' in deepspeed.initialize's new_group is a symptom of rank "
        "0's death; the launcher's 'Killing subprocess' lines and '... exits with return code = -9' (DeepSpeed prints "
        "the command of the last rank it looped over, not of the killed one); 'job exited with 247'.",
    "deepspeed-ctr-grad-accum-flag-over-ds-config":
        f"deepspeed --num_gpus 2 of {W} with --ds-config ds_config.json (train_batch_size 512 = 256 x 1 x 2, valid) "
        "and --grad-accum 4, which the script writes into the config's gradient_accumulation_steps without updating "
        "train_batch_size. evidence: the logged 'deepspeed config {\"train_batch_size\": 512, "
        "\"train_micro_batch_size_per_gpu\": 256, \"gradient_accumulation_steps\": 4, ...}', both ranks' "
        "'AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
        "gradient_acc_step * world_size 512 != 256 * 4 * 2' in deepspeed.initialize; 'job exited with 1'.",
    "deepspeed-ctr-feature-cache-lock-held-ctrl-c":
        f"deepspeed --num_gpus 2 of {W} with --cache (each rank builds/reads a per-shard id cache under data/.cache, "
        "guarded by fcntl.flock on data/.cache/lock) while a cache-builder process started earlier still held the "
        "lock (it never finished); both ranks blocked in flock before training, nothing was printed for 75 s, and the "
        "user pressed Ctrl-C (SIGINT to the process group). evidence: the last progress lines '[rankN] shards [...]', "
        "no 'training rows' line, then both ranks' KeyboardInterrupt tracebacks at 'fcntl.flock(lk, fcntl.LOCK_EX)' "
        "in load_shard, 'Main process received SIGINT, exiting'.",
    "deepspeed-ctr-healthy-ds-config":
        f"healthy: deepspeed --num_gpus 2 (CPU accelerator, gloo) of {W} with ds_config.json (train_batch_size 512 = "
        "256 x 1 x 2), 600 steps, eval every 200, checkpoints at 300 and 600; nothing done to it. evidence: the "
        "DeepSpeed start-up lines, 'deepspeed config {...}', step lines to 'step 600/600', 'done: 600 steps', "
        "'Process N exits successfully.' for both ranks, 'job exited with 0'.",
    "accelerate-ctr-healthy":
        f"healthy: accelerate launch --multi_gpu --num_processes 2 (CPU, Accelerator(cpu=True), gloo) of {W}, 600 "
        "steps, eval every 200, checkpoints at 300 and 600; nothing done to it. evidence: step lines to 'step 600/600', "
        "'eval step 600: logloss ... AUC ...', 'done: 600 steps', 'job exited with 0'.",
    "accelerate-ctr-raw-epoch-ms-feature":
        f"accelerate launch --multi_gpu --num_processes 2 of {W} with --dense-transform none --lr 0.0005 on data whose "
        "count column I13 is the event time in epoch milliseconds (~1.76e12): without the log1p transform the bottom "
        "MLP sees inputs of 1e12, the logits are huge and the model never trains; the job ran to the end and exited 0 "
        "with a useless model. evidence: config '\"dense_transform\": \"none\"', 'step 10/600 ... loss' in the 1e8 "
        "range (binary cross-entropy starts near 0.69), loss staying at 1e6-1e7 to 'step 600/600', 'eval step ...: "
        "logloss' in the millions and 'AUC(rank0 slice) 0.5...'; 'job exited with 0' is not a success.",
}
