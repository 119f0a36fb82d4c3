"""What each committed run of wave AO (a) showed: the manifest row's note, with the evidence lines quoted."""

NOTES = {
    "cluster-lr-healthy": (
        "spark-submit --master local-cluster[2,1,1024] (two executor JVMs), MLlib LogisticRegression on SCADA window "
        "features; a healthy run with Spark's usual start-up warnings and a FileNotFoundException stack trace from "
        "FileStreamSink's metadata probe of the glob path, which is harmless. evidence: 'WARN FileStreamSink: Assume "
        "no metadata directory. Error while looking for metadata directory in the path: data/scada/*.csv.', "
        "'validation AUC 0.9883 PR-AUC 0.9457', 'saved model to models/fault_lr', 'job exited with 0'"),
    "cluster-gbt-healthy-port-taken": (
        "local-cluster GBTClassifier (30 trees); a colleague's python -m http.server holds the spark.driver.port "
        "given (30403); Spark retries the next port (spark.port.maxRetries) and the run finishes normally. evidence: "
        "\"WARN Utils: Service 'sparkDriver' could not bind on port 30403. Attempting port 30404.\", 'validation AUC "
        "0.9815 PR-AUC 0.9282', 'saved model to models/fault_gbt', 'job exited with 0'"),
    "cluster-gbt-firmware-update": (
        "local-cluster GBT; turbine T05 was re-exported after a controller firmware update that writes a new status "
        "code (ICE-DERATE); the operating-flag Python UDF looks the code up in a dict and raises KeyError in the "
        "Python worker; the task fails 4 times and the stage is aborted (then local-cluster's shutdown noise). "
        "evidence: 'WARN TaskSetManager: Lost task 4.0 in stage 8.0 (TID 15) (192.0.2.2 executor 0): "
        "org.apache.spark.api.python.PythonException', \"KeyError: 'ICE-DERATE'\", 'ERROR TaskSetManager: Task 4 in "
        "stage 8.0 failed 4 times; aborting job', 'job exited with 1'"),
    "cluster-lr-node-scratch": (
        "local-cluster LogisticRegression with spark.local.dir on a node-local scratch volume (a 3 MB tmpfs already "
        "holding 2.6 MB of earlier runs' archives); the shuffle write of the repartition by turbine fails with ENOSPC "
        "on the executors, 4 task failures abort the job. evidence: 'DiskBlockManager: Created local directory at "
        "/tmp/waveao-a-job/run/scratch/blockmgr-...', 'WARN TaskSetManager: Lost task 1.0 in stage 2.0 (TID 8) "
        "(192.0.2.2 executor 0): java.io.IOException: No space left on device', 'Task 1 in stage 2.0 failed 4 times; "
        "aborting job', 'job exited with 1'"),
    "ddp-turbine-embedding": (
        "TorchDistributor(num_processes=2, local_mode=False) on local-cluster, gloo DDP; --turbine-embedding 4 sizes "
        "the embedding from the turbines each process reads, and turbine 12 is missing from this export (11 files), "
        "so rank 0 has 6 turbines and rank 1 has 5: DDP's parameter-shape check fails on rank 1 and rank 0's "
        "broadcast sees the connection closed. evidence: '[rank1]: RuntimeError: [1]: params[0] in this process with "
        "sizes [5, 4] appears not to match sizes of the same param in process 0.', '[rank0]: RuntimeError: "
        "[.../gloo/transport/tcp/pair.cc:553] Connection closed by peer', 'job exited with 1'"),
    "ddp-saturated-sensor": (
        "TorchDistributor gloo DDP; turbine T03 was re-exported with saturated vibration readings written as Inf (1%); "
        "Spark parses them as +Infinity, the window means become inf and the all-reduced standardisation statistics "
        "turn every input NaN: the loss is NaN at the first step and the script's finiteness check raises on both "
        "ranks. evidence: '[rank0]: FloatingPointError: loss is nan at epoch 1 step 1 on rank 0', "
        "'failed (exitcode: 1) local_rank: 0', 'job exited with 1'"),
    "ddp-loader-workers": (
        "TorchDistributor gloo DDP with --loader-workers 2 (DataLoader worker processes hand batches back through "
        "/dev/shm); the job runs in a container-sized /dev/shm (a private 256 KB tmpfs); the workers cannot allocate "
        "the shared-memory segment for a batch and the main process re-raises it. evidence: '[rank0]: RuntimeError: "
        "unable to allocate shared memory(shm) for file </torch_9265_154826933_1>: No space left on device (28)', "
        "'[rank0]: RuntimeError: Caught RuntimeError in DataLoader worker process 0.', 'job exited with 1'"),
    "ddp-ssh-closed": (
        "TorchDistributor gloo DDP for 40 epochs started from an interactive shell; two seconds after epoch 2 (by "
        "then at epoch 10) the terminal session closes and SIGHUP goes to the job's process group (spark-submit's JVM, the Python driver, the executors "
        "started by local-cluster's workers and their torchrun children): everything dies at once, nothing is "
        "printed and the shell never reaches its 'job exited' line; the log just stops. evidence: 'epoch 9 train loss "
        "0.0520 valid AUC 0.9896 [0.2s]', 'saved checkpoint /tmp/waveao-a-job/run/models/checkpoint-epoch9.pt' (last "
        "line), no 'Finished distributed training', no 'job exited'"),
    "cluster-mlp-time-limit": (
        "local-cluster MultilayerPerceptronClassifier (300 l-bfgs iterations); 8 s into the fit the scheduler's time "
        "limit sends SIGTERM to the job's whole process group (spark-submit's JVM with the in-process master and "
        "workers, the Python driver, both executor JVMs): the executors exit 143, the workers try to relaunch "
        "executors while the JVM is already shutting down, and the shell is gone before its 'job exited' line. "
        "evidence: 'fitting MultilayerPerceptronClassifier on 8 partitions', 'ERROR TaskSchedulerImpl: Lost executor 0 "
        "on 192.0.2.2: Command exited with code 143', 'ERROR Worker: Failed to launch executor ... "
        "java.lang.IllegalStateException: Shutdown hooks cannot be modified during shutdown.', no fit result, no "
        "'job exited'"),
    "ddp-healthy": (
        "spark-submit on local-cluster: Spark writes the window features as parquet, then TorchDistributor("
        "num_processes=2, local_mode=False, use_gpu=False) runs the gloo DDP training in a barrier stage (one torchrun "
        "node per task), 5 epochs; healthy, with the start-up warnings and FileStreamSink's harmless stack trace. "
        "evidence: 'Started distributed training with 2 executor processes', 'epoch 5 train loss 0.0589 valid AUC "
        "0.9900 [0.2s]', 'saved model /tmp/waveao-a-job/run/models/turbine_fault.pt', 'Finished distributed training "
        "with 2 executor processes', 'job exited with 0'"),
    "cluster-lr-normal-behaviour": (
        "local-cluster LogisticRegression with --similarity: groupBy('turbine').applyInPandas computes every "
        "reading's distance to every other reading of its turbine (an n x n x 4 float64 broadcast); with a 60-day "
        "export (8640 readings per turbine) that is ~2.4 GB per Python worker, and the job runs in a 2.5 GB memory "
        "cgroup (driver and executor JVMs included): the kernel OOM killer SIGKILLs the Python workers (dmesg: "
        "'Memory cgroup out of memory: Killed process ... (python3)'), Spark sees them crash and aborts the stage "
        "after 4 attempts. evidence: \"WARN TaskSetManager: Lost task 1.0 in stage 5.0 (TID 11) (192.0.2.2 executor "
        "0): org.apache.spark.SparkException: Python worker exited unexpectedly (crashed).\", 'ERROR TaskSetManager: "
        "Task 1 in stage 5.0 failed 4 times; aborting job', 'job exited with 1'"),
    "cluster-lr-vibration-kurtosis": (
        "local-cluster LogisticRegression with --vib-kurtosis 144 (a day of readings): a pandas UDF calls the plant "
        "engineers' C helper libkurt.so (shipped with --files) through ctypes; the helper copies each trailing window "
        "into a fixed 96-double stack buffer, so a 144-reading window overruns it and the Python worker dies with "
        "SIGSEGV; spark.python.worker.faulthandler.enabled puts the worker's faulthandler dump in the task error; 4 "
        "failures abort the stage. evidence: \"WARN TaskSetManager: Lost task 3.0 in stage 8.0 (TID 14) (192.0.2.2 "
        "executor 1): org.apache.spark.SparkException: Python worker exited unexpectedly (crashed): Fatal Python "
        "error: Segmentation fault\", 'File \"/tmp/waveao-a-job/run/train_mllib.py\", line 51 in vib_kurtosis', "
        "'ERROR TaskSetManager: Task 3 in stage 8.0 failed 4 times; aborting job', 'job exited with 1'"),
    "cluster-lr-team-site": (
        "local-cluster LogisticRegression with --similarity (applyInPandas, Arrow-based) and "
        "spark.executorEnv.PYTHONPATH pointing the executors at the team's shared site directory, which holds "
        "pyarrow 12.0.1 (built against NumPy 1.x); the executors' Python workers import that pyarrow with numpy 2.4 "
        "and fail, 4 failures abort the stage (the driver's own pyarrow 26 is fine). evidence: 'File "
        "\"/tmp/waveao-a-job/site-packages/pyarrow/__init__.py\", line 65, in <module>', 'ImportError: "
        "numpy.core.multiarray failed to import', 'ERROR TaskSetManager: Task 3 in stage 2.0 failed 4 times; "
        "aborting job', 'job exited with 1'"),
    "standalone-lr-healthy-late-workers": (
        "cluster.sh: a standalone master started with spark-class ...deploy.master.Master on 30430, the two "
        "spark-class ...deploy.worker.Worker processes starting 25 s later (slow nodes), spark-submit --master "
        "spark://127.0.0.1:30430 submitted 3 s after the master; the first stage waits for executors and Spark warns, "
        "then the workers register and the LogisticRegression run finishes normally. evidence: 'WARN "
        "TaskSchedulerImpl: Initial job has not accepted any resources; check your cluster UI to ensure that workers "
        "are registered and have sufficient resources', 'validation AUC 0.9883 PR-AUC 0.9457', 'saved model to "
        "models/fault_lr', 'job exited with 0'"),
    "cluster-mlp-healthy-executor-lost": (
        "local-cluster MultilayerPerceptronClassifier (120 l-bfgs iterations); 6 s into the fit one executor JVM "
        "(CoarseGrainedExecutorBackend, executor 1) is SIGKILLed from outside; Spark loses its tasks and shuffle "
        "output, the worker starts a new executor, the map stage is recomputed and the fit finishes: a healthy run "
        "with scary lines. evidence: 'ERROR TaskSchedulerImpl: Lost executor 1 on 192.0.2.2: Command exited with code "
        "137', 'FetchFailed(null, shuffleId=2, ...) org.apache.spark.shuffle.MetadataFetchFailedException: Missing an "
        "output location for shuffle 2 partition 2', 'fit done in 51.8s', 'validation AUC 0.9912 PR-AUC 0.9680', 'saved model to "
        "models/fault_mlp', 'job exited with 0'"),
    "ddp-alarm-report": (
        "TorchDistributor gloo DDP on a 60-day export (188 steps per epoch) with --fault-report (rank 0's per-turbine "
        "false-alarm report, a quadratic Python loop, before the validation all-gather) and --dist-timeout 60; the "
        "report took about 20 s per epoch, within the timeout, so rank 1 waited and the run finished. The validation "
        "AUC prints as nan because the last 4 days of this export hold no pre-fault readings (one class only): "
        "alarming but not a failure. evidence: '  alarm report T11: 374 alarm readings, 48 false-alarm readings', "
        "'epoch 1 train loss 0.1246 valid AUC nan [24.5s]', 'saved model /tmp/waveao-a-job/run/models/"
        "turbine_fault.pt', 'Finished distributed training with 2 executor processes', 'job exited with 0'"),
    "ddp-alarm-report-tight": (
        "TorchDistributor gloo DDP on a 60-day export with --fault-report (rank 0's per-turbine false-alarm report, a "
        "quadratic Python loop taking ~20 s per epoch, run before the validation all-gather) and --dist-timeout 10 (a "
        "fail-fast process-group timeout): rank 1 reaches the all-gather first and gloo gives up after 10 s while "
        "rank 0 is still printing its report; rank 1's torchrun fails and the barrier stage with it. evidence: "
        "'  alarm report T03: 195 alarm readings, 0 false-alarm readings', '[rank1]: RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 10000ms for send operation to complete', "
        "'failed (exitcode: 1) local_rank: 0', 'job exited with 1'"),
}
