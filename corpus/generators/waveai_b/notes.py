"""What each committed run of wave AI (b) showed (written after the runs; the manifest's notes column)."""

W = ("clip.py (CLIP-style image-text contrastive pretraining: small conv image tower + small text transformer over "
     "synthetic coloured-shape images with generated captions, symmetric InfoNCE with a learnable temperature, "
     "embeddings all_gathered across ranks, zero-shot accuracy eval)")

NOTES = {
    "torchrun-clip-shapes-healthy":
        f"torchrun 2 ranks gloo, {W}, 6 epochs of 2048 pairs; a harmless nested-tensor UserWarning from the text "
        "tower; zero-shot accuracy rises from 0.027 to 0.152, best.pt saved, finishes cleanly. evidence: "
        "'epoch 5 zero-shot acc 0.1523', 'all ranks finished', 'job exited with 0'",
    "torchrun-clip-shapes-half-precision":
        f"torchrun 2 ranks, {W}, with --precision fp16: the model is cast with .half() and trained with AdamW in pure "
        "float16 (no master weights, no loss scaling; eps 1e-8 and the squared gradients underflow to zero), so the "
        "first update makes weights non-finite; the loss is NaN from step 2 and the script's non-finite check stops "
        "both ranks. evidence: 'epoch 0 step 1/64 loss 4.1953', 'epoch 0 step 2/64 loss nan ... grad_norm nan', "
        "'FloatingPointError: loss is nan for 3 consecutive steps (step 4, logit_scale nan)'",
    "torchrun-clip-shapes-per-class-zeroshot":
        f"torchrun 2 ranks, {W}, with --per-class-acc on a 64-image validation set: each rank builds its class list "
        "from the classes present in its own 32 validation images, so the per-class count tensors all_reduced at the "
        "first evaluation have different lengths on the two ranks; gloo's size check aborts rank 1 and rank 0 sees "
        "the connection reset. evidence: \"terminate called after throwing an instance of 'gloo::EnforceNotMet'\", "
        "'op.preamble.length <= op.nbytes. 88 vs 80. ... Is there a distributed collective mismatch in your code?', "
        "'failed (exitcode: -6) local_rank: 1'",
    "torchrun-clip-shapes-hard-negatives-container":
        f"torchrun 2 ranks, {W}, with --hard-negatives on 40000 captions inside a 1500 MB memory cgroup (a "
        "container limit): each rank builds a dense 20000 x 20000 float64 caption-similarity matrix (3.2 GB) and the "
        "kernel OOM killer SIGKILLs rank 0; torchrun tears down rank 1. evidence: '[rank 0] mining hard negatives: "
        "20000 x 20000 caption similarities', 'failed (exitcode: -9) local_rank: 0', 'job exited with 1'",
    "torchrun-clip-shapes-96px-native-render":
        f"torchrun 2 ranks, {W}, images drawn by a compiled rasteriser (render.c built into librender.so, called "
        "through ctypes) whose static coverage buffer holds at most 64x64; the run asks for 96 px images and the C "
        "assert aborts both ranks in the first batch (SIGABRT). evidence: \"python3: render.c:20: draw_shape: "
        "Assertion `size <= MAX_SIZE' failed.\", 'failed (exitcode: -6) local_rank: 0'",
    "torchrun-clip-shapes-pretokenize-loader-workers":
        f"torchrun 2 ranks, {W}, with --pretokenize and one DataLoader worker: a background thread fills the "
        "tokenizer cache while holding the tokenizer's threading.Lock, the DataLoader forks its worker while the lock "
        "is held, and the worker's copy of the lock is never released, so the worker blocks forever in collate and "
        "both ranks wait for their first batch; nothing is printed after the setup lines, and after 75 quiet seconds "
        "the user presses Ctrl-C. evidence: '[rank 0] 4096 train pairs, 128 val images, 128 steps/epoch' as the last "
        "progress line, 'Received 2 death signal, shutting down workers', KeyboardInterrupt in dataloader.py "
        "_try_get_data / multiprocessing queues.get on both ranks",
    "torchrun-2node-clip-shapes-node0-log":
        f"two torchrun agents ('nodes', --nnodes 2, one process each, static rendezvous on 127.0.0.1) for {W}; this "
        "is node 0's log only. In epoch 1 node 1's worker is SIGKILLed from outside (as the other node's OOM killer "
        "would; its log is not part of this one), and rank 0 fails in its next collective with the peer's "
        "connection reset. evidence: 'epoch 1 step 40/320 ...', 'RuntimeError: [.../gloo/transport/tcp/pair.cc:537] "
        "Read error [127.0.0.1]:...: Connection reset by peer. This is typically caused by a remote worker hanging "
        "or bugs in the application', 'failed (exitcode: 1) local_rank: 0'",
    "mpspawn-clip-shapes-image-bank-container":
        f"torch.multiprocessing.spawn 2 ranks, {W}, with --image-bank: the parent renders every training image once "
        "(24 MiB per rank) and calls share_memory_() before spawning, inside a container whose /dev/shm is a 16 MB "
        "tmpfs; the shared-memory allocation fails. evidence: 'tmpfs 16M 0 16M 0% /dev/shm', 'image bank rank 0: "
        "(2048, 3, 32, 32) 24.0 MiB', 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_...>: No space left on device (28)'",
    "mpspawn-clip-shapes-requeue":
        f"torch.multiprocessing.spawn 2 ranks, {W}, 40 epochs with --save-on-sigterm; in epoch 19 the scheduler "
        "sends SIGTERM to every process of the job (the shell excepted); the ranks agree to stop, rank 0 saves "
        "last.pt and the launcher exits 143 for requeue. evidence: 'launcher: SIGTERM received, waiting for the ranks "
        "to checkpoint', '[rank 0] SIGTERM received at epoch 19 step 637; saved checkpoints/last.pt, stopping', "
        "'job exited with 143'",
    "mpspawn-clip-shapes-paraphrased-captions":
        f"torch.multiprocessing.spawn 2 ranks, {W}, trained from two caption shards; the newer shard (read by rank 1) "
        "flags 20% of its captions for paraphrasing, which the Dataset fetches from --paraphrase-url; the "
        "paraphrase service on 127.0.0.1:29895 is frozen (accepts connections, never answers) and urllib has no "
        "timeout, so rank 1 blocks building its first batch while rank 0 waits in the embedding all_gather; the "
        "30 s process-group timeout fires on rank 0 and spawn terminates rank 1. evidence: '[rank 1] 512 train "
        "pairs', 'Terminating process ... via signal SIGTERM', 'RuntimeError: [.../gloo/transport/tcp/"
        "unbound_buffer.cc:129] Timed out waiting 30000ms for send operation to complete'",
    "lightning-clip-shapes-healthy-loader-workers":
        f"Lightning Trainer ddp on CPU with 2 devices (gloo), {W}, one DataLoader worker per rank, 4 epochs; "
        "Lightning's tips and deprecation warnings, the nested-tensor UserWarning; finishes normally. evidence: "
        "'`Trainer.fit` stopped: `max_epochs=4` reached.', 'fit finished: {...}', 'job exited with 0'",
    "lightning-clip-shapes-cluster-recipe":
        f"Lightning Trainer, {W}, with --num-nodes 2 kept from a two-node cluster recipe but started on one machine "
        "with 2 devices: world size 4, only ranks 0 and 1 exist, and the store on MASTER_PORT times out after the "
        "60 s DDP timeout. evidence: 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4', 'torch.distributed."
        "DistStoreError: Timed out after 61 seconds waiting for clients. 2/4 clients joined.'",
    "lightning-clip-shapes-keep-all-checkpoints":
        f"Lightning Trainer ddp 2 devices, {W}, ModelCheckpoint with save_top_k=-1 (keep every epoch) plus last.ckpt "
        "into a 3 MB checkpoints volume; the epoch-1 checkpoint does not fit: rank 0 fails moving Lightning's "
        "temporary file into place and rank 1 sees the peer close. evidence: 'tmpfs 3.0M 0 3.0M 0% .../checkpoints', "
        "\"OSError: [Errno 28] No space left on device: '/tmp/tmp...' -> '.../checkpoints/checkpoints/"
        "clip-epoch=01.ckpt'\", 'Connection closed by peer'",
    "hftrainer-clip-shapes-healthy":
        f"transformers Trainer under torchrun 2 ranks (gloo), {W}, 3 epochs, eval and save per epoch; DDP's "
        "find_unused_parameters warning from reducer.cpp on both ranks; finishes normally (the loss barely moves in "
        "3 short epochs). evidence: \"{{'train_runtime': ..., 'epoch': '3'}}\", 'final zero-shot acc 0.0352', "
        "'training finished', 'job exited with 0'",
    "hftrainer-clip-shapes-alt-text-captions":
        f"transformers Trainer under torchrun 2 ranks, {W}, with --captions rich (detailed alt-text captions with "
        "outline/background clauses and a second object) and the text tower's context length still 16; the "
        "tokenizer does not truncate, so captions of 19+ tokens index past the positional embedding in the first "
        "step on both ranks. evidence: 'File \".../clip.py\", line 209, in forward', 'IndexError: index out of range "
        "in self', 'failed (exitcode: 1) local_rank: 0'",
    "raytrain-clip-shapes-healthy":
        f"Ray Train TorchTrainer, 2 workers of 1 CPU on this generator's 2-CPU Ray cluster, {W}, 3 epochs; Ray's "
        "core_worker error line about the PreemptionWatcher actor's constructor arguments (harmless), reports per "
        "epoch; finishes. evidence: 'Started training worker group of size 2', 'Reporting training result 3: "
        "TrainingReport(... 'epoch': 2} ...)', 'result: None', 'job exited with 0'",
    "raytrain-clip-shapes-new-export-shard":
        f"Ray Train TorchTrainer, 2 workers, {W}, trained from two caption shards where train-01.jsonl came from a "
        "newer export whose colour list includes 'teal', a word missing from the text tower's fixed vocabulary; "
        "worker 1's collate raises in the tokenizer and Ray Train fails the run. evidence: '[Rank 1 Error Snippet]:', "
        "\"KeyError: 'teal'\", 'ray.train.WorkerGroupError: Training failed due to worker errors'",
}
