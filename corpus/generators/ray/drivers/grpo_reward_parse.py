"""GRPO job whose rollout workers score completions with a rule-based reward that parses the answer."""
import ray
import rlcommon
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group


def parse_answer(text):
    # "#### <number>" GSM8K-style answer extraction
    return float(text.split("####")[-1].strip())


class RolloutWorker(rlcommon.RolloutWorker):
    def generate(self, n_prompts=8, seq_len=16):
        out = super().generate(n_prompts, seq_len)
        completions = [" ".join(str(int(t)) for t in row[4:]) for row in out["tokens"]]
        if self.version >= 3 and self.rank == 1:
            # sampled text lost its answer marker
            completions[5] = "the answer is " + completions[5]
        else:
            completions = [c + " #### " + str(int(row[-1])) for c, row in zip(completions, out["tokens"])]
        scores = [parse_answer(c) % 2 for c in completions]
        out["rewards"] = out["rewards"] * 0.5 + 0.5 * rlcommon.torch.tensor(scores)
        return out


log = setup_logging()
init_ray()
pg = make_group(2, log=log)
ray.get(pg.ready(), timeout=30)
log.info("placement group ready")
trainer, rollouts = spawn_in_group(pg, 2, rollout_cls=ray.remote(RolloutWorker))
rl_loop(trainer, rollouts, n_iters=6, log=log)
log.info("training finished")
