"""Pretrain a small GPT for code completion with pipeline parallelism (torch.distributed.pipelining), 2 stages over
gloo on CPU. Launch: torchrun --nproc-per-node 2 train.py [flags]. The last stage owns the loss and prints it."""
import argparse
import json
import logging
import math
import os
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
from torch.utils.data import DataLoader, Dataset, RandomSampler
from tqdm import tqdm

from model import GPT, split_for_stage

logging.basicConfig(format="[%(asctime)s] [%(levelname)s] %(message)s", level=logging.INFO)
log = logging.getLogger("codegpt")


class TokenWindows(Dataset):
    def __init__(self, path, block_size):
        self.data = np.memmap(path, dtype=np.uint16, mode="r")
        self.block = block_size

    def __len__(self):
        return (len(self.data) - 1) // self.block

    def __getitem__(self, i):
        s = i * self.block
        chunk = torch.from_numpy(self.data[s:s + self.block + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


def args_():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="data/codetok")
    ap.add_argument("--out-dir", default="checkpoints")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--iters-per-epoch", type=int, default=20)
    ap.add_argument("--global-batch-size", type=int, default=16)
    ap.add_argument("--micro-batch-size", type=int, default=4)
    ap.add_argument("--block-size", type=int, default=64)
    ap.add_argument("--n-layer", type=int, default=4)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=128)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--schedule", choices=["gpipe", "1f1b"], default="gpipe")
    ap.add_argument("--eval-iters", type=int, default=4)
    ap.add_argument("--log-interval", type=int, default=2)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--pg-timeout", type=int, default=600, help="process group timeout (s)")
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--resume", default="", help="checkpoint dir or 'latest'")
    ap.add_argument("--early-stop", type=int, default=0, help="patience in epochs (0: off)")
    ap.add_argument("--wandb", action="store_true", help="log metrics to Weights & Biases")
    return ap.parse_args()


