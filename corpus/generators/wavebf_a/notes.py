"""Manifest notes for wave BF (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("DeepSpeed 0.19.8 (CPU accelerator, gloo, torch 2.13.0+cpu), ZeRO stage 2 from ds_config.json (train_batch_size "
     "32, micro batch 16, grad accumulation 1, AdamW, WarmupLR), 2 ranks on two hostfile 'nodes' (localhost, "
     "127.0.0.1, slots=1 each) launched with 'deepspeed --hostfile hostfile --launcher pdsh --ssh_port 29799 "
     "--no_ssh_check --master_addr 127.0.0.1 --master_port P train.py --deepspeed --deepspeed_config ds_config.json "
     "--data-dir data --epochs 3 --step-delay 0.2 --timeout 600' (pdsh over ssh prefixes each node's lines with "
     "'localhost: ' / '127.0.0.1: '); a support team's ticket router (2-layer transformer encoder, 6 queues), "
     "DistributedSampler, loss line on rank 0 every 5 steps, validation and engine.save_checkpoint each epoch")
NOTES = {
    "tickets-healthy": (
        f"no_failure: {W}; 3 epochs, validation and a checkpoint each epoch, both node launchers report success, "
        "exit 0. evidence: 'localhost: training finished', '127.0.0.1: [2026-12-01 23:06:58,075] [INFO] "
        "[launch.py:285:main] Process 2510 exits successfully.', 'job exited with 0'"),
    "tickets-healthy-resume": (
        f"no_failure: {W}, '--resume'; after an earlier 2-epoch run (not in this log) both ranks load the latest "
        "checkpoint (tag epoch2) with engine.load_checkpoint and train epoch 3, exit 0. evidence: '127.0.0.1: "
        "[rank 1] resumed from checkpoints/epoch2/mp_rank_00_model_states.pt (epoch 2 done, global step 40)', "
        "'localhost: training finished', 'job exited with 0'"),
    "tickets-healthy-rerun-done": (
        f"no_failure: {W}, '--resume'; rerun of a finished 3-epoch run (not in this log): the latest checkpoint is "
        "the last epoch, nothing is trained, exit 0. evidence: 'localhost: all 3 epochs already trained, nothing "
        "to do', 'localhost: training finished', 'job exited with 0'"),
    "tickets-healthy-no-queue-map": (
        f"no_failure: {W}; the export has no data/queues.json: each rank logs an [ERROR] through DeepSpeed's logger "
        "and takes the queues from the metadata, then trains 3 epochs, exit 0. evidence: '127.0.0.1: [2026-12-01 "
        "23:10:24,100] [ERROR] [train.py:87:main] [rank 1] queue map not found ([Errno 2] No such file or "
        "directory: 'data/queues.json'); taking the queues from the training metadata', 'localhost: training "
        "finished', 'job exited with 0'"),
    "tickets-healthy-staging-retry": (
        f"no_failure: {W}; the batch script starts the 25 s data export in the background and launches at once in a "
        "3-attempt retry loop: attempt 1 fails on both nodes (no data yet: FileNotFoundError, DeepSpeed's launchers "
        "kill their subprocess, pdsh reports ssh exit 1), the script sleeps 10 s, attempt 2 trains 3 epochs, exit "
        "0. evidence: \"localhost: [rank0]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'data/train_meta.csv'\", 'pdsh@vm: localhost: ssh exited with exit code 1', 'launch attempt 2', "
        "'localhost: training finished', 'job exited with 0'"),
    "tickets-wide-oom": (
        f"host_oom_killed: {W}, '--d-model 2048 --ffn 8192'; the nodes' sshd (and so every launcher and rank it "
        "starts) in a 1.5 GB cgroup-v1 memory cgroup: the kernel OOM killer kills the rank on 127.0.0.1 right after "
        "the ranks join; both DeepSpeed launchers report return code -9 and pdsh reports ssh exit 247. evidence: "
        "'127.0.0.1: [2026-12-01 23:12:32,112] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 8857', "
        "'pdsh@vm: 127.0.0.1: ssh exited with exit code 247', 'job exited with 247'"),
    "tickets-rank-killed": (
        f"host_oom_killed: {W}, 4 epochs; in epoch 2 the rank-1 process (node 127.0.0.1) is SIGKILLed from outside "
        "(no OOM message): rank 0's gloo read sees the connection reset, the 127.0.0.1 launcher reports return code "
        "-9 (ssh exit 247). evidence: 'localhost: [rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/"
        "gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:33980: Connection reset by peer. This is typically "
        "caused by a remote worker hanging or bugs in the application. Check the logs of the remote worker before "
        "reporting an error. GLHF! \U0001f3d6\ufe0f', 'pdsh@vm: 127.0.0.1: ssh exited with exit code 247', 'job exited with 247'"),
    "tickets-ckpt-tmpfs": (
        f"disk_full: {W}; checkpoints/ is a 4 MiB tmpfs: epoch 1's checkpoint fits, epoch 2's engine.save_checkpoint "
        "fails on both ranks inside torch.save (the PyTorch zip writer's iostream error, no errno text). evidence: "
        "'127.0.0.1: [rank1]: RuntimeError: basic_ios::clear: iostream error', '127.0.0.1: [rank1]: RuntimeError: "
        "[enforce fail at inline_container.cc:672] . unexpected pos 785472 vs 785376', 'job exited with 1'"),
    "tickets-rank-stopped": (
        f"silent_hang: {W}, 4 epochs, process-group timeout '--timeout 20' (deepspeed.init_distributed); in epoch 2 "
        "the rank-1 process (node 127.0.0.1) is SIGSTOPped mid-step: rank 0 waits in ZeRO-2's gradient reduction, "
        "no timeout fires within 200 s and nothing more is printed; the harness ended the job (no 'job exited' "
        "line). Meant as a collective timeout; it did not come out as one. evidence: 'localhost: epoch 2/4 step "
        "10/20 loss 2.0821 lr 3.00e-04' (last line)"),
    "tickets-preempted": (
        f"job_preempted: {W}, 4 epochs; in epoch 2 SIGTERM is sent to the deepspeed runner process (the scheduler's "
        "signal): the runner passes an interrupt to pdsh, pdsh reports the commands still in progress and the job "
        "exits 1; no line names SIGTERM. evidence: 'pdsh@vm: interrupt (one more within 1 sec to abort)', "
        "'pdsh@vm: localhost: command in progress', 'job exited with 1'"),
    "tickets-terminal-closed": (
        f"terminal_hangup: {W}, 4 epochs; in epoch 2 SIGHUP is sent to the deepspeed runner process (the terminal / "
        "ssh session closing): the runner dies of the hangup (bash: 'Hangup', exit 129) while the ranks on both "
        "nodes, out of its reach behind pdsh/ssh, go on training and print their lines after the job's exit line "
        "until they finish. evidence: 'job exited with 129', 'localhost: training finished'"),
    "tickets-nan-weights": (
        f"training_divergence: {W}; the export left priority_weight empty for 40 training tickets (read as NaN): "
        "the weighted loss is NaN at the first step and the script's finite-loss check raises on both ranks. "
        "evidence: 'localhost: [rank0]: RuntimeError: loss is nan at epoch 1 step 1 on rank 0', '127.0.0.1: "
        "[rank1]: RuntimeError: loss is nan at epoch 1 step 1 on rank 1', 'job exited with 1'"),
    "tickets-queue-column-renamed": (
        f"worker_exception: {W}; the export writes the label column as 'queue_name': building the training set "
        "raises KeyError on both ranks before deepspeed.initialize. evidence: '127.0.0.1: [rank1]:     self.labels "
        "= [index[r[\"queue\"]] for r in rows]', \"127.0.0.1: [rank1]: KeyError: 'queue'\", 'pdsh@vm: 127.0.0.1: ssh "
        "exited with exit code 1', 'job exited with 1'"),
    "tickets-zero-config-typo": (
        f"worker_exception: {W}; ds_config.json's zero_optimization has the typo 'overlap_com' for overlap_comm: "
        "DeepSpeed's pydantic config model rejects the extra key in deepspeed.initialize on both ranks. evidence: "
        "'localhost: [rank0]: pydantic_core._pydantic_core.ValidationError: 1 validation error for "
        "DeepSpeedZeroConfig', 'localhost: [rank0]: overlap_com', 'localhost: [rank0]:   Extra inputs are not "
        "permitted [type=extra_forbidden, input_value=False, input_type=bool]', 'job exited with 1'"),
    "tickets-batch-from-4-nodes": (
        f"batch_size_mismatch: {W}; ds_config.json still has train_batch_size 64 from a 4-node run, with micro batch "
        "16 and 2 ranks: DeepSpeed's batch assertion fails in deepspeed.initialize on both ranks. evidence: "
        "'127.0.0.1: [rank1]: AssertionError: Check batch related parameters. train_batch_size is not equal to "
        "micro_batch_per_gpu * gradient_acc_step * world_size 64 != 16 * 1 * 2', 'job exited with 1'"),
}
NOTES.update({
    "tickets-sentencepiece": (
        f"library_version_mismatch (a missing module; the taxonomy has no import_error id): {W}, "
        "'--tokenizer sentencepiece': the subword tokenizer package is not installed on the nodes: "
        "ModuleNotFoundError on both ranks right after the process group is up. evidence: \"127.0.0.1: [rank1]: "
        "ModuleNotFoundError: No module named 'sentencepiece'\", 'pdsh@vm: localhost: ssh exited with exit code 1', "
        "'job exited with 1'"),
    "tickets-tokens-rewritten": (
        f"native_crash: {W}, 4 epochs; in epoch 2 the export job rewrites data/train_tokens.npy in place "
        "(truncated to 4 KiB) while both ranks have it memory-mapped: both die of SIGBUS with no Python traceback; "
        "DeepSpeed's launchers report return code -7 and pdsh ssh exit 249. evidence: 'pdsh@vm: localhost: ssh "
        "exited with exit code 249', 'job exited with 249'"),
})
NOTES.update({
    "tickets-confusion-rank0": (
        f"collective_mismatch: {W}, '--confusion-report --timeout 30': the confusion-matrix dist.all_gather runs "
        "inside the rank-0-only block while rank 1 has gone on to dist.barrier() after its checkpoint; both "
        "collectives time out after 30 s (rank 1's recv, rank 0's send). No line names a mismatch; the two "
        "tracebacks show the two different collectives. evidence: 'localhost: [rank0]:     dist.all_gather(parts, "
        "confusion)', '127.0.0.1: [rank1]:     dist.barrier()', '127.0.0.1: [rank1]: RuntimeError: [/__w/pytorch/"
        "pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv "
        "operation to complete', 'localhost: [rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/unbound_buffer.cc:129] Timed out waiting 30000ms for send operation to complete', 'job "
        "exited with 1'"),
    "tickets-port-held": (
        f"port_in_use: {W}; 'python -m http.server 29728' left running on the master port: rank 0's TCPStore "
        "cannot listen (EADDRINUSE) and the localhost launcher kills its subprocess, but rank 1 on 127.0.0.1 keeps "
        "waiting for the store (process-group timeout 600 s) and pdsh waits for it: the harness ended the job after "
        "200 s (no 'job exited' line). evidence: 'localhost: torch.distributed.DistNetworkError: The server socket "
        "has failed to listen on any local network address. port: 29728, useIpv6: false, code: -98, name: "
        "EADDRINUSE, message: address already in use', 'pdsh@vm: localhost: ssh exited with exit code 1'"),
    "tickets-node-unreachable": (
        f"rendezvous_timeout: {W}, '--timeout 30'; the hostfile gained a third node '127.0.0.2 slots=1' that ssh "
        "cannot reach (no sshd listens there): pdsh reports the refused connection, the two ranks that did start "
        "wait for rank 2 in deepspeed.init_distributed and the store times out after 30 s. evidence: '127.0.0.2: "
        "ssh: connect to host 127.0.0.2 port 29799: Connection refused', 'pdsh@vm: 127.0.0.2: ssh exited with exit "
        "code 255', 'localhost: torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. "
        "2/3 clients joined.', 'job exited with 255'"),
})
NOTES.update({
    "tickets-rank-stopped-valid": (
        f"collective_timeout: {W}, 4 epochs, process-group timeout '--timeout 20'; the rank-1 process (node "
        "127.0.0.1) is SIGSTOPped after the last training step of epoch 2: rank 0's validation all_reduce times out "
        "after 20 s and its launcher kills it; the stopped rank's node never reports and pdsh waits for it, so the "
        "harness ended the job after 150 s (no 'job exited' line). evidence: 'localhost: [rank0]:     "
        "dist.all_reduce(correct)', 'localhost: [rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete', 'pdsh@vm: "
        "localhost: ssh exited with exit code 1'"),
})
