"""Cart-pole PPO as a LightningModule: each epoch collects a rollout on every rank (its own cart-poles), then
runs the PPO minibatch updates from it (strategy ddp on CPU, gloo)."""
import argparse
import datetime
import os

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.strategies import DDPStrategy
from torch.utils.data import DataLoader, Dataset

import ppo_core as pc


class Minibatches(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


class PPOModule(L.LightningModule):
    def __init__(self, envs=8, steps=64, minibatch=128, ppo_epochs=4, lr=2.5e-4):
        super().__init__()
        self.save_hyperparameters()
        self.model = pc.ActorCritic()
        self.env = None
        self.obs = None
        self.batch = None
        self.perm = None

    def on_train_epoch_start(self):
        if self.env is None:
            self.env = pc.CartPoleVec(self.hparams.envs, seed=1000 + self.global_rank)
        self.batch, self.obs, st = pc.rollout(self.env, self.model, self.hparams.steps, self.obs)
        n = len(self.batch["act"])
        self.perm = torch.cat([torch.randperm(n) for _ in range(self.hparams.ppo_epochs)])
        ret = torch.tensor(st["return_mean"] if st["episodes"] else 0.0)
        self.log("episode_return", ret, sync_dist=True, prog_bar=True)
        print(f"[rank {self.global_rank}] epoch {self.current_epoch} rollout: {st['episodes']} episodes, "
              f"return {st['return_mean']:.1f}, {st['fps']:.0f} env-steps/s", flush=True)

    def training_step(self, idx, _):
        mb_size = self.hparams.minibatch
        sel = self.perm[idx[0] * mb_size:(idx[0] + 1) * mb_size]
        mb = {k: v[sel] for k, v in self.batch.items()}
        loss, st = pc.ppo_loss(self.model, mb)
        self.log_dict({f"train/{k}": v for k, v in st.items()}, sync_dist=False)
        if self.global_step % 4 == 2:
            print(f"[rank {self.global_rank}] step {self.global_step} {pc.fmt(st)}", flush=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr, eps=1e-5)

    def train_dataloader(self):
        n_mb = self.hparams.envs * self.hparams.steps * self.hparams.ppo_epochs // self.hparams.minibatch
        return DataLoader(Minibatches(n_mb), batch_size=1, shuffle=False)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--num-nodes", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    a = ap.parse_args()
    torch.set_num_threads(1)
    L.seed_everything(0)
    ckpt = ModelCheckpoint(dirpath=a.ckpt_dir, monitor="episode_return", mode="max", save_top_k=2,
                           filename="ppo-{epoch}-{episode_return:.1f}")
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, num_nodes=a.num_nodes, max_epochs=a.epochs,
                        strategy=DDPStrategy(process_group_backend="gloo",
                                             timeout=datetime.timedelta(seconds=a.pg_timeout)),
                        callbacks=[ckpt], log_every_n_steps=8, enable_progress_bar=False,
                        gradient_clip_val=0.5)
    module = PPOModule()
    trainer.fit(module)
    if trainer.global_rank == 0:
        print(f"best checkpoint: {ckpt.best_model_path} (episode_return {ckpt.best_model_score})", flush=True)
