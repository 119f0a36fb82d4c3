"""Tiny Llama SFT / DPO with TRL on CPU (2 processes via accelerate launch)."""
import argparse
import json
import logging
import os

import torch
import transformers
from datasets import load_dataset
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM, TrainerCallback

import trl

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/sft.json")
ap.add_argument("--stage", choices=["sft", "dpo", "grpo"], default="sft")
ap.add_argument("--num-generations", type=int, default=4)
ap.add_argument("--max-steps", type=int)
ap.add_argument("--lr", type=float)
ap.add_argument("--batch-size", type=int)
ap.add_argument("--grad-accum", type=int)
ap.add_argument("--max-seq-len", type=int)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--save-steps", type=int)
ap.add_argument("--resume", action="store_true")
ap.add_argument("--init-from", default="")
ap.add_argument("--hidden-size", type=int)
ap.add_argument("--layers", type=int)
ap.add_argument("--lora", action="store_true")
ap.add_argument("--deepspeed", default=None)
ap.add_argument("--report-to", default="none")
ap.add_argument("--dist-timeout", type=int, default=1800)
ap.add_argument("--num-workers", type=int, default=0)
a = ap.parse_args()

logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("train")
transformers.utils.logging.set_verbosity_info() if os.environ.get("RANK", "0") == "0" else None
cfg = json.load(open(a.config))
mc, tc = cfg["model"], cfg["train"]
for k, v in {"max_steps": a.max_steps, "learning_rate": a.lr, "per_device_train_batch_size": a.batch_size,
             "gradient_accumulation_steps": a.grad_accum, "max_length": a.max_seq_len,
             "save_steps": a.save_steps}.items():
    if v is not None:
        tc[k] = v
if a.hidden_size:
    mc["hidden_size"], mc["intermediate_size"] = a.hidden_size, 4 * a.hidden_size
if a.layers:
    mc["num_hidden_layers"] = a.layers

tok = AutoTokenizer.from_pretrained("tokenizer")
rank = int(os.environ.get("RANK", 0))
log.info("rank %s/%s: trl %s, transformers %s, torch %s", rank, os.environ.get("WORLD_SIZE"), trl.__version__,
         transformers.__version__, torch.__version__)
if a.init_from:
    model = LlamaForCausalLM.from_pretrained(a.init_from)
else:
    torch.manual_seed(tc["seed"])
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id,
                                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, **mc))
log.info("model: %d layers, hidden %d, %.2fM params", mc["num_hidden_layers"], mc["hidden_size"],
         sum(p.numel() for p in model.parameters()) / 1e6)

peft_config = None
if a.lora:
    from peft import LoraConfig
    peft_config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")

files = "data/sft.jsonl" if a.stage == "sft" else "data/prefs.jsonl"
ds = load_dataset("json", data_files=files, split="train").train_test_split(test_size=0.1, seed=0)


class StepLog(TrainerCallback):
    def on_save(self, args, state, control, **kw):
        log.info("rank %d: checkpoint saved at step %d", rank, state.global_step)

    def on_step_end(self, args, state, control, **kw):
        if state.global_step % 10 == 0:
            log.info("rank %d: step %d/%d", rank, state.global_step, state.max_steps)


common = dict(output_dir=a.ckpt_dir, use_cpu=True, report_to=a.report_to, logging_steps=tc["logging_steps"],
              max_steps=tc["max_steps"], learning_rate=tc["learning_rate"], warmup_steps=tc["warmup_steps"],
              per_device_train_batch_size=tc["per_device_train_batch_size"], per_device_eval_batch_size=8,
              gradient_accumulation_steps=tc["gradient_accumulation_steps"], save_steps=tc["save_steps"],
              eval_strategy="steps", eval_steps=tc["eval_steps"], save_total_limit=2, seed=tc["seed"],
              dataloader_num_workers=a.num_workers, ddp_timeout=a.dist_timeout, max_length=tc["max_length"], deepspeed=a.deepspeed,
              ddp_backend="gloo", disable_tqdm=False)
if a.stage == "sft":
    args = trl.SFTConfig(**common, completion_only_loss=True)
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                             processing_class=tok, peft_config=peft_config, callbacks=[StepLog()])
elif a.stage == "grpo":
    common.pop("max_length")
    args = trl.GRPOConfig(**common, num_generations=a.num_generations, max_completion_length=12, beta=0.0)

    def reward_polite(completions, **kw):
        return [float("please" in c.lower()) + 0.1 * min(len(c.split()), 8) for c in completions]

    trainer = trl.GRPOTrainer(model=model, args=args, reward_funcs=reward_polite, train_dataset=ds["train"],
                              eval_dataset=ds["test"], processing_class=tok, peft_config=peft_config,
                              callbacks=[StepLog()])
else:
    args = trl.DPOConfig(**common, beta=0.1)
    ref = LlamaForCausalLM(model.config)
    ref.load_state_dict(model.state_dict())
    trainer = trl.DPOTrainer(model=model, ref_model=ref, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                             processing_class=tok, peft_config=peft_config, callbacks=[StepLog()])
out = trainer.train(resume_from_checkpoint=True if a.resume else None)
log.info("rank %d: train done: %s", rank, out.metrics)
trainer.save_model(os.path.join(a.ckpt_dir, "final"))
log.info("rank %d: saved final model", rank)
