"""What each committed run of generate.py showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpirun-seqpack-long-doc-terminate": (
        "launcher: Open MPI mpirun -np 3 --oversubscribe (gloo, CPU, torch 2.13.0+cpu), each rank builds the seqpack C++ "
        "extension with torch.utils.cpp_extension.load (ninja build shown) and trains a small causal LM with DDP on "
        "sequences the extension packs into 256-token rows (pack_chunk runs in std::thread workers). Cause made real: the "
        "corpus holds one document from another source that skipped the splitter (1400 tokens, longer than a row); when "
        "rank 1 packs it, row.at() throws inside a std::thread, nothing catches it, std::terminate aborts the process. "
        "Evidence: after normal step lines up to step 125/300, \"terminate called after throwing an instance of "
        "'std::out_of_range'\" / \"what():  vector::_M_range_check: __n (which is 256) >= this->size() (which is 256)\", "
        "then ranks 0 and 2 fail with gloo 'Connection closed by peer' (symptom), mpirun's 'Primary job terminated "
        "normally, but 1 process returned a non-zero exit code' and 'mpirun noticed that process rank 1 with PID 0 on node "
        "vm exited on signal 6 (Aborted)'; job exited with 134. Full log."),
    "mpirun-seqpack-healthy": (
        "healthy: Open MPI mpirun -np 3 --oversubscribe, gloo on CPU, the seqpack C++ extension built at start-up (ninja "
        "build lines), a small causal LM trained with DDP for 300 steps on a corpus where every document went through the "
        "splitter: step lines with falling loss, evals every 50 steps, checkpoints every 100 steps, 'done: 300 steps' on "
        "all three ranks; job exited with 0. Full log."),
    "pytorchjob-c10d-nnodes-mismatch": (
        "launcher: python -m torch.distributed.run configured the way the Kubeflow PyTorchJob operator does it (PET_* "
        "variables: c10d rendezvous at 127.0.0.1:29810, rdzv id lm-pretrain-7f3c, join_timeout=120, 2 procs per node, "
        "LOGLEVEL=INFO, TORCH_CPP_LOG_LEVEL=INFO), two worker 'pods' on this host, node1 started 5 s after node0. Cause made "
        "real: the two pods disagree on the node count (node0 PET_NNODES=2, node1 PET_NNODES=3: the two pod "
        "specs disagree), so the rendezvous never completes for both. Evidence: node0.log prints 'min_nodes : 2 / max_nodes "
        ": 2', node1.log 'min_nodes : 3 / max_nodes : 3'; after 'Rendezvous'ing worker group' nothing for 120 s, then "
        "node0 raises torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError (dynamic_rendezvous.py "
        "next_rendezvous) and closes the store it hosts; node1 then fails with 'DistNetworkError: Failed to recv, got 0 "
        "bytes. Connection was likely closed' and RendezvousConnectionError (symptom). node1's EADDRINUSE line is the agent "
        "finding the store already hosted by node0 (normal). No training step ran; both exited with 1. Folder with "
        "node0.log and node1.log."),
    "slurm-compile-healthy": (
        "healthy: Slurm sbatch --wait train.sbatch (one-node cluster, partition batch, 2 tasks) runs srun python "
        "compile_train.py: a token tagger in DDP over gloo on CPU compiled with torch.compile (inductor); 400 steps, "
        "evals and checkpoints, 'training done: 400 steps' on both ranks and the script's 'training finished at ...'. The "
        "job's slurm-<id>.out is the log. The only stderr lines are df complaining that the scratch folder did not exist "
        "yet (the script creates it next) and inductor's 'Profiler record function ... will be ignored' warnings. Full log."),
    "slurm-compile-scratch-full": (
        "launcher: Slurm sbatch --wait train.sbatch with SCRATCH pointing at node-local scratch (here a 64 MB tmpfs "
        "already holding 63 MB of an earlier run's checkpoint shard), MAX_ATTEMPTS=1; srun python compile_train.py, 2 "
        "ranks, torch.compile writes inductor's generated C++ and its build products to TORCHINDUCTOR_CACHE_DIR on that "
        "scratch. Cause made real: the scratch filesystem is full. Evidence: the script's own 'inductor cache: "
        ".../scratch/inductor-7 (1.0M free)', then on both ranks during the first (compiling) step "
        "'torch._inductor.exc.InductorError: CppCompileError: C++ compile error' whose compiler output (thousands of lines "
        "of gcc notes/warnings about avx512 intrinsics, noise) ends in '/usr/bin/ld: final link failed: No space left on "
        "device' / 'collect2: error: ld returned 1 exit status'; 'srun: error: vm: task 0: Exited with exit code 1', "
        "'attempt 1 failed with exit code 1'. The job's slurm-<id>.out is the log. Full log (long: compiler output)."),
    "raytrain-container-dev-shm-64m": (
        "launcher: python ray_train_images.py, which starts its own local Ray 2.60 instance (ray.init, 2 CPUs, the "
        "single-container set-up) inside a mount namespace whose /dev/shm is a 64 MB tmpfs (a container started without "
        "--shm-size); Ray Train TorchTrainer with 2 workers (gloo, CPU), each reading its shard through a DataLoader with "
        "2 worker processes, batches of 64 x 3x128x128 float32 (12.6 MB) passed back through shared memory. Cause made "
        "real: /dev/shm is too small for the loader workers' batches. Evidence: Ray's own 'WARNING: The object store is "
        "using /tmp/wavej-raylocal/ray instead of /dev/shm because /dev/shm has only 67108864 bytes available', then in "
        "RayTrainWorker rank 1 'RuntimeError: Caught RuntimeError in DataLoader worker process 0' with the original "
        "'RuntimeError: unable to allocate shared memory(shm) for file </torch_...>: No space left on device (28)' from "
        "collate -> _new_shared; TrainController '[FailurePolicy] RAISE', ray.train.WorkerGroupError; job exited with 1. "
        "The PlacementGroupCleaner 'Failed to query Ray Train Controller actor state' lines are Ray noise. Full log."),
    "slurm-compile-preempted-by-urgent-partition": (
        "launcher: Slurm sbatch --wait train.sbatch (partition batch, PriorityTier 1, PreemptMode=CANCEL, GraceTime=20) "
        "on a one-node cluster; srun python compile_train.py --steps 3000 (token tagger, DDP over gloo on CPU, "
        "torch.compile), a SIGTERM handler checkpoints and exits 143, the batch script retries srun up to 3 times. Cause "
        "made real: while the job runs (at step 300) another user submits a job into the urgent partition (PriorityTier "
        "10) that needs the node's 2 CPUs, so Slurm preempts this job. Evidence: 'slurmstepd-vm: error: *** STEP 8.0 ON vm "
        "CANCELLED AT ... ***', both ranks 'received signal 15: checkpointing at step 300 and exiting', 'srun: error: vm: "
        "task 0: Exited with exit code 143', the retry's 'srun: error: Unable to create step for job 8: Job/step already "
        "completing or completed', and last 'slurmstepd-vm: error: *** JOB 8 ON vm CANCELLED AT ... DUE TO PREEMPTION "
        "***'. The job's slurm-<id>.out is the log (df's 'No such file or directory' for the not yet created scratch "
        "folder is noise). Full log."),
    "lightning-sklearn-numpy-abi-mismatch": (
        "launcher: python train_pl_images.py: Lightning 2.6.6 Trainer(accelerator='cpu', devices=2, strategy='ddp'), "
        "which re-launches itself for rank 1 (gloo), a CNN over compressed image records with 2 DataLoader workers; the "
        "validation hook imports scikit-learn for a macro AUROC. Environment: a venv where scikit-learn 1.2.2 (wheels "
        "compiled against numpy 1.x) sits next to numpy 2.4.6. Cause made real: the compiled sklearn modules do not load "
        "with this numpy. Evidence: at the end of the sanity-check validation on both ranks 'from sklearn.metrics import "
        "roc_auc_score' -> sklearn/utils/murmurhash.pyx 'ValueError: numpy.dtype size changed, may indicate binary "
        "incompatibility. Expected 96 from C header, got 88 from PyObject'; job exited with 1. Lightning's 'srun is "
        "available but not used', tensorboardX and LeafSpec deprecation lines are noise. Full log (short)."),
    "rayserve-replicas-cpu-unschedulable": (
        "launcher: python embed_service.py (Ray Serve 2.60: serve.start + serve.run) against a running local Ray cluster "
        "with 2 CPUs and no autoscaler; an Embedder deployment (small Transformer encoder) with num_replicas=2 and "
        "ray_actor_options num_cpus=1.5, then a load test. Cause made real: two replicas need 3 CPUs, the cluster has 2, so "
        "the second replica can never be placed and serve.run waits for the application forever. Evidence: 'cluster "
        "resources: {... 'CPU': 2.0 ...}', 'deploying Embedder: 2 replicas x 1.5 CPU', 'Adding 2 replicas', one 'Embedder "
        "replica ready', then the ServeController's 'WARNING ... Deployment 'Embedder' in application 'embeddings' has 1 "
        "replicas that have taken more than 30s to be scheduled. This may be due to waiting for the cluster to auto-scale "
        "or for a runtime environment to be installed ...' every 30 s (6 times); the user pressed Ctrl-C after 200 s: "
        "KeyboardInterrupt in serve.run -> _wait_for_application_running. Full log (short)."),
    "lightning-images-healthy": (
        "healthy: python train_pl_images.py: Lightning 2.6.6 Trainer(accelerator='cpu', devices=2, strategy='ddp') over "
        "gloo, a CNN on 1600 compressed image records with 2 persistent DataLoader workers, 4 epochs: per-batch loss lines "
        "from both ranks, a scikit-learn macro AUROC after each validation, '`Trainer.fit` stopped: `max_epochs=4` "
        "reached.', both ranks 'finished: {...}'; job exited with 0. Lightning's usual hints and deprecation warnings "
        "(srun available but not used, tensorboardX, LeafSpec) are in it. Full log."),
    "lightning-loader-decode-cache-cgroup-oom": (
        "launcher: python train_pl_images.py --decode-cache: Lightning 2.6.6 Trainer(accelerator='cpu', devices=2, "
        "strategy='ddp') over gloo, a CNN on 2000 compressed 3x256x256 image records, 2 persistent DataLoader workers per "
        "rank; the job runs in a memory cgroup limited to 2.4 GB (a container/pod memory limit). Cause made real: with "
        "the decode cache every DataLoader worker memoises each decoded float32 image (768 KiB) in its own never-evicted "
        "dict, so the workers grow until the kernel's cgroup OOM killer kills them (dmesg on this host: 'Memory cgroup out "
        "of memory: Killed process ... (pt_data_worker)', not in the log). Evidence: rank lines show the trainer processes "
        "at a steady ~550 MiB rss (the growth is in the workers), epoch 0 completes, then on both ranks 'RuntimeError: "
        "DataLoader worker (pid 29690) is killed by signal: Killed.' (from torch/utils/data/_utils/signal_handling.py), "
        "rank 1 also a gloo 'Connection closed by peer' (symptom); job exited with 1. Full log."),
    "pytorchjob-c10d-healthy": (
        "healthy: python -m torch.distributed.run configured like a Kubeflow PyTorchJob worker (PET_NNODES=2, "
        "PET_NPROC_PER_NODE=2, c10d rendezvous at 127.0.0.1:29811, LOGLEVEL=INFO, TORCH_CPP_LOG_LEVEL=INFO), two 'pods' on "
        "this host started 5 s apart, 4 ranks in all (gloo, CPU), the seqpack C++ extension built per node, a small "
        "causal LM with DDP for 200 steps: step/eval/checkpoint lines, 'done: 200 steps' on all 4 ranks, both agents exit "
        "0. The c10d INFO lines, node1's EADDRINUSE line (the store is already hosted by node0) and, at shutdown, node1's "
        "'recvVector failed ... Connection was likely closed' / 'failed to shutdown the rendezvous ... "
        "RendezvousConnectionError' warnings (node0, which hosts the store, exited first) are normal for this launcher. "
        "Folder with node0.log and node1.log."),
    "fabric-lm-terminal-closed": (
        "launcher: fabric run --accelerator cpu --strategy ddp --devices 2 --main-port 29860 fabric_lm.py (Lightning 2.6.6 "
        "Fabric's CLI, which starts torchelastic's agent), TORCH_CPP_LOG_LEVEL=INFO, gloo, a GRU language model, 1000 "
        "optimizer steps planned, started from an interactive shell without tmux/screen/nohup. Cause made real: the "
        "user's terminal closed at step 150/1000 (SIGHUP to the job's process group, the shell and tee included). "
        "Evidence: normal step lines up to 'step 150/1000', 'saved ckpt/step-00100.ckpt', then the agent's 'W... "
        "agent/server/api.py:753] Received 1 death signal, shutting down workers' and 'Sending process ... closing signal "
        "SIGHUP' for both workers; the log ends there (no exit line: the shell and tee died with the terminal). Full log "
        "(short)."),
    "raytrain-bf16-accum-summed-loss-inf": (
        "launcher: python ray_train_bf16.py against a running local Ray 2.60 cluster (RAY_ADDRESS, 2 CPUs): Ray Train "
        "TorchTrainer, 2 workers (gloo, CPU, prepare_model -> DDP), an MLP regressor with SGD+momentum lr 0.02 (warm-up "
        "100 steps), bfloat16 autocast, 8 micro-batches of 64 accumulated per optimizer step (no_sync). Cause made real: "
        "--loss-scaling sum: the micro-batch losses are not divided by the accumulation count, so the effective step is 8x "
        "too large and the run diverges as the warm-up raises the lr. Evidence: 'loss_scaling sum' in the workers' start "
        "line, per-step losses that bounce (300 -> 18 -> 860 ...) with grad_norm growing to 1e+03-1e+04, then 'epoch 1 step "
        "80 loss 10058381453375386897350656.0000 grad_norm inf', and both workers 'FloatingPointError: non-finite loss inf "
        "at epoch 1 step 81 (grad_norm nan)' (the script's own check), TrainController '[FailurePolicy] RAISE', "
        "ray.train.WorkerGroupError; job exited with 1. Ray prints each worker line twice (its log monitor), noise. Full "
        "log."),
    "accelerate-deepspeed-hf-train-batch-size": (
        "launcher: accelerate launch --use_deepspeed --deepspeed_config_file ds_config.json --num_processes 2 (accelerate "
        "1.15, DeepSpeed 0.19.8 on its CPU accelerator, gloo) around finetune_cls.py, a run_glue.py-style Hugging Face "
        "Trainer script (transformers 5.24) fine-tuning a small BERT on support tickets; TrainingArguments "
        "--per_device_train_batch_size 16 --gradient_accumulation_steps 2. The job prints its ds_config.json first. Cause "
        "made real: the DeepSpeed config carries hard numbers copied from another set-up (train_batch_size 128, "
        "weight_decay 0.01, warmup_num_steps 50) instead of 'auto', and they disagree with the Trainer's arguments. "
        "Evidence: '\"train_batch_size\": 128' in the printed config, accelerate's 'Gradient accumulation steps mismatch: "
        "GradientAccumulationPlugin has 1, DeepSpeed config has 2. Using DeepSpeed's value.', then on both ranks from "
        "transformers/integrations/deepspeed.py trainer_config_finalize 'ValueError: Please correct the following "
        "DeepSpeed config values that mismatch TrainingArguments values:' / '- ds train_batch_size=128 vs hf "
        "train_batch_size (calculated)=32' (also weight_decay and warmup_num_steps) / 'The easiest method is to set these "
        "DeepSpeed config values to 'auto'.'; torchelastic's ChildFailedError summary (rank 1 exitcode 1 root cause, rank "
        "0 SIGTERM); job exited with 1. Full log."),
    "torchrun-elastic-late-node-rejoin": (
        "launcher: torchrun --nnodes 1:2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29812 "
        "--rdzv-id lm-elastic --max-restarts 3 (elastic, LOGLEVEL=INFO) pack_train.py (gloo, CPU, seqpack C++ extension, "
        "small causal LM with DDP), two 'nodes' on this host: node0 starts alone, node1 (same command) 75 s later. Cause "
        "made real: the late node makes the running agent stop its workers and re-rendezvous, and that second rendezvous "
        "round never completes its exchange through the c10d store, so both agents give up on store waits. Evidence: "
        "node0.log 'min_nodes : 1 / max_nodes : 2', 'Rendezvous complete ... group_world_size=1', training to step "
        "70/600, then 'Detected 1 new nodes from group_rank=0; will restart worker group', 'Sending process ... closing "
        "signal SIGTERM' (its own workers, part of the restart), 'Rendezvous'ing worker group', 60 s later '[c10d] "
        "waitForInput: socket ... timed out after 60000ms' and 'torch.distributed.DistStoreError: wait timeout after "
        "60000ms, keys: /torch.rendezvous.lm-elastic.1/torchelastic/role_info/0, .../role_info/1' from "
        "_assign_worker_ranks -> store.multi_get; node1.log the same socket timeout and 'DistStoreError: wait timeout "
        "after 60000ms, keys: /torch.rendezvous.lm-elastic.1/MASTER_ADDR' from next_rendezvous -> "
        "RendezvousStoreInfo.build; both exited with 1. Folder with node0.log and node1.log."),
    "rayjob-data-seqpack-abort": (
        "launcher: Ray Jobs CLI: ray job submit --working-dir . -- python pack_dataset.py to a running local Ray 2.60 "
        "cluster (2 CPUs); a Ray Data pipeline read_json -> map_batches(PackRows, concurrency=2, max_restarts=2, "
        "max_task_retries=2) -> write_parquet, where each PackRows actor builds the seqpack C++ extension "
        "(torch.utils.cpp_extension.load) and packs batches of up to 256 documents into 256-token rows in std::thread workers. "
        "Cause made real: the corpus holds one document from another source that skipped the splitter (1400 tokens, "
        "longer than a row); the extension's row.at() throws std::out_of_range inside a std::thread, nothing catches it, "
        "the actor process aborts; Ray restarts the actor and retries the batch, which aborts again. Evidence: "
        "'(MapWorker(MapBatches(PackRows)) pid=615) ... logging.cc:118: Unhandled exception: St12out_of_range. what(): "
        "vector::_M_range_check: __n (which is 256) >= this->size() (which is 256)' with a native stack through "
        "seqpack.so (std::vector<>::at(), (anonymous namespace)::pack_chunk(), std::thread), '*** SIGABRT received at "
        "time=... ***', 'Fatal Python error: Aborted', first from pid 615, then again from the restarted actors (pid 1196's lines carry Ray's '[repeated 2x across cluster]'), the raylet's 'A "
        "worker died or was killed while executing a task by an unexpected system error' and retries, then "
        "'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task ... Worker exit type: "
        "SYSTEM_ERROR' (its text lists the OOM killer among common causes; no OOM happened), 'Dataset ... execution "
        "failed', Job '...' failed, 'Job entrypoint command failed with exit code 1'. ray job submit exit code 1. Full "
        "log."),
}
