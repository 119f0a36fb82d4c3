"""FT-Transformer-style tabular classifier on a synthetic insurance-claims table (numeric + categorical columns)."""
import math

import numpy as np
import torch
from torch import nn

NUM_COLS = ["age", "vehicle_age", "annual_km", "premium", "prior_claims", "income"]
CAT_COLS = ["region", "vehicle_class", "occupation", "channel"]
CARDS = [12, 7, 30, 5]


def make_table(n, seed=0, income_sentinel=False, unseen_occupations=0):
    """Rows of a claims table: 6 numeric columns, 4 categorical (as strings), binary label 'claim'."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 80, n)
    vage = rng.integers(0, 20, n).astype(float)
    km = rng.lognormal(9.5, 0.5, n)
    prem = rng.normal(900, 250, n)
    prior = rng.poisson(0.4, n).astype(float)
    income = rng.lognormal(10.6, 0.4, n)
    if income_sentinel:  # upstream export encodes 'unknown income' as FLT_MAX
        miss = rng.random(n) < 0.02
        income[miss] = np.finfo(np.float32).max
    cats = [rng.integers(0, c, n) for c in CARDS]
    if unseen_occupations:
        # occupations added to the underwriting system after the training extract
        new = rng.random(n) < 0.05
        cats[2][new] = rng.integers(CARDS[2], CARDS[2] + unseen_occupations, new.sum())
    z = (0.04 * (30 - np.minimum(age, 30)) + 0.12 * vage + 0.9 * (np.log(km) - 9.5) + 0.7 * prior
         + 0.8 * (cats[0] % 3 == 0) - 0.6 * (cats[1] == 2) + 0.5 * np.sin(cats[2]) - 1.2)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(np.float32)
    num = np.stack([age, vage, km, prem, prior, income], 1).astype(np.float32)
    cat_str = [np.array([f"{c[:3]}_{v:02d}" for v in col]) for c, col in zip(CAT_COLS, cats)]
    return num, cat_str, y


class Encoder:
    """Column statistics and category codes fitted on a training split."""

    def __init__(self, num, cat_str):
        self.log_cols = [2]
        lognum = num.copy()
        lognum[:, self.log_cols] = np.log1p(lognum[:, self.log_cols])
        self.mean, self.std = lognum.mean(0), lognum.std(0) + 1e-6
        self.vocab = [{v: i for i, v in enumerate(sorted(set(col)))} for col in cat_str]

    def cards(self):
        return [len(v) for v in self.vocab]

    def transform(self, num, cat_str, codes=None):
        x = num.copy()
        x[:, self.log_cols] = np.log1p(x[:, self.log_cols])
        x = ((x - self.mean) / self.std).astype(np.float32)
        vocab = codes or self.vocab
        c = np.stack([np.array([voc[v] for v in col]) for voc, col in zip(vocab, cat_str)], 1)
        return torch.from_numpy(x), torch.from_numpy(c.astype(np.int64))


def summary(num):
    lines = []
    for i, name in enumerate(NUM_COLS):
        col = num[:, i]
        lines.append(f"  {name:12s} min {col.min():.4g} median {np.median(col):.4g} max {col.max():.4g}")
    return "\n".join(lines)


class FTTransformer(nn.Module):
    def __init__(self, n_num, cards, d=24, layers=2, heads=4, dropout=0.1):
        super().__init__()
        self.num_w = nn.Parameter(torch.randn(n_num, d) * 0.1)
        self.num_b = nn.Parameter(torch.zeros(n_num, d))
        self.embs = nn.ModuleList(nn.Embedding(c, d) for c in cards)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Sequential(nn.LayerNorm(d), nn.ReLU(), nn.Linear(d, 1))

    def forward(self, x_num, x_cat):
        tok_num = x_num.unsqueeze(-1) * self.num_w + self.num_b
        tok_cat = torch.stack([e(x_cat[:, i]) for i, e in enumerate(self.embs)], 1)
        tok = torch.cat([self.cls.expand(x_num.size(0), -1, -1), tok_num, tok_cat], 1)
        return self.head(self.enc(tok)[:, 0]).squeeze(-1)


def auc(scores, labels):
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if n_pos == 0 or n_neg == 0 or not np.isfinite(scores).all():
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def build(n_train=4000, n_val=1500, seed=0, **kw):
    num, cat, y = make_table(n_train, seed=seed, income_sentinel=kw.get("income_sentinel", False))
    vnum, vcat, vy = make_table(n_val, seed=seed + 100, unseen_occupations=kw.get("unseen_occupations", 0))
    enc = Encoder(num, cat)
    return enc, (num, cat, y), (vnum, vcat, vy)
