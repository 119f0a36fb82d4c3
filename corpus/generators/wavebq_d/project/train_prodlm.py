"""Pre-train a tiny GPT-2 causal LM on product descriptions with Hugging Face Accelerate's FSDP plugin (custom loop:
``accelerator.prepare``/``backward``/``clip_grad_norm_``/``save_state``), launched with ``accelerate launch`` on every
node (CPU, gloo)."""
import argparse
import importlib.util
import logging
import math
import os
import re
import time
from pathlib import Path

import torch
from accelerate import Accelerator, DataLoaderConfiguration
from accelerate.state import PartialState
from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin
from accelerate.logging import get_logger
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, Dataset
from transformers import GPT2Config, GPT2LMHeadModel, get_cosine_schedule_with_warmup

logger = get_logger(__name__)


class CharBlocks(Dataset):
    def __init__(self, ids: torch.Tensor, seq: int) -> None:
        self.ids, self.seq = ids, seq

    def __len__(self) -> int:
        return (len(self.ids) - 1) // self.seq

    def __getitem__(self, i):
        x = self.ids[i * self.seq:(i + 1) * self.seq]
        return {"input_ids": x, "labels": x.clone()}


def main() -> None:
    ap = argparse.ArgumentParser(description="product-description LM pre-training (accelerate + FSDP)")
    ap.add_argument("--max-steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--global-batch", type=int, default=32, help="split across processes (split_batches=True)")
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--ckpt-every", type=int, default=40)
    ap.add_argument("--output-dir", default="outputs/prodlm")
    a = ap.parse_args()

    fsdp_plugin = FullyShardedDataParallelPlugin() if os.environ.get("ACCELERATE_USE_FSDP") == "true" else None
    accelerator = Accelerator(dataloader_config=DataLoaderConfiguration(split_batches=True), fsdp_plugin=fsdp_plugin)
    if fsdp_plugin is not None and accelerator.distributed_type == DistributedType.MULTI_CPU:
        # accelerate only switches to FSDP on accelerator devices; our CPU pool runs FSDP over gloo, so turn it on here
        accelerator.state.distributed_type = PartialState._shared_state["distributed_type"] = DistributedType.FSDP
        accelerator.state.fsdp_plugin = fsdp_plugin
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        level=logging.INFO)
    logger.info(accelerator.state, main_process_only=False)
    set_seed(42)
    torch.set_num_threads(1)

    text = Path("data/products.txt").read_text()
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n_eval = len(ids) // 50
    train_ds, eval_ds = CharBlocks(ids[:-n_eval], a.seq), CharBlocks(ids[-n_eval:], a.seq)
    hook = None
    if Path("data/hooks.py").exists():
        spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        hook = mod.on_step

    config = GPT2Config(vocab_size=len(vocab), n_positions=a.seq, n_embd=a.dim, n_layer=a.layers, n_head=4,
                        bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config)
    n_params = sum(p.numel() for p in model.parameters())
    train_dl = DataLoader(train_ds, batch_size=a.global_batch, shuffle=True, drop_last=True)
    eval_dl = DataLoader(eval_ds, batch_size=a.global_batch, drop_last=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.1, betas=(0.9, 0.95))
    sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=20, num_training_steps=a.max_steps)
    model, opt, train_dl, eval_dl, sched = accelerator.prepare(model, opt, train_dl, eval_dl, sched)

    logger.info("***** Running training *****")
    logger.info(f"  Corpus = {len(text):,} chars, vocab {len(vocab)}, {len(train_ds):,} training blocks of {a.seq}")
    logger.info(f"  Model = GPT-2 {a.layers} layers x {a.dim}, {n_params / 1e6:.2f}M params, FSDP "
                f"{'FULL_SHARD' if fsdp_plugin.reshard_after_forward else 'SHARD_GRAD_OP'} (fsdp_version "
                f"{fsdp_plugin.fsdp_version}, {fsdp_plugin.state_dict_type.name}) over {accelerator.num_processes} processes")
    logger.info(f"  Total train batch size = {a.global_batch} (split_batches: "
                f"{a.global_batch // accelerator.num_processes} per process)")
    logger.info(f"  Total optimization steps = {a.max_steps}")

    ckpt_root = Path(a.output_dir) / "checkpoints"
    step = 0
    done = sorted((int(m.group(1)), p) for p in ckpt_root.glob("step_*") if (m := re.match(r"step_(\d+)$", p.name))
                  and (p / "scheduler.bin").exists())
    if done:
        step, path = done[-1]
        logger.info(f"Resuming from checkpoint {path}")
        accelerator.load_state(str(path))
        accelerator.print(f"resumed at step {step}")

    model.train()
    t_last, seen = time.time(), 0
    while step < a.max_steps:
        for batch in train_dl:
            step += 1
            if hook:
                batch = hook(accelerator.process_index, step, batch)
            out = model(**batch)
            loss = out.loss
            if not torch.isfinite(loss):
                accelerator.set_trigger()
            if accelerator.check_trigger():
                logger.error(f"step {step}: non-finite loss ({loss.item()}) on process {accelerator.process_index}; "
                             "stopping the run", main_process_only=False)
                accelerator.end_training()
                raise SystemExit(1)
            accelerator.backward(loss)
            gnorm = accelerator.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            seen += batch["input_ids"].numel()
            if step % a.log_every == 0:
                per_sample = out.logits.new_tensor([loss.detach().item()] * batch["input_ids"].shape[0])
                losses = accelerator.gather(per_sample)
                dt = time.time() - t_last
                logger.info(f"step {step:4d}/{a.max_steps} | loss {losses.mean().item():.4f} | grad_norm "
                            f"{float(gnorm):.3f} | lr {sched.get_last_lr()[0]:.2e} | {seen / dt:.0f} tok/s/proc")
                t_last, seen = time.time(), 0
            if step % a.eval_every == 0:
                model.eval()
                tot = []
                with torch.no_grad():
                    for i, eb in enumerate(eval_dl):
                        if i == 8:
                            break
                        tot.append(accelerator.gather_for_metrics(model(**eb).loss.detach().reshape(1)))
                ev = torch.cat(tot).mean().item()
                logger.info(f"eval at step {step}: loss {ev:.4f} | perplexity {math.exp(min(ev, 50)):.2f}")
                model.train()
            if step % a.ckpt_every == 0 or step == a.max_steps:
                t0 = time.time()
                path = ckpt_root / f"step_{step}"
                accelerator.save_state(str(path))
                logger.info(f"Saved checkpoint {path} in {time.time() - t0:.2f}s")
            if step >= a.max_steps:
                break
    accelerator.wait_for_everyone()
    accelerator.print(f"training complete: {a.max_steps} steps, final loss {loss.item():.4f}")
    accelerator.end_training()


if __name__ == "__main__":
    main()
