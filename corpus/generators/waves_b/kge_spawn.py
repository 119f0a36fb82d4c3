"""Data-parallel ComplEx training on the synthetic KG under torch.multiprocessing.spawn (gloo; tcp:// init, or a
shared-file init with --init-file): DDP, per-epoch filtered evaluation on the dev set (ranks all-reduced), checkpoint
on rank 0.

Options that change the job: --logsig-by-hand (-log(sigmoid(x)) written out instead of F.logsigmoid), --init/
--init-scale (embedding initialisation), --eval-python (rank 0 scores the dev set alone with a Python filter scan,
the others wait at a barrier), --export-dir DIR (rank 0 writes the entity embeddings as TSV for the embedding
projector after each epoch), --hogwild (lock-free training of one shared model in 2 processes, no process group),
--loader-workers N with --refresh-negatives (a DataLoader over a dataset whose hard-negative pool is refreshed by a
background thread)."""
import argparse
import datetime
import faulthandler
import os
import random
import threading
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset

import kge_core as kc


def log(rank, msg):
    print(f"{kc.stamp()} [rank {rank}] {msg}", flush=True)


class NegPoolTriples(Dataset):
    """Training triples plus a pool of 'hard' negative tails, refreshed from the degree file by a background thread."""

    def __init__(self, triples, n_ent, degree_path):
        self.triples, self.n_ent, self.path = triples, n_ent, degree_path
        self.lock = threading.Lock()
        self.pool = torch.randint(0, n_ent, (512,))
        threading.Thread(target=self._refresh, daemon=True).start()

    def _refresh(self):
        while True:
            with self.lock:  # hold the lock while the file is re-read and the pool rebuilt
                if os.path.exists(self.path):
                    deg = torch.load(self.path)
                    self.pool = torch.multinomial(deg.float() + 1, 512, replacement=True)
                time.sleep(0.5)

    def __len__(self):
        return len(self.triples)

    def __getitem__(self, i):
        with self.lock:
            hard = self.pool[i % len(self.pool)]
        return self.triples[i], hard


def data(a):
    tr, va, te = (kc.read_tsv(os.path.join(a.data, f"{n}.tsv")) for n in ("train", "valid", "test"))
    e2i, r2i = kc.vocab(tr)
    return kc.encode(tr, e2i, r2i), kc.encode(va, e2i, r2i), kc.encode(te, e2i, r2i), e2i, r2i


def export_projector(model, e2i, out, epoch, rank):
    os.makedirs(out, exist_ok=True)
    w = model.ent.weight.detach()
    with open(os.path.join(out, f"vectors-epoch{epoch:02d}.tsv"), "w") as f:
        for row in w.tolist():
            f.write("\t".join(f"{v:.8f}" for v in row) + "\n")
    with open(os.path.join(out, f"metadata-epoch{epoch:02d}.tsv"), "w") as f:
        f.write("entity\ttype\n")
        for e in e2i:
            f.write(f"{e}\t{e.split(':')[0]}\n")
    log(rank, f"epoch {epoch}: projector export {out}/vectors-epoch{epoch:02d}.tsv ({w.shape[0]}x{w.shape[1]})")


