"""Manifest notes for wave BC (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Hugging Face transformers Trainer (transformers 5.24.0, accelerate 1.15.0, torch 2.13.0+cpu), 2-process DDP "
     "over gloo on CPU launched as 'torchrun --nproc-per-node 2 --master-port P train.py --output_dir "
     "out/claims-triage --do_train --do_eval --use_cpu --ddp_backend gloo --eval_strategy epoch --save_strategy epoch "
     "--save_total_limit 2 --load_best_model_at_end --logging_steps 5 --report_to none --ddp_timeout 600 ...' "
     "(HfArgumentParser); an insurance company's claim-note triage classifier (small BERT from scratch, notes -> "
     "5 routing desks)")
NOTES = {
    "claims-healthy": (
        f"no_failure: {W}, 2 epochs; Trainer logs its loss dicts, evaluates and saves a checkpoint each epoch, loads "
        "the best model at the end and evaluates. evidence: \"{'train_runtime': '13.49', 'train_samples_per_second': "
        "'237.3', 'train_steps_per_second': '3.708', 'train_loss': '1.342', 'epoch': '2'}\", '[INFO|trainer.py:3745] "
        "2026-12-01 16:28:05,271 >> Loading best model from out/claims-triage/checkpoint-25 (score: 0.725).', "
        "'job exited with 0'"),
    "claims-healthy-resume": (
        f"no_failure: {W}; after an earlier 1-epoch run (not in this log), '--resume_from_checkpoint "
        "out/claims-triage/checkpoint-25': Trainer reloads model, optimizer and RNG state and trains epoch 2 only. "
        "evidence: '[INFO|trainer.py:1631] 2026-12-01 16:28:47,672 >>   Resuming training from checkpoint with epoch 1 "
        "and global step 25', \"{'train_runtime': '7.065', 'train_samples_per_second': '226.5', "
        "'train_steps_per_second': '3.539', 'train_loss': '1.351', 'epoch': '2'}\", 'job exited with 0'"),
    "claims-healthy-rerun-done": (
        f"no_failure: {W}; rerun of a finished 2-epoch run (not in this log) with the same command: the script's "
        "get_last_checkpoint finds checkpoint-50, Trainer resumes at global step 50, no step is left, it loads the "
        "best model, evaluates and exits 0. evidence: '12/01/2026 16:29:49 - INFO - __main__ - Checkpoint detected, "
        "resuming training at out/claims-triage/checkpoint-50.', '[INFO|trainer.py:1631] 2026-12-01 16:29:52,376 >>   "
        "Resuming training from checkpoint with epoch 2 and global step 50', \"{'train_runtime': '0.0003', "
        "'train_samples_per_second': '0', 'train_steps_per_second': '0', 'train_loss': '0', 'epoch': '2'}\", "
        "'job exited with 0'"),
    "claims-healthy-blank-notes": (
        f"no_failure: {W}; 3 notes in the export are blank; both ranks' dataset filter logs each at ERROR and drops "
        "it, training and evaluation succeed. evidence: '12/01/2026 16:30:23 - ERROR - __main__ - claim CLM-T100001: "
        "empty note text in the export, dropped', \"{'train_runtime': '14.07', 'train_samples_per_second': '227.1', "
        "'train_steps_per_second': '3.555', 'train_loss': '1.336', 'epoch': '2'}\", 'job exited with 0'"),
    "claims-bert-base-oom": (
        f"host_oom_killed: {W}; the launch scales the model to BERT-base size ('--hidden_size 768 --num_hidden_layers "
        "12 --num_attention_heads 12') on a box whose job runs in a 1.5 GB cgroup-v1 memory limit; the kernel OOM "
        "killer kills rank 0 before the first logged step (exitcode -9), torchrun stops rank 1 and reports the "
        "failure. evidence: 'E1201 16:31:12.315000 13496 torch/distributed/elastic/multiprocessing/api.py:1002] "
        "failed (exitcode: -9) local_rank: 0 (pid: 13555) of binary: /tmp/corpus-venv-bc-a/bin/python3', '  exitcode  "
        ": -9 (pid: 13555)  (SIGKILL)', 'job exited with 1'"),
    "claims-rank-killed": (
        f"host_oom_killed: {W}, 4 epochs; in epoch 2 the rank with LOCAL_RANK 1 is SIGKILLed from outside (kill -9, "
        "no OOM); rank 0's gloo connection is reset, torchrun reports -9 for local rank 1. evidence: '[rank0]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
        "[127.0.0.1]:62692: Connection reset by peer. This is typically caused by a remote worker hanging or bugs in "
        "the application. Check the logs of the remote worker before reporting an error. GLHF! 🏖️', 'E1201 "
        "16:31:58.519000 13817 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) "
        "local_rank: 1 (pid: 13875) of binary: /tmp/corpus-venv-bc-a/bin/python3', 'job exited with 1'"),
    "claims-ckpt-tmpfs": (
        f"disk_full: {W}; the output_dir (out/) is a 512 KiB tmpfs; at the end of epoch 1 Trainer's checkpoint save "
        "writes config, model.safetensors and tokenizer, then rank 0's torch.save of the optimizer state runs out of "
        "space; rank 0 exits, rank 1 sees the connection close in its next gather. evidence: '[rank0]: RuntimeError: "
        "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . "
        "unexpected pos 141120 vs 141008', 'job exited with 1'"),
    "claims-workers-shm": (
        f"shm_exhausted: {W}; '--dataloader_num_workers 2 --pad_to_max_length --max_seq_length 128' on a box whose "
        "/dev/shm is a 64 KiB tmpfs (a container's default-small shm, made with unshare -m); when Trainer starts the "
        "multi-process DataLoader both ranks fail creating its semaphore in shared memory (ENOSPC). evidence: "
        "'[rank1]:     sl = self._semlock = _multiprocessing.SemLock(', '[rank1]: OSError: [Errno 28] No space left "
        "on device', '[rank0]: OSError: [Errno 28] No space left on device', 'job exited with 1'"),
    "claims-stopped-quiet": (
        f"silent_hang: {W}, 4 epochs, '--ddp_timeout 1800'; in epoch 2 the rank with LOCAL_RANK 1 is SIGSTOPped "
        "right after rank 0's first loss line of epoch 2; rank 0 waits in the next collective (gloo, 30-minute "
        "timeout), nothing more is printed, and the harness ended the job after 80 s (no 'job exited' line). "
        "evidence: \"{'loss': '1.151', 'grad_norm': '0.9848', 'learning_rate': '0.00142', 'epoch': '1.2'}\" (the "
        "log's last line)"),
    "claims-preempted": (
        f"job_preempted: {W}, 4 epochs; in epoch 2 SIGTERM goes to the job's whole process group (the launch shell and "
        "the torchrun agent), as a scheduler preempting the job; the agent passes SIGTERM to both ranks and exits "
        "with SignalException; the launch shell died too (no 'job exited' line). evidence: 'W1201 16:45:24.922000 "
        "23708 torch/distributed/elastic/agent/server/api.py:753] Received 15 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 23708 got signal: 15'"),
    "claims-terminal-closed": (
        f"terminal_hangup: {W}, 4 epochs; in epoch 2 the terminal that ran the launch closes: SIGHUP to the job's "
        "process group; the torchrun agent gets it, passes SIGHUP to both ranks and exits with SignalException; the "
        "launch shell died too (no 'job exited' line). evidence: 'W1201 16:45:54.068000 24380 "
        "torch/distributed/elastic/agent/server/api.py:753] Received 1 death signal, shutting down workers', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 24380 got signal: 1'"),
    "claims-new-route-weights": (
        f"training_divergence: {W}, '--class_weighted_loss'; routes.txt gained a sixth route (subrogation) with no "
        "notes yet, so its inverse-frequency weight is inf and, after normalising, every class weight is 0 or NaN; "
        "the weighted loss and the gradients are NaN from the first step and the team's callback raises on both ranks "
        "at the first logged step. evidence: '12/01/2026 16:39:54 - INFO - __main__ - class weights [0.0, 0.0, 0.0, "
        "0.0, 0.0, nan]', '[rank0]: FloatingPointError: grad_norm is nan at step 5 (epoch 0.2)', 'job exited with 1'"),
    "claims-rank-stopped": (
        f"collective_timeout: {W}, 4 epochs, '--ddp_timeout 20 --ddp_timeout_on_cpu' (the script creates the gloo "
        "group itself with that timeout, since with --use_cpu Trainer does not pass --ddp_timeout on); in epoch 2 the "
        "rank with LOCAL_RANK 1 is SIGSTOPped; rank 0's gloo send times out after 20 s and it exits; torchrun cannot "
        "stop the stopped rank with SIGTERM, SIGKILLs it 30 s later and reports the failure. evidence: '[rank0]: "
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out "
        "waiting 20000ms for send operation to complete', 'W1201 16:48:15.588000 25774 "
        "torch/distributed/elastic/multiprocessing/api.py:1047] Unable to shutdown process 25927 via 15, forcefully "
        "exiting via 9', 'job exited with 1'"),
    "claims-nested-addenda": (
        f"native_crash: {W}, '--include_addenda'; one reopened claim in the export carries 120000 nested addenda; "
        "the script raised the recursion limit (sys.setrecursionlimit(1_000_000)) for long addenda chains, so while "
        "rank 0 maps the dataset, parsing and flattening that claim's addenda recurses until the C stack overflows and rank 0 dies with SIGSEGV; rank 1, "
        "waiting in main_process_first's barrier, sees the connection close. evidence: '[rank1]: RuntimeError: "
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:54482. This is typically caused by a remote worker crashing. Check the logs of the remote worker "
        "before reporting an error. GLHF! 🏖️', 'E1201 16:48:35.812000 27168 "
        "torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -11) local_rank: 0 (pid: 27203) of "
        "binary: /tmp/corpus-venv-bc-a/bin/python3', '  exitcode  : -11 (pid: 27203)  (SIGSEGV)', "
        "'job exited with 1'"),
    "claims-port-held": (
        f"port_in_use: {W}; a notebook file server (python -m http.server 29624) was left running on the master port "
        "given with --master-port 29624; torchrun's store cannot listen and the launch fails before any worker starts. "
        "evidence: 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29624, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'job exited with 1'"),
    "claims-label-count": (
        f"worker_exception: {W}, '--num_labels 4' (a launch line from before the bodily_injury desk existed) while the "
        "data has 5 routes; the classifier head has 4 outputs and the first training step's cross_entropy raises on "
        "both ranks. evidence: '[rank1]:     loss = torch.nn.functional.cross_entropy(outputs.logits, labels, "
        "weight=self.class_weights)', '[rank0]: IndexError: Target 4 is out of bounds.', 'job exited with 1'"),
    "claims-resume-missing": (
        f"worker_exception: {W}; a relaunch with '--resume_from_checkpoint out/claims-triage/checkpoint-50' on a fresh "
        "job directory where no such checkpoint exists (the output_dir was not carried over); Trainer.train raises on "
        "both ranks before the first step. evidence: \"[rank0]: ValueError: Can't find a valid checkpoint at "
        "out/claims-triage/checkpoint-50\", 'E1201 16:49:29.531000 27781 "
        "torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 27820) of "
        "binary: /tmp/corpus-venv-bc-a/bin/python3', 'job exited with 1'"),
    "claims-raw-columns": (
        f"worker_exception: {W}, '--remove_unused_columns False' (added to keep the claim ids for error analysis); "
        "the string columns claim_id and note reach DataCollatorWithPadding, which cannot make tensors of them; both "
        "ranks raise at the first training batch. evidence: \"[rank0]: ValueError: too many dimensions 'str'\", "
        "\"[rank0]: ValueError: Unable to create tensor, you should probably activate truncation and/or padding with "
        "'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features "
        "(`claim_id` in this case) have excessive nesting (inputs type `list` where type `int` is expected).\", "
        "'job exited with 1'"),
    "claims-old-launch-flags": (
        f"library_version_mismatch: {W}; the launch line still carries '--overwrite_output_dir' from the transformers "
        "4.x example scripts; TrainingArguments in transformers 5.24.0 no longer has that field, so "
        "HfArgumentParser rejects the flag on both ranks before training. evidence: \"[rank0]: ValueError: Some "
        "specified arguments are not used by the HfArgumentParser: ['--overwrite_output_dir']\", 'E1201 "
        "16:49:58.989000 28478 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: "
        "0 (pid: 28486) of binary: /tmp/corpus-venv-bc-a/bin/python3', 'job exited with 1'"),
    "claims-best-model-steps": (
        f"worker_exception: {W}, but '--save_strategy steps --save_steps 10' with '--eval_strategy epoch' and "
        "'--load_best_model_at_end'; TrainingArguments' own check rejects the combination while parsing, before the "
        "process group exists; torchrun stops the other rank. evidence: 'ValueError: --load_best_model_at_end requires "
        "the save and eval strategy to match, except when --save_strategy=\"best\", but found', '- Save strategy: "
        "SaveStrategy.STEPS', 'job exited with 1'"),
    "claims-second-node-missing": (
        "rendezvous_timeout: Hugging Face transformers Trainer (transformers 5.24.0, accelerate 1.15.0, torch "
        "2.13.0+cpu), the team's two-node launch 'torchrun --nproc-per-node 2 --nnodes 2 --rdzv-backend c10d "
        "--rdzv-endpoint localhost:29635 --rdzv-id claims-triage --rdzv-conf join_timeout=30 train.py --output_dir "
        "out/claims-triage --do_train --do_eval --use_cpu --ddp_backend gloo ...' started on the first node only (the "
        "second node's job never started); an insurance company's claim-note triage classifier; torchrun's agent waits "
        "30 s in the rendezvous for the second node, then gives up before any worker starts. evidence: "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'"),
}
