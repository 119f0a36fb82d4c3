"""PPO job that packs trainer + 3 rollout workers into one STRICT_PACK group of 1-CPU bundles."""
import ray
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group

log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
pg = make_group(3, cpu_per_bundle=1, strategy="STRICT_PACK", log=log)
log.info("waiting for placement group (timeout 30s)")
ready, _ = ray.wait([pg.ready()], timeout=30)
if not ready:
    log.error("placement group %s not ready after 30s; table=%s", pg.id.hex()[:12],
              ray.util.placement_group_table(pg))
    raise TimeoutError("placement group for trainer/rollout workers was not scheduled in 30s")
trainer, rollouts = spawn_in_group(pg, 3, cpu_per_bundle=1)
rl_loop(trainer, rollouts, 3, log)
