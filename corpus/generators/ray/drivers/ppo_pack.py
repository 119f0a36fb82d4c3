"""Healthy PPO-style job: trainer + 2 rollout actors in a PACK placement group."""
import ray
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group
from ray.util.placement_group import remove_placement_group

log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
pg = make_group(2, log=log)
ray.get(pg.ready(), timeout=30)
log.info("placement group ready")
trainer, rollouts = spawn_in_group(pg, 2)
stats = rl_loop(trainer, rollouts, n_iters=5, log=log)
log.info("training finished: final stats %s", stats)
remove_placement_group(pg)
ray.shutdown()
log.info("done")
