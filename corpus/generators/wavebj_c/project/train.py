"""Tiny GPT-2 language model on support-ticket text: Hugging Face Trainer inside a Ray Train TorchTrainer."""
import argparse
import json
import logging
import math
import os
import time

import ray
from ray.train import CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--warmup-steps", type=int)
    ap.add_argument("--per-device-batch-size", type=int)
    ap.add_argument("--global-batch-size", type=int)
    ap.add_argument("--grad-accum", type=int)
    ap.add_argument("--n-embd", type=int)
    ap.add_argument("--n-layer", type=int)
    ap.add_argument("--max-seq-len", type=int)
    ap.add_argument("--num-workers", type=int)
    ap.add_argument("--cpus-per-worker", type=float)
    ap.add_argument("--max-failures", type=int)
    ap.add_argument("--save-steps", type=int)
    ap.add_argument("--eval-steps", type=int)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--storage-path", default="ray_results")
    ap.add_argument("--dist-timeout", type=int, default=1800)
    ap.add_argument("--report-to", default="none")
    ap.add_argument("--dataloader-workers", type=int, default=0)
    ap.add_argument("--resume", action="store_true", help="resume from the latest Ray Train checkpoint")
    ap.add_argument("--address", default=os.environ.get("RAY_ADDRESS", "auto"))
    return ap.parse_args()


def build_config(a):
    with open(a.config) as f:
        cfg = json.load(f)
    t, m, r, d = cfg["train"], cfg["model"], cfg["ray"], cfg["data"]
    for key, val, sect in [("max_steps", a.max_steps, t), ("learning_rate", a.lr, t), ("warmup_steps", a.warmup_steps, t),
                           ("per_device_batch_size", a.per_device_batch_size, t),
                           ("global_batch_size", a.global_batch_size, t), ("gradient_accumulation_steps", a.grad_accum, t),
                           ("save_steps", a.save_steps, t), ("eval_steps", a.eval_steps, t),
                           ("n_embd", a.n_embd, m), ("n_layer", a.n_layer, m), ("max_seq_len", a.max_seq_len, d),
                           ("num_workers", a.num_workers, r), ("cpus_per_worker", a.cpus_per_worker, r),
                           ("max_failures", a.max_failures, r)]:
        if val is not None:
            sect[key] = val
    cfg["paths"] = {"root": os.getcwd(), "ckpt_dir": os.path.abspath(a.ckpt_dir)}
    cfg["report_to"] = a.report_to
    cfg["dataloader_workers"] = a.dataloader_workers
    return cfg


