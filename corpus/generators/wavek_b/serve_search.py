"""Ray Serve semantic-search service and its load test: ``python serve_search.py --replicas 2``.

A ``Searcher`` deployment embeds queries with a small Transformer encoder (tokenised by ``libfasttok.so``, a C
tokenizer called through ctypes) and ranks a catalogue of product descriptions by cosine similarity. The script
deploys it with ``serve.run`` on the running Ray cluster (``RAY_ADDRESS``), replays a query log (``--queries``, JSONL
records ``{"user": ..., "query": ...}`` exported from the web front-end) from ``--clients`` concurrent callers, prints
latency percentiles, then shuts Serve down. ``--cache-activations`` keeps every layer's activations per query for
the relevance-debugging view (keyed by query text).
"""
from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import logging
import os
import random
import statistics
import time

import numpy as np
import ray
import torch
from ray import serve
from torch import nn

log = logging.getLogger("serve_search")
VOCAB, LEN = 8192, 32
ADJ = "red blue wireless waterproof compact organic leather steel bamboo portable smart vintage".split()
NOUN = "headphones backpack kettle lamp charger jacket bottle keyboard chair speaker watch tent".split()


def make_queries(path: str, n: int, null_every: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with open(path, "w") as f:
        for i in range(n):
            q = " ".join(rng.sample(ADJ, 2) + [rng.choice(NOUN)] + rng.sample(["for", "men", "women", "kids",
                                                                                    "cheap", "best", "under 50"], 2))
            rec = {"user": f"u{rng.randrange(10**6):06d}", "query": q, "ts": 1732780000 + i}
            if null_every and i % null_every == null_every - 1:
                rec["query"] = None  # the front-end's voice-search path logs no transcript
            f.write(json.dumps(rec) + "\n")


class Encoder(nn.Module):
    def __init__(self, d: int = 128) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d, padding_idx=0)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True)
                                    for _ in range(3))

    def forward(self, ids: torch.Tensor, keep: list | None = None) -> torch.Tensor:
        mask = ids == 0
        h = self.emb(ids)
        for layer in self.layers:
            h = layer(h, src_key_padding_mask=mask)
            if keep is not None:
                keep.append(h.detach().numpy().copy())
        h = h.masked_fill(mask.unsqueeze(-1), 0.0).sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return nn.functional.normalize(h, dim=-1)


@serve.deployment
class Searcher:
    def __init__(self, lib: str, catalogue: int, cache_activations: bool) -> None:
        torch.set_num_threads(1)
        torch.manual_seed(0)
        self.tok = ctypes.CDLL(lib)
        self.tok.fasttok_encode.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int]
        self.model = Encoder().eval()
        rng = random.Random(1)
        self.items = [" ".join(rng.sample(ADJ, 3) + [rng.choice(NOUN)]) for _ in range(catalogue)]
        with torch.no_grad():
            self.index = torch.cat([self.model(self.encode(self.items[i:i + 256]))
                                    for i in range(0, len(self.items), 256)])
        self.cache_activations = cache_activations
        self.debug_cache: dict[str, list[np.ndarray]] = {}
        logging.getLogger("ray.serve").info("Searcher replica ready (pid %d): %d catalogue items indexed, "
                                            "activation cache %s", os.getpid(), len(self.items),
                                            "on" if cache_activations else "off")

    def encode(self, texts: list[str | None]) -> torch.Tensor:
        out = (ctypes.c_int * (LEN * len(texts)))()
        for i, t in enumerate(texts):
            self.tok.fasttok_encode(t.encode() if t is not None else None,
                                    ctypes.cast(ctypes.byref(out, 4 * LEN * i), ctypes.POINTER(ctypes.c_int)),
                                    LEN, VOCAB)
        return torch.tensor(list(out), dtype=torch.long).view(len(texts), LEN)

    async def __call__(self, queries: list[str | None], k: int = 5) -> list[list[str]]:
        keep = [] if self.cache_activations else None
        with torch.no_grad():
            q = self.model(self.encode(queries), keep)
            top = (q @ self.index.T).topk(k, dim=-1).indices
        if keep is not None:
            for i, text in enumerate(queries):
                self.debug_cache[f"{text}|{len(self.debug_cache)}"] = [a[i] for a in keep] + [
                    (q[i:i + 1] * self.index).numpy()]  # per-item contribution map for the debugging view
        return [[self.items[j] for j in row] for row in top.tolist()]


async def replay(handle, queries: list[str | None], clients: int, batch: int) -> list[float]:
    lat: list[float] = []
    sem = asyncio.Semaphore(clients)
    n = len(queries) // batch

    async def one(i: int) -> None:
        async with sem:
            t = time.perf_counter()
            await handle.remote(queries[i * batch:(i + 1) * batch])
            lat.append(time.perf_counter() - t)
            if (i + 1) % 25 == 0:
                log.info("%d/%d requests done, p50 so far %.1f ms", i + 1, n, 1e3 * statistics.median(lat))

    await asyncio.gather(*(one(i) for i in range(n)))
    return lat


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--cpus-per-replica", type=float, default=0.5)
    ap.add_argument("--queries", default="queries.jsonl")
    ap.add_argument("--make-queries", type=int, default=0)
    ap.add_argument("--null-every", type=int, default=0)
    ap.add_argument("--catalogue", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--cache-activations", action="store_true")
    a = ap.parse_args()
    if a.make_queries:
        make_queries(a.queries, a.make_queries, a.null_every)
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s -- %(message)s")
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    log.info("cluster resources: %s", ray.cluster_resources())
    queries = [json.loads(l)["query"] for l in open(a.queries)]
    lib = os.path.abspath("libfasttok.so")
    app = Searcher.options(num_replicas=a.replicas, ray_actor_options={"num_cpus": a.cpus_per_replica},
                           max_ongoing_requests=8).bind(lib, a.catalogue, a.cache_activations)
    log.info("deploying Searcher: %d replicas x %s CPU, %d queries to replay", a.replicas, a.cpus_per_replica,
             len(queries))
    serve.start(http_options={"host": "127.0.0.1", "port": 8298})
    t = time.time()
    handle = serve.run(app, name="search", route_prefix=None)
    log.info("application 'search' running after %.1f s", time.time() - t)
    lat = asyncio.run(replay(handle, queries, a.clients, a.batch))
    lat.sort()
    log.info("replay: %d requests x %d queries, p50 %.1f ms, p95 %.1f ms, p99 %.1f ms", len(lat), a.batch,
             1e3 * lat[len(lat) // 2], 1e3 * lat[int(len(lat) * 0.95)], 1e3 * lat[int(len(lat) * 0.99)])
    print(handle.remote(["waterproof portable speaker", "leather jacket for men"]).result())
    serve.shutdown()
    log.info("serve shut down")


if __name__ == "__main__":
    main()
