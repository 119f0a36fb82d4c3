"""What each committed run of wave Y set B showed (the manifest rows' notes), written after the runs."""

_W = ("image captioning on synthetic 32x32 shape scenes with template captions (small CNN encoder -> 4x4 feature grid, "
      "2-layer transformer decoder d=96, teacher forcing, label-smoothed cross entropy, AdamW with warmup, greedy "
      "decoding and corpus BLEU-4 all-reduced over ranks at evaluation, rank-0 checkpoints), 2 ranks with DDP over "
      "gloo")

NOTES = {
    "mpspawn-captioner-healthy": (
        f"torch.multiprocessing.spawn, {_W}; 400 steps, eval and a checkpoint every 100 steps; loss falls, BLEU-4 "
        "rises from 0.40 to 0.97; torch's UserWarning about mismatched key_padding_mask/attn_mask types is "
        "harmless; healthy. evidence: 'eval @ step 400: val_loss 0.0522 BLEU-4 0.9715', 'saved checkpoint "
        "checkpoints/captioner-step00400.pt', '[rank 1] done (400 steps)', 'all ranks finished', 'job exited with 0'"),
    "mpspawn-captioner-vocab-min-freq-per-shard": (
        f"mp.spawn, {_W}, with caption templates v2 (two extra colours) and each rank building its own vocabulary "
        "from the first 200 captions of its own shard with min_freq 7: rank 0 keeps 25 tokens, rank 1 27, so the "
        "embedding/output layers differ in shape and DDP's construction-time check of parameter shapes across "
        "ranks fails before step 1. Cause: the ranks hold different models (shapes disagree across ranks). "
        "evidence: '[rank 0] vocab: 25 tokens (min_freq 7) built from 200 captions of this rank's shard', "
        "'[rank 1] vocab: 27 tokens (min_freq 7)', 'RuntimeError: [1]: params[8] in this process with sizes [27, 96] "
        "appears not to match sizes of the same param in process 0.', 'job exited with 1'"),
    "mpspawn-captioner-preload-hires-container-limit": (
        f"mp.spawn, {_W}, but every rank preloads the whole 20000-scene training set as float64 at 128x128 inside a "
        "1500M memory cgroup (container limit); the kernel's memcg OOM killer kills rank 1 during the preload and "
        "mp.spawn reports SIGKILL. Cause: host/container memory exhausted, process OOM-killed. evidence: "
        "'ProcessExitedException: process 1 terminated with signal SIGKILL', 'oom-kill:constraint=CONSTRAINT_MEMCG', "
        "'Memory cgroup out of memory: Killed process 9191 (python) ... anon-rss:691232kB', 'job exited with 1'"),
    "mpspawn-captioner-shared-image-bank-container-shm": (
        f"mp.spawn, {_W}; the launcher builds a 938 MiB image bank (20000 scenes at 64x64) and calls "
        "share_memory_() on it before spawning, in a container whose /dev/shm is 256M: allocating the shared "
        "segment fails with ENOSPC. Cause: /dev/shm too small. evidence: 'tmpfs 256M 0 256M 0% /dev/shm', "
        "'image bank (20000, 3, 64, 64) (938 MiB), sharing with workers', 'bank.share_memory_()', 'RuntimeError: "
        "unable to allocate shared memory(shm) for file </torch_9207_1957751530_0>: No space left on device (28)'"),
    "mpspawn-captioner-init-port-from-run-name": (
        f"mp.spawn, {_W}; each spawned rank computes its tcp:// init port as 29600 + hash(run_name) % 100, and "
        "Python's string hash is randomised per process, so rank 0 hosts the store on 29677 while rank 1 dials "
        "29640: rank 1 keeps retrying the connect and rank 0's store times out after the 60 s pg timeout with "
        "1/2 clients. Cause: the ranks never met at the rendezvous. evidence: '[rank 0] "
        "init_process_group(gloo, tcp://127.0.0.1:29677, world_size=2)', '[rank 1] init_process_group(gloo, "
        "tcp://127.0.0.1:29640, world_size=2)', 'torch.distributed.DistStoreError: Timed out after 61 seconds "
        "waiting for clients. 1/2 clients joined.', 'job exited with 1'"),
    "mpspawn-captioner-external-bleu-scorer": (
        f"mp.spawn, {_W}; at the first evaluation rank 0 pipes its (hypothesis, reference) pairs, repeated 400x, "
        "through the external bleu_score.py with Popen, writing all of stdin before reading stdout: both pipe "
        "buffers fill and the two processes block on each other (classic Popen deadlock); rank 1 waits in the BLEU "
        "all_reduce with the default 30-minute timeout. No output for 60 s, then Ctrl-C from the terminal. "
        "Cause: the job hung with no error. evidence: last output '[rank 0]   sample: pred=... ref=...' with no "
        "'eval @ step 100' line, then the launcher's 'KeyboardInterrupt' in spawn.py join and the scorer's "
        "traceback 'File \"/tmp/wavey-b-job/run/bleu_score.py\", line 22 ... sys.stdout.write(...) "
        "KeyboardInterrupt' (blocked writing its output)"),
    "mpspawn-captioner-legacy-gate-module": (
        f"mp.spawn, {_W}; the model still registers an attention-gate Linear from an older version that forward "
        "no longer uses, and DDP is built without find_unused_parameters: the second step raises on the ranks. "
        "Cause: an error in the training code. evidence: 'RuntimeError: Expected to have finished reduction in the "
        "prior iteration before starting a new one. This error indicates that your module has parameters that were "
        "not used in producing loss.', 'Parameter indices which did not receive grad for rank 0: 47 48', "
        "'job exited with 1'"),
    "torchrun-captioner-healthy-find-unused-warning": (
        f"torchrun (1 node x 2), {_W}, one DataLoader worker per rank; DDP built with find_unused_parameters=True "
        "although every parameter is used, so the reducer warns once per rank; torch's UserWarning about mismatched "
        "mask types too; both are harmless and the run finishes. Healthy. evidence: '[rank0]:[W... reducer.cpp:1529] "
        "Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
        "parameters in the forward pass', 'eval @ step 400: val_loss 0.0515 BLEU-4 0.9612', 'job exited with 0'"),
    "torchrun-captioner-v2-captions-old-vocab-file": (
        f"torchrun (1 node x 2), {_W}; the data now uses caption templates v2 (extra colours teal/orange) while "
        "the tokenizer loads vocab.json written from the v1 templates with a strict lookup: rank 1 meets 'teal' in "
        "its first batches and raises KeyError; rank 0 then sees gloo's connection closed and torchrun tears the "
        "job down. Cause: an exception in the training code on rank 1. evidence: '[rank 1] vocab: 25 tokens from "
        "vocab.json', '[rank1]:   File \"/tmp/wavey-b-job/run/caption.py\", line 111, in encode', "
        "\"[rank1]: KeyError: 'teal'\", '[rank0]: RuntimeError: ... Connection closed by peer', 'rank : 1 "
        "(local_rank: 1) exitcode : 1', 'job exited with 1'"),
    "torchrun-captioner-encoder-memory-dumps-small-volume": (
        f"torchrun (1 node x 2), {_W}; at every evaluation (every 50 steps) each rank torch.saves its encoder "
        "memory, decoded ids and captions to eval_dumps/, a 16M volume: the first dumps fit, the second fill the "
        "volume and torch.save fails on both ranks. Cause: the filesystem ran out of space. evidence: 'tmpfs 16M 0 "
        "16M 0% /tmp/wavey-b-job/run/eval_dumps', 'wrote encoder memory dump eval_dumps/eval-step00050-rank1.pt', "
        "'[rank1]: RuntimeError: basic_ios::clear: iostream error', '[rank1]: RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 3156672 vs 3156560', 'job exited with 1', 'tmpfs 16M 16M 0 100% "
        "/tmp/wavey-b-job/run/eval_dumps'"),
    "torchrun-captioner-spot-reclaim-sigterm-handler": (
        f"torchrun (1 node x 2), {_W}, 5000 steps planned, with a SIGTERM handler in the training script; about 45 s "
        "in, the spot/preemptible node is reclaimed and SIGTERM goes to the whole job: torchrun's agent forwards it "
        "to both workers, whose handlers write a preemption checkpoint. Cause: the job was preempted. evidence: "
        "'eval @ step 200: val_loss 0.1734 BLEU-4 0.7886', 'torch/distributed/elastic/agent/server/api.py:753] "
        "Received 15 death signal, shutting down workers', 'Sending process 10373 closing signal SIGTERM', "
        "'[rank 0] received SIGTERM, writing preemption checkpoint', 'saved checkpoints/preempt.pt (step 209)'"),
    "torchrun-lightning-captioner-ssh-session-closed": (
        f"torchrun (1 node x 2) running the Lightning version of the captioner (Trainer, strategy ddp on CPU, "
        "gloo), 5000 steps planned, started from an interactive SSH shell without tmux/nohup; 60 s in the session "
        "closes and the job's process group gets SIGHUP: torchrun's agent shuts the workers down and exits with "
        "SignalException. Cause: the launching terminal hung up. evidence: 'step 190/5000 loss 0.2177', "
        "'torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers', "
        "'Sending process 10448 closing signal SIGHUP', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 10445 got signal: 1'"),
    "lightning-captioner-healthy": (
        f"Lightning Trainer (accelerator cpu, devices 2, strategy ddp, gloo; Lightning launches the second process "
        "itself), {_W.split(', 2 ranks')[0]}; 300 steps with validation (greedy decoding, BLEU-4, sync_dist) every "
        "100 steps; Lightning's tips, srun hint, deprecation and batch-size-inference warnings and torch's mask "
        "UserWarning are harmless; healthy. evidence: 'All distributed processes registered. Starting with 2 "
        "processes', '`Trainer.fit` stopped: `max_steps=300` reached.', \"fit finished: {'train_loss': "
        "tensor(0.0445), 'val_loss': tensor(0.0328), 'val_bleu4': tensor(0.9341)}\", 'job exited with 0'"),
    "raytrain-captioner-healthy": (
        f"Ray Train TorchTrainer on a local Ray 2.60 cluster (2 CPUs), 2 workers x 0.5 CPU, "
        f"{_W.split(', 2 ranks')[0]}; 300 steps, eval every 100; the worker lines appear twice (Ray log "
        "forwarding) and the TrainController prints a core_worker error-level line about the PreemptionWatcher "
        "actor's constructor arguments, both harmless; healthy. evidence: \"Requesting resources: {'CPU': 0.5} * "
        "2\", 'Started training worker group of size 2', \"core_worker.cc:2465: Actor with class name: "
        "'PreemptionWatcher' ... has constructor arguments in the object store and max_restarts > 0\", 'eval @ "
        "step 300: val_loss 0.0680 BLEU-4 0.9591', '[rank 1] done (300 steps)', 'ray train finished: "
        "Result(metrics=None, checkpoint=None, error=None', 'job exited with 0'"),
    "mpspawn-captioner-smoothed-nll-warmup-without-cap": (
        f"mp.spawn, {_W}, misconfigured: base lr 5e-3 with a warmup lambda (s+1)/5 that is never capped at 1.0, so "
        "the learning rate keeps growing linearly (0.011 at step 10, 0.39 at step 390), no gradient clipping, and "
        "the label-smoothed NLL written as softmax().log(). The loss jumps after step 10, the decoder collapses "
        "(BLEU-4 0.0000), then probabilities underflow to zero and the loss turns NaN; the run keeps going to exit "
        "0. Cause: the run diverged. evidence: 'step 10/500 loss 1.0586 ... lr 1.10e-02', 'step 20/500 loss "
        "3.3419', 'eval @ step 100: val_loss 2.8412 BLEU-4 0.0000', 'step 380/500 loss 19.1453 ... lr 3.81e-01', "
        "'step 390/500 loss nan grad_norm 0.000 lr 3.91e-01', 'eval @ step 400: val_loss nan', 'job exited with 0'"),
    "raytrain-captioner-worker-node-resource": (
        f"Ray Train TorchTrainer on a local Ray 2.60 cluster (one node, 2 CPUs, no custom resources), "
        f"{_W.split(', 2 ranks')[0]}; the ScalingConfig asks for a custom node resource 'highmem_node': 1 per "
        "worker that no node in the cluster has, so the worker group never starts: the autoscaler reports the "
        "request unfulfillable, the controller's worker-group startup times out after 60 s and retries, and the "
        "user gives up with Ctrl-C (twice) and kill -9. Cause: Ray could not place the workers. evidence: "
        "\"Requesting resources: {'CPU': 0.5, 'highmem_node': 1} * 2\", \"(autoscaler +13s) Error: No available "
        "node types can fulfill resource request {'highmem_node': 1.0, 'CPU': 0.5}\", 'The worker group startup "
        "timed out after 60.0 seconds waiting for 2 workers', 'data_parallel_trainer.py:300 -- Received SIGINT. "
        "Gracefully aborting the training run'"),
}
