"""Serve the current support model to the team's demo page: POST a ticket, get Ticko's answer."""
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="base-model")
ap.add_argument("--port", type=int, default=8080)
a = ap.parse_args()
tok = AutoTokenizer.from_pretrained(a.model)
model = AutoModelForCausalLM.from_pretrained(a.model).eval()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ids = tok.apply_chat_template([{"role": "user", "content": body["ticket"]}], add_generation_prompt=True,
                                      return_tensors="pt", return_dict=True)
        with torch.no_grad():
            out = model.generate(**ids, max_new_tokens=64)
        data = json.dumps({"answer": tok.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)})
        self.send_response(200)
        self.end_headers()
        self.wfile.write(data.encode())


print(f"demo: serving {a.model} on http://0.0.0.0:{a.port}", flush=True)
ThreadingHTTPServer(("0.0.0.0", a.port), Handler).serve_forever()
