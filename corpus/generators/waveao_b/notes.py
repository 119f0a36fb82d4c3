"""What each committed run of wave AO (b) showed: the manifest rows' notes (written after the runs, from the logs)."""

NOTES = {
    "shell-ss-healthy": (
        "launch.sh starts 3 hivemind peers on one host (peer 0 bootstraps the DHT on 30501, the others join its "
        "multiaddr); BiLSTM tagger, hivemind.Optimizer with target_batch_size 1024, 10 collaboration epochs, peer 0 "
        "checkpoints every 2 epochs; gradients are averaged among the peers. Scary but harmless: 'Found no active "
        "peers' at start, request_timeout warnings, and at shutdown tracebacks ending in 'FileNotFoundError: [Errno 2] "
        "No such file or directory' and 'ConnectionResetError: [Errno 104] Connection reset by peer' from the DHT "
        "processes, 'DHT did not shut down within the grace period'. evidence: 'Averaged gradients with 3 peers', 'saved checkpoint checkpoints/ss3-epoch010.pt', "
        "'launch.sh: peer 2 exited with status 0', 'job exited with 0'"),
    "shell-ss-healthy-late-joiner": (
        "launch.sh -n 3 -d 25 with a 2-layer 1D-CNN tagger: the third peer joins 25 s after the second and downloads "
        "the collaboration's current state from a peer before it trains; all finish 10 epochs. evidence: "
        "'launch.sh: started peer 2', 'Downloading parameters from peer', '[peer 2] joined run ss3_tagger at epoch 7', "
        "'launch.sh: peer 2 exited with status 0', "
        "'job exited with 0'"),
    "dht-ss-healthy-local-updates": (
        "a standalone hivemind-dht on 30507 is the bootstrap peer; launch.sh -b starts 2 training peers that join it "
        "with use_local_updates (each applies its own steps, parameters averaged in the background); the DHT is "
        "stopped with SIGTERM at the end. Scary but harmless: 'ConnectionResetError: [Errno 104] Connection reset by "
        "peer' and 'DHT did not shut down within the grace period' at shutdown. evidence: 'Running a DHT instance', "
        "'Averaged parameters with', 'Caught signal 15 (Terminated), shutting down', 'job exited with 0'"),
    "nodes-ss-healthy-peer-leaves": (
        "two hosts (node0.log, node1.log): node 0 runs launch.sh with 2 peers, node 1 (10 s later) a third peer joining "
        "node 0's multiaddr with --max-steps 25, which leaves the collaboration early and exits 0; node 0's two peers "
        "carry on and finish. evidence: 'reached --max-steps 25, leaving the collaboration', "
        "'launch.sh: peer 1 exited with status 0', 'job exited with 0'"),
    "shell-ss-port-taken": (
        "port_in_use: a python -m http.server serving the checkpoints folder already listens on 127.0.0.1:30515, the "
        "port given to peer 0's DHT; p2pd cannot listen, hivemind.DHT raises P2PDaemonError and launch.sh gives up "
        "waiting for peer 0's multiaddr. evidence: 'hivemind.p2p.p2p_daemon_bindings.utils.P2PDaemonError: Daemon "
        "failed to start', 'bind: address already in use', 'launch.sh: peer 0 did not publish its multiaddr', "
        "'job exited with 1'"),
    "nodes-ss-stale-bootstrap": (
        "rendezvous_timeout: a peer started by hand is given --initial-peers naming a bootstrap peer that is gone (a "
        "real peer ID on 127.0.0.1:30519 from an earlier DHT, nobody listening now); p2pd cannot reach any bootstrap "
        "peer and hivemind.DHT fails to start. evidence: 'P2PDaemonError: Daemon failed to start', 'failed to connect "
        "to bootstrap peers', 'job exited with 1'"),
    "shell-ss-unknown-residue": (
        "worker_exception: training shard 1 was re-exported with 'X' (unknown residue) among the letters; peer 1's "
        "encoder (a dict lookup per residue) raises KeyError while loading its shard; peers 0 and 2 train on and finish "
        "without it, launch.sh reports peer 1's status 1. evidence: 'x = torch.tensor([AA[c] for c in seq])', "
        "\"KeyError: 'X'\", 'launch.sh: peer 1 exited with status 1', 'job exited with 1'"),
    "shell-ss-even-kernel": (
        "worker_exception: --model cnn --kernel 6 with padding kernel//2 gives every chain one extra output position, so "
        "the flattened logits no longer line up with the labels and F.cross_entropy raises ValueError on peer 0's first "
        "step (the try/finally shuts its optimizer and DHT down); peer 1, still starting, then cannot reach its "
        "bootstrap peer (peer 0, gone) and its DHT fails to start, a symptom. evidence: 'ValueError: Expected input "
        "batch_size (2560) to match target batch_size (2544).', 'failed to connect to bootstrap peers', "
        "'launch.sh: peer 0 exited with status 1', 'job exited with 1'"),
    "shell-ss-dssp-shard": (
        "training_divergence (NaN loss, stopped by the script's check): shard 2 was written with DSSP 8-state letters "
        "(G/B/T) instead of H/E/C; every residue of peer 2 maps to ignore_index, so its mean loss over zero residues is "
        "NaN, and at its first epoch boundary the non-finite check raises; the other peers finish. evidence: "
        "'FloatingPointError: loss is nan', 'launch.sh: peer 2 exited with status 1', 'job exited with 1'"),
    "shell-ss-checkpoints": (
        "disk_full: checkpoints/ is a 1 MB tmpfs already holding 600 kB of an earlier run's archive; peer 0's "
        "torch.save of the first checkpoint runs out of space and PyTorch's zip writer reports it as an iostream error "
        "and an inline_container enforce failure; peer 1 trains on alone and finishes. evidence: "
        "'RuntimeError: basic_ios::clear: iostream error', 'inline_container.cc', "
        "'launch.sh: peer 0 exited with status 1', 'job exited with 1'"),
    "shell-ss-deep-lstm": (
        "host_oom_killed: 3 peers of a 3-layer BiLSTM with 1024 hidden units (about 59M parameters, plus gradients, "
        "Adam state and hivemind's averaging buffers) in a 2.5 GB cgroup-v1 memory cgroup; while the peers build "
        "hivemind.Optimizer the kernel's memory-cgroup OOM killer SIGKILLs peer 0, then peers 2 and 1 (dmesg: 'Memory "
        "cgroup out of memory: Killed process'); bash reports each kill. evidence: '[peer 0] model bilstm: 59038371 "
        "parameters', 'Killed                  python train_ss.py', 'launch.sh: peer 0 exited with status 137', "
        "'job exited with 137'"),
    "shell-ss-time-limit": (
        "job_preempted: 3 peers training a long run (200 epochs); 2 s after the first 'epoch 3:' line every "
        "train_ss.py process gets SIGTERM from outside (a scheduler's time limit); all peers exit 143. evidence: "
        "'launch.sh: peer 0 exited with status 143', 'launch.sh: peer 2 exited with status 143', 'job exited with 143'"),
    "shell-ss-small-shm": (
        "shm_exhausted: the job runs with a 2 MB /dev/shm (private mount namespace, like a container's default); "
        "hivemind.Optimizer puts the 2.2M-parameter model's averaging tensors in shared memory and torch cannot "
        "allocate them on either peer; the peers then hang at interpreter exit on hivemind's threads and the user "
        "presses Ctrl-C 60 s later (no 'job exited' line: the shell got SIGINT too). evidence: 'RuntimeError: unable "
        "to allocate shared memory(shm) for file', 'No space left on device (28)', 'cannot schedule new futures after "
        "interpreter shutdown'"),
    "nodes-ss-hidden-mismatch": (
        "collective_mismatch: node 0's peer runs the BiLSTM with --hidden 64, node 1's peer (same run_id, joining node "
        "0's multiaddr 6 s later) --hidden 96; node 1's state download and the state-averaging rounds fail on the "
        "tensor shapes, hivemind logs the errors and both peers train 20 epochs without ever combining their work; both "
        "consoles exit 0 (node 1's model ends far behind: valid Q3 0.5174 against node 0's 0.8599). evidence: "
        "'RuntimeError: The size of tensor a (384) must match the size of tensor b (256)', '[peer 1] model bilstm: "
        "101091 parameters', '[peer 1] done: 1277 local steps, epoch 20, valid Q3 0.5174', 'job exited with 0'"),
}
