"""Write the claim-note export (data/claims_train.csv, data/claims_valid.csv, data/routes.txt) and train the
WordPiece tokenizer on it (data/tokenizer/). Options reproduce what the export really gets wrong."""
import argparse
import csv
import json
import os
import random

ROUTES = ["auto_glass", "auto_collision", "property_water", "property_theft", "bodily_injury"]
WORDS = {
    "auto_glass": "windshield chip crack rock highway glass windscreen replace repair mirror",
    "auto_collision": "rear ended bumper intersection collision fender dent tow airbag parked",
    "property_water": "pipe burst basement flood leak ceiling stain water heater mold dishwasher",
    "property_theft": "break in stolen laptop jewelry bike garage window forced police report",
    "bodily_injury": "whiplash injury hospital er physio neck back fracture ambulance doctor",
}
FILL = "insured reports policyholder states claimant called adjuster note on at the and with after was".split()


def note(rng, route):
    w = WORDS[route].split()
    toks = [rng.choice(FILL) for _ in range(rng.randint(3, 8))] + [rng.choice(w) for _ in range(rng.randint(3, 9))]
    rng.shuffle(toks)
    return " ".join(toks)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n-train", type=int, default=1600)
    p.add_argument("--n-valid", type=int, default=320)
    p.add_argument("--blank-notes", type=int, default=0, help="rows whose note text is empty (a bad export)")
    p.add_argument("--extra-route", default="", help="a route added to routes.txt with no notes yet")
    p.add_argument("--nested-addenda", type=int, default=0, help="one note with addenda nested this deep")
    a = p.parse_args()
    rng = random.Random(7)
    os.makedirs("data", exist_ok=True)
    routes = ROUTES + ([a.extra_route] if a.extra_route else [])
    with open("data/routes.txt", "w") as f:
        f.write("\n".join(routes) + "\n")
    for split, n in (("train", a.n_train), ("valid", a.n_valid)):
        with open(f"data/claims_{split}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["claim_id", "note", "addenda", "route"])
            for i in range(n):
                r = ROUTES[i % len(ROUTES)]
                text = note(rng, r)
                if split == "train" and i < a.blank_notes:
                    text = ""
                add = []
                add = "[]"
                if split == "train" and a.nested_addenda and i == 37:  # a claim reopened over and over
                    n = a.nested_addenda
                    add = ('[' + '{"text": "follow-up", "addenda": [' * n + '{"text": "see attached", "addenda": []}'
                           + ']}' * n + ']')
                w.writerow([f"CLM-{split[0].upper()}{100000 + i}", text, add, r])
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers, processors
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tr = trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    corpus = [note(rng, r) for r in ROUTES for _ in range(200)]
    tok.train_from_iterator(corpus, tr)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    os.makedirs("data/tokenizer", exist_ok=True)
    from transformers import PreTrainedTokenizerFast
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                            sep_token="[SEP]", mask_token="[MASK]", model_max_length=128).save_pretrained("data/tokenizer")


if __name__ == "__main__":
    main()
