"""Local stand-in for the helpdesk's ticket service: GET /tickets/TCK-12345 -> {"id": ..., "open": true}."""
import argparse
import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=8081)
a = ap.parse_args()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        m = re.fullmatch(r"/tickets/(TCK-[\w-]+)", self.path)
        self.send_response(200 if m else 404)
        self.end_headers()
        if m:
            self.wfile.write(json.dumps({"id": m.group(1), "open": True}).encode())


print(f"ticket service listening on http://127.0.0.1:{a.port}", flush=True)
ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()
