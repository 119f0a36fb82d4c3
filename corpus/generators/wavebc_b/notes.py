"""Manifest notes for wave BC (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Keras 3.15.1 on the PyTorch backend (KERAS_BACKEND=torch, torch 2.13.0+cpu), 2 worker processes started the way "
     "Keras's guide 'Multi-GPU distributed training with PyTorch' does it ('python train.py --step-delay 0.15 "
     "--master-port P': torch.multiprocessing.start_processes(..., start_method=\"fork\"), gloo on CPU, the Keras "
     "functional model wrapped in torch DistributedDataParallel, DistributedSampler, keras.losses.MeanSquaredError + "
     "keras.optimizers.Adam via optimizer.apply, rank 0 saves .keras checkpoints with model.save); a dairy "
     "cooperative's next-day milk-yield forecaster on per-cow daily collar/parlour sensor records")
NOTES = {
    "kr-milk-healthy": (
        f"no_failure: {W}, 3 epochs; both ranks train, rank 0 validates and saves a .keras checkpoint each epoch. "
        "evidence: '16:30:04 INFO [rank0] saved checkpoints/milk-epoch03.keras', '16:30:04 INFO [rank0] finished 3 "
        "epochs', 'job exited with 0'"),
    "kr-milk-healthy-meter-err": (
        f"no_failure: {W}; 4 milk-meter readings in the export are 'ERR'; rank 0 logs each at ERROR and drops it, "
        "training succeeds. evidence: \"16:30:24 ERROR [rank0] record 3001 (NL0124 day 119): could not convert string "
        "to float: 'ERR', dropped\", '16:30:42 INFO [rank0] finished 3 epochs', 'job exited with 0'"),
    "kr-milk-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), '--epochs 4 --resume': both ranks load "
        "checkpoints/milk-epoch02.keras (model.load_weights) and train epochs 3-4. evidence: '16:31:14 INFO [rank1] "
        "resumed from checkpoints/milk-epoch02.keras (epoch 2)', '16:31:28 INFO [rank0] finished 4 epochs', 'job "
        "exited with 0'"),
    "kr-milk-healthy-rerun-done": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), rerun with '--epochs 2 --resume': the "
        "checkpoint is loaded, no epoch is left, the job ends at once. evidence: '16:32:00 INFO [rank0] nothing to "
        "do: checkpoint is at epoch 2 of 2', '16:32:00 INFO [rank0] finished 2 epochs', 'job exited with 0'"),
    "kr-milk-healthy-h5-export": (
        f"no_failure: {W}; '--export models/milk-forecaster.h5': after 3 epochs rank 0 saves the final model as HDF5 "
        "and Keras logs its legacy-format WARNING; success. evidence: \"16:32:34 WARNING [rank0] You are saving your "
        "model as an HDF5 file via `model.save()` or `keras.saving.save_model(model)`. This file format is considered "
        "legacy. We recommend using instead the native Keras format, e.g. `model.save('my_model.keras')` or "
        "`keras.saving.save_model(model, 'my_model.keras')`. \", '16:32:34 INFO [rank0] exported "
        "models/milk-forecaster.h5', 'job exited with 0'"),
    "kr-milk-cgroup-oom": (
        f"host_oom_killed: {W}; '--cache-copies 4000' (jittered copies of the train set kept in memory, ~1.3 GB per "
        "rank) with the job in a 1.3 GB cgroup-v1 memory cgroup; the kernel OOM killer kills rank 0 while it builds "
        "the cache; the launcher SIGTERMs rank 1 (which logs it) and raises ProcessExitedException. evidence: "
        "'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL', 'job exited "
        "with 1'"),
    "kr-milk-ckpt-disk-full": (
        f"disk_full: {W}; checkpoints/ is a 16 KiB tmpfs; after epoch 1's validation rank 0's model.save of "
        "checkpoints/milk-epoch01.keras runs out of space; the launcher terminates rank 1. evidence: 'OSError: [Errno "
        "28] No space left on device', '-- Process 0 terminated with the following error:', 'job exited with 1'"),
    "kr-milk-shm-batches": (
        f"shm_exhausted: {W}; '--workers 2 --batch-size 2048' (2 DataLoader worker processes per rank) with /dev/shm "
        "a 256 KiB tmpfs (the job in its own mount namespace, like a container with a small --shm-size); rank 1's "
        "DataLoader worker cannot allocate the shared memory for a batch, rank 1 raises, the launcher terminates rank "
        "0. evidence: 'RuntimeError: unable to allocate shared memory(shm) for file </torch_20077_243260500_0>: No "
        "space left on device (28)', 'RuntimeError: Caught RuntimeError in DataLoader worker process 0.', 'job exited "
        "with 1'"),
    "kr-milk-water-overflow": (
        f"training_divergence: {W}; one cow's water-meter counter overflows to 1e39 for her last 20 days (inf in "
        "float32), so the standardised features are NaN; loss NaN on step 1 and the script's finite-loss check "
        "raises on rank 0. evidence: 'FloatingPointError: loss is nan at epoch 1 step 1', 'job exited with 1'"),
    "kr-milk-pedigree-cycle": (
        f"native_crash: {W}; two bought-in heifers are registered as each other's dam; the functools.lru_cache'd "
        "recursive dam-line walk (sys.setrecursionlimit(1_000_000)) recurses through C until the stack overflows and "
        "the workers die of SIGSEGV before training. evidence: 'torch.multiprocessing.spawn.ProcessExitedException: "
        "process 1 terminated with signal SIGSEGV', 'job exited with 1'"),
    "kr-milk-debug-detail": (
        f"native_crash: {W}; run with TORCH_DISTRIBUTED_DEBUG=DETAIL (to debug the process group); both workers die "
        "of SIGSEGV inside torch.nn.parallel.DistributedDataParallel(model) wrapping the Keras model (a faulthandler "
        "test run, not this log, showed the DDP constructor line), before any step. evidence: "
        "'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV', 'job exited "
        "with 1'"),
    "kr-milk-port-held": (
        f"port_in_use: {W}; a 'python -m http.server' left running on the master port 29660; rank 0's TCPStore cannot "
        "listen, rank 1 is stuck talking to the web server until the launcher SIGKILLs it. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29660, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'W1201 "
        "16:34:46.771000 15819 torch/multiprocessing/spawn.py:176] Unable to shutdown process 15927 via SIGTERM , "
        "forcefully exiting via SIGKILL', 'job exited with 1'"),
    "kr-milk-rank-stopped": (
        f"collective_timeout: {W}; '--pg-timeout 20 --epochs 6'; rank 1 is SIGSTOPped in epoch 2; rank 0's gloo "
        "receive in the backward all-reduce times out after 20 s, the launcher SIGTERMs then SIGKILLs the stopped "
        "rank. evidence: 'RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
        "Timed out waiting 20000ms for recv operation to complete', '-- Process 0 terminated with the following "
        "error:', 'job exited with 1'"),
    "kr-milk-preempted": (
        f"job_preempted: {W}; '--epochs 8'; in epoch 2 SIGTERM is sent to every process of the training job (the "
        "launcher and both ranks), as a cluster's preemption does; each logs it and exits 143. evidence: '16:36:46 "
        "WARNING [rank-] received SIGTERM, stopping', '16:36:46 WARNING [rank0] received SIGTERM, stopping', 'job "
        "exited with 143'"),
    "kr-milk-terminal-closed": (
        f"terminal_hangup: {W}; '--epochs 8'; in epoch 2 SIGHUP to the job's whole process group (the terminal it was "
        "started from closing); the ranks log it and exit, the shell dies too (no 'job exited' line). evidence: "
        "'16:37:06 WARNING [rank0] received SIGHUP, stopping', '16:37:06 WARNING [rank1] received SIGHUP, stopping'"),
    "kr-milk-second-node-missing": (
        f"rendezvous_timeout: {W}; '--nnodes 2 --pg-timeout 30' (world 4) but the second machine's job was never "
        "started; the 2 local ranks wait in init_process_group's store until the timeout. evidence: "
        "'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/0', '-- Process 1 "
        "terminated with the following error:', 'job exited with 1'"),
    "kr-milk-new-pen": (
        f"collective_mismatch: {W}; '--pen-balance' (per-pen row counts torch.bincount'ed per rank and all_reduced) "
        "with TORCH_DISTRIBUTED_DEBUG=DETAIL; one cow moved to a new pen 9 on her last days, so rank 0's counts have "
        "10 entries and rank 1's 6: the debug wrapper reports the mismatch. evidence: 'RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[6], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[10], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Tensor Tensor shapes: 6vs 10', 'job exited with 1'"),
    "kr-milk-new-sensor": (
        f"worker_exception: {W}; '--init-model models/milk-2025.keras' (last season's model, 9 inputs) on this "
        "season's export, which has a new rumen_ph column (10 features); Keras rejects the input on the first step on "
        "both ranks. evidence: \"ValueError: Input 0 with name 'sensors' of layer 'milk_forecaster' is incompatible "
        "with the layer: expected shape=(None, 9), found shape=(64, 10)\", '-- Process 1 terminated with the following "
        "error:', 'job exited with 1'"),
    "kr-milk-save-best": (
        f"worker_exception: {W}; '--save-best': after epoch 1's validation rank 0 calls .save on the "
        "DistributedDataParallel wrapper instead of the Keras model; the launcher terminates rank 1. evidence: "
        "\"AttributeError: 'DistributedDataParallel' object has no attribute 'save'\", '-- Process 0 terminated with the "
        "following error:', 'job exited with 1'"),
    "kr-milk-keras2-config": (
        f"library_version_mismatch: {W}; the team's config/train.json still has a Keras 2 optimizer argument "
        "(\"lr\": 0.002); Keras 3's optimizer rejects it on both ranks before training. evidence: \"ValueError: "
        "Argument(s) not recognized: {'lr': 0.002}\", 'job exited with 1'"),
    "kr-milk-keras2-ckpt-path": (
        f"library_version_mismatch: {W}; the config's checkpoint path is a Keras 2 style path without an extension "
        "(a SavedModel directory under Keras 2); Keras 3's model.save rejects it on rank 0 after epoch 1. evidence: "
        "'ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native "
        "Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a "
        "SavedModel for use with TFLite/TFServing/etc. Received: filepath=checkpoints/milk-epoch01.', 'job exited "
        "with 1'"),
    "kr-milk-import-order": (
        f"library_version_mismatch: {W}; train.py's imports reordered (as an import sorter does) so 'import keras' "
        "runs before os.environ['KERAS_BACKEND'] = 'torch'; Keras loads its default TensorFlow backend, which is not "
        "installed in this venv; the launcher dies at import, no worker starts. evidence: \"ModuleNotFoundError: No "
        "module named 'tensorflow'\", 'job exited with 1'"),
    "kr-milk-stopped-quiet": (
        f"silent_hang: {W}; '--epochs 8 --pg-timeout 1800'; rank 1 is SIGSTOPped in epoch 2; the output stops, no "
        "error is printed, the harness ends the job after 70 s (no 'job exited' line). evidence: '[rank1] 16:39:47 "
        "Epoch 2/8 step 20/34 - loss: 253.5533'"),
}
