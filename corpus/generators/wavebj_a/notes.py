"""Manifest notes for wave BJ (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face TRL 1.16.0 (transformers 5.24.0, accelerate 1.15.0, datasets 5.2.0, torch 2.13.0+cpu, Python "
     "3.11.7) on CPU, a tiny LlamaForCausalLM built from a config (2 layers, hidden 64, 0.14M params, local 512-token "
     "BPE tokenizer) on synthetic helpdesk prompt/completion data, 2 processes, DDP over gloo (use_cpu=True), "
     "Trainer logging (transformers INFO on rank 0, tqdm, loss dicts) plus a per-rank step/checkpoint callback; "
     "launched with 'nice -n 5 accelerate launch --multi_gpu --num_processes 2 --main_process_port P train.py")
NOTES = {
    "sft-healthy": (
        f"no_failure: {W}' (SFTTrainer, 40 steps, eval+checkpoint at 20 and 40); transformers FutureWarnings about "
        "gradient_checkpointing and accelerate's defaults warning only; exit 0. evidence: '2026-12-02 09:51:17,452 "
        "INFO train: rank 0: checkpoint saved at step 20', '2026-12-02 09:51:18,377 INFO train: rank 0: saved final "
        "model', 'job exited with 0'"),
    "sft-healthy-resume": (
        f"no_failure: {W} --resume --max-steps 40' (SFTTrainer); an earlier unlogged 20-step run in the same job dir "
        "left checkpoints/checkpoint-20; the Trainer resumes from it and finishes 20 -> 40; exit 0. evidence: "
        "'[transformers]   Fast-forwarding the dataloader past 0 epochs and 20 batches to resume from the exact "
        "training state.', '2026-12-02 10:07:27,819 INFO train: rank 0: saved final model', 'job exited with 0'"),
    "dpo-healthy": (
        f"no_failure: {W} --stage dpo --max-steps 20' (DPOTrainer on prompt/chosen/rejected, beta 0.1, reference "
        "model a copy of the initial model); exit 0. evidence: '2026-12-02 10:08:08,307 INFO train: rank 0: "
        "checkpoint saved at step 20', '2026-12-02 10:08:08,329 INFO train: rank 0: saved final model', 'job exited "
        "with 0'"),
    "grpo-healthy": (
        f"no_failure: {W} --stage grpo --batch-size 4 --max-steps 10' (GRPOTrainer, 4 generations per prompt with "
        "transformers generate, no vLLM, rule-based reward); generation batch 8 divisible by 4; deprecation "
        "FutureWarnings from transformers during generation; exit 0. evidence: '2026-12-02 09:53:29,957 INFO train: "
        "rank 0: checkpoint saved at step 10', '2026-12-02 09:53:30,005 INFO train: rank 0: saved final model', "
        "'job exited with 0'"),
    "sft-short-seq": (
        f"no_failure: {W} --max-seq-len 18' (SFTTrainer with max_length 18: prompt+completion truncated, TRL drops "
        "fully masked examples and trains on the rest); 40 steps, exit 0. evidence: 'Dropping fully masked examples "
        "from train dataset: 100%', '2026-12-02 09:54:20,694 INFO train: rank 0: saved final model', 'job exited "
        "with 0'"),
    "grpo-batch": (
        f"batch_size_mismatch: {W} --stage grpo --batch-size 3' (GRPOTrainer, num_generations 4); per-device batch 3 "
        "x 2 processes gives a generation batch of 6, which GRPOConfig's own check rejects on both ranks at config "
        "time; exit 1. evidence: '[rank0]: ValueError: generation_batch_size (6) must be divisible by "
        "num_generations (4).', 'job exited with 1'"),
    "sft-ckpt-tmpfs": (
        f"disk_full: {W}' (SFTTrainer) with checkpoints/ on a 3 MiB tmpfs; checkpoint-20 (model.safetensors + "
        "optimizer.pt, about 1.7 MB) fits, at step 40 rank 0's torch.save of optimizer.pt runs out of space; "
        "torch's zip writer reports it as an iostream error / unexpected pos rather than errno 28; rank 1 then sees "
        "the gloo connection closed; exit 1. evidence: '2026-12-02 10:08:42,684 INFO train: rank 0: checkpoint "
        "saved at step 20', '[rank0]: RuntimeError: basic_ios::clear: iostream error', '[rank0]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos 731200 vs 731092', 'job exited with 1'"),
    "sft-wide-oom": (
        f"host_oom_killed: {W} --hidden-size 1024 --layers 8' (126.90M params) inside a 1.5 GB cgroup-v1 memory "
        "limit for the whole job; the cgroup OOM killer SIGKILLs rank 0 while the two ranks build the model, before "
        "training starts; torch elastic reports exitcode -9; exit 1. evidence: '2026-12-02 09:56:31,248 INFO train: "
        "model: 8 layers, hidden 1024, 126.90M params', 'failed (exitcode: -9) local_rank: 0 (pid: 13428) of binary: "
        "/tmp/venv-bj-a/bin/python', 'job exited with 1'"),
    "dpo-rank-killed": (
        f"host_oom_killed: {W} --stage dpo --max-steps 300' (DPOTrainer); the harness SIGKILLs rank 1 from outside "
        "(OOM-killer style) at step 20; rank 0 fails in a gloo gather with connection reset; exit 1. evidence: "
        "'[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
        "[127.0.0.1]:33664: Connection reset by peer.', 'failed (exitcode: -9) local_rank: 1 (pid: 14226) of binary: "
        "/tmp/venv-bj-a/bin/python', 'job exited with 1'"),
    "sft-rank-stopped": (
        f"silent_hang: {W} --max-steps 500' (SFTTrainer, default 1800 s ddp_timeout); the harness SIGSTOPs rank 1 "
        "right after it logs step 10 (its line is cut mid-write: 'rank 1: step 10/50'); rank 0 blocks in the next "
        "DDP all-reduce, no output for 20 s, then the harness as scheduler SIGTERMs accelerate launch; torch "
        "elastic forwards SIGTERM, cannot stop the stopped rank and SIGKILLs it 30 s later; exit 1. evidence: "
        "'2026-12-02 09:57:53,837 INFO train: rank 0: step 10/500', 'Received 15 death signal, shutting down "
        "workers', 'Unable to shutdown process 14818 via 15, forcefully exiting via 9', 'job exited with 1'"),
    "sft-preempt": (
        f"job_preempted: {W} --max-steps 500' (SFTTrainer), healthy and progressing; the harness as scheduler "
        "SIGTERMs accelerate launch at step 30 (after the step-20 checkpoint); torch elastic forwards SIGTERM to "
        "both ranks; exit 1. evidence: '2026-12-02 10:00:58,207 INFO train: rank 0: checkpoint saved at step 20', "
        "'Received 15 death signal, shutting down workers', 'job exited with 1'"),
    "dpo-terminal-closed": (
        f"terminal_hangup: {W} --stage dpo --max-steps 300' (DPOTrainer); SIGHUP to accelerate launch at step 10 "
        "(the launching terminal closing); torch elastic forwards SIGHUP to both ranks; exit 1. evidence: "
        "'Received 1 death signal, shutting down workers', 'Sending process 18020 closing signal SIGHUP', 'job "
        "exited with 1'"),
    "sft-bad-row": (
        f"worker_exception: {W}' (SFTTrainer) with one hand-added row in data/sft.jsonl that has a prompt but no "
        "completion; datasets fills the missing field with None and TRL's add_eos map raises on rank 0 during "
        "dataset preparation; rank 1 sees the gloo connection close; exit 1. evidence: \"[rank0]:     elif "
        "\"completion\" in example and not example[\"completion\"].endswith(eos_token):\", \"[rank0]: "
        "AttributeError: 'NoneType' object has no attribute 'endswith'\", 'job exited with 1'"),
    "sft-lora": (
        f"library_version_mismatch: {W} --lora' (SFTTrainer with a LoRA adapter); peft is not installed in the "
        "environment, so 'from peft import LoraConfig' fails on both ranks at startup; exit 1. evidence: "
        "\"ModuleNotFoundError: No module named 'peft'\", 'job exited with 1'"),
    "sft-second-node-missing": (
        "rendezvous_timeout: " + W.replace("--num_processes 2 --main_process_port P", "--num_processes 4 "
        "--num_machines 2 --machine_rank 0 --main_process_ip 127.0.0.1 --main_process_port 29658 --rdzv_backend c10d "
        "--rdzv_conf join_timeout=30")
        + "' (SFTTrainer); only machine 0 is started, the c10d rendezvous waits 30 s for the second node and "
        "torch elastic raises; exit 1. evidence: 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
        "'job exited with 1'"),
    "sft-ckpt-tmpfs-2m": (
        f"disk_full: {W} --save-steps 10' (SFTTrainer) with checkpoints/ on a 2200 KiB tmpfs; checkpoint-10 fits, "
        "at step 20 rank 0's safetensors write of the model weights runs out of space (the older checkpoint is only "
        "rotated after a save); rank 1 then sees the gloo connection close in its next gather; exit 1. evidence: "
        "'2026-12-02 10:09:18,965 INFO train: rank 0: checkpoint saved at step 10', '[rank0]: safetensors."
        "_safetensors_rust.SafetensorError: Error while serializing: I/O error: No space left on device (os error "
        "28)', 'job exited with 1'"),
    "sft-port-held": (
        f"no_failure: {W}' (SFTTrainer, port 29656) while an unrelated 'python -m http.server 29656' already holds "
        "the requested main port; accelerate warns and falls back to a free port, and the job trains 40 steps and "
        "exits 0 (a port-in-use warning that is not a failure). evidence: 'UserWarning: Port `29656` is already in "
        "use. Accelerate will attempt to launch in a standalone-like mode by finding an open port automatically for "
        "this session.', '2026-12-02 10:10:01,031 INFO train: rank 0: saved final model', 'job exited with 0'"),
    "sft-loader-shm": (
        f"shm_exhausted: {W} --num-workers 2' (SFTTrainer, DataLoader with 2 worker processes) run inside "
        "'unshare -m' with /dev/shm mounted as a 64 KiB tmpfs (as in a container with a tiny shm size); when the "
        "first training epoch starts the DataLoader cannot create its multiprocessing semaphore in /dev/shm and both "
        "ranks raise ENOSPC; exit 1. evidence: '[rank0]:     sl = self._semlock = _multiprocessing.SemLock(', "
        "'[rank0]: OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "sft-lr": (
        f"training_divergence: {W} --lr 1e24' (SFTTrainer, lr 1e24 with warmup); after the first optimizer step the "
        "weights blow up: grad_norm and entropy are nan from the first logged step, the Trainer's nan filter logs the "
        "training loss as 0, eval_loss is nan at both evaluations; the job runs on uselessly and exits 0. evidence: "
        "\"{'loss': '5.043', 'grad_norm': 'nan', 'learning_rate': '8e+23', 'entropy': 'nan', 'mean_token_accuracy': "
        "'0', 'num_tokens': '2501', 'epoch': '0.2174'}\", \"'eval_loss': 'nan'\", 'job exited with 0'"),
}
