"""The ``scan`` command's progress bar (rich): jobs and files done, bytes, rate and ETA, on stderr.

Shown only on an interactive terminal: never when stderr is piped or redirected, nor when ``CI`` is set to a true
value (``true``/``1``/``yes``), nor with ``TERM=dumb``.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from .scan import ScanProgress


def progress_wanted(console: Console | None = None) -> bool:
    """True when a progress bar should be drawn: stderr is a terminal and this is not CI."""
    if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
        return False
    console = console or Console(stderr=True)
    return console.is_terminal and not console.is_dumb_terminal


class ScanProgressBar:
    """A context manager and ``scan(progress=...)`` callback that draws one bar over the scan's bytes.

    Args:
        console: where to draw (default: stderr).
    """

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]scan[/]"),
            BarColumn(),
            TextColumn("{task.fields[jobs]}"),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            auto_refresh=False,  # no refresh thread: redrawn after every job, and worker processes fork cleanly
        )
        self.task: TaskID | None = None

    def __enter__(self) -> ScanProgressBar:
        self.progress.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()

    def __call__(self, ev: ScanProgress) -> None:
        jobs = f"{ev.done}/{ev.total} jobs, {ev.done_files}/{ev.total_files} files"
        if self.task is None:
            self.task = self.progress.add_task("scan", total=ev.total_bytes or 1, jobs=jobs)
        fields: dict[str, Any] = {"jobs": jobs}
        self.progress.update(self.task, completed=ev.done_bytes, **fields)
        self.progress.refresh()
