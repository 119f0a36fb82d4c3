"""Generate wave BL (d)'s real runs (sealed batch ``heldout67``, ecosystem ``flower``): federated training of a
small MLP classifier with Flower 1.42.0 (flwr from PyPI) and PyTorch 2.13.0+cpu clients, run with Flower's
deployment engine on one machine the way a team does: one ``flower-superlink --insecure`` and 2-3
``flower-supernode --insecure`` started in the background of the job's shell, then ``flwr run . local-deployment
--stream`` (the Flower App in ``project/``), everything on one console:

    flower-superlink --insecure --port 29960 --disable-runtime-dependency-installation &
    flower-supernode --insecure --superlink 127.0.0.1:29960 --port 2997K --node-config "partition-id=K num-partitions=N" &
    flwr run . local-deployment --stream [--run-config ...]

Every scenario empties the neutral job directory ``/tmp/wavebl-d-job/run``, copies ``project/`` in, runs
``prep_data.py`` (synthetic per-site shards, builds ``libfeatnorm.so``; not logged), runs the launch and appends the
shell's ``job exited with N``. Uses the shared harness (``../harness.py``). Ports 29950-29999 only.

    python3 corpus/generators/wavebl_d/generate.py --list
    python3 corpus/generators/wavebl_d/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bl-d`` (``--system-site-packages``; torch from the local
2.13.0+cpu wheel, ``pip install flwr``).
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _rank(p):
    """A SuperNode's rank is its partition-id (from its command line); everything else has none."""
    cmd = " ".join(p.cmdline())
    if "flower-supernode" not in cmd:
        return None
    for tok in cmd.replace('"', " ").split():
        if tok.startswith("partition-id="):
            return int(tok.split("=", 1)[1])
    return None


WAVE = Wave(tag="wavebl-d", here=HERE, split="heldout67", ecosystem="flower", bin=Path("/tmp/venv-bl-d/bin"),
            fragment="wave-bl-runs-d.csv", project=HERE / "project", rank_of=_rank)
PREP = "{py} prep_data.py"
LINK = "nice -n 5 flower-superlink --insecure --port 29960 --disable-runtime-dependency-installation & sleep 4; "


def node(k: int, n: int, extra: str = "") -> str:
    return (f"nice -n 5 flower-supernode --insecure --superlink 127.0.0.1:29960 --port {29971 + k} "
            f"--node-config \"partition-id={k} num-partitions={n}{(' ' + extra) if extra else ''}\" & ")


def fl(n: int = 2, cfg: str = "", link: str = LINK, nodes: str = "", pre: str = "") -> str:
    nodes = nodes or "".join(node(k, n) for k in range(n))
    return (pre + link + nodes + "sleep 5; nice -n 5 flwr run . local-deployment --stream"
            + (f" --run-config \"{cfg}\"" if cfg else "") + EXIT)


DONE = r"training finished[\s\S]*job exited with 0"
SLOW = "--run-config \"num-server-rounds=4\""
LEGACY = ("nice -n 5 flower-superlink --insecure --port 29960 --fleet-api-address 127.0.0.1:29961 "
          "--control-api-address 127.0.0.1:29962 --disable-runtime-dependency-installation & sleep 4; ")

SCENARIOS = [
    Scenario("healthy-2sites", "no_failure", fl(2), DONE, prep=PREP, timeout=240),
    Scenario("healthy-late-shard-3sites", "no_failure", fl(3, "accept-failures=true min-train-nodes=2",
             pre="(sleep 55; mv staging/site-2.* data/) & "),
             r"1 failures[\s\S]*training finished[\s\S]*job exited with 0", prep=PREP + " --stage-site 2",
             timeout=200),
    Scenario("healthy-nodes-first-legacy-flags", "no_failure", fl(2, link="sleep 6; " + LEGACY,
             pre=node(0, 2) + node(1, 2)), r"Connection attempt failed[\s\S]*training finished[\s\S]*job exited with 0",
             prep=PREP, timeout=200),
    Scenario("site-bad-label", "worker_exception", fl(2), r"IndexError", prep=PREP + " --label-fix 1:200:12",
             timeout=150, hang_ok=True),
    Scenario("site-shard-header-segv", "native_crash", fl(2), r"round 1", prep=PREP + " --header-rows 1:2000000000",
             timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", fl(2, "lr=1000000.0"), r"nan", prep=PREP, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", fl(2, "hidden=96"), r"iostream error|No space left", prep=PREP,
             tmpfs=(("checkpoints", "64k"),), timeout=150, hang_ok=True),
    Scenario("supernode-sigkill-round1", "host_oom_killed", fl(2, "num-server-rounds=4 round-timeout=30"),
             r"round 1 epoch 0 batch 4", prep=PREP,
             trigger=((r"\[site 1\] round 1 epoch 0 batch 4", "rank1:KILL"), (110, "scheduler:15")), timeout=200,
             hang_ok=True),
    Scenario("supernode-stopped", "silent_hang", fl(2, "num-server-rounds=4"), r"round 2 epoch 0 batch 0", prep=PREP,
             trigger=((r"\[site 1\] round 2 epoch 0 batch 0", "rank1:STOP"), (110, "scheduler:15")), timeout=200,
             hang_ok=True),
    Scenario("preempt", "job_preempted", fl(2, "num-server-rounds=4"), r"ROUND 2/", prep=PREP,
             trigger=((r"ROUND 2/4", "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", fl(2, "num-server-rounds=4"), r"ROUND 2/", prep=PREP,
             trigger=((r"ROUND 2/4", "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("superlink-port-taken", "port_in_use", fl(2), r"in use|Errno 98", prep=PREP,
             stale="{py} -m http.server --bind 127.0.0.1 29960", stale_ready=r"Serving HTTP", timeout=75,
             hang_ok=True),
    Scenario("site-hidden-override", "worker_exception", fl(2, nodes=node(0, 2) + node(1, 2, "hidden=32")),
             r"size mismatch", prep=PREP, timeout=150, hang_ok=True),
    Scenario("mem-capped-job", "host_oom_killed", fl(2, "hidden=1024"), r"flwr-serverapp` process[\s\S]*job exited",
             prep=PREP, memory=900_000_000, timeout=150, hang_ok=True),
    Scenario("third-site-missing", "rendezvous_timeout", fl(3, "min-train-nodes=3", nodes=node(0, 3) + node(1, 3)),
             r"ROUND 1/2", prep=PREP, trigger=((75, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("healthy-resume", "no_failure",
             fl(2).replace("--stream" + EXIT, "--stream --run-config 'resume-from=\"checkpoints/global_round_002.pt\"'"
                           + EXIT),
             r"resumed global model[\s\S]*training finished[\s\S]*job exited with 0",
             prep=PREP + " && (" + fl(2).split(EXIT)[0] + ") > /dev/null 2>&1", timeout=200),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
