"""Support-ticket priority classifier (P1-P4): a tiny BERT trained with the Hugging Face Trainer + DeepSpeed ZeRO."""
import json
import logging
import os
import sys
from dataclasses import dataclass, field

import torch
import transformers
from transformers import (BertConfig, BertForSequenceClassification, DataCollatorWithPadding, HfArgumentParser,
                          PreTrainedTokenizerFast, Trainer, TrainerCallback, TrainingArguments, set_seed)
from transformers.trainer_utils import get_last_checkpoint

sys.path.insert(0, "data")
import hooks  # noqa: E402  (per-step callbacks the team keeps next to the data)

logger = logging.getLogger("ticket_priority")
LABELS = ["P1", "P2", "P3", "P4"]


@dataclass
class ModelArgs:
    data_dir: str = field(default="data")
    hidden_size: int = field(default=64)
    layers: int = field(default=2)
    max_seq_len: int = field(default=48)


class Tickets(torch.utils.data.Dataset):
    def __init__(self, path, tok, max_len):
        self.rows = [json.loads(line) for line in open(path) if line.strip()]
        self.tok, self.max_len = tok, max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i]
        enc = self.tok("[CLS] " + r["text"] + " [SEP]", truncation=True, max_length=self.max_len)
        enc["labels"] = r["label"]
        return enc


class RankLog(TrainerCallback):
    def __init__(self, rank, world):
        self.rank, self.world = rank, world

    def on_step_end(self, args, state, control, model=None, **kw):
        hooks.on_step(state.global_step, self.rank, self.world, model)
        if state.global_step % 10 == 0:
            logger.warning("rank %d/%d (%s): step %d/%d done", self.rank, self.world, os.uname().nodename,
                           state.global_step, state.max_steps)

    def on_save(self, args, state, control, **kw):
        logger.warning("rank %d: checkpoint-%d saved", self.rank, state.global_step)


def init_gloo():
    """DeepSpeed on CPU: accelerate leaves the backend unset when no GPU is found (world size 1), so bring up the
    process group over gloo through DeepSpeed ourselves before TrainingArguments builds its state."""
    import argparse
    from datetime import timedelta

    from accelerate import PartialState

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--ddp_timeout", type=int, default=1800)
    timeout = pre.parse_known_args()[0].ddp_timeout
    os.environ["ACCELERATE_USE_DEEPSPEED"] = "true"
    PartialState(backend="gloo", timeout=timedelta(seconds=timeout))
    del os.environ["ACCELERATE_USE_DEEPSPEED"]


def main():
    init_gloo()
    parser = HfArgumentParser((ModelArgs, TrainingArguments))
    # keep the gloo state made above (TrainingArguments would otherwise reset it)
    margs, targs = parser.parse_args_into_dataclasses(
        args=sys.argv[1:] + ["--accelerator_config", json.dumps({"use_configured_state": True})])
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        handlers=[logging.StreamHandler(sys.stdout)])
    log_level = targs.get_process_log_level()
    logger.setLevel(log_level)
    transformers.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    from deepspeed.utils.logging import set_log_level_from_string
    set_log_level_from_string(targs.get_process_log_level() == logging.INFO and "info" or "warning")
    rank, world = targs.process_index, targs.world_size
    logger.warning(f"Process rank: {rank}, world size: {world}, device: {targs.device}, host: {os.uname().nodename}")
    logger.info(f"Training/evaluation parameters {targs}")

    set_seed(targs.seed)
    tok = PreTrainedTokenizerFast.from_pretrained(os.path.join(margs.data_dir, "tokenizer"))
    cfg = BertConfig(vocab_size=len(tok), hidden_size=margs.hidden_size, num_hidden_layers=margs.layers,
                     num_attention_heads=4, intermediate_size=2 * margs.hidden_size,
                     max_position_embeddings=margs.max_seq_len, num_labels=len(LABELS),
                     id2label=dict(enumerate(LABELS)), label2id={l: i for i, l in enumerate(LABELS)},
                     pad_token_id=tok.pad_token_id)
    model = BertForSequenceClassification(cfg)
    logger.info("model: BertForSequenceClassification, %d layers, hidden %d, %.2fM params", margs.layers,
                margs.hidden_size, model.num_parameters() / 1e6)
    train = Tickets(os.path.join(margs.data_dir, "train.jsonl"), tok, margs.max_seq_len)
    evals = Tickets(os.path.join(margs.data_dir, "eval.jsonl"), tok, margs.max_seq_len)

    def accuracy(p):
        return {"accuracy": float((p.predictions.argmax(-1) == p.label_ids).mean())}

    trainer = Trainer(model=model, args=targs, train_dataset=train, eval_dataset=evals,
                      data_collator=DataCollatorWithPadding(tok), compute_metrics=accuracy,
                      callbacks=[RankLog(rank, world)])
    last = get_last_checkpoint(targs.output_dir) if os.path.isdir(targs.output_dir) else None
    if last:
        logger.warning("resuming from %s", last)
    result = trainer.train(resume_from_checkpoint=last)
    trainer.save_model()
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)
    logger.warning("rank %d: training complete", rank)


if __name__ == "__main__":
    main()
