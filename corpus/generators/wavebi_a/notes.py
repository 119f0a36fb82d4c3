"""Manifest notes for wave BI (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("skorch 1.4.0 NeuralNetClassifier + skorch.hf.AccelerateMixin with HF accelerate 1.15.0 (Accelerator(cpu=True): "
     "DistributedType.MULTI_CPU, gloo; torch 2.13.0+cpu, scikit-learn 1.9.1, Python 3.11.7), ticketrouter: TF-IDF + "
     "3-layer MLP routing synthetic support tickets to 5 queues, skorch epoch table with valid_acc/valid_f1 "
     "EpochScoring, StepLR LRScheduler, EarlyStopping, Checkpoint; launched with 'nice -n 5 accelerate launch "
     "--multi_gpu --num_processes 2 --main_process_port P train.py")
NOTES = {
    "tix-healthy": (
        f"no_failure: {W}'; accelerate warns that --num_machines/--mixed_precision/--dynamo_backend were defaulted, "
        "15 epochs, checkpoint every epoch, exit 0. evidence: 'The following values were not passed to `accelerate "
        "launch` and had defaults used instead:', '2026-12-02 09:18:03,675 [rank0] INFO ticketrouter: training done: "
        "15 epochs in 4.6 s, valid accuracy 0.9781, best checkpoint in checkpoints/', 'job exited with 0'"),
    "tix-healthy-metric-nan": (
        f"no_failure: {W} --extra-metrics --lr 0.05'; the extra valid_prec_min column (min per-class precision, "
        "zero_division=nan) is nan for the first epochs while some queues are never predicted; the loss stays finite "
        "and training finishes, exit 0 (skorch colours the improved values with ANSI codes). evidence: '  epoch    train_loss    valid_acc    valid_f1    valid_loss    valid_prec_min    cp      lr     dur', 'nan     +  0.0500  0.2283', 'training done: 15 epochs in 4.4 s, valid accuracy 0.9812', 'job exited with 0'"),
    "tix-second-node-missing": (
        "rendezvous_timeout: same workload, launched with 'accelerate launch --multi_gpu --num_processes 2 "
        "--num_machines 2 --machine_rank 0 --main_process_ip localhost --main_process_port 29614 --rdzv_backend c10d "
        "--rdzv_conf join_timeout=30 train.py'; the second machine never started, the c10d rendezvous gives up after "
        "30 s, no worker starts, exit 1. evidence: 'raise RendezvousTimeoutError', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
    "tix-global-batch": (
        f"batch_size_mismatch: {W} --global-batch-size 256'; the config's global batch 256 != 64 per process x 2 "
        "processes, both ranks' startup check raises before training. evidence: '[rank1]: ValueError: "
        "global_batch_size (256) must equal batch_size (64) x num_processes (2)', 'job exited with 1'"),
    "tix-blank-ticket": (
        f"worker_exception: {W}'; the train CSV has one row with an empty subject_body ('T199999,email,,billing'), "
        "pandas reads it as NaN and TfidfVectorizer.fit_transform raises on both ranks before training. evidence: "
        "'[rank0]: ValueError: np.nan is an invalid document, expected byte or unicode string.', 'job exited with 1'"),
    "tix-wide-oom": (
        f"host_oom_killed: {W} --max-features 20000 --ngram-max 3 --hidden 8192' inside a 1.5 GB memory cgroup "
        "(v1) for the whole job; the 20000x8192 first layer per process exceeds it, the kernel OOM killer SIGKILLs "
        "rank 0 during model setup, the agent SIGTERMs rank 1, exit 1. evidence: 'failed (exitcode: -9) local_rank: "
        "0 (pid: 25698) of binary: /tmp/venv-bi-a/bin/python', 'traceback : Signal 9 (SIGKILL) received by PID "
        "25698', 'job exited with 1'"),
    "tix-preempted": (
        f"job_preempted: {W} --max-epochs 60 --patience 100 --epoch-pause 1.0'; the harness (a scheduler's time "
        "limit) sent SIGTERM to the accelerate launcher after epoch 3; the elastic agent shuts down the workers and "
        "exits 1. evidence: 'Received 15 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 25733 got signal: 15', "
        "'job exited with 1'"),
    "tix-terminal-closed": (
        f"terminal_hangup: {W} --max-epochs 60 --patience 100 --epoch-pause 1.0'; the launcher got SIGHUP after "
        "epoch 3 (the terminal it ran in was closed); the elastic agent shuts down the workers and exits 1. "
        "evidence: 'Received 1 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 26041 got signal: 1', "
        "'job exited with 1'"),
    "tix-rank-stopped": (
        f"silent_hang: {W} --max-epochs 60 --patience 100 --epoch-pause 1.0'; after epoch 3 the training process "
        "of rank 1 was stopped (SIGSTOP); rank 0 waits in the next gloo collective with the default 1800 s "
        "timeout and nothing more is printed; the harness killed the whole job from outside at 80 s (no 'job "
        "exited' line). evidence: '2026-12-02 09:20:35,071 [rank1] INFO ticketrouter: rank 1 finished epoch 3 (29 "
        "train batches)', the epoch-3 row of the epoch table as the last line"),
    "tix-rank-stopped-timeout": (
        f"collective_timeout: {W} --max-epochs 60 --patience 100 --epoch-pause 1.0 --dist-timeout 15' "
        "(InitProcessGroupKwargs(timeout=15 s)); after epoch 3 rank 1 was stopped (SIGSTOP); rank 0's gloo "
        "collective times out after 15 s and raises, the agent then kills the stopped rank 1, exit 1. evidence: "
        "'[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] "
        "Timed out waiting 15000ms for send operation to complete', 'traceback : Signal 9 (SIGKILL) received by PID "
        "27039', 'job exited with 1'"),
    "tix-ckpt-on-loss": (
        f"silent_hang: {W} --ckpt-monitor valid_loss_best --max-epochs 40'; skorch's valid_loss (and so "
        "valid_loss_best) is computed per process on its own validation shard, so at epoch 12 the Checkpoint "
        "callback decides to save on one rank only; AccelerateMixin.save_params waits in wait_for_everyone() on "
        "that rank while the other goes on into the next epoch's collectives: both wait forever (default 1800 s "
        "timeout), nothing is printed; the harness killed the job from outside at 80 s (no 'job exited' line). "
        "evidence: '2026-12-02 09:23:03,599 [rank1] INFO ticketrouter: rank 1 finished epoch 12 (29 train "
        "batches)' as the last line, no rank 0 line or epoch-table row for epoch 12"),
    "tix-sbert": (
        f"library_version_mismatch: {W} --text-encoder sbert'; the sbert encoder path imports sentence_transformers, "
        "which is not installed in the job's environment; both ranks raise at import, exit 1. evidence: "
        "'[rank1]: ModuleNotFoundError: No module named 'sentence_transformers'', 'job exited with 1'"),
    "tix-healthy-resume": (
        f"no_failure: {W} --resume --max-epochs 10'; an earlier 6-epoch run (not in this log) left checkpoints/; "
        "skorch's LoadInitState restores params, optimizer and history, the epoch table continues at epoch 7 and "
        "ends at 16, exit 0. evidence: '      7        ' as the first epoch-table row, '2026-12-02 09:24:51,084 "
        "[rank0] INFO ticketrouter: training done: 16 epochs in 3.5 s, valid accuracy 0.9812, best checkpoint in "
        "checkpoints/', 'job exited with 0'"),
    "tix-healthy-port-taken": (
        f"no_failure: {W}' with --main_process_port 29613 while another process (a python http.server) already "
        "listens there; accelerate launch warns and picks a free port itself (single machine), training runs "
        "normally, exit 0. evidence: 'UserWarning: Port `29613` is already in use. Accelerate will attempt to launch "
        "in a standalone-like mode by finding an open port automatically for this session.', "
        "'2026-12-02 09:25:05,199 [rank0] INFO ticketrouter: training done: 15 epochs in 5.7 s, valid accuracy "
        "0.9844, best checkpoint in checkpoints/', 'job exited with 0'"),
    "tix-lr": (
        f"training_divergence: {W} --lr 1e9 --label-smoothing 0' (a learning rate off by many orders of magnitude); "
        "the SGD updates blow the logits up, epoch 1's train_loss is nan and the finite-loss callback raises on both "
        "ranks before the epoch table row is printed, exit 1. evidence: '[rank1]: FloatingPointError: train_loss is "
        "nan at epoch 1; check --lr / --optimizer', 'job exited with 1'"),
    "tix-ckpt-tmpfs": (
        f"disk_full: {W} --ckpt-log --eval-best' with checkpoints/ a 1 MB tmpfs; skorch's Checkpoint catches every "
        "save error and only logs it (sink=log.info) each epoch, training goes on; at the end --eval-best reloads "
        "the checkpoint, whose history.json is empty, and both ranks raise JSONDecodeError, exit 1. evidence: "
        "'2026-12-02 09:26:09,880 [rank0] INFO ticketrouter: Unable to save history to checkpoints/history.json, "
        "OSError: [Errno 28] No space left on device', '2026-12-02 09:26:09,869 [rank0] INFO ticketrouter: Unable "
        "to save optimizer state to checkpoints/optimizer.pt, RuntimeError: [enforce fail at inline_container.cc:672] "
        ". unexpected pos 1280 vs 1174', '[rank0]: json.decoder.JSONDecodeError: Expecting value: line 1 column 1 "
        "(char 0)', 'job exited with 1'"),
}
