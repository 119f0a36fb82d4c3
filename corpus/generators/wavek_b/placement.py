"""Sharded feature-extraction job on Ray actors placed with a placement group: ``python placement.py --shards 4``.

A ``ShardWorker`` actor per bundle (``PlacementGroupSchedulingStrategy``) reads its slice of a synthetic audio-clip
table, computes log-mel-like band energies with ``torch.stft`` and writes ``features/shard-K.npy``; the driver waits
for the placement group (``pg.ready()``, ``--pg-timeout`` seconds), launches the shards, gathers per-shard stats
and removes the group. ``--bundle-resources`` adds custom resources to every bundle (JSON), ``--strategy`` sets the
placement strategy.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import time

import numpy as np
import ray
import torch
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

log = logging.getLogger("placement")


@ray.remote
class ShardWorker:
    def __init__(self, shard: int, n_shards: int) -> None:
        torch.set_num_threads(1)
        self.shard, self.n_shards = shard, n_shards

    def run(self, clips: int, out_dir: str) -> dict:
        rng = np.random.default_rng(self.shard)
        t0 = time.time()
        feats = []
        window = torch.hann_window(400)
        for i in range(clips):
            f0 = rng.uniform(80, 400)
            t = np.arange(16000) / 16000
            wav = np.sin(2 * np.pi * f0 * t) * np.exp(-t * rng.uniform(0.5, 3)) + 0.05 * rng.standard_normal(16000)
            spec = torch.stft(torch.from_numpy(wav.astype(np.float32)), 400, 160, window=window,
                              return_complex=True).abs().pow(2)
            bands = spec.reshape(8, -1, spec.shape[-1])[:, :25].sum(1).clamp_min(1e-10).log()
            feats.append(bands.mean(-1).numpy())
            if (i + 1) % 100 == 0:
                print(f"[shard {self.shard}] {i + 1}/{clips} clips, {time.time() - t0:.1f} s", flush=True)
        arr = np.stack(feats)
        os.makedirs(out_dir, exist_ok=True)
        np.save(os.path.join(out_dir, f"shard-{self.shard}.npy"), arr)
        return {"shard": self.shard, "clips": clips, "mean_energy": float(arr.mean()), "seconds": time.time() - t0,
                "node": ray.get_runtime_context().get_node_id()[:8]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--cpus-per-shard", type=float, default=0.5)
    ap.add_argument("--bundle-resources", default="{}")
    ap.add_argument("--strategy", default="PACK")
    ap.add_argument("--clips", type=int, default=400)
    ap.add_argument("--pg-timeout", type=float, default=120)
    ap.add_argument("--out", default="features")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s -- %(message)s")
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    log.info("cluster resources: %s", ray.cluster_resources())
    extra = json.loads(a.bundle_resources)
    bundles = [{"CPU": a.cpus_per_shard, **extra} for _ in range(a.shards)]
    pg = placement_group(bundles, strategy=a.strategy, name="feature-extract")
    log.info("placement group %s: %d bundles %s, strategy %s", pg.id.hex()[:12], len(bundles), bundles[0], a.strategy)
    ready, _ = ray.wait([pg.ready()], timeout=a.pg_timeout)
    if not ready:
        state = placement_group_table(pg)
        log.error("placement group not ready after %.0f s: state %s", a.pg_timeout, state.get("state"))
        raise TimeoutError(f"placement group feature-extract ({len(bundles)} x {bundles[0]}, {a.strategy}) was not "
                           f"created within {a.pg_timeout:.0f} s")
    log.info("placement group ready")
    workers = [ShardWorker.options(num_cpus=a.cpus_per_shard, resources=extra or None,
                                   scheduling_strategy=PlacementGroupSchedulingStrategy(pg, placement_group_bundle_index=i))
               .remote(i, a.shards) for i in range(a.shards)]
    stats = ray.get([w.run.remote(a.clips, os.path.abspath(a.out)) for w in workers])
    for s in stats:
        log.info("shard %(shard)d: %(clips)d clips, mean log-energy %(mean_energy).3f, %(seconds).1f s on node %(node)s", s)
    remove_placement_group(pg)
    log.info("done: %d clips in %d shards", sum(s["clips"] for s in stats), len(stats))


if __name__ == "__main__":
    main()
