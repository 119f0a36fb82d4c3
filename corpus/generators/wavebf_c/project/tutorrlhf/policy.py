"""A tiny character-level policy (GRU) that answers arithmetic questions; EOS ends an answer."""
import torch
import torch.nn as nn

VOCAB = list("0123456789+-*=() .?abcdefghijklmnopqrstuvwxyzWE") + ["<eos>", "<pad>"]
STOI = {c: i for i, c in enumerate(VOCAB)}
EOS, PAD = STOI["<eos>"], STOI["<pad>"]


def encode(text, max_len=48):
    ids = [STOI.get(c, STOI[" "]) for c in text.lower()][:max_len]
    return ids + [PAD] * (max_len - len(ids))


def decode(ids):
    out = []
    for i in ids:
        if i == EOS:
            break
        if i != PAD:
            out.append(VOCAB[i])
    return "".join(out)


class TinyPolicy(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(len(VOCAB), hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, len(VOCAB))

    def forward(self, tokens, h=None):
        out, h = self.rnn(self.emb(tokens), h)
        return self.head(out), h

    @torch.no_grad()
    def generate(self, prompts, max_new=24, temperature=1.0, gen=None):
        _, h = self(prompts)
        tok = torch.full((prompts.shape[0], 1), STOI["="], dtype=torch.long)
        outs, done = [], torch.zeros(prompts.shape[0], dtype=torch.bool)
        for _ in range(max_new):
            logits, h = self(tok, h)
            probs = torch.softmax(logits[:, -1] / temperature, -1)
            tok = torch.multinomial(probs, 1, generator=gen)
            tok[done] = PAD
            outs.append(tok)
            done |= tok[:, 0] == EOS
            if done.all():
                break
        return torch.cat(outs, 1)

    def logprobs(self, prompts, responses):
        _, h = self(prompts)
        start = torch.full((prompts.shape[0], 1), STOI["="], dtype=torch.long)
        inp = torch.cat([start, responses[:, :-1]], 1)
        logits, _ = self(inp, h)
        lp = torch.log_softmax(logits, -1).gather(-1, responses.unsqueeze(-1)).squeeze(-1)
        mask = (responses != PAD).float()
        return lp, mask
