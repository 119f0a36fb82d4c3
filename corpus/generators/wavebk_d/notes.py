"""Manifest notes for wave BK (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("LLaMA-Factory 0.9.5 (transformers 5.6.0, trl 0.24.0, peft 0.18.1, datasets 4.0.0, torch 2.13.0+cpu, Python "
     "3.11.7) on CPU, a tiny random-init LlamaForCausalLM (2 layers, hidden 64, 156k params, local 512-token BPE "
     "tokenizer) on synthetic helpdesk alpaca data registered in dataset_info.json, template default, 2 processes, "
     "DDP over gloo (use_cpu, ddp_backend gloo), LLaMA-Factory + transformers INFO logging and tqdm; launched with "
     "'FORCE_TORCHRUN=1 NNODES=1 NPROC_PER_NODE=2 MASTER_PORT=P nice -n 5 llamafactory-cli train")
NOTES = {
    "sft-lora-healthy": (
        f"no_failure: {W} configs/sft_lora.yaml' (SFT, LoRA r8 on all linear layers, 40 steps, eval+checkpoint at 20 "
        "and 40); 'We recommend enable mixed precision training.' and deprecation warnings only; exit 0. evidence: "
        "'[INFO|trainer.py:3815] 2026-12-02 12:08:13,359 >> Saving model checkpoint to saves/tiny-llama/lora/sft', "
        "'Training completed. Do not forget to share your model on huggingface.co/models =)', 'job exited with 0'"),
    "dpo-lora-healthy": (
        f"no_failure: {W} configs/dpo_lora.yaml' (DPO sigmoid, beta 0.1, LoRA, on the chosen/rejected file, 20 "
        "steps, eval+checkpoint every 10); trl UserWarnings about the deprecated padding_value property and a "
        "'mtime may not be reliable' WARNING from checkpoint rotation; exit 0. evidence: "
        "'[WARNING|logging.py:340] 2026-12-02 12:09:06,807 >> mtime may not be reliable on this filesystem, falling "
        "back to numerical ordering', '  eval_rewards/accuracies =        1.0', 'job exited with 0'"),
    "sft-full-fa2": (
        f"no_failure: {W} configs/sft_full.yaml flash_attn=fa2' (full fine-tuning, 40 steps); flash-attn is not "
        "installed, LLaMA-Factory warns and falls back to the default attention, training finishes; exit 0. "
        "evidence: '[WARNING|2026-12-02 12:09:45] llamafactory.model.model_utils.attention:149 >> FlashAttention-2 is "
        "not installed.', 'Training completed. Do not forget to share your model on huggingface.co/models =)', "
        "'job exited with 0'"),
    "sft-chat-dataset": (
        f"worker_exception: {W} configs/sft_lora.yaml dataset=helpdesk_chat'; dataset_info.json declares the alpaca "
        "file (instruction/input/output rows) as formatting sharegpt, so LLaMA-Factory's sharegpt converter looks up "
        "the default 'conversations' column and both ranks raise KeyError while aligning the dataset, before "
        "training; exit 1. evidence: '[rank0]: KeyError: 'conversations'', '[rank1]: KeyError: 'conversations'', "
        "'job exited with 1'"),
    "sft-ds-zero2": (
        f"library_version_mismatch: {W} configs/sft_lora.yaml deepspeed=configs/ds_z2_config.json' (a ZeRO-2 "
        "config); deepspeed is not installed in the environment, so building the TrainingArguments fails on both "
        "ranks in transformers' dep_version_check('deepspeed'); exit 1. evidence: '[rank1]: "
        "importlib.metadata.PackageNotFoundError: No package metadata was found for deepspeed', '[rank1]: "
        "importlib.metadata.PackageNotFoundError: No package metadata was found for The 'deepspeed>=0.9.3' "
        "distribution was not found and is required by this application. ', 'job exited with 1'"),
    "sft-port-held": (
        f"port_in_use: {W} configs/sft_lora.yaml' with MASTER_PORT=29765 while a 'python -m http.server 29765' "
        "started earlier in the job dir still holds that port; torchrun's static rendezvous cannot create its "
        "TCPStore, no worker starts; exit 1. evidence: 'torch.distributed.DistNetworkError: The server socket has "
        "failed to listen on any local network address. port: 29765, useIpv6: false, code: -98, name: EADDRINUSE, "
        "message: address already in use', 'job exited with 1'"),
    "sft-full-ckpt-tmpfs": (
        f"disk_full: {W} configs/sft_full.yaml' (full fine-tuning) with saves/ on a 1 MiB tmpfs; the model "
        "safetensors of checkpoint-20 fits, torch.save of the optimizer state does not: rank 0 fails writing it "
        "(no errno in the message), rank 1 then loses its gloo peer; exit 1. evidence: '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 400576 vs 400464', 'job exited with 1'"),
    "sft-rank-killed": (
        f"host_oom_killed: {W} configs/sft_lora.yaml max_steps=300 save_steps=100 eval_steps=100'; at step ~50 rank 1 "
        "is SIGKILLed from outside (as the kernel OOM killer / a node agent does); torch elastic reports exitcode -9 "
        "for local rank 1, SIGTERMs rank 0 and the job ends; exit 1. evidence: 'E1202 12:14:10.152000 3007 "
        "site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 1 "
        "(pid: 3099) of binary: /tmp/venv-bk-d/bin/python', '  traceback : Signal 9 (SIGKILL) received by PID 3099', "
        "'job exited with 1'"),
    "sft-rank-stopped": (
        f"silent_hang: {W} configs/sft_lora.yaml max_steps=300 save_steps=100 eval_steps=100' (ddp_timeout 1800, so "
        "no collective timeout fires); at step ~50 rank 1 is SIGSTOPped, rank 0 blocks in the next gradient "
        "allreduce and its progress bar stops at 51/300; 100 s after start the harness, acting as the scheduler, "
        "SIGTERMs torchrun, which cannot stop the frozen rank and SIGKILLs it after 30 s; exit 1. evidence: "
        "' 17%|█▋        | 51/300 [00:17<00:13, 18.45it/s]W1202 12:17:31.148000 6093 "
        "site-packages/torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down "
        "workers', 'W1202 12:18:01.149000 6093 site-packages/torch/distributed/elastic/multiprocessing/api.py:1047] "
        "Unable to shutdown process 6150 via 15, forcefully exiting via 9', 'job exited with 1'"),
    "sft-full-lr": (
        f"training_divergence: {W} configs/sft_full.yaml learning_rate=1.0e+6' (full fine-tuning; 1.0e-6 with the "
        "sign of the exponent lost); after the first update the gradients are NaN at every logged step and the "
        "eval loss is NaN; the Trainer neither stops nor raises, the job exits 0 with a NaN model. evidence: "
        "\"{'loss': '0', 'grad_norm': 'nan', 'learning_rate': '9.532e+05', 'epoch': '0.2941'}\", "
        "'  eval_loss               =        nan', 'job exited with 0'"),
    "sft-preempted": (
        f"job_preempted: {W} configs/sft_lora.yaml max_steps=300 save_steps=100 eval_steps=100'; the run is "
        "training normally (step 50/300, no errors) when the harness, acting as the scheduler at a preemption, "
        "SIGTERMs torchrun; torch elastic forwards SIGTERM to both ranks and exits with a SignalException; exit 1. "
        "evidence: 'W1202 12:25:19.360000 18618 site-packages/torch/distributed/elastic/multiprocessing/api.py:1028] "
        "Sending process 18622 closing signal SIGTERM', 'torch.distributed.elastic.multiprocessing.api."
        "SignalException: Process 18618 got signal: 15', 'job exited with 1'"),
    "sft-hangup": (
        f"terminal_hangup: {W} configs/sft_lora.yaml max_steps=300 save_steps=100 eval_steps=100'; the run is "
        "training normally (step ~50/300) when torchrun gets SIGHUP, as from the closed terminal / SSH session it "
        "was started from (sent by the harness to the torchrun process); torch elastic forwards SIGHUP to both ranks "
        "and exits with a SignalException; exit 1. evidence: 'W1202 12:26:34.287000 19793 site-packages/torch/"
        "distributed/elastic/multiprocessing/api.py:1028] Sending process 19907 closing signal SIGHUP', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 19793 got signal: 1', "
        "'job exited with 1'"),
    "sft-two-nodes": (
        f"rendezvous_timeout: {W} configs/sft_lora.yaml' with NNODES=2 NODE_RANK=0 and PET_RDZV_CONF=timeout=30 "
        "(torchrun's rendezvous timeout set through its env form); only node 0 is started, the second node never "
        "comes, torchrun's static rendezvous store waits for the other agent and times out before any worker "
        "starts; exit 1. evidence: '[INFO|2026-12-02 12:28:51] llamafactory.launcher:144 >> Multi-node training "
        "enabled: num nodes: 2, node rank: 0', 'torch.distributed.DistStoreError: Timed out after 31 seconds "
        "waiting for clients. 1/2 clients joined.', 'job exited with 1'"),
    "sft-lora-resume": (
        f"worker_exception: {W} configs/sft_lora.yaml resume_from_checkpoint=saves/tiny-llama/lora/sft/"
        "checkpoint-20'; an earlier unlogged 20-step run in the same job dir left checkpoint-20; on resume the "
        "Trainer loads the adapter, then both ranks fail in _load_optimizer_and_scheduler: torch.load with "
        "map_location set to the CPU device LLaMA-Factory sets up ('cpu:0') cannot restore the storages (a "
        "framework-combination bug, planned as a healthy resume, relabelled by what happened); exit 1. evidence: "
        "'[INFO|trainer.py:3343] 2026-12-02 12:30:42,690 >> Loading model from saves/tiny-llama/lora/sft/"
        "checkpoint-20.', \"[rank0]: RuntimeError: don't know how to restore data location of "
        "torch.storage.UntypedStorage (tagged with cpu:0)\", 'job exited with 1'"),
    "sft-full-memlimit": (
        f"host_oom_killed: {W} configs/sft_full.yaml preprocessing_num_workers=2' with the whole job in a 1300 MiB "
        "cgroup-v1 memory limit; while the two ranks are still importing torch/transformers/LLaMA-Factory (no "
        "worker output yet) the kernel's memcg OOM killer kills rank 0 (dmesg: 'Memory cgroup out of memory: Killed "
        "process 23013 (python)', not in the log); torch elastic reports exitcode -9 and SIGTERMs rank 1; exit 1. "
        "(1000 MiB killed llamafactory-cli itself, 4 lines, and 1600 MiB ran to the end; both not kept.) evidence: "
        "'E1202 12:32:38.807000 23011 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -9) local_rank: 0 (pid: 23013) of binary: /tmp/venv-bk-d/bin/python', '  traceback : Signal 9 "
        "(SIGKILL) received by PID 23013', 'job exited with 1'"),
}
