"""Cross-validation's fold workers do not outlive a parent killed without clean-up (``evaluate._exit_with_parent``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# the pool as ``_fit_folds`` starts it: forkserver, the parent-watch initializer; each worker busy for a minute
CHILD = textwrap.dedent(
    """
    import multiprocessing, os, sys, time
    from concurrent.futures import ProcessPoolExecutor
    from logsleuth.classify.evaluate import _exit_with_parent

    if __name__ == "__main__":
        ctx = multiprocessing.get_context("forkserver")
        pool = ProcessPoolExecutor(2, mp_context=ctx, initializer=_exit_with_parent)
        pids = [pool.submit(os.getpid).result() for _ in range(4)]
        for _ in range(2):
            pool.submit(time.sleep, 60)
        print(" ".join(map(str, sorted(set(pids)))), flush=True)
        time.sleep(60)
    """
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its parent) counts as gone
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_fold_workers_exit_when_the_parent_is_killed(tmp_path, sig) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert child.stdout is not None
        workers = [int(p) for p in child.stdout.readline().split()]
        assert workers and all(_alive(p) for p in workers), child.stderr.read() if not workers else ""
        child.send_signal(sig)  # no handler runs: the pool's own shutdown never happens
        child.wait(10)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)], "a fold worker outlived its parent"
    finally:
        child.kill()
        child.wait()
