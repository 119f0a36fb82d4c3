"""PPO job whose trainer splits each rollout batch into micro-batches for gradient accumulation."""
import ray
import rlcommon
import torch
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group

MICRO_BATCH = 6
GRAD_ACCUM = 3


class PolicyTrainer(rlcommon.PolicyTrainer):
    def train_step(self, rollouts):
        tokens = torch.cat([r["tokens"] for r in rollouts])
        rewards = torch.cat([r["rewards"] for r in rollouts])
        order = torch.randperm(tokens.shape[0]).tolist()
        micro = []
        for i in range(GRAD_ACCUM):
            idx = [order[i * MICRO_BATCH + j] for j in range(MICRO_BATCH)]
            micro.append({"tokens": tokens[idx], "rewards": rewards[idx]})
        stats = None
        for mb in micro:
            stats = super().train_step([mb])
        return stats


log = setup_logging()
init_ray()
pg = make_group(2, log=log)
ray.get(pg.ready(), timeout=30)
log.info("placement group ready; micro_batch=%d grad_accum=%d", MICRO_BATCH, GRAD_ACCUM)
trainer, rollouts = spawn_in_group(pg, 2, trainer_cls=ray.remote(PolicyTrainer))
rl_loop(trainer, rollouts, n_iters=4, log=log)
log.info("training finished")
