"""HTML report: self-contained, autoescaped log text, per-rank timeline; a headless-Chromium screenshot when available."""
from __future__ import annotations

import shutil
import subprocess
import zlib

import pytest
from typer.testing import CliRunner

from logsleuth.cli import app

HOSTILE = """[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/user/train.py", line 9, in step
[rank1]: KeyError: '<script>alert("pwned")</script><img src=x onerror="alert(1)">'
[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:36548 <b onmouseover=alert(2)>
"""


def _html(tmp_path, text: str) -> str:
    p = tmp_path / "job.log"
    p.write_text(text)
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "html"])
    assert res.exit_code == 0, res.stderr
    return res.stdout


def test_log_text_is_escaped(tmp_path) -> None:
    html = _html(tmp_path, HOSTILE)
    assert "<script>alert" not in html and "<img src=x" not in html and "<b onmouseover" not in html
    assert "&lt;script&gt;alert" in html
    assert "<script" not in html.lower()  # the page itself has no script at all


def test_self_contained_with_timeline(tmp_path) -> None:
    html = _html(tmp_path, HOSTILE)
    assert "<svg" in html and 'class="first"' in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # nothing fetched from elsewhere
    assert "rank 1" in html and "rank 0" in html


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _has_colour(data: bytes, rgb: tuple[int, int, int]) -> bool:
    """True when some pixel of an 8-bit RGB(A) non-interlaced PNG is exactly ``rgb`` (the timeline's first-failure red)."""
    w, h = _png_size(data)
    depth, ctype = data[24], data[25]
    assert depth == 8 and ctype in (2, 6)
    bpp = 3 if ctype == 2 else 4
    idat = b""
    pos = 8
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    target = bytes(rgb)
    i = 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):  # PNG filters (RFC 2083 section 6)
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            if line[x:x + 3] == target:
                return True
        prev = line
    return False


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_timeline_renders_in_headless_chromium(tmp_path) -> None:
    page = tmp_path / "report.html"
    page.write_text(_html(tmp_path, HOSTILE))
    shot = tmp_path / "shot.png"
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1100,1400", f"--screenshot={shot}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    data = shot.read_bytes()
    assert _png_size(data) == (1100, 1400)
    assert _has_colour(data, (0xE3, 0x1B, 0x54)), "the timeline's first-failure marker (#e31b54) is not on the page"
