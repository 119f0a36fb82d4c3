"""What each committed run showed (a manifest note per scenario; written after the runs)."""

_A = ("python train.py (a Hydra 1.3.8 app: conf/ groups data/model/optim/trainer, @hydra.main version_base 1.3) of a "
      "road-sign CNN, spawning 2 ranks with torch.multiprocessing.spawn, DDP over gloo")

NOTES = {
    "hydra-signs-healthy":
        "no_failure: " + _A + ", 3 epochs, checkpoints from rank 0, 'training complete'; no noise beyond Hydra's "
        "resolved-config dump. evidence: '[rank0] finished 3 epochs, 75 steps', 'job exited with 0'",
    "hydra-signs-healthy-joblib":
        "no_failure: a --multirun sweep optim=sgd,adamw with the joblib launcher (hydra/launcher=joblib "
        "hydra.launcher.n_jobs=2, 1 rank per job, the job number added to the master port), both jobs finish. Noise: "
        "Hydra's escaped override '$\\{optim.name\\}' in the job list. evidence: '[HYDRA] Joblib.Parallel(n_jobs=2,"
        "backend=loky,prefer=processes,require=None,verbose=0,timeout=None,pre_dispatch=2*n_jobs,batch_size=auto,"
        "temp_folder=None,max_nbytes=None,mmap_mode=r) is launching 2 jobs', '[rank0] finished 2 epochs, 100 steps', "
        "'job exited with 0'",
    "hydra-signs-healthy-resume":
        "no_failure: an earlier unlogged 2-epoch run left checkpoints/last.pt; this run passes trainer.epochs=4 "
        "trainer.resume=true, both ranks resume at epoch 2 and finish. evidence: '[rank0] resumed from "
        "checkpoints/last.pt (epoch 2, step 50)', '[rank0] finished 4 epochs, 100 steps', 'job exited with 0'",
    "hydra-signs-healthy-torchrun":
        "no_failure: the Hydra app launched by torchrun --nproc_per_node=2 (each rank a Hydra run, env:// "
        "rendezvous on torchrun's store), 2 epochs; both ranks print the resolved config. evidence: '[rank0] finished "
        "2 epochs, 50 steps', 'job exited with 0'",
    "hydra-signs-healthy-tracking":
        "no_failure: trainer.metrics_url points at a tracking endpoint that is down; every epoch's metrics POST logs "
        "an ERROR line (Connection refused) and training continues to the end. Noise: 3 ERROR lines. evidence: "
        "'metrics push to http://127.0.0.1:31499/api/metrics failed: <urlopen error [Errno 111] Connection refused>; "
        "continuing without remote metrics', '[rank0] finished 3 epochs, 75 steps', 'job exited with 0'",
    "hydra-signs-cli-key":
        "worker_exception (a config error): the user passes the override trainer.max_epochs=5, a key the struct "
        "config lacks (it is trainer.epochs); Hydra refuses the override before the app runs. evidence: \"Could not "
        "override 'trainer.max_epochs'.\", \"Key 'max_epochs' is not in struct\"",
    "hydra-signs-login-node-env":
        "worker_exception (a config error): override trainer.ckpt_dir='${oc.env:SCRATCH_DIR}/signs/ckpt' copied from "
        "a cluster script, run in a shell where SCRATCH_DIR is unset, with HYDRA_FULL_ERROR=1: resolving the config "
        "in the app raises. evidence: 'omegaconf.errors.InterpolationResolutionError: KeyError raised while "
        "resolving interpolation: \"Environment variable 'SCRATCH_DIR' not found\"', '    full_key: trainer.ckpt_dir'",
    "hydra-signs-job-dir":
        "worker_exception: the run adds hydra.job.chdir=True; Hydra changes into its output dir and the code's "
        "relative data.root no longer resolves, so rank 1 raises and mp.spawn terminates rank 0. evidence: "
        "\"FileNotFoundError: [Errno 2] No such file or directory: 'data/classes.json'\", '-- Process 1 terminated "
        "with the following error:'",
    "hydra-signs-survey-update":
        "worker_exception: shard 1 re-exported by the survey team with a 13th sign class (no_trucks) while the model "
        "config keeps data.n_classes 12; cross_entropy on rank 1 raises. evidence: 'IndexError: Target 12 is out of "
        "bounds.', '-- Process 1 terminated with the following error:'",
    "hydra-signs-lr-grid":
        "training_divergence: a basic-launcher --multirun sweep optim.lr=0.05,5.0; job #0 finishes, job #1 (SGD lr 5.0) "
        "goes NaN within 8 steps, the trainer's finite-loss check raises on rank 1 and the sweep stops. evidence: "
        "'FloatingPointError: [rank1] loss is nan at epoch 1 step 7', \"Error executing job with overrides: "
        "['trainer.master_port=31413', 'trainer.epochs=2', 'optim.lr=5.0']\"",
    "hydra-signs-decode-export":
        "training_divergence: shard 2 re-exported with 40 crops whose decode failed written as NaN pixels; the first "
        "batch on rank 0 gives a NaN loss and the finite-loss check stops the job. evidence: 'FloatingPointError: "
        "[rank0] loss is nan at epoch 1 step 0'",
    "hydra-signs-aug-cache":
        "host_oom_killed: override data.precompute_aug=40 (40 augmented copies of each rank's crops kept in memory, "
        "~800 MiB a rank) with the job in a 1.2 GB cgroup-v1 memory cgroup: the kernel OOM killer kills rank 1 "
        "(dmesg: 'Memory cgroup out of memory: Killed process'). evidence: 'torch.multiprocessing.spawn."
        "ProcessExitedException: process 1 terminated with signal SIGKILL'",
    "hydra-signs-taxonomy-sync":
        "native_crash: classes.json re-exported with a taxonomy edit (group warning's parent set to danger, whose "
        "parent is warning): the recursive lru_cache'd depth lookup (recursion limit 1,000,000) overflows the C stack "
        "and both ranks segfault (dmesg: segfault in libpython3.11.so). evidence: 'torch.multiprocessing.spawn."
        "ProcessExitedException: process 1 terminated with signal SIGSEGV'",
    "hydra-signs-ckpt-volume":
        "disk_full: checkpoints/ is an 8 MB tmpfs holding ~2 MB of earlier archives; epoch-1.pt and last.pt fit, "
        "torch.save of epoch-2.pt runs out of space on rank 0. evidence: 'RuntimeError: basic_ios::clear: iostream "
        "error', 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 1104512 vs 1104400'",
    "hydra-signs-k8s-pod":
        "shm_exhausted: data.num_workers=2 inside a mount namespace (unshare -m) with a 64 kB tmpfs on /dev/shm: the "
        "DataLoader cannot create its worker semaphore on rank 1. evidence: 'SemLock.__init__(self, SEMAPHORE, value, "
        "SEM_VALUE_MAX, ctx=ctx)', 'OSError: [Errno 28] No space left on device'",
    "hydra-signs-nfs-stall":
        "silent_hang: rank 1's shard-01.npz is a FIFO nobody writes (a stalled network mount): rank 1 blocks in "
        "np.load after 'loading shards', rank 0 waits in DDP setup (pg_timeout 1800 s); the user's `timeout 100` "
        "kills the job with no error printed. evidence: \"[rank1] loading shards ['shard-01.npz', 'shard-03.npz']\", "
        "'job exited with 124'",
    "hydra-signs-rank-paused":
        "collective_timeout: 30-epoch run with trainer.pg_timeout=30; rank 1 SIGSTOPped from outside in epoch 2: rank "
        "0's DDP buffer broadcast times out in gloo. evidence: 'RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/"
        "gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 30000ms for send operation to complete', 'Unable "
        "to shutdown process 13940 via SIGTERM , forcefully exiting via SIGKILL'",
    "hydra-signs-time-limit":
        "job_preempted: 30-epoch run; in epoch 3 SIGTERM sent from outside to every process of the job below the "
        "shell (a scheduler's time limit): the app and ranks die, the shell reports it. evidence: 'Terminated', 'job "
        "exited with 143'",
    "hydra-signs-ssh-closed":
        "terminal_hangup: the Hydra app under torchrun --nproc_per_node=2, 30 epochs; SIGHUP to the job's process "
        "group in epoch 2 (the terminal closed): torchrun forwards SIGHUP to the ranks and exits with SignalException; "
        "the shell died too (no exit line). evidence: 'Received 1 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 15724 got signal: 1'",
    "hydra-signs-notebook-port":
        "port_in_use: `python -m http.server 31433` already listening on the master port; rank 0's TCPStore cannot "
        "bind. evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 31433, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'",
    "hydra-signs-second-node":
        "rendezvous_timeout: trainer.num_nodes=2 trainer.init_timeout=60 on one host, the second node never started: "
        "world size 4, 2 ranks join, the store wait times out after 60 s. evidence: 'torch.distributed."
        "DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//cpu//0/0', 'spawning 2 processes "
        "(world_size 4, node_rank 0)'",
    "hydra-signs-one-process":
        "batch_size_mismatch: trainer.devices=1 with the config's global_batch_size 128 (= 64 x 1 x 2 ranks): the "
        "trainer's global-batch check raises. evidence: 'ValueError: trainer.global_batch_size 128 != data.batch_size "
        "64 * trainer.accumulate 1 * world_size 1 (= 64)'",
    "hydra-signs-old-pin":
        "library_version_mismatch: the app run from a second venv built from an older requirements pin "
        "(hydra-core==1.1.2, omegaconf 2.1.2) on Python 3.11.7: importing hydra fails, Hydra 1.1's dataclass defaults "
        "are rejected by Python 3.11. evidence: \"ValueError: mutable default <class 'hydra.conf.JobConf.JobConfig."
        "OverrideDirname'> for field override_dirname is not allowed: use default_factory\"",
}
