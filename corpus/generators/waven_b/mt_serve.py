"""Ray Serve deployment of the toy translator behind Serve's HTTP proxy, plus a request replay of document segments."""
import argparse
import json
import os
import random
import time
import urllib.error
import urllib.request

import ray
import torch
from ray import serve
from starlette.requests import Request

import mt_core as mc

PORT = 8531


@serve.deployment(ray_actor_options={"num_cpus": 0.5})
class Translator:
    def __init__(self):
        torch.manual_seed(0)
        train = mc.make_pairs(2000, seed=1)
        self.sv = mc.Vocab([s for s, _ in train])
        self.tv = mc.Vocab([t for _, t in train])
        self.model = mc.Seq2Seq(len(self.sv), len(self.tv))
        opt = torch.optim.Adam(self.model.parameters(), lr=3e-3)
        for src, tin, tout in mc.batches(train, self.sv, self.tv, 32):
            loss = mc.loss_fn(self.model(src, tin), tout)
            opt.zero_grad()
            loss.backward()
            opt.step()
        self.model.eval()
        print(f"translator replica ready (last train loss {loss.item():.4f})", flush=True)

    def translate_segment(self, words):
        ids = self.model.beam(mc.pad_batch([self.sv.encode(words)]), k=4)
        out = self.tv.decode(ids)
        # keep sentence-final punctuation of the source segment
        if words[-1] in (".", "?", "!"):
            out.append(words[-1])
        return " ".join(out)

    async def __call__(self, request: Request):
        body = await request.json()
        segments = [s.split() for s in body["text"].split("\n")]
        return {"translation": [self.translate_segment(w) for w in segments]}


def post(payload):
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}/translate", data=json.dumps(payload).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--requests", type=int, default=100)
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    serve.start(http_options={"host": "127.0.0.1", "port": PORT})
    serve.run(Translator.options(num_replicas=a.replicas).bind(), name="mt", route_prefix="/translate")
    print(f"translator deployed on port {PORT} with {a.replicas} replicas", flush=True)
    rng = random.Random(3)
    docs = mc.make_pairs(a.requests * 3, seed=5)
    ok = failed = 0
    t0 = time.time()
    for i in range(a.requests):
        segs = [" ".join(s) for s, _ in docs[3 * i:3 * i + 3]]
        if i % 37 == 36:
            segs.insert(1, "")  # a document with a blank line between paragraphs
        try:
            out = post({"text": "\n".join(segs)})
            ok += 1
            if i % 10 == 0:
                print(f"request {i}: {segs[0]!r} -> {out['translation'][0]!r}", flush=True)
        except urllib.error.HTTPError as e:
            failed += 1
            print(f"request {i}: HTTP {e.code} {e.read().decode(errors='replace')[:200]}", flush=True)
    print(f"replay done: {ok} ok, {failed} failed in {time.time() - t0:.1f}s", flush=True)
    serve.shutdown()
    if failed:
        raise SystemExit(f"{failed} of {a.requests} translation requests failed")
