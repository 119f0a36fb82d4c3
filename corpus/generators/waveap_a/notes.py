"""What each committed run of wave AP (a) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "shell-stockout-healthy": (
        "launch.sh -p 30501: dask scheduler (dashboard :30502) and dask worker --nworkers 2 --nthreads 1 --memory-limit "
        "1GiB (nannies) on this host, then the client: features with dask.dataframe, the data-parallel numpy MLP "
        "(per-store gradients with client.map, averaged on the driver) for 4 epochs, a checkpoint per epoch, the model "
        "saved; the cluster is stopped with SIGTERM and the workers print CommClosedError tracebacks on the way out "
        "(harmless). evidence: '[driver] epoch 4/4 done in 0.7s: val_auc 0.8254 (5220 rows)', '[driver] saved model "
        "models/stockout_mlp.npz', 'launch.sh: training client exited with 0, stopping the cluster', "
        "'distributed.comm.core.CommClosedError: in <TCP (closed) Worker->Scheduler ...>: Stream is closed', "
        "'job exited with 0'"),
    "shell-stockout-healthy-worker-killed": (
        "launch.sh -p 30503, data-parallel MLP, 6 epochs of 40 steps; in epoch 2 one of the two worker processes is "
        "SIGKILLed from outside; its nanny restarts it, the scheduler recomputes the lost store partitions elsewhere "
        "and training finishes. evidence: 'distributed.nanny - INFO - Worker process 3290 was killed by signal 9', "
        "\"distributed.scheduler - WARNING - Removing worker 'tcp://127.0.0.1:40603' caused the cluster to lose already "
        "computed task(s), which will be recomputed elsewhere\", 'distributed.nanny - WARNING - Restarting worker "
        "(status=Status.running)', '[driver] epoch 6/6 done in 1.3s: val_auc 0.8278 (5220 rows)', '[driver] saved model "
        "models/stockout_mlp.npz', 'job exited with 0'"),
    "shell-stockout-new-listing": (
        "native_crash: launch.sh -p 30505 with --days-cover native (days of cover from the C helper stock.c -> "
        "libstock.so through ctypes, called inside each store's feature task on the workers). store-04's re-export "
        "lists a new item that is stocked but has no sales yet: its daily sales rate is 0 and the helper's recursion "
        "(stock - rate until <= 0) never ends, overflowing the worker thread's stack: every worker process that runs the "
        "task dies with SIGSEGV, the nanny restarts it, and after 4 deaths the scheduler gives up. evidence: "
        "'distributed.nanny - INFO - Worker process 2441 was killed by signal 11', 'distributed.nanny - WARNING - "
        "Restarting worker (status=Status.running)', \"distributed.scheduler - ERROR - Task "
        "('read-_to_string_dtype-store_features-...', 3) marked as failed because 4 workers died while trying to run "
        "it\", 'distributed.scheduler.KilledWorker: Attempted to run task ... on 4 different workers, but all those "
        "workers died while running it.', 'job exited with 1'"),
    "shell-stockout-promo-planner": (
        "worker_exception: launch.sh -p 30507, the dask-ml Incremental trainer; store-02's re-export comes from a new "
        "promo planner that writes a promo code 'bogo'; the feature function's promo-depth lookup raises KeyError in "
        "the worker's task and the client re-raises it with the worker's traceback. evidence: 'distributed.worker - "
        "ERROR - Compute Failed' with Exception: \"KeyError('bogo')\", 'File \"<dynamic-code>\", line 96, in "
        "<lambda>', \"KeyError: 'bogo'\", 'launch.sh: training client exited with 1, stopping the cluster', "
        "'job exited with 1'"),
    "shell-stockout-ssh-closed": (
        "terminal_hangup: launch.sh -p 30509, data-parallel MLP for 60 epochs, run in the foreground of an SSH "
        "session; the session closes in epoch 4 and SIGHUP reaches the job's process group (launch.sh, the "
        "scheduler, the nannies, the workers and the client); nothing handles it and the log just stops, with no "
        "`job exited` line. evidence: '[driver] epoch 3/60 done in 0.8s: val_auc 0.7857 (5220 rows)', '[driver] epoch "
        "4 step 10/20 loss 0.4920' (last line)"),
    "shell-stockout-node-scratch": (
        "disk_full: launch.sh -p 30511 -m 400MiB -l scratch: the workers' local directory (their spill directory) is "
        "node-local scratch, a 16 MB volume already holding 12 MB of earlier runs' archives; a three-year, 120-item "
        "export's features do not fit in 400 MiB per worker, so the workers spill, the spill write fails and the data "
        "stays in memory; the workers pause and resume around 80% memory and the job makes no progress; the user's "
        "Ctrl-C after 75 s. evidence: 'distributed.spill - ERROR - Spill to disk failed; keeping data in memory' (16 "
        "times), 'OSError: [Errno 28] No space left on device', 'distributed.worker.memory - WARNING - Worker is at "
        "80% memory usage. Pausing worker.  Process memory: 323.99 MiB -- Worker memory limit: 400.00 MiB', "
        "'distributed._signals - INFO - Received signal SIGINT (2)', 'KeyboardInterrupt'"),
    "local-stockout-healthy-dashboard-taken": (
        "train_demand.py --local 2 (LocalCluster(processes=True), scheduler port 30530) with --dashboard :30531, "
        "which a colleague's python -m http.server already holds (its console not kept): distributed warns and hosts "
        "the dashboard on another port; the scheduler also warns about a task's run_spec changing between graph "
        "submissions; the dask-ml Incremental SGDClassifier trains 6 epochs and is saved. evidence: 'UserWarning: "
        "Port 30531 is already in use.', 'Hosting the HTTP server on port 33599 instead', 'distributed.scheduler - "
        "WARNING - Detected different `run_spec` for key ...', '[driver] epoch 6/6 train_logloss 0.4323 val_logloss "
        "0.4731 val_auc 0.8299 (0.1s)', '[driver] saved model models/stockout_sgd.joblib', 'job exited with 0'"),
    "local-stockout-hyperband": (
        "library_version_mismatch: train_demand.py --local 2 --trainer search: dask_ml.model_selection."
        "HyperbandSearchCV from dask-ml 2025.1.0 (the newest release) with dask/distributed 2026.8.0 as pip installs "
        "them together; dask-ml's search loop, a coroutine on the client's event loop, calls dask's persist, which "
        "this dask refuses from inside an asynchronous client; the search fails right after creating its models. "
        "evidence: '[CV, bracket=2] creating 9 models', 'File \".../dask_ml/model_selection/_incremental.py\", line "
        "192, in _fit', 'File \".../dask/base.py\", line 1218, in _ensure_not_async', 'RuntimeError: Attempting to "
        "use an asynchronous Client in a synchronous context of `dask.compute`', 'job exited with 1'"),
    "local-stockout-scheduler-port": (
        "port_in_use: a colleague's `dask scheduler --port 30513 --dashboard-address :30514` already runs on the "
        "host (its console not kept); the user's LocalCluster asks for scheduler port 30513 and dashboard :30514: the "
        "dashboard moves to another port with a warning, the scheduler cannot bind and the cluster never starts. "
        "evidence: 'UserWarning: Port 30514 is already in use.', 'OSError: [Errno 98] Address already in use', "
        "'RuntimeError: Scheduler failed to start.', 'RuntimeError: Cluster failed to start: Scheduler failed to "
        "start.', 'job exited with 1'"),
    "local-stockout-assortment-crosses": (
        "host_oom_killed: --cross-item-window 56 (each item's strongest 8-week sales correlation with another item of "
        "the store, computed by broadcasting days x items x items x window) on a two-year, 60-item export, "
        "LocalCluster with --memory-limit 1GiB per worker: each store task needs over 1 GB, the nanny's memory "
        "monitor kills and restarts the worker processes at 95% of the limit, and after 4 deaths per task the "
        "scheduler gives up. evidence: 'distributed.worker.memory - WARNING - Worker is at 91% memory usage. Pausing "
        "worker.', 'distributed.nanny.memory - WARNING - Worker tcp://127.0.0.1:44107 (pid=2796) exceeded 95% memory "
        "budget. Restarting...', 'marked as failed because 4 workers died while trying to run it', "
        "'distributed.scheduler.KilledWorker: Attempted to run task ... on 4 different workers', 'job exited with 1'"),
    "local-stockout-vmi-store": (
        "training_divergence: data-parallel MLP with --balance (stock-out rows weighted by the batch's "
        "negatives/positives); store-05 moved to vendor-managed inventory (the supplier keeps the shelf full), its "
        "re-export has no stock-out at all, so that partition's weight is n/0 = inf and 1 + (inf - 1) * 0 = nan; the "
        "averaged loss is nan at the first step and the script stops. evidence: '<dynamic-code>:239: RuntimeWarning: "
        "divide by zero encountered in scalar divide', '<dynamic-code>:240: RuntimeWarning: invalid value encountered "
        "in multiply', '[driver] epoch 1 step 1/20 loss nan', 'FloatingPointError: non-finite loss nan at step 1', "
        "'job exited with 1'"),
    "local-stockout-node-reclaimed": (
        "job_preempted: LocalCluster run of the data-parallel MLP (60 epochs); in epoch 4 the node is reclaimed and "
        "SIGTERM reaches the driver process (which holds the scheduler and the nannies); Python's default SIGTERM "
        "action ends it at once. evidence: '[driver] epoch 4 step 35/40 loss 0.4645', 'Terminated', 'job exited with "
        "143', 'resource_tracker: There appear to be 12 leaked semaphore objects to clean up at shutdown'"),
    "local-stockout-store-backtest": (
        "silent_hang: --store-report: after each epoch a per-store backtest task runs on the workers and, from inside "
        "the task, submits one subtask per item with get_client() and waits for them with client.gather; the 6 store "
        "tasks occupy both workers' only threads (--nthreads 1) and the item subtasks can never run: a deadlock with "
        "no message; after 90 s of silence the user presses Ctrl-C (the driver's KeyboardInterrupt in "
        "client.gather) and 20 s later kills what is left. evidence: '[driver] epoch 1/4 done in 0.6s: val_auc 0.6627 "
        "(5220 rows)' (then nothing for 90 s), 'File \"/tmp/waveap-a-job/run/train_demand.py\", line 348, in "
        "train_dp', 'KeyboardInterrupt', 'Process Dask Worker process (from Nanny):'"),
    "hosts-stockout-healthy-late-worker": (
        "two hosts: node 0 runs launch.sh -p 30527 -n 1 (scheduler, one worker, the client waiting for 2 workers, "
        "timeout 120 s); node 1's `dask worker` is started by hand 25 s later; the data-parallel MLP with one "
        "ShardTrainer actor per worker trains 5 epochs; node 0's console kept. evidence: '[driver] waiting for 2 "
        "workers (timeout 120s)', 'distributed.scheduler - INFO - Register worker addr: tcp://127.0.0.1:35331', "
        "'[driver] saved model models/stockout_mlp.npz', 'launch.sh: training client exited with 0, stopping the "
        "cluster', 'job exited with 0'"),
    "hosts-stockout-host-lost": (
        "peer_process_died: two hosts (node 0: launch.sh -p 30520 -n 1 with the client; node 1: dask worker), the "
        "data-parallel MLP with one ShardTrainer actor per worker holding its stores; in epoch 11 everything on host 1 "
        "(dask worker, nanny, worker process) is SIGKILLed at once; only node 0's console is kept: the scheduler's "
        "connection to the worker is reset and the driver's next call to that worker's actor fails. evidence: "
        "'distributed.scheduler - ERROR - broadcast to tcp://127.0.0.1:33891 failed: CommClosedError: ... "
        "ConnectionResetError: [Errno 104] Connection reset by peer', \"Removing worker 'tcp://127.0.0.1:33891' caused "
        "the cluster to lose already computed task(s)\", \"OSError: Unable to contact Actor's worker\", "
        "'launch.sh: training client exited with 1, stopping the cluster', 'job exited with 1'"),
    "hosts-stockout-old-runbook": (
        "rendezvous_timeout: two hosts: node 0 runs launch.sh -p 30522 -n 1 (scheduler, one worker) and the client "
        "waits for 2 workers with a 90 s timeout; host 1's worker is started from an old runbook with the scheduler "
        "address tcp://127.0.0.1:30524, where nothing listens; it gives up after distributed's 30 s connect timeout "
        "and node 0's client times out waiting for it; both consoles kept. evidence: node0 '[driver] waiting for 2 "
        "workers (timeout 90s)', 'distributed.exceptions.WorkerStartTimeoutError: Only 1/2 workers arrived after "
        "90.0', 'launch.sh: training client exited with 1, stopping the cluster', 'job exited with 1'; node1 "
        "'ConnectionRefusedError: [Errno 111] Connection refused', 'OSError: Timed out trying to connect to "
        "tcp://127.0.0.1:30524 after 30 s', 'RuntimeError: Nanny failed to start.', 'job exited with 1'"),
    "local-stockout-container-shm": (
        "shm_exhausted: the job runs in a container whose /dev/shm (64 MB, a private tmpfs in a new mount namespace) "
        "is already full of segments earlier jobs left there; the LocalCluster's nannies create their worker "
        "processes' multiprocessing queues, whose semaphores live in /dev/shm, and fail: no worker starts. evidence: "
        "'distributed.nanny - ERROR - Failed to start process', 'File \".../multiprocessing/synchronize.py\", line "
        "57, in __init__', 'OSError: [Errno 28] No space left on device', 'RuntimeError: Nanny failed to start.', "
        "'job exited with 1'"),
    "shell-stockout-pilot-stores": (
        "worker_exception: launch.sh -p 30515 with 2 workers, the data-parallel MLP with one ShardTrainer actor per "
        "worker (--shards actors) on a pilot export with a single store: the second actor holds no store and its "
        "grad() indexes the first of zero partial results: IndexError raised in the actor on the worker and re-raised "
        "by the driver's ActorFuture.result(). evidence: '[driver] 2 ShardTrainer actors: tcp://127.0.0.1:38845 (1 "
        "stores), tcp://127.0.0.1:46609 (0 stores)', 'File \"/tmp/corpus-venv-ap-a/lib/python3.11/site-packages/"
        "distributed/worker.py\", line 2926, in _run_actor', 'File \"<dynamic-code>\", line 282, in grad', "
        "'IndexError: list index out of range', 'job exited with 1'"),
    "hosts-stockout-team-env": (
        "two hosts (30525): host 1's shell exports PYTHONPATH with the team's site directory (dask/distributed "
        "2024.12.1) before `dask worker`, host 0 runs 2026.8.0. The old worker registers with a 'Mismatched versions "
        "found' table, cannot unpickle the first task the scheduler sends and closes; node 0's client carries on with "
        "its own worker and finishes (the job did not fail: relabelled no_failure); both consoles kept. evidence: "
        "node1 'distributed.worker - WARNING - Mismatched versions found', '| distributed | 2024.12.1 | 2026.8.0 | "
        "...', '_pickle.UnpicklingError: state is not a dictionary', 'distributed.protocol.core - CRITICAL - Failed "
        "to deserialize', 'Reason: worker-handle-scheduler-connection-broken'; node0 '[driver] 6 store partitions on "
        "1 workers', '[driver] saved model models/stockout_mlp.npz', 'job exited with 0'"),
}
