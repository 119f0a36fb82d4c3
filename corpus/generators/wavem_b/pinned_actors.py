"""Offline image-embedding index build: ViT encoder actors, one per shard, pinned to the nodes recorded in the
job's node file (the nodes with the local NVMe cache), then a nearest-neighbour sanity check on the driver."""
import argparse
import json
import time

import numpy as np
import ray
import torch
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from vit_tune import ViT, make_images


@ray.remote(num_cpus=1)
class Embedder:
    def __init__(self, shard, n):
        torch.set_num_threads(1)
        torch.manual_seed(0)
        self.model = ViT().eval()
        self.model.head = torch.nn.Identity()
        self.x, self.y = make_images(n, 100 + shard)
        self.shard = shard

    def embed(self, batch=128):
        outs = []
        with torch.no_grad():
            for i in range(0, len(self.x), batch):
                outs.append(self.model(self.x[i:i + batch]))
                print(f"shard {self.shard}: embedded {min(i + batch, len(self.x))}/{len(self.x)}", flush=True)
        return torch.cat(outs).numpy(), self.y.numpy()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--node-file", default="")
    a = ap.parse_args()
    ray.init()
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    print(f"cluster nodes: {nodes}", flush=True)
    pinned = json.load(open(a.node_file))["cache_nodes"] if a.node_file else []
    actors = []
    for s in range(a.shards):
        opts = {}
        if pinned:
            node = pinned[s % len(pinned)]
            print(f"shard {s}: pinning encoder to cache node {node}", flush=True)
            opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
        actors.append(Embedder.options(name=f"embedder-{s}", **opts).remote(s, a.n))
    t0 = time.time()
    parts = ray.get([act.embed.remote() for act in actors])
    emb = np.concatenate([p[0] for p in parts])
    lab = np.concatenate([p[1] for p in parts])
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    sims = emb[:256] @ emb.T
    np.fill_diagonal(sims[:, :256], -1)
    nn_acc = (lab[sims.argmax(1)] == lab[:256]).mean()
    np.save("index.npy", emb)
    print(f"index: {emb.shape[0]} vectors of dim {emb.shape[1]} in {time.time() - t0:.1f}s; 1-NN label agreement "
          f"{nn_acc:.3f}", flush=True)
