"""ComplEx link prediction on the synthetic KG as a LightningModule (strategy ddp on CPU processes): filtered
MRR/Hits@10 on the dev set each epoch (sync_dist), ModelCheckpoint on dev MRR, LR monitor, a final test.

Options that change the job: --dense-eval (score every candidate triple of the dev and test sets at once by
broadcasting the factor products over all entities before the sum), --raw-split (keep dev/test triples whose
entities never occur in training, as the upstream dump ships them), --dim, --epochs."""
import argparse
import os

import lightning as L
import torch
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

import kge_core as kc


class KGE(L.LightningModule):
    def __init__(self, n_ent, n_rel, known, dim=32, lr=0.1, neg=32, dense_eval=False):
        super().__init__()
        self.save_hyperparameters(ignore=["known"])
        self.model = kc.ComplEx(n_ent, n_rel, dim=dim)
        self.known, self.n_ent = known, n_ent

    def training_step(self, batch, i):
        (b,) = batch
        loss = self.model(b, self.hparams.neg, self.n_ent)
        self.log("train/loss", loss, prog_bar=True)
        if i % 5 == 0:
            print(f"{kc.stamp()} [rank {self.global_rank}] epoch {self.current_epoch} step {self.global_step}: "
                  f"loss {loss.item():.4f}", flush=True)
        return loss

    def _ranks(self, b):
        if not self.hparams.dense_eval:
            return kc.ranks_tail(self.model, b, self.known)
        m = self.model
        hr, hi = m._parts(m.ent(b[:, 0]))
        rr, ri = m._parts(m.rel(b[:, 1]))
        er, ei = m._parts(m.ent.weight)
        # every (query, candidate, component) product materialised, then summed
        s = ((hr * rr)[:, None, :] * er[None] - (hi * ri)[:, None, :] * er[None]
             + (hr * ri)[:, None, :] * ei[None] + (hi * rr)[:, None, :] * ei[None]).sum(-1)
        true = s.gather(1, b[:, 2:3])
        return (s > true).sum(1) + 1

    def validation_step(self, batch, i):
        (b,) = batch
        r = self._ranks(b).double()
        self.log("val/mrr", (1.0 / r).mean(), sync_dist=True, prog_bar=True)
        self.log("val/hits10", (r <= 10).double().mean(), sync_dist=True)

    def test_step(self, batch, i):
        (b,) = batch
        r = self._ranks(b).double()
        self.log("test/mrr", (1.0 / r).mean(), sync_dist=True)
        self.log("test/hits1", (r <= 1).double().mean(), sync_dist=True)
        self.log("test/hits10", (r <= 10).double().mean(), sync_dist=True)

    def on_validation_epoch_end(self):
        if self.global_rank == 0 and not self.trainer.sanity_checking:
            m = self.trainer.callback_metrics
            print(f"{kc.stamp()} epoch {self.current_epoch}: val/mrr {m['val/mrr']:.4f} "
                  f"val/hits10 {m['val/hits10']:.3f}", flush=True)

    def configure_optimizers(self):
        opt = torch.optim.Adagrad(self.parameters(), lr=self.hparams.lr)
        return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.StepLR(opt, 5, 0.5)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="kg")
    p.add_argument("--devices", type=int, default=2)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--dense-eval", action="store_true")
    p.add_argument("--eval-batch", type=int, default=256)
    p.add_argument("--raw-split", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(1)
    if not os.path.exists(os.path.join(a.data, "train.tsv")):
        if a.raw_split:  # the dump's own split: dev/test not filtered to entities seen in training
            os.makedirs(a.data)
            t = sorted(kc.make_kg())  # the dump is ordered by subject id: the newest records come last
            for name, part in (("train", t[:-1200]), ("valid", t[-1200:-600]), ("test", t[-600:])):
                kc.write_tsv(os.path.join(a.data, f"{name}.tsv"), part)
        else:
            kc.make_dataset(a.data)
    tr, va, te = (kc.read_tsv(os.path.join(a.data, f"{n}.tsv")) for n in ("train", "valid", "test"))
    print(f"{kc.stamp()} {a.data}: {len(tr)} train, {len(va)} valid, {len(te)} test triples", flush=True)
    e2i, r2i = kc.vocab(tr)
    train, valid, test = kc.encode(tr, e2i, r2i), kc.encode(va, e2i, r2i), kc.encode(te, e2i, r2i)
    known = kc.filter_index(train, valid, test)
    L.seed_everything(0)
    model = KGE(len(e2i), len(r2i), known, dim=a.dim, dense_eval=a.dense_eval)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        callbacks=[ModelCheckpoint(dirpath="checkpoints", monitor="val/mrr", mode="max", save_top_k=2,
                                                   filename="kge-{epoch:02d}-{val/mrr:.4f}",
                                                   auto_insert_metric_name=False),
                                   LearningRateMonitor()],
                        log_every_n_steps=5, enable_progress_bar=False)
    dl = lambda x, bs, sh: DataLoader(TensorDataset(x), batch_size=bs, shuffle=sh)  # noqa: E731
    trainer.fit(model, dl(train, 256, True), dl(valid, a.eval_batch, False))
    trainer.test(model, dl(test, a.eval_batch, False), ckpt_path="best")
    if trainer.global_rank == 0:
        print(f"{kc.stamp()} best checkpoint {trainer.checkpoint_callback.best_model_path}", flush=True)


if __name__ == "__main__":
    main()
