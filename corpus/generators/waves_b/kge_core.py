"""Knowledge-graph embedding core: a synthetic encyclopedic KG (people, cities, countries, companies, universities),
a ComplEx model with 1-vs-k negative sampling, and filtered link-prediction evaluation (MRR, Hits@1/3/10)."""
import collections
import datetime
import os
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

RELATIONS = ["born_in", "lives_in", "located_in", "capital_of", "works_for", "headquartered_in", "alumnus_of",
             "university_in", "spouse_of", "citizen_of", "founded_by", "subsidiary_of"]


def stamp():
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")


def make_kg(n_people=1500, n_cities=160, n_countries=24, n_companies=220, n_unis=60, seed=11):
    """Triples (head, relation, tail) as strings, with rule structure a model can pick up."""
    rng = random.Random(seed)
    countries = [f"country:{i:03d}" for i in range(n_countries)]
    cities = [f"city:{i:04d}" for i in range(n_cities)]
    companies = [f"org:{i:04d}" for i in range(n_companies)]
    unis = [f"uni:{i:03d}" for i in range(n_unis)]
    people = [f"person:{i:05d}" for i in range(n_people)]
    T = []
    city_country = {c: countries[rng.randrange(n_countries) if i >= n_countries else i] for i, c in enumerate(cities)}
    for c, k in city_country.items():
        T.append((c, "located_in", k))
    for k in countries:
        T.append((rng.choice([c for c in cities if city_country[c] == k]), "capital_of", k))
    org_city = {o: rng.choice(cities) for o in companies}
    for o, c in org_city.items():
        T.append((o, "headquartered_in", c))
    for i, o in enumerate(companies):
        if i % 5 == 0 and i:
            T.append((o, "subsidiary_of", companies[rng.randrange(i)]))
    uni_city = {u: rng.choice(cities) for u in unis}
    for u, c in uni_city.items():
        T.append((u, "university_in", c))
    for i, p in enumerate(people):
        born = rng.choice(cities)
        T.append((p, "born_in", born))
        T.append((p, "citizen_of", city_country[born]))
        org = rng.choice(companies)
        T.append((p, "works_for", org))
        T.append((p, "lives_in", org_city[org] if rng.random() < 0.7 else rng.choice(cities)))
        if rng.random() < 0.6:
            same = [u for u in unis if city_country[uni_city[u]] == city_country[born]]
            T.append((p, "alumnus_of", rng.choice(same or unis)))
        if i % 2 == 1 and rng.random() < 0.5:
            T.append((p, "spouse_of", people[i - 1]))
            T.append((people[i - 1], "spouse_of", p))
        if rng.random() < 0.05:
            T.append((org, "founded_by", p))
    T = sorted(set(T))
    rng.shuffle(T)
    return T


def split(triples, n_valid=600, n_test=600):
    train, valid, test = triples[n_valid + n_test:], triples[:n_valid], triples[n_valid:n_valid + n_test]
    seen = {h for h, _, _ in train} | {t for _, _, t in train}
    valid = [x for x in valid if x[0] in seen and x[2] in seen]
    test = [x for x in test if x[0] in seen and x[2] in seen]
    return train, valid, test


def write_tsv(path, triples):
    with open(path, "w") as f:
        for h, r, t in triples:
            f.write(f"{h}\t{r}\t{t}\n")


def read_tsv(path):
    out = []
    with open(path) as f:
        for line in f:
            h, r, t = line.rstrip("\n").split("\t")
            out.append((h, r, t))
    return out


def make_dataset(root, seed=11, **kw):
    os.makedirs(root, exist_ok=True)
    tr, va, te = split(make_kg(seed=seed, **kw))
    for name, part in (("train", tr), ("valid", va), ("test", te)):
        write_tsv(os.path.join(root, f"{name}.tsv"), part)
    return tr, va, te


def vocab(train):
    ents = sorted({h for h, _, _ in train} | {t for _, _, t in train})
    rels = sorted({r for _, r, _ in train})
    return {e: i for i, e in enumerate(ents)}, {r: i for i, r in enumerate(rels)}


def encode(triples, e2i, r2i):
    return torch.tensor([[e2i[h], r2i[r], e2i[t]] for h, r, t in triples], dtype=torch.long)


