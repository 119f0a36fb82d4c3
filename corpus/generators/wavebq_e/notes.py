"""Manifest notes for wave BQ (e)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face Trainer (transformers 5.25.0, accelerate 1.16.0) with DeepSpeed 0.19.8 ZeRO ('--deepspeed "
     "configs/ds_zero2.json', batch sizes and clipping 'auto', the Trainer's AdamW as client optimizer) on CPU "
     "(DeepSpeed's CPU accelerator, gloo) over torch 2.13.0+cpu, Python 3.11.7: a support-ticket priority classifier "
     "(P1-P4, tiny BertForSequenceClassification, 84k params), eval + checkpoint every 40 steps, launched on two hosts "
     "(network namespaces dgx-b01 10.76.0.11 and dgx-b02 10.76.0.12, one bridge) with 'deepspeed --hostfile hostfile "
     "--no_ssh --num_nodes 2 --num_gpus 2 --node_rank K --master_addr 10.76.0.11 --master_port P train.py ...' per "
     "node, both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; 120 steps, finishes. evidence: \"'train_loss': '0.5631'\", "
                      "\"'eval_accuracy': '0.965'\", 'rank 0: training complete', 'Process ... exits successfully', "
                      "'job exited with 0'",
    "healthy-3nodes-zero1": f"no_failure: {W}, but three hosts (dgx-b03 10.76.0.13 too, hostfile3, --num_nodes 3 "
                            "--num_gpus 1: one rank per node) and ZeRO stage 1 (configs/ds_zero1.json); 120 steps, "
                            "finishes. evidence: 'Creating torch.float32 ZeRO stage 1 optimizer', \"'train_loss': "
                            "'0.5589'\", 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; an earlier unlogged 80-step run (port 40031) left checkpoint-80; this run "
                      "(--max_steps 160) resumes from it (DeepSpeed loads global_step80) and finishes. evidence: "
                      "'resuming from outputs/ticket-priority/checkpoint-80', '[Torch] Begin Load checkpoint from "
                      "outputs/ticket-priority/checkpoint-80/global_step80/...', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}; dgx-b02's launcher starts 25 s after dgx-b01's (rank 0's TCPStore waits "
                         "for it inside the 1800 s ddp_timeout); finishes. evidence: node_rank=1 launcher 25 s later, "
                         "\"'train_loss': '0.5631'\", 'job exited with 0'",
    "healthy-legacy-config": f"no_failure: {W}, with an older ds_config (configs/ds_zero2_legacy.json: deprecated "
                             "'cpu_offload': false, 'zero_allow_untested_optimizer': true); only warnings, finishes. "
                             "evidence: '[WARNING] [config_utils.py:70:_process_deprecated_field] Config parameter "
                             "cpu_offload is deprecated use offload_optimizer instead', 'job exited with 0'",
    "rank-keyerror": f"worker_exception: {W}, 1500 steps; the team's per-step hook (data/hooks.py, a label-smoothing "
                     "weight table missing class 3) raises on global rank 3 (dgx-b02, local rank 1) at step 47; the "
                     "other ranks then lose their gloo peer. evidence: '[rank3]: KeyError: 3' in data/hooks.py "
                     "on_step, '[rank0]: RuntimeError: [...gloo/transport/tcp/pair.cc:553] Connection closed by peer "
                     "[10.76.0.12]:...', 'job exited with 1'",
    "rank-sigkill": f"host_oom_killed: {W}, 1500 steps; right after the step-40 checkpoint the harness SIGKILLed global "
                    "rank 3 (dgx-b02, local rank 1) from outside, as the OOM killer would. evidence: dgx-b02's launcher "
                    "'... exits with return code = -9', peers '[rank0]: RuntimeError: ... Read error "
                    "[10.76.0.12]:...: Connection reset by peer', 'job exited with 1'",
    "cgroup-oom": f"host_oom_killed: {W}, but a 12-layer hidden-768 model (57.47M params) under a 3 GB cgroup-v1 "
                  "memory limit for the whole job; while DeepSpeed builds the ZeRO-2 optimizer the kernel OOM killer "
                  "SIGKILLs a rank on dgx-b01. evidence: 'BertForSequenceClassification, 12 layers, hidden 768, 57.47M "
                  "params', dgx-b01's launcher '... exits with return code = -9', dgx-b02's ranks 'Connection closed by "
                  "peer [10.76.0.11]', 'job exited with 247'",
    "rank-segv": f"native_crash: {W}, 1500 steps; the per-step hook dereferences a NULL pointer through ctypes "
                 "(ctypes.string_at(0)) on global rank 2 (dgx-b02, local rank 0) at step 47: SIGSEGV, no Python "
                 "traceback from that rank. evidence: dgx-b02's launcher '... exits with return code = -11', peers "
                 "'Read error [10.76.0.12]:...: Connection reset by peer', 'job exited with 1'",
    "huge-lr": f"training_divergence: {W}, learning rate 80 (instead of 3e-3), 120 steps; the loss jumps from ~1.4 to "
               "133 and 1100 and stays in the hundreds (gradient clipping at 1.0 keeps it finite), eval accuracy "
               "stays at chance, and the job runs to the end and exits 0: a diverged run that does not crash. "
               "evidence: \"{'loss': '1100', 'grad_norm': '7.568', 'learning_rate': '72'\", \"'eval_loss': "
               "'406.6', 'eval_accuracy': '0.265'\", \"'train_loss': '341'\", 'job exited with 0'",
    "ckpt-tmpfs": f"disk_full: {W}, 1500 steps; outputs/ is a 1 MiB tmpfs; the step-40 checkpoint (model.safetensors "
                  "fits) fails when DeepSpeed's save_checkpoint torch.saves global_step40 on every rank (no errno is "
                  "printed). evidence: 'Saving model checkpoint: outputs/ticket-priority/checkpoint-40/global_step40/"
                  "mp_rank_00_model_states.pt', '[rank3]: RuntimeError: basic_ios::clear: iostream error', "
                  "'[enforce fail at inline_container.cc:672] . unexpected pos 128 vs 0', 'job exited with 1'",
    "port-taken": f"port_in_use: {W}; an unrelated 'python -m http.server --bind 10.76.0.11 40120' on dgx-b01 holds "
                  "the master port; rank 0's TCPStore cannot listen and dgx-b01's launcher exits; dgx-b02's ranks "
                  "connect to the web server and wait silently until the harness as scheduler SIGTERMs the launchers "
                  "at 200 s. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on "
                  "any local network address. port: 40120, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                  "address already in use', 'job exited with 1'",
    "node1-missing": f"rendezvous_timeout: {W}, --ddp_timeout 60; only dgx-b01's launcher is started (dgx-b02 never "
                     "comes up); rank 0's TCPStore gives up. evidence: 'torch.distributed.DistStoreError: Timed out "
                     "after 61 seconds waiting for clients. 2/4 clients joined.', 'job exited with 1'",
    "preempt": f"job_preempted: {W}, 1500 steps; right after the step-40 checkpoint the harness as scheduler sends "
               "SIGTERM to both nodes' deepspeed runners (SIGKILL of the job 15 s later). The runner has no SIGTERM "
               "handler here and dies without a message of its own; bash does not print 'Terminated' for these "
               "background jobs, so the only trace is the exit status. evidence: output stops after 'rank 2: "
               "checkpoint-40 saved', 'job exited with 143' (128 + SIGTERM)",
    "terminal-hup": f"terminal_hangup: {W}, 1500 steps; right after the step-40 checkpoint the harness sends SIGHUP to "
                    "both nodes' deepspeed runners (a closed terminal); the orphaned ranks keep printing a little "
                    "after the shell's exit line. evidence: 'bash: line 1: 11244 Hangup ip netns exec bqenode0 ...', "
                    "'... 11247 Hangup ip netns exec bqenode1 ...', 'job exited with 129'",
    "rank-stopped": f"silent_hang: {W}, 1500 steps; right after the step-40 checkpoint the harness SIGSTOPs global rank "
                    "1 (dgx-b01, local rank 1); the other ranks block in the next collective (1800 s ddp_timeout) and "
                    "nothing more is logged; at 150 s the harness as scheduler SIGTERMs both runners. evidence: last "
                    "progress '40/1500', every rank's 'checkpoint-40 saved', then silence until 'job exited with 143'",
    "batch-config-3nodes": "batch_size_mismatch: " + W.replace("on two hosts", "on three hosts").replace(
                               "(network namespaces dgx-b01 10.76.0.11 and dgx-b02 10.76.0.12",
                               "(network namespaces dgx-b01/02/03 10.76.0.11-13") +
                           ", but --num_nodes 3 (6 ranks) with configs/ds_zero2_4x8.json, the config written for the "
                           "2-node job (fixed train_batch_size 32 = 8 x 1 x 4 ranks); the Trainer's DeepSpeed "
                           "integration rejects it on every rank before the engine starts. evidence: 'ValueError: "
                           "Please correct the following DeepSpeed config values that mismatch TrainingArguments "
                           "values:', '- ds train_batch_size=32 vs hf train_batch_size (calculated)=48', "
                           "'job exited with 1'",
    "ifname-node1": f"nccl_network_config: {W}, 1500 steps, but dgx-b02's launcher runs with GLOO_SOCKET_IFNAME=ib0 "
                    "(an interface that host does not have); its ranks fail creating the gloo process group, dgx-b01's "
                    "ranks wait in init until the harness as scheduler SIGTERMs the launchers at 200 s. evidence: "
                    "'RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to "
                    "find address for: ib0', 'job exited with 143'",
    "wrong-master": f"rendezvous_timeout: {W}, --ddp_timeout 60, but dgx-b02's launcher is given --master_addr "
                    "10.76.0.99 (a wrong address); its ranks retry the store at an unreachable host while rank 0's "
                    "TCPStore on dgx-b01 waits for them; both sides give up after 60 s. evidence: 'TCP client failed "
                    "to connect/validate to host 10.76.0.99:40200 - retrying', 'torch.distributed.DistStoreError: "
                    "Timed out after 61 seconds waiting for clients. 2/4 clients joined.', 'DistNetworkError: The "
                    "client socket has failed to connect to any network address of (10.76.0.99, 40200). ... (errno: "
                    "113 - No route to host)', 'job exited with 1'",
    "stat-shape-debug": f"collective_mismatch: {W}, 1500 steps, with TORCH_DISTRIBUTED_DEBUG=DETAIL on both nodes; at "
                        "step 47 the per-step hook all-reduces a per-host stat whose length differs by node (4 floats "
                        "on dgx-b01, 6 on dgx-b02); torch's debug wrapper rejects it on every rank. (A first run "
                        "without the debug flag hung silently at that step and was dropped.) evidence: 'RuntimeError: "
                        "Detected mismatch between collectives on ranks. Rank 1 is running collective: "
                        "CollectiveFingerPrint(SequenceNumber=51, OpType=ALLREDUCE, TensorShape=[4], ...', rank 2 "
                        "'TensorShape=[6]', frame data/hooks.py on_step, 'job exited with 1'",
    "node2-old-accelerate": f"library_version_mismatch: {W}, 1500 steps, but dgx-b02's launcher runs with an older "
                            "accelerate 1.0.1 first on PYTHONPATH (node image drift; made with pip --target); the "
                            "process group still forms (train.py builds it through accelerate's PartialState), then "
                            "transformers 5.25.0 refuses that accelerate on both dgx-b02 ranks while building "
                            "TrainingArguments; dgx-b01's ranks wait until the harness as scheduler SIGTERMs the "
                            "launchers at 200 s. evidence: '[rank2]: ImportError: Using the `Trainer` with `PyTorch` "
                            "requires `accelerate>=1.1.0`: Please run `pip install transformers[torch]` or `pip install "
                            "'accelerate>=1.1.0'`', same on rank 3, 'job exited with 143'",
}
