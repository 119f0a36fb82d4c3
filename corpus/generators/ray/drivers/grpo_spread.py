"""Healthy GRPO job: trainer + 3 rollout engines in a SPREAD placement group, 6 iterations."""
import ray
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group
from ray.util.placement_group import remove_placement_group

log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
pg = make_group(3, cpu_per_bundle=0.5, strategy="SPREAD", log=log)
ray.get(pg.ready(), timeout=30)
log.info("placement group ready: %s", ray.util.placement_group_table(pg)["bundles_to_node_id"])
trainer, rollouts = spawn_in_group(pg, 3)
stats = rl_loop(trainer, rollouts, n_iters=6, log=log, n_prompts=4)
log.info("GRPO finished: %s", stats)
for a in rollouts + [trainer]:
    ray.kill(a)
remove_placement_group(pg)
ray.shutdown()
