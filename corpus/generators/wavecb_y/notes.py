"""Manifest notes for wave CB (y)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("ms-swift 4.6.0 'swift sft' (transformers 5.19.0 Trainer, peft 0.20.0, accelerate 1.16.0, trl 0.29.1) over "
     "torch 2.13.0+cpu (gloo, --use_cpu true --ddp_backend gloo, DDP), Python 3.11.7 (ColossalAI, the framework first "
     "asked for, pins torch<=2.5.1 in every release, so this wave uses the ms-swift fallback): LoRA SFT (r=8, "
     "all-linear, 16.4K trainable of 116K parameters) of a tiny Qwen2-architecture model built from a config (2 "
     "layers, hidden 64, own 400-token BPE tokenizer) on 2,000 synthetic calculator chats, per-device batch 4, lr "
     "5e-3, 300 steps, a log dict every 10, checkpoint-N every 50, eval every 100, through the team's sft.sh and "
     "plugin (team_plugin.py: a per-step hook module and a NaN guard), launched on two hosts (network namespaces "
     "sft-cpu-21 10.110.0.11 and sft-cpu-22 10.110.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 NNODES=2 "
     "NODE_RANK=K NPROC_PER_NODE=2 MASTER_ADDR=10.110.0.11 MASTER_PORT=P ./sft.sh' (swift runs python -m "
     "torch.distributed.run itself, static rendezvous), both nodes' output in one console")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "sft-cpu-22 10.110.0.12, one bridge", "sft-cpu-22 10.110.0.12, sft-cpu-23 10.110.0.13, one bridge").replace(
    "NNODES=2", "NNODES=3").replace("both nodes'", "all nodes'")
PEERS = ("the other ranks then fail in their next gloo collective ('Connection closed by peer [10.110.0.1x]') and "
         "both torchruns print ChildFailedError")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: '[INFO:swift] rank: 2, "
                      "local_rank: 0, world_size: 4, local_world_size: 2', \"{'train_runtime': 41.6064, ...\" , "
                      "'[INFO:swift] last_model_checkpoint: /tmp/wavecb-y-job/run/output/calc-lora/checkpoint-300', "
                      "'job exited with 0'; the only warnings are DDP's 'find_unused_parameters=True was specified in "
                      "DDP constructor, but did not find any unused parameters', c10d's 'The hostname of the client "
                      "socket cannot be retrieved. err=-3' and swift's trust_remote_code notices",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks); a plain run to the end: nothing injected. evidence: "
                      "'[INFO:swift] rank: 4, local_rank: 0, world_size: 6, local_world_size: 2', \"{'train_runtime': "
                      "55.959, ...\", 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job on the same hosts trained 150 "
                      "steps; the logged job resumes with --resume_from_checkpoint output/calc-lora/checkpoint-150 and "
                      "trains to 300. evidence: 'resume_from_checkpoint=/tmp/wavecb-y-job/run/output/calc-lora/"
                      "checkpoint-150,' (swift's args dump), the first log dict is step 160 (\"'global_step/max_steps':"
                      " '160/300'\"), '[INFO:swift] Saving model checkpoint to /tmp/wavecb-y-job/run/output/calc-lora/"
                      "checkpoint-300', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}; sft-cpu-22 starts 25 s after sft-cpu-21 (static rendezvous waits for it)"
                         ": nothing else injected. evidence: the two 'run sh:' lines and c10d warnings 25 s apart "
                         "('[W1205 19:04:12...' then '[W1205 19:04:37...'), \"{'train_runtime': 40.5216, ...\", "
                         "'job exited with 0'",
    "healthy-full-tqdm": f"no_failure: {W.replace('LoRA SFT (r=8, all-linear, 16.4K trainable of 116K parameters)', 'full-parameter SFT (--tuner_type full, 99.9K trainable parameters, lr 1e-3)')}"
                         "; this run also keeps swift's tqdm progress bars (--disable_tqdm false) and saves every 100 "
                         "steps: nothing injected. evidence: '[INFO:swift] model_parameter_info: Qwen2ForCausalLM: "
                         "0.0999M Params (0.0999M Trainable [100.0000%]), 0.0000M Buffers.', \"{'train_runtime': "
                         "'22.69', ... 'train_loss': '1.956'\", 'job exited with 0'",
    "shard-indexerror": f"worker_exception: {W}; the team's train_hooks.py audits a per-rank data shard every 50 "
                        "steps from step 150 from a 3-entry list: global rank 3 (sft-cpu-22) raises IndexError at step "
                        f"150; {PEERS}. evidence: '[rank3]:     audited.append((step, SHARDS[rank]))', '[rank3]: "
                        "IndexError: list index out of range', '[rank0]: RuntimeError: [/__w/pytorch/pytorch/"
                        "third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
                        "[10.110.0.12]:37570. ...', 'job exited with 1'",
    "runcard-json-save": f"worker_exception: {W}; the team's train_hooks.py on_save (after every checkpoint save) "
                         "makes rank 0 json.dump a run card holding a torch tensor: the first save (checkpoint-50) "
                         f"raises TypeError on global rank 0 (sft-cpu-21); {PEERS}. evidence: '[INFO:swift] Saving "
                         "model checkpoint to /tmp/wavecb-y-job/run/output/calc-lora/checkpoint-50', '[rank0]: "
                         "TypeError: Object of type Tensor is not JSON serializable', '[rank1]: RuntimeError: "
                         "[...pair.cc:553] Connection closed by peer [10.110.0.11]:5004. ...', 'job exited with 1'",
    "dataset-path-typo": f"worker_exception: {W}; the job is launched with --dataset data/train_v2.jsonl, a file that "
                         "does not exist (a path typo in the config): swift takes the string for a ModelScope dataset "
                         "id and tries to download it; the hosts have no internet, so global rank 0 raises "
                         "modelscope_hub's download-deadline error while the other ranks wait in swift's "
                         f"main-process-first barrier; {PEERS}. evidence: '[INFO:swift] Downloading the dataset from "
                         "ModelScope, dataset_id: data/train_v2.jsonl', '[ERROR:swift] Dataset data/train_v2.jsonl "
                         "load failed: subset_name=default,split=train with error: [E1001] 下载总时限已耗尽；已保存可继续下载的"
                         "临时文件', '[rank0]: modelscope_hub._download_control._DownloadDeadlineError: [E1001] ...', "
                         "'job exited with 1'",
    "rank2-segv": f"native_crash: {W}; the team's train_hooks.py calls ctypes.string_at(0) (a NULL read, 'C helper') "
                  "on global rank 2 (sft-cpu-22, local rank 0) at step 70: SIGSEGV, no Python traceback; the peers "
                  "fail with 'Connection closed by peer'/'Connection reset by peer'. evidence: 'failed (exitcode: "
                  "-11) local_rank: 0 (pid: 19672) of binary: /tmp/venv-cb-y/bin/python3', '  exitcode  : -11 (pid: "
                  "19672)  (SIGSEGV)', '  traceback : Signal 11 (SIGSEGV) received by PID 19672' under host "
                  "sft-cpu-22's 'Root Cause (first observed failure)', 'job exited with 1'",
    "rank1-leak-oom": f"host_oom_killed: {W}; the whole job runs in a 4 GiB cgroup-v1 memory limit and the team's "
                      "train_hooks.py keeps a 64 MB tensor per step on global rank 1 (sft-cpu-21, local rank 1) from "
                      "step 40: the kernel's memcg OOM killer SIGKILLs that rank (dmesg, not in the log: 'Memory cgroup "
                      "out of memory: Killed process 19931 (python3) ... anon-rss:2217848kB'); no Python traceback "
                      "from it, the peers fail in gloo. evidence: 'failed (exitcode: -9) local_rank: 1 (pid: 19931) of "
                      "binary: /tmp/venv-cb-y/bin/python3', '  exitcode  : -9 (pid: 19931)  (SIGKILL)', '  traceback "
                      ": Signal 9 (SIGKILL) received by PID 19931' (host sft-cpu-21), 'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}; the output dir output/calc-lora is a 700 KB tmpfs: checkpoint-50 fits, the "
                  "checkpoint-100 save on global rank 0 fills it (torch.save of the optimizer state): no errno text, "
                  f"only the C++ stream errors; {PEERS}. evidence: '[INFO:swift] Saving model checkpoint to "
                  "/tmp/wavecb-y-job/run/output/calc-lora/checkpoint-100', '[ERROR:swift] Cannot write content to "
                  "jsonl file. text: {\"train_dataset\": ...', '[rank0]: RuntimeError: basic_ios::clear: iostream "
                  "error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 122496 "
                  "vs 122388' (in '_save_optimizer_and_scheduler'), 'job exited with 1'",
}
