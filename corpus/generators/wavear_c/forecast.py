"""TorchX component for the solar forecast trainer: one trainer process per replica (no torchrun), the process
group formed over env:// on replica 0's host. Optionally each replica first fills its node-local feature cache."""

from typing import Dict, Optional

import torchx.specs as specs


def trainer(
    *script_args: str,
    script: str = "train_solar.py",
    replicas: int = 2,
    port: int = 29400,
    cache: str = "",
    cpu: int = 1,
    memMB: int = 2048,
    env: Optional[Dict[str, str]] = None,
    max_retries: int = 0,
) -> specs.AppDef:
    """Solar-farm forecast trainer (DDP over gloo, one process per replica).

    Args:
        script_args: arguments to the training script
        script: the training script
        replicas: number of trainer replicas (the world size)
        port: MASTER_PORT on replica 0's host
        cache: node-local feature cache folder; a replica whose cache is empty rebuilds it before training
        cpu: cpus per replica
        memMB: memory per replica in MB
        env: extra environment variables (e.g. A=1,B=2)
        max_retries: scheduler retries
    """
    e = {"MASTER_ADDR": "localhost", "MASTER_PORT": str(port), "WORLD_SIZE": str(replicas),
         "RANK": specs.macros.replica_id, "LOCAL_RANK": "0"}
    e.update(env or {})
    args = " ".join(script_args)
    if cache:
        node = f"{cache}/node-{specs.macros.replica_id}"
        cmd = (f"test -f {node}/meta.json || python make_sky.py --out {node} --from-frames; "
               f"exec python {script} --data {node} {args}")
    else:
        cmd = f"exec python {script} {args}"
    return specs.AppDef(
        name="solar-forecast",
        roles=[
            specs.Role(
                name="trainer",
                image=".",
                entrypoint="bash",
                args=["-c", cmd],
                num_replicas=replicas,
                env=e,
                resource=specs.Resource(cpu=cpu, gpu=0, memMB=memMB),
                max_retries=max_retries,
            )
        ],
    )
