"""Manifest notes for wave BM (a)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("JAX 0.10.2 + optax 0.2.8 (pip, CPU jaxlib), Python 3.11.7: data-parallel MLP regressor (32 -> 128 -> 128 -> 1, "
     "gelu) on synthetic per-process shards; each process calls jax.distributed.initialize(coordinator_address="
     "'localhost:PORT', num_processes=N, process_id=i), gradients and loss are averaged with "
     "multihost_utils.process_allgather each step, optax clip+Adam, process 0 logs (python logging) and np.savez "
     "checkpoints every 50 steps; launched by a bash launcher that starts N processes, waits and prints each exit "
     "status: 'nice -n 5 ./launch.sh --nproc N --port PORT -- ")
NOTES = {
    "healthy-resume": (
        f"no_failure: {W}--resume --steps 400 --log-every 20' (2 processes); an earlier unlogged 150-step run in the "
        "same job dir left checkpoints/step_000150.npz; both processes load it, re-initialize the optimizer state and "
        "train to step 400; both exit 0. Noise: JAX's 'Unable to initialize backend tpu ... libtpu.so' INFO lines. "
        "evidence: '2026-12-02 19:30:14,263 [p1] INFO train: resumed from checkpoints/step_000150.npz (step 150); "
        "optimizer state re-initialized', '2026-12-02 19:30:27,603 [p0] INFO train: training finished: 250 steps in "
        "10.0s', 'job exited with 0'"),
    "rank-sigkill": (
        f"host_oom_killed: {W}--steps 6000 --log-every 50' (2 processes); when process 0 printed step 300 the "
        "harness sent SIGKILL to process 1 from outside (as the kernel OOM killer would); process 0's next "
        "process_allgather fails with a Gloo 'Connection reset by peer' ValueError, then the coordination service "
        "reports task 1's heartbeat timeout and process 0 aborts (SIGABRT) in shutdown; the launcher reports "
        "process 1 status 137 (signal 9). evidence: '2026-12-02 19:30:56,925 [p0] INFO train: step 300/6000 loss "
        "0.02155 (4054 samples/s)', 'ValueError: UNKNOWN: Gloo AllGather failed: [external/gloo/gloo/transport/tcp/"
        "pair.cc:538] Read error [127.0.0.1]:51935: Connection reset by peer', '[launch] process 1 (pid 23959) "
        "exited with status 137 (signal 9)'"),
}
