"""Manifest notes for wave BY (w)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("WebDataset 1.0.2 (braceexpand 0.1.7) over torch 2.13.0+cpu (gloo), Python 3.11.7: project/train_wds.py trains a "
     "16-32-2 MLP with plain DistributedDataParallel on 12 tar shards written by webdataset.ShardWriter "
     "(shards/train-{000000..000011}.tar, 768 samples x.npy+cls), read through wds.WebDataset(urls, "
     "nodesplitter=wds.split_by_node, shardshuffle=False, handler=wds.reraise_exception).decode().to_tuple('x.npy', "
     "'cls').batched(8).with_epoch(16) and wds.WebLoader(num_workers=2); 3 epochs, 'epoch E step S: loss ...' every 4 "
     "steps on rank 0, rank 0 saves ckpt/model.pt after each epoch; launched on two hosts (network namespaces "
     "wds-node-a 10.98.0.11 and wds-node-b 10.98.0.12, one bridge) with 'GLOO_SOCKET_IFNAME=eth0 python -m "
     "torch.distributed.run --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 10.98.0.11:PORT "
     "--rdzv-conf join_timeout=40', both nodes' output in one console")
W3 = W.replace("on two hosts", "on three hosts").replace(
    "wds-node-b 10.98.0.12, one bridge", "wds-node-b 10.98.0.12, wds-node-c 10.98.0.13, one bridge").replace(
    "--nnodes 2", "--nnodes 3").replace("both nodes'", "all nodes'")
AT = "once rank 0 logged 'epoch 1 step 4: loss'"
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'epoch 2 done, saved "
                      "ckpt/model.pt', '[rank 0] training finished', 'job exited with 0'; the only warnings are c10d's "
                      "'The hostname of the client socket cannot be retrieved. err=-3'",
    "healthy-3nodes": f"no_failure: {W3} (6 ranks, 2 shards each); a plain run to the end: nothing injected. "
                      "evidence: '[rank 4] host wds-node-c world 6 webdataset 1.0.2', 'epoch 2 done, saved "
                      "ckpt/model.pt', 'job exited with 0'",
    "healthy-resume": f"no_failure: {W}; before the logged job a first (unlogged) job trained epochs 0-1 and saved "
                      "ckpt/model.pt; the logged job runs with --resume --epochs 4, every rank loads the checkpoint "
                      "and trains epochs 2-3. evidence: '[rank 2] resumed from ckpt/model.pt at epoch 2', 'epoch 3 "
                      "done, saved ckpt/model.pt', 'job exited with 0'",
    "healthy-late-node": f"no_failure: {W}; wds-node-b's launcher starts 15 s after wds-node-a's (a slow node), "
                         "within the c10d join timeout of 40 s, and the run trains to the end. evidence: the first "
                         "c10d warning at 06:57:26 and the next at 06:57:39, '[rank 3] host wds-node-b world 4 "
                         "webdataset 1.0.2', 'epoch 2 done, saved ckpt/model.pt', 'job exited with 0'",
    "truncated-shard": f"worker_exception: {W}; injected: one shard of the dataset, shards/train-000005.tar, cut to "
                       "its first 20000 bytes (a truncated upload) before the job; the WebLoader worker of rank 1 "
                       "that reads it hits the end of the tar inside webdataset's tar_file_iterator, the "
                       "reraise_exception handler re-raises, rank 1 dies and its peers lose the gloo connection. "
                       "evidence: '[rank1]: tarfile.ReadError: Caught ReadError in DataLoader worker process 1.', "
                       "'[rank1]:   File \"/tmp/venv-by-w/lib/python3.11/site-packages/webdataset/handlers.py\", "
                       "line 31, in reraise_exception', '[rank1]: tarfile.ReadError: (\"unexpected end of data @ "
                       "<_io.BufferedReader name='shards/train-000005.tar'>\", ...)', '[rank0]: RuntimeError: "
                       "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by "
                       "peer [10.98.0.11]:13225. ...', 'job exited with 1'",
    "rank-segv": f"native_crash: {W}; injected: the team's per-step hook (--hook step_hook.py) calls "
                 "ctypes.string_at(0) on rank 2 at epoch 1 step 6; rank 2 (wds-node-b local_rank 0) dies of "
                 "SIGSEGV, its launcher stops rank 3 and the other node's ranks fail in DDP's backward on the lost "
                 "peer. evidence: 'failed (exitcode: -11) local_rank: 0 (pid: 20721) of binary: "
                 "/tmp/venv-by-w/bin/python', '  host      : wds-node-b', '  exitcode  : -11 (pid: 20721)  "
                 "(SIGSEGV)', '  traceback : Signal 11 (SIGSEGV) received by PID 20721', 'job exited with 1'",
    "preempt": f"job_preempted: {W}; a healthy run; injected: {AT} the harness, like a scheduler preempting the "
               "job, sent SIGTERM to both nodes' launchers. evidence: 'Received 15 death signal, shutting down "
               "workers', 'Sending process 21126 closing signal SIGTERM', "
               "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 21118 got signal: 15', "
               "'job exited with 1'",
    "terminal-hup": f"terminal_hangup: {W}; a healthy run; injected: {AT} SIGHUP to both nodes' launchers, as when "
                    "the ssh session that started them closes. evidence: 'Received 1 death signal, shutting down "
                    "workers', 'Sending process 21342 closing signal SIGHUP', "
                    "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 21330 got signal: 1', "
                    "'job exited with 1'",
    "node-b-missing": f"rendezvous_timeout: {W}; injected: wds-node-b's launcher is never started (the node never "
                      "joins); wds-node-a's c10d rendezvous waits its 40 s join timeout and its launcher fails. "
                      "evidence: 'self._op_executor.run(join_op, deadline, self._get_deadline)', 'raise "
                      "RendezvousTimeoutError', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', "
                      "'job exited with 1'",
    "ckpt-tmpfs": f"disk_full: {W}, run with --keep-all (a new ckpt/model-E.pt per epoch); injected: ckpt/ is an 8 KiB "
                  "tmpfs; the epoch-0 checkpoint fits, the epoch-1 save runs out of space inside torch.save and rank "
                  "0 dies; the other ranks lose their gloo peer. evidence: 'epoch 0 done, saved ckpt/model-0.pt', "
                  "'[rank0]:     zip_file.write_record(name, storage, num_bytes)', '[rank0]: RuntimeError: "
                  "basic_ios::clear: iostream error', '[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] "
                  ". unexpected pos 1088 vs 982', 'job exited with 1'",
    "hist-shape-rank3": f"collective_mismatch: {W}, with --pg-timeout 30 (gloo process-group timeout 30 s); injected: "
                        "the team's per-step hook (--hook step_hook.py) all_reduces a label histogram at epoch 1 "
                        "steps 2, 6, ...; rank 3 builds it with 3 buckets, the others with 2, so the all_reduce sizes "
                        "differ; gloo does not check the size and rank 3 and rank 1 wait until the 30 s timeout, "
                        "then the rest lose their peers. evidence: '[rank3]:     hook[\"on_step\"](rank, epoch, step, "
                        "x, y, loss)', '[rank3]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/"
                        "tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete', "
                        "'[rank0]: RuntimeError: [...pair.cc:553] Connection closed by peer [10.98.0.12]:11398. ...', "
                        "'job exited with 1'",
    "huge-lr": f"training_divergence: {W}; injected: --lr 1e30; after the first SGD step the loss is NaN and "
               "train_wds.py's finite-loss check raises on every rank. evidence: 'epoch 0 step 0: loss 0.7043', "
               "'[rank0]: FloatingPointError: [rank 0] loss is nan at epoch 0 step 1', '[rank3]: FloatingPointError: "
               "[rank 3] loss is nan at epoch 0 step 1', 'job exited with 1'",
}
