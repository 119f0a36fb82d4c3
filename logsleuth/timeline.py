"""Per-rank timeline geometry for the HTML report (inline SVG: one self-contained file).

Rows are ranks (or hosts/files when the line names no rank); the x axis is time when every marked event has
one, else the line order. Marks: the first failure, the root cause's other evidence, symptoms, unexplained errors,
and where each rank's progress stopped (its last step line, ``ranks.progress``); the culprit's row is flagged.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

WIDTH = 900
ROW = 26
LEFT = 120
RIGHT = 20
TOP = 30


def _parse_time(t: str | None) -> datetime | None:
    if not t:
        return None
    try:
        return datetime.fromisoformat(t.replace("--", "1900-", 1) if t.startswith("--") else t)
    except ValueError:
        return None


def _row(e: dict[str, Any]) -> str:
    if e.get("rank") is not None:
        return f"rank {e['rank']}"
    if e.get("host"):
        return str(e["host"])
    if e.get("source") == "elastic":
        return "launcher"
    return str(e.get("path", "?")).rsplit("/", 1)[-1]


def build(data: dict[str, Any]) -> dict[str, Any] | None:
    """Geometry for the SVG: ``width``, ``height``, ``rows`` [{label, y}], ``marks`` [{x, y, kind, title}], ``axis``.

    Returns None when there is nothing to draw.
    """
    marks: list[tuple[dict[str, Any], str]] = []
    ff = data.get("first_failure")
    if ff:
        marks.append((ff, "first"))
    for e in data.get("evidence", []):
        if not ff or (e.get("path"), e.get("line")) != (ff.get("path"), ff.get("line")):
            marks.append((e, "evidence"))
    marks += [(e, "symptom") for e in data.get("symptoms", [])]
    progress = (data.get("ranks") or {}).get("progress") or {}
    for p in progress.values():
        if not ff or (p.get("path"), p.get("line")) != (ff.get("path"), ff.get("line")):
            marks.append(
                (
                    {
                        "rank": p.get("rank"),
                        "path": p.get("path"),
                        "line": p.get("line"),
                        "time": p.get("time"),
                        "text": p.get("text", ""),
                        "id": "last step",
                    },
                    "stopped",
                )
            )
    if data.get("verdict") == "unknown":
        marks += [(e, "error") for e in data.get("unexplained", [])]
    if not marks:
        return None
    times = [_parse_time(e.get("time")) for e, _ in marks]
    use_time = all(t is not None for t in times) and len({t for t in times}) > 1
    if not use_time and progress:  # untimed step lines must not take the time axis away from the failure marks
        keep = [i for i, (_, kind) in enumerate(marks) if kind != "stopped" or times[i] is not None]
        marks, times = [marks[i] for i in keep], [times[i] for i in keep]
        use_time = all(t is not None for t in times) and len({t for t in times}) > 1
    stamps = [t for t in times if t is not None]  # all of them when use_time
    if use_time:
        xs = [t.timestamp() if t.year > 1900 else (t - datetime(1900, 1, 1)).total_seconds() for t in stamps]
        axis = "time"
    else:
        paths = sorted({e.get("path", "") for e, _ in marks})
        xs = [paths.index(e.get("path", "")) * 1e9 + (e.get("line") or 0) for e, _ in marks]
        axis = "line order"
    lo, hi = min(xs), max(xs)
    span = (hi - lo) or 1.0
    labels = sorted(
        {_row(e) for e, _ in marks},
        key=lambda s: (not s.startswith("rank "), int(s[5:]) if s.startswith("rank ") and s[5:].isdigit() else 0, s),
    )
    ys = {label: TOP + i * ROW for i, label in enumerate(labels)}
    out_marks = []
    for (e, kind), x in zip(marks, xs):
        px = LEFT + (x - lo) / span * (WIDTH - LEFT - RIGHT)
        text = str(e.get("text", "")).split("\n")[-1][:160]
        title = f"{e.get('path')}:{e.get('line')} {e.get('time') or ''} {e.get('id') or ''}\n{text}"
        out_marks.append({"x": round(px, 1), "y": ys[_row(e)], "kind": kind, "title": title})
    culprit_rows = {f"rank {r}" for r in ((data.get("culprit") or {}).get("ranks") or [])}
    first_t = min(stamps) if use_time else None
    last_t = max(stamps) if use_time else None
    return {
        "width": WIDTH,
        "height": TOP + len(labels) * ROW + 30,
        "rows": [{"label": k, "y": v, "culprit": k in culprit_rows} for k, v in ys.items()],
        "marks": out_marks,
        "axis": axis,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "start": first_t.isoformat() if first_t else "",
        "end": last_t.isoformat() if last_t else "",
    }
