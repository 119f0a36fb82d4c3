"""Manifest notes for wave BK (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("a GRPO loop on plain Ray 2.60.0 + torch 2.13.0+cpu (Python 3.11.7) in the OpenRLHF/verl layout: a driver "
     "starts a single-node Ray head (ray start --head --num-cpus=4), a PACK placement group, 2 TrainerActors forming "
     "a gloo process group (MASTER_ADDR/PORT from actor 0, init_process_group inside the actor, grads all-reduced) "
     "and 2 RolloutActors receiving weights from trainer 0 through a second gloo group (TCPStore on port 29721), toy "
     "MLP policy (18k params), rule reward, 30 steps, checkpoints every 10 steps; actor lines forwarded by Ray as "
     "(TrainerActor pid=...)/(RolloutActor pid=...); launched with 'bash run_job.sh")
NOTES = {
    "grpo-healthy": (
        f"no_failure: {W}' (defaults); only Ray's own 'Failed to establish connection to the "
        "(event+)metrics exporter agent' errors from gcs_server and raylet; exit 0. evidence: '2026-12-02 12:04:46,383 INFO grpo: iter 30/30 | loss 0.0858 | "
        "reward 0.222 | grad_norm 0.698 | samples 16 | 0.17s', '2026-12-02 12:04:46,389 INFO grpo: training "
        "finished after 30 steps', 'job exited with 0'"),
    "grpo-trainer-killed": (
        f"host_oom_killed: {W}'; the scheduler harness SIGKILLed trainer actor rank 1 from outside right after "
        "iteration 12 (as an OOM killer would); the raylet reports the worker died and the driver's ray.get raises "
        "ActorDiedError; exit 1. evidence: '2026-12-02 12:07:39,422 INFO grpo: iter 12/30 | loss -0.2043 | reward "
        "0.247 | grad_norm 0.380 | samples 16 | 0.14s', 'ray.exceptions.ActorDiedError: The actor died unexpectedly "
        "before finishing this task.', 'job exited with 1'"),
    "grpo-rollout-killed": (
        f"host_oom_killed: {W}'; rollout actor 1 SIGKILLed from outside after iteration 18 (no restarts "
        "configured); the raylet reports the dead worker and the driver raises ActorDiedError; exit 1. evidence: "
        "'2026-12-02 12:14:43,900 INFO grpo: iter 18/30 | loss 0.0487 | reward -0.106 | grad_norm 0.954 | samples 16 "
        "| 0.23s', 'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.', 'job "
        "exited with 1'"),
    "grpo-trainer-stopped": (
        f"silent_hang: {W}' (dist timeout 600 s); trainer actor rank 1 SIGSTOPped after iteration 10, so the gloo "
        "all-reduce of step 12 never completes and no more iterations are logged; about 10 s later the scheduler "
        "harness SIGTERMs the job script, which forwards it to the driver (Ray core prints its SIGTERM handler "
        "lines); exit 1. evidence: '2026-12-02 12:08:17,070 INFO grpo: iter 11/30 | loss 0.0789 | reward -0.150 | "
        "grad_norm 0.767 | samples 16 | 0.15s', '*** SIGTERM received at time=1796213307 on cpu 0 ***', 'job exited "
        "with 1'"),
    "grpo-trainer-stopped-timeout": (
        f"collective_timeout: {W} --dist-timeout 20' (gloo group timeout 20 s); trainer actor rank 0 SIGSTOPped "
        "after iteration 8; rank 1's gradient all-reduce times out after 20 s and the driver's ray.get raises its "
        "RayTaskError; exit 1. evidence: 'RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', 'job exited with 1'"),
    "grpo-three-trainers": (
        f"batch_size_mismatch: {W} --num-trainers 3'; the driver's OpenRLHF-style config check rejects rollout "
        "batch 16 for 3 trainer actors before connecting to Ray; exit 1. evidence: 'ValueError: "
        "rollout_batch_size (16) must be divisible by the number of trainer actors (3)', 'job exited with 1'"),
    "grpo-rouge-reward": (
        f"library_version_mismatch: {W} --reward rouge'; the ROUGE reward imports rouge_score inside the rollout "
        "actors, and the package is not installed in the environment; the first generate() raises and the driver "
        "re-raises the RayTaskError; exit 1. evidence: \"ModuleNotFoundError: No module named 'rouge_score'\", "
        "'job exited with 1'"),
    "grpo-skip-bad-rows": (
        f"no_failure: {W} --skip-bad-rows'; the prompts file has one extra row with 'label' instead of 'target'; "
        "the rollout actor's reward raises KeyError on it, logs the full traceback at ERROR and drops that prompt "
        "(iteration 16 trains on 15 samples); the run finishes; exit 0. evidence: \"KeyError: 'target'\" (in a "
        "(RolloutActor pid=5136) traceback), '2026-12-02 12:15:30,518 INFO grpo: iter 16/30 | loss 0.0892 | reward "
        "-0.011 | grad_norm 0.305 | samples 15 | 0.20s', '2026-12-02 12:15:32,676 INFO grpo: training finished after "
        "30 steps', 'job exited with 0'"),
    "grpo-pg-cpus": (
        f"ray_scheduling_stall: {W} --trainer-num-cpus 2'; the PACK placement group asks for 2 x 2 CPU trainer "
        "bundles + 2 x 0.5 CPU rollout bundles = 5 CPUs on a 4-CPU single-node cluster, so it can never be placed "
        "and ray.get(pg.ready()) waits forever (no Ray infeasible warning was printed within 85 s on this "
        "autoscaler-less head); the scheduler harness SIGTERMs the job script at 85 s and the driver's Ray core "
        "handler prints its SIGTERM lines; exit 1. evidence: \"2026-12-02 12:15:51,626 INFO grpo: cluster resources: "
        "{'memory': 16254604084.0, 'node:__internal_head__': 1.0, 'CPU': 4.0, 'object_store_memory': 6966258892.0, "
        "'node:192.0.2.2': 1.0}\", '2026-12-02 12:15:51,627 INFO grpo: waiting for placement group with 4 bundles', "
        "'*** SIGTERM received at time=1796213822 on cpu 0 ***', 'job exited with 1'"),
    "grpo-sync-port": (
        f"port_in_use: {W}'; another process (left from an earlier job) already listens on the weight-sync port "
        "29721 ([::], dual-stack); the TCPStore server that trainer 0 creates for the trainer->rollout weight-sync "
        "group cannot listen and the driver re-raises the RayTaskError; exit 1. evidence: '2026-12-02 12:17:26,113 "
        "INFO trainer0: creating weight-sync group on 127.0.0.1:29721, world 3' (in a (TrainerActor pid=7185) line), "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29721, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
        "with 1'"),
    "grpo-ckpt-tmpfs-save": (
        f"disk_full: {W}' with checkpoints/ on a 600 KiB tmpfs; the step-10 checkpoint (~150 KB) and its latest.pt "
        "copy fit, trainer 0's torch.save of the step-20 checkpoint runs out of space and the driver re-raises the "
        "RayTaskError from TrainerActor.save (PyTorch's zip writer reports no errno); exit 1. evidence: "
        "'2026-12-02 12:18:21,782 INFO grpo: checkpoint written: checkpoints/policy_step10.pt', 'RuntimeError: "
        "basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected "
        "pos 152896 vs 152784', 'job exited with 1'"),
    "grpo-bad-row": (
        f"worker_exception: {W}'; the prompts file has one hand-added row with 'label' instead of 'target' (id "
        "256); when rollout actor 0 reaches it in iteration 16 the rule reward raises KeyError and the driver "
        "re-raises the RayTaskError from RolloutActor.generate; exit 1. evidence: '2026-12-02 12:19:26,886 INFO "
        "grpo: iter 15/30 | loss -0.0836 | reward -0.053 | grad_norm 0.515 | samples 16 | 0.20s', \"KeyError: "
        "'target'\", 'job exited with 1'"),
    "grpo-preempted": (
        f"job_preempted: {W}' (healthy config); right after iteration 15 the scheduler harness sends SIGTERM to the "
        "job script (as at a time limit / preemption), whose TERM trap forwards it to the driver; Ray core's signal "
        "handler in the driver prints its SIGTERM lines and the driver aborts (bash reports Aborted); exit 134. "
        "evidence: '2026-12-02 12:19:59,021 INFO grpo: iter 15/30 | loss -0.0836 | reward -0.053 | grad_norm 0.515 | "
        "samples 16 | 0.17s', '*** SIGTERM received at time=1796213999 on cpu 0 ***', 'run_job.sh: line 19: 12018 "
        "Aborted                 RAY_ADDRESS=127.0.0.1:6420 nice -n 5 python train_grpo.py \"$@\"', 'job exited "
        "with 134'"),
    "grpo-high-lr": (
        f"training_divergence: {W} --lr 1e37' (Adam, grad clip 1.0); after the first update the policy weights "
        "are astronomically large: step 2 already logs loss -0.0000 and grad_norm 0.000 (saturated policy), and "
        "in iteration 3 the rollout actor's softmax over non-finite logits makes torch.multinomial fail; the driver "
        "re-raises the RayTaskError from RolloutActor.generate; exit 1. evidence: '2026-12-02 12:21:07,900 INFO "
        "grpo: iter 2/30 | loss -0.0000 | reward -0.038 | grad_norm 0.000 | samples 16 | 0.13s', 'RuntimeError: "
        "invalid multinomial distribution (encountering probability entry < 0)', 'job exited with 1'"),
    "grpo-resume": (
        f"no_failure: {W} --resume'; an earlier unlogged 10-step run in the same job dir left "
        "checkpoints/latest.pt; both trainer actors load it and training continues from iteration 11 to 30; exit 0. "
        "evidence: '2026-12-02 12:22:16,548 INFO trainer0: resumed from checkpoints/latest.pt at step 10' (in a "
        "(TrainerActor pid=15736) line), '2026-12-02 12:22:17,584 INFO grpo: iter 11/30 | loss 0.0789 | reward "
        "-0.150 | grad_norm 0.767 | samples 16 | 0.27s', '2026-12-02 12:22:20,987 INFO grpo: training finished after "
        "30 steps', 'job exited with 0'"),
    "grpo-trainer-paused": (
        f"no_failure: {W} --dist-timeout 120'; trainer actor rank 1 was SIGSTOPped after iteration 10 and "
        "SIGCONTed about 13 s later (a stalled host), well inside the 120 s gloo timeout; iteration 11 takes 13.33 s, "
        "then training continues and finishes; exit 0. evidence: '2026-12-02 12:24:50,868 INFO grpo: iter 11/30 | "
        "loss 0.0789 | reward -0.150 | grad_norm 0.767 | samples 16 | 13.33s', '2026-12-02 12:24:56,279 INFO grpo: "
        "training finished after 30 steps', 'job exited with 0'"),
    "grpo-terminal-closed": (
        f"terminal_hangup: {W}' (healthy config); after iteration 15 the job script got SIGHUP as from a closed "
        "terminal and its HUP trap passed it on to the driver, which has no SIGHUP handler (neither the script nor "
        "Ray core installs one) and dies silently; the script then cleans up its Ray processes; exit 129 = 128 + "
        "SIGHUP, no other trace. evidence: '2026-12-02 12:26:44,817 INFO grpo: iter 15/30 | loss -0.0836 | reward "
        "-0.053 | grad_norm 0.515 | samples 16 | 0.14s', 'job exited with 129'"),
}
