"""Wave G accelerate job over variable-length token records: a hand-written ``collate_fn`` pads each batch's token
lists (``pad_batch``), a tiny embedding-bag regressor is trained with ``Accelerator`` (CPU, gloo), every rank logs
through ``accelerate.logging``, and an evaluation at the end gathers predictions with ``gather_for_metrics``.

``--bad-record N``: record N of the training set has ``"tokens": None`` (a row whose text field was empty in the
source file and was read as null); the collate function does not expect it. Nothing here prints a library's message.
"""
from __future__ import annotations

import argparse
import datetime
import logging
import os
import random

import torch
from accelerate import Accelerator, InitProcessGroupKwargs
from accelerate.logging import get_logger
from torch.utils.data import DataLoader

log = get_logger("acc_tokens")
VOCAB = 500


def make_records(n: int, seed: int) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        toks = [rnd.randrange(1, VOCAB) for _ in range(rnd.randint(3, 40))]
        out.append({"tokens": toks, "target": sum(t % 7 for t in toks) / len(toks)})
    return out


def pad_batch(rows: list[dict]) -> dict:
    width = max(len(r["tokens"]) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r["tokens"])] = torch.tensor(r["tokens"])
    return {"ids": ids, "target": torch.tensor([r["target"] for r in rows])}


class BagRegressor(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.EmbeddingBag(VOCAB, 32, mode="mean", padding_idx=0)
        self.head = torch.nn.Linear(32, 1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.emb(ids)).squeeze(1)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--records", type=int, default=2048)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--bad-record", type=int, default=-1)
    p.add_argument("--workers", type=int, default=0)
    a = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo",
                                                                        timeout=datetime.timedelta(seconds=600))])
    log.info("process %d/%d pid %d", acc.process_index, acc.num_processes, os.getpid(), main_process_only=False)
    train = make_records(a.records, 0)
    if a.bad_record >= 0:
        train[a.bad_record]["tokens"] = None
    evalset = make_records(203, 1)
    model = BagRegressor()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    tl = DataLoader(train, batch_size=32, shuffle=True, collate_fn=pad_batch, num_workers=a.workers)
    el = DataLoader(evalset, batch_size=32, collate_fn=pad_batch)
    model, opt, tl, el = acc.prepare(model, opt, tl, el)
    log.info("%d train batches, %d eval batches per process", len(tl), len(el), main_process_only=False)
    for epoch in range(a.epochs):
        model.train()
        for i, batch in enumerate(tl):
            loss = torch.nn.functional.mse_loss(model(batch["ids"]), batch["target"])
            acc.backward(loss)
            opt.step()
            opt.zero_grad()
            if i % 4 == 0:
                log.info("epoch %d batch %d loss %.4f", epoch, i, loss.item(), main_process_only=False)
        model.eval()
        preds, targets = [], []
        with torch.no_grad():
            for batch in el:
                pr, tg = acc.gather_for_metrics((model(batch["ids"]), batch["target"]))
                preds.append(pr)
                targets.append(tg)
        mse = torch.nn.functional.mse_loss(torch.cat(preds), torch.cat(targets)).item()
        log.info("epoch %d eval mse %.4f over %d records", epoch, mse, sum(len(t) for t in targets))
    acc.wait_for_everyone()
    log.info("training finished", main_process_only=False)
    acc.end_training()


if __name__ == "__main__":
    main()
