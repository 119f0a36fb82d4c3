"""One note per committed run of wave AS (b): what ran, how the cause was made real, and the key lines (evidence)."""

NOTES = {
    "local-dispatch-healthy-eval": (
        "python dispatch.py (ray.init() local cluster, 4 CPUs): PPO, 2 env runners, 2 learners (torch DDP over gloo), "
        "one zone layout per env runner, evaluation every 2 iterations on the local env runner, 6 iterations, "
        "checkpoints every 2. Healthy; Ray's core_worker E line about actor constructor arguments and RLlib's "
        "deprecation warnings are harmless. evidence: 'Setting up process group for: env:// [rank=0, world_size=2]', "
        "'eval iter 6: episode_return_mean=', 'training finished after 6 iterations', 'job exited with 0'"),
    "local-dispatch-zone-orders": (
        "python dispatch.py --runner-failures fail (restart_failed_env_runners=False): zone 2's layout was re-exported "
        "with order lines naming shelves 0-8 while the zone has 6 shelves; env runner 2 (worker_index 2 loads "
        "zone-2.json) raises in WarehouseDispatch.reset -> _new_order, the actor dies and the driver's train() raises. "
        "evidence: '(SingleAgentEnvRunner pid=...) IndexError: list index out of range' in warehouse_env.py line 67 "
        "_new_order, 'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.', "
        "'Worker exits with an exit code 1', 'job exited with 1'"),
    "local-dispatch-new-fleet": (
        "python dispatch.py --robots 3 --runner-failures fail: the observation space is sized for 3 robots, but zone 2 "
        "was re-exported with a fleet of 4, so env runner 2's observations are longer than the declared Box; "
        "gymnasium's vector env cannot stack them. evidence: 'WARN: The obs returned by the `reset()` method is not "
        "within the observation space.', '(SingleAgentEnvRunner pid=...) ValueError: Output array is the wrong shape' "
        "(sync_vector_env.py reset -> concatenate), 'ray.exceptions.ActorDiedError', 'job exited with 1'"),
    "local-dispatch-minibatch": (
        "python dispatch.py --train-batch-per-learner 200 --minibatch 256: PPO's config validation rejects a minibatch "
        "larger than each learner's train batch before any actor starts. evidence: 'ValueError: `minibatch_size` (256) "
        "must be <= `train_batch_size_per_learner` (200).', 'job exited with 1'"),
    "local-dispatch-big-grid-planner": (
        "python dispatch.py --planner libplanner.so --size 24: the C planner precomputes distance tables only for grids "
        "up to 16x16 (static array of 17 pointers); for 24 it reads a pointer past the array (NULL) and every env "
        "runner segfaults on its first step. RLlib restarts the env runners (its default), they crash again; the run "
        "'finishes' with 0 env steps and NaN metrics, exit 0. evidence: '(SingleAgentEnvRunner pid=...) *** SIGSEGV "
        "received at time=...', 'PC: @ ... planner_suggest', 'Fatal Python error: Segmentation fault', 'File "
        "\"/tmp/waveas-b-job/run/planner.py\", line 13 in suggest', '(raylet) A worker died or was killed while "
        "executing a task by an unexpected system error', 'iter 6 env_steps=0 episode_return_mean=nan "
        "learner_loss=nan', 'job exited with 0'"),
    "local-dispatch-lr": (
        "python dispatch.py --lr 1000 (1e-3 meant): Adam steps of size ~1000 blow the policy up at the first update; "
        "the learner loss is inf in iteration 1, then sits at the value-loss clip (~10) while the collapsed policy "
        "collides (episode return from -5 to -33); the script keeps going and exits 0. evidence: 'iter 1 "
        "env_steps=800.0 episode_return_mean=-5.000 learner_loss=inf', 'learner_loss=10.0009', "
        "'episode_return_mean=-32.875', 'job exited with 0'"),
    "local-dispatch-episode-video": (
        "python dispatch.py --record-frames inside a 3 GB cgroup-v1 memory cgroup: each env keeps a 512x512x3 float64 "
        "frame (6 MB) per step for an episode video and never drops them, so each env runner grows by ~1.2 GB per "
        "episode; the kernel OOM killer kills the env runners (dmesg: 'Memory cgroup out of memory: Killed process "
        "... (ray::SingleAgen)'), RLlib restarts them, they are killed again; 0 env steps, exit 0. evidence: '(raylet) "
        "A worker died or was killed ... Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits "
        "with a connection error code 2. End of file. Some common causes include: (1) the process was killed by the "
        "OOM killer due to high memory usage', 'No samples returned from remote workers', 'iter 6 env_steps=0 "
        "episode_return_mean=nan learner_loss=nan'"),
    "cluster-dispatch-healthy-runner-restart": (
        "ray start --head (4 CPUs) then RAY_ADDRESS=... python dispatch.py: one env runner was SIGKILLed from outside "
        "after iteration 3; RLlib (restart_failed_env_runners, its default) restarts it and training finishes. "
        "Healthy with scary lines. evidence: '(raylet) A worker died or was killed while executing a task by an "
        "unexpected system error', 'ERROR actor_manager.py:976 -- Ray error (The actor ... is unavailable: ... Socket "
        "closed ...), taking actor ... out of service', 'Bringing previously unhealthy, now-healthy actor 2 back into "
        "service.', 'training finished after 8 iterations', 'job exited with 0'"),
    "cluster-dispatch-runner-cpus": (
        "ray start --head --num-cpus=4, dispatch.py --cpus-per-runner 6: no node can ever hold an env runner; the "
        "driver waits in algorithm setup, the autoscaler repeats its infeasible-request error; Ctrl-C after 120 s. "
        "evidence: '(autoscaler +7s) Error: No available node types can fulfill resource request {'CPU': 6.0}. Add "
        "suitable node types to this cluster to resolve this issue.', 'KeyboardInterrupt', 'job exited with 1'"),
    "cluster-dispatch-time-limit": (
        "ray start --head then dispatch.py --iterations 40: SIGTERM from outside (a scheduler's time limit) to the "
        "driver after iteration 3. evidence: '*** SIGTERM received at time=... on cpu 1 ***' (Ray's signal handler in "
        "the driver, pid of dispatch.py), 'job exited with 15'"),
    "cluster-dispatch-ssh-closed": (
        "ray start --head then dispatch.py --iterations 40: SIGHUP to the job's process group after iteration 3 (the "
        "terminal closed); the shell and the driver die without a message, not even the shell's exit line. evidence: "
        "the log stops after 'iter 3 env_steps=2400.0 ...' with no error and no 'job exited' line"),
    "cluster-dispatch-head-port": (
        "a colleague's python -m http.server holds port 30901; ray start --head --port=30901: the GCS server cannot "
        "bind its gRPC port and ray start fails. evidence: '(gcs_server) grpc_server.cc:134: An unexpected system "
        "state has occurred. ... Check failed: server_ Failed to start the grpc server. The specified port is 30901. "
        "... If the server startup error message is `Address already in use`, it indicates the server fails to start "
        "because the port is already used by other processes', 'RuntimeError: Failed to start GCS.', "
        "'job exited with 1'"),
    "cluster-dispatch-team-env": (
        "the cluster started with the project venv's Ray 2.60.0; the driver run with a team venv's python (Ray "
        "2.58.0). evidence: 'RuntimeError: Version mismatch: The cluster was started with: Ray: 2.60.0 Python: 3.11.7 "
        "This process on node 192.0.2.2 was started with: Ray: 2.58.0 Python: 3.11.7', 'job exited with 1'"),
    "twonode-dispatch-sim-node-lost": (
        "two nodes: ray start --head --num-cpus=2, a second node (ray start --address ... --resources sim=2 --block), "
        "both env runners need the sim resource and run on it; dispatch.py --iterations 40. After iteration 3 every "
        "process of the second node (its ray start, raylet, workers) was SIGKILLed (the host lost); only the head's "
        "console is kept. The env runners' connections close, the GCS marks the node dead, RLlib keeps restarting env "
        "runners that cannot be placed, and the driver trains on nothing for 37 iterations and exits 0. evidence: "
        "'ERROR actor_manager.py:976 -- Ray error (The actor ... is unavailable: ... RpcError: RPC error: Socket "
        "closed rpc_code: 14 ...), taking actor 1 out of service.', '(raylet) The node with node id: ... has been "
        "marked dead because the detector has missed too many heartbeats from it.', 'No samples returned from remote "
        "workers', 'iter 40 env_steps=2400.0 episode_return_mean=nan learner_loss=nan'"),
    "twonode-dispatch-healthy-resume": (
        "two nodes (head --num-cpus=2, a second node with the sim resource, env runners on it), `ray status` before "
        "the driver; dispatch.py --restore checkpoints/iter-004 --iterations 4 resumes an earlier (unlogged) local "
        "run. Healthy; gcs_server/raylet metrics-exporter E lines are harmless. evidence: 'Active: 1 node_... 1 "
        "node_...', 'Restored on 192.0.2.2 from checkpoint: Checkpoint(filesystem=local, "
        "path=/tmp/waveas-b-job/run/checkpoints/iter-004)', 'iter 8 env_steps=6400.0', 'training finished after 4 "
        "iterations', 'job exited with 0'"),
    "cluster-dispatch-checkpoints": (
        "ray start --head then dispatch.py --checkpoint-every 1 with checkpoints/ a 5 MB volume (tmpfs; each checkpoint "
        "1.9 MB): the third algo.save() fails in learner 0's save_to_path (pyarrow write); the traceback reaches "
        "dispatch.py's algo.save(path); the driver then reconnects to the cluster while shutting down and hangs; "
        "Ctrl-C 60 s later kills the shell silently. evidence: 'ERROR actor_manager.py:976 -- Ray error "
        "(ray::_WrappedExecutable.apply() ...', 'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] "
        "No space left on device', 'File \"/tmp/waveas-b-job/run/dispatch.py\", line 136, in main algo.save(path)'"),
    "cluster-dispatch-tune-healthy": (
        "ray start --head --num-cpus=6 then dispatch.py --tune: one tune.Tuner trial of PPO (2 env runners, 2 learners; "
        "5 logical CPUs), 6 iterations, checkpoints every 2 and at the end. Healthy; gymnasium's warnings about Box "
        "precision and an observation 'not within the observation space' (dtype) on the driver are harmless. evidence: "
        "'Trial status: 1 PENDING', 'Trial PPO_warehouse-dispatch_..._00000 completed after 6 iterations', 'Trial "
        "status: 1 TERMINATED', 'Checkpoint successfully created at:', 'training finished', 'job exited with 0'"),
}
