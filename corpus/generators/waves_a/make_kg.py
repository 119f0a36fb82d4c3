"""Synthetic knowledge graph for the link-prediction trainer (kge.py), in the FB15k-style layout:
data/entities.dict, data/relations.dict (id<TAB>name), data/train.tsv, data/valid.tsv, data/test.tsv (head<TAB>rel<TAB>tail).

People are born in cities, live in cities, work at companies, studied at universities, know other people; cities lie in
countries, companies are headquartered in cities, universities are located in cities, countries border countries.

--valid-from-newer-dump N: N validation triples come from a newer dump of the graph (entities the dict lacks).
--pretrained ROWS: also write data/pretrained-ent.pt, a (ROWS x 128) float32 entity table from an earlier run
over a bigger graph, with its name->row index.
"""
import argparse
import os

import numpy as np

TYPES = {"person": 2400, "city": 300, "country": 40, "company": 260, "university": 80}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--valid", type=int, default=1200)
    ap.add_argument("--valid-from-newer-dump", type=int, default=0)
    ap.add_argument("--pretrained", type=int, default=0)
    ap.add_argument("--dump-copies", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    ents = {t: [f"{t}_{i:04d}" for i in range(n)] for t, n in TYPES.items()}
    city_country = {c: ents["country"][rng.integers(40)] for c in ents["city"]}
    triples = set()
    for c, k in city_country.items():
        triples.add((c, "located_in", k))
    for i, k in enumerate(ents["country"]):
        for j in rng.choice(40, size=3, replace=False):
            if j != i:
                triples.add((k, "borders", ents["country"][j]))
                triples.add((ents["country"][j], "borders", k))
    for co in ents["company"]:
        triples.add((co, "headquartered_in", ents["city"][rng.integers(300)]))
    for k in ents["country"][:12]:  # capitals recorded for a few countries only
        triples.add((k, "capital", next(c for c, kk in city_country.items() if kk == k)))
    for u in ents["university"]:
        triples.add((u, "located_in", ents["city"][rng.integers(300)]))
    for p in ents["person"]:
        home = ents["city"][rng.integers(300)]
        triples.add((p, "born_in", home))
        triples.add((p, "nationality", city_country[home]))
        if rng.random() < 0.8:
            triples.add((p, "lives_in", home if rng.random() < 0.5 else ents["city"][rng.integers(300)]))
        if rng.random() < 0.7:
            triples.add((p, "works_at", ents["company"][rng.integers(260)]))
        if rng.random() < 0.6:
            triples.add((p, "alumni_of", ents["university"][rng.integers(80)]))
        for q in rng.choice(2400, size=rng.integers(1, 5), replace=False):
            triples.add((p, "knows", ents["person"][q]))
    triples = sorted(triples)
    rng.shuffle(triples)
    names = [e for t in TYPES for e in ents[t]]
    rels = sorted({r for _, r, _ in triples})
    valid, test, train = triples[:a.valid], triples[a.valid:2 * a.valid], triples[2 * a.valid:]
    if a.valid_from_newer_dump:  # a validation file re-exported from the newer dump: some people joined since
        changed = 0
        for i in rng.permutation(len(valid)):
            h, r, t = valid[i]
            if h.startswith("person_") and changed < a.valid_from_newer_dump:
                valid[i] = (f"person_{2400 + int(rng.integers(600)):04d}", r, t)
                changed += 1
    with open(os.path.join(a.out, "entities.dict"), "w") as f:
        f.writelines(f"{i}\t{e}\n" for i, e in enumerate(names))
    with open(os.path.join(a.out, "relations.dict"), "w") as f:
        f.writelines(f"{i}\t{r}\n" for i, r in enumerate(rels))
    for fn, part in (("train.tsv", train), ("valid.tsv", valid), ("test.tsv", test)):
        with open(os.path.join(a.out, fn), "w") as f:
            f.writelines(f"{h}\t{r}\t{t}\n" for h, r, t in part)
    print(f"{len(names)} entities, {len(rels)} relations, {len(train)} train / {len(valid)} valid / {len(test)} test")
    if a.dump_copies:  # the full graph dump the triples were extracted from (statements with their references)
        import gzip
        import json
        with gzip.open(os.path.join(a.out, "full-dump.jsonl.gz"), "wt", compresslevel=1) as f:
            for c in range(a.dump_copies):
                for h, r, t in triples:
                    f.write(json.dumps({"s": h, "p": r, "o": t, "rank": "normal", "refs": c % 5,
                                        "source": f"dump-{c:03d}"}) + "\n")
        print(f"full dump: {a.dump_copies * len(triples)} statements")
    if a.pretrained:
        import torch
        big = [e for e in names] + [f"extra_{i:07d}" for i in range(a.pretrained - len(names))]
        table = torch.randn(a.pretrained, 128) * 0.1
        torch.save({"names": big, "weight": table}, os.path.join(a.out, "pretrained-ent.pt"))
        print(f"pretrained entity table {tuple(table.shape)}")


if __name__ == "__main__":
    main()
