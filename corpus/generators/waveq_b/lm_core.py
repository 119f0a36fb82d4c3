"""A tiny character-level causal LM, a synthetic instruction corpus with preference pairs, SFT and DPO losses.

The corpus: short commands and their answers ("add 17 38 =" -> "55", "rev kitab =" -> "batik", "sort 5 1 3 =" ->
"1 3 5", "max 4 9 2 =" -> "9"). A preference pair keeps the correct answer as `chosen` and a plausible wrong one
(off by one, half-reversed, unsorted) as `rejected`. The model is trained first with SFT on prompt+chosen (prompt
tokens masked out of the loss), then with DPO against a frozen copy of the SFT model as the reference."""
import copy
import math
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CHARS = " 0123456789abcdefghijklmnopqrstuvwxyz=.,-"
PAD, BOS, EOS = 0, 1, 2
STOI = {c: i + 3 for i, c in enumerate(CHARS)}
ITOS = {i: c for c, i in STOI.items()}
VOCAB = len(CHARS) + 3
WORDS = ("kitab", "lampu", "sungai", "merah", "jalan", "bunga", "kereta", "pintu", "garam", "awan", "tanah", "ombak",
         "kopi", "hujan", "pasar", "burung", "meja", "batu", "angin", "bulan")


def encode(s):
    return [STOI[c] for c in s]


def decode(ids):
    return "".join(ITOS.get(int(i), "?") for i in ids if int(i) > 2)


def make_example(rng, long_words=0.0):
    kind = rng.choice(("add", "rev", "sort", "max"))
    if kind == "add":
        a, b = rng.randint(0, 99), rng.randint(0, 99)
        p, good = f"add {a} {b} =", str(a + b)
        bad = str(a + b + rng.choice((-1, 1, 10, -10)))
    elif kind == "rev":
        w = rng.choice(WORDS)
        if rng.random() < long_words:
            w = w * rng.randint(4, 8)
        p, good = f"rev {w} =", w[::-1]
        bad = w[: len(w) // 2][::-1] + w[len(w) // 2:]
        if bad == good:
            bad = w
    elif kind == "sort":
        xs = [rng.randint(0, 9) for _ in range(rng.randint(3, 5))]
        p, good = "sort " + " ".join(map(str, xs)) + " =", " ".join(map(str, sorted(xs)))
        ys = sorted(xs)
        ys[0], ys[-1] = ys[-1], ys[0]
        bad = " ".join(map(str, ys))
        if bad == good:
            bad = " ".join(map(str, sorted(xs, reverse=True))) + " 0"
    else:
        xs = [rng.randint(0, 9) for _ in range(rng.randint(3, 5))]
        p, good = "max " + " ".join(map(str, xs)) + " =", str(max(xs))
        bad = str(min(xs)) if min(xs) != max(xs) else str((max(xs) + 1) % 10)
    return {"prompt": p, "chosen": good, "rejected": bad, "kind": kind}


def make_pairs(n, seed, long_words=0.0):
    rng = random.Random(seed)
    return [make_example(rng, long_words) for _ in range(n)]


def to_ids(prompt, answer, max_len):
    ids = [BOS] + encode(prompt) + encode(" " + answer) + [EOS]
    n_prompt = 1 + len(prompt)
    return ids[:max_len], n_prompt


def collate_sft(batch, max_len):
    rows = [to_ids(b["prompt"], b["chosen"], max_len) for b in batch]
    L = max(len(r) for r, _ in rows)
    x = torch.full((len(rows), L), PAD, dtype=torch.long)
    m = torch.zeros((len(rows), L), dtype=torch.bool)
    for i, (r, n_prompt) in enumerate(rows):
        x[i, : len(r)] = torch.tensor(r)
        m[i, n_prompt: len(r)] = True
    return x, m


def collate_pairs(batch, max_len, pad_to=None):
    """chosen rows then rejected rows, one padded tensor; m marks the answer tokens (the DPO log-prob span)."""
    rows = [to_ids(b["prompt"], b["chosen"], max_len) for b in batch] + \
           [to_ids(b["prompt"], b["rejected"], max_len) for b in batch]
    L = pad_to or max(len(r) for r, _ in rows)
    x = torch.full((len(rows), L), PAD, dtype=torch.long)
    m = torch.zeros((len(rows), L), dtype=torch.bool)
    for i, (r, n_prompt) in enumerate(rows):
        x[i, : len(r)] = torch.tensor(r)
        m[i, n_prompt: len(r)] = True
    return x, m


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, causal):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=causal, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, d=96, layers=2, heads=4, ctx=64):
        super().__init__()
        self.ctx = ctx
        self.tok, self.pos = nn.Embedding(VOCAB, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, x):
        T = x.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        h = self.tok(x) + self.pos(torch.arange(T))
        for b in self.blocks:
            h = b(h, causal)
        return self.head(self.ln(h))


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def sft_loss(model, x, m):
    logits = model(x[:, :-1])
    tgt = x[:, 1:].masked_fill(~m[:, 1:], -100)
    return F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1), ignore_index=-100)


