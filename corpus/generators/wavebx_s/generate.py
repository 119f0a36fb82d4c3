"""Generate wave BX (s)'s real runs (sealed batch ``heldout79``, ecosystem ``timm``): timm 1.0.31's own ``train.py``
(huggingface/pytorch-image-models @ aa4b5850, ``project/``, not committed) training ``test_resnet`` (0.47M params) at
32x32 on a synthetic 4-class ImageFolder (``project/make_data.py`` -> ``data/{train,validation}``, random PNGs),
``--device cpu`` (timm picks gloo), under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2
--rdzv-backend c10d`` on two or three hosts: network namespaces ``bxsnode0..2`` (10.93.0.11-13, ``../netns_hosts.sh``),
each in its own UTS namespace with hostname ``img-node-a``/``b``/``c``. Ports 29940-29949.

    python3 corpus/generators/wavebx_s/generate.py --list
    python3 corpus/generators/wavebx_s/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebx-s", here=HERE, split="heldout79", ecosystem="timm", fragment="wave-bx-runs-s.csv",
            bin=Path("/tmp/venv-bx-s/bin"), project=HERE / "project", upstream=("train.py",))
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bxs 10.93.0 img-node-a,img-node-b,img-node-c"
IPS = ("10.93.0.11", "10.93.0.12", "10.93.0.13")
HOSTS = ("img-node-a", "img-node-b", "img-node-c")
TRAIN = ("train.py --data-dir data --model test_resnet --num-classes 4 --img-size 32 --device cpu "
         "-b 8 --epochs 4 --sched cosine --lr 0.05 --warmup-epochs 0 --workers 0 --log-interval 2 "
         "--model-ema --output out --experiment imgs --checkpoint-hist 2 ")


def prep(n: int = 2, extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_data.py"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str) -> str:
    cmd = (f"env {env} OMP_NUM_THREADS=1 nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} --rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
           f"{TRAIN}{args}")
    return f"ip netns exec bxsnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0])),
        n, late, only)


DONE = r"\*\*\* Best metric[\s\S]*job exited with 0"
AT = r"Train: 1 \["
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29940), DONE, prep=prep(), timeout=150),
    Scenario("preempt", "job_preempted", job(29945), AT, prep=prep(),
             trigger=((AT, "scheduler:10"),), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
