"""A tqdm progress bar (it redraws its line with '\\r' and leaves the cursor at its end) whose process is then
killed by ``--signal`` (default SIGKILL): the shell's report lands after the bar on the same terminal line."""
import argparse
import os
import signal
import time

from tqdm import tqdm

p = argparse.ArgumentParser()
p.add_argument("--signal", default="SIGKILL")
a = p.parse_args()
for i in tqdm(range(100)):
    time.sleep(0.01)
    if i == 60:
        os.kill(os.getpid(), getattr(signal, a.signal))
