"""Manifest notes for wave BI (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("torch.distributed.pipelining (torch 2.13.0+cpu, Python 3.11.7, gloo on CPU): a 4-block d_model-64 char "
     "transformer LM (ppgpt) split into one PipelineStage per process (first stage: embeddings, last: head), "
     "4 microbatches of 4, synthetic order-notes text, per-step loss lines from the last stage, schedule.eval every "
     "20 steps, per-stage torch.save checkpoints every 20 steps, 60 steps; launched with 'nice -n 5 torchrun "
     "--nproc_per_node 2 --master_port P train.py")
W3 = W.replace("--nproc_per_node 2", "--nproc_per_node 3")
NOTES = {
    "pp-healthy": (
        f"no_failure: {W}' (ScheduleGPipe, 2 stages); trains 60 steps, loss 5.0 -> 2.1, exit 0. evidence: "
        "'[rank 0] INFO ppgpt: schedule ScheduleGPipe, 2 stages, batch 16 = 4 microbatches x 4, seq 64, steps 0-60', "
        "'[rank 1] INFO ppgpt: training done: 60 steps', 'job exited with 0'"),
    "pp-healthy-1f1b": (
        f"no_failure: {W3} --schedule 1f1b' with TORCH_CPP_LOG_LEVEL=INFO exported (c10d's socket INFO lines and a "
        "harmless 'uv_loop_close failed with:-16 errn:EBUSY' at TCPStore shutdown); 3 stages (Schedule1F1B), 60 "
        "steps, exit 0. evidence: 'uv_loop_close failed with:-16 errn:EBUSY desc:resource busy or locked', "
        "'[rank 2] INFO ppgpt: training done: 60 steps', 'job exited with 0'"),
    "pp-healthy-ckpt-prune": (
        f"no_failure: {W}' with checkpoints/ on a 6 MB tmpfs (each checkpoint ~2.6 MB over both stages); the step-60 "
        "save of stage 1 hits ENOSPC twice, the script's retry policy removes that stage's oldest checkpoint files "
        "and the third write succeeds; run finishes, exit 0. evidence: '[rank 1] ERROR ppgpt: checkpoint save for "
        "step 60 failed: [Errno 28] No space left on device; removing checkpoints/step_00020/stage1.pt and "
        "retrying', '[rank 1] INFO ppgpt: saved checkpoint checkpoints/step_00060 (stage 1', '[rank 0] INFO ppgpt: "
        "training done: 60 steps', 'job exited with 0'"),
    "pp-healthy-resume": (
        f"no_failure: {W} --max-steps 80 --resume auto'; an earlier 20-step run (not in this log) left step_00020 "
        "checkpoints; both stages resume at step 20 and train to 80, exit 0. evidence: '[rank 1] INFO ppgpt: "
        "resumed stage 1 from checkpoints/step_00020/stage1.pt at step 20', '[rank 1] INFO ppgpt: training done: "
        "80 steps', 'job exited with 0'"),
    "pp-healthy-dcp": (
        f"no_failure: {W} --ckpt-format dcp' (checkpoints with torch.distributed.checkpoint.save, a collective "
        "over both stages); 60 steps, exit 0. evidence: '[rank 1] INFO ppgpt: saved checkpoint "
        "checkpoints/step_00060 (stage 1', '[rank 0] INFO ppgpt: training done: 60 steps', 'job exited with 0'"),
    "pp-port-held": (
        f"port_in_use: {W}' with --master_port 29624 while a python http.server left running on the host already "
        "listens on 29624; torchrun cannot create its TCPStore, no stage starts, exit 1. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29624, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "pp-second-node-missing": (
        f"rendezvous_timeout: {W.replace('--master_port P', '--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29625 --rdzv-id ppgpt --rdzv-conf join_timeout=30')}'; "
        "the pipeline is configured for two nodes but only this one is launched; the c10d rendezvous waits 30 s for "
        "the second agent and torchrun raises, exit 1. evidence: "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "pp-microbatches": (
        f"batch_size_mismatch: {W} --batch-size 18' with 4 microbatches: the stages are built for microbatches of "
        "18 // 4 = 4 rows, but the schedule splits 18 rows into chunks of 5, 5, 4, 4; both stages' input metadata "
        "checks fail on the first step, exit 1. evidence: '[rank0]: "
        "torch.distributed.pipelining._utils.PipeliningMetadataError: Stage 0 input[0]: shape mismatch: "
        "torch.Size([4, 64]) vs torch.Size([5, 64])', '[rank1]: torch.distributed.pipelining._utils."
        "PipeliningMetadataError: Stage 1 input[0]: shape mismatch: torch.Size([4, 64, 64]) vs "
        "torch.Size([5, 64, 64])', 'job exited with 1'"),
    "pp-seq-len": (
        f"collective_mismatch: {W} --seq-len 96' while the model's max_seq_len is 64: the first stage keeps the last "
        "64 tokens (its position table) and sends activations of 64 positions, the second stage was built for the "
        "configured 96; stage 1's receive check fails on the first step, stage 0 then sees the connection close, "
        "exit 1. evidence: '[rank 0] WARNING ppgpt: seq_len 96 exceeds max_seq_len 64 of the position table; "
        "keeping the last 64 tokens', '[rank1]: torch.distributed.pipelining._utils.PipeliningMetadataError: Stage "
        "1 input[0]: shape mismatch: torch.Size([4, 96, 64]) vs torch.Size([4, 64, 64])', 'job exited with 1'"),
    "pp-rank-stopped": (
        f"silent_hang: {W} --max-steps 600'; the last stage (rank 1) was stopped with SIGSTOP by the harness once "
        "'step 90/' appeared (default 1800 s process-group timeout); no more step lines, no error, the harness "
        "killed the job from outside after 80 s (no 'job exited' line). evidence: '[rank 1] INFO ppgpt: step "
        "90/600 loss' (last line of the log)"),
    "pp-mid-stage-stopped": (
        f"silent_hang: {W3} --max-steps 600 --schedule 1f1b'; the middle stage (rank 1 of 3) was stopped with "
        "SIGSTOP once 'step 90/' appeared; the last stage (rank 2) logs a few more steps already in flight and then "
        "nothing, no error; the harness killed the job from outside after 75 s (no 'job exited' line). evidence: "
        "'[rank 2] INFO ppgpt: step 90/600 loss' and the log ending in step lines"),
    "pp-rank-stopped-timeout": (
        f"collective_timeout: {W} --max-steps 600 --dist-timeout 20'; the last stage (rank 1) was stopped with "
        "SIGSTOP after 'step 30/'; stage 0's gloo send times out after 20 s, torchrun stops the group, exit 1. "
        "evidence: 'Timed out waiting 20000ms for send operation to complete', 'job exited with 1'"),
    "pp-prompt-row": (
        f"worker_exception: {W}' with a malformed row ('text' instead of 'prompt') in data/prompts.jsonl; the last "
        "stage (rank 1) loads the prompts at the first eval (step 20) and raises KeyError; stage 0 sees the "
        "connection close, exit 1. evidence: \"[rank1]: KeyError: 'prompt'\", '[rank0]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer', "
        "'job exited with 1'"),
    "pp-lr": (
        f"training_divergence: {W} --lr 80'; the loss explodes from step 2 (5.0 -> thousands); at the step-20 eval "
        "the last stage's perplexity math.exp(val_loss) overflows and rank 1 raises OverflowError, exit 1. "
        "evidence: '[rank 1] INFO ppgpt: step 2/60 loss', '[rank1]: OverflowError: math range error', "
        "'job exited with 1'"),
    "pp-wide-oom": (
        f"host_oom_killed: {W} --d-model 1024 --n-layer 8' (50M params per stage) inside a 1.2 GB cgroup-v1 memory "
        "limit for the whole job; the kernel OOM killer SIGKILLs stage 0 during the first step, torchrun stops "
        "rank 1, exit 1. evidence: 'failed (exitcode: -9) local_rank: 0', 'traceback : Signal 9 (SIGKILL) "
        "received by PID', 'job exited with 1'"),
    "pp-preempted": (
        f"job_preempted: {W} --max-steps 600'; a scheduler time limit: SIGTERM sent to the torchrun agent after "
        "'step 30/'; torchrun forwards SIGTERM to the stages and raises SignalException, exit 1. evidence: "
        "'Received 15 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process', 'job exited with 1'"),
    "pp-terminal-closed": (
        f"terminal_hangup: {W} --max-steps 600'; the launching terminal closed: SIGHUP sent to the torchrun agent "
        "after 'step 30/'; torchrun forwards SIGHUP and raises SignalException, exit 1. evidence: 'Received 1 "
        "death signal, shutting down workers', 'got signal: 1', 'job exited with 1'"),
    "pp-ckpt-tmpfs": (
        f"disk_full: {W}' with checkpoints/ on a 2 MB tmpfs; at step 20 stage 0's checkpoint (1.4 MB) fits, stage "
        "1's write fails with ENOSPC, no older checkpoint to remove, rank 1 raises; stage 0 sees the connection "
        "close, exit 1. evidence: '[rank 1] ERROR ppgpt: checkpoint save for step 20 failed: [Errno 28] No space "
        "left on device', '[rank1]: OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "pp-shard-rewritten": (
        f"native_crash: {W} --max-steps 600'; the training shard data/train.bin is memory-mapped (np.memmap) by the "
        "first and last stages; after 'step 30/' another job rewrote it in place (truncated to 4 KB), the next "
        "batch reads past the end of the mapping and both stages die of SIGBUS, exit 1. evidence: 'exitcode  : -7', "
        "'traceback : Signal 7 (SIGBUS) received by PID', 'job exited with 1'"),
    "pp-tiktoken": (
        f"library_version_mismatch: {W} --tokenizer tiktoken'; the tiktoken package the option needs is not "
        "installed in the environment; both stages raise ModuleNotFoundError at startup, exit 1. evidence: "
        "\"ModuleNotFoundError: No module named 'tiktoken'\", 'job exited with 1'"),
}
