"""What each committed run of wave AG (b) showed (written after the runs; the manifest's notes column)."""

NOTES = {
    "torchrun-crnn-textline-healthy":
        "torchrun 2 ranks gloo, CRNN text-line OCR (conv + BiGRU + CTC) on synthetic rendered lines, 6 epochs; "
        "CTC plateau near 3.9 for two epochs, then learns; finishes cleanly. evidence: 'epoch 5 val_loss 0.1158 "
        "CER 0.0039', 'all ranks finished', 'job exited with 0'",
    "torchrun-crnn-textline-fast-encoder":
        "torchrun 2 ranks, --encoder fast pools the width by 16 so the CTC output has 10 frames, fewer than the "
        "longest labels need; CTC loss is inf for those lines (zero_infinity off), the gradients are NaN and the "
        "weights become NaN from the first logged step; the run keeps going uselessly and exits 0. evidence: "
        "'CRNN: 127.8k parameters, encoder=fast', 'epoch 0 step 16/256 loss nan grad_norm nan', "
        "'epoch 3 val_loss nan CER 1.0000'",
    "torchrun-crnn-textline-beam-cer-report":
        "torchrun 2 ranks, --beam 32: rank 0 alone runs a pure-Python CTC prefix beam search over its validation "
        "shard before the metric all_reduce; rank 1 waits in all_reduce and the 10 s process-group timeout fires "
        "(gloo), then torchrun tears down rank 0. evidence: '[rank1]:     dist.all_reduce(errs)', 'Timed out "
        "waiting 10000ms for recv operation to complete', rank 0 'exitcode  : -15 (SIGTERM)' (collateral)",
    "torchrun-crnn-textline-length-histogram-debug-detail":
        "torchrun 2 ranks with TORCH_DISTRIBUTED_DEBUG=DETAIL (and PYTHONFAULTHANDLER=1) in the environment: both "
        "ranks segfault inside DDP construction (torch 2.13 CPU, gloo) before the first step. evidence: 'Fatal "
        "Python error: Segmentation fault', 'distributed.py\", line 1473 in _ddp_init_helper', "
        "'exitcode  : -11 (pid: ...)  (SIGSEGV)'",
    "mpspawn-3ranks-crnn-textline-healthy-loader-workers":
        "torch.multiprocessing.spawn 3 ranks on 2 CPUs, one DataLoader worker per rank, skew augmentation, 5 "
        "epochs; still on the CTC plateau (CER 1.0) when it ends, but nothing fails. evidence: "
        "'epoch 4 val_loss 3.5784 CER 1.0000', 'all ranks finished', 'job exited with 0'",
    "mpspawn-crnn-textline-invoice-lexicon":
        "spawn 2 ranks, lines sampled from an invoice lexicon file; rank 1's half of the lexicon holds 'CAFÉ', "
        "whose É is not in the recogniser's alphabet; the renderer raises in the DataLoader on rank 1 at the first "
        "batch and spawn terminates rank 0. evidence: '-- Process 1 terminated with the following error:', "
        "'g = np.kron(GLYPHS[c], ...)', \"KeyError: 'É'\"",
    "mpspawn-crnn-textline-prerender-x4-container":
        "spawn 2 ranks, --prerender-scale 4 with 20000 train lines: each rank pre-renders its 10000 lines upscaled "
        "x4 as float64 (4.58 GiB per rank) inside a 2 GiB memory cgroup; the kernel OOM killer SIGKILLs rank 0. "
        "evidence: '[rank 0] pre-rendering 10000 lines at x4 (4.58 GiB float64)', 'process 0 terminated with "
        "signal SIGKILL'",
    "mpspawn-crnn-textline-world-size-from-shell":
        "spawn 2 ranks but WORLD_SIZE=4 left in the shell's environment; the script takes world_size from it, so "
        "the gloo store waits for 4 ranks that never come and times out after 40 s. evidence: 'spawning 2 ranks "
        "(gloo), world_size=4', 'torch.distributed.DistStoreError: wait timeout after 40000ms, keys: "
        "/default_pg/0//cpu//0/0'",
    "hftrainer-crnn-textline-checkpoints-volume":
        "transformers Trainer under torchrun 2 ranks, output_dir on a 3 MB volume; the first epoch checkpoint "
        "(model + optimizer) fills it; torch.save fails without an ENOSPC message, rank 1 then sees the peer "
        "close. evidence: 'tmpfs 3.0M 0 3.0M 0% .../out', 'self._save_checkpoint(model, trial)', "
        "'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 982144 vs 982036', "
        "'basic_ios::clear: iostream error', final 'tmpfs 3.0M 3.0M 0 100% .../out'",
    "hftrainer-crnn-textline-spot-reclaim":
        "transformers Trainer under torchrun 2 ranks, 40 epochs planned; after 45 s SIGTERM to the whole job "
        "(instance reclaimed), torchrun forwards it and exits. evidence: 'Received 15 death signal, shutting down "
        "workers', 'Sending process ... closing signal SIGTERM', 'SignalException: Process ... got signal: 15'",
    "hftrainer-crnn-textline-ssh-closed":
        "transformers Trainer under torchrun 2 ranks started from a terminal; after 45 s SIGHUP to the job's "
        "process group (session closed). evidence: 'Received 1 death signal, shutting down workers', 'Sending "
        "process ... closing signal SIGHUP', 'SignalException: Process ... got signal: 1'",
    "hftrainer-crnn-textline-args-from-older-recipe":
        "transformers Trainer under torchrun; TrainingArguments extras read from a JSON recipe written for "
        "transformers 4.x ('evaluation_strategy', renamed eval_strategy and removed in 5.x); transformers 5.24 "
        "rejects it on both ranks. evidence: 'transformers 5.24.0, torch 2.13.0+cpu', \"TypeError: "
        "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'\"",
    "lightning-crnn-textline-healthy":
        "Lightning Trainer, ddp on CPU with 2 devices, ModelCheckpoint on val_cer, 5 epochs; finishes normally "
        "with Lightning's usual info/warning lines. evidence: 'fit finished: {... val_cer ...}', "
        "'job exited with 0'",
    "raytune-crnn-textline-asha-sweep-healthy":
        "Ray Tune ASHA sweep of lr and GRU width, 4 trials x 3 epochs, 1 CPU per trial on this generator's "
        "2-CPU Ray cluster, checkpoints per epoch; completes. evidence: 'Trial status: 4 TERMINATED', "
        "'best trial: {...} cer ...', 'job exited with 0'",
    "raytune-crnn-textline-trial-memory-request":
        "Ray Tune sweep with tune.with_resources({'cpu': 1, 'memory': 6 GiB}) on a Ray cluster started with "
        "--memory 4 GiB: no trial can be placed, all stay PENDING until Ctrl-C. evidence: 'Trial status: 4 "
        "PENDING', \"Error: No available node types can fulfill resource request {'CPU': 1.0, 'memory': "
        "6442450944.0}\", 'Experiment has been interrupted'",
    "torchrun-crnn-textline-master-port-ray-client":
        "a local Ray cluster runs with its client server on 10231; torchrun is given --master-port 10231 and its "
        "c10d store cannot bind. evidence: 'The server socket has failed to listen on any local network address. "
        "port: 10231, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'",
}
