"""Manifest notes for wave BM (b)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("MLX 0.32.4 (pip mlx[cpu], Linux CPU), Python 3.11.7, ring backend over 127.0.0.1: data-parallel character-level "
     "MLP language model (embedding 32, context 16, 2 hidden layers) on a synthetic word corpus, gradients averaged "
     "with nn.average_gradients (all_sum), loss all_sum-averaged, AdamW; rank 0 saves mx.save_safetensors checkpoints "
     "every 100 steps; launched with 'nice -n 5 mlx.launch --backend ring -n N --starting-port PORT python train.py")
NOTES = {
    "healthy-resume": (
        f"no_failure: {W} --resume --steps 400' (2 ranks); an earlier unlogged 200-step run left "
        "checkpoints/step_000200.safetensors; both ranks resume from it and finish; exit 0. evidence: '[19:29:31] "
        "[rank 0] resumed from checkpoints/step_000200.safetensors (step 200)', '[19:29:41] [rank 1] training "
        "finished: 200 steps in 10.1s', 'job exited with 0'"),
    "healthy-3ranks": (
        f"no_failure: {W} --steps 300 --log-every 10' with -n 3; plain healthy run, exit 0. evidence: '[19:30:20] "
        "[rank 0] training finished: 300 steps in 35.4s', '[19:30:20] [rank 2] training finished: 300 steps in "
        "35.2s', 'job exited with 0'"),
    "rank-sigkill": (
        f"host_oom_killed: {W} --steps 3000' (2 ranks); when rank 0 printed step 200 the harness SIGKILLed rank 1 "
        "(MLX_RANK=1) from outside, as the OOM killer would; rank 0's ring ops fail and the launcher ends it. "
        "evidence: 'Node with rank 1 exited with code -9', '[ring] Too many send/recv errors. Failing pending "
        "tasks...', 'RuntimeError: [ring] connection to a peer was lost'"),
    "rank-segv": (
        f"native_crash: {W} --steps 400' (2 ranks); a step callback (data/hooks.py) on rank 1 calls "
        "ctypes.string_at(0) at step 140, a real SIGSEGV; rank 0 then loses its ring peer. evidence: 'Node with "
        "rank 1 exited with code -11', 'RuntimeError: [ring] connection to a peer was lost'"),
    "huge-lr": (
        f"training_divergence: {W} --lr 1e4 --steps 400' (2 ranks); the loss is NaN at the first log step and the "
        "script's finite-loss check raises. evidence: 'FloatingPointError: loss is nan at step 20; aborting (check "
        "learning rate / data)'"),
    "rank-exception": (
        f"worker_exception: {W} --steps 400' (2 ranks); a gradient callback (data/hooks.py) on rank 1 looks up a "
        "misspelt key at step 150 and raises KeyError; rank 0 then loses its ring peer. evidence: \"KeyError: "
        "'weigth'\", 'RuntimeError: [ring] connection to a peer was lost'"),
    "rank-stopped-sched-kill": (
        f"silent_hang: {W} --steps 3000' (2 ranks); at step 200 the harness SIGSTOPped rank 1; rank 0 blocks in "
        "all_sum with no message; 25 s after start the scheduler SIGTERMs the launcher (SIGKILL 15 s later). "
        "evidence: '[19:31:11] [rank 0] step 200/3000 loss 0.6639 lr 3.00e-03 22688 tok/s', 'Terminated', "
        "'job exited with 143'"),
    "preempt": (
        f"job_preempted: {W} --steps 3000' (2 ranks); at step 200 of a progressing run the scheduler SIGTERMs the "
        "launcher. evidence: '[19:31:35] [rank 0] saved checkpoint checkpoints/step_000200.safetensors', "
        "'Terminated', 'job exited with 143'"),
    "terminal-hup": (
        f"terminal_hangup: {W} --steps 3000' (2 ranks); at step 200 the launcher got SIGHUP. evidence: 'bash: line "
        "1: 24471 Hangup                  nice -n 5 mlx.launch --backend ring -n 2 --starting-port 35090 python "
        "train.py --steps 3000', 'job exited with 129'"),
    "ckpt-tmpfs": (
        f"disk_full: {W} --steps 400' (2 ranks) with checkpoints/ a 500k tmpfs; the step-100 save succeeds partly "
        "and a later save runs out of space in mx.save_safetensors on rank 0; rank 1 then loses its peer. evidence: "
        "'RuntimeError: [write] Unable to write 179340 bytes to file.', 'RuntimeError: [ring] connection to a peer "
        "was lost'"),
    "port-taken": (
        f"port_in_use: {W} --steps 200' (2 ranks, starting port 35110); an unrelated http.server already held "
        "127.0.0.1:35111 (rank 1's ring port), so ring init fails to bind. evidence: 'RuntimeError: [ring] "
        "Couldn't bind socket (error: 98)', 'group = mx.distributed.init(strict=True)'"),
    "wrong-python": (
        f"library_version_mismatch: {W}' but the launch names /usr/bin/python3 (a system interpreter without mlx) "
        "instead of the venv's python; both ranks fail at import. evidence: \"ModuleNotFoundError: No module named "
        "'mlx'\", '    import mlx.core as mx'"),
    "cgroup-oom": (
        f"host_oom_killed: {W} --hidden 6144 --steps 200' (41M params) in a 700 MB cgroup-v1 memory limit; the "
        "kernel OOM-kills both ranks before the first logged step. evidence: '[19:31:59] [rank 0] model CharMLP "
        "params 41073531', 'Node with rank 1 exited with code -9', 'job exited with 0'"),
}
