"""What each committed run of wave W set B showed (the manifest rows' notes), written after the runs."""

_W = ("DQN on cart-pole (Q-network MLP 4-128-128-2, 17K params, target network, replay buffer, Huber TD loss, Adam), "
      "each learner rank with its own simulator, gradients averaged over gloo")

NOTES = {
    "mpspawn-dqn-cartpole-healthy": (
        f"torch.multiprocessing.spawn, 2 learner ranks; {_W}; 3000 env steps per rank, greedy eval every 500 steps, "
        "checkpoint after each eval; healthy (the 'td loss nan' in the first log lines is the mean over no updates "
        "before learning_starts). evidence: '[rank 0] eval @ step 3000: greedy return 249.8 over 6 episodes', "
        "'[rank 0] done (3000 steps, 94 episodes)', '[rank 1] done (3000 steps, 96 episodes)', 'all ranks finished', "
        "'job exited with 0'"),
    "mpspawn-dqn-cartpole-actor-warmup-healthy": (
        f"mp.spawn 2 learner ranks, each forking 2 actor processes that collect 40 random warm-up transitions into a "
        f"multiprocessing.Queue (small enough for the pipe), then {_W}; healthy. evidence: '[actor 0] collected 40 "
        "transitions', 'warm-up experience in replay: 80 transitions', 'all ranks finished', 'job exited with 0'"),
    "mpspawn-dqn-cartpole-undiscounted-no-terminal-mask": (
        f"mp.spawn 2 ranks; {_W}, misconfigured: gamma 1.0, the terminal mask dropped from the TD target (bootstraps "
        "through falls), target synced every step, MSE loss without clipping, lr 3e-3 and a -100 fall penalty. The "
        "Q-values grow without bound and the TD loss explodes while the greedy return stays at ~9 (random); the job "
        "runs to the end and exits 0. Cause: the run diverged. evidence: 'gamma 1.0, lr 0.003 ... target sync every 1 "
        "steps, loss mse', '[rank 0] step  2000/3000 | eps 0.050 | td loss 3023093467709.4399 | mean Q 4293038.000', "
        "'step  3000/3000 | ... td loss 148271157194260.4688 | mean Q 23849702.000', 'eval @ step 3000: greedy return "
        "9.2'"),
    "mpspawn-dqn-cartpole-gather-episode-returns": (
        "mp.spawn 2 ranks with TORCH_DISTRIBUTED_DEBUG=DETAIL (printed by `env`); at the first eval each rank "
        "all_gathers its list of training-episode returns, but the ranks finished different numbers of episodes, so "
        "the tensors differ in shape and the DETAIL wrapper stops the job. Cause: ranks issued mismatched collectives. "
        "evidence: 'TORCH_DISTRIBUTED_DEBUG=DETAIL', 'RuntimeError: Detected mismatch between collectives on ranks. "
        "Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=12, OpType=ALLGATHER, TensorShape=[32]', "
        "'dist.all_gather(got, mine)'"),
    "mpspawn-dqn-cartpole-rank0-eval-recorder": (
        "mp.spawn 2 ranks, process-group timeout 30 s; at each eval rank 0 alone renders 3000 eval episodes to ASCII "
        "frames (an eval video recorder) before the all_reduce of the eval return; once the greedy policy balances "
        "longer (step 2000) the recording takes over 30 s and rank 1, waiting in the all_reduce, times out. Cause: a "
        "collective timed out because one rank did extra work. evidence: 'eval @ step 1500: greedy return 14.2', "
        "'[rank 0] step  2000/3000' (no eval line follows), 'Process 1 terminated with the following error', "
        "'dist.all_reduce(m)', 'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting "
        "30000ms for send operation to complete'"),
    "mpspawn-dqn-cartpole-replay-capacity-cgroup": (
        "mp.spawn 2 ranks inside a 2 GiB memory cgroup (a container limit); the replay capacity was set to 40M "
        "transitions and each rank preallocates its buffer as zeroed tensors (~1.9 GiB per rank), so the kernel's "
        "memcg OOM killer kills rank 1 right after start. evidence: 'replay capacity 40000000', "
        "'ProcessExitedException: process 1 terminated with signal SIGKILL', 'job exited with 1', 'oom-kill:"
        "constraint=CONSTRAINT_MEMCG ... task=python,pid=1914', 'Memory cgroup out of memory: Killed process 1914 "
        "(python) ... anon-rss:1371748kB'"),
    "mpspawn-dqn-cartpole-shared-replay-container-shm": (
        "mp.spawn 2 ranks in a container-sized /dev/shm (64M, shown by df); the replay buffer (2M transitions) is "
        "moved to shared memory so actor processes can write into it, and share_memory_() of the second tensor fails. "
        "Cause: shared memory too small. evidence: 'tmpfs 64M 0 64M 0% /dev/shm', 'replay capacity 2000000', "
        "'RuntimeError: unable to allocate shared memory(shm) for file </torch_1964_3847111901_2>: No space left on "
        "device (28)'"),
    "mpspawn-dqn-cartpole-replay-in-checkpoint-small-volume": (
        "mp.spawn 2 ranks; the checkpoint directory is a 48M volume (df before and after) and the checkpoint saved "
        "after each eval includes the 1.5M-transition replay buffer (~69 MiB), so torch.save fails at the first eval. "
        "Cause: the filesystem ran out of space. evidence: 'tmpfs 48M 0 48M 0% /tmp/wavew-b-job/run/ckpt', "
        "'replay buffer allocated: 1500000 transitions, 68.7 MiB per rank', 'torch.save(st, ckpt)', 'RuntimeError: "
        "basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos "
        "48214080 vs 48214032', 'tmpfs 48M 48M 0 100% /tmp/wavew-b-job/run/ckpt'"),
    "mpspawn-dqn-cartpole-orphaned-ranks-hold-port": (
        "mp.spawn 2 ranks on MASTER_PORT 29615; a previous run of the same job was started in the background and its "
        "launcher killed with kill -9, which left its two rank processes running (orphaned, still holding the "
        "rendezvous store on 29615); the new run's rank 0 cannot listen there. The `ps -s` epilogue lists the orphaned "
        "multiprocessing.spawn children. Cause: the master port was taken. evidence: 'torch.distributed."
        "DistNetworkError: The server socket has failed to listen on any local network address. port: 29615, useIpv6: "
        "false, code: -98, name: EADDRINUSE, message: address already in use', ps: '6234 1 00:29 .../python -B -c from "
        "multiprocessing.spawn import spawn_main' (two such orphans, parent pid 1, started 29 s earlier)"),
    "mpspawn-dqn-cartpole-warmup-split-over-learners": (
        "mp.spawn 4 learner ranks; learning_starts (400 transitions) is divided by the number of learners (100 per "
        "rank) but the per-rank batch is 128, so the first replay sample asks for more transitions than the buffer "
        "holds and numpy raises on every rank (the launcher reports rank 2's). Cause: the training code raised. "
        "evidence: 'launching 4 learner ranks', 'batch 128 per rank', 'Process 2 terminated with the following error', "
        "'ValueError: Cannot take a larger sample than population when replace is False'"),
    "mpspawn-dqn-cartpole-actor-queue-join-before-drain": (
        "mp.spawn 2 ranks, each starting 2 actor processes that put 3000 warm-up transitions each on a "
        "multiprocessing.Queue; the learner joins the actors before draining the queue, and an actor cannot exit "
        "until its queue feeder thread has flushed into the full pipe: a deadlock with no error and no timeout. After "
        "60 s without output Ctrl-C shows the actors stuck in the queue's _finalize_join. Cause: the job stopped "
        "making progress silently. evidence: '[rank 0] started 2 actor processes (3000 warm-up transitions each)', "
        "'[actor 0] collected 3000 transitions' (no 'warm-up experience in replay' line follows), 'KeyboardInterrupt', "
        "'multiprocessing/queues.py\", line 199, in _finalize_join', 'thread.join()'"),
    "mpspawn-dqn-cartpole-actors-counted-in-world-size": (
        "mp.spawn 2 learner ranks, but the world size counts the actor processes too (2 learners + 2 actors = 4) and "
        "the actors are only started after init_process_group, so only 2 of 4 ranks ever reach the store; the 30 s "
        "timeout ends the wait. Cause: not every rank reached the rendezvous. evidence: 'launching 2 learner ranks "
        "(world size 4)', 'dist.init_process_group(\"gloo\", init_method=\"env://\", rank=rank, world_size=world', "
        "'torch.distributed.DistStoreError: wait timeout after 30000ms, keys: /default_pg/0//cpu//0/0'"),
    "mpspawn-dqn-cartpole-spot-reclaim-graceful-checkpoint": (
        "mp.spawn 2 ranks, a 100000-step run with a SIGTERM handler; 40 s in the job's process group gets SIGTERM "
        "(a spot instance reclaim / node drain): the ranks save a checkpoint and exit 143, the launcher is terminated "
        "(KeyboardInterrupt from its handler). Cause: the job was preempted. evidence: '[rank 1] SIGTERM received at "
        "step 4895: saving checkpoint and exiting', '[rank 0] checkpoint saved to checkpoints/last.pt (step 4895)'"),
    "raytrain-dqn-cartpole-healthy": (
        f"Ray Train TorchTrainer on a local 2-CPU Ray cluster, 2 workers x 0.5 CPU; {_W} (DDP); a checkpoint reported "
        "per eval; healthy (rank 0's lines appear twice in the driver's console). evidence: 'Started training worker "
        "group of size 2', 'Reporting training result 3: ... metrics={'step': 1500, 'eval_return': 59.5}', "
        "'training finished: {'step': 1500, 'eval_return': 59.5}', 'job exited with 0'"),
    "raytrain-dqn-cartpole-rollout-actors-hold-cpus": (
        "Ray Train TorchTrainer (2 workers x 0.5 CPU) on a local Ray cluster with 2 CPUs; before training the driver "
        "creates 2 rollout actors with num_cpus=1 each for exploration and keeps them alive, so they hold both CPUs and "
        "the worker group can never be placed; the controller retries the 60 s startup timeout until Ctrl-C at 120 s "
        "(then a second Ctrl-C and kill -9). Cause: Ray could not schedule the train workers. evidence: 'rollout actors "
        "ready: 2 actors, 4000 exploration steps collected', \"Requesting resources: {'CPU': 0.5} * 2\", 'The worker "
        "group startup timed out after 60.0 seconds waiting for 2 workers. Potential causes include: (1) temporary "
        "insufficient cluster resources', 'WorkerGroupStartupTimeoutError', 'Received SIGINT. Gracefully aborting the "
        "training run'"),
    "raytrain-dqn-cartpole-rollout-seed-from-clock": (
        "Ray 2-CPU local cluster; before Ray Train starts, the driver creates 2 rollout actors seeded with "
        "np.random.seed(seed_base * 1000 + idx) where seed_base is int(time.time()), which is past numpy's 32-bit seed "
        "range, so both actors die in __init__ and the driver's ray.get raises. Cause: the application code raised in "
        "the actors. evidence: 'ray.exceptions.ActorDiedError: The actor died because of an error raised in its "
        "creation task, ray::RolloutActor.__init__()', 'np.random.seed(seed_base * 1000 + idx)', 'ValueError: Seed "
        "must be between 0 and 2**32 - 1', 'job exited with 1'"),
}
