"""Claims-risk FT-Transformer under the Hugging Face Trainer (DDP over gloo, one process per rank via mp.spawn)."""
import argparse
import os

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.utils.data import Dataset

import tab_core as tc


class Rows(Dataset):
    def __init__(self, xn, xc, y):
        self.xn, self.xc, self.y = xn, xc, torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"x_num": self.xn[i], "x_cat": self.xc[i], "labels": self.y[i]}


class ClaimsForTrainer(torch.nn.Module):
    def __init__(self, cards):
        super().__init__()
        self.ft = tc.FTTransformer(len(tc.NUM_COLS), cards)

    def forward(self, x_num, x_cat, labels=None):
        logits = self.ft(x_num, x_cat)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.binary_cross_entropy_with_logits(logits, labels)
        return out


def worker(rank, a):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nprocs),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("MASTER_PORT", "29480"))
    torch.set_num_threads(1)
    from transformers import Trainer, TrainingArguments, set_seed

    set_seed(0)
    enc, (num, cat, y), (vnum, vcat, vy) = tc.build(n_train=a.rows, unseen_occupations=a.val_extract_new_codes)
    xn, xc = enc.transform(num, cat)
    if a.per_split_codes:
        # the validation extract comes from the current warehouse: encode its categories on their own
        val_enc = tc.Encoder(vnum, vcat)
        vxn, vxc = enc.transform(vnum, vcat, codes=val_enc.vocab)
    else:
        vxn, vxc = enc.transform(vnum, vcat)
    if rank == 0:
        print(f"train {len(y)} rows, val {len(vy)} rows, categorical cardinalities {enc.cards()}", flush=True)

    def metrics(p):
        logits, labels = p
        return {"auc": tc.auc(logits, labels), "accuracy": float(((logits > 0) == labels).mean())}

    args = TrainingArguments(output_dir="out", per_device_train_batch_size=a.batch, per_device_eval_batch_size=256,
                             num_train_epochs=a.epochs, learning_rate=3e-3, weight_decay=1e-4, warmup_steps=20,
                             lr_scheduler_type="cosine", eval_strategy="epoch", save_strategy="epoch",
                             save_total_limit=2, logging_steps=10, report_to=[], ddp_backend="gloo", use_cpu=True,
                             disable_tqdm=True, dataloader_num_workers=a.loader_workers, seed=0)
    trainer = Trainer(model=ClaimsForTrainer(enc.cards()), args=args, train_dataset=Rows(xn, xc, y),
                      eval_dataset=Rows(vxn, vxc, vy), compute_metrics=metrics)
    trainer.train()
    if a.final_eval_rank0:
        if rank == 0:
            print(f"final eval: {trainer.evaluate()}", flush=True)
    else:
        final = trainer.evaluate()
        if rank == 0:
            print(f"final eval: {final}", flush=True)
    trainer.save_model("out/final")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--rows", type=int, default=4000)
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--final-eval-rank0", action="store_true")
    ap.add_argument("--per-split-codes", action="store_true")
    ap.add_argument("--val-extract-new-codes", type=int, default=0)
    a = ap.parse_args()
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)
