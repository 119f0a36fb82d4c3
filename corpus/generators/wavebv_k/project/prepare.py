"""Build the workload's inputs (not logged): Python's bundled pydoc topic texts as .txt files under data/pydocs/
(one file per group of topics; the first file is TextFiles' validation split), a small byte-level BPE tokenizer
trained on them (checkpoints/pydocs-bpe: tokenizer.json, tokenizer_config.json, generation_config.json, the files
LitGPT's Tokenizer reads), and LitGPT TextFiles' litdata shards (data/pydocs/train, data/pydocs/val) for block 64."""
import json
import sys
from pathlib import Path

from pydoc_data.topics import topics
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    data = root / "data" / "pydocs"
    ck = root / "checkpoints" / "pydocs-bpe"
    data.mkdir(parents=True, exist_ok=True)
    ck.mkdir(parents=True, exist_ok=True)
    names = sorted(topics)
    groups = 6
    for g in range(groups):
        part = names[g::groups]
        (data / f"topics-{g:02d}.txt").write_text("\n\n".join(topics[n] for n in part), encoding="utf-8")


    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train([str(p) for p in sorted(data.glob("*.txt"))],
              trainers.BpeTrainer(vocab_size=512, special_tokens=["<s>", "</s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.save(str(ck / "tokenizer.json"))
    (ck / "tokenizer_config.json").write_text(json.dumps(
        {"bos_token": "<s>", "eos_token": "</s>", "add_bos_token": True, "tokenizer_class": "PreTrainedTokenizerFast"}))
    (ck / "generation_config.json").write_text(json.dumps({"bos_token_id": 0, "eos_token_id": 1}))

    if "--no-shards" not in sys.argv:
        from litgpt.data import TextFiles  # noqa: E402
        from litgpt.tokenizer import Tokenizer as LitTokenizer  # noqa: E402

        tf = TextFiles(train_data_path=data, num_workers=0)
        tf.connect(tokenizer=LitTokenizer(ck), batch_size=4, max_seq_length=64)
        tf.prepare_data()


if __name__ == "__main__":
    main()
