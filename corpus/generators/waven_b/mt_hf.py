"""The toy translator as a config-built tiny BART trained by the Hugging Face Seq2SeqTrainer (DDP over gloo on CPU),
one process per rank started with torch.multiprocessing.spawn."""
import argparse
import os

import numpy as np
import torch.multiprocessing as mp
from tokenizers import Tokenizer, models, pre_tokenizers

import mt_core as mc


def build_tokenizer(words):
    from transformers import PreTrainedTokenizerFast
    vocab = {w: i for i, w in enumerate(mc.SPECIALS + sorted(set(words)))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")


def worker(rank, a):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nprocs),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("MASTER_PORT", "29450"))
    from transformers import (BartConfig, BartForConditionalGeneration, DataCollatorForSeq2Seq, Seq2SeqTrainer,
                              Seq2SeqTrainingArguments)
    import transformers
    transformers.set_seed(0)
    train = mc.make_pairs(3000, seed=1)
    dev = mc.make_pairs(200, seed=2)
    tok = build_tokenizer([w for s, t in train for w in s + t])

    def enc(pairs):
        return [{"input_ids": tok(" ".join(s))["input_ids"] + [tok.eos_token_id],
                 "labels": tok(" ".join(t))["input_ids"] + [tok.eos_token_id]} for s, t in pairs]

    cfg = BartConfig(vocab_size=len(tok), d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
                     pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                     decoder_start_token_id=tok.bos_token_id, forced_eos_token_id=tok.eos_token_id)
    model = BartForConditionalGeneration(cfg)

    def compute_metrics(p):
        preds, labels = p
        hyps = tok.batch_decode(preds, skip_special_tokens=True)
        if a.fix_labels:
            labels = np.where(labels != -100, labels, tok.pad_token_id)
        refs = tok.batch_decode(labels, skip_special_tokens=True)
        return {"bleu": mc.bleu([h.split() for h in hyps], [r.split() for r in refs]),
                "exact": float(np.mean([h == r for h, r in zip(hyps, refs)]))}

    args = Seq2SeqTrainingArguments(output_dir="out", per_device_train_batch_size=32, per_device_eval_batch_size=64,
                                    learning_rate=a.lr, num_train_epochs=a.epochs, eval_strategy="steps",
                                    eval_steps=a.eval_steps, save_steps=a.eval_steps, save_total_limit=2,
                                    logging_steps=10, predict_with_generate=True, generation_max_length=24,
                                    report_to=[], ddp_backend="gloo", use_cpu=True, disable_tqdm=True,
                                    dataloader_num_workers=0, warmup_steps=20)
    trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=enc(train), eval_dataset=enc(dev),
                             data_collator=DataCollatorForSeq2Seq(tok, model=model), compute_metrics=compute_metrics)
    trainer.train()
    m = trainer.evaluate()
    if rank == 0:
        print(f"final eval: {m}", flush=True)
        trainer.save_model("out/final")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--eval-steps", type=int, default=40)
    ap.add_argument("--fix-labels", action="store_true")
    ap.add_argument("--lr", type=float, default=2e-3)
    a = ap.parse_args()
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all processes finished", flush=True)
