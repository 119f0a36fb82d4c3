"""The GPT of gpt.py trained with PyTorch Lightning (DDP strategy, NCCL on GPU), for real Lightning logs on a GPU.

python lit_gpt.py --steps 200                          # healthy
python lit_gpt.py --seq 8192 --bsz 64 --naive          # long context through textbook attention: CUDA OOM
"""

from __future__ import annotations

import argparse

import lightning as L
import torch
import torch.nn.functional as F
from gpt import GPT, VOCAB
from torch.utils.data import DataLoader, TensorDataset


class LitGPT(L.LightningModule):
    def __init__(self, lr: float, naive: bool) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.model = GPT()

    def training_step(self, batch, batch_idx):
        (seq,) = batch
        x, y = seq[:, :-1], seq[:, 1:]
        logits = self.model(x, naive=self.hparams.naive)
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
        self.log("train_loss", loss, prog_bar=True, sync_dist=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.1)


def bigram_sequences(n: int, seq: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    trans = torch.softmax(torch.randn(VOCAB, VOCAB, generator=g) * 3.0, dim=1)
    cur = torch.randint(0, VOCAB, (n,), generator=g)
    rows = [cur]
    for _ in range(seq):
        cur = torch.multinomial(trans[cur], 1, generator=g).squeeze(1)
        rows.append(cur)
    return torch.stack(rows, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--bsz", type=int, default=32)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--naive", action="store_true", help="textbook attention (materialises the score matrix)")
    ap.add_argument("--accelerator", default="gpu")
    args = ap.parse_args()
    L.seed_everything(0)
    data = TensorDataset(bigram_sequences(max(args.bsz * 8, 256), args.seq))
    loader = DataLoader(data, batch_size=args.bsz, shuffle=True, num_workers=2, drop_last=True)
    trainer = L.Trainer(
        accelerator=args.accelerator,
        devices=1,
        strategy="ddp",
        precision="bf16-mixed",
        max_steps=args.steps,
        log_every_n_steps=20,
        default_root_dir="lightning_runs",
    )
    trainer.fit(LitGPT(args.lr, args.naive), loader)


if __name__ == "__main__":
    main()
