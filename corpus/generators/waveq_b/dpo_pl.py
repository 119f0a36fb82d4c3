"""SFT then DPO of the tiny causal LM as a LightningModule (strategy ddp on CPU): the first `--sft-epochs` epochs are
SFT, then the module freezes a reference copy and switches to the DPO loss. Validation: exact match of greedy
answers, plus (optionally) a table of sampled completions gathered from all ranks."""
import argparse
import os
import time

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset

import lm_core as lc


class Pairs(Dataset):
    def __init__(self, pairs):
        self.pairs = pairs

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        return self.pairs[i]


class DPOModule(L.LightningModule):
    def __init__(self, a):
        super().__init__()
        self.a = a
        self.policy = lc.TinyGPT(d=a.d)
        self.ref = None
        self.val = lc.make_pairs(64, seed=12)

    def phase(self):
        return "sft" if self.current_epoch < self.a.sft_epochs else "dpo"

    def on_train_epoch_start(self):
        if self.phase() == "dpo" and self.ref is None:
            self.ref = lc.frozen_copy(self.policy)
            for g in self.optimizers().param_groups:
                g["lr"] = self.a.dpo_lr
            print(f"[rank {self.global_rank}] epoch {self.current_epoch}: reference policy frozen, switching to DPO "
                  f"(beta {self.a.beta}, lr {self.a.dpo_lr})", flush=True)

    def training_step(self, batch, i):
        if self.phase() == "sft":
            x, m = lc.collate_sft(batch, self.a.max_len)
            loss = lc.sft_loss(self.policy, x, m)
            self.log("sft_loss", loss, prog_bar=True, sync_dist=True)
        else:
            x, m = lc.collate_pairs(batch, self.a.max_len)
            loss, st = lc.dpo_loss(self.policy, self.ref, x, m, self.a.beta)
            self.log_dict({"dpo_loss": loss, "reward_acc": st["acc"], "margin": st["margin"]}, prog_bar=True,
                          sync_dist=True)
        if self.global_rank == 0 and i % 10 == 0:
            print(f"epoch {self.current_epoch} step {self.global_step} {self.phase()} loss {loss.item():.4f}",
                  flush=True)
        return loss

    def validation_step(self, batch, i):
        em = lc.exact_match(self.policy, batch)
        self.log("val_em", em, sync_dist=True, batch_size=len(batch))
        if self.a.gather_samples and i == 0:
            g = torch.Generator().manual_seed(self.global_rank)
            outs = [lc.generate(self.policy, p["prompt"], 12, sample=True, temperature=0.8, gen=g) for p in batch[:4]]
            # token ids of the sampled completions, gathered on rank 0 for the sample table
            toks = torch.tensor([t for o in outs for t in lc.encode(o + ",")], dtype=torch.long)
            print(f"[rank {self.global_rank}] val samples: {len(outs)} completions, {toks.numel()} tokens", flush=True)
            allt = self.all_gather(toks)
            if self.global_rank == 0:
                for r in range(allt.shape[0]):
                    print(f"  samples from rank {r}: {lc.decode(allt[r])!r}", flush=True)

    def on_validation_epoch_end(self):
        if self.global_rank == 0 and not self.trainer.sanity_checking:
            print(f"epoch {self.current_epoch} ({self.phase()}): val_em {self.trainer.callback_metrics['val_em']:.3f}",
                  flush=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.policy.parameters(), lr=self.a.sft_lr, weight_decay=0.01)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=2400)
    ap.add_argument("--d", type=int, default=96)
    ap.add_argument("--max-len", type=int, default=40)
    ap.add_argument("--sft-epochs", type=int, default=4)
    ap.add_argument("--dpo-epochs", type=int, default=2)
    ap.add_argument("--sft-lr", type=float, default=3e-3)
    ap.add_argument("--dpo-lr", type=float, default=5e-4)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--gather-samples", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    L.seed_everything(0)
    train = lc.make_pairs(a.pairs, seed=11)
    val = lc.make_pairs(64, seed=12)
    ident = lambda b: b  # noqa: E731  (lists of dicts, collated in the step)
    tl = DataLoader(Pairs(train), batch_size=32, shuffle=True, collate_fn=ident)
    vl = DataLoader(Pairs(val), batch_size=16, collate_fn=ident)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.sft_epochs + a.dpo_epochs,
                        log_every_n_steps=10, enable_progress_bar=False, default_root_dir="pl_runs")
    trainer.fit(DPOModule(a), tl, vl)
    if trainer.global_rank == 0:
        print(f"best/last checkpoint: {trainer.checkpoint_callback.best_model_path}", flush=True)
        print(f"done at {time.strftime('%H:%M:%S')}", flush=True)


if __name__ == "__main__":
    main()
