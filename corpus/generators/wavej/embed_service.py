"""Ray Serve embedding service and a load test: ``python embed_service.py --replicas N --cpus-per-replica C``.

A ``Embedder`` deployment (a small Transformer encoder, mean-pooled) behind a FastAPI-free Serve handle; the script
deploys it with ``serve.run`` on the running Ray cluster (``RAY_ADDRESS``), sends ``--requests`` batches of texts
through the deployment handle from ``--clients`` concurrent callers, prints latency percentiles, checks the
embeddings of a few paraphrases, then shuts Serve down.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import logging
import os
import statistics
import time

import ray
import torch
from ray import serve
from torch import nn

log = logging.getLogger("embed_service")


def tokenize(text: str, length: int = 48) -> list[int]:
    ids = [int(hashlib.md5(w.encode()).hexdigest()[:6], 16) % 4093 + 3 for w in text.lower().split()]
    return (ids + [0] * length)[:length]


class Encoder(nn.Module):
    def __init__(self, vocab: int = 4096, d: int = 128) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        mask = ids == 0
        h = self.enc(self.emb(ids), src_key_padding_mask=mask)
        h = h.masked_fill(mask.unsqueeze(-1), 0.0).sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return nn.functional.normalize(h, dim=-1)


@serve.deployment
class Embedder:
    def __init__(self, threads: int) -> None:
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        self.model = Encoder().eval()
        self.calls = 0
        logging.getLogger("ray.serve").info("Embedder replica ready (pid %d, %d torch threads)", os.getpid(), threads)

    async def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        with torch.no_grad():
            out = self.model(torch.tensor([tokenize(t) for t in texts]))
        return out.tolist()


SENTENCES = ["the invoice total does not match the order", "my parcel arrived damaged", "reset my password please",
             "the app crashes when I open settings", "how do I change the delivery address", "refund has not arrived",
             "two charges for one order", "the courier left the parcel outside", "login code never arrives",
             "can I pay by bank transfer"]


async def load_test(handle, requests: int, clients: int, batch: int) -> list[float]:
    lat: list[float] = []
    sem = asyncio.Semaphore(clients)

    async def one(i: int) -> None:
        async with sem:
            texts = [SENTENCES[(i + k) % len(SENTENCES)] + f" #{i}" for k in range(batch)]
            t = time.perf_counter()
            await handle.remote(texts)
            lat.append(time.perf_counter() - t)
            if (i + 1) % 50 == 0:
                log.info("%d/%d requests done, p50 so far %.1f ms", i + 1, requests, 1e3 * statistics.median(lat))

    await asyncio.gather(*(one(i) for i in range(requests)))
    return lat


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--cpus-per-replica", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s -- %(message)s")
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    log.info("cluster resources: %s", ray.cluster_resources())
    app = Embedder.options(num_replicas=a.replicas, ray_actor_options={"num_cpus": a.cpus_per_replica},
                           max_ongoing_requests=16).bind(a.threads)
    log.info("deploying Embedder: %d replicas x %s CPU", a.replicas, a.cpus_per_replica)
    serve.start(http_options={"host": "127.0.0.1", "port": 8297})
    t = time.time()
    handle = serve.run(app, name="embeddings", route_prefix=None)
    log.info("application 'embeddings' running after %.1f s", time.time() - t)
    lat = asyncio.run(load_test(handle, a.requests, a.clients, a.batch))
    lat.sort()
    log.info("load test: %d requests x %d texts, p50 %.1f ms, p95 %.1f ms, p99 %.1f ms", len(lat), a.batch,
             1e3 * lat[len(lat) // 2], 1e3 * lat[int(len(lat) * 0.95)], 1e3 * lat[int(len(lat) * 0.99)])
    e = handle.remote(["reset my password please", "please reset my password", "my parcel arrived damaged"]).result()
    sim = lambda u, v: sum(x * y for x, y in zip(u, v))  # noqa: E731
    log.info("cosine(paraphrase) %.3f, cosine(unrelated) %.3f", sim(e[0], e[1]), sim(e[0], e[2]))
    serve.shutdown()
    log.info("serve shut down")


if __name__ == "__main__":
    main()
