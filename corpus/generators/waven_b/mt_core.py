"""Shared pieces of the toy translator: a synthetic parallel corpus (English-like SVO source -> a made-up SOV target
language with noun-adjective order and case suffixes), word vocabularies, a GRU encoder-decoder with dot-product
attention, greedy/beam decoding and corpus BLEU."""
from __future__ import annotations

import collections
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]

DETS = ["the", "a", "every", "some", "this", "that"]
ADJS = ["red", "small", "old", "quiet", "bright", "heavy", "young", "wooden", "cold", "tall", "green", "lazy"]
NOUNS = ["cat", "river", "farmer", "lamp", "child", "boat", "teacher", "horse", "garden", "letter", "window",
         "soldier", "bird", "table", "doctor", "mountain"]
VERBS = ["sees", "carries", "paints", "follows", "finds", "hears", "builds", "opens", "likes", "watches"]
ADVS = ["today", "slowly", "again", "often", "never", "quietly"]
LEX = {w: t for w, t in zip(DETS + ADJS + NOUNS + VERBS + ADVS,
                            ["ka", "un", "oma", "sel", "tiv", "tov", "ruba", "pik", "vela", "siru", "kamo", "duvo",
                             "lenu", "haro", "pelo", "arsi", "mivo", "tila", "gato", "urvi", "kasa", "nilo", "bera",
                             "somi", "lumo", "kiri", "vano", "tepa", "galo", "minu", "rasa", "fesi", "dori", "kelo",
                             "pani", "sulo", "woru", "nadi", "himo", "fara", "teki", "yoli", "bami", "zeno", "ora",
                             "luvi", "semo", "ivo", "rulo", "faki"])}


def noun_phrase(rng: random.Random):
    det, adjs, noun = rng.choice(DETS), rng.sample(ADJS, rng.randint(0, 2)), rng.choice(NOUNS)
    src = [det] + adjs + [noun]
    return src, (det, adjs, noun)


def translate(subj, verb, obj, adv):
    def np_(p, case):
        det, adjs, noun = p
        return [LEX[det], LEX[noun] + case] + [LEX[a] for a in reversed(adjs)]
    out = np_(subj, "") + np_(obj, "n") + ([LEX[adv]] if adv else []) + [LEX[verb]]
    return out


def make_pairs(n: int, seed: int, blank_every: int = 0):
    rng = random.Random(seed)
    pairs = []
    for k in range(n):
        s_src, s = noun_phrase(rng)
        o_src, o = noun_phrase(rng)
        verb = rng.choice(VERBS)
        adv = rng.choice(ADVS) if rng.random() < 0.4 else None
        src = s_src + [verb] + o_src + ([adv] if adv else [])
        if blank_every and k % blank_every == blank_every - 1:
            src = []  # a line lost in the source file's sentence split: target kept, source empty
        pairs.append((src, translate(s, verb, o, adv)))
    return pairs


class Vocab:
    def __init__(self, sentences):
        counts = collections.Counter(w for s in sentences for w in s)
        self.itos = SPECIALS + sorted(counts)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, words, strict=False):
        if strict:
            return [BOS] + [self.stoi[w] for w in words] + [EOS]
        return [BOS] + [self.stoi.get(w, UNK) for w in words] + [EOS]

    def decode(self, ids):
        out = []
        for i in ids:
            if i == EOS:
                break
            if i not in (PAD, BOS):
                out.append(self.itos[i])
        return out


def pad_batch(seqs):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [PAD] * (n - len(s)) for s in seqs], dtype=torch.long)