def worker(rank, a):
    faulthandler.enable()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    init = f"file://{a.init_file}" if a.init_file else f"tcp://127.0.0.1:{os.environ['MASTER_PORT']}"
    log(rank, f"init_process_group(gloo, {init}, world_size={a.nprocs})")
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=a.nprocs,
                            timeout=datetime.timedelta(seconds=a.pg_timeout))
    world = dist.get_world_size()
    log(rank, f"process group up: world {world}, backend {dist.get_backend()}, timeout {a.pg_timeout}s")
    train, valid, test, e2i, r2i = data(a)
    n_ent = len(e2i)
    shard = train[rank::world]
    log(rank, f"{len(train)} train triples ({len(shard)} on this rank), {len(valid)} valid, {len(test)} test, "
              f"{n_ent} entities, {len(r2i)} relations")
    model = kc.ComplEx(n_ent, len(r2i), dim=a.dim, init=a.init, init_scale=a.init_scale)
    ddp = DDP(model)
    opt = torch.optim.Adagrad(ddp.parameters(), lr=a.lr)
    if rank == 0:
        log(rank, f"ComplEx dim {a.dim}: {sum(p.numel() for p in model.parameters())} parameters, Adagrad lr {a.lr}, "
                  f"{a.neg} negatives per positive, init {a.init}({a.init_scale})")
    known = kc.filter_index(train, valid, test)
    if a.loader_workers:
        torch.save(torch.bincount(train[:, 2], minlength=n_ent), os.path.join(a.data, "tail_degree.pt"))
        ds = NegPoolTriples(shard, n_ent, os.path.join(a.data, "tail_degree.pt"))
        loader = DataLoader(ds, batch_size=a.batch, shuffle=True, num_workers=a.loader_workers,
                            multiprocessing_context=a.loader_context or None)
        log(rank, f"DataLoader: {a.loader_workers} workers, hard-negative pool refreshed in the background")
    step = 0
    for epoch in range(1, a.epochs + 1):
        t0 = time.time()
        if a.loader_workers:
            batches = (b for b, _ in loader)
        else:
            g = torch.Generator().manual_seed(epoch)
            perm = shard[torch.randperm(len(shard), generator=g)]
            batches = (perm[i:i + a.batch] for i in range(0, len(perm), a.batch))
        tot, n = 0.0, 0
        for b in batches:
            loss = ddp(b, a.neg, n_ent, logsig_by_hand=a.logsig_by_hand)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tot += loss.item()
            n += 1
            if step % a.log_every == 0:
                log(rank, f"epoch {epoch} step {step}: loss {loss.item():.4f}")
            if not torch.isfinite(loss) and a.stop_nonfinite:
                raise RuntimeError(f"non-finite loss {loss.item()} at epoch {epoch} step {step}")
        dt = time.time() - t0
        log(rank, f"epoch {epoch}: train loss {tot / max(n, 1):.4f}, {n} steps, {len(shard) / dt:.0f} triples/s")
        if a.eval_python:
            if rank == 0:
                known_list = [tuple(x) for x in torch.cat([train, valid, test]).tolist()]
                log(rank, f"epoch {epoch}: filtered evaluation on {len(valid)} dev triples (rank 0)")
                ranks = kc.ranks_tail_python(model, valid, known_list)
                m = kc.metrics(ranks)
                log(rank, f"epoch {epoch}: dev MRR {m['mrr']:.4f} hits@1 {m['hits@1']:.3f} hits@10 {m['hits@10']:.3f}")
            dist.barrier()
        else:
            mine = valid[rank::world]
            ranks = kc.ranks_tail(model, mine, known)
            s = torch.tensor([(1.0 / ranks.double()).sum().item(), (ranks <= 1).sum().item(),
                              (ranks <= 10).sum().item(), len(ranks)], dtype=torch.float64)
            dist.all_reduce(s)
            if rank == 0:
                log(rank, f"epoch {epoch}: dev MRR {s[0] / s[3]:.4f} hits@1 {s[1] / s[3]:.3f} "
                          f"hits@10 {s[2] / s[3]:.3f} ({int(s[3])} triples)")
        if rank == 0:
            if a.export_dir:
                export_projector(model, e2i, a.export_dir, epoch, rank)
            torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(a.ckpt_dir, "last.pt"))
            log(rank, f"epoch {epoch}: checkpoint {a.ckpt_dir}/last.pt")
    ranks = kc.ranks_tail(model, test[rank::world], known)
    s = torch.tensor([(1.0 / ranks.double()).sum().item(), len(ranks)], dtype=torch.float64)
    dist.all_reduce(s)
    if rank == 0:
        log(rank, f"test MRR {s[0] / s[1]:.4f} ({int(s[1])} triples)")
    dist.destroy_process_group()
    log(rank, "done")


def hogwild_worker(rank, model, train, n_ent, a):
    torch.set_num_threads(1)
    torch.manual_seed(rank)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    shard = train[rank::a.nprocs]
    for epoch in range(1, a.epochs + 1):
        perm = shard[torch.randperm(len(shard))]
        for i in range(0, len(perm), a.batch):
            loss = model(perm[i:i + a.batch], a.neg, n_ent)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"{kc.stamp()} [hogwild {rank}] epoch {epoch}: loss {loss.item():.4f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="kg")
    p.add_argument("--nprocs", type=int, default=2)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--neg", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--init", default="normal")
    p.add_argument("--init-scale", type=float, default=0.1)
    p.add_argument("--logsig-by-hand", action="store_true")
    p.add_argument("--stop-nonfinite", action="store_true")
    p.add_argument("--eval-python", action="store_true")
    p.add_argument("--export-dir", default="")
    p.add_argument("--ckpt-dir", default="ckpt")
    p.add_argument("--init-file", default="")
    p.add_argument("--hogwild", action="store_true")
    p.add_argument("--extra-entities", type=int, default=0)
    p.add_argument("--loader-workers", type=int, default=0)
    p.add_argument("--loader-context", default="")
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--pg-timeout", type=int, default=1800)
    a = p.parse_args()
    os.makedirs(a.ckpt_dir, exist_ok=True)
    if not os.path.exists(os.path.join(a.data, "train.tsv")):
        tr, va, te = kc.make_dataset(a.data)
        print(f"{kc.stamp()} wrote {a.data}/train.tsv ({len(tr)}), valid.tsv ({len(va)}), test.tsv ({len(te)})",
              flush=True)
    print(f"{kc.stamp()} torch {torch.__version__}, spawning {a.nprocs} processes", flush=True)
    if a.hogwild:
        train, _, _, e2i, r2i = data(a)
        n_ent = len(e2i) + a.extra_entities  # room for entities added by the nightly ingest
        model = kc.ComplEx(n_ent, len(r2i), dim=a.dim)
        print(f"{kc.stamp()} hogwild: {n_ent} entity rows x {2 * a.dim} "
              f"({model.ent.weight.numel() * 4 / 2**20:.0f} MiB), sharing the model with {a.nprocs} workers",
              flush=True)
        model.share_memory()
        mp.spawn(hogwild_worker, args=(model, train, n_ent, a), nprocs=a.nprocs)
        print(f"{kc.stamp()} hogwild training finished", flush=True)
        return
    mp.spawn(worker, args=(a,), nprocs=a.nprocs)
    print(f"{kc.stamp()} all ranks finished", flush=True)


if __name__ == "__main__":
    main()
