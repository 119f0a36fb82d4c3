"""Start the fresh workload with ``torch.multiprocessing.spawn`` instead of a launcher (as many research repos do):
``python spawn.py --nprocs 3 [workload args]``. Each child sets the env:// variables for its rank and runs
``workload.run``; a child that dies by a signal surfaces in the parent as ``ProcessExitedException``."""
from __future__ import annotations

import os
import sys

import torch.multiprocessing as mp

import train as workload  # the generator copies workload.py to the job directory as train.py


def _child(rank: int, nprocs: int, argv: list[str]) -> None:
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nprocs),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("MASTER_PORT", "29650"))
    sys.argv = ["train.py", *argv]
    workload.run(workload.parse())


if __name__ == "__main__":
    n = int(sys.argv[2]) if sys.argv[1:2] == ["--nprocs"] else 2
    rest = sys.argv[3:] if sys.argv[1:2] == ["--nprocs"] else sys.argv[1:]
    mp.spawn(_child, args=(n, rest), nprocs=n, join=True)
