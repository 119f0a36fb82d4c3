"""Pasted reports carry no live content (issue 16, item 5): Markdown escapes log-derived text outside code blocks,
so an exception message cannot post an image, mention @everyone, inject HTML or close the <details> it sits in."""
from __future__ import annotations

import regex
from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.report import md_code, md_text

PAYLOAD = "![x](https://evil.example/p.png) @everyone <img src=x onerror=alert(1)> </details> **bold** `tick` | cell"
LOG = ('[rank0]: Traceback (most recent call last):\n[rank0]:   File "/home/user/train.py", line 3, in <module>\n'
       f"[rank0]:     main()\n[rank0]: ValueError: {PAYLOAD}\n")


def _outside_code(markdown: str) -> str:
    """The Markdown without fenced blocks and code spans: the text a renderer interprets."""
    text = regex.sub(r"(?ms)^```.*?^```", "", markdown)
    return regex.sub(r"`[^`\n]*`", "", text)


def test_markdown_report_escapes_the_exception_message(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_text(LOG)
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "markdown", "--no-model"])
    assert res.exit_code == 0
    assert "ValueError" in res.stdout  # the message is in the report (root cause line)...
    live = _outside_code(res.stdout)
    for raw in ("![x](", "@everyone", "**bold**"):
        assert raw not in live, raw  # ...but inert outside code
    assert not regex.search(r"(?<!\\)<img", live)  # HTML only as escaped text
    assert live.count("<details>") == live.count("</details>")
    assert "&#64;everyone" in live and "\\!\\[x\\]" in live


def test_md_helpers() -> None:
    assert md_text("# title", line_start=True) == "\\# title"
    assert md_text("1. item", line_start=True) == "1\\. item"
    assert md_text("a\nb") == "a b"
    assert md_code("a`b|c", table=True) == "`a'b\\|c`"
