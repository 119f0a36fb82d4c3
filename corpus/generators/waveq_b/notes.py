"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-tinygpt-dpo-healthy":
        "torch.multiprocessing.spawn, 2 processes, DDP over gloo: a 238K-parameter character-level causal LM trained "
        "with SFT (200 steps, prompt tokens masked) then DPO against a frozen copy of the SFT policy (80 steps, beta "
        "0.1) on synthetic add/rev/sort/max instructions with correct (chosen) and plausible wrong (rejected) answers; "
        "nothing was done to it. evidence: 'process group up: world 2, backend gloo', 'sft step N/200 loss ...' falling "
        "from ~1.4 to ~0.25, 'sft done: exact match 0.604', 'dpo step N/80 loss ... reward_acc 0.8x margin ...' with "
        "the margin rising, 'dpo done: exact match 0.448', greedy samples, 'saved policy_dpo.pt', 'all ranks "
        "finished', 'job exited with 0'.",
    "mpspawn-tinygpt-dpo-neg-inf-logit-mask":
        "The same mp.spawn SFT+DPO run with --mask-logits: the DPO sequence log-prob fills the logits of every "
        "non-answer (prompt/padding) position with -inf before log_softmax to 'keep them out of the softmax'; an "
        "all -inf row gives NaN log-probs, and NaN * 0 (the answer mask) is still NaN, so the DPO loss is NaN from "
        "the first DPO step and the clipped NaN gradients wipe the weights. The job runs on and exits 0 with a "
        "useless policy. evidence: healthy 'sft step ... loss' lines and 'sft done: exact match 0.604', then from the "
        "first DPO report 'dpo step 5/80 loss nan reward_acc 0.000 margin nan grad_norm nan beta 0.1' to step 80, "
        "'dpo done: exact match 0.000', samples answering '' , 'job exited with 0'.",
    "mpspawn-tinygpt-dpo-sampler-join-before-get":
        "mp.spawn SFT+DPO (2 ranks, gloo, process-group timeout 1800 s) with an on-policy sampler process per rank "
        "(--sampler-prompts 1500): each rank forks a sampler that generates 1500 answers and q.put()s the result list, "
        "and the rank calls p.join() before q.get(). The list is far larger than the pipe buffer, so the sampler "
        "cannot exit until someone reads the queue and the rank waits for it to exit: both ranks deadlock with no "
        "error and no timeout; after 90 s of silence the job was stopped with Ctrl-C. evidence: 'sampler pid N: 1500 "
        "prompts, temperature 0.8' from both ranks, then nothing until the KeyboardInterrupt tracebacks; 'Process "
        "sampler-0:'/'Process sampler-1:' tracebacks in multiprocessing/queues.py '_finalize_join' -> 'thread.join()' "
        "(the queue feeder still flushing), no 'sampler: N samples' line, no 'job exited' line (the shell was "
        "interrupted).",
    "mpspawn-tinygpt-dpo-sampler-snapshot-small-shm":
        "mp.spawn SFT+DPO with an on-policy sampler process per rank, run with a 256 KiB /dev/shm (a container's "
        "shm size): before forking the sampler each rank moves a frozen policy snapshot into shared memory "
        "(Module.share_memory()), which needs ~1 MB of /dev/shm, and the allocation fails. evidence: 'tmpfs 256K "
        "... /dev/shm' (df), 'Process 1 terminated with the following error' traceback 'snapshot.share_memory()' -> "
        "module._apply -> 't.share_memory_()' 'RuntimeError: unable to allocate shared memory(shm) for file "
        "</torch_..._10>: No space left on device (28)', 'job exited with 1'.",
    "mpspawn-tinygpt-dpo-ref-logits-cache-container-limit":
        "mp.spawn SFT+DPO (2 ranks) with --pairs 30000 --cache-ref-logits in a 1400 MB memory cgroup (a container "
        "limit): to skip the reference forward in DPO each rank caches the reference model's full-vocabulary logits "
        "for every pair in float64 (0.77 GiB per rank on top of the two ranks' and the launcher's own memory); the "
        "kernel OOM killer SIGKILLs rank 0 part-way through the cache. evidence: 'caching reference logits for 30000 "
        "pairs (float64, 0.77 GiB) to skip the reference forward' on both ranks, 'ref cache: 5376/30000 pairs', then "
        "'Terminating process ... via signal SIGTERM', 'ProcessExitedException: process 0 terminated with signal "
        "SIGKILL', 'job exited with 1'; no Python error.",
    "mpspawn-tinygpt-dpo-fused-gather-uint32-ids":
        "mp.spawn SFT+DPO with --fused-gather: the DPO log-prob sum uses a C++ extension (torch.utils.cpp_extension, "
        "built before the run) that casts target token ids to uint32; the targets carry -100 at prompt/padding "
        "positions (the SFT ignore_index convention), which becomes 4294967196, so the kernel reads ~16 GB past the "
        "log-prob buffer and both ranks segfault in native code at the first DPO step. evidence: 'fused_ops: using "
        "fused log-prob gather kernel (dpo_fused_ops)', healthy SFT lines and 'sft done', then 'Fatal Python error: "
        "Segmentation fault' with 'dpo_spawn.py, line 130 in worker' (the fused.gather_logp call) on both ranks, "
        "'ProcessExitedException: process 0 terminated with signal SIGSEGV', 'job exited with 1'.",
    "lightning-tinygpt-dpo-healthy":
        "Lightning 2.6.6 Trainer, strategy ddp on 2 CPU processes (gloo): the tiny causal LM as a LightningModule, 4 "
        "SFT epochs then 2 DPO epochs against a frozen reference; nothing was done to it. Harmless noise: the 'srun "
        "command is available on your system but is not used' hint, litlogger/litmodels tips, '_pytree.py:21: "
        "isinstance(treespec, LeafSpec) is deprecated' warnings, 'Total FLOPs: 0'. evidence: 'distributed_backend=gloo "
        "All distributed processes registered. Starting with 2 processes', 'epoch N (sft): val_em ...', 'reference "
        "policy frozen, switching to DPO', 'epoch 5 (dpo): val_em 0.547', '`Trainer.fit` stopped: `max_epochs=6` "
        "reached.', 'job exited with 0'.",
    "lightning-tinygpt-dpo-gather-sampled-completions":
        "The Lightning DPO module with --gather-samples: validation_step samples 4 completions per rank and "
        "self.all_gather()s their concatenated token ids for a sample table on rank 0; the completions have different "
        "lengths on the two ranks (43 vs 50 tokens), and all_gather needs equal shapes, so gloo receives more bytes "
        "than it expects during the sanity-check validation and aborts. evidence: '[rank 0] val samples: 4 completions, "
        "43 tokens' vs '[rank 1] val samples: 4 completions, 50 tokens', 'terminate called after throwing an instance "
        "of 'gloo::EnforceNotMet'' 'what(): [enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= "
        "op.nbytes. 200 vs 172. Received data size doesn't match expected size. Is there a distributed collective "
        "mismatch in your code?', rank 1 then 'Connection reset by peer' in the metric sync barrier, 'job exited with "
        "134'.",
    "hf-trainer-tinygpt-dpo-healthy":
        "Hugging Face transformers 5.24 Trainer (one process per rank via mp.spawn, DDP over gloo on CPU) with a "
        "Trainer subclass computing the SFT loss (2 epochs) and then the DPO loss (1 epoch) against a frozen copy of "
        "the SFT policy, checkpoints every 50 steps, final export with save_model; nothing was done to it. evidence: "
        "'{'loss': ..., 'grad_norm': ..., 'learning_rate': ...}' dicts, 'SFT exact match on 64 held-out prompts: "
        "0.500', DPO '{'rewards/accuracy': ..., 'rewards/margin': ...}' rising, 'train_runtime' summaries, 'exported "
        "policy to export/policy-dpo: ['model.safetensors', 'training_args.bin']', 'job exited with 0'.",
    "hf-trainer-tinygpt-dpo-export-volume-full":
        "The HF Trainer SFT+DPO run exporting the final policy to a 640 KiB model volume (--export-dir "
        "models/policy-dpo); training and its checkpoints (on the job disk) finish, then save_model's ~1 MB "
        "model.safetensors does not fit. evidence: 'tmpfs 640K ... /models' (df), full SFT and DPO logs and 'DPO exact "
        "match: 0.375', then 'Process 0 terminated with the following error' traceback 'dpo.save_model(a.export_dir)' "
        "-> transformers trainer.py save_model -> 'safetensors._safetensors_rust.SafetensorError: Error while "
        "serializing: I/O error: No space left on device (os error 28)', 'job exited with 1'.",
    "hf-trainer-tinygpt-dpo-spot-sigterm":
        "The HF Trainer SFT+DPO run (preemption-aware callback: SIGTERM -> save a checkpoint, stop, exit 143) given "
        "SIGTERM by the 'scheduler' (the whole process group) just after SFT, at the start of DPO. evidence: 'SFT exact "
        "match on 64 held-out prompts: 0.562', 'launcher: SIGTERM at ..., waiting for workers to checkpoint', '[rank "
        "0] SIGTERM received: saving a checkpoint at step 1 and stopping' (and rank 1), 'ProcessExitedException: "
        "process 1 terminated with exit code 143', 'job script: caught SIGTERM', 'job exited with 1'.",
    "raytrain-tinygpt-dpo-worker-lost-retried":
        "Ray 2.60 Train TorchTrainer (2 workers, gloo) running SFT+DPO with FailureConfig(max_failures=1) and a "
        "checkpoint every 20 steps; rank 1's process exits at step 75 (a lost worker); rank 0 sees 'Connection reset "
        "by peer', Ray Train retries (error 1 of 1 allowed), restarts the worker group from the step-60 checkpoint and "
        "the run finishes. A failure that Ray retried, after which the job went on: no_failure. evidence: '[rank 1] "
        "step 75: worker lost (simulated node restart)', '[FailurePolicy] RETRY' 'Error count: 1 (max allowed: 1)', "
        "'resuming from checkpoint at step 60' on both ranks, DPO steps to 180, 'exact match ...', 'final metrics: "
        "{'step': 180, ...}', 'job exited with 0'.",
    "raytrain-tinygpt-dpo-per-worker-cache-store-port":
        "Ray Train TorchTrainer (2 workers on one node) whose training function starts a per-worker cache of sampled "
        "completions as a c10d TCPStore server on a fixed port (--cache-port 29660); both workers are on the same "
        "machine, rank 1 binds the port first and rank 0's store cannot listen, so the run fails before training "
        "(max_failures 0). evidence: '[rank 1] sample cache store on port 29660', rank 0 'Error in training "
        "function' at 'store = dist.TCPStore(\"127.0.0.1\", cfg[\"cache_port\"], 1, is_master=True,' "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29660, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'Error count: 1 "
        "(max allowed: 0)', 'ray.train.WorkerGroupError', 'job exited with 1'.",
    "rayactors-tinygpt-dpo-three-ranks-two-cpus":
        "Ray core: the driver starts 3 DPO worker actors with num_cpus=1 each on this generator's 2-CPU cluster, and "
        "each actor joins a torch process group of world size 3 (tcp:// rendezvous, 60 s timeout). Only two actors can "
        "be placed; the third stays pending for a CPU, so the two running ranks wait for it in init_process_group "
        "until the store times out. The root cause is the unschedulable third actor, the store timeout its symptom. "
        "evidence: 'starting 3 DPO worker actors (1 CPU each)', only 'DPO worker 0/3 up' and 'DPO worker 1/3 up', "
        "driver lines 'available resources {...}' with no 'CPU' left, 'ray.exceptions.RayTaskError(DistStoreError)' "
        "'torch.distributed.DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//cpu//0/0', 'job exited "
        "with 1', then `ray status`: 'Total Usage: 2.0/2.0 CPU', 'Pending Demands: {'CPU': 1.0}: 1+ pending "
        "tasks/actors'.",
    "raytrain-tinygpt-dpo-reference-from-stale-config":
        "Ray Train TorchTrainer (2 workers, gloo) SFT+DPO where, at the switch to DPO, the reference model is rebuilt "
        "from a model config with a 32-token context (--ref-ctx 32, a stale config) and given the SFT policy's "
        "weights, whose position table has 64 rows; load_state_dict raises on both workers at step 120 and the run "
        "fails (max_failures 0). evidence: healthy SFT lines to 'step 120 sft loss', '[rank 0] reference model from "
        "config: d 96, ctx 32', 'RuntimeError: Error(s) in loading state_dict for TinyGPT:' 'size mismatch for "
        "pos.weight: copying a param with shape torch.Size([64, 96]) from checkpoint, the shape in current model is "
        "torch.Size([32, 96]).' in the training function (dpo_ray.py sft_then_dpo), 'Error count: 1 (max allowed: 0)', "
        "'ray.train.WorkerGroupError', 'job exited with 1'.",
    "raytrain-tinygpt-dpo-report-samples-gpt2-eos-id":
        "Ray Train TorchTrainer (2 workers, gloo, TorchConfig timeout_s=20) SFT+DPO where the last rank samples 4 "
        "completions for the report at step 125 with eos_token_id 50256 (GPT-2's id, copied from another config; this "
        "vocabulary has 44 tokens) and no max length, so sampling never stops; rank 1 is alive but busy, and rank 0 "
        "waits in DDP's gradient all-reduce of its next backward until gloo times out. evidence: '[rank 1] step 125: "
        "sampling 4 completions for the report (eos_token_id 50256)' and no completions after it, rank 0 traceback "
        "'loss.backward()' -> 'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms "
        "for recv operation to complete', 'Error count: 1 (max allowed: 0)', 'job exited with 1'.",
}
