"""Toy EN->XX translator with the Lightning Trainer (strategy='ddp' on CPU processes)."""
import argparse
import os
import time

import lightning as L
import torch
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader, Dataset

import mt_core as mc


class Pairs(Dataset):
    def __init__(self, pairs, sv, tv):
        self.items = [(sv.encode(s), tv.encode(t)) for s, t in pairs]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    src = mc.pad_batch([s for s, _ in batch])
    tgt = mc.pad_batch([t for _, t in batch])
    return src, tgt[:, :-1], tgt[:, 1:]


class Translator(L.LightningModule):
    def __init__(self, n_src, n_tgt, tv, lr=3e-3, bleu_rank0_only=False):
        super().__init__()
        self.save_hyperparameters(ignore=["tv"])
        self.model = mc.Seq2Seq(n_src, n_tgt)
        self.tv = tv
        self.hyps, self.refs = [], []
        self.t0 = time.time()

    def training_step(self, batch, idx):
        src, tin, tout = batch
        loss = mc.loss_fn(self.model(src, tin), tout)
        self.log("train_loss", loss, prog_bar=False)
        if self.global_step % 20 == 0:
            print(f"[rank {self.global_rank}] epoch {self.current_epoch} step {self.global_step} "
                  f"loss {loss.item():.4f} ({time.time() - self.t0:.1f}s)", flush=True)
        return loss

    def validation_step(self, batch, idx):
        src, tin, tout = batch
        loss = mc.loss_fn(self.model(src, tin), tout)
        self.log("val_loss", loss, sync_dist=True)
        out = self.model.greedy(src)
        self.hyps += [self.tv.decode(o) for o in out]
        self.refs += [self.tv.decode(t) for t in tout.tolist()]

    def on_validation_epoch_end(self):
        b = mc.bleu(self.hyps, self.refs)
        em = sum(h == r for h, r in zip(self.hyps, self.refs)) / max(len(self.refs), 1)
        self.hyps, self.refs = [], []
        if self.hparams.bleu_rank0_only:
            if self.trainer.is_global_zero:  # report the corpus metric from the main process only
                self.log("val_bleu", b, sync_dist=True)
                self.log("val_exact", em, sync_dist=True)
        else:
            self.log("val_bleu", b, sync_dist=True)
            self.log("val_exact", em, sync_dist=True)
        print(f"[rank {self.global_rank}] epoch {self.current_epoch} val BLEU {b:.2f} exact {em:.3f}", flush=True)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return [opt], [{"scheduler": sched, "interval": "epoch"}]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--train-size", type=int, default=4000)
    ap.add_argument("--bleu-rank0-only", action="store_true")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    a = ap.parse_args()
    torch.manual_seed(0)
    train = mc.make_pairs(a.train_size, seed=1)
    dev = mc.make_pairs(400, seed=2)
    sv = mc.Vocab([s for s, _ in train])
    tv = mc.Vocab([t for _, t in train])
    model = Translator(len(sv), len(tv), tv, bleu_rank0_only=a.bleu_rank0_only)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        log_every_n_steps=10, enable_progress_bar=False, default_root_dir=".",
                        callbacks=[ModelCheckpoint(dirpath=a.ckpt_dir, monitor="val_loss", save_top_k=2),
                                   LearningRateMonitor("epoch")])
    trainer.fit(model, DataLoader(Pairs(train, sv, tv), batch_size=32, shuffle=True, collate_fn=collate),
                DataLoader(Pairs(dev, sv, tv), batch_size=64, collate_fn=collate))
    if trainer.is_global_zero:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path} "
              f"val_loss {trainer.checkpoint_callback.best_model_score:.4f}", flush=True)
