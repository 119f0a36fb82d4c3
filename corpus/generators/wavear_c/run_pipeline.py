"""Pipeline step: train the solar forecaster through TorchX's runner API (what the nightly pipeline calls), stream
replica 0's log, then report the app's final status."""
import argparse
import sys

from torchx import specs
from torchx.components.dist import ddp
from torchx.runner import get_runner


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", default="1x2")
    ap.add_argument("--scheduler", default="local_cwd")
    a, train_args = ap.parse_known_args()
    app = ddp(*train_args, script="train_solar.py", j=a.j)
    with get_runner() as runner:
        handle = runner.run(app, scheduler=a.scheduler)
        print(f"pipeline: launched {handle}", flush=True)
        role = app.roles[0].name
        for line in runner.log_lines(handle, role, k=0, should_tail=True):
            print(line, end="" if line.endswith("\n") else "\n", flush=True)
        status = runner.wait(handle, wait_interval=1)
        print(f"pipeline: {handle} finished: {status.state}", flush=True)
        if status.state != specs.AppState.SUCCEEDED:
            print(status, flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
