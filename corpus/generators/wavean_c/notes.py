"""What each committed wave AN (c) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "keystroke_fl.py (federated keystroke-dynamics authentication: each organisation's Flower client holds synthetic " \
    "typing-timing exports of its own users (31 hold/keydown-keydown/keyup-keydown timings of the passphrase " \
    ".tie5Roanl); a numpy verification MLP on |x_a - x_b| trained on genuine/impostor pairs; the server aggregates, " \
    "evaluates the equal error rate on its own validation users and saves global-roundNNN.npz every round)"
F = "run_federation.sh (flwr 1.42.0's deprecated start_server/start_client gRPC API: server and one client per " \
    "organisation as background processes of one script, all output on one console)"
H = "start_server/start_client with the server and the clients as separate 'hosts' (consoles)"
D = "run_deployment.sh (Flower's deployment engine: flower-superlink, one flower-supernode per organisation with " \
    "--node-config data=..., then flwr run . --stream of the keyfl Flower App whose ServerApp wraps the same " \
    "strategy; all output on one console)"
NOTES = {
    "fed-typing-healthy":
        f"{F}, {W}, 3 organisations, FedAvg, 8 rounds: start_server/start_client deprecation warnings, every round "
        "aggregates 3 of 3 updates. evidence: 'DEPRECATED FEATURE: flwr.server.start_server() is deprecated', "
        "'aggregate_fit: received 3 results and 0 failures', 'done: 8 rounds, final validation EER 0.0167', "
        "'job exited with 0'",
    "fed-typing-healthy-fedprox-dropout":
        f"{F}, {W}, 4 organisations, FedProx, --min-clients 3 --accept-failures: org-4's client is SIGKILLed from "
        "outside in round 3 (its machine rebooted by IT) just after it replied; Flower drops it from the client "
        "manager and the remaining 3 organisations (the minimum) finish all rounds; the script reports the killed "
        "background job at the end. Not a failure of the run. evidence: 'aggregate_fit: received 4 results' then "
        "'received 3 results and 0 failures', 'done: 8 rounds, final validation EER 0.0150', "
        "'./run_federation.sh: line 15: ... Killed ... --data data/$org.csv', 'job exited with 0'",
    "fed-typing-all-impostors":
        f"{F}, {W}, --all-impostor-pairs (every impostor pair of the organisation's training users built by "
        "broadcasting, then the hardest kept) inside a 1.3 GB memory cgroup; org-3's re-export has 50 users x 40 "
        "repetitions (2000 rows), so its pair tensor is ~0.7 GB twice over; the kernel OOM killer SIGKILLs org-3's "
        "client in round 1's fit; the server sees the gRPC stream close and the script refuses a partial round. "
        "evidence: '[org-3] loaded data/org-3.csv: 2000 repetitions of 50 users', 'round 1: client failure: "
        "GrpcBridgeClosed()', 'RuntimeError: round 1: 1 of 3 organisations failed', './run_federation.sh: line 15: "
        "20879 Killed ... keystroke_fl.py client', 'job exited with 1'",
    "fed-typing-key-travel":
        f"{F}, {W}, --layout-features: a small C helper (libkeymap.so via ctypes, built with gcc in the job) adds "
        "physical key-travel distances between consecutive keys, looking each key name up in a US-keyboard table and "
        "dereferencing the result without a NULL check; org-2's enrolment tool names the Return key 'Enter', the "
        "lookup returns NULL and org-2's client dies with SIGSEGV in round 1. evidence: 'Fatal Python error: "
        "Segmentation fault', faulthandler frame 'keystroke_fl.py, line 56 in layout_features', 'round 1: client "
        "failure: GrpcBridgeClosed()', './run_federation.sh: line 15: ... Segmentation fault', 'job exited with 1'",
    "fed-typing-consortium":
        f"{F}, {W}, --min-clients 4 --join-timeout 60 (the consortium has four organisations) but only 3 exports "
        "are present on this box, so 3 clients start; the script's client manager gives up waiting after 60 s; the "
        "clients then lose the server. evidence: 'waiting for 4 organisations (3 connected, join timeout 60 s)', "
        "'TimeoutError: only 3 of 4 organisations joined within 60 s', 'StatusCode.UNAVAILABLE ... Stream removed "
        "(Socket closed)', 'job exited with 1'",
    "fed-typing-round-deadline":
        f"{F}, {W}, --round-timeout 4 (ServerConfig round_timeout) with clients using --hard-negatives (every round "
        "each training repetition is paired with the impostor the current global model scores highest, a Python "
        "loop over repetitions); org-3's re-export has 150 users (6000 rows), so its mining outlasts the 4 s round "
        "deadline while org-1 and org-2 reply in time; Flower closes org-3's pending request and the script refuses "
        "the partial round. evidence: 'Starting Flower server, config: num_rounds=8, round_timeout=4.0s', '[org-3] "
        "loaded data/org-3.csv: 6000 repetitions of 150 users' and no org-3 epoch line, 'aggregate_fit: received 2 "
        "results and 1 failures', 'round 1: client failure: GrpcBridgeClosed()', 'job exited with 1'",
    "fed-typing-new-keylogger":
        f"{F}, {W}: org-2's export comes from a new keylogger that writes milliseconds instead of seconds (values "
        "1000x); org-2's local training overflows (RuntimeWarning: overflow encountered in exp) and its own loss "
        "stays near 0.69, but FedAvg with the two other organisations keeps the global model good and the run ends "
        "normally (planned as training_divergence; relabelled, see README). evidence: 'keystroke_fl.py:90: "
        "RuntimeWarning: overflow encountered in exp', 'done: 6 rounds, final validation EER 0.0200', 'job exited "
        "with 0'",
    "fed-typing-sensor-dropouts":
        f"{F}, {W}: org-1's re-export writes 'nan' for dropped timings (every 53rd row); float('nan') parses, the "
        "NaN inputs make org-1's local loss and weights NaN, FedAvg averages the NaN update into the global model "
        "and every later round is NaN for everyone; the server keeps running uselessly to the end. evidence: "
        "'[org-1] round 1 local epoch 1/2 loss nan', 'server eval round 1: loss nan EER nan', 'done: 6 rounds, final "
        "validation EER nan', 'job exited with 0'",
    "fed-typing-audit-updates":
        f"{F}, {W}, --hidden 128 --keep-client-updates --save-dir on a 3 MB node-local volume that already holds "
        "1.5 MB of earlier runs: the server saves the global model and every organisation's update each round "
        "(~0.2 MB each); np.savez fails in round 2's aggregate_fit. evidence: 'OSError: [Errno 28] No space left on "
        "device' (numpy _savez / zipfile write), 'server exited with 1', 'job exited with 1'",
    "fed-typing-nightly-sync":
        f"{F}, {W}, clients with --wait-for-sync --refresh-data (each fit waits while data/<org>.sync.lock exists, "
        "then re-reads the export); after round 2 the nightly export sync takes org-2's lock and dies without "
        "removing it (the lock file made by the harness), so org-2's client waits forever in round 3 without a "
        "word while the server (no round timeout) waits for its reply; after ~90 s without output the user presses "
        "Ctrl-C (SIGINT to the process group). evidence: 'round 2: aggregated 3 updates', '[ROUND 3]', org-1 and "
        "org-3 round-3 epochs and 'Sent reply' but nothing from org-2, then only 'Flower server terminated "
        "gracefully.'",
    "fed-typing-team-site":
        f"{F}, {W}: PYTHONPATH points at the team's shared site directory, which holds protobuf 4.25.9 (installed "
        "there for an older tool); it shadows the venv's protobuf 6.33 and flwr 1.42's generated _pb2 modules "
        "cannot import. evidence: 'from google.protobuf import runtime_version as _runtime_version', 'ImportError: "
        "cannot import name 'runtime_version' from 'google.protobuf' (/tmp/wavean-c-job/site-packages/google/"
        "protobuf/__init__.py)', 'server exited with 1', 'job exited with 1'",
    "hosts-typing-healthy-mixed-versions":
        f"{H}: node0.log is run_federation.sh with the server and org-1/org-2, node1.log is org-3's client on "
        "another 'host' started 8 s later from an older environment (flwr 1.20.0, protobuf 4.25); the old client "
        f"speaks the same legacy gRPC protocol and the run finishes. {W}. evidence: node0 'done: 8 rounds, final "
        "validation EER 0.0167', 'job exited with 0'; node1 'start_client() is deprecated', '[org-3] disconnected, "
        "bye', 'job exited with 0'",
    "hosts-typing-host-lost":
        f"{H}, only the server's console kept (job.log); {W}, 30 rounds: org-2's client host is lost in round 22 "
        "(its client SIGKILLed from outside); the server only sees the gRPC stream close and the script refuses the "
        "partial round. evidence: 'aggregate_fit: received 2 results and 1 failures', 'round 22: client failure: "
        "GrpcBridgeClosed()', 'RuntimeError: round 22: 1 of 3 organisations failed', 'job exited with 1'",
    "deploy-typing-healthy-fedadam":
        f"{D}, {W}, FedAdam with server-lr 0.005, 5 rounds: uvicorn start-up lines, SuperNodes log 'Connection "
        "attempt failed, retrying' while the SuperLink shuts down after the run (harmless); EER still falling at "
        "the end. evidence: 'aggregate_fit: received 3 results and 0 failures', 'All logs for run ID ... returned', "
        "'flwr run exited with 0', 'job exited with 0'",
    "deploy-typing-export-glitch":
        f"{D}, {W}: org-2's re-export has an empty cell every 97 rows (an export glitch); the ClientApp raises "
        "ValueError while parsing inside org-2's SuperNode, Flower sends the error back as the reply, and the "
        "ServerApp's strategy refuses the partial round. evidence: 'ERROR: ClientApp raised an exception', "
        "'ValueError: could not convert string to float', 'round 1: client failure: ValueError(Message contains an "
        "Error ... It originated during client-side execution of a message.)', 'ServerApp raised an exception', "
        "'RuntimeError: round 1: 1 of 3 organisations failed', 'Exit Code: 201'",
    "deploy-typing-second-link":
        f"{D}, {W}: a colleague's flower-superlink (not logged) already listens on 30331, the port named in the "
        "shared flwr_home/config.toml; run_deployment.sh's own SuperLink fails to bind, but the SuperNodes and flwr "
        "run reach the colleague's SuperLink on the same port and the 5-round run completes there (planned as "
        "port_in_use; relabelled, see README). evidence: 'ERROR [uvicorn.error] [Errno 98] error while attempting to "
        "bind on address ('127.0.0.1', 30331): address already in use', 'aggregate_fit: received 3 results and 0 "
        "failures', 'flwr run exited with 0', 'job exited with 0'",
    "deploy-typing-node-drain":
        f"{D}, {W}, 30 rounds: in round 3 SIGTERM from outside reaches every Flower process of the job (SuperLink, "
        "SuperNodes, SuperExec, app processes, flwr run), as a node drain would; the Flower processes exit through "
        "their signal handlers and flwr run dies of the signal. evidence: '[ROUND 3]', 'SuperNode terminated "
        "gracefully.', 'SuperExec terminated gracefully.', 'Terminated', 'flwr run exited with 143', 'job exited "
        "with 143'",
}