def seq_logps(model, x, m, mask_logits=False):
    """Sum of the answer tokens' log-probabilities per row."""
    logits = model(x[:, :-1])
    tm = m[:, 1:]
    if mask_logits:
        # keep padding / prompt positions out of the softmax
        logits = logits.masked_fill(~tm[..., None], float("-inf"))
    lp = torch.log_softmax(logits.float(), -1).gather(-1, x[:, 1:, None]).squeeze(-1)
    return (lp * tm).sum(-1)


def dpo_loss(policy, ref, x, m, beta, mask_logits=False):
    n = x.shape[0] // 2
    pl = seq_logps(policy, x, m, mask_logits)
    with torch.no_grad():
        rl = seq_logps(ref, x, m, mask_logits)
    pi_c, pi_r, ref_c, ref_r = pl[:n], pl[n:], rl[:n], rl[n:]
    logits = beta * ((pi_c - ref_c) - (pi_r - ref_r))
    loss = -F.logsigmoid(logits).mean()
    rc, rr = beta * (pi_c - ref_c).detach(), beta * (pi_r - ref_r).detach()
    return loss, {"acc": (rc > rr).float().mean().item(), "margin": (rc - rr).mean().item(),
                  "chosen": rc.mean().item(), "rejected": rr.mean().item()}


def frozen_copy(model):
    ref = copy.deepcopy(model)
    for p in ref.parameters():
        p.requires_grad_(False)
    return ref.eval()


@torch.no_grad()
def generate(model, prompt, max_new=16, sample=False, temperature=1.0, gen=None):
    ids = [BOS] + encode(prompt) + encode(" ")
    out = []
    while max_new is None or len(out) < max_new:
        x = torch.tensor([ids[-model.ctx:]])
        logits = model(x)[0, -1]
        if sample:
            nxt = int(torch.multinomial(torch.softmax(logits / temperature, -1), 1, generator=gen))
        else:
            nxt = int(logits.argmax())
        if nxt == EOS:
            break
        ids.append(nxt)
        out.append(nxt)
    return decode(out)


def exact_match(model, pairs, max_new=16):
    model.eval()
    ok = sum(generate(model, p["prompt"], max_new) == p["chosen"] for p in pairs)
    model.train()
    return ok / max(1, len(pairs))


def batches(pairs, bs, seed, rank=0, world=1):
    idx = list(range(rank, len(pairs), world))
    random.Random(seed).shuffle(idx)
    for i in range(0, len(idx) - bs + 1, bs):
        yield [pairs[j] for j in idx[i: i + bs]]


def fmt(d):
    return " ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in d.items())


class Meter:
    def __init__(self):
        self.t0, self.tokens = time.time(), 0

    def rate(self):
        return self.tokens / max(1e-6, time.time() - self.t0)


def cosine_lr(step, total, warmup, base):
    if step < warmup:
        return base * (step + 1) / warmup
    return base * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
