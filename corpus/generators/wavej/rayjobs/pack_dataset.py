"""Ray Data job: pack a tokenised corpus into fixed-length training rows with the ``seqpack`` C++ extension.

``ray job submit --working-dir . -- python pack_dataset.py --corpus corpus.jsonl --out /tmp/.../packed``: reads the
JSON-lines corpus of ``make_corpus.py`` with ``ray.data.read_json``, packs each batch of documents into rows of
``--seq-len`` tokens with a ``PackRows`` actor pool (``map_batches``; each actor builds/loads ``seqpack.cpp`` with
``torch.utils.cpp_extension.load``), writes Parquet, then reads it back and prints packing statistics.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import ray
import torch


class PackRows:
    def __init__(self, seq_len: int, threads: int) -> None:
        from torch.utils.cpp_extension import load

        t = time.time()
        self.ext = load("seqpack", [os.path.join(os.getcwd(), "seqpack.cpp")], verbose=False)
        self.seq_len, self.threads, self.batches = seq_len, threads, 0
        print(f"PackRows ready in {time.time() - t:.1f} s (pid {os.getpid()}, seq_len {seq_len})", flush=True)

    def __call__(self, batch: dict) -> dict:
        docs = [torch.tensor(np.asarray(t, dtype=np.int64)) for t in batch["tokens"]]
        rows = self.ext.pack(docs, self.seq_len, 0, self.threads).numpy()
        self.batches += 1
        if self.batches % 5 == 0:
            print(f"PackRows pid {os.getpid()}: {self.batches} batches, last {len(docs)} docs -> {len(rows)} rows",
                  flush=True)
        return {"input_ids": list(rows), "n_tokens": (rows != 0).sum(1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="corpus.jsonl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--batch-docs", type=int, default=256)
    ap.add_argument("--actors", type=int, default=2)
    a = ap.parse_args()
    ray.init()
    t0 = time.time()
    ds = ray.data.read_json(os.path.abspath(a.corpus))
    packed = ds.map_batches(PackRows, fn_constructor_kwargs={"seq_len": a.seq_len, "threads": 2},
                            batch_size=a.batch_docs, concurrency=a.actors, num_cpus=0.5,
                            max_restarts=2, max_task_retries=2)
    packed.write_parquet(a.out)
    back = ray.data.read_parquet(a.out)
    n_rows = back.count()
    n_tok = back.sum("n_tokens")
    print(f"packed {n_rows} rows of {a.seq_len} tokens ({n_tok} tokens, fill {n_tok / (n_rows * a.seq_len):.1%}) "
          f"into {a.out} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
