"""Rewrite the generators' per-scenario job directories (and memory cgroups) in corpus logs to a neutral ``/workspace``.

The real-run generators run each scenario in ``/tmp/<generator>-job/<scenario>/`` and the job's own tracebacks and
prints carry that path, so a log would name its own scenario ("...-cgroup-oom/train.py", "...-mmap-shard-rewritten-
sigbus/pc.py"): a label leaking into the text that the classifier could learn and that no user's log has. Only the
directory is rewritten (the README's rule: hosts, paths and ids may be rewritten; machine-printed messages never), in
text files only (Flight Recorder dumps and other binary files are left as they are). Idempotent.

    python corpus/generators/scrub_job_paths.py            # rewrite in place, print what changed
    python corpus/generators/scrub_job_paths.py --check    # exit 1 if any log still holds a job directory
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

LOGS = Path(__file__).resolve().parents[1] / "logs"
# /tmp/fresh-job/<scenario>/, /tmp/wavet-b-job/<scenario>/, /tmp/waveh-job/<scenario> (Slurm's WorkDir=) ...
JOB_DIR = re.compile(rb"/tmp/(?:fresh|wave[a-z](?:-[ab])?)-job/[A-Za-z0-9_.+-]+(?=/|\s|,|$)", re.M)
# ... and the memory cgroup a generator made per scenario, as the kernel's OOM report names it
# ("oom_memcg=/waveu-b-<scenario>,task_memcg=/waveu-b-<scenario>")
MEMCG = re.compile(rb"(?<=memcg=)/(?:fresh|wave[a-z](?:-[ab])?)-[A-Za-z0-9_.+-]+")


def scrub(check: bool) -> int:
    changed = 0
    for p in sorted(LOGS.rglob("*")):
        if not p.is_file():
            continue
        data = p.read_bytes()
        if b"\0" in data[:65536] or not (JOB_DIR.search(data) or MEMCG.search(data)):
            continue
        changed += 1
        if check:
            print(f"job directory in {p.relative_to(LOGS.parent)}")
            continue
        p.write_bytes(MEMCG.sub(b"/job", JOB_DIR.sub(b"/workspace", data)))
        print(f"rewrote {p.relative_to(LOGS.parent)}")
    return changed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    n = scrub(args.check)
    print(f"{n} file(s) {'hold a job directory' if args.check else 'rewritten'}")
    return 1 if args.check and n else 0


if __name__ == "__main__":
    sys.exit(main())