class Seq2Seq(nn.Module):
    def __init__(self, n_src, n_tgt, emb=64, hid=128, mask_specials=False):
        super().__init__()
        self.mask_specials = mask_specials  # do not attend to <s>/</s>/<pad> (masked with -inf)
        self.src_emb = nn.Embedding(n_src, emb, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(n_tgt, emb, padding_idx=PAD)
        self.enc = nn.GRU(emb, hid // 2, batch_first=True, bidirectional=True)
        self.dec = nn.GRU(emb + hid, hid, batch_first=True)
        self.out = nn.Linear(2 * hid, n_tgt)
        self.hid = hid

    def encode(self, src):
        mem, h = self.enc(self.src_emb(src))
        h = torch.cat([h[0], h[1]], dim=-1).unsqueeze(0)
        return mem, h, (src.le(EOS) if self.mask_specials else src.eq(PAD))

    def step(self, y, h, ctx, mem, mask):
        o, h = self.dec(torch.cat([self.tgt_emb(y), ctx], dim=-1), h)
        att = torch.bmm(o, mem.transpose(1, 2)).masked_fill(mask.unsqueeze(1), float("-inf") if self.mask_specials else -1e9).softmax(-1)
        ctx = torch.bmm(att, mem)
        return self.out(torch.cat([o, ctx], dim=-1)), h, ctx

    def forward(self, src, tgt_in):
        mem, h, mask = self.encode(src)
        ctx = torch.zeros(src.size(0), 1, self.hid)
        logits = []
        for t in range(tgt_in.size(1)):
            lg, h, ctx = self.step(tgt_in[:, t:t + 1], h, ctx, mem, mask)
            logits.append(lg)
        return torch.cat(logits, dim=1)

    @torch.no_grad()
    def greedy(self, src, max_len=24):
        mem, h, mask = self.encode(src)
        ctx = torch.zeros(src.size(0), 1, self.hid)
        y = torch.full((src.size(0), 1), BOS, dtype=torch.long)
        outs = []
        for _ in range(max_len):
            lg, h, ctx = self.step(y, h, ctx, mem, mask)
            y = lg.argmax(-1)
            outs.append(y)
        return torch.cat(outs, dim=1).tolist()

    @torch.no_grad()
    def beam(self, src1, k=8, max_len=24, alpha=0.6):
        """Beam search for one sentence (src1: 1 x S)."""
        mem, h, mask = self.encode(src1)
        beams = [(0.0, [BOS], h, torch.zeros(1, 1, self.hid))]
        done = []
        for _ in range(max_len):
            cand = []
            for score, ys, h, ctx in beams:
                lg, h2, ctx2 = self.step(torch.tensor([[ys[-1]]]), h, ctx, mem, mask)
                lp = lg.log_softmax(-1)[0, 0]
                top = lp.topk(k)
                for v, i in zip(top.values.tolist(), top.indices.tolist()):
                    cand.append((score + v, ys + [i], h2, ctx2))
            cand.sort(key=lambda c: -c[0] / (len(c[1]) ** alpha))
            beams = []
            for c in cand[:k]:
                (done if c[1][-1] == EOS else beams).append(c)
            if not beams:
                break
        best = max(done or beams, key=lambda c: c[0] / (len(c[1]) ** alpha))
        return best[1][1:]


def smoothed_ce(logits, target, eps):
    """Label-smoothed cross entropy, written out by hand (log of the softmax)."""
    probs = logits.softmax(-1)
    n = logits.size(-1)
    true = F.one_hot(target, n).float()
    soft = true * (1 - eps) + eps / n
    nll = -(soft * torch.log(probs)).sum(-1)
    keep = target.ne(PAD).float()
    return (nll * keep).sum() / keep.sum()


def loss_fn(logits, target, eps=0.0, manual=False):
    if manual and eps > 0:
        return smoothed_ce(logits, target, eps)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=PAD,
                           label_smoothing=eps)


def bleu(hyps, refs, n=4):
    match, total = [0] * n, [0] * n
    hl = rl = 0
    for h, r in zip(hyps, refs):
        hl, rl = hl + len(h), rl + len(r)
        for k in range(1, n + 1):
            hc = collections.Counter(tuple(h[i:i + k]) for i in range(len(h) - k + 1))
            rc = collections.Counter(tuple(r[i:i + k]) for i in range(len(r) - k + 1))
            match[k - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[k - 1] += max(len(h) - k + 1, 0)
    if min(match) == 0:
        return 0.0
    lp = sum(math.log(m / t) for m, t in zip(match, total)) / n
    bp = 1.0 if hl > rl else math.exp(1 - rl / max(hl, 1))
    return 100 * bp * math.exp(lp)


def batches(pairs, sv, tv, bs, rng=None):
    idx = list(range(len(pairs)))
    if rng is not None:
        rng.shuffle(idx)
    for i in range(0, len(idx) - bs + 1, bs):
        chunk = [pairs[j] for j in idx[i:i + bs]]
        src = pad_batch([sv.encode(s) for s, _ in chunk])
        tgt = pad_batch([tv.encode(t) for _, t in chunk])
        yield src, tgt[:, :-1], tgt[:, 1:]
