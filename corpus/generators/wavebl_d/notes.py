"""Manifest notes for wave BL (d)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("Flower 1.42.0 deployment engine (flwr from PyPI), torch 2.13.0+cpu, Python 3.11.7, CPU only: federated "
     "training of a small MLP classifier (24-64-64-10) on per-site synthetic tabular shards, FedAvg (a subclass "
     "that stops the run when a sampled site's train reply is an error unless accept-failures is set), server "
     "torch.saves the global model every round; one 'flower-superlink --insecure --port 29960 "
     "--disable-runtime-dependency-installation' and N 'flower-supernode --insecure --superlink 127.0.0.1:29960 "
     "--port 2997K --node-config \"partition-id=K num-partitions=N\"' in the background of the job shell, then "
     "'flwr run . local-deployment --stream")
NOTES = {
    "healthy-2sites": (
        f"no_failure: {W}' (2 sites, 2 rounds, 2 local epochs); first use migrates the pyproject federations to "
        "~/.flwr/config.toml ('Heads up from Flower!' notice), insecure-mode WARNINGs, fraction_evaluate 0 WARNING; "
        "both rounds aggregate 2 results, global model saved each round, exit 0. evidence: 'round 2: saved global "
        "model to checkpoints/global_round_002.pt (weight norm 7.4785)', 'training finished; final model saved to "
        "checkpoints/final_model.pt', 'job exited with 0'"),
    "healthy-late-shard-3sites": (
        f"no_failure: {W} --run-config \"accept-failures=true min-train-nodes=2\"' with 3 SuperNodes; site 2's shard "
        "was still in staging/ (a background 'sleep 55; mv staging/site-2.* data/' in the launch line, meant to "
        "land after round 1, came after the whole run), so site 2's ClientApp raised FileNotFoundError in both "
        "rounds (full traceback, Flower 'Exit Code: 800'); FedAvg tolerated it (2 results and 1 failure each "
        "round) and the run finished, exit 0. evidence: \"FileNotFoundError: [Errno 2] No such file or directory: "
        "'data/site-2.bin'\", 'aggregate_train: Received 2 results and 1 failures', 'training finished; final "
        "model saved to checkpoints/final_model.pt'"),
    "healthy-nodes-first-legacy-flags": (
        f"no_failure: {W}' variant: the launch line starts the two SuperNodes 6 s BEFORE the SuperLink (they log "
        "'Connection attempt failed, retrying' until it is up), the SuperLink with the deprecated "
        "'--fleet-api-address 127.0.0.1:29961 --control-api-address 127.0.0.1:29962' (deprecation WARNINGs), and "
        "then by a copy-paste slip starts the same two SuperNodes a second time: those two fail to bind their "
        "runtime ports 29971/29972 ('[Errno 98] ... address already in use', RuntimeError traceback) and exit, "
        "while the first pair trains; 2 rounds with 2 of 2 nodes, exit 0. evidence: 'Connection attempt failed, "
        "retrying in 0.67 seconds', \"ERROR:    [Errno 98] error while attempting to bind on address "
        "('127.0.0.1', 29971): address already in use\", 'training finished; final model saved to "
        "checkpoints/final_model.pt'"),
    "site-bad-label": (
        f"worker_exception: {W}' (3 rounds configured); site 1's shard has label 12 at row 200 (10 classes), so "
        "its ClientApp raises IndexError in CrossEntropyLoss in round 1 (traceback through fedtab/task.py train); "
        "the ServerApp gets the error reply and raises RuntimeError (accept-failures false), Flower 'Exit Code: "
        "201'; flwr run still exits 0. evidence: 'IndexError: Target 12 is out of bounds.', \"round 1: train "
        "reply from node 14961521938173604431 failed: <class 'IndexError'>:<'Target 12 is out of bounds.'>\", "
        "'RuntimeError: round 1: 1 of 2 sampled sites failed to train (accept-failures is false)'"),
    "site-shard-header-segv": (
        f"native_crash: {W}'; site 1's shard header claims 2,000,000,000 rows, so the ctypes helper "
        "fn_standardize (libfeatnorm.so) reads far past the buffer and the site-1 ClientApp process dies of "
        "SIGSEGV in round 1 (reproduced outside the job: the same load exits 139 'Segmentation fault'); Flower "
        "prints no signal, only that the ClientApp stopped responding; the ServerApp raises on the error reply. "
        "evidence: 'round 1: train reply from node 7741187572269303165 failed: ClientApp stopped responding.', "
        "'RuntimeError: round 1: 1 of 2 sampled sites failed to train (accept-failures is false)', 'job exited "
        "with 0'"),
    "huge-lr": (
        f"training_divergence: {W} --run-config \"lr=1000000.0\"'; both sites' local loss is nan from the 5th "
        "batch of round 1, FedAvg aggregates train_loss nan, the server saves a global model with weight norm nan "
        "and its finite check raises FloatingPointError. evidence: '[site 0] round 1 local training done: 320 "
        "examples, train_loss nan, 1.7s', 'round 1: saved global model to checkpoints/global_round_001.pt (weight "
        "norm nan)', 'FloatingPointError: global model has non-finite weights after round 1 (norm nan)'"),
    "supernode-stopped": (
        f"silent_hang: {W} --run-config \"num-server-rounds=4\"'; SIGSTOP from outside to site 1's "
        "flower-supernode process as its round-2 training began (its ClientApp subprocess finished the round but "
        "could not hand the reply to the frozen SuperNode: 'Connection attempt failed, retrying'); the SuperLink's "
        "heartbeat check then answered the ServerApp with a Node Unavailable error reply and the ServerApp raised "
        "(accept-failures false), so the job ended by itself after 90 s before the planned scheduler kill. Label "
        "is the frozen node; Flower's heartbeat message is the only watchdog. evidence: '[site 1] round 2 local "
        "training done: 320 examples, train_loss 1.6892, 1.4s', 'round 2: train reply from node 1 failed: Error: "
        "Node Unavailable — The destination node failed to report a heartbeat within 2 × its expected "
        "interval.', 'RuntimeError: round 2: 1 of 2 sampled sites failed to train (accept-failures is false)'"),
    "preempt": (
        f"job_preempted: {W} --run-config \"num-server-rounds=4\"'; when round 2 of 4 started, SIGTERM "
        "(scheduler style) to every process the job shell started (SuperLink, both SuperNodes, flwr run); the "
        "SuperNodes log a graceful stop, bash prints Terminated, exit 143. evidence: 'round 1: saved global model "
        "to checkpoints/global_round_001.pt (weight norm 7.0425)', 'SuperNode terminated gracefully.', "
        "'Terminated', 'job exited with 143'"),
    "terminal-hup": (
        f"terminal_hangup: {W} --run-config \"num-server-rounds=4\"'; when round 2 of 4 started, SIGHUP to every "
        "process the job shell started (as when the launching terminal closes); the SuperLink and flwr run die "
        "of it (bash reports Hangup), exit 129. evidence: 'bash: line 1: 22249 Hangup                  nice -n 5 "
        "flower-superlink --insecure --port 29960 --disable-runtime-dependency-installation', 'bash: line 1: "
        "22329 Hangup                  nice -n 5 flwr run . local-deployment --stream --run-config "
        "\"num-server-rounds=4\"', 'job exited with 129'"),
    "superlink-port-taken": (
        f"port_in_use: {W}'; a stale 'python -m http.server --bind 127.0.0.1 29960' (left over, started before "
        "the job) holds the SuperLink port: the SuperLink's uvicorn fails to bind and exits, the SuperNodes and "
        "flwr run reach the stale HTTP server instead and get 501 for their POSTs (SuperNode 'Exit Code: 305'), "
        "flwr run fails, exit 1 (KeyboardInterrupt tracebacks from the processes torn down while importing). "
        "evidence: \"ERROR [uvicorn.error] [Errno 98] error while attempting to bind on address ('127.0.0.1', "
        "29960): address already in use\", \"Server error '501 Unsupported method ('POST')' for url "
        "'http://127.0.0.1:29960/v1/fleet/register-node'\", 'job exited with 1'"),
    "site-hidden-override": (
        f"worker_exception: {W}' with site 1's SuperNode started with --node-config \"partition-id=1 "
        "num-partitions=2 hidden=32\" (a per-site width override the ClientApp honours) while the server's global "
        "model has hidden 64: site 1's ClientApp raises RuntimeError in load_state_dict (size mismatch for every "
        "layer) in round 1 before training; the ServerApp raises on the error reply. The shapes differ between "
        "server and one client, but the failure is the client's exception, not an aggregation across sites. "
        "evidence: 'RuntimeError: Error(s) in loading state_dict for Net:', 'size mismatch for body.0.weight: "
        "copying a param with shape torch.Size([64, 24]) from checkpoint, the shape in current model is "
        "torch.Size([32, 24]).', 'RuntimeError: round 1: 1 of 2 sampled sites failed to train (accept-failures "
        "is false)'"),
    "ckpt-tmpfs": (
        f"disk_full: {W} --run-config \"hidden=96\"' with checkpoints/ a 64 KiB tmpfs; the round-1 global "
        "model (12682 parameters, ~51 KB) fits, the round-2 torch.save runs out of space: PyTorch's zip writer "
        "reports it only as an iostream error / 'unexpected pos' (no errno text), the ServerApp raises, Flower "
        "'Exit Code: 201'. evidence: 'round 1: saved global model to checkpoints/global_round_001.pt (weight "
        "norm 8.3733)', 'RuntimeError: basic_ios::clear: iostream error', 'RuntimeError: [enforce fail at "
        "inline_container.cc:672] . unexpected pos 1152 vs 1046'"),
    "healthy-resume": (
        f"no_failure: {W} --run-config 'resume-from=\"checkpoints/global_round_002.pt\"''; an earlier "
        "unlogged 2-round run of the same launch in the same job dir left checkpoints/global_round_002.pt and "
        "~/.flwr (so no migration notice this time); the ServerApp resumes from it and trains rounds 3-4, exit 0. "
        "evidence: 'resumed global model from checkpoints/global_round_002.pt (round 2)', 'round 4: saved global "
        "model to checkpoints/global_round_004.pt (weight norm 9.4855)', 'training finished; final model saved "
        "to checkpoints/final_model.pt'"),
    "third-site-missing": (
        f"rendezvous_timeout: {W} --run-config \"min-train-nodes=3\"' with the SuperNodes' node-config saying "
        "num-partitions=3 but only sites 0 and 1 started (the third SuperNode never joins); FedAvg waits for 3 "
        "available nodes at round 1 and Flower logs 'Waiting for nodes to connect' every second (no timeout of "
        "its own); after 75 s the scheduler SIGTERMs the job (bash prints Terminated, exit 143). evidence: "
        "'Minimum available nodes: 3', 'Waiting for nodes to connect: 2 connected (minimum required: 3).', "
        "'job exited with 143'"),
    "mem-capped-job": (
        f"host_oom_killed: {W} --run-config \"hidden=1024\"' with the whole job in a 900 MB cgroup-v1 memory "
        "limit; SuperLink, two SuperNodes and flwr run come up, but when the SuperLink starts the flwr-serverapp "
        "process (which imports torch) the cgroup hits its limit and the kernel OOM-kills a process (the cgroup's "
        "memory.oom_control went from oom_kill 0 to 1 one second after 'Start `flwr-serverapp` process', "
        "max_usage 899997696 bytes; polled outside the job); the ServerApp never prints anything, Flower ends the "
        "log stream and flwr run exits 0. Which process died is inferred from the timing (the ServerApp). "
        "evidence: 'Start `flwr-serverapp` process', 'Successfully installed fedtab to "
        "/tmp/wavebl-d-job/home/.flwr/apps/acme-ml.fedtab.1.0.0.42379ff5.', 'All logs for run ID "
        "`6982206834634378594` returned'"),
    "supernode-sigkill-round1": (
        f"host_oom_killed: {W} --run-config \"num-server-rounds=4 round-timeout=30\"'; SIGKILL from outside "
        "(OOM-killer style) to site 1's flower-supernode process during its round-1 training; its orphaned "
        "ClientApp still prints the rest of round 1 but the reply has nowhere to go; the server aggregates round 1 "
        "from 1 result after the 30 s timeout, then in round 2 the SuperLink answers for the dead node with a "
        "Node Unavailable (missed heartbeat) error reply and the ServerApp raises; bash reports the killed "
        "SuperNode last. evidence: 'aggregate_train: Received 1 results and 0 failures', 'round 2: train reply "
        "from node 1 failed: Error: Node Unavailable — The destination node failed to report a heartbeat within "
        "2 × its expected interval.', 'bash: line 1: 26861 Killed                  nice -n 5 flower-supernode "
        "--insecure --superlink 127.0.0.1:29960 --port 29972 --node-config \"partition-id=1 num-partitions=2\"'"),
}
