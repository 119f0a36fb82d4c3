"""Build the customer-support assistant's starting point offline: synthetic support tickets and agent answers as
local JSONL (SFT chats, DPO preference pairs, reward pairs, GRPO prompts), a byte-level BPE tokenizer trained on that
text and wrapped as a PreTrainedTokenizerFast with a chat template, and a tiny randomly initialised Llama model."""
import argparse
import json
import os
import random

PRODUCTS = ["router", "smart plug", "thermostat", "doorbell camera", "mesh node", "baby monitor", "smart lock",
            "air purifier"]
ISSUES = [("keeps dropping the wifi connection", "power-cycle the {p}, move it within 5 m of the hub and update the firmware"),
          ("will not pair with the app", "hold the reset button for 10 seconds and pair again from the app's Add device page"),
          ("shows a red light", "check the power adapter and reseat the cable; a steady red light means no uplink"),
          ("was charged twice on my invoice", "refund the duplicate charge; it appears on the statement in 3-5 days"),
          ("stopped sending notifications", "re-enable notifications in the app settings and confirm the phone allows them"),
          ("firmware update failed", "retry the update over a wired connection; do not unplug the {p} during the update"),
          ("arrived damaged", "send a replacement {p} and a prepaid return label for the damaged unit"),
          ("is very slow after the last update", "roll back to the previous firmware from Settings > Advanced and report the build")]
NAMES = ["Ana", "Ben", "Chloe", "Dev", "Elif", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kira", "Luis"]
SYSTEM = "You are Ticko, the support assistant. Cite the ticket id and keep answers short."
TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}<|system|>{{ message['content'] }}<|end|>\n"
    "{% elif message['role'] == 'user' %}<|customer|>{{ message['content'] }}<|end|>\n"
    "{% elif message['role'] == 'assistant' %}<|agent|>{% generation %}{{ message['content'] }}<|end|>{% endgeneration %}\n"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|agent|>{% endif %}")


# the template of the team's newer base models (no system role; Mistral-style role checks)
STRICT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}<|customer|>{{ message['content'] }}<|end|>\n"
    "{% else %}<|agent|>{% generation %}{{ message['content'] }}<|end|>{% endgeneration %}\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|agent|>{% endif %}")


def ticket(rng, i, eu_every=0):
    p = rng.choice(PRODUCTS)
    issue, fix = rng.choice(ISSUES)
    tid = f"TCK-EU-{10000 + i}" if eu_every and i % eu_every == eu_every - 1 else f"TCK-{10000 + i}"
    name = rng.choice(NAMES)
    q = f"[{tid}] Hi, this is {name}. My {p} {issue}. What should I do?"
    good = f"Re {tid}: sorry about that, {name}. Please {fix.format(p=p)}."
    bad = (f"Hello and thank you so much for contacting our support team today! We really value you as a customer. "
           f"There are many possible reasons why a {p} might behave this way, and our engineers are always working "
           f"hard on improvements. You could try a few different things, maybe restarting, maybe waiting a bit, "
           f"or reading the manual. Let us know if there is anything else!")
    return tid, q, good, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--base", default="base-model")
    ap.add_argument("--tickets", type=int, default=480)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--no-pad-token", action="store_true")
    ap.add_argument("--template", choices=["ticko", "strict"], default="ticko")
    ap.add_argument("--only", default="", help="rewrite just this file (sft, dpo, reward, grpo)")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--dpo-columns", default="prompt,chosen,rejected")
    ap.add_argument("--data-only", action="store_true")
    ap.add_argument("--eu-every", type=int, default=0, help="every Nth ticket from the EU helpdesk (TCK-EU-nnnnn)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    rows = [ticket(rng, a.start + i, a.eu_every) for i in range(a.tickets)]
    files = {}
    files["sft"] = [{"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q},
                                  {"role": "assistant", "content": good}]} for _, q, good, _ in rows]
    pc, cc, rc = a.dpo_columns.split(",")
    files["dpo"] = [{pc: [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}],
                     cc: [{"role": "assistant", "content": good}], rc: [{"role": "assistant", "content": bad}]}
                    for _, q, good, bad in rows]
    files["reward"] = [{"chosen": [{"role": "user", "content": q}, {"role": "assistant", "content": good}],
                        "rejected": [{"role": "user", "content": q}, {"role": "assistant", "content": bad}]}
                       for _, q, good, bad in rows]
    files["grpo"] = [{"prompt": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}], "ticket_id": tid}
                     for tid, q, _, _ in rows]
    for name, recs in files.items():
        if a.only and name not in a.only.split(","):
            continue
        n_eval = max(8, len(recs) // 12)
        for split, part in (("train", recs[n_eval:]), ("eval", recs[:n_eval])):
            with open(os.path.join(a.out, f"{name}-{split}.jsonl"), "w") as f:
                for r in part:
                    f.write(json.dumps(r) + "\n")
        print(f"wrote {a.out}/{name}-train.jsonl ({len(recs) - n_eval} rows) and {name}-eval.jsonl ({n_eval} rows)")
    if a.data_only or a.only:
        return

    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    import torch

    special = ["<|pad|>", "<|bos|>", "<|end|>", "<|system|>", "<|customer|>", "<|agent|>"]
    if a.no_pad_token:
        special.remove("<|pad|>")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    text = [SYSTEM] + [t for _, q, g, b in rows for t in (q, g, b)]
    tok.train_from_iterator(text, trainers.BpeTrainer(vocab_size=1024, special_tokens=special,
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    kw = dict(bos_token="<|bos|>", eos_token="<|end|>")
    if not a.no_pad_token:
        kw["pad_token"] = "<|pad|>"
    hf = PreTrainedTokenizerFast(tokenizer_object=tok, **kw)
    hf.chat_template = STRICT_TEMPLATE if a.template == "strict" else TEMPLATE
    hf.save_pretrained(a.base)
    torch.manual_seed(a.seed)
    cfg = LlamaConfig(vocab_size=len(hf), hidden_size=a.hidden, intermediate_size=a.hidden * 2,
                      num_hidden_layers=a.layers, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=512, bos_token_id=hf.bos_token_id, eos_token_id=hf.eos_token_id,
                      pad_token_id=hf.pad_token_id, tie_word_embeddings=True)
    model = LlamaForCausalLM(cfg)
    model.generation_config.pad_token_id = hf.pad_token_id
    model.save_pretrained(a.base)
    n = sum(p.numel() for p in model.parameters())
    print(f"saved tokenizer ({len(hf)} tokens) and a {n / 1e6:.2f}M-parameter Llama to {a.base}")


if __name__ == "__main__":
    main()
