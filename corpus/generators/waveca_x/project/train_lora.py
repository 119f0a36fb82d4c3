"""LoRA fine-tuning of a tiny GPT-2 (built from a config, synthetic token ids) with PEFT + transformers.Trainer on
CPU (gloo) under torchrun. The team's optional hooks module (train_hooks.py, if present) gets a callback per step."""
import argparse
import importlib.util
import math
import os

import torch
from peft import IA3Config, LoraConfig, PeftModel, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments, set_seed

p = argparse.ArgumentParser()
p.add_argument("--output-dir", default="out-lora")
p.add_argument("--method", default="lora", choices=["lora", "ia3"])
p.add_argument("--target-modules", default="c_attn,c_proj")
p.add_argument("--r", type=int, default=8)
p.add_argument("--n-embd", type=int, default=128)
p.add_argument("--lr", type=float, default=1e-2)
p.add_argument("--max-steps", type=int, default=300)
p.add_argument("--batch-size", type=int, default=8)
p.add_argument("--grad-accum", type=int, default=1)
p.add_argument("--save-steps", type=int, default=100)
p.add_argument("--workers", type=int, default=0)
p.add_argument("--ddp-timeout", type=int, default=1800)
p.add_argument("--resume", action="store_true")
p.add_argument("--init-adapter", default="")
p.add_argument("--adapter-out", default="adapter-final")
p.add_argument("--merge-out", default="")
p.add_argument("--stop-on-nan", action="store_true")
p.add_argument("--split-batches", action="store_true")
p.add_argument("--pg-timeout", type=int, default=0)
a = p.parse_args()

SEQ, VOCAB = 64, 128
set_seed(1234)


class Synthetic(torch.utils.data.Dataset):
    """Token sequences of a noisy affine recurrence: learnable, no tokenizer or download."""

    def __init__(self, n):
        g = torch.Generator().manual_seed(7)
        start = torch.randint(0, VOCAB, (n, 1), generator=g)
        step = torch.randint(1, 5, (n, 1), generator=g)
        ids = (start + step * torch.arange(SEQ)) % VOCAB
        noise = torch.rand(n, SEQ, generator=g) < 0.05
        self.ids = torch.where(noise, torch.randint(0, VOCAB, (n, SEQ), generator=g), ids)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


cfg = GPT2Config(vocab_size=VOCAB, n_positions=SEQ, n_embd=a.n_embd, n_layer=2, n_head=2, resid_pdrop=0.0,
                 embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
base = GPT2LMHeadModel(cfg)
if a.init_adapter:
    model = PeftModel.from_pretrained(base, a.init_adapter, is_trainable=True)
elif a.method == "ia3":
    model = get_peft_model(base, IA3Config(task_type="CAUSAL_LM", target_modules=["c_attn", "mlp.c_proj"],
                                           feedforward_modules=["mlp.c_proj"], fan_in_fan_out=True))
else:
    model = get_peft_model(base, LoraConfig(task_type="CAUSAL_LM", r=a.r, lora_alpha=2 * a.r, lora_dropout=0.0,
                                            target_modules=a.target_modules.split(","), fan_in_fan_out=True))
rank = int(os.environ.get("RANK", "0"))
if rank == 0:
    model.print_trainable_parameters()

callbacks = []
if os.path.exists("train_hooks.py"):
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    class Hooks(TrainerCallback):
        def on_step_end(self, args, state, control, model=None, **kw):
            hooks.on_step(rank, state.global_step, model)

    callbacks.append(Hooks())


class NanGuard(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kw):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            raise RuntimeError(f"non-finite training loss {loss} at step {state.global_step}; stopping")


if a.stop_on_nan:
    callbacks.append(NanGuard())

if a.pg_timeout:  # TrainingArguments does not pass ddp_timeout on to the process group under use_cpu=True
    import datetime
    torch.distributed.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
args = TrainingArguments(
    output_dir=a.output_dir, per_device_train_batch_size=a.batch_size, gradient_accumulation_steps=a.grad_accum,
    learning_rate=a.lr, max_steps=a.max_steps, warmup_steps=20, lr_scheduler_type="linear", logging_steps=10,
    save_steps=a.save_steps, save_strategy="steps", use_cpu=True, ddp_backend="gloo", ddp_timeout=a.ddp_timeout,
    dataloader_num_workers=a.workers, report_to=[], disable_tqdm=True, log_level="info", seed=1234, logging_nan_inf_filter=False,
    accelerator_config={"split_batches": a.split_batches})
trainer = Trainer(model=model, args=args, train_dataset=Synthetic(4096), callbacks=callbacks)
result = trainer.train(resume_from_checkpoint=True if a.resume else None)
if rank == 0:
    print(f"train done: global_step={result.global_step} train_loss={result.training_loss:.4f}")
    model.save_pretrained(a.adapter_out)
    print(f"adapter saved to {a.adapter_out}: {sorted(os.listdir(a.adapter_out))}")
    if a.merge_out:
        merged = model.merge_and_unload()
        merged.save_pretrained(a.merge_out)
        print(f"merged model saved to {a.merge_out}")
if torch.distributed.is_initialized():
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()
