"""Write the synthetic sentence-pair data and the initial (untrained) encoder + tokenizer under model_init/."""
import argparse
import json
import random
from pathlib import Path

PRODUCTS = ["vpn client", "laptop", "printer", "mail server", "build agent", "wifi router", "badge reader",
            "payroll app", "shared drive", "video bridge", "ticket portal", "backup job", "phone dock", "license server"]
PROBLEMS = [("does not start", "fails to launch"), ("is very slow", "responds slowly"),
            ("keeps disconnecting", "drops the connection"), ("shows an error", "reports a failure"),
            ("cannot log in", "rejects the password"), ("is out of space", "has a full disk"),
            ("lost its settings", "forgot the configuration"), ("is overheating", "runs too hot")]
WHEN = ["since monday", "after the update", "every morning", "on the third floor", "for the night shift",
        "since the move", "after a reboot", "during meetings"]


def pair(rng):
    p = rng.choice(PRODUCTS)
    a, b = rng.choice(PROBLEMS)
    w = rng.choice(WHEN)
    return f"the {p} {a} {w}", f"{p} {b} {w}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-rows", type=int, default=1200)
    ap.add_argument("--dev-rows", type=int, default=120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--extra-row", default="")
    ap.add_argument("--hidden-size", type=int, default=64)
    ap.add_argument("--num-layers", type=int, default=2)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    Path("data").mkdir(exist_ok=True)
    with open("data/train.jsonl", "w") as f:
        for _ in range(a.train_rows):
            q, d = pair(rng)
            f.write(json.dumps({"anchor": q, "positive": d}) + "\n")
        if a.extra_row:
            f.write(a.extra_row + "\n")
    with open("data/sts_train.jsonl", "w") as f:
        for _ in range(a.train_rows):
            q, d = pair(rng)
            if rng.random() < 0.5:
                d = pair(rng)[1]
            s = 1.0 if d.split()[0] in q else 0.2
            f.write(json.dumps({"sentence1": q, "sentence2": d, "score": s}) + "\n")
    with open("data/dev.jsonl", "w") as f:
        for _ in range(a.dev_rows):
            q, d = pair(rng)
            neg = pair(rng)[1]
            f.write(json.dumps({"sentence1": q, "sentence2": d, "score": 1.0}) + "\n")
            f.write(json.dumps({"sentence1": q, "sentence2": neg, "score": 1.0 if neg.split()[0] in q else 0.0}) + "\n")

    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, BertTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tr = trainers.WordPieceTrainer(vocab_size=600, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tok.train(["data/train.jsonl", "data/sts_train.jsonl"], tr)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                             sep_token="[SEP]", mask_token="[MASK]", model_max_length=64)
    cfg = BertConfig(vocab_size=fast.vocab_size, hidden_size=a.hidden_size, num_hidden_layers=a.num_layers,
                     num_attention_heads=2, intermediate_size=2 * a.hidden_size, max_position_embeddings=64)
    BertModel(cfg).save_pretrained("model_init")
    fast.save_pretrained("model_init")


if __name__ == "__main__":
    main()
