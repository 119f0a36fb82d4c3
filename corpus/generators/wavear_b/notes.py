"""What each committed run of wave AR (b) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "local-kws-healthy": (
        "submit_kws.py --cluster local: submitit LocalExecutor job of 2 tasks (tasks_per_node=2), each task exports the "
        "DDP environment with submitit.helpers.TorchDistributedEnvironment and trains the keyword-spotting CNN over "
        "gloo for 4 epochs; task 0 validates and checkpoints every epoch; the user pastes the job's submitit log files "
        "after the driver returns. evidence: 'job 13628 FINISHED: {'epoch': 4, 'train_loss': 0.7391, 'val_acc': "
        "0.8969, ...}', 'job exited with 0', 'submitit INFO ... - Job completed successfully'"),
    "local-kws-healthy-requeue": (
        "no_failure with a scary restart: the Checkpointable trainer (--requeue) with timeout_min=1.5 and "
        "signal_delay_s=40 needs longer than one allocation; submitit's SIGUSR2 reaches both tasks after epoch 3, task "
        "0 calls checkpoint() and requeues the job, task 1 ('Not checkpointing nor requeuing since I am a slave') then "
        "fails in gloo ('Connection closed by peer') as task 0 leaves; the requeued job resumes from "
        "kws-epoch003.pt and finishes. evidence: 'Caught signal SIGUSR2 on vm: this job is timed-out.', 'Requeued job "
        "14018 (2 remaining timeouts)', '[rank 0] resumed from checkpoints/kws-epoch003.pt', 'epoch 6/6: ... val acc "
        "0.9719', 'job exited with 0'"),
    "local-kws-new-keywords": (
        "worker_exception: shard 01 re-exported from a recording batch that also has the keywords 'marvin' and "
        "'sheila' (labels 12, 13) while the model and data/meta.json have 12 keywords; task 1's cross-entropy raises "
        "in the first steps, task 0 then fails in gloo and its FailedJobError is what the driver shows. evidence: "
        "'[rank1]: IndexError: Target 12 is out of bounds.' (in task 1's log.err), 'FailedJobError: Job (task=0) "
        "failed during processing', 'Connection closed by peer ... This is typically caused by a remote worker "
        "crashing', 'job exited with 1'"),
    "local-kws-earlier-checkpoints": (
        "silent_hang: checkpoints/ holds an earlier run's kws-epoch001.pt; task 0 asks whether to overwrite with "
        "input() and waits on stdin (a LocalExecutor task inherits the driver's stdin, which nobody types into), "
        "task 1 waits in the DistributedDataParallel constructor's broadcast (gloo timeout 1800 s); nothing happens "
        "for 95 s until the user's Ctrl-C (SIGINT to the process group). evidence: 'checkpoints/ already holds "
        "kws-epoch001.pt from an earlier run; overwrite? [y/N] ' (last line of task 0's log.out), KeyboardInterrupt "
        "in the driver's job.results() wait and in both tasks"),
    "local-kws-time-limit": (
        "job_preempted: 30 epochs with timeout_min=1 and signal_delay_s=15 on the plain (not checkpointable) "
        "function: submitit's time-limit signal SIGUSR2 reaches both tasks after epoch 5, task 0 raises "
        "UncompletedJobError, task 1 then fails in gloo. evidence: 'Job has timed out. Ran 1 minutes out of requested "
        "1 minutes.', 'Caught signal SIGUSR2 on vm: this job is timed-out.', "
        "'submitit.core.utils.UncompletedJobError: Job not requeued because: timed-out and not checkpointable.', "
        "'job exited with 1'"),
    "local-kws-claimed-checkpoints": (
        "rendezvous_timeout: an earlier submission of the same training (40 epochs, forgotten) still runs and holds "
        "the checkpoint folder's lock; the new job's task 0 blocks on the lock before init_process_group, so its "
        "TCPStore never listens and task 1 (--dist-timeout 60) cannot connect; after 140 s the user's Ctrl-C. "
        "evidence: '[c10d] The client socket has timed out after 60000ms while trying to connect to (vm, 30788).', "
        "'TCP client failed to connect/validate to host vm:30788 - retrying (try=0, timeout=60000ms', task 0's log "
        "ends at its config line, KeyboardInterrupt in the driver and both tasks"),
    "local-kws-http-port": (
        "port_in_use: a colleague's 'python -m http.server 30789' (sharing the feature files) listens on the port the "
        "user gave as --master-port; task 0's TCPStore cannot listen and the task fails; task 1 connects to the HTTP "
        "server instead and waits; the driver never returns (ended after 240 s). evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 30789, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'submitit ERROR "
        "... - Submitted job triggered an exception' (no 'job exited' line: killed)"),
    "local-kws-full-val": (
        "collective_timeout: validation only on task 0 against a full 24,000-utterance validation set (--val "
        "data-full/val.npz) with --dist-timeout 15: task 1 goes on into epoch 2 and its first gradient all-reduce "
        "waits for task 0, which is still validating (36 s), and times out; task 0 then fails in gloo. evidence: "
        "'[rank1]: RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms for recv "
        "operation to complete', '[rank 0] epoch 1/4: ... (36.2 s); saved checkpoints/kws-epoch001.pt', "
        "'FailedJobError: Job (task=0) ... Connection closed by peer', 'job exited with 1'"),
    "local-kws-ckpt-volume": (
        "disk_full: checkpoints/ is a 1 MB node-local volume (tmpfs); each checkpoint (model + SGD momentum) is about "
        "460 KB and the keep-2 rotation deletes old ones only after saving the new one: the third save fails in "
        "torch.save on task 0, task 1 then fails in gloo. evidence: 'saved checkpoints/kws-epoch002.pt', "
        "'RuntimeError: basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at inline_container.cc:672] "
        ". unexpected pos 80448 vs 80336', 'job exited with 1'"),
    "local-kws-loader-workers": (
        "shm_exhausted: --workers 2 --batch-size 128 (DataLoader worker processes hand batches over in shared memory) "
        "in a container-sized 2 MB /dev/shm (a private tmpfs in its own mount namespace); the first batch of task 1's "
        "worker (128 x 3 x 32 x 40 float32, 1.9 MiB) does not fit, task 0 then fails in gloo. evidence: '[rank1]: "
        "RuntimeError: Caught RuntimeError in DataLoader worker process 0.', 'RuntimeError: unable to allocate shared "
        "memory(shm) for file </torch_23522_1852592760_0>: No space left on device (28)', 'FailedJobError: Job "
        "(task=0) ... Connection closed by peer', 'job exited with 1'"),
    "local-kws-ssh-closed": (
        "terminal_hangup: the driver runs in the foreground of an SSH session (20 epochs); in epoch 2 the session "
        "closes and SIGHUP reaches the shell, the driver, submitit's local controller and both tasks (one process "
        "group): all die at once with the default SIGHUP action, nothing is printed; after logging in again the user "
        "pastes the job's log files, which just stop. evidence: 'submitted job 23582, logs in ...' as the console's "
        "last line (no 'job exited' line, no result), '[rank 0] epoch 2 step 10/37 loss 2.2202' and '[rank 1] epoch 2 "
        "step 10/37 loss 2.1526' as the tasks' last lines, empty *_log.err files"),
    "local-kws-augment-copies": (
        "host_oom_killed: --augment-copies 8 precomputes 8 time/frequency-masked copies of each task's shard in "
        "memory (float64, ~74 MB a copy, then concatenated) in a 1.4 GB cgroup-v1 memory cgroup for the job; the "
        "kernel's cgroup OOM killer SIGKILLs both tasks while they build the copies (dmesg: 'Memory cgroup out of "
        "memory: Killed process 26473 (python)' and 26474); no task writes a result, submitit's local controller exits "
        "and the driver reports the job finished without output. evidence: 'UncompletedJobError: Job 26472 (task: 0) "
        "with path .../26472_0_result.pkl has not produced any output (state: FINISHED)', 'No error stream produced.', "
        "both tasks' logs end at '[rank N] loaded data/train-0N.npz: 2400 utterances', empty *_log.err, 'job exited "
        "with 1'"),
    "local-kws-long-recordings": (
        "native_crash: --deltas native computes delta features with the C helper kwsdelta.c (ctypes), whose stack "
        "buffer holds 64 frames + padding; shard 01 re-exported from longer recordings (160 frames) overruns it and "
        "task 1 dies of SIGSEGV while loading its shard (faulthandler enabled in the task); task 0 then fails in gloo "
        "and that is the FailedJobError the driver shows. evidence: 'Fatal Python error: Segmentation fault', 'File "
        "\".../kws_train.py\", line 67 in deltas_native' (task 1's log.err), 'FailedJobError: Job (task=0) ... "
        "Connection closed by peer ... This is typically caused by a remote worker crashing', 'job exited with 1'"),
    "local-kws-task-killed": (
        "peer_process_died: task 1 (the process with SUBMITIT_LOCAL_GLOBALID=1) SIGKILLed from outside at epoch 2 "
        "step 20 (not in the log); task 0's next gradient all-reduce fails and the driver shows task 0's error. "
        "evidence: '[rank1]' log ends at '[rank 1] epoch 2 step 20/37 loss 2.1921' with an empty log.err, "
        "'RuntimeError: [.../gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:51328. This is "
        "typically caused by a remote worker crashing.', 'FailedJobError: Job (task=0) failed during processing', "
        "'job exited with 1'"),
    "array-kws-gated-recorder": (
        "training_divergence: shard 01 re-exported with 5% of its utterances from a recorder with a noise gate, whose "
        "quiet bands/frames are digital zeros, so their log-mel features are -inf; per-utterance CMVN turns them into "
        "NaN and the loss is NaN at the first step; a learning-rate sweep (map_array of 2 single-task jobs, lr 0.02 "
        "and 0.05) fails in both jobs on the script's finite-loss check. evidence: 'RuntimeWarning: invalid value "
        "encountered in subtract' (at the CMVN line), 'FloatingPointError: loss is nan at epoch 1 step 1', 'lr 0.02: "
        "job 27499 FINISHED: FailedJobError', 'job exited with 1'"),
    "array-kws-healthy-sweep": (
        "submit_kws.py --tasks 1 --sweep-lr 0.01,0.03,0.1: executor.map_array of three single-task jobs (each its "
        "own 1-process gloo group, master ports 30797-30799) running concurrently on 2 CPUs, 3 epochs each; the "
        "smallest learning rate is far from converged but nothing fails. evidence: 'submitted job array 24975 (3 "
        "jobs)', \"lr 0.01: job 24975 {'epoch': 3, 'train_loss': 2.031, 'val_acc': 0.3583\", \"lr 0.1: job 24980 "
        "{'epoch': 3, 'train_loss': 0.2811, 'val_acc': 0.9458\", 'job exited with 0'"),
    "hydra-kws-healthy-sweep": (
        "Hydra 1.3 multirun 'kws_app.py -m hydra/launcher=submitit_local optim=sgd,adam' (hydra-submitit-launcher): two "
        "sweep jobs run concurrently as submitit jobs of 2 tasks each (DDP over gloo, ports 30800/30801), 3 epochs "
        "each; the job logs carry both submitit's own and Hydra's logging of submitit's messages. evidence: "
        "\"[HYDRA] Submitit 'local' sweep output dir : multirun/...\", '#0 : optim=sgd dist.base_port=30800', "
        "'epoch 3/3: ... val acc 0.8125', '[submitit][INFO] - Job completed successfully', 'job exited with 0'"),
    "hydra-kws-three-tasks": (
        "batch_size_mismatch: the Hydra config fixes global_batch_size 128 = batch_size 64 x grad_accum 1 x 2 tasks; "
        "the user sweeps with hydra.launcher.tasks_per_node=3 and the script's global-batch check fails in every task "
        "of both sweep jobs; Hydra's task wrapper catches it (submitit reports the tasks completed) and the sweeper "
        "re-raises it in the driver. evidence: \"Error executing job with overrides: ['optim=sgd', "
        "'dist.base_port=30802']\", 'AssertionError: global_batch_size 128 != batch_size 64 * grad_accum 1 * "
        "world_size 3', 'local_rank=0(3)', 'job exited with 1'"),
    "hydra-kws-adamw": (
        "worker_exception (a config error): the user adds an optim option conf/optim/adamw.yaml whose weight_decay "
        "interpolates ${model.weight_decay}, a key the model configs do not have; sweeping optim=adam,adamw, the adam "
        "job trains, the adamw job's tasks fail when the app resolves its config (OmegaConf.to_container(resolve=True)) "
        "and the driver reports it. evidence: \"Error executing job with overrides: ['optim=adamw', "
        "'dist.base_port=30804']\", \"omegaconf.errors.InterpolationKeyError: Interpolation key 'model.weight_decay' "
        "not found\", 'full_key: optim.weight_decay', 'job exited with 1'"),
    "local-kws-requeue-metrics": (
        "worker_exception (a checkpoint/requeue path that fails): the Checkpointable trainer with --metrics-csv keeps "
        "the open metrics file on self, and its checkpoint() resubmits self; at the time limit (timeout_min=1, "
        "signal_delay_s=20) submitit calls checkpoint() on task 0 and cloudpickle cannot pickle the open file, so "
        "instead of a requeue the job fails; task 1 then fails in gloo. evidence: 'Caught signal SIGUSR2 on vm: this "
        "job is timed-out.', 'Calling checkpoint method.', 'checkpoint requested: resuming from "
        "checkpoints/kws-epoch006.pt after requeue', 'in _checkpoint ... ckpt_delayed.dump(tmp)', "
        "'_pickle.PicklingError: Cannot pickle files that are not opened for reading: a', 'job exited with 1'"),
    "local-kws-team-env": (
        "library_version_mismatch: the job is run with a team environment's interpreter (LocalExecutor(python=...), "
        "--python /tmp/corpus-venv-ar-b-team/bin/python) that has submitit 1.2.0 with setuptools 84.2.1, which no "
        "longer ships pkg_resources; the driver pickled the job with submitit 1.5.4, and the old submitit in the job "
        "fails at start-up before loading it, in both tasks. evidence: 'File \"/tmp/corpus-venv-ar-b-team/lib/"
        "python3.11/site-packages/submitit/core/plugins.py\", line 24, in _get_plugins', 'import pkg_resources', "
        "\"ModuleNotFoundError: No module named 'pkg_resources'\", 'UncompletedJobError: Job 28580 (task: 0) ... has "
        "not produced any output (state: FINISHED)', 'job exited with 1'"),
    "local-kws-healthy-term-notice": (
        "no_failure with scary warnings: in epoch 2 both task processes get SIGTERM from outside (a preemption "
        "notice / a clean-up script); submitit's job handler only logs and ignores SIGTERM (it checkpoints or requeues "
        "on its time-limit signal, SIGUSR2 here), so training goes on and the job finishes. evidence: 'submitit "
        "WARNING ... - Bypassing signal SIGTERM' (in both tasks' log.out and log.err), 'job 28881 FINISHED: "
        "{'epoch': 4, 'train_loss': 0.7391, 'val_acc': 0.8969, ...}', 'Job completed successfully', 'job exited with 0'"),
}
