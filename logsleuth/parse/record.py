"""What a recogniser says about one message body."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(slots=True)
class Recognised:
    """Fields a per-source recogniser found; ``None`` means "the line did not say"."""

    source: str
    level: str
    time: datetime | None = None
    host: str | None = None
    pid: int | None = None
    rank: int | None = None
    local_rank: int | None = None
    start: int = 0  # where the message starts in the body (after the recogniser's header)
    params: dict[str, Any] = field(default_factory=dict)
