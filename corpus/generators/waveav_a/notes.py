"""Manifest notes of wave AV (a)'s committed runs (written after the runs, from what each log shows)."""
RUN = ("MLflow Project parcel-eta (sqlite tracking store; train entry point = torchrun --nproc_per_node=2 train.py, "
       "DDP over gloo on CPU, rank 0 logging to the MLflow run)")
TR = f"mlflow run . -e train --env-manager local of the {RUN}"
NOTES = {
    "mlflow-eta-healthy":
        f"no_failure: mlflow run -e prep then {TR}, 3 epochs, model logged. Harmless noise: MLflow's pickle "
        "serialization and 'torch version contains a local version label (+cpu)' WARNINGs. evidence: "
        "'[rank0] finished 3 epochs, val MAE 6.60 min', "
        "'2026/11/30 19:53:11 INFO mlflow.projects: === Run (ID '1a5efe9c403649c98a0e3b1034926cc9') succeeded ==='",
    "mlflow-eta-healthy-multistep":
        f"no_failure: mlflow run . -e main of the {RUN}: a parent run runs the prep and train entry points as "
        "child runs via mlflow.run() and then a nested evaluate run; all succeed. Harmless noise: MLflow WARNINGs about "
        "pickle serialization and the +cpu local version label. evidence: 'evaluation: val MAE 6.60 min', "
        "'2026/11/30 19:53:40 INFO mlflow.projects: === Run (ID '4bba0241092d420881fbe07272f98b40') succeeded ==='",
    "mlflow-eta-healthy-gps-noise":
        f"no_failure: mlflow run -e prep then {TR}; the export has 25 scans without a GPS distance, which prep "
        "logs at ERROR level and drops; the run completes. evidence: '2026-11-30 19:53:49,861 ERROR parcel_eta.prep: "
        "25 scans without GPS distance (scanner firmware); dropping them', '[rank0] finished 3 epochs, val MAE 7.07 min'",
    "mlflow-eta-healthy-resume":
        f"no_failure: an unlogged 2-epoch run left checkpoints; the logged run is {TR} -P epochs=5 -P resume=1: both "
        "ranks resume from last.pt and finish. evidence: '[rank0] resumed from checkpoints/last.pt (epoch 2)', "
        "'[rank0] finished 5 epochs, val MAE 6.60 min'",
    "mlflow-eta-epochs-typo":
        f"worker_exception: {TR} -P epochs=3x (a typo in the job's parameters); MLflow passes the value through to the "
        "command although the parameter is declared float, and train.py's argparse rejects it on both ranks (exit 2), "
        "torchrun reports the failure and MLflow marks the run failed. evidence: \"train.py: error: argument --epochs: "
        "invalid float value: '3x'\", \"2026/11/30 19:55:02 ERROR mlflow.cli: === Run (ID "
        "'ed34979c435f40de8617c45ceba0a2ff') failed ===\"",
    "mlflow-eta-new-depot":
        f"worker_exception: mlflow run -e prep then {TR}; the export has scans from a depot (D16) opened after "
        "depots.csv was exported, prep encodes it past the depot table, and the depot embedding lookup raises on both "
        "ranks. evidence: '[rank1]: IndexError: index out of range in self', "
        "'[rank0]: IndexError: index out of range in self'",
    "mlflow-eta-renamed-column":
        f"worker_exception: mlflow run . -e main of the {RUN}; the export renamed distance_km to dist_km, prep's child "
        "run raises KeyError, mlflow.run() raises ExecutionException in the parent and the parent run fails. evidence: "
        "\"KeyError: 'distance_km'\", \"mlflow.exceptions.ExecutionException: Run (ID "
        "'76bd33a5fb864ac484a297e1af26c07d') failed\"",
    "mlflow-eta-augment-oom":
        f"host_oom_killed: {TR} -P augment_copies=4000 inside a cgroup-v1 memory cgroup limited to 1.5 GB; while both "
        "ranks build augmentation copies the kernel OOM killer kills rank 1 (SIGKILL), torchrun stops rank 0 and MLflow "
        "marks the run failed. evidence: '[rank1] augmentation: built 3750 of 4000 copies', "
        "'E1130 19:55:44.260000 21550 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) "
        "local_rank: 1 (pid: 21590) of binary: /tmp/corpus-venv-av-a/bin/python3'",
    "mlflow-eta-artifact-volume":
        f"disk_full: mlflow run -e prep then {TR} with the artifact root ./mlruns on a 160 KB tmpfs; training and the "
        "checkpoints (on another disk) finish, then mlflow.pytorch.log_model fails copying model.pth into the artifact "
        "store. evidence: \"[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmpfa562ci1/model/data/"
        "model.pth' -> '/tmp/waveav-a-job/run/mlruns/0/models/m-15961d7c36ed4d3aa086a24d87e7a658/artifacts/data/"
        "model.pth'\"",
    "mlflow-eta-container-shm":
        f"shm_exhausted: {TR} -P loader_workers=2 in a mount namespace whose /dev/shm is a 32 KB tmpfs (a container's "
        "small shm); creating the DataLoader's multiprocessing semaphore in /dev/shm fails on both ranks. evidence: "
        "'[rank0]: OSError: [Errno 28] No space left on device', "
        "'[rank0]:     self._workers_done_event = multiprocessing_context.Event()'",
    "mlflow-eta-gps-inf":
        f"training_divergence: mlflow run -e prep then {TR}; the export has 3 scans whose GPS distance is 'inf', "
        "prep's normalisation turns the distance feature into NaN and the loss is NaN at the first step; the "
        "finite-loss check stops both ranks. evidence: '[rank0]: FloatingPointError: loss is nan at epoch 1 step 1', "
        "'[rank1]: FloatingPointError: loss is nan at epoch 1 step 1'",
    "mlflow-eta-stopped-rank-wrapper":
        f"silent_hang: timeout 100 {TR} -P step_delay=0.1 -P epochs=8 -P pg_timeout=1800; rank 1 was stopped "
        "(SIGSTOP) at epoch 2 step 10, rank 0 waits in the next all-reduce with a 30-minute gloo timeout, nothing is "
        "printed for about 85 s until the wrapper's timeout sends SIGTERM to mlflow, which passes it on to torchrun. "
        "evidence: '[rank1] epoch 2 step 10 loss 0.0282', 'W1130 19:58:37.147000 22684 torch/distributed/elastic/"
        "agent/server/api.py:753] Received 15 death signal, shutting down workers', 'job exited with 124'",
    "mlflow-eta-rank-paused":
        f"collective_timeout: {TR} -P step_delay=0.1 -P epochs=8 -P pg_timeout=30; rank 1 was stopped (SIGSTOP) at "
        "epoch 2 step 10, rank 0's gloo all-reduce times out after 30 s, torchrun kills the stopped rank and MLflow "
        "marks the run failed. evidence: '[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete'",
    "mlflow-eta-time-limit":
        f"job_preempted: {TR} -P step_delay=0.05 -P epochs=30; at epoch 3 a scheduler-style SIGTERM goes to every "
        "process of the job (mlflow, torchrun, both ranks); torchrun shuts the workers down and the shell reports 143. "
        "evidence: 'W1130 20:00:25.881000 25754 torch/distributed/elastic/agent/server/api.py:753] Received 15 death "
        "signal, shutting down workers', 'job exited with 143', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 25754 got signal: 15'",
    "mlflow-eta-ssh-closed":
        f"terminal_hangup: {TR} -P step_delay=0.05 -P epochs=30 started from an interactive shell; at epoch 2 the "
        "session's process group gets SIGHUP (terminal closed): mlflow and the shell die, torchrun passes SIGHUP to the "
        "ranks and exits with SignalException; no 'job exited' line (the shell itself died). evidence: 'W1130 "
        "20:00:50.853000 26382 torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting "
        "down workers', 'torch.distributed.elastic.multiprocessing.api.SignalException: Process 26382 got signal: 1'",
    "mlflow-eta-batch-config":
        f"batch_size_mismatch: {TR} -P micro_batch=96 with global_batch 256 and grad_accum 2 on 2 ranks; train.py's "
        "global-batch check raises on both ranks and MLflow marks the run failed. evidence: '[rank1]: ValueError: "
        "global batch 256 != micro batch 96 x grad accum 2 x world size 2', \"2026/11/30 20:01:06 ERROR mlflow.cli: "
        "=== Run (ID '9de91bb5828241cda1d35e90f2fe3c2f') failed ===\"",
    "mlflow-eta-notebook-port":
        f"port_in_use: {TR} with master_port 31637 while another process on the host (a python -m http.server left "
        "running) holds that port; torchrun's TCPStore cannot listen and MLflow marks the run failed. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 31637, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use'",
    "mlflow-eta-second-host":
        f"rendezvous_timeout: {TR} -P nnodes=2 -P rdzv_timeout=60 (the config for a two-host run) started on one host "
        "only; the second node's torchrun never joins the static rendezvous and the store times out. evidence: "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 1/2 clients joined.', "
        "\"2026/11/30 20:02:52 ERROR mlflow.cli: === Run (ID '5ffb91fea0ab4615ab4dd53e49a11bdd') failed ===\"",
    "mlflow-eta-hub-loop":
        "native_crash: mlflow run . -e prep (then train) with PYTHONFAULTHANDLER=1 in the job's environment; the "
        "export's depot -> hub links contain a cycle (H0 -> H2 -> H3 -> H0), prep's recursive lru_cache'd region walk "
        "(recursion limit raised to 1,000,000) overflows the C stack and the interpreter dies with SIGSEGV; MLflow "
        "only reports the run as failed. evidence: 'Fatal Python error: Segmentation fault', "
        "'  File \"/tmp/waveav-a-job/run/prep.py\", line 38 in region', "
        "\"2026/11/30 20:03:48 ERROR mlflow.cli: === Run (ID 'e5bee90ecd7a47dab3dd15338167260f') failed ===\"",
    "mlflow-eta-store-volume":
        f"disk_full: {TR} with MLFLOW_TRACKING_URI=sqlite:///store/mlruns.db, the tracking store's directory being a "
        "64 KB volume; MLflow's schema migration fails while creating its tables, before any command runs. evidence: "
        "'sqlite3.OperationalError: database or disk is full', "
        "'sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) database or disk is full'",
}
