"""`litgpt pretrain` on CPU nodes: the team's entry point (`python pretrain_cpu.py pretrain --config ...`).

LitGPT 0.5.13's pretrain.setup builds `FSDPStrategy(..., sharding_strategy="HYBRID_SHARD")` whenever
devices * num_nodes > 1, and Lightning Fabric rejects FSDP without GPUs ("FSDP is only available on GPU"). Here that
one constructor is swapped for Fabric's DDPStrategy over gloo (initialize_weights' `isinstance(..., FSDPStrategy)`
check then stays False, so LitGPT resets the weights itself as it does for single-device runs), and torch.compile is
turned off (TORCHDYNAMO_DISABLE: no inductor C++ builds on the CPU nodes). The process-group timeout is the
team's setting PG_TIMEOUT_SECONDS (Fabric's default, 1800 s, when unset). Everything else is LitGPT's own CLI,
pretrain loop, checks, logging and checkpointing."""
import os
from datetime import timedelta

os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")

from lightning.fabric.strategies import DDPStrategy  # noqa: E402

import litgpt.pretrain  # noqa: E402


class CPUDDPInsteadOfFSDP:
    def __new__(cls, *args, **kwargs):
        timeout = timedelta(seconds=int(os.environ.get("PG_TIMEOUT_SECONDS", "1800")))
        return DDPStrategy(process_group_backend="gloo", timeout=timeout)


litgpt.pretrain.FSDPStrategy = CPUDDPInsteadOfFSDP

if __name__ == "__main__":
    from litgpt.__main__ import main

    main()
