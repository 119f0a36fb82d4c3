"""Writes site_hooks.py, the optional per-site instrumentation train_sensor.py imports (the injected faults)."""
import sys

HOOKS = {
    "": "",
    # user code: a label-remapping lookup that meets a class id it does not know on one host
    "keyerr": '''
LABEL_GROUPS = {0: "ok", 1: "wear", 2: "cavitation"}


def on_step(process_id, step, logs):
    if process_id == 1 and step >= 130:
        cls = 3 if step == 130 else step % 3
        group = LABEL_GROUPS[cls]  # misalignment (3) was added to the data but not to the report mapping
''',
    "segv": '''
import ctypes


def on_step(process_id, step, logs):
    if process_id == 1 and step == 130:
        # native feature extractor reading a freed buffer
        ctypes.string_at(0)
''',
    "abort": '''
import os


def on_step(process_id, step, logs):
    if process_id == 1 and step == 130:
        os.abort()
''',
    "memhog": '''
_cache = []


def on_step(process_id, step, logs):
    if process_id == 1 and step >= 130:
        # an unbounded per-step cache of raw windows
        _cache.append(bytearray(400 * 1024 * 1024))
''',
    "interrupt": '''
import os
import signal


def on_step(process_id, step, logs):
    if step == 170:
        os.kill(os.getpid(), signal.SIGKILL)
''',
    "shape": '''
def width(process_id, width):
    # host-local override left over from a sweep
    return 48 if process_id == 1 else width
''',
}
open("site_hooks.py", "w").write(HOOKS[sys.argv[1] if len(sys.argv) > 1 else ""])
