"""The job's XGBoost collective tracker: workers connect to it to form the communication group."""
from __future__ import annotations

import argparse
import socket
import sys

from xgboost.tracker import RabitTracker


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=29901)
    ap.add_argument("--timeout", type=int, default=0, help="seconds to wait for all workers (0: forever)")
    a = ap.parse_args()
    tracker = RabitTracker(n_workers=a.workers, host_ip=a.host, port=a.port, sortby="task", timeout=a.timeout)
    tracker.start()
    print(f"tracker: {socket.gethostname()} listening on {a.host}:{a.port}, waiting for {a.workers} workers", flush=True)
    tracker.wait_for()
    print("tracker: all workers finished", flush=True)


if __name__ == "__main__":
    sys.exit(main())
