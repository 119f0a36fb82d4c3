"""Manifest notes for wave BK (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("DeepSpeed 0.19.8 (torch 2.13.0+cpu, Python 3.11.7) on CPU (DeepSpeed's CPU accelerator, gloo backend), a tiny "
     "causal transformer LM (4 layers, hidden 128, 0.87M params) on synthetic token rows, client torch AdamW + "
     "WarmupLR from the ds_config, DeepSpeed's own DataLoader, engine.save_checkpoint every 20 steps, 2 processes "
     "on localhost; launched with 'nice -n 5 deepspeed --num_gpus 2 --master_port P train.py --deepspeed_config")
Z2 = f"{W} configs/zero2.json"
NOTES = {
    "zero2-healthy": (
        f"no_failure: {Z2}' (ZeRO stage 2, train_batch_size 16 = micro 4 x accumulation 2 x 2 ranks, 80 steps, "
        "checkpoints at 20/40/60/80); warnings only (accelerator set to CPU, pin_memory, all_gather_into_tensor "
        "FutureWarning, 'Attempting to get learning rate from scheduler before it has started'); exit 0. evidence: "
        "'2026-12-02 12:15:12,932 INFO train: training done: 80 steps in 33.5 s', '[2026-12-02 12:15:21,942] [INFO] "
        "[launch.py:285:main] Process 3989 exits successfully.', 'job exited with 0'"),
    "accum-config": (
        f"batch_size_mismatch: {W} configs/zero2-v2.json' (gradient_accumulation_steps raised to 4 while "
        "train_batch_size stays 16 with micro batch 4 on 2 ranks); DeepSpeedConfig's batch assertion fails on both "
        "ranks inside deepspeed.initialize. evidence: '[rank1]: AssertionError: Check batch related parameters. "
        "train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 16 != 4 * 4 * 2', "
        "'job exited with 1'"),
    "bad-row": (
        f"worker_exception: {Z2}'; the dataset file has one malformed row ('\"tokens\": \"n/a\"', a string instead of "
        "a list of ints) inserted at line 301; at step ~26 rank 0's DataLoader worker hits it, torch.tensor raises, "
        "rank 1 then sees gloo 'Connection closed by peer' and the launcher kills both. evidence: '[rank0]: TypeError: "
        "Caught TypeError in DataLoader worker process 0.', \"[rank0]: TypeError: new(): invalid data type 'str'\", "
        "'job exited with 1'"),
    "ckpt-tmpfs": (
        f"disk_full: {Z2}'; checkpoints/ is a 1 MiB tmpfs; engine.save_checkpoint at step 20 fails in torch.save "
        "(DeepSpeed's torch_checkpoint_engine) on both ranks, rank 0 writing the model states, rank 1 its ZeRO "
        "optimizer shard; no errno is printed. evidence: '[rank0]: RuntimeError: basic_ios::clear: iostream error', "
        "'[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 128 vs 0', "
        "'job exited with 1'"),
    "port-taken": (
        f"port_in_use: {Z2}' with --master_port 29710 while an unrelated 'python -m http.server 29710' already "
        "listens there; rank 0's TCPStore cannot bind during deepspeed.init_distributed. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29710, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "rank1-killed": (
        f"host_oom_killed: {Z2}'; at step 30 the harness SIGKILLs the innermost process of rank 1 from outside (as "
        "the OOM killer would), which is rank 1's DataLoader worker (DeepSpeed's loader uses one worker); rank 1 "
        "raises, rank 0 sees gloo 'Connection closed by peer'. evidence: '[rank1]: RuntimeError: DataLoader worker "
        "(pid 9320) is killed by signal: Killed. ', 'job exited with 1'"),
    "rank1-stopped": (
        f"silent_hang: {Z2} --max-steps 400'; after step 20 (checkpoint saved) the harness SIGSTOPs rank 1's "
        "DataLoader worker, rank 1 waits for data forever and rank 0 blocks in the next collective (gloo timeout "
        "1800 s); no watchdog fires; at 60 s the harness as scheduler SIGTERMs the deepspeed runner, which dies "
        "without a shutdown message (bash prints 'Terminated'), the rest is SIGKILLed 15 s later. evidence: "
        "'2026-12-02 12:19:00,542 INFO train: rank 1: checkpoint saved at step 20', 'Terminated', "
        "'job exited with 143'"),
}
NOTES["launcher-hup"] = (
    f"terminal_hangup: {Z2} --max-steps 400' run from an interactive shell; at step 30 the harness sends SIGHUP to "
    "the deepspeed runner (as a closed terminal does); the runner has no SIGHUP handler and dies, bash reports it, "
    "the job ends. evidence: '2026-12-02 12:21:01,332 INFO train: rank 0: step 30/400 loss 2.5362 lr 2.00e-03 "
    "(10.2 s)', 'bash: line 1: 13741 Hangup                  nice -n 5 deepspeed --num_gpus 2 --master_port 29711 "
    "train.py --deepspeed_config configs/zero2.json --max-steps 400', 'job exited with 129'")
NOTES["zero3-healthy"] = (
    f"no_failure: {W} configs/zero3.json --max-steps 40' (ZeRO stage 3 parameter partitioning, same batch sizes as "
    "stage 2, checkpoints at 20 and 40); warnings only (accelerator set to CPU, hostfile not found, "
    "all_gather_into_tensor FutureWarning, pin_memory, 'Attempting to get learning rate from scheduler before it has "
    "started'); exit 0. evidence: '2026-12-02 12:21:54,872 INFO train: training done: 40 steps in 25.5 s', "
    "'[2026-12-02 12:22:00,948] [INFO] [launch.py:285:main] Process 14576 exits successfully.', 'job exited with 0'")
NOTES["zero1-healthy-resume"] = (
    f"no_failure: {W} configs/zero1.json --resume --max-steps 60' (ZeRO stage 1); an earlier unlogged 40-step run "
    "in the same job dir left checkpoints/global_step40; engine.load_checkpoint restores it on both ranks and the "
    "job trains 40 -> 60; warnings only; exit 0. evidence: '2026-12-02 12:23:24,126 INFO train: rank 1: resumed from "
    "checkpoints/global_step40/mp_rank_00_model_states.pt at step 40', '2026-12-02 12:23:30,330 INFO train: training "
    "done: 60 steps in 7.3 s', 'job exited with 0'")
NOTES["preempted"] = (
    f"job_preempted: {Z2} --max-steps 400', healthy and progressing; at step 45 the harness as scheduler (time "
    "limit / preemption) SIGTERMs the deepspeed runner, which dies without a shutdown message of its own (bash "
    "prints 'Terminated'); the ranks are SIGKILLed 20 s later. evidence: '2026-12-02 12:26:23,083 INFO train: rank 1: "
    "step 45/400 loss 1.6809 lr 2.00e-03 (22.6 s)', 'Terminated', 'job exited with 143'")
NOTES["lr-diverge"] = (
    f"training_divergence: {Z2} --lr 30' (the script sets WarmupLR's warmup_max_lr to --lr); the loss jumps from "
    "6.4 to ~1.3e4 by step 5, DeepSpeed then reports non-finite gradients and skips the update on almost every "
    "micro step (75 OVERFLOW lines) while the loss stays finite, so the script's finite-loss check never fires; the "
    "run completes all 80 steps, saves checkpoints and exits 0 (a diverged run that does not crash). evidence: "
    "'2026-12-02 12:26:53,709 INFO train: rank 1: step 5/80 loss 13442.6182 lr 1.81e+01 (1.2 s)', "
    "'[2026-12-02 12:26:53,829] [WARNING] [logging.py:123:log_dist] [Rank 0] [deepspeed] OVERFLOW! Skipping step. "
    "Gradients are non-finite, weights were not updated.', '2026-12-02 12:27:14,023 INFO train: rank 1: step 80/80 "
    "loss 15554.8330 lr 1.81e+01 (21.5 s)', 'job exited with 0'")
