"""Train a tiny causal LM with DeepSpeed (ZeRO) on CPU over gloo."""
import argparse
import json
import logging
import math
import os
import time

import torch
import torch.nn as nn
import deepspeed
from deepspeed.utils import logger as ds_logger

log = logging.getLogger("train")


class TinyLM(nn.Module):
    def __init__(self, vocab, dim, layers, heads, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, x):
        t = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(t, device=x.device))[None]
        mask = torch.triu(torch.full((t, t), float("-inf"), device=x.device), 1)
        h = self.blocks(h, mask=mask, is_causal=True)
        return self.head(self.norm(h))


class TokenDataset(torch.utils.data.Dataset):
    def __init__(self, path, max_len):
        self.rows = []
        with open(path) as f:
            for line in f:
                if line.strip():
                    self.rows.append(line)
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = json.loads(self.rows[i])
        toks = row["tokens"][: self.max_len + 1]
        ids = torch.zeros(self.max_len + 1, dtype=torch.long)
        ids[: len(toks)] = torch.tensor(toks, dtype=torch.long)
        return ids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--local_rank", type=int, default=-1)
    ap.add_argument("--data", default="data/train.jsonl")
    ap.add_argument("--max-steps", type=int, default=80)
    ap.add_argument("--max-seq-len", type=int, default=96)
    ap.add_argument("--hidden-size", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--save-every", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--dist-timeout", type=int, default=1800)
    ap.add_argument("--num-workers", type=int, default=0)
    ap = deepspeed.add_config_arguments(ap)
    args = ap.parse_args()

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from datetime import timedelta
    deepspeed.init_distributed(dist_backend="gloo", timeout=timedelta(seconds=args.dist_timeout))
    rank = torch.distributed.get_rank()
    world = torch.distributed.get_world_size()
    torch.manual_seed(1234)

    with open(args.deepspeed_config) as f:
        cfg = json.load(f)
    lr = args.lr if args.lr is not None else cfg.pop("lr", 2e-3)
    cfg.pop("lr", None)
    if args.lr is not None and "scheduler" in cfg:
        cfg["scheduler"]["params"]["warmup_max_lr"] = lr

    model = TinyLM(args.vocab, args.hidden_size, args.layers, 4, args.max_seq_len + 1)
    n_params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log.info("model: %d layers, hidden %d, %.2fM params", args.layers, args.hidden_size, n_params / 1e6)
    ds = TokenDataset(args.data, args.max_seq_len)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.01)
    engine, optimizer, loader, sched = deepspeed.initialize(
        model=model, optimizer=opt, training_data=ds, config=cfg)
    log.info("rank %d/%d: %d rows, micro batch %d, grad accum %d", rank, world, len(ds),
             engine.train_micro_batch_size_per_gpu(), engine.gradient_accumulation_steps())

    start_step = 0
    if args.resume and os.path.isdir(args.ckpt_dir):
        path, client = engine.load_checkpoint(args.ckpt_dir)
        if path:
            start_step = client.get("step", 0)
            log.info("rank %d: resumed from %s at step %d", rank, path, start_step)

    loss_fn = nn.CrossEntropyLoss()
    step = start_step
    gas = engine.gradient_accumulation_steps()
    t0 = time.time()
    it = iter(loader)
    while step < args.max_steps:
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            batch = next(it)
        x, y = batch[:, :-1], batch[:, 1:]
        logits = engine(x)
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]).float(), y.reshape(-1))
        engine.backward(loss)
        engine.step()
        if engine.is_gradient_accumulation_boundary():
            step += 1
            lv = loss.item()
            if not math.isfinite(lv):
                raise FloatingPointError(f"rank {rank}: loss is {lv} at step {step}")
            if step % 5 == 0 or step == 1:
                log.info("rank %d: step %d/%d loss %.4f lr %.2e (%.1f s)", rank, step, args.max_steps, lv,
                         engine.get_lr()[0], time.time() - t0)
            if args.save_every and step % args.save_every == 0:
                engine.save_checkpoint(args.ckpt_dir, tag=f"global_step{step}", client_state={"step": step})
                log.info("rank %d: checkpoint saved at step %d", rank, step)
    torch.distributed.barrier()
    if rank == 0:
        log.info("training done: %d steps in %.1f s", step, time.time() - t0)
    deepspeed.comm.destroy_process_group() if hasattr(deepspeed.comm, "destroy_process_group") else None


if __name__ == "__main__":
    main()
