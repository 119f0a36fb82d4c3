"""How often the diagnosis of a real corpus log changes when the log reaches logsleuth the way logs are stored or
pasted: behind a log collector's prefix, with a paste's decoration, re-encoded. Prints, per transform, how many of the
sampled logs keep their rules-only answer (and which do not, with ``-v``).

Each transform is what a real tool writes around every line (formats from their documentation: docker/compose
``cmd/formatter/logs.go``; RFC 3164 / ``journalctl -o short``; moreutils ``ts``; ``kubectl logs --prefix`` /
``--timestamps``; the CRI log file; Open MPI's ``--tag-output`` and SageMaker's rewrite of it
(aws/sagemaker-training-toolkit ``process.watch``); Slurm's ``srun --label``; a mail/Markdown quote; an indented
block; ``grep -n``; a terminal's hard wrap at 100 columns on the text without its colour codes; CRLF; ANSI colour
around each line). The launcher tags name rank 0 on every line, so a log whose answer depends on which rank printed
what can move with them. The logs themselves are real
corpus logs; the figure is the share whose answer does not move.

    python benchmarks/robustness.py                     # 150 logs, every transform
    python benchmarks/robustness.py --logs 300 --seed 7 --only compose,hard_wrap_100 -v
    python benchmarks/robustness.py --code /path/to/older-checkout      # the same logs, another commit
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _wrap(text: str, width: int) -> str:
    return "\n".join(text[k : k + width] for k in range(0, max(len(text), 1), width))


def _clock(i: int) -> str:
    return f"10:{i // 60 % 60:02d}:{i % 60:02d}"


# launcher tags: they name rank 0 on every line, which can move an answer that depends on which rank printed what
LAUNCHER_TAGS = frozenset({"mpi_tag_output", "sagemaker_mpi", "srun_label"})
TRANSFORMS: dict[str, Callable[[int, str], str]] = {
    "compose": lambda i, line: f"trainer-1  | {line}",
    "journald": lambda i, line: f"Nov 28 {_clock(i)} node-1 python3[4242]: {line}",
    "moreutils_ts": lambda i, line: f"Nov 28 {_clock(i)} {line}",
    "kubectl_prefix": lambda i, line: f"[pod/trainer-0/pytorch] {line}",
    "kubectl_timestamps": lambda i, line: f"2026-11-28T{_clock(i)}.123456789Z {line}",
    "cri_log_file": lambda i, line: f"2026-11-28T{_clock(i)}.123456789Z stderr F {line}",
    "mpi_tag_output": lambda i, line: f"[1,0]<stdout>:{line}",
    "sagemaker_mpi": lambda i, line: f"[1,mpirank:0,algo-1]<stdout>:{line}",
    "srun_label": lambda i, line: f"0: {line}",
    "quoted": lambda i, line: f"> {line}",
    "indented": lambda i, line: f"    {line}",
    "grep_n": lambda i, line: f"{i + 1}:{line}",
    "hard_wrap_100": lambda i, line: _wrap(_ANSI.sub("", line), 100),
    "crlf": lambda i, line: f"{line}\r",
    "ansi": lambda i, line: f"\x1b[36m{line}\x1b[0m",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--logs", type=int, default=150, help="corpus logs sampled (default 150)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=",".join(TRANSFORMS), help="comma-separated transforms")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the logs whose answer changed")
    ap.add_argument(
        "--code", type=Path, default=ROOT, help="the logsleuth checkout measured (the corpus is this one's)"
    )
    args = ap.parse_args()
    sys.path.insert(0, str(args.code))
    from logsleuth.pipeline import analyze

    with open(ROOT / "corpus" / "manifest.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if (ROOT / "corpus" / r["file"]).is_file()]
    random.seed(args.seed)
    rows = random.sample(rows, min(args.logs, len(rows)))
    base = {r["file"]: analyze([str(ROOT / "corpus" / r["file"])], model=False).root_cause for r in rows}
    print(f"{len(rows)} corpus logs (seed {args.seed}), rules only, code {args.code}; answers as on the log itself:")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only.split(","):
            tf = TRANSFORMS[name]
            changed = []
            for r in rows:
                lines = (ROOT / "corpus" / r["file"]).read_text(encoding="utf-8", errors="replace").splitlines()
                p = Path(tmp) / f"{name}.log"
                p.write_text("".join(tf(i, line) + "\n" for i, line in enumerate(lines)), encoding="utf-8")
                got = analyze([str(p)], model=False).root_cause
                if got != base[r["file"]]:
                    changed.append(f"    {r['file']}: {base[r['file']]} -> {got}")
            print(f"  {name:20s} {len(rows) - len(changed):4d}/{len(rows)} unchanged")
            if args.verbose:
                print("\n".join(changed))


if __name__ == "__main__":
    main()
