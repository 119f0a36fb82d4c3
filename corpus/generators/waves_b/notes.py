"""What each committed run of wave S set B showed: the manifest rows' notes (written after the runs)."""

NOTES = {
    "mpspawn-kge-complex-healthy":
        "ComplEx link prediction (synthetic encyclopedic KG, 7035 train triples, 1964 entities, 12 relations) under "
        "torch.multiprocessing.spawn, 2 ranks, gloo, DDP + Adagrad, 10 epochs; filtered dev MRR rises every epoch, "
        "test MRR reported, all ranks finish. Healthy. evidence: '[rank 0] epoch 10: dev MRR 0.3070 hits@1 0.205 "
        "hits@10 0.510 (600 triples)', '[rank 0] test MRR 0.2905 (600 triples)', 'all ranks finished', "
        "'job exited with 0'",
    "mpspawn-kge-logsigmoid-by-hand-wide-uniform-init":
        "ComplEx under mp.spawn (2 ranks) with the loss written as -log(sigmoid(x)) instead of F.logsigmoid and a "
        "RotatE-style wide uniform initialisation (uniform(3.0), lr 0.5): initial scores of +-100 underflow "
        "sigmoid to 0 in float32, log(0) = -inf and the gradient is NaN from the first step; the weights become NaN "
        "and training keeps running uselessly (NaN scores make every filtered rank 1, so dev MRR reads a "
        "meaningless 1.0). Cause: numerical divergence. evidence: 'ComplEx dim 32: ... Adagrad lr 0.5, ... init "
        "uniform(3.0)', '[rank 0] epoch 1 step 2: loss nan', 'epoch 1: train loss nan', 'epoch 1: dev MRR 1.0000 "
        "hits@1 1.000 hits@10 1.000', 'job exited with 0'",
    "mpspawn-kge-rank0-python-filtered-eval":
        "ComplEx under mp.spawn (2 ranks, process-group timeout 30 s) with --eval-python: after each epoch rank 0 "
        "alone scores the 600 dev triples with a pure-Python filter scan (every candidate checked against a list "
        "of all known triples) while rank 1 waits in dist.barrier(); the scan takes far longer than 30 s, so rank "
        "1's barrier times out and mp.spawn tears the job down. Cause: a collective that never completed because "
        "rank 0 did long extra work. evidence: '[rank 0] epoch 1: filtered evaluation on 600 dev triples (rank 0)', "
        "'Process 1 terminated with the following error', 'dist.barrier()', 'RuntimeError: "
        "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', "
        "'job exited with 1'",
    "mpspawn-kge-hogwild-share-memory-container-shm":
        "Hogwild ComplEx training (one model shared by 2 mp.spawn workers via model.share_memory()) in a container "
        "whose /dev/shm is 64 MiB; the entity table is sized with room for 300000 entities from the nightly ingest "
        "(74 MiB), so moving it to shared memory fails before the workers start. Cause: shared memory too small. "
        "evidence: 'tmpfs 64M 0 64M 0% /dev/shm', 'hogwild: 301964 entity rows x 64 (74 MiB), sharing the model "
        "with 2 workers', 'model.share_memory()' frame 'share_memory_' / '_share_fd_cpu_', 'RuntimeError: unable to "
        "allocate shared memory(shm) for file </torch_...>: No space left on device (28)', 'job exited with 1'",
    "mpspawn-kge-projector-export-small-volume":
        "ComplEx under mp.spawn (2 ranks); rank 0 exports the entity embeddings as TSV (vectors + metadata) for the "
        "embedding projector after every epoch into a 4 MiB report volume, and writes every epoch's files; after a "
        "few epochs the volume is full and the write fails, mp.spawn then stops rank 1. Cause: disk full. "
        "evidence: 'tmpfs 4.0M ... /report' (df), '[rank 0] epoch N: projector export .../report/projector/"
        "vectors-epochNN.tsv', 'Process 0 terminated with the following error', 'export_projector', "
        "'OSError: [Errno 28] No space left on device', 'job exited with 1'",
    "mpspawn-kge-negative-pool-refresher-fork-loader":
        "ComplEx under mp.spawn (2 ranks) reading batches through a DataLoader with 2 workers started with "
        "multiprocessing_context='fork' (the dataset holds a threading.Lock, which spawn cannot pickle); a "
        "background thread refreshing the hard-negative pool holds that lock almost all the time, so the forked "
        "loader workers inherit it locked and block forever in __getitem__. Nothing more is printed after the "
        "loader starts; after 60 s of silence the operator presses Ctrl-C. Cause: a silent hang (deadlocked "
        "loader workers), no error or watchdog. evidence: '[rank 0] DataLoader: 2 workers, hard-negative pool "
        "refreshed in the background' then no step lines, the Ctrl-C traceback in mp.spawn's 'context.join()' / "
        "'selector.select(timeout)' ending in 'KeyboardInterrupt'",
    "lightning-kge-complex-healthy":
        "ComplEx as a LightningModule, Trainer(strategy='ddp', 2 CPU processes), 10 epochs, filtered dev MRR logged "
        "with sync_dist, ModelCheckpoint on val/mrr, LR monitor, then trainer.test on the best checkpoint. Healthy; "
        "Lightning's DistributedSampler-during-test advice is a warning only. evidence: 'epoch 9: val/mrr ...', "
        "'`Trainer.fit` stopped: `max_epochs=10` reached.', 'Restoring states from the checkpoint path', the "
        "test/mrr table, 'best checkpoint ...', 'job exited with 0'",
    "lightning-kge-dense-candidate-scores-container-limit":
        "ComplEx (dim 128) as a LightningModule, DDP on 2 CPU processes, in a container with a 1400 MB memory limit "
        "(cgroup); --dense-eval scores whole evaluation batches against all 1964 entities by materialising every "
        "(query, candidate, component) product before the sum (several 300x1964x128 float tensors per rank), so "
        "already the sanity-check validation after the model summary exhausts the limit and the kernel OOM "
        "killer SIGKILLs the main (rank 0) process; the job's epilogue greps dmesg. Cause: host memory exhausted, "
        "OOM kill. evidence: 'bash: line 1: ... Killed /tmp/corpus-venv-nb/bin/python kge_pl.py --devices 2 "
        "--epochs 3 --dim 128 --dense-eval --eval-batch 600', 'job exited with 137', 'oom-kill:constraint="
        "CONSTRAINT_MEMCG,... oom_memcg=/waves-b-lightning-kge-dense-candidate-scores-container-limit', 'Memory "
        "cgroup out of memory: Killed process ... (python) total-vm:1844732kB, anon-rss:728944kB'",
    "lightning-kge-ci-step-timeout-wrapper":
        "ComplEx LightningModule (DDP, 2 CPU processes, 80 epochs) started by a CI step under `timeout 50` "
        "(shown by set -x); at 50 s coreutils timeout sends SIGTERM to the job, Lightning's signal handler reports "
        "it on both ranks and the step exits with timeout's status 124. Cause: a time limit (the wrapper's "
        "SIGTERM), not a training fault. evidence: '+ timeout 50 /tmp/corpus-venv-nb/bin/python kge_pl.py "
        "--devices 2 --epochs 80', '[rank: 0] Received SIGTERM: 15', '[rank: 1] Received SIGTERM: 15', "
        "'job exited with 124'",
    "lightning-kge-dump-split-unseen-entities":
        "ComplEx LightningModule run on the upstream dump's own train/valid/test split (the dump is ordered by "
        "subject id, so the last 1200 records, about the newest people, became dev and test); the entity "
        "vocabulary is built from the training triples only, and encoding the dev set fails on a person who "
        "never occurs in training. Cause: the training code raised (KeyError on an unseen entity). evidence: "
        "'kg-dump-split: ... train, 600 valid, 600 test triples', 'kc.encode(va, e2i, r2i)', "
        "'return torch.tensor([[e2i[h], r2i[r], e2i[t]] ...', \"KeyError: 'person:01275'\"",
    "hf-trainer-kge-complex-healthy":
        "ComplEx wrapped as a model returning {'loss'} and trained by the Hugging Face Trainer (transformers 5.24) "
        "in 2 processes started with mp.spawn (gloo, env://), 6 epochs, per-epoch eval, then a filtered dev MRR "
        "all-reduced over ranks. Healthy; DDP's find_unused_parameters=True warning on both ranks is harmless. "
        "evidence: 'Warning: find_unused_parameters=True was "
        "specified in DDP constructor', \"{'train_runtime': ..., 'epoch': '6'}\", 'filtered dev MRR 0.1112 "
        "hits@10 0.290 (600 triples)', 'job exited with 0'",
    "hf-trainer-kge-training-args-from-v4-script":
        "The same Hugging Face Trainer script run with --args-from-v4, the TrainingArguments keywords of its "
        "transformers 4.x days (evaluation_strategy=, no_cuda=), on transformers 5.24 where evaluation_strategy "
        "no longer exists; both ranks fail building TrainingArguments and mp.spawn terminates the other. Cause: "
        "the script and the installed transformers version are incompatible. evidence: 'transformers 5.24.0' "
        "(pip list), 'args = TrainingArguments(**kw)', \"TypeError: TrainingArguments.__init__() got an "
        "unexpected keyword argument 'evaluation_strategy'\", 'job exited with 1'",
    "raytrain-kge-complex-healthy":
        "ComplEx on a local Ray cluster (2 CPUs): Ray Train TorchTrainer, 2 gloo workers, prepare_model (DDP), "
        "filtered dev MRR all-reduced and reported each epoch with a rank-0 checkpoint, 5 epochs. Healthy. "
        "evidence: 'final metrics: {'epoch': 5, ... 'mrr': 0.2489...}', 'checkpoint: Checkpoint(filesystem=local, "
        "path=.../ray_results/kge-complex/checkpoint_...)', 'job exited with 0'",
    "raytrain-kge-gloo-ifname-from-cloud-image":
        "The Ray Train ComplEx job submitted with GLOO_SOCKET_IFNAME=ens5 in its runtime_env env_vars (a setting "
        "carried over from the cloud image, where the NIC is ens5); this machine has no such interface, so gloo "
        "cannot create its device when the workers set up the torch process group, and the TrainController gives "
        "up (max failures 0). Cause: wrong socket interface for the collective backend. evidence: "
        "'ray::execute._setup_torch_process_group()', 'RuntimeError: [enforce fail at "
        ".../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ens5', "
        "'Error count: 1 (max allowed: 0)'",
    "raytune-kge-trials-share-eval-pg-port":
        "A Ray Tune grid sweep (4 trials, 1 CPU each, 2 running at once) of in-process ComplEx trainings; each "
        "trial opens a 1-process gloo group on a fixed tcp://127.0.0.1:29660 to reuse the distributed evaluation "
        "code, so the second concurrently running trial finds the port held by the first trial's TCPStore and "
        "errors; the sweep finishes with one errored trial. Cause: port already in use. evidence: "
        "'dist.init_process_group(\"gloo\", init_method=f\"tcp://127.0.0.1:{cfg[\'pg_port\']}\"', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29660, ... name: EADDRINUSE, message: address already in use', 'Trial trainable_..._00001 errored "
        "after 0 iterations', 'Number of errored trials: 1', '1 trial(s) errored'",
    "raydata-kge-dump-label-with-tab":
        "A Ray Data ingest of the KG dump (4 TSV parts: head, relation, tail, tail label) -> map_batches parser -> "
        "filter -> Parquet, before a short ComplEx fit on the driver; the exporter of part-00002 wrote city labels "
        "as 'name<TAB>country code', so the parser's 4-field unpack fails on those rows and the write fails (no "
        "retries for UDF errors). Cause: the user's parsing code raised on malformed records. evidence: "
        "'ray::MapBatches(parse_dump)->Filter(<lambda>)->Write()', 'in parse_dump', "
        "'h, r, t, label = line.split(\"\\t\")', 'ValueError: too many values to unpack (expected 4)', "
        "'ray.exceptions.UserCodeException: UDF failed to process a data block.', 'job exited with 1'",
    "raytune-kge-ray-data-inside-trials-all-cpus":
        "A Ray Tune grid sweep of ComplEx on a 2-CPU Ray cluster where each trial reserves 2 CPUs "
        "(tune.with_resources(..., {'cpu': 2})) and then reads its triples with Ray Data inside the trial; the "
        "running trial holds every CPU, so the Ray Data read task (1 CPU) can never be scheduled and the dataset "
        "stays at 0 rows; after 2 minutes the user presses Ctrl-C, Tune stops, finds no result, and `ray status` "
        "shows the unmet demand. Cause: Ray could not place the dataset's tasks (resources all reserved by the "
        "trial). evidence: 'Logical resource usage: 2.0/2 CPUs', 'ReadCSV->SplitBlocks(4): Tasks: 1 "
        "[backpressured:tasks(ResourceBudget)] ... 0.00/1.00 [02:04<?, ? row/s]', 'Running Dataset: ... Active & "
        "requested resources: 1/2 CPU ... 0.00 row [02:05, ? row/s]', 'Stop signal received (e.g. via "
        "SIGINT/Ctrl+C), ending Ray Tune run', 'RuntimeError: No best trial found for the given metric: mrr', "
        "'2.0/2.0 CPU (2.0 used of 2.0 reserved in placement groups)', 'Pending Demands: {'CPU': 1.0}: 1+ pending "
        "tasks/actors'",
}
