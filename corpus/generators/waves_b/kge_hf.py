"""ComplEx link prediction trained by the Hugging Face Trainer, one process per rank started with
torch.multiprocessing.spawn (RANK/WORLD_SIZE/LOCAL_RANK set per process, env:// rendezvous, gloo on CPU), then a
filtered MRR evaluation of the dev set, sharded over ranks and all-reduced.

--args-from-v4 builds TrainingArguments with the keyword names of the script's transformers 4.x days."""
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import transformers
from transformers import Trainer, TrainingArguments

import kge_core as kc


class TripleSet(torch.utils.data.Dataset):
    def __init__(self, t):
        self.t = t

    def __len__(self):
        return len(self.t)

    def __getitem__(self, i):
        return {"triples": self.t[i]}


class HFComplEx(nn.Module):
    def __init__(self, n_ent, n_rel, dim, neg):
        super().__init__()
        self.kge, self.n_ent, self.neg = kc.ComplEx(n_ent, n_rel, dim=dim), n_ent, neg

    def forward(self, triples):
        return {"loss": self.kge(triples, self.neg, self.n_ent)}


def collate(rows):
    return {"triples": torch.stack([r["triples"] for r in rows])}


def worker(rank, a):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nprocs))
    torch.set_num_threads(1)
    tr, va, te = (kc.read_tsv(os.path.join(a.data, f"{n}.tsv")) for n in ("train", "valid", "test"))
    e2i, r2i = kc.vocab(tr)
    train, valid, test = kc.encode(tr, e2i, r2i), kc.encode(va, e2i, r2i), kc.encode(te, e2i, r2i)
    model = HFComplEx(len(e2i), len(r2i), a.dim, 32)
    kw = dict(output_dir="out", per_device_train_batch_size=128, per_device_eval_batch_size=256,
              num_train_epochs=a.epochs, learning_rate=0.3, optim="adagrad", logging_steps=a.log_every,
              save_strategy="epoch", save_total_limit=2, report_to=[], use_cpu=True, ddp_backend="gloo",
              dataloader_drop_last=True, disable_tqdm=True, seed=0, remove_unused_columns=False)
    if a.args_from_v4:
        kw.update(evaluation_strategy="epoch", no_cuda=True)
        kw.pop("use_cpu")
    else:
        kw.update(eval_strategy="epoch")
    args = TrainingArguments(**kw)
    if rank == 0:
        print(f"{kc.stamp()} transformers {transformers.__version__}: {len(train)} train triples, "
              f"{len(e2i)} entities, world {args.world_size}", flush=True)
    trainer = Trainer(model=model, args=args, train_dataset=TripleSet(train), eval_dataset=TripleSet(valid),
                      data_collator=collate)
    trainer.train()
    known = kc.filter_index(train, valid, test)
    r = kc.ranks_tail(model.kge, valid[rank::a.nprocs], known).double()
    s = torch.tensor([(1.0 / r).sum().item(), (r <= 10).sum().item(), len(r)], dtype=torch.float64)
    dist.all_reduce(s)
    if rank == 0:
        print(f"{kc.stamp()} filtered dev MRR {s[0] / s[2]:.4f} hits@10 {s[1] / s[2]:.3f} ({int(s[2])} triples)",
              flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="kg")
    p.add_argument("--nprocs", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--args-from-v4", action="store_true")
    a = p.parse_args()
    if not os.path.exists(os.path.join(a.data, "train.tsv")):
        kc.make_dataset(a.data)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs)
    print(f"{kc.stamp()} done", flush=True)


if __name__ == "__main__":
    main()
