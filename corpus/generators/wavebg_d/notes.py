"""Manifest notes for wave BG (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("torchtune 0.6.1 full_finetune_distributed (local 'tune cp' copy patched for CPU), torchao 0.13.0, torchdata "
     "0.11.0, torch 2.13.0+cpu, gloo, fp32, 2 ranks, launched from /tmp/wavebg-d-job/run with 'nice -n 5 tune run "
     "--nproc_per_node 2 --master_port P full_finetune_distributed.py --config support_ft.yaml [overrides]' "
     "(tune run -> torchrun elastic agent); a customer-service chatbot team full-fine-tunes a tiny llama3-style "
     "model (torchtune llama3 builder, 2 layers, dim 128, own byte tokenizer component) on 512 synthetic support "
     "dialogues (chat_dataset json, openai style), batch 8, 12 steps/epoch, StdoutLogger metrics, "
     "FullModelTorchTuneCheckpointer each epoch")
NOTES = {
    "support-ft-healthy": (
        f"no_failure: {W}; 2 epochs, loss falls 5.79 -> 3.80, both epoch checkpoints saved, exit 0 (torchdata "
        "'set_vital' deprecation UserWarnings are harmless). evidence: 'Saving final epoch checkpoint.', "
        "'job exited with 0'"),
    "support-ft-healthy-peakmem": (
        f"no_failure: {W}, 'log_peak_memory_stats=True clip_grad_norm=1.0 epochs=3'; both ranks warn that peak "
        "memory stats need cuda and switch them off, then 3 epochs train and save, exit 0. evidence: "
        "'log_peak_memory_stats was set to True, however, training does not use cuda. Setting "
        "log_peak_memory_stats=False.', 'Saving final epoch checkpoint.', 'job exited with 0'"),
    "support-ft-healthy-long-dialogues": (
        f"no_failure: {W}, 'tokenizer.max_seq_len=96 batch_size=4' (dialogues truncated to 96 tokens); 2 epochs, "
        "exit 0. evidence: 'Saving final epoch checkpoint.', 'job exited with 0'"),
    "support-ft-lr-typo": (
        f"training_divergence: {W}, 'optimizer.lr=30.0' (a learning rate typed 1e5 times too large); the loss "
        "jumps to 17545 at step 2 and is NaN from step 3 to the end; torchtune keeps going and saves NaN weights, "
        "exit 0. evidence: 'Step 3 | loss:nan lr:30.0', 'Step 24 | loss:nan lr:30.0', 'job exited with 0'"),
    "support-ft-bad-role-row": (
        f"worker_exception: {W}; one dialogue row (row 300) in data/dialogues.json has role 'agent' instead of "
        "'assistant'; torchtune's OpenAIToMessages raises when rank 1's sampler reaches it mid-epoch 1; rank 0 "
        "then sees gloo 'Connection closed by peer', exit 1. evidence: \"[rank1]: KeyError: 'agent'\", "
        "'Root Cause (first observed failure):', 'job exited with 1'"),
    "support-ft-loss-typo": (
        f"worker_exception: {W}, 'loss._component_=torchtune.modules.loss.CEWithChunkedOutputLos' (a typo in the "
        "loss component); both ranks fail in setup when instantiating it, exit 1. evidence: \"[rank0]: "
        "torchtune.config._errors.InstantiationError: Error loading "
        "'torchtune.modules.loss.CEWithChunkedOutputLos':\", 'job exited with 1'"),
    "support-ft-vocab-drift": (
        f"worker_exception: {W}; the base checkpoint base/model.pt was built with a 320-token vocabulary while the "
        "model config has 262, so load_state_dict fails on both ranks while loading the checkpoint, exit 1. "
        "evidence: '[rank1]: RuntimeError: Error(s) in loading state_dict for FSDPTransformerDecoder:', "
        "'[rank1]: \tsize mismatch for tok_embeddings.weight: copying a param with shape torch.Size([320, 128]) "
        "from checkpoint, the shape in current model is torch.Size([262, 128]).', 'job exited with 1'"),
    "support-ft-second-node-missing": (
        f"rendezvous_timeout: {W}, launched as a 2-node job ('tune run --nproc_per_node 2 --nnodes 2 "
        "--rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29938 --rdzv-conf join_timeout=30') but the second node "
        "was never started; the c10d rendezvous waits 30 s and the agent gives up before any rank starts, exit 1. "
        "evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "support-ft-torchao-upgrade": (
        f"library_version_mismatch: {W}, except that PYTHONPATH puts a newer torchao (0.18.0, installed with pip "
        "--target into /tmp/wavebg-d-site) ahead of the venv's 0.13.0; torchao 0.18 no longer has "
        "torchao.dtypes.nf4tensor, which torchtune 0.6.1 imports, so the tune CLI dies on import before "
        "launching any rank (its native .so files built for another Python also fail to load), exit 1. evidence: "
        "'Failed to load /tmp/wavebg-d-site/torchao/_C_mxfp8.cpython-310-x86_64-linux-gnu.so: Could not load "
        "this library: /tmp/wavebg-d-site/torchao/_C_mxfp8.cpython-310-x86_64-linux-gnu.so', "
        "\"ModuleNotFoundError: No module named 'torchao.dtypes.nf4tensor'\", 'job exited with 1'"),
    "support-ft-ckpt-tmpfs": (
        f"disk_full: {W}; the checkpoint output directory 'outputs' is a 3 MiB tmpfs: the epoch-0 save of the "
        "model fits but rank 0's torch.save of the recipe state (optimizer) runs out of space; rank 1 then sees "
        "the peer close, exit 1. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', "
        "'[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 1657536 vs "
        "1657428', 'job exited with 1'"),
    "support-ft-rank-killed": (
        f"host_oom_killed: {W}, 'epochs=3'; the harness (standing in for the kernel OOM killer) sends SIGKILL to "
        "rank 1 at step 16 (epoch 2); rank 0 gets a gloo read error, the agent tears down, exit 1. evidence: "
        "'  exitcode  : -9 (pid: 23606)  (SIGKILL)', '  traceback : Signal 9 (SIGKILL) received by PID 23606', "
        "'job exited with 1'"),
    "support-ft-rank-stopped": (
        f"silent_hang: {W}, 'epochs=3'; the harness sends SIGSTOP to rank 1 after step 16 (epoch 2); rank 0 "
        "blocks in the next gradient collective (gloo's default timeout is far away), nothing more is printed, "
        "and the harness kills the whole job from outside after 75 s (so there is no exit line). evidence: the "
        "last line is the step-16 metric line 'Step 16 | loss:4.508942604064941 lr:0.0003 "
        "tokens_per_second_per_gpu:2658.26953125'"),
    "support-ft-preempted": (
        f"job_preempted: {W}, 'epochs=3'; the harness, acting as the cluster scheduler, sends SIGTERM to the tune "
        "run launcher (torchrun agent) at step 16 (epoch 2); the agent forwards SIGTERM to both ranks and exits "
        "with SignalException, exit 1. evidence: 'W1202 03:31:12.380000 24579 site-packages/torch/distributed/"
        "elastic/agent/server/api.py:753] Received 15 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 24579 got signal: 15', "
        "'job exited with 1'"),
    "support-ft-terminal-closed": (
        f"terminal_hangup: {W}, 'epochs=3'; SIGHUP reaches the tune run launcher at step 16 (epoch 2), as when the "
        "terminal it ran in is closed (here the harness sends the SIGHUP itself; the launcher was not on a real "
        "pty); the agent forwards SIGHUP to both ranks and exits, exit 1. evidence: 'W1202 03:31:33.970000 24667 "
        "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down "
        "workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 24667 got signal: 1', "
        "'job exited with 1'"),
    "support-ft-tokenizer-fast-path": (
        f"native_crash: {W}, 'tokenizer.fast_path=True'; the team's tokenizer fast path copies UTF-8 bytes with "
        "ctypes.memmove and, for multi-byte text, passes an offset instead of an address as the source; every 90th "
        "dialogue ends with the customer name 'Zoë', so rank 1 segfaults in libc while building its first batch; "
        "rank 0 only shows the gloo peer closing, exit 1. evidence: 'E1202 03:31:53.467000 24784 site-packages/"
        "torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -11) local_rank: 1 (pid: 24792) "
        "of binary: /tmp/venv-bg-d/bin/python', '  traceback : Signal 11 (SIGSEGV) received by PID 24792', "
        "'job exited with 1'"),
    "support-ft-port-held": (
        f"port_in_use: {W}, but launched with a pinned rendezvous endpoint ('tune run --nproc_per_node 2 "
        "--rdzv-endpoint 127.0.0.1:29937 full_finetune_distributed.py --config support_ft.yaml', static "
        "rendezvous); a leftover 'python -m http.server 29937' from an earlier debugging session holds the port, so "
        "the agent's TCPStore cannot listen and no rank starts, exit 1. evidence: 'torch.distributed."
        "DistNetworkError: The server socket has failed to listen on any local network address. port: 29937, "
        "useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited with 1'"),
    "support-ft-resume-base-files": (
        f"worker_exception: {W}, 'resume_from_checkpoint=True'; an earlier 2-epoch run (not in this log) left "
        "outputs/ (its epoch_1 folder then removed); on resume torchtune's checkpointer looks for the configured "
        "checkpoint_files under output_dir, but the config still names the base file model.pt, so both ranks fail "
        "while loading the checkpoint, exit 1. evidence: '[rank1]: ValueError: No file with name: model.pt found "
        "in outputs.', 'Root Cause (first observed failure):', 'job exited with 1'"),
    "support-ft-healthy-fast-tokenizer": (
        f"no_failure: {W}, 'tokenizer.fast_path=True' (the team's ctypes.memmove byte-copy path) on dialogues "
        "with ASCII text only, where the path is safe; 2 epochs, exit 0. evidence: 'Saving final epoch "
        "checkpoint.', 'job exited with 0'"),
    "support-ft-healthy-resume": (
        f"no_failure: {W}, \"resume_from_checkpoint=True 'checkpointer.checkpoint_files=[epoch_0/model-00001-of-"
        "00001.bin]'\"; an earlier 2-epoch run (not in this log) lost its epoch-1 weights; both ranks reload the "
        "epoch-0 weights and recipe state and train epoch 2 again from step 13, exit 0. evidence: 'Loading the "
        "recipe state using: ', '\trecipe_checkpoint: outputs/recipe_state/recipe_state.pt', 'Saving final epoch "
        "checkpoint.', 'job exited with 0'"),
}
