"""SFT warm-up before RL: tokenize dataset shards with Ray tasks, then train the policy actor on them."""
import argparse
import random

import ray
import rlcommon
import torch
from rlcommon import init_ray, setup_logging

ap = argparse.ArgumentParser()
ap.add_argument("--bad-shard", type=int, default=-1)
ap.add_argument("--shards", type=int, default=6)
args = ap.parse_args()


def make_shard(i, n=64):
    rng = random.Random(i)
    recs = [{"prompt": " ".join(str(rng.randrange(128)) for _ in range(6)),
             "response": " ".join(str(rng.randrange(128)) for _ in range(10))} for _ in range(n)]
    if i == args.bad_shard:
        recs[37] = {"prompt": recs[37]["prompt"], "completion": recs[37]["response"]}
    return recs


@ray.remote
class SFTTrainer(rlcommon.PolicyTrainer):
    def sft_step(self, tokens):
        logits = self.model(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        self.opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.opt.step()
        self.step += 1
        stats = {"step": self.step, "loss": round(loss.item(), 4), "grad_norm": round(float(gnorm), 4)}
        self.log.info("sft step %d: %s", self.step, stats)
        return stats


@ray.remote(num_cpus=0.5)
def tokenize_shard(shard_id, records):
    rows = []
    for rec in records:
        ids = [int(t) for t in (rec["prompt"] + " " + rec["response"]).split()]
        rows.append(ids[:16])
    print(f"shard {shard_id}: tokenized {len(rows)} records", flush=True)
    return torch.tensor(rows)


log = setup_logging("sft.driver")
init_ray()
log.info("tokenizing %d shards", args.shards)
refs = [tokenize_shard.remote(i, make_shard(i)) for i in range(args.shards)]
shards = ray.get(refs)
data = torch.cat(shards)
log.info("dataset ready: %s tokens", tuple(data.shape))
trainer = SFTTrainer.options(num_cpus=1).remote(lr=3e-3)
for epoch in range(1, 4):
    for b in range(0, data.shape[0], 96):
        batch = data[b:b + 96]
        stats = ray.get(trainer.sft_step.remote(batch))
    log.info("epoch %d done: %s", epoch, stats)
log.info("SFT finished")