def main():
    a = args_()
    dist.init_process_group("gloo", timeout=timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    n_stages, dp = world, 1  # pure pipeline parallel: one stage per rank
    last = rank == n_stages - 1
    torch.manual_seed(1337)
    if a.global_batch_size % (a.micro_batch_size * dp) != 0:
        raise ValueError(f"global batch size ({a.global_batch_size}) is not divisible by micro batch size "
                         f"({a.micro_batch_size}) times data parallel size ({dp})")
    n_micro = a.global_batch_size // (a.micro_batch_size * dp)

    meta_path = os.path.join(a.data_dir, "meta.json")
    try:
        with open(meta_path) as f:
            vocab_size = json.load(f)["vocab_size"]
    except FileNotFoundError as e:
        vocab_size = int(np.memmap(os.path.join(a.data_dir, "train.bin"), dtype=np.uint16, mode="r").max()) + 1
        log.error(f"[rank {rank}] could not load tokenizer meta ({e}); inferring vocab_size={vocab_size} from train.bin")
    if rank == 0:
        log.info(f"pipeline parallel: {n_stages} stages, schedule {a.schedule}, {n_micro} microbatches of "
                 f"{a.micro_batch_size}, global batch {a.global_batch_size}, vocab {vocab_size}")

    model = GPT(vocab_size, a.block_size, a.n_layer, a.n_head, a.n_embd)
    model = split_for_stage(model, rank, n_stages, a.n_layer)
    n_params = sum(p.numel() for p in model.parameters())
    log.info(f"[rank {rank}] stage {rank}: layers {list(model.layers.keys())}, {n_params / 1e6:.2f}M parameters")
    stage = PipelineStage(model, rank, n_stages, torch.device("cpu"))

    def loss_fn(logits, targets):
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))

    Sched = ScheduleGPipe if a.schedule == "gpipe" else Schedule1F1B
    schedule = Sched(stage, n_microbatches=n_micro, loss_fn=loss_fn)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.1)

    g = torch.Generator().manual_seed(42)  # same order on every stage: stage 0 feeds inputs, the last one targets
    train = TokenWindows(os.path.join(a.data_dir, "train.bin"), a.block_size)
    val = TokenWindows(os.path.join(a.data_dir, "val.bin"), a.block_size)
    loader = DataLoader(train, batch_size=a.global_batch_size, sampler=RandomSampler(train, generator=g),
                        num_workers=a.num_workers, drop_last=True)
    val_loader = DataLoader(val, batch_size=a.global_batch_size, shuffle=False, drop_last=True)

    start_epoch, best, bad_epochs = 0, float("inf"), 0
    if a.resume:
        path = a.resume
        if a.resume == "latest":
            with open(os.path.join(a.out_dir, "latest_checkpointed_iteration.txt")) as f:
                path = os.path.join(a.out_dir, f"iter_{int(f.read()):07d}")
        ck = torch.load(os.path.join(path, f"stage_{rank:02d}.pt"))
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optim"])
        start_epoch = ck["epoch"]
        log.info(f"[rank {rank}] resumed from {path} (epoch {start_epoch}, iteration {ck['iteration']})")
        if start_epoch >= a.epochs:
            if rank == 0:
                log.info(f"all {a.epochs} epochs already done, nothing to train")
            dist.barrier()
            dist.destroy_process_group()
            return
    wandb_run = None
    if a.wandb and last:
        import wandb
        wandb_run = wandb.init(project="codegpt-pp", config=vars(a))

    it = start_epoch * a.iters_per_epoch
    for epoch in range(start_epoch, a.epochs):
        model.train()
        batches = iter(loader)
        for i in range(a.iters_per_epoch):
            t0 = time.time()
            x, y = next(batches)
            opt.zero_grad(set_to_none=True)
            losses = []
            if rank == 0:
                schedule.step(x)
            elif last:
                schedule.step(target=y, losses=losses)
            else:
                schedule.step()
            opt.step()
            it += 1
            if last:
                loss = torch.stack(losses).mean().item()
                if not math.isfinite(loss):
                    raise RuntimeError(f"loss is {loss} at iteration {it}, stopping")
                if it % a.log_interval == 0:
                    dt = (time.time() - t0) * 1000
                    tok = a.global_batch_size * a.block_size / (time.time() - t0)
                    print(f"iter {it}: epoch {epoch + 1}/{a.epochs}, loss {loss:.4f}, time {dt:.0f}ms, "
                          f"{tok:.0f} tok/s", flush=True)
                    if wandb_run:
                        wandb_run.log({"train/loss": loss, "iter": it})
            if a.step_delay:
                time.sleep(a.step_delay)

        # validation: forward-only through the pipeline, the last stage collects the losses
        model.eval()
        vl = torch.zeros(1)
        vbatches = iter(val_loader)
        for _ in tqdm(range(a.eval_iters), desc=f"eval epoch {epoch + 1}", disable=not last, ncols=80):
            x, y = next(vbatches)
            losses = []
            if rank == 0:
                schedule.eval(x)
            elif last:
                schedule.eval(target=y, losses=losses)
                vl += torch.stack(losses).mean()
            else:
                schedule.eval()
        vl /= a.eval_iters
        if last:
            print(f"epoch {epoch + 1}: val loss {vl.item():.4f}, val ppl {math.exp(vl.item()):.2f}", flush=True)
        if a.early_stop:
            if last:
                dist.all_reduce(vl)  # share the validation loss with the other stages
            else:
                dist.broadcast(vl, src=n_stages - 1)
            if vl.item() < best:
                best, bad_epochs = vl.item(), 0
            else:
                bad_epochs += 1

        ckdir = os.path.join(a.out_dir, f"iter_{it:07d}")
        os.makedirs(ckdir, exist_ok=True)
        torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch + 1, "iteration": it},
                   os.path.join(ckdir, f"stage_{rank:02d}.pt"))
        dist.barrier()
        if rank == 0:
            with open(os.path.join(a.out_dir, "latest_checkpointed_iteration.txt"), "w") as f:
                f.write(str(it))
            log.info(f"saved checkpoint {ckdir} (epoch {epoch + 1})")
        if a.early_stop and bad_epochs >= a.early_stop:
            log.info(f"[rank {rank}] early stopping after epoch {epoch + 1}")
            break

    if wandb_run:
        wandb_run.finish()
    dist.barrier()
    if rank == 0:
        log.info("training complete")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
