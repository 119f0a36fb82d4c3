"""Plain Python ``multiprocessing`` / ``concurrent.futures`` workers, one killed by SIGKILL (what the OOM killer
sends): what the standard library itself reports. ``--api process`` prints the dead ``Process`` object (its repr
carries ``exitcode=-SIGKILL``) and its ``exitcode``; ``--api pool`` lets ``ProcessPoolExecutor`` raise
``BrokenProcessPool``."""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing as mp
import os
import signal
import sys


def work(i: int) -> int:
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return i


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--api", default="process")
    a = p.parse_args()
    if a.api == "process":
        procs = [mp.Process(target=work, args=(i,)) for i in range(2)]
        for pr in procs:
            pr.start()
        for pr in procs:
            pr.join()
            print(pr, flush=True)
            if pr.exitcode:
                sys.exit(1)
    else:
        with cf.ProcessPoolExecutor(2) as ex:
            print(list(ex.map(work, range(4))))


if __name__ == "__main__":
    main()
