"""Write a synthetic support-ticket routing dataset (data/tickets_{train,valid}.csv) and the queue list."""
import argparse
import csv
import json
import os
import random

QUEUES = {
    "billing": ["invoice", "charged twice", "refund", "credit card", "payment failed", "subscription price",
                "receipt", "billing address", "overcharge", "vat number"],
    "login": ["password reset", "cannot sign in", "two factor", "locked out", "sso", "login loop",
              "verification code", "session expired", "account locked", "magic link"],
    "shipping": ["tracking number", "parcel", "delivery late", "courier", "wrong address", "package lost",
                 "customs", "shipping cost", "return label", "warehouse"],
    "bug": ["crash", "error 500", "page blank", "button does nothing", "export fails", "sync broken",
            "app freezes", "timeout", "stack trace", "regression"],
    "feature": ["would be nice", "please add", "dark mode", "api endpoint", "integration", "bulk edit",
                "custom fields", "keyboard shortcut", "roadmap", "suggestion"],
}
FILLER = ("hi team i have a problem with my account since yesterday and the support page did not help "
          "please look at this asap thanks regards order customer web mobile android ios browser").split()


def ticket(rng, q):
    words = [rng.choice(FILLER) for _ in range(rng.randint(8, 20))]
    for _ in range(rng.randint(1, 3)):
        words.insert(rng.randrange(len(words)), rng.choice(QUEUES[q]))
    if rng.random() < 0.15:  # some noise: a phrase of another queue
        words.insert(rng.randrange(len(words)), rng.choice(QUEUES[rng.choice(list(QUEUES))]))
    return " ".join(words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--valid-rows", type=int, default=600)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--append-row", action="append", default=[], help="raw CSV line appended to the train file")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs("data", exist_ok=True)
    for name, n in (("train", a.rows), ("valid", a.valid_rows)):
        with open(f"data/tickets_{name}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["ticket_id", "channel", "subject_body", "queue"])
            for i in range(n):
                q = rng.choice(list(QUEUES))
                w.writerow([f"T{100000 + i}", rng.choice(["email", "chat", "web"]), ticket(rng, q), q])
            if name == "train":
                for line in a.append_row:
                    f.write(line + "\n")
    with open("data/queues.json", "w") as f:
        json.dump(sorted(QUEUES), f)


if __name__ == "__main__":
    main()
