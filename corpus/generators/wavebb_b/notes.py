"""Manifest notes for wave BB (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("JAX multi-controller on CPU: the team's launch.sh starts 'python train.py --coordinator 127.0.0.1:P "
     "--num-processes 2 --process-id i' for i in 0 1, jax.distributed.initialize + gloo CPU collectives, jit train "
     "step on a global batch sharded over a 1-D mesh of both processes' devices, flax MLP, optax AdamW, orbax "
     "CheckpointManager (jax 0.10.2, flax 0.12.8, optax 0.2.8, orbax-checkpoint 0.12.8); bike-share station demand "
     "forecaster (rentals per station per hour)")
NOTES = {
    "jax-bikes-healthy": (
        f"no_failure: {W}, 3 epochs; both processes train, validate and save an orbax checkpoint every epoch. "
        "evidence: '13:40:44 proc0 INFO finished 3 epochs', 'job exited with 0'"),
    "jax-bikes-healthy-garbled-feed": (
        f"no_failure: {W}; 3 rows of the dock export carry rentals 'n/a'; process 0 logs each at ERROR and drops it, "
        "training succeeds. evidence: \"13:40:48 proc0 ERROR row 1624 (riverside hour 6): could not convert string "
        "to float: 'n/a', dropped\", '13:41:07 proc0 INFO finished 3 epochs', 'job exited with 0'"),
    "jax-bikes-healthy-resume": (
        f"no_failure: {W}; after an earlier 2-epoch run (not in this log), '--epochs 4 --resume': both processes "
        "restore the latest orbax step (74) and train epochs 3-4. evidence: '13:41:35 proc0 INFO resumed from "
        "/tmp/wavebb-b-job/run/checkpoints/74 (epoch 2, step 74)', '13:41:46 proc0 INFO finished 4 epochs', "
        "'job exited with 0'"),
    "jax-bikes-healthy-rerun-done": (
        f"no_failure: {W}; rerun of a finished 2-epoch run with '--epochs 2 --resume': the checkpoint is restored, no "
        "step is left, the job ends at once. evidence: '13:42:12 proc1 INFO resumed from "
        "/tmp/wavebb-b-job/run/checkpoints/74 (epoch 2, step 74)', '13:42:12 proc0 INFO finished 2 epochs', "
        "'job exited with 0'"),
    "jax-bikes-healthy-late-coordinator": (
        f"no_failure: {W}; two launches as on two hosts: the process-1 host's 'LOCAL_IDS=1 ./launch.sh' started 12 s "
        "before the coordinator host's 'LOCAL_IDS=0 ./launch.sh'; process 1's client waits for the service (no "
        "error), then both train 3 epochs. evidence: '13:42:15 proc1 INFO Connecting to JAX distributed service on "
        "127.0.0.1:29956', '13:42:32 proc0 INFO Starting JAX distributed service on [::]:29956', '13:43:01 proc0 INFO "
        "finished 3 epochs', 'job exited with 0'"),
    "jax-bikes-renamed-column": (
        f"worker_exception: {W}; the dock export's column rentals_1h was renamed 'rentals'; load_rows raises KeyError "
        "on both processes before training. evidence: \"KeyError: 'rentals_1h'\", '  File "
        "\"/tmp/wavebb-b-job/run/train.py\", line 89, in load_rows', 'launch.sh: process 10136 exited with code 1', "
        "'job exited with 1'"),
    "jax-bikes-cli-typo": (
        f"worker_exception: {W}; the command line says '--ckpt_dir checkpoints' (the script takes '--ckpt-dir'); "
        "argparse rejects it on both processes, exit 2. evidence: 'train.py: error: unrecognized arguments: --ckpt_dir "
        "checkpoints', 'launch.sh: process 10587 exited with code 2', 'job exited with 2'"),
    "jax-bikes-augment-oom": (
        f"host_oom_killed: {W}; '--cache-copies 6000' (jittered copies of the train set kept as device arrays, i.e. "
        "XLA CPU buffers) in a 1 GB cgroup-v1 memory cgroup; the kernel OOM killer kills both processes while the "
        "cache is built (dmesg: 'Memory cgroup out of memory: Killed process ... (python)'); no Python error. "
        "evidence: './launch.sh: line 17: 10619 Killed                  $PYTHON train.py --coordinator "
        "\"$COORDINATOR\" --num-processes \"$NUM_PROCESSES\" --process-id \"$i\" \"$@\"', 'launch.sh: process 10619 "
        "exited with code 137', 'job exited with 137'"),
    "jax-bikes-ckpt-volume": (
        f"disk_full: {W}; checkpoints/ is a 64 KiB tmpfs; the first orbax save (step 37, after epoch 1) fails in "
        "orbax's background threads (tensorstore OCDBT write RESOURCE_EXHAUSTED on process 0, Errno 28 on process "
        "1), wait_until_finished re-raises on both. evidence: '13:43:41 proc1 ERROR "
        "[process=1][thread=array_type_handler][operation_id=1] _SignalingThread.run() raised an exception: [Errno 28] "
        "No space left on device', 'OSError: [Errno 28] No space left on device', '13:43:41 proc0 ERROR "
        "[process=0][thread=MainThread][step=37][wait_until_finished] Save Finalize thread (save_finalize) failed.', "
        "'launch.sh: process 10970 exited with code 1', 'job exited with 1'"),
    "jax-bikes-dock-reset": (
        f"training_divergence: {W}; a firmware update reset market-st's dock count to 0 from day 20; the dock fill "
        "ratio bikes/docks becomes inf/nan, the loss is nan at the first logged step and the trainer's finite-loss "
        "check raises on both processes. evidence: '13:43:53 proc0 INFO epoch 1 step 10 loss nan', "
        "'FloatingPointError: loss is nan at epoch 1 step 10', 'launch.sh: process 11412 exited with code 1', "
        "'job exited with 1'"),
    "jax-bikes-dock-reset-debug-nans": (
        f"training_divergence: {W}; the same dock-count reset run with '--debug-nans' (jax_debug_nans): the first "
        "train step's jitted output has nan, JAX reruns it de-optimized and raises FloatingPointError at the first "
        "Dense layer on both processes. evidence: 'Invalid nan value encountered in the output of a jax.jit "
        "function. Calling the de-optimized version.', 'FloatingPointError: invalid value (nan) encountered in "
        "dot_general', 'launch.sh: process 11575 exited with code 1', 'job exited with 1'"),
    "jax-bikes-proc-sigkill": (
        f"host_oom_killed: {W}, 6 epochs; process 1 SIGKILLed from outside in epoch 2 (kill -9, no OOM); process "
        "0's next gloo all-reduce fails with a connection reset (JaxRuntimeError at float(loss)); at exit its shutdown "
        "barrier waits for the heartbeat timeout (100 s), the coordination service declares task 1 unhealthy and the "
        "JAX client aborts process 0 (134). evidence: 'jax.errors.JaxRuntimeError: INTERNAL: Error dispatching computation: Error dispatching computation: Error dispatching computation: Error dispatching computation: Error dispatching computation: Error dispatching computation: Error dispatching computation: Error dispatching computation: Gloo all-reduce failed: [external/gloo/gloo/transport/tcp/pair.cc:538] Read error [127.0.0.1]:5559: Connection reset by peer', 'E1201 13:45:59.227143   12172 coordination_service.cc:1549] [6843905122394270106] Use error polling to propagate the following error to all tasks: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):', "
        "'launch.sh: process 12066 exited with code 137', 'launch.sh: process 12065 exited with code 134', "
        "'job exited with 134'"),
    "jax-bikes-overflow-loop": (
        f"native_crash: {W}; market-st and central-stn recorded as overflowing into each other; the lru_cache "
        "recursion that finds a station's overflow hub never ends (recursion limit raised to 1e6) and overflows the "
        "C stack: SIGSEGV in both processes before training, no Python traceback. evidence: './launch.sh: line 17: 16989 Segmentation fault      $PYTHON train.py --coordinator \"$COORDINATOR\" --num-processes \"$NUM_PROCESSES\" --process-id \"$i\" \"$@\"', "
        "'launch.sh: process 16990 exited with code 139', 'job exited with 139'"),
    "jax-bikes-stopped-proc": (
        f"collective_timeout: {W}, 6 epochs, '--heartbeat-timeout 15'; process 1 SIGSTOPped in epoch 2 (the step's "
        "gloo all-reduce on process 0 never completes); after 15 s without heartbeats the coordination service marks "
        "task 1 unhealthy and the JAX client aborts process 0 (134); launch.sh keeps waiting on the stopped process 1, "
        "the job hangs until the harness ends it after 90 s (no 'job exited' line). evidence: '13:46:38 proc1 INFO "
        "epoch 2 step 50 loss 0.3306', 'E1201 13:46:51.694597   17306 coordination_service.cc:1549] [5077947807374518457] Use error polling to propagate the following error to all tasks: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):', '1', 'launch.sh: process 17146 exited with code 134'"),
    "jax-bikes-node-drain": (
        f"job_preempted: {W}, 8 epochs; SIGTERM to the job's whole process group in epoch 2 (a node drain): the "
        "launching shell dies (no 'job exited' line), launch.sh's trap forwards TERM, JAX's preemption notifier "
        "catches it in both processes, they reach the preemption sync point, save a checkpoint at step 50 and exit. "
        "evidence: 'launch.sh: caught signal, stopping processes 19322 19323', 'W1201 13:48:04.066928   19597 "
        "preemption_notifier.cc:90] SIGTERM caught at 2026-12-01T13:48:04.0669264+00:00', '13:48:04 proc0 WARNING "
        "[process=0][thread=MainThread] Reached preemption sync point, step=50', '13:48:04 proc0 WARNING preemption "
        "notice at step 50 (epoch 2): checkpoint saved, exiting'"),
    "jax-bikes-ci-budget": (
        f"job_preempted: {W}, 12 epochs; the launch is wrapped in 'timeout 30' (the nightly CI entry's time budget); "
        "in epoch 5 timeout sends SIGTERM to launch.sh, whose trap forwards it; JAX's preemption notifier catches it, "
        "both processes save a checkpoint at step 155 and exit; the shell reports 124. evidence: 'launch.sh: caught "
        "signal, stopping processes 19854 19855', 'W1201 13:48:35.789772   20040 preemption_notifier.cc:90] SIGTERM "
        "caught at 2026-12-01T13:48:35.789770603+00:00', '13:48:36 proc0 WARNING preemption notice at step 155 "
        "(epoch 5): checkpoint saved, exiting', 'job exited with 124'"),
    "jax-bikes-notebook-port": (
        f"port_in_use: {W}, '--init-timeout 60'; a 'python -m http.server 29968' left running holds the coordinator "
        "port; process 0 cannot bind the JAX distributed service's gRPC server and segfaults right after the bind "
        "error (139); process 1 connects to the port (the http server), its RegisterTask hits the 60 s deadline and "
        "the JAX client aborts it (134). evidence: \"E1201 13:48:40.630693   20917 add_port.cc:83] Failed to add port "
        "to server: No address added out of total 1 resolved for '[::]:29968'\", 'launch.sh: process 20917 exited "
        "with code 139', 'RPC: /xla.coordination.CoordinationService/RegisterTask', 'launch.sh: process 20918 exited "
        "with code 134', 'job exited with 139'"),
    "jax-bikes-second-host": (
        f"rendezvous_timeout: {W}; launched as the coordinator host only ('LOCAL_IDS=0', num_processes 2, "
        "'--init-timeout 40'); process 1's host was never started; process 0's RegisterTask call to the coordination "
        "service hits its deadline and the JAX client aborts the process (exit 134). evidence: 'F1201 "
        "13:39:48.112366    3137 client.h:80] Terminating process because the JAX distributed service detected "
        "fatal errors. This most likely indicates that another task died; see the other task logs for more details. "
        "Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: "
        "DEADLINE_EXCEEDED: Deadline Exceeded', 'RPC: /xla.coordination.CoordinationService/RegisterTask', "
        "'launch.sh: process 3137 exited with code 134', 'job exited with 134'"),
    "jax-bikes-new-station": (
        f"collective_mismatch: {W}; '--station-weights' with a station opened on the last day (one row, only on one "
        "process's share): process 1's per-station bincount has 11 entries and process 0's 10, and "
        "multihost_utils.process_allgather sends buffers of different sizes; gloo's enforce fails on one process "
        "(std::terminate), the coordination service then ends the other; both abort. evidence: \"terminate called "
        "after throwing an instance of 'gloo::EnforceNotMet'\", '  what():  [enforce fail at "
        "external/gloo/gloo/transport/tcp/pair.cc:459] op.preamble.length <= op.nbytes. 22 vs 20. Received data size "
        "doesn't match expected size. Is there a distributed collective mismatch in your code?', 'launch.sh: process "
        "7948 exited with code 134', 'job exited with 134'"),
    "jax-bikes-odd-batch": (
        f"batch_size_mismatch: {W}; '--batch-size 127' (global batch) with 2 processes: each process contributes 63 "
        "rows and make_array_from_process_local_data cannot shard a global batch of 127 over the 2-device 'data' "
        "axis; IndivisibleError on both processes at the first step. evidence: \"jax._src.sharding.IndivisibleError: "
        "Sharding NamedSharding(mesh=Mesh('data': 2, axis_types=(Auto,)), spec=P('data',), memory_kind=device) implies "
        "that array axis 0 is partitioned 2 times, but the dimension size is 127 (full shape: (127, 31), "
        "per-dimension tiling factors: [2, 1] should evenly divide the shape)\", 'launch.sh: process 8093 exited with "
        "code 1', 'job exited with 1'"),
    "jax-bikes-ema-old-api": (
        f"library_version_mismatch: {W}; '--ema-decay 0.99' turns on the team's weight-EMA helper, written for an "
        "older JAX with jax.tree_map, which JAX deprecated in 0.4.26 and later removed; the installed jax "
        "0.10.2 has no such attribute: AttributeError on both processes at the first step. evidence: \"AttributeError: "
        "module 'jax' has no attribute 'tree_map'\", 'launch.sh: process 8198 exited with code 1', "
        "'job exited with 1'"),
}
