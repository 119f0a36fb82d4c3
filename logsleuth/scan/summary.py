"""Jobs per root cause (``summarize``) and its text / Markdown / JSON rendering."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..errors import LogsleuthError
from .table import _missing

if TYPE_CHECKING:
    import pandas as pd


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Jobs per root cause, most frequent first.

    Returns:
        Columns ``root_cause`` (``error`` for unreadable jobs), ``jobs``, ``share`` (0..1), ``first_seen``,
        ``last_seen`` (range of ``first_failure_time``, year-less times left out; NaT when none), ``example``
        (the first job, by name).
    """
    import pandas as pd

    from ..parse.timestamps import YEARLESS

    rc = df["root_cause"].astype(object).where(df["root_cause"].notna(), "error")
    t = df["first_failure_time"]
    g = pd.DataFrame({"root_cause": rc, "job": df["job"], "t": t.where(t.dt.year != YEARLESS)})
    if len(g) == 0:
        return pd.DataFrame(columns=["root_cause", "jobs", "share", "first_seen", "last_seen", "example"])
    out = g.groupby("root_cause", sort=False).agg(
        jobs=("job", "size"), first_seen=("t", "min"), last_seen=("t", "max"), example=("job", "first")
    )
    out = out.reset_index()
    out["share"] = out["jobs"] / len(df)
    out = out.sort_values(["jobs", "root_cause"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return out[["root_cause", "jobs", "share", "first_seen", "last_seen", "example"]]


def render_summary(summary: pd.DataFrame, fmt: str = "text") -> str:
    """The summary as ``text`` (aligned columns), ``markdown`` (a GitHub table) or ``json`` (a list of objects)."""
    from ..taxonomy import title as taxonomy_title

    recs = []
    for r in summary.itertuples(index=False):
        recs.append(
            {
                "root_cause": r.root_cause,
                "title": "could not be read" if r.root_cause == "error" else taxonomy_title(r.root_cause),
                "jobs": int(r.jobs),
                "share": round(float(r.share), 4),
                "first_seen": None if _missing(r.first_seen) else r.first_seen.isoformat(),
                "last_seen": None if _missing(r.last_seen) else r.last_seen.isoformat(),
                "example": r.example,
            }
        )
    if fmt == "json":
        return (
            json.dumps({"total_jobs": sum(x["jobs"] for x in recs), "root_causes": recs}, indent=2, ensure_ascii=False)
            + "\n"
        )
    header = ["root cause", "jobs", "share", "first seen", "last seen", "example"]
    table = [
        [
            x["root_cause"],
            str(x["jobs"]),
            f"{100 * x['share']:.1f}%",
            x["first_seen"] or "-",
            x["last_seen"] or "-",
            x["example"],
        ]
        for x in recs
    ]
    total = sum(x["jobs"] for x in recs)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "---:", "---:", "---", "---", "---"]) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in table]
        return "\n".join(lines) + f"\n\n{total} jobs.\n"
    if fmt != "text":
        raise LogsleuthError(f"unknown summary format {fmt!r}; choose text, markdown or json")
    widths = [max(len(h), *(len(row[i]) for row in table)) if table else len(h) for i, h in enumerate(header)]
    fmt_row = "  ".join(f"{{:{'>' if i in (1, 2) else '<'}{w}}}" for i, w in enumerate(widths))
    lines = [fmt_row.format(*header)] + [fmt_row.format(*row) for row in table]
    return "\n".join(x.rstrip() for x in lines) + f"\n{total} jobs.\n"
