"""SFT then DPO of the tiny causal LM with the Hugging Face `Trainer` (one process per rank via
torch.multiprocessing.spawn, DDP over gloo on CPU). A `Trainer` subclass computes the SFT or the DPO loss; the
DPO stage's reference model is a frozen copy of the SFT policy. A preemption-aware callback turns SIGTERM into a
checkpoint and an early stop. The final policy is exported to `--export-dir`."""
import argparse
import os
import signal
import sys
import time

import torch
import torch.multiprocessing as mp
import torch.nn as nn
from transformers import Trainer, TrainerCallback, TrainingArguments

import lm_core as lc

PREEMPTED = {"flag": False}


class PolicyLM(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.gpt = lc.TinyGPT(d=d)

    def forward(self, input_ids, loss_mask=None):
        return self.gpt(input_ids)


class DPOTrainerLite(Trainer):
    def __init__(self, *args, mode="sft", ref=None, beta=0.1, **kw):
        super().__init__(*args, **kw)
        self.mode, self.ref, self.beta = mode, ref, beta

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        gpt = model.module.gpt if hasattr(model, "module") else model.gpt
        x, m = inputs["input_ids"], inputs["loss_mask"]
        if self.mode == "sft":
            loss = lc.sft_loss(gpt, x, m)
        else:
            loss, st = lc.dpo_loss(gpt, self.ref, x, m, self.beta)
            if self.state.global_step % self.args.logging_steps == 0 and self.model.training:
                self.log({"rewards/accuracy": st["acc"], "rewards/margin": st["margin"],
                          "rewards/chosen": st["chosen"], "rewards/rejected": st["rejected"]})
        return loss


class PreemptionCallback(TrainerCallback):
    def on_step_end(self, args, state, control, **kw):
        if PREEMPTED["flag"]:
            print(f"[rank {args.process_index}] SIGTERM received: saving a checkpoint at step {state.global_step} "
                  f"and stopping", flush=True)
            control.should_save = True
            control.should_training_stop = True
        return control


def worker(rank, a):
    torch.set_num_threads(1)
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nprocs))
    signal.signal(signal.SIGTERM, lambda *_: PREEMPTED.update(flag=True))
    train = lc.make_pairs(a.pairs, seed=11)
    val = lc.make_pairs(64, seed=12)
    model = PolicyLM(a.d)
    common = dict(use_cpu=True, ddp_backend="gloo", per_device_train_batch_size=16, logging_steps=a.log_every,
                  save_strategy="steps", save_steps=a.save_steps, save_total_limit=2, report_to=[],
                  remove_unused_columns=False, dataloader_num_workers=0, disable_tqdm=True, seed=0)
    sft_args = TrainingArguments(output_dir="out/sft", num_train_epochs=a.sft_epochs, learning_rate=3e-3,
                                 warmup_steps=10, lr_scheduler_type="cosine", weight_decay=0.01, **common)
    sft = DPOTrainerLite(model=model, args=sft_args, train_dataset=train, mode="sft",
                         data_collator=lambda b: dict(zip(("input_ids", "loss_mask"), lc.collate_sft(b, a.max_len))),
                         callbacks=[PreemptionCallback()])
    sft.train()
    if PREEMPTED["flag"]:
        sys.exit(143)
    em = lc.exact_match(model.gpt, val)
    if rank == 0:
        print(f"SFT exact match on {len(val)} held-out prompts: {em:.3f}", flush=True)
    ref = lc.frozen_copy(model.gpt)
    dpo_args = TrainingArguments(output_dir="out/dpo", num_train_epochs=a.dpo_epochs, learning_rate=a.dpo_lr,
                                 lr_scheduler_type="linear", max_grad_norm=1.0, **common)
    dpo = DPOTrainerLite(model=model, args=dpo_args, train_dataset=train, mode="dpo", ref=ref, beta=a.beta,
                         data_collator=lambda b: dict(zip(("input_ids", "loss_mask"),
                                                          lc.collate_pairs(b, a.max_len))),
                         callbacks=[PreemptionCallback()])
    dpo.train()
    if PREEMPTED["flag"]:
        sys.exit(143)
    em = lc.exact_match(model.gpt, val)
    if rank == 0:
        print(f"DPO exact match: {em:.3f}", flush=True)
        for p in val[:4]:
            print(f"sample: {p['prompt']!r} -> {lc.generate(model.gpt, p['prompt'])!r} (want {p['chosen']!r})",
                  flush=True)
    dpo.save_model(a.export_dir)
    if rank == 0:
        print(f"exported policy to {a.export_dir}: {sorted(os.listdir(a.export_dir))}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--d", type=int, default=96)
    ap.add_argument("--max-len", type=int, default=40)
    ap.add_argument("--sft-epochs", type=float, default=2)
    ap.add_argument("--dpo-epochs", type=float, default=1)
    ap.add_argument("--dpo-lr", type=float, default=5e-4)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--save-steps", type=int, default=50)
    ap.add_argument("--export-dir", default="export/policy-dpo")
    a = ap.parse_args()

    def on_term(*_):
        print(f"launcher: SIGTERM at {time.strftime('%H:%M:%S')}, waiting for workers to checkpoint", flush=True)
    signal.signal(signal.SIGTERM, on_term)
    print(f"spawning {a.nprocs} Trainer processes (MASTER_PORT={os.environ.get('MASTER_PORT')})", flush=True)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)


if __name__ == "__main__":
    main()
