"""A small GPT (nanoGPT layout) that can be cut into pipeline stages."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, n_head)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """Full model; ``layers`` keyed by string so a stage can drop the ones it does not own (torchtitan style)."""

    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, n_embd)
        self.pos_embeddings = nn.Embedding(block_size, n_embd)
        self.layers = nn.ModuleDict({str(i): Block(n_embd, n_head) for i in range(n_layer)})
        self.norm = nn.LayerNorm(n_embd)
        self.output = nn.Linear(n_embd, vocab_size, bias=False)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02 / math.sqrt(1 if p.shape[0] != p.shape[1] else 2))

    def forward(self, x):
        if self.tok_embeddings is not None:
            pos = torch.arange(x.shape[1], device=x.device)
            x = self.tok_embeddings(x) + self.pos_embeddings(pos)
        for layer in self.layers.values():
            x = layer(x)
        if self.norm is not None:
            x = self.norm(x)
        if self.output is not None:
            x = self.output(x)
        return x


def split_for_stage(model, stage, n_stages, n_layer):
    """Keep this stage's layers only (embeddings on the first stage, norm + output head on the last)."""
    per = n_layer // n_stages
    keep = range(stage * per, (stage + 1) * per)
    for i in list(model.layers.keys()):
        if int(i) not in keep:
            del model.layers[i]
    if stage != 0:
        model.tok_embeddings = None
        model.pos_embeddings = None
    if stage != n_stages - 1:
        model.norm = None
        model.output = None
    return model
