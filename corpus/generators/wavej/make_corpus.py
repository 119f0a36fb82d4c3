"""Write a tokenised pre-training corpus as JSON lines ``{"id": ..., "source": ..., "tokens": [...]}``.

Documents are synthetic "support articles": sentences drawn from a small template grammar, tokenised at byte level
(token = byte value + 3; 0 pad, 1 bos, 2 eos). ``--max-doc-tokens`` is the splitter's chunk size: longer articles are
split into several documents. ``--unsplit-source NAME`` adds one export from that source whose articles were
concatenated without going through the splitter (``--unsplit-tokens`` long), at position ``--unsplit-at``.
"""
from __future__ import annotations

import argparse
import json
import random

SUBJ = ["the driver", "your router", "the sync client", "a backup job", "the printer queue", "the VPN tunnel",
        "the mail filter", "this laptop", "the storage pool", "the build agent", "our scheduler", "the dashboard"]
VERB = ["stops responding", "reports a timeout", "needs a restart", "drops the connection", "uses too much memory",
        "fails to start", "shows an empty list", "runs twice", "logs a warning", "cannot find the volume"]
WHEN = ["after an update", "on Mondays", "when the disk is busy", "during the nightly run", "behind a proxy",
        "with two monitors", "after a password change", "on battery", "when many users log in", "at start-up"]
FIX = ["clear the cache and retry", "reinstall the agent", "raise the limit in the settings", "renew the certificate",
       "check the cable", "update the firmware", "remove the stale lock file", "restart the service",
       "add the host to the allow list", "reduce the batch size"]


def sentence(rng: random.Random) -> str:
    return (f"{rng.choice(SUBJ).capitalize()} {rng.choice(VERB)} {rng.choice(WHEN)}; "
            f"to fix it, {rng.choice(FIX)}. ")


def tokens(text: str) -> list[int]:
    return [1] + [b + 3 for b in text.encode()] + [2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--max-doc-tokens", type=int, default=256)
    ap.add_argument("--unsplit-source", default="")
    ap.add_argument("--unsplit-at", type=int, default=0)
    ap.add_argument("--unsplit-tokens", type=int, default=1400)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    docs: list[dict] = []
    while len(docs) < a.docs:
        text = "".join(sentence(rng) for _ in range(rng.randint(1, 6)))
        toks = tokens(text)
        for i in range(0, len(toks), a.max_doc_tokens):  # the splitter
            docs.append({"id": f"kb-{len(docs):06d}", "source": "kb", "tokens": toks[i:i + a.max_doc_tokens]})
    docs = docs[: a.docs]
    if a.unsplit_source:  # one export that skipped the splitter: its articles concatenated into one document
        text = ""
        while len(text) < a.unsplit_tokens:
            text += sentence(rng)
        docs[a.unsplit_at] = {"id": f"{a.unsplit_source}-{a.unsplit_at:06d}", "source": a.unsplit_source,
                              "tokens": tokens(text[: a.unsplit_tokens - 2])}
    with open(a.out, "w") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")
    n = len(docs)
    print(f"wrote {n} documents to {a.out}")


if __name__ == "__main__":
    main()
