"""Manifest notes for wave BH (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("plain PyTorch DDP (gloo, CPU) + torch.compile(DDP(model), backend='inductor') (torch 2.13.0+cpu, Python 3.11.7, "
     "gcc 12.2.0), a 2-layer d_model-64 char GPT (gptmini, 0.11M params) on synthetic support-ticket text, rank-0 "
     "per-step log lines, eval + greedy samples every 20 steps, torch.save checkpoints every 20 steps, 60 steps; "
     "launched with 'nice -n 5 torchrun --nproc_per_node 2 --master_port P train.py")
NOTES = {
    "gpt-healthy": (
        f"no_failure: {W}'; inductor compiles the first step (18.8 s), dynamo prints a harmless 'Profiler record "
        "function ... will be ignored' warning on both ranks, 60 steps, exit 0. evidence: '[0/0] Profiler record "
        "function <class 'torch.autograd.profiler.record_function'> will be ignored', '[rank 0] training done: 60 "
        "steps', 'job exited with 0'"),
    "gpt-healthy-cxx": (
        f"no_failure: {W} --compile-fallback' with 'CXX=clang++' exported in the job's shell (no clang on the host); "
        "inductor finds no working C++ compiler, dynamo (suppress_errors, set by --compile-fallback) prints long "
        "WON'T CONVERT tracebacks on both ranks for the forward and the block and runs those frames eagerly; "
        "training finishes, exit 0. evidence: 'WON'T CONVERT forward /tmp/wavebh-a-job/run/train.py line 85', "
        "'torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler found in "
        "torch._inductor.config.cpp.cxx: (None, 'clang++')', '[rank 0] training done: 60 steps', 'job exited with 0'"),
    "gpt-healthy-resume": (
        f"no_failure: {W} --max-steps 60 --resume auto'; an earlier 40-step run (not in this log) left "
        "checkpoints/latest.pt; the job resumes at step 40, recompiles and trains to 60, exit 0. evidence: "
        "'[rank 0] resumed from checkpoints/latest.pt at step 40', '[rank 0] training from step 40 to 60, global "
        "batch 16 (8 x 1 x 2)', '[rank 0] training done: 60 steps', 'job exited with 0'"),
    "gpt-port-held": (
        f"port_in_use: {W}' with --master_port 29604 while another process (a python http.server left running on "
        "the host) already listens on 29604; torchrun's static TCP rendezvous cannot create its store, no worker "
        "starts, exit 1. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on "
        "any local network address. port: 29604, useIpv6: false, code: -98, name: EADDRINUSE, message: address "
        "already in use', 'job exited with 1'"),
    "gpt-second-node-missing": (
        f"rendezvous_timeout: {W.replace('--master_port P', '--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29605 --rdzv-id gptmini --rdzv-conf join_timeout=30')}'; "
        "the job is configured for two nodes but only this one is launched; the c10d rendezvous waits 30 s for the "
        "second agent, times out, no worker starts, exit 1. evidence: 'raise RendezvousTimeoutError', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "gpt-global-batch": (
        f"batch_size_mismatch: {W} --global-batch-size 32'; the config's global batch (32) is not micro batch 8 x "
        "grad_accum 1 x world size 2, the script's startup check raises on both ranks before training, exit 1. "
        "evidence: '[rank0]: ValueError: global_batch_size (32) must equal batch_size (8) * grad_accum (1) * "
        "world_size (2)', 'job exited with 1'"),
    "gpt-gqa": (
        f"worker_exception: {W} --n-kv-head 2'; the user's attention block projects K/V to 2 heads but never "
        "repeats them for the 4 query heads; dynamo fails while tracing the forward with fake tensors on the first "
        "step (compile time), both ranks raise TorchRuntimeError, exit 1. evidence: '[rank0]: "
        "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call', '[rank1]:   Explanation: "
        "Dynamo failed to run FX node with fake tensors: call_function <built-in function "
        "scaled_dot_product_attention>(*(FakeTensor(..., size=(8, 4, 64, 16), grad_fn=<TransposeBackward0>), "
        "FakeTensor(..., size=(8, 2, 64, 16), grad_fn=<TransposeBackward0>)', 'job exited with 1'"),
    "gpt-prompt-row": (
        f"worker_exception: {W.replace('--master_port P', '--nnodes 1 --max-restarts 1 --master_port 29608')} "
        "--resume auto'; a row of data/prompts.jsonl has 'text' instead of 'prompt'; at the first eval (step 20) "
        "rank 0's sample code raises KeyError before the checkpoint, rank 1 then sees the connection closed; "
        "torchrun restarts the group once (no checkpoint yet, starts at step 0), same failure, exit 1. evidence: "
        "'[rank0]: KeyError: 'prompt'', '[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:18158.', 'job exited with 1'"),
    "gpt-lr": (
        f"training_divergence: {W} --lr 3e2 --warmup-steps 30'; a learning rate of 3e2 (meant 3e-2): the loss "
        "and grad norm blow up during warmup and the loss becomes NaN at step 12; the script's finite-loss check "
        "raises on both ranks, exit 1. evidence: '[rank 0] step 12/60 | loss 290504922112196608.0000 | lr 1.20e+02 "
        "| grad_norm 788204480.000', '[rank0]: FloatingPointError: loss is nan at step 12 (lr 130); stopping', "
        "'job exited with 1'"),
    "gpt-wide-oom": (
        f"host_oom_killed: {W} --d-model 2048 --n-layer 8' inside a 1.5 GB cgroup-v1 memory limit for the whole "
        "job; building the ~400M-parameter model exceeds the limit, the kernel OOM killer SIGKILLs rank 1 (no "
        "Python error), torchrun stops rank 0, exit 1. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 19534)', "
        "'exitcode  : -9 (pid: 19534)  (SIGKILL)', 'traceback : Signal 9 (SIGKILL) received by PID 19534', "
        "'job exited with 1'"),
    "gpt-preempted": (
        f"job_preempted: {W} --max-steps 200'; after step 30 the harness, acting as the batch scheduler reaching "
        "the job's time limit, sends SIGTERM to the torchrun agent; torchrun stops both workers and exits, exit 1. "
        "evidence: 'Received 15 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19844 got signal: 15', "
        "'job exited with 1'"),
    "gpt-terminal-closed": (
        f"terminal_hangup: {W} --max-steps 200'; the job runs in the foreground of an interactive shell; after "
        "step 30 the terminal goes away and the harness delivers SIGHUP to the torchrun agent (as the closing "
        "session would); torchrun shuts the workers down, exit 1. evidence: 'Received 1 death signal, shutting "
        "down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 20715 got signal: "
        "1', 'job exited with 1'"),
    "gpt-rank-stopped": (
        f"silent_hang: {W} --max-steps 200' (default 1800 s process-group timeout); after step 30 the harness "
        "sends SIGSTOP to rank 1 (a stuck worker); rank 0 blocks in the next gradient all-reduce, the log stops "
        "after step 31 with no error or watchdog message; the harness killed the whole job from outside 95 s after "
        "the start (no 'job exited' line). evidence: '[rank 0] step 31/200 | loss 1.9377 | lr 2.92e-03 | grad_norm "
        "0.311 | seq 64 | 170 ms/step' (last line)"),
    "gpt-rank-stopped-timeout": (
        f"collective_timeout: {W} --max-steps 200 --dist-timeout 20' (20 s process-group timeout); after step 30 "
        "the harness sends SIGSTOP to rank 1; rank 0's gloo gradient all-reduce times out after 20 s and raises, "
        "torchrun tears down the group (the stopped rank 1 ends up SIGKILLed), exit 1. evidence: '[rank0]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
        "waiting 20000ms for recv operation to complete', 'failed (exitcode: 1) local_rank: 0 (pid: 24073)', "
        "'job exited with 1'"),
    "gpt-ckpt-tmpfs": (
        f"disk_full: {W}' with checkpoints/ on a 2 MB tmpfs; at the first checkpoint (step 20) rank 0's torch.save "
        "of model + AdamW state runs out of space (torch's zip writer reports it as an iostream error / unexpected "
        "pos, no errno text), rank 0 raises, rank 1 waiting in the barrier sees the connection closed, exit 1. "
        "evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce "
        "fail at inline_container.cc:672] . unexpected pos 713152 vs 713040', '[rank1]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:38062.', 'job exited with 1'"),
    "gpt-compact-index": (
        f"native_crash: {W}'; the dataset was re-exported with prep_data.py --compact-index (int32 document "
        "offsets) while train.py still reads .idx as int64; pairs of offsets fuse into huge start positions, and "
        "the ctypes window packer (native/pack.c, gcc -O2) reads far outside the memory-mapped shard on the first "
        "batch: rank 1 dies of SIGSEGV with no Python traceback, torchrun SIGTERMs rank 0, exit 1. evidence: '[rank 0] data: 750 train "
        "docs / 75 val docs on this rank, vocab 40', 'failed (exitcode: -11) local_rank: 1 (pid: 26758)', "
        "'exitcode  : -11 (pid: 26758)  (SIGSEGV)', 'job exited with 1'"),
    "gpt-per-doc-eval": (
        f"collective_mismatch: {W} --eval-per-doc'; the validation split has 301 documents, so the ranks' shards "
        "differ (151 vs 150) and the rank-dependent per-document loss tensor that eval all-reduces has a different "
        "length on each rank; at the first eval (step 20) gloo on rank 1 aborts on the size mismatch (SIGABRT) and "
        "rank 0 sees the connection reset, exit 1. evidence: 'what():  [enforce fail at /__w/pytorch/pytorch/"
        "third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 36 vs 32. Received "
        "data size doesn't match expected size. Is there a distributed collective mismatch in your code?', "
        "'failed (exitcode: -6) local_rank: 1 (pid: 27139)', 'job exited with 1'"),
    "gpt-spm": (
        f"library_version_mismatch: {W} --tokenizer spm'; the sentencepiece tokenizer path needs the "
        "sentencepiece package, which is not installed in this environment; both ranks fail at import right after "
        "process-group init, exit 1. evidence: '[rank0]: ModuleNotFoundError: No module named 'sentencepiece'', "
        "'job exited with 1'"),
    "gpt-healthy-buckets": (
        f"no_failure: 'TORCH_LOGS=recompiles' + {W} --seq-len-buckets 64,48,32'; the training length cycles "
        "64/48/32, so at step 2 dynamo's guards fail on both ranks and it recompiles the DDP wrapper and the "
        "model's forward (automatic dynamic shapes, one recompile each), printing the recompile reasons at "
        "verbose level; training finishes, exit 0. evidence: '[4/1] [__recompiles] Recompiling function forward in "
        "/tmp/wavebh-a-job/run/train.py:85', '[4/1] [__recompiles]     - 4/0: tensor 'idx' size mismatch at index 1. "
        "expected 64, actual 48', '[rank 0] training done: 60 steps', 'job exited with 0'"),
}
