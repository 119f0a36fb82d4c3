"""Manifest notes for wave BF (c)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("an OpenRLHF/verl-style PPO loop on Ray 2.60.0 (torch 2.13.0+cpu) launched as 'nice -n 5 python -m "
     "tutorrlhf.main_ppo --trainer.dist-port P ...': the driver starts a local Ray instance (ray.init(num_cpus=4)), "
     "waits for a PACK placement group with one {'CPU': 1} bundle per trainer, starts 2 PolicyTrainer actors that "
     "form a torch.distributed gloo group (rank 0 hands out MASTER_ADDR/PORT), a RolloutWorker and a RewardWorker "
     "(max_restarts=1, max_task_retries=1); each step: rollout, reward, PPO-clip update with gradients all-reduced "
     "over gloo, verl-style 'step:N - ...' metric lines from the driver and '(PolicyTrainer pid=N)' lines from the "
     "actors, validation every 4 steps, a checkpoint every 2; a team's RLHF run that teaches a tiny math-tutoring "
     "policy to give shorter answers")
DIED = ("'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.'")
NOTES = {
    "tutor-healthy": (
        f"no_failure: {W}; 2 epochs (8 steps), validation and checkpoints, exit 0. evidence: '2026-12-01 "
        "22:52:16,782 INFO tutorrlhf: training finished: 8 steps', 'job exited with 0'"),
    "tutor-healthy-reward-restarted": (
        f"no_failure: {W}, 3 epochs; after step 3 the RewardWorker process is SIGKILLed from outside (between "
        "calls); the raylet reports the dead worker, Ray restarts the actor (max_restarts=1) and the run finishes "
        "all 12 steps, exit 0. evidence: '(RewardWorker pid=28911) [2026-12-01 22:57:01] [reward] RewardWorker up "
        "on pid 28911 (reward_fn=length_penalty)', '2026-12-01 22:57:12,156 INFO tutorrlhf: training finished: 12 "
        "steps', 'job exited with 0'"),
    "tutor-lr-typo": (
        f"worker_exception: {W}; '--actor.lr 1e-6,' (a stray comma): argparse rejects it before Ray starts, exit "
        "code 2. evidence: 'tutorrlhf.main_ppo: error: argument --actor.lr: invalid float value: '1e-6,'', 'job "
        "exited with 2'"),
    "tutor-batch-48": (
        f"batch_size_mismatch: {W}; '--data.rollout-batch-size 48' with micro batch 16 and 2 trainers: the "
        "driver's verl-style check fails before Ray starts. evidence: 'AssertionError: real_train_batch_size (48) "
        "must be divisible by micro_batch_size (16) * total n_trainers (2).', 'job exited with 1'"),
    "tutor-reward-no-reference": (
        f"worker_exception: {W}; the prompt export lacks the 'reference' field: RewardWorker.score raises "
        "KeyError at step 1, the driver's ray.get re-raises it as RayTaskError(KeyError). evidence: '    ref = "
        "rec[\"reference\"]', \"KeyError: 'reference'\", 'job exited with 1'"),
    "tutor-empty-references": (
        f"training_divergence: {W}; 4 prompts have an empty reference answer: the length-penalty reward divides by "
        "a zero length (inf score), the normalised advantages turn NaN and rank 0's finite-loss check raises in "
        "step 3, surfacing in the driver as RayTaskError(RuntimeError). evidence: 'RuntimeError: rank 0: pg_loss is "
        "nan at global step 3', 'job exited with 1'"),
    "tutor-rouge-reward": (
        f"library_version_mismatch: {W}; '--reward.fn rouge' needs rouge_score, which is not installed: the "
        "RewardWorker's constructor raises, the actor dies in its creation task and the driver's first "
        "reward.score ray.get raises ActorDiedError (the taxonomy has no import_error id; the corpus labels a "
        "missing module so). evidence: \"(RewardWorker pid=27199) ModuleNotFoundError: No module named "
        "'rouge_score'\", \"ModuleNotFoundError: No module named 'rouge_score'\", 'job exited with 1'"),
    "tutor-port-held": (
        f"port_in_use: {W}; 'python -m http.server 29914' already holds the gloo master port: rank 0's "
        "init_process_group cannot listen and the driver gets RayTaskError(DistNetworkError). evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29914, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
        "with 1'"),
    "tutor-trainer-killed": (
        f"host_oom_killed: {W}, 3 epochs; after step 3 the rank-1 PolicyTrainer process is SIGKILLed from outside "
        "(no OOM, the way an OOM kill looks); the raylet reports the dead worker and the driver's ray.get on the "
        f"train_step raises ActorDiedError naming the OOM killer as a common cause. evidence: {DIED}, '\tpid: "
        "29239', 'job exited with 1'"),
    "tutor-nested-worked-answer": (
        f"native_crash: {W}; one prompt's worked answer is nested 200000 deep and the RewardWorker (recursion limit "
        "raised to 1e6) parses it with json.loads: the worker dies with SIGSEGV in the C JSON scanner; Ray restarts "
        "the actor and retries the task (max_restarts=1, max_task_retries=1), it crashes again, the driver's "
        "ray.get raises ActorDiedError. evidence: '(RewardWorker pid=29754) Fatal Python error: Segmentation fault', "
        "'(raylet) Task RewardWorker.score failed. There are 1 retries remaining, so the task will be retried. "
        "Error: The actor is temporarily unavailable: IOError: The actor was restarted', '(RewardWorker pid=29825) "
        f"Fatal Python error: Segmentation fault', {DIED}, 'job exited with 1'"),
    "tutor-log-kl": (
        f"collective_mismatch: {W}; '--actor.log-kl' makes rank 0 alone all-reduce a 1-element KL tensor while "
        "rank 1 all-reduces its first gradient (784 floats): gloo on rank 0 receives 3136 bytes for a 4-byte "
        "buffer, throws in its transport thread and the PolicyTrainer process aborts (SIGABRT); the driver's "
        "ray.get raises ActorDiedError. Before the job's actors started, an idle Ray worker process (pid 30092, no "
        "actor) aborted on a 'Mutex corrupt' check, unrelated to the cause. evidence: '(PolicyTrainer pid=30154) "
        "[2026-12-01 22:59:46,008 E 30154 30323] logging.cc:118: Unhandled exception: N4gloo13EnforceNotMetE. "
        "what(): [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] "
        "op.preamble.length <= op.nbytes. 3136 vs 4. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', '(PolicyTrainer pid=30154) Fatal Python error: Aborted', "
        f"{DIED}, 'job exited with 1'"),
    "tutor-rollout-stopped": (
        f"silent_hang: {W}, 3 epochs, '--trainer.ray-get-timeout 25'; after step 3 the RolloutWorker process is "
        "SIGSTOPped: the next rollout never returns and the driver's ray.get gives up after 25 s with a bare "
        "GetTimeoutError (no line says which actor stopped). evidence: 'ray.exceptions.GetTimeoutError: Get timed "
        "out: some object(s) not ready.', 'job exited with 1'"),
    "tutor-pg-pending": (
        f"ray_scheduling_stall: {W}; '--trainer.cpus-per-trainer 3 --trainer.pg-ready-timeout 40': the placement "
        "group asks 2 bundles of 3 CPUs (PACK) on a 4-CPU Ray instance and stays pending; Ray prints no warning, the "
        "driver's ray.get(pg.ready(), timeout=40) times out and it raises TimeoutError. evidence: '2026-12-01 "
        "23:02:52,083 INFO tutorrlhf: waiting for placement group 1d3b33609088a80ee1940aee03f501000000 (bundles "
        "[{'CPU': 3.0}, {'CPU': 3.0}])', 'ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.', "
        "\"TimeoutError: placement group for 2 trainers was not ready after 40s; cluster resources: {'memory': "
        "12952753767.0, 'object_store_memory': 5551180185.0, 'node:192.0.2.2': 1.0, 'CPU': 4.0, "
        "'node:__internal_head__': 1.0}\", 'job exited with 1'"),
    "tutor-preempted": (
        f"job_preempted: {W}, 3 epochs; after step 3 the driver process gets SIGTERM (the scheduler's signal): "
        "Ray's signal handler in the driver prints the SIGTERM and the driver aborts (exit 134), taking its local "
        "Ray instance down. evidence: '*** SIGTERM received at time=1796166262 on cpu 0 ***', 'bash: line 1:   344 "
        "Aborted                 nice -n 5 python -m tutorrlhf.main_ppo --trainer.dist-port 29912 "
        "--trainer.total-epochs 3', 'job exited with 134'"),
    "tutor-terminal-closed": (
        f"terminal_hangup: {W}, 3 epochs; after step 3 SIGHUP goes to the terminal's process group (the launching "
        "shell, the driver and the Ray daemons it started), as when the ssh session closes: everything dies at "
        "once, the log just stops after the step-3 line; nothing names SIGHUP and there is no 'job exited' line "
        "(the shell died too). evidence: 'step:3 - epoch:1 - actor/pg_loss:0.2927 - actor/clipfrac:0.0000 - "
        "actor/grad_norm:0.1641 - critic/score/mean:-1.1422 - response_length/mean:19.0156 - timing_s/step:1.5229'"),
    "tutor-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 600 KiB tmpfs: the step-2 checkpoint fits, rank 0's torch.save of the "
        "step-4 checkpoint runs out of space (the zip writer reports it as an iostream error / unexpected pos, no "
        "errno) and the driver gets RayTaskError(RuntimeError) from save_checkpoint. evidence: 'RuntimeError: "
        "basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected "
        "pos 203072 vs 203024', 'job exited with 1'"),
    "tutor-big-policy-oom": (
        f"host_oom_killed: {W}, '--actor.hidden 2048' (a 25M-parameter policy whose update keeps an 8 GB logit "
        "cache) with the whole job in a 3 GB cgroup-v1 memory limit: the kernel OOM killer kills the rank-1 "
        "PolicyTrainer in its first train_step (no loss line); the raylet reports the dead worker and the driver's "
        f"ray.get raises ActorDiedError naming the OOM killer as a common cause. evidence: {DIED}, '\tpid: 2919', "
        "'job exited with 1'"),
    "tutor-healthy-resume": (
        f"no_failure: {W}, '--trainer.resume-mode auto' after an earlier 1-epoch run (not in this log): both "
        "trainers load global_step_4 and train steps 5-8, exit 0. evidence: '2026-12-01 23:09:01,669 INFO "
        "tutorrlhf: resume_mode=auto: resuming from /tmp/wavebf-c-job/run/checkpoints/global_step_4/policy.pt', "
        "'2026-12-01 23:09:07,041 INFO tutorrlhf: training finished: 8 steps', 'job exited with 0'"),
    "tutor-healthy-rerun-done": (
        f"no_failure: {W}, '--trainer.resume-mode auto'; rerun of a finished 2-epoch run (not in this log): the "
        "latest checkpoint is the last step, nothing is trained, exit 0. evidence: '2026-12-01 23:10:36,103 INFO "
        "tutorrlhf: global step 8 already reached total_training_steps 8, nothing to do', '2026-12-01 "
        "23:10:36,104 INFO tutorrlhf: training finished: 8 steps', 'job exited with 0'"),
    "tutor-trainer-stopped": (
        f"collective_timeout: {W}, 3 epochs, '--trainer.dist-timeout 20'; after step 4 the rank-1 PolicyTrainer "
        "process is SIGSTOPped: rank 0's gradient all-reduce in train_step waits for it and gloo gives up after "
        "20 s; the driver's ray.get raises RayTaskError(RuntimeError). evidence: 'RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms "
        "for recv operation to complete', 'job exited with 1'"),
    "tutor-healthy-small-shm": (
        f"no_failure: {W}; run under 'unshare -m' with /dev/shm a 64 MiB tmpfs (a container runtime's default): Ray "
        "warns and puts its object store in /tmp/ray, the run trains 8 steps, exit 0. evidence: '2026-12-01 "
        "23:11:53,860\tWARNING services.py:2248 -- WARNING: The object store is using /tmp/ray instead of /dev/shm "
        "because /dev/shm has only 67108864 bytes available. This will harm performance!', '2026-12-01 "
        "23:12:25,609 INFO tutorrlhf: training finished: 8 steps', 'job exited with 0'"),
    "tutor-gloo-ifname-ib0": (
        f"nccl_network_config: {W}; the launch line, copied from the team's InfiniBand cluster script, sets "
        "GLOO_SOCKET_IFNAME=ib0 and this machine has no ib0: the trainers' init_process_group cannot find the "
        "interface and the driver gets RayTaskError(RuntimeError) from init_process_group. evidence: 'RuntimeError: "
        "[enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. "
        "Unable to find address for: ib0', 'job exited with 1'"),
    "tutor-pg-8-cpus": (
        f"ray_scheduling_stall: {W}; '--trainer.cpus-per-trainer 8 --trainer.pg-ready-timeout 45': each trainer "
        "bundle asks 8 CPUs on a 4-CPU Ray instance (infeasible): Ray's autoscaler reports the request cannot be "
        "fulfilled, the driver's 45 s wait for the placement group times out and it raises TimeoutError. evidence: "
        "\"(autoscaler +15s) Error: No available node types can fulfill resource request {'CPU': 8.0}. Add suitable "
        "node types to this cluster to resolve this issue.\", 'ray.exceptions.GetTimeoutError: Get timed out: some "
        "object(s) not ready.', 'TimeoutError: placement group for 2 trainers was not ready after 45s; cluster "
        "resources: {'node:192.0.2.2': 1.0, 'object_store_memory': 6512404070.0, 'memory': 15195609498.0, "
        "'node:__internal_head__': 1.0, 'CPU': 4.0}', 'job exited with 1'"),
}