class ComplEx(nn.Module):
    def __init__(self, n_ent, n_rel, dim=32, init="normal", init_scale=1e-1):
        super().__init__()
        self.ent = nn.Embedding(n_ent, 2 * dim)
        self.rel = nn.Embedding(n_rel, 2 * dim)
        if init == "uniform":  # RotatE-style: U(-(gamma+eps)/dim, ...) scaled by init_scale
            nn.init.uniform_(self.ent.weight, -init_scale, init_scale)
            nn.init.uniform_(self.rel.weight, -init_scale, init_scale)
        else:
            nn.init.normal_(self.ent.weight, std=init_scale)
            nn.init.normal_(self.rel.weight, std=init_scale)
        self.dim = dim

    def _parts(self, x):
        return x[..., :self.dim], x[..., self.dim:]

    def score(self, h, r, t):
        hr, hi = self._parts(self.ent(h))
        rr, ri = self._parts(self.rel(r))
        tr, ti = self._parts(self.ent(t))
        return (hr * rr * tr + hi * rr * ti + hr * ri * ti - hi * ri * tr).sum(-1)

    def score_all_tails(self, h, r):
        hr, hi = self._parts(self.ent(h))
        rr, ri = self._parts(self.rel(r))
        er, ei = self._parts(self.ent.weight)
        return (hr * rr - hi * ri) @ er.t() + (hr * ri + hi * rr) @ ei.t()

    def forward(self, batch, n_neg, n_ent, logsig_by_hand=False, reg=1e-3):
        h, r, t = batch[:, 0], batch[:, 1], batch[:, 2]
        pos = self.score(h, r, t)
        neg_t = torch.randint(0, n_ent, (len(batch), n_neg))
        neg = self.score(h[:, None].expand_as(neg_t), r[:, None].expand_as(neg_t), neg_t)
        if logsig_by_hand:  # -log(sigmoid(x)) written out, as in the paper's formula
            loss = -torch.log(torch.sigmoid(pos)).mean() - torch.log(torch.sigmoid(-neg)).mean()
        else:
            loss = -F.logsigmoid(pos).mean() - F.logsigmoid(-neg).mean()
        n3 = (self.ent(h).abs() ** 3).sum(-1).mean() + (self.ent(t).abs() ** 3).sum(-1).mean()
        return loss + reg * n3


def filter_index(*parts):
    known = collections.defaultdict(set)
    for part in parts:
        for h, r, t in part.tolist():
            known[(h, r)].add(t)
    return known


@torch.no_grad()
def ranks_tail(model, triples, known, batch=256):
    """Filtered rank of the true tail among all entities."""
    out = []
    for i in range(0, len(triples), batch):
        b = triples[i:i + batch]
        s = model.score_all_tails(b[:, 0], b[:, 1])
        true = s.gather(1, b[:, 2:3]).clone()
        for j, (h, r, t) in enumerate(b.tolist()):
            others = [x for x in known[(h, r)] if x != t]
            if others:
                s[j, others] = float("-inf")
        out.append((s > true).sum(1) + 1)
    return torch.cat(out) if out else torch.zeros(0, dtype=torch.long)


@torch.no_grad()
def ranks_tail_python(model, triples, known_list):
    """Filtered ranks, the slow way: a Python scan of every candidate against a list of known triples."""
    out = []
    for h, r, t in triples.tolist():
        s = model.score_all_tails(torch.tensor([h]), torch.tensor([r]))[0]
        true = s[t].item()
        rank = 1
        for e, v in enumerate(s.tolist()):
            if v > true and (h, r, e) not in known_list:
                rank += 1
        out.append(rank)
    return torch.tensor(out)


def metrics(ranks):
    r = ranks.double()
    return {"mrr": (1.0 / r).mean().item(), "hits@1": (r <= 1).double().mean().item(),
            "hits@3": (r <= 3).double().mean().item(), "hits@10": (r <= 10).double().mean().item()}


def write_dump(root, n_parts=4, tab_part=None):
    """The KG dump as the upstream exporter writes it: head, relation, tail, tail label (TSV parts). The exporter of
    part `tab_part` wrote place labels as 'name<TAB>country code'."""
    os.makedirs(root, exist_ok=True)
    rng = random.Random(5)
    names = ["Ashford", "Bellmont", "Corran", "Dunmere", "Eastwick", "Falkreach", "Glenmoor", "Harrowgate"]
    triples = make_kg()
    per = (len(triples) + n_parts - 1) // n_parts
    for p in range(n_parts):
        with open(os.path.join(root, f"part-{p:05d}.tsv"), "w") as f:
            for h, r, t in triples[p * per:(p + 1) * per]:
                label = rng.choice(names) + " " + t.split(":")[1]
                if t.startswith("city:"):
                    sep = "\t" if p == tab_part else ", "
                    label += f"{sep}C{int(t.split(':')[1]) % 24:02d}"
                f.write(f"{h}\t{r}\t{t}\t{label}\n")
