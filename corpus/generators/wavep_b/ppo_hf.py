"""Policy distillation for the cart-pole: a student actor-critic's policy head is trained with the Hugging Face
Trainer (DDP over gloo, one process per rank via mp.spawn) to imitate an expert controller (an LQR-style linear
state feedback) on states the expert visits, then evaluated closed-loop in the simulator."""
import argparse
import os

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.utils.data import Dataset

import ppo_core as pc

K_LQR = np.array([1.0, 1.6, 18.0, 2.8])  # u = K . s  (push right when positive)


def expert_states(n_envs, steps, seed, log_angle=False, round_to=0):
    env = pc.CartPoleVec(n_envs, seed=seed, max_steps=200)
    obs = env.reset()
    X, Y = [], []
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        a = (obs[:, :4] @ K_LQR > 0).astype(np.int64)
        explore = np.where(rng.random(n_envs) < 0.2, rng.integers(0, 2, n_envs), a)  # DAgger-style noise
        X.append(obs.copy()); Y.append(a)
        obs, _, _ = env.step(explore)
        if round_to:
            env.s = np.round(env.s, round_to)  # the logged states of the recorder have `round_to` decimals
            obs = env.obs()
    X, Y = np.concatenate(X), np.concatenate(Y)
    if log_angle:
        # pole-angle magnitude on a log scale (small angles matter most), sign kept as its own feature
        X = np.concatenate([X, np.log(np.abs(X[:, 2:3])), np.sign(X[:, 2:3])], 1).astype(np.float32)
    return X, Y


class Demo(Dataset):
    def __init__(self, x, y):
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"obs": self.x[i], "labels": self.y[i]}


class Student(torch.nn.Module):
    def __init__(self, obs_dim):
        super().__init__()
        self.ac = pc.ActorCritic(obs_dim)

    def forward(self, obs, labels=None):
        logits, _ = self.ac(obs)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out


def worker(rank, a):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nprocs),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("MASTER_PORT", "29650"))
    torch.set_num_threads(1)
    from transformers import Trainer, TrainingArguments, set_seed

    set_seed(0)
    x, y = expert_states(32, a.steps, seed=0, log_angle=a.log_angle, round_to=a.round_to)
    vx, vy = expert_states(8, 200, seed=1, log_angle=a.log_angle, round_to=a.round_to)
    if rank == 0:
        print(f"expert demonstrations: {len(y)} train / {len(vy)} val states, {x.shape[1]} features, "
              f"push-right rate {y.mean():.3f}", flush=True)
        print(f"feature ranges: min {np.round(x.min(0), 3).tolist()} max {np.round(x.max(0), 3).tolist()}", flush=True)

    def metrics(p):
        logits, labels = p
        return {"accuracy": float((logits.argmax(-1) == labels).mean())}

    args = TrainingArguments(output_dir="out", per_device_train_batch_size=128, per_device_eval_batch_size=512,
                             num_train_epochs=a.epochs, learning_rate=1e-3, warmup_steps=20, weight_decay=0.0,
                             lr_scheduler_type="linear", eval_strategy="epoch", save_strategy="epoch",
                             save_total_limit=1, logging_steps=10, report_to=[], ddp_backend="gloo", use_cpu=True,
                             disable_tqdm=True, seed=0, max_grad_norm=1.0)
    model = Student(x.shape[1])
    trainer = Trainer(model=model, args=args, train_dataset=Demo(x, y), eval_dataset=Demo(vx, vy),
                      compute_metrics=metrics)
    trainer.train()
    if rank == 0:
        # closed-loop check of the student in the simulator
        env = pc.CartPoleVec(16, seed=7, max_steps=500)
        obs = env.reset()
        pol = model.ac.eval()
        for _ in range(500):
            o = obs
            if a.log_angle:
                o = np.concatenate([o, np.log(np.abs(o[:, 2:3])), np.sign(o[:, 2:3])], 1).astype(np.float32)
            with torch.no_grad():
                act = pol(torch.from_numpy(o))[0].argmax(-1).numpy()
            obs, _, _ = env.step(act)
        rets = env.pop_returns()
        print(f"closed-loop student: {len(rets)} finished episodes, mean return "
              f"{np.mean(rets) if rets else float('nan'):.1f}", flush=True)
    trainer.save_model("out/final")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--log-angle", action="store_true")
    ap.add_argument("--round-to", type=int, default=0)
    a = ap.parse_args()
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)
