"""Ray Serve app that ranks candidate items for a user with a small two-tower model (user/item embedding tables),
behind Serve's HTTP proxy; the driver deploys it and replays a batch of ranking requests against it.

    python serve_ranker.py --replicas 2 --port 8420 --requests 300
"""
from __future__ import annotations

import argparse
import json
import random
import time
import urllib.request

import ray
from ray import serve
from starlette.requests import Request


@serve.deployment(ray_actor_options={"num_cpus": 0.5})
class Ranker:
    def __init__(self, users: int, items: int, dim: int):
        import torch
        torch.manual_seed(0)
        torch.set_num_threads(1)
        self.torch = torch
        self.user = torch.nn.Embedding(users, dim)
        self.item = torch.nn.Embedding(items, dim)
        print(f"ranker replica ready: {users} users, {items} items, dim {dim}", flush=True)

    async def __call__(self, req: Request) -> dict:
        body = await req.json()
        torch = self.torch
        with torch.no_grad():
            u = self.user(torch.tensor([body["user"]]))
            cand = torch.tensor(body["candidates"])
            scores = (self.item(cand) @ u.T).squeeze(-1)
            top = torch.topk(scores, k=min(body.get("k", 10), len(cand)))
        return {"user": body["user"], "items": cand[top.indices].tolist(), "scores": top.values.tolist()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--port", type=int, default=8420)
    ap.add_argument("--requests", type=int, default=300)
    a = ap.parse_args()
    ray.init()
    serve.start(http_options={"host": "127.0.0.1", "port": a.port})
    app = Ranker.options(num_replicas=a.replicas).bind(5000, 20000, 32)
    serve.run(app, name="ranker", route_prefix="/rank")
    print(f"ranker deployed at http://127.0.0.1:{a.port}/rank", flush=True)
    rng = random.Random(0)
    lat = []
    for k in range(a.requests):
        body = json.dumps({"user": rng.randrange(5000), "candidates": rng.sample(range(20000), 200), "k": 10}).encode()
        t0 = time.time()
        req = urllib.request.Request(f"http://127.0.0.1:{a.port}/rank", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            out = json.loads(resp.read())
        lat.append(time.time() - t0)
        if k % 50 == 0:
            print(f"request {k}: user {out['user']} top items {out['items'][:3]} ({lat[-1] * 1000:.1f} ms)", flush=True)
    lat.sort()
    print(f"{len(lat)} requests, p50 {lat[len(lat) // 2] * 1000:.1f} ms, p99 {lat[int(len(lat) * 0.99)] * 1000:.1f} ms")
    serve.shutdown()


if __name__ == "__main__":
    main()
