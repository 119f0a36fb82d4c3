"""Manifest notes for wave BJ (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("TorchRL 0.14.1 PPO (ClipPPOLoss + GAE, tensordict 0.14.3, torch 2.13.0+cpu, gymnasium 1.4.0, Python 3.11.7) "
     "on gymnasium CartPole-v1 by default, data from a MultiSyncCollector with 2 spawned worker processes (one "
     "GymEnv each), 400 frames per batch, 3 PPO epochs per iteration, per-iteration reward/loss logging, torch.save "
     "checkpoints every 5 iterations, 40 iterations; launched with 'nice -n 5 python train.py")
NOTES = {
    "ppo-healthy": (
        f"no_failure: {W}'; 40 iterations, eight checkpoints, older ones removed, workers shut down, exit 0. "
        "evidence: '2026-12-02 09:50:44,785 INFO ppo: saved checkpoint checkpoints/ppo_iter_0040.pt (122.0 KiB)', "
        "'2026-12-02 09:50:51,692 INFO ppo: training done: 40 iterations, 16000 frames in 26.1 s', "
        "'job exited with 0'"),
    "ppo-healthy-resume": (
        f"no_failure: {W} --resume --iterations 40'; an earlier unlogged 20-iteration run in the same job dir left "
        "checkpoints/ppo_iter_0020.pt; this run resumes from it and trains iterations 21-40, exit 0. evidence: "
        "'2026-12-02 09:52:40,296 INFO ppo: resumed from checkpoints/ppo_iter_0020.pt (iteration 20, 8000 frames)', "
        "'2026-12-02 09:53:46,432 INFO ppo: training done: 40 iterations, 16000 frames in 36.9 s', "
        "'job exited with 0'"),
    "ppo-healthy-async": (
        f"no_failure: {W} --collector async --iterations 25' (MultiAsyncCollector: each worker's batch is yielded as "
        "soon as it is ready); 25 iterations, five checkpoints, exit 0. evidence: '2026-12-02 09:56:58,742 INFO ppo: "
        "MultiAsyncCollector with 2 workers, 400 frames per batch, 25 iterations', '2026-12-02 09:57:48,643 INFO "
        "ppo: training done: 25 iterations, 10000 frames in 49.9 s', 'job exited with 0'"),
    "ppo-healthy-pendulum": (
        f"no_failure: {W} --env-name Pendulum-v1 --frames-per-batch 200 --iterations 40 --ckpt-every 10'; Pendulum "
        "episodes are truncated at 200 steps and each worker collects 100 frames per batch, so every other batch "
        "holds no finished episode and the logged mean episode length is nan (the losses stay finite); 40 "
        "iterations, exit 0. evidence: '2026-12-02 09:58:19,999 INFO ppo: iter 1/40 frames 200 reward -5.3656 "
        "episode_len nan loss_obj -0.0121 loss_critic 77.2890 entropy -0.0131 grad_norm 1.877 (0.06s)', "
        "'2026-12-02 09:58:56,242 INFO ppo: training done: 40 iterations, 8000 frames in 37.4 s', "
        "'job exited with 0'"),
    "ppo-worker-killed": (
        f"host_oom_killed: {W} --iterations 80'; right after iteration 12 was logged the harness sent SIGKILL to the "
        "second collector worker process (what the kernel OOM killer does); the trainer's next queue_out.get on the "
        "MultiSyncCollector times out, torchrl's _check_for_faulty_process trips over the dead worker and the "
        "trainer dies with a traceback (the kill itself prints nothing), exit 1. evidence: '2026-12-02 "
        "09:59:41,559 INFO ppo: iter 12/80 frames 4800 reward 1.0000 episode_len 61.3 loss_obj -0.0009 loss_critic "
        "10.4070 entropy -0.0063 grad_norm 4.758 (0.04s)', '    _check_for_faulty_process(self.procs)', "
        "'ValueError: Cannot close a process while it is still running. You should first call join() or "
        "terminate().', 'job exited with 1'"),
    "ppo-wide-oom": (
        f"host_oom_killed: {W} --hidden 8192' (134M-parameter actor/critic by a config typo) with the whole job in a "
        "1.5 GB cgroup-v1 memory limit; while the MultiSyncCollector starts its workers (each gets a copy of the "
        "policy weights) the cgroup OOM killer SIGKILLs the trainer, bash reports it, exit 137. evidence: "
        "'2026-12-02 09:59:53,284 INFO ppo: actor/critic hidden 8192, 134340611 parameters', 'bash: line 1: 16742 "
        "Killed                  nice -n 5 python train.py --hidden 8192', 'job exited with 137'"),
    "ppo-pendulum-gravity": (
        f"worker_exception: {W} --env-name Pendulum-v1 --env-kwargs '{{\"g\": \"9.81\"}}'' (gravity passed as a "
        "JSON string); the trainer's probe env only resets, so both collector workers raise on their first "
        "env.step in gymnasium's pendulum.py; the trainer's MultiSyncCollector reports the failed worker with a "
        "RuntimeError, then the process did not exit (stuck tearing down the collector) and the harness's "
        "'scheduler' sent SIGTERM at 85 s: 'Terminated', exit 143. evidence: 'Process _ProcessNoWarnSpawn-1:', "
        "'TypeError: unsupported operand type(s) for /: 'str' and 'float'', 'RuntimeError: At least one process "
        "failed: worker 0 (exit code 1). Check for more infos in the log.', 'job exited with 143'"),
    "ppo-ckpt-tmpfs": (
        f"disk_full: {W}' with checkpoints/ on a 200 KiB tmpfs; a checkpoint is 122 KiB, so ppo_iter_0005.pt fits "
        "and torch.save of the iteration-10 checkpoint runs out of space inside the zip writer (torch.save reports "
        "ENOSPC as an iostream error, not as 'No space left on device'); the trainer dies, exit 1. evidence: "
        "'2026-12-02 10:04:16,421 INFO ppo: saved checkpoint checkpoints/ppo_iter_0005.pt (122.0 KiB)', "
        "'RuntimeError: basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] "
        ". unexpected pos 62976 vs 62864', 'job exited with 1'"),
    "ppo-collector-shm": (
        f"shm_exhausted: {W}' run inside 'unshare -m bash -c \'mount -t tmpfs -o size=64k tmpfs /dev/shm && ...\'' "
        "(a container with a tiny /dev/shm); while the MultiSyncCollector sets up its shared-memory weight sync "
        "(torchrl.weight_update._shared) the multiprocessing Queue's POSIX semaphore cannot be created in the "
        "full /dev/shm: OSError ENOSPC from _multiprocessing.SemLock; the process then did not exit and the "
        "harness's 'scheduler' sent SIGTERM at 85 s ('Terminated'), exit 143. evidence: '    self._weight_init_queues"
        "[worker_idx] = ctx.Queue()', '    sl = self._semlock = _multiprocessing.SemLock(', 'OSError: [Errno 28] "
        "No space left on device', 'job exited with 143'"),
    "ppo-worker-stopped": (
        f"silent_hang: {W} --iterations 80'; right after iteration 12 was logged the harness sent SIGSTOP to the "
        "second collector worker (a worker that stops making progress); the MultiSyncCollector waits for its batch "
        "with no message for ~29 s until the harness's 'scheduler' sends SIGTERM to the trainer (at 80 s), whose "
        "handler logs it and exits 143; the stopped worker is then killed by the harness. evidence: '2026-12-02 "
        "10:06:48,832 INFO ppo: iter 12/80 frames 4800 reward 1.0000 episode_len 70.2 loss_obj -0.0030 loss_critic "
        "10.3112 entropy -0.0063 grad_norm 4.810 (0.26s)', '2026-12-02 10:07:17,640 WARNING ppo: received SIGTERM "
        "at iteration 12; stopping', 'job exited with 143'"),
    "ppo-preempted": (
        f"job_preempted: {W} --iterations 80'; a healthy, progressing run; right after iteration 20 (and its "
        "checkpoint) the harness's 'scheduler' sent SIGTERM to the trainer (preemption); its handler logs it and "
        "exits 143. evidence: '2026-12-02 10:08:38,896 INFO ppo: saved checkpoint "
        "checkpoints/ppo_iter_0020.pt (122.0 KiB)', '2026-12-02 10:08:38,984 WARNING ppo: received SIGTERM at "
        "iteration 20; stopping', 'job exited with 143'"),
    "ppo-terminal-closed": (
        f"terminal_hangup: {W} --iterations 80' from a terminal that was then closed: right after iteration 15 "
        "(and its checkpoint) the trainer got SIGHUP (sent by the harness, as a closing terminal does); with no "
        "handler for it the trainer dies at once and bash reports 'Hangup', exit 129. evidence: '2026-12-02 "
        "10:09:47,456 INFO ppo: saved checkpoint checkpoints/ppo_iter_0015.pt (122.0 KiB)', 'bash: line 1: 24957 "
        "Hangup                  nice -n 5 python train.py --iterations 80', 'job exited with 129'"),
    "ppo-tensorboard": (
        f"library_version_mismatch: {W} --logger tensorboard' in an environment without the tensorboard package "
        "(a missing optional dependency): torchrl's TensorboardLogger cannot import torch.utils.tensorboard and "
        "the trainer dies before the collector starts, exit 1. evidence: '    raise ImportError(\"torch.utils."
        "tensorboard could not be imported\")', 'ImportError: torch.utils.tensorboard could not be imported', "
        "'job exited with 1'"),
    "ppo-three-workers": (
        f"job_preempted: {W} --num-workers 3'; torchrl warns that 400 frames per batch is not divisible by 3 "
        "workers (harmless: it collects 402 per iteration) and training progresses normally, but on the shared, "
        "loaded machine 40 iterations did not finish within the harness's 85 s limit, so its 'scheduler' sent "
        "SIGTERM to the progressing trainer at iteration 36 (a time limit); the handler logs it, exit 143. "
        "evidence: '/tmp/venv-bj-b/lib/python3.11/site-packages/torchrl/collectors/_multi_sync.py:206: UserWarning: "
        "frames_per_batch 400 is not exactly divisible by the number of collector workers 3, this results in more "
        "frames_per_batch per iteration that requested.To silence this message, set the environment variable "
        "RL_WARNINGS to False.', '2026-12-02 10:11:29,780 INFO ppo: iter 36/40 frames 14472 reward 1.0000 "
        "episode_len 90.7 loss_obj -0.0180 loss_critic 10.9841 entropy -0.0058 grad_norm 6.877 (0.17s)', "
        "'2026-12-02 10:11:29,990 WARNING ppo: received SIGTERM at iteration 36; stopping', 'job exited with 143'"),
    "ppo-resume-hidden": (
        f"worker_exception: {W} --resume --hidden 128'; an earlier unlogged 10-iteration run with the config's "
        "hidden 64 left checkpoints/ppo_iter_0010.pt; resuming it with a wider network fails in the user's "
        "load_state_dict before the collector starts, exit 1. evidence: 'RuntimeError: Error(s) in loading "
        "state_dict for ProbabilisticActor:', '\tsize mismatch for module.0.module.0.weight: copying a param with "
        "shape torch.Size([64, 4]) from checkpoint, the shape in current model is torch.Size([128, 4]).', "
        "'job exited with 1'"),
    "ppo-sgd": (
        f"job_preempted: {W} --optimizer sgd --lr 0.5 --max-grad-norm 0' (SGD with momentum, no grad clipping: meant "
        "to diverge, but it did not); the episode-length metric is nan in batches where no episode finished (not "
        "the loss; losses stay finite), training progresses, but on the loaded machine 40 iterations did not finish "
        "within the harness's 85 s limit and its 'scheduler' sent SIGTERM to the progressing trainer at iteration "
        "35 (a time limit); the handler logs it, exit 143. evidence: '2026-12-02 10:15:09,661 INFO ppo: iter 13/40 "
        "frames 5200 reward 1.0000 episode_len nan loss_obj 0.0863 loss_critic 26.6681 entropy -0.0046 grad_norm "
        "7.506 (0.07s)', '2026-12-02 10:15:40,697 INFO ppo: saved checkpoint checkpoints/ppo_iter_0035.pt (80.0 "
        "KiB)', '2026-12-02 10:15:42,050 WARNING ppo: received SIGTERM at iteration 35; stopping', "
        "'job exited with 143'"),
}
