"""A minimal experiment-tracking HTTP endpoint (POST /api/log, JSON body) used by ``ray_hf.py --tracking-url``.

``--stall-after N``: from request N+1 on, the handler stops answering (it blocks on a lock that is never released,
as a server whose metrics database is locked does); connections are still accepted by the listening socket.
"""
from __future__ import annotations

import argparse
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

count = 0
stuck = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    stall_after = 0

    def do_POST(self):  # noqa: N802
        global count
        count += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.stall_after and count > self.stall_after:
            stuck.acquire()  # the second acquire never returns
            stuck.acquire()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"ok": true, "bytes": %d}' % len(body))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--stall-after", type=int, default=0)
    a = p.parse_args()
    Handler.stall_after = a.stall_after
    ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
