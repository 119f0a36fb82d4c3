"""What each committed run showed (the manifest rows' notes), written after the runs."""
NOTES: dict[str, str] = {
    "mpspawn-ppo-cartpole-healthy":
        "torch.multiprocessing.spawn, 2 processes, DDP over gloo: PPO on a numpy cart-pole simulator (8 cart-poles per "
        "rank, 64-step rollouts, GAE, clipped loss, 16 minibatches per update), 40 iterations; nothing was done to it. "
        "evidence: 'process group up: world 2, backend gloo', per-rank 'iter N rollout: ... episodes, return ...' lines "
        "with returns rising from ~17 to ~250, rank 0 'iter 39 update: 16 minibatches, loss ...', 'saved "
        "ppo_cartpole.pt after 40960 env-steps', 'all ranks finished', 'job exited with 0'.",
    "mpspawn-ppo-cartpole-minibatch-remainder-of-one":
        "The same mp.spawn PPO run with --minibatch 73 on a 512-transition batch: 512 = 7 x 73 + 1, so every PPO epoch "
        "ends with a one-sample minibatch whose per-minibatch advantage normalisation divides by std() of one value "
        "(NaN); the NaN gradients are averaged into both ranks' weights and the next minibatch's policy logits are NaN. "
        "evidence: 'batch 512 transitions per rank, minibatch 73', 'ppo_core.py:148: UserWarning: std(): degrees of "
        "freedom is <= 0' at 'adv = (adv - adv.mean()) / (adv.std() + 1e-8)', then rank 0 in ppo_loss 'ValueError: "
        "Expected parameter logits (Tensor of shape (73, 2)) of distribution Categorical ... found invalid values: "
        "tensor([[nan, nan], ...', 'job exited with 1'.",
    "mpspawn-ppo-cartpole-wind-obs-on-rank1":
        "mp.spawn PPO (2 ranks, gloo) with domain randomisation --wind-ranks 1: rank 1's cart-poles get wind gusts and "
        "append the wind speed to the observation (5 values) while the actor-critic is built for the 4-value "
        "observation; rank 1's first rollout forward pass raises and mp.spawn terminates rank 0. evidence: '[rank 1] "
        "env: ... wind 2.0, obs dim 5' vs '[rank 0] env: ... wind 0.0, obs dim 4', 'Process 1 terminated with the "
        "following error', traceback through ppo_core.rollout -> model(o) -> linear 'RuntimeError: mat1 and mat2 shapes "
        "cannot be multiplied (8x5 and 4x64)', 'job exited with 1'.",
    "mpspawn-ppo-cartpole-hifi-sim-rank1":
        "mp.spawn PPO (2 ranks, gloo, process-group timeout 10 s) where rank 1 runs a 'high-fidelity' simulator config "
        "at 1 MHz (20000 integration substeps per 50 Hz action, scalar code): its rollouts take far longer than rank 0's, "
        "so rank 0 waits in DDP's gradient all-reduce of the first update until gloo times out (uneven work, rank 1 "
        "alive). evidence: '[rank 1] env: 8 cart-poles, sim 1000000 Hz (20000 substeps per action)' vs rank 0 '50 Hz (1 "
        "substeps', only rank 0's 'iter 0 rollout' line, 11 s later 'Process 0 terminated with the following error' "
        "'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 10000ms for recv operation to "
        "complete' from loss.backward() in ppo_update, 'Terminating process ... via signal SIGTERM', 'job exited with 1'.",
    "mpspawn-ppo-cartpole-gather-episode-returns":
        "mp.spawn PPO (2 ranks, gloo) that dist.all_gather()s each rank's finished-episode returns for a learning curve; "
        "the ranks finish different numbers of episodes per rollout (27 vs 20), so the all_gather tensors differ in size "
        "and gloo aborts on the size check. evidence: '[rank 1] iter 0 rollout: 27 episodes' vs '[rank 0] iter 0 "
        "rollout: 20 episodes', 'terminate called after throwing an instance of 'gloo::EnforceNotMet'' 'op.preamble."
        "length <= op.nbytes. ... Received data size doesn't match expected size. Is there a distributed collective "
        "mismatch in your code?', 'Fatal Python error: Aborted' with the stack in distributed_c10d.py all_gather from "
        "ppo_spawn.py worker, 'process 0 terminated with signal SIGABRT', 'job exited with 1'.",
    "mpspawn-ppo-cartpole-lookahead-tree-save":
        "mp.spawn PPO (2 ranks, gloo) that at mid-run torch.save()s a 200000-node lookahead tree built as a parent-linked "
        "chain of Python objects, with sys.setrecursionlimit(1000000) raised so pickling would not stop on a "
        "RecursionError: the C pickler recurses once per node and overflows the C stack. evidence: '[rank 0] saving "
        "lookahead tree (200000 nodes) to tree_it15.pt' with no 'tree saved', 'Fatal Python error: Segmentation fault' "
        "(faulthandler), 'Terminating process ... via signal SIGTERM', 'ProcessExitedException: process 0 terminated "
        "with signal SIGSEGV', 'job exited with 1'.",
    "lightning-ppo-cartpole-healthy":
        "Lightning 2.6.6 Trainer, strategy ddp (gloo), 2 CPU processes: PPO as a LightningModule (a rollout of each rank's "
        "cart-poles at every epoch start, the PPO minibatches as the epoch's steps), 25 epochs, ModelCheckpoint on "
        "episode_return; nothing was done to it. evidence: 'Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2', "
        "'distributed_backend=gloo', the model summary, per-rank rollout and step lines, '`Trainer.fit` stopped: "
        "`max_epochs=25` reached.', 'best checkpoint: .../ppo-epoch=24-episode_return=94.8.ckpt', 'job exited with 0'.",
    "hf-trainer-ppo-distill-lqr-healthy":
        "Hugging Face Trainer (transformers 5.24, DDP over gloo, 2 processes via mp.spawn): a student actor-critic's "
        "policy head distilled from an LQR-style expert controller on 8000 expert-visited cart-pole states, 6 epochs, "
        "then a closed-loop check in the simulator; nothing was done to it. evidence: 'expert demonstrations: 8000 train "
        "/ 1600 val states, 4 features', finite feature ranges, the Trainer's loss/grad_norm dicts falling, "
        "'eval_accuracy' ~0.87, 'closed-loop student: ... mean return 355.3', 'all ranks finished', 'job exited with 0'.",
    "hf-trainer-ppo-distill-log-angle-rounded-states":
        "The same HF Trainer distillation with --log-angle (log|pole angle| as an extra feature) on states recorded with "
        "3 decimals: states whose angle rounds to exactly 0 give log(0) = -inf, so the loss gradient is NaN from the "
        "first logged step; the weights become NaN and the run finishes uselessly (the student drops the pole at once). "
        "evidence: 'ppo_hf.py:34: RuntimeWarning: divide by zero encountered in log' at the np.log(np.abs(X[:, 2:3])) "
        "line, 'feature ranges: min [..., -inf, -1.0]', \"'grad_norm': 'nan'\" on every logged step, \"'eval_loss': "
        "'nan'\" with eval_accuracy 0.5031 every epoch, 'closed-loop student: 956 finished episodes, mean return 8.3', yet "
        "'job exited with 0'.",
    "lightning-ppo-cartpole-num-nodes-2-one-node":
        "Lightning Trainer (ddp, gloo, timeout 60 s) started on one machine with num_nodes=2 left in from the two-node "
        "config and devices=2: the world size becomes 4 but only this node's 2 processes exist, so rank 0's TCPStore "
        "waits for clients that never come. evidence: 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4' and "
        "'GLOBAL_RANK: 1, MEMBER: 2/4', 'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for "
        "clients. 2/4 clients joined.', then rank 1's 'recvValueWithTimeout failed ... Failed to recv, got 0 bytes' in "
        "gloo's connectFullMesh, 'job exited with 1'.",
    "rayactors-ppo-cartpole-worker-restart-healthy":
        "Ray 2.60 core actors on a local 2-CPU cluster: two rollout-worker actors (max_restarts=1, max_task_retries=1) "
        "feed a PPO learner in the driver for 20 iterations; rollout worker 1's process exits hard once at iteration 6 "
        "(a one-off simulator plug-in abort), Ray restarts the actor and retries the task, and the run finishes. A "
        "healthy run with alarming lines. evidence: '(raylet) A worker died or was killed while executing a task by an "
        "unexpected system error', 'Task RolloutWorker.rollout failed. There are 1 retries remaining, so the task will "
        "be retried', a second 'rollout worker 1 up on pid ...', then 'iter 6' through 'iter 19' with returns rising to "
        "226.5, 'saved ppo_cartpole_ray.pt', 'done', 'job exited with 0'.",
    "rayactors-ppo-cartpole-param-server-pull":
        "Ray core actors, parameter-server layout: the driver calls Learner.collect_and_update, which ray.get()s a "
        "rollout from each RolloutWorker; each rollout first pulls the newest weights with ray.get(learner.get_weights"
        ".remote()), but the learner actor (max_concurrency 1) is busy inside collect_and_update, so the calls wait on "
        "each other forever with no error; after 75 s without output the user presses Ctrl-C. evidence: 'iter 0: "
        "parameter-server step (learner collects rollouts)', both 'rollout worker N up' lines, then nothing (no 'iter 0:"
        " ... episodes' line) until the driver's KeyboardInterrupt in ray.get(learner.collect_and_update.remote(...)) at "
        "ppo_ray.py line 97, 'job exited with 1'.",
    "raytrain-ppo-cartpole-ckpt-volume-full":
        "Ray Train TorchTrainer (2 workers x 0.5 CPU, gloo) running the PPO loop on each worker, rank 0 reporting a "
        "checkpoint every iteration (model, optimiser state and the last rollout batch) with CheckpointConfig("
        "num_to_keep=None), into a storage_path on a 1 MiB volume (a tmpfs standing in for a small quota'd mount): "
        "checkpoint 8 does not fit. evidence: 'df -h' line 'tmpfs 1.0M 0 1.0M 0% .../results', 'Reporting training "
        "result 7: TrainingReport(checkpoint=Checkpoint(filesystem=local, path=.../results/ppo-cartpole/checkpoint_...', "
        "rank 0 'Error in training function' in report -> _upload_checkpoint 'OSError: [Errno 28] Error writing bytes "
        "to file. Detail: [errno 28] No space left on device', TrainController 'Training failed due to worker errors', "
        "driver 'ray.train.WorkerGroupError', 'job exited with 1'.",
    "rayactors-ppo-cartpole-replay-frames":
        "Ray core actors: two rollout workers render 4 greyscale 96x96 'camera' frames per cart-pole and a ReplayBuffer "
        "actor keeps every transition with its frame stack for an offline-RL export, so the buffer grows by ~0.14 GiB "
        "per iteration; Ray's memory monitor (threshold set at the machine's use at start plus 1.5 GiB, the node's "
        "headroom) kills the buffer actor's worker. evidence: 'iter N: replay buffer ... transitions, frames 0.14 / 0.28 "
        "/ ... / 0.98 GiB', then 'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low "
        "on memory', 'OOM kill reason: Memory usage 3705778176B exceeded threshold of 3665094400B', 'Selected to kill: "
        "(Actor(...): ... task name=ReplayBuffer.__init__, ... actual memory used=1.29GB', 'job exited with 1'.",
    "raytune-ppo-cartpole-sweep-spot-sigterm":
        "Ray Tune sweep (6 trials: lr x clip grid, 2 concurrent, 1 CPU each) of the PPO loop, driven from a job script on "
        "a spot/preemptible node; 14 s in, while the first two trials are at iterations 8-13, the job's process group "
        "gets SIGTERM (the node being reclaimed); the driver's Ray core prints its fatal-signal handler and dies, the "
        "script's trap reports it. evidence: the Tune trial tables with 2 RUNNING trials, '[rank 0] iter 12: ...' "
        "lines, '*** SIGTERM received at time=... on cpu 1 ***' and 'logging.cc:474: *** SIGTERM received', 'job "
        "script: caught SIGTERM', 'job exited with 1' with no Tune result summary.",
    "rayactors-ppo-cartpole-learner-actor-no-cpu-left":
        "Ray core actors on a 2-CPU cluster: four rollout-worker actors (0.5 CPU each) start first and hold both CPUs, "
        "then the learner actor asks for 1 CPU and can never be placed; the driver waits for its weights, logging what "
        "is free, until the user presses Ctrl-C and the job script prints 'ray status'. evidence: four 'rollout worker "
        "N up' lines, 'iter 0: still waiting for the learner's weights (20s) ... (80s); available resources: {...}' with "
        "no 'CPU' key, KeyboardInterrupt, then 'ray status': 'Total Usage: 2.0/2.0 CPU' and 'Pending Demands: "
        "{'CPU': 1.0}: 1+ pending tasks/actors'.",
    "lightning-ppo-cartpole-maintenance-sigterm":
        "Lightning Trainer (ddp, gloo, 2 CPU processes, timeout 30 s) running 200 PPO epochs from a job script with a "
        "SIGTERM trap; at epoch 12 the job's process group gets SIGTERM (the node being drained for maintenance). "
        "Lightning's SIGTERM handler runs on both ranks; rank 0 leaves and rank 1's handler, broadcasting the SIGTERM "
        "flag inside loss.backward(), finds rank 0 gone. evidence: '[rank 0] epoch 12 rollout' as the last progress, "
        "'[rank: 0] Received SIGTERM: 15', '[rank: 1] Received SIGTERM: 15', rank 1 in signal_connector.py "
        "_sigterm_notifier_fn dist.broadcast 'RuntimeError: ... Connection closed by peer' (a symptom), 'job script: "
        "caught SIGTERM', 'job exited with 0'.",
}