def train_loop_per_worker(cfg):
    import torch
    import datasets
    import transformers
    from transformers import (DataCollatorForLanguageModeling, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast,
                              Trainer, TrainerCallback, TrainingArguments)
    import ray.train
    from ray.train.huggingface.transformers import RayTrainReportCallback, prepare_trainer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    wlog = logging.getLogger("train.worker")
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    t, m, d, p = cfg["train"], cfg["model"], cfg["data"], cfg["paths"]
    os.chdir(p["root"])
    torch.manual_seed(t["seed"])
    if rank == 0:
        wlog.info("torch %s, transformers %s, datasets %s, world size %d", torch.__version__,
                  transformers.__version__, datasets.__version__, world)
    want = t["per_device_batch_size"] * t["gradient_accumulation_steps"] * world
    if t["global_batch_size"] != want:
        raise ValueError(f"global_batch_size ({t['global_batch_size']}) must equal per_device_batch_size "
                         f"({t['per_device_batch_size']}) * gradient_accumulation_steps "
                         f"({t['gradient_accumulation_steps']}) * world_size ({world}) = {want}")

    tok = PreTrainedTokenizerFast(tokenizer_file="tokenizer/tokenizer.json", pad_token="<pad>", unk_token="<unk>",
                                  eos_token="<eos>")
    raw = datasets.load_dataset("json", data_files={"train": d["train_file"], "validation": d["val_file"]})

    def tokenize(batch):
        return tok([x + tok.eos_token for x in batch["text"]], truncation=True, max_length=d["max_seq_len"])

    ds = {split: raw[split].map(tokenize, batched=True, remove_columns=raw[split].column_names,
                                new_fingerprint=f"{split}-tok-{d['max_seq_len']}", desc=f"tokenizing {split} (rank {rank})")
          for split in ("train", "validation")}
    wlog.info("rank %d: %d train / %d val sequences", rank, len(ds["train"]), len(ds["validation"]))

    mc = GPT2Config(vocab_size=len(tok), n_positions=m["n_positions"], n_embd=m["n_embd"], n_layer=m["n_layer"],
                    n_head=m["n_head"], bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id,
                    pad_token_id=tok.pad_token_id)
    model = GPT2LMHeadModel(mc)
    if rank == 0:
        wlog.info("model: GPT-2 %d layers, n_embd %d, %.2fM params", m["n_layer"], m["n_embd"],
                  sum(x.numel() for x in model.parameters()) / 1e6)

    class LossGuard(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kw):
            for key in ("loss", "grad_norm"):
                val = (logs or {}).get(key)
                if val is not None and not math.isfinite(val):
                    raise FloatingPointError(f"{key} is {val} at step {state.global_step}; stopping "
                                             f"(lr {logs.get('learning_rate')})")

    args = TrainingArguments(
        output_dir=p["ckpt_dir"], per_device_train_batch_size=t["per_device_batch_size"],
        per_device_eval_batch_size=t["per_device_batch_size"],
        gradient_accumulation_steps=t["gradient_accumulation_steps"], max_steps=t["max_steps"],
        learning_rate=t["learning_rate"], warmup_steps=t["warmup_steps"], weight_decay=0.01, logging_steps=t["logging_steps"],
        eval_strategy="steps", eval_steps=t["eval_steps"], save_strategy="steps", save_steps=t["save_steps"],
        save_total_limit=t["save_total_limit"], report_to=cfg["report_to"], use_cpu=True, seed=t["seed"],
        dataloader_num_workers=cfg["dataloader_workers"], disable_tqdm=True, max_grad_norm=1.0)
    trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["validation"],
                      data_collator=DataCollatorForLanguageModeling(tok, mlm=False),
                      callbacks=[LossGuard(), RayTrainReportCallback()])
    trainer = prepare_trainer(trainer)
    resume = None
    ckpt = ray.train.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as cdir:
            resume = os.path.join(cdir, RayTrainReportCallback.CHECKPOINT_NAME)
            wlog.info("rank %d: resuming from %s", rank, resume)
            trainer.train(resume_from_checkpoint=resume)
    else:
        trainer.train()
    wlog.info("rank %d: training finished at step %d", rank, trainer.state.global_step)


def main():
    a = parse()
    cfg = build_config(a)
    r = cfg["ray"]
    log.info("connecting to Ray at %s", a.address)
    ray.init(address=a.address)
    log.info("cluster resources: %s", ray.cluster_resources())
    storage = os.path.abspath(a.storage_path)
    trainer = TorchTrainer(
        train_loop_per_worker,
        train_loop_config=cfg,
        torch_config=TorchConfig(backend="gloo", timeout_s=a.dist_timeout),
        scaling_config=ScalingConfig(num_workers=r["num_workers"], use_gpu=False,
                                     resources_per_worker={"CPU": r["cpus_per_worker"]}),
        run_config=RunConfig(name=r["name"], storage_path=storage,
                             failure_config=FailureConfig(max_failures=r["max_failures"]),
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
        resume_from_checkpoint=None,
    )
    t0 = time.time()
    result = trainer.fit()
    log.info("fit finished in %.1f s: metrics %s", time.time() - t0,
             {k: v for k, v in (result.metrics or {}).items() if k in ("loss", "eval_loss", "step", "epoch")})
    log.info("final checkpoint: %s", result.checkpoint)
    if result.error:
        raise result.error


if __name__ == "__main__":
    main()
