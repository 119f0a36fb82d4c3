"""What each committed run of wave AP (b) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "sub-pick-healthy": (
        "python train_warehouse.py: PPO on the order-picking robot, 4 SubprocVecEnv workers (fork) from make_vec_env, "
        "CheckpointCallback every 4000 steps, EvalCallback on a DummyVecEnv (SB3 warns that training and eval envs are "
        "not of the same type: harmless), SB3 stdout tables, 16384 steps, policy saved. evidence: 'UserWarning: "
        "Training and eval env are not of the same type', 'Saving model checkpoint to "
        "checkpoints/warehouse_pick_4000_steps.zip', '[rank 0] saved policy to policy/warehouse_pick.zip', "
        "'job exited with 0'"),
    "sub-pick-healthy-resume": (
        "PPO resumed from an earlier 4096-step run's policy (PPO.load with the new env), SubprocVecEnv with start "
        "method forkserver, VecMonitor over make_vec_env's Monitor (SB3 warns about the double wrapping: harmless), "
        "8192 more steps, checkpoints and evaluations, policy saved. evidence: 'UserWarning: The environment is already "
        "wrapped with a `Monitor` wrapper', '[rank 0] resumed from prev/warehouse_pick.zip at 4096 steps', "
        "'Eval num_timesteps=12096, episode_reward=-1.11 +/- 0.04', 'job exited with 0'"),
    "sub-inventory-lumpy-sku": (
        "native_crash: inventory control, PPO, 4 SubprocVecEnv workers (forkserver, PYTHONFAULTHANDLER=1 in the "
        "environment). The SKU master re-export adds SKU-0103 with negative-binomial demand and dispersion 0.02 (very "
        "lumpy); the C sampler libdemand.so builds its cumulative table in a fixed 512-double stack buffer until it "
        "reaches 1 - 1e-9, which for this SKU takes tens of thousands of entries: the worker for that SKU segfaults in "
        "native code on its first reset (faulthandler's own report then dies with a bus error on the smashed stack) "
        "and the learner's recv on that worker's pipe gets EOFError. evidence: 'Fatal Python error: Segmentation "
        "fault', 'Fatal Python error: Bus error', 'self._last_obs = self.env.reset()', 'EOFError', 'job exited with 1'"),
    "sub-inventory-bulk-sku": (
        "silent_hang: inventory control, PPO, 4 SubprocVecEnv workers (fork). The re-export adds a bulk SKU-0108 with "
        "Poisson mean 900 units/day; the C sampler's Poisson inversion starts from exp(-900), which underflows to 0, "
        "so the cumulative sum never grows and the worker loops forever inside libdemand.so on its first reset. The "
        "learner waits in SubprocVecEnv.reset's remote.recv() with nothing printed after 'Logging to policy/logs' for "
        "90 s, then Ctrl-C (SIGINT to the process group): the learner's KeyboardInterrupt traceback; the leftover "
        "stuck worker was SIGKILLed 20 s later, no 'job exited' line. evidence: 'Logging to policy/logs', 'results = "
        "[remote.recv() for remote in self.remotes]', 'chunk = read(handle, remaining)', 'KeyboardInterrupt'"),
    "sub-pick-order-export": (
        "worker_exception: PPO on the picking robot, 4 SubprocVecEnv workers (spawn). The recent-orders export "
        "contains SKU A131, which the layout has no shelf slot for; PickEnv.reset in worker SpawnProcess-2 raises "
        "KeyError (its traceback printed by multiprocessing), the worker exits and the learner gets EOFError in "
        "step_wait. evidence: 'Process SpawnProcess-2:', 'return self.dock if self.carrying else "
        "self.slots[self.items[0]]', \"KeyError: 'A131'\", 'EOFError', 'job exited with 1'"),
    "sub-pick-new-layout-resume": (
        "worker_exception (an application error, a config mismatch): --resume of a policy trained with grid "
        "observations on the 7x7 layout, while the run uses the new 9x9 layout; PPO.load checks the spaces and "
        "raises before training. evidence: 'model = algo.load(a.resume, env=env, device=\"cpu\")', 'ValueError: "
        "Observation spaces do not match: Box(0.0, 1.0, (3, 7, 7), float32) != Box(0.0, 1.0, (3, 9, 9), float32)', "
        "'job exited with 1'"),
    "sub-pick-camera-grid": (
        "host_oom_killed: grid (camera-like) observations of a 96x96 warehouse hall, 3x96x96 floats per step, PPO "
        "with n_steps 2048 x 4 envs (a rollout buffer of ~0.9 GB of observations alone), the job in a 1.2 GB cgroup-v1 "
        "memory cgroup; the kernel OOM killer SIGKILLs the learner while it fills the buffer (dmesg: 'Memory cgroup out "
        "of memory: Killed process 4982 (python)', not in the log); bash reports it. evidence: 'observation Box(0.0, "
        "1.0, (3, 96, 96), float32)', 'bash: line 1:  4982 Killed                  python train_warehouse.py --obs "
        "grid ...', 'job exited with 137'"),
    "sub-inventory-price-sentinel": (
        "training_divergence: the SKU master re-export writes DBL_MAX (1.7976931348623157e+308) as SKU-0116's unit "
        "cost (an ERP 'no price' sentinel); its holding cost overflows to inf, the reward is -inf, PPO's first update "
        "turns the policy weights NaN and torch's Normal rejects the NaN action means. evidence: 'RuntimeWarning: "
        "overflow encountered in scalar multiply', 'ValueError: Expected parameter loc (Tensor of shape (64, 1)) of "
        "distribution Normal(...) to satisfy the constraint Real(), but found invalid values:', 'tensor([[nan],', "
        "'job exited with 1'"),
    "sub-inventory-sac-keep-buffer": (
        "disk_full: SAC on inventory control, 2 SubprocVecEnv workers, CheckpointCallback every 2000 steps with "
        "--save-replay-buffer into scratch/ckpt, a 6 MB node-local volume already holding 3 MB of earlier runs; the "
        "first checkpoint's policy zip fits, pickling the 100k-transition replay buffer does not. evidence: 'Saving "
        "model checkpoint to scratch/ckpt/warehouse_inventory_2000_steps.zip', "
        "'self.model.save_replay_buffer(replay_buffer_path)', 'pickle.dump(obj, file, "
        "protocol=pickle.HIGHEST_PROTOCOL)', 'OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "sub-pick-worker-killed": (
        "peer_process_died: PPO on the picking robot, 4 SubprocVecEnv workers (fork), 400000 steps; after the "
        "evaluation at 12000 steps the first environment worker is SIGKILLed from outside (a kill -9; nothing of it in "
        "the log). The learner's next step_async write to that worker's pipe fails. evidence: 'Eval "
        "num_timesteps=12000, episode_reward=-1.14 +/- 0.03', 'remote.send((\"step\", action))', 'BrokenPipeError: "
        "[Errno 32] Broken pipe', 'job exited with 1'"),
    "eval-pick-analysis-box": (
        "library_version_mismatch: evaluate_policy.py run in the analysis box's environment (numpy 1.26.4, the same "
        "SB3 2.9.2 and torch) on a policy zip saved by training under numpy 2.4: SB3's load unpickles the saved "
        "observation space, which refers to numpy 2's numpy._core modules. evidence: 'numpy 1.26.4; evaluating "
        "prev/warehouse_pick.zip on data/layout.json', 'data = json_to_data(json_data, custom_objects=custom_objects)', "
        "\"ModuleNotFoundError: No module named 'numpy._core.numeric'\", 'job exited with 1'"),
    "seeds-inventory-healthy": (
        "./run_seeds.sh \"1 2\": two A2C learners on inventory control at once (shell background jobs), each with 4 "
        "SubprocVecEnv workers (forkserver) and 2 eval workers, interleaved SB3 tables, checkpoints and policies per "
        "seed. evidence: 'run_seeds: seed 2 started (pid 12786)', '[rank 0] saved policy to "
        "policy/seed2/warehouse_inventory.zip', 'run_seeds: seed 1 finished with exit code 0', 'job exited with 0'"),
    "seeds-pick-time-limit": (
        "job_preempted: ./run_seeds.sh \"1 2\" with 400000 steps per seed; after the 16000-step checkpoints the "
        "scheduler's time limit sends SIGTERM to every process of the job (the script, both learners, their env and "
        "eval workers); the script's trap reports it and both seeds end with 143. evidence: 'Saving model checkpoint "
        "to checkpoints/seed2/warehouse_pick_16000_steps.zip', 'run_seeds: caught SIGTERM, stopping seeds', "
        "'run_seeds: seed 1 finished with exit code 143', 'job exited with 143'"),
    "torchrun-pick-healthy-pbt": (
        "torchrun --nproc-per-node 2 --master-port 30551: two PPO copies (seeds 0 and 1000), each with 2 SubprocVecEnv "
        "workers (spawn), a gloo group for the population exchange every 4 rollouts (all_gather of mean episode "
        "reward, broadcast of the best copy's weights); SB3 warns about a truncated mini-batch (n_steps*n_envs = 200, "
        "batch 64: harmless). evidence: 'UserWarning: You have specified a mini-batch size of 64, but because the "
        "`RolloutBuffer` is of size `n_steps * n_envs = 200`', 'exchange 1 at 800 steps: mean episode reward -2.04, "
        "-1.97; taking weights of rank 1', '[rank 0] saved policy to policy/warehouse_pick_rank0.zip', "
        "'job exited with 0'"),
    "torchrun-pick-layout-mix": (
        "collective_mismatch: torchrun 2 processes with --layouts data/layout.json,data/layout-9.json and grid "
        "observations: rank 0 trains on the 7x7 layout, rank 1 on the 9x9 one, so their policies' first layers differ "
        "in size; the first exchange's weight broadcast from rank 1 to rank 0 sends 62208 bytes where 37632 are "
        "expected and gloo aborts rank 0 (SIGABRT); torchrun SIGTERMs rank 1. evidence: 'observation Box(0.0, 1.0, "
        "(3, 9, 9), float32)', '[enforce fail at .../gloo/transport/tcp/pair.cc:456] op.preamble.length <= "
        "op.nbytes. 62208 vs 37632. Received data size doesn't match expected size. Is there a distributed "
        "collective mismatch in your code?', 'File \".../train_warehouse.py\", line 95 in _on_rollout_end', "
        "'exitcode  : -6 (pid: 4905)  (SIGABRT)', 'job exited with 1'"),
    "torchrun-pick-ssh-closed": (
        "terminal_hangup: torchrun 2 processes, 400000 steps, started from an interactive shell; during the fourth "
        "population exchange's rollouts (4096 steps) the SSH session closes and SIGHUP reaches the job's process group; torchrun logs "
        "the death signal and passes SIGHUP to the ranks; the log ends there (no 'job exited' line). evidence: "
        "'[rank 0] exchange 4 at 4096 steps', 'Received 1 death signal, shutting down workers', 'Sending process 12164 "
        "closing signal SIGHUP'"),
    "torchrun-pick-dashboard-port": (
        "port_in_use: a colleague's TensorBoard (tensorboard --logdir runs --port 30557 --bind_all, its console not "
        "kept) already listens on 30557 when the user launches torchrun --master-port 30557; torchrun's static "
        "rendezvous cannot start its TCPStore. evidence: 'static_tcp_rendezvous.py\", line 67, in next_rendezvous', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 30557, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "torchrun-pick-cluster-script": (
        "rendezvous_timeout: the launch line copied from the two-node cluster script (torchrun --nnodes 2 "
        "--nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:30559 --rdzv-conf join_timeout=45) run on "
        "one machine: no second node ever joins, and after 45 s the c10d rendezvous gives up before any worker "
        "starts. evidence: 'dynamic_rendezvous.py\", line 680, in run', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
}
