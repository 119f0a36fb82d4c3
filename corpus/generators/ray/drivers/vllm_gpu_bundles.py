"""Colocated PPO: one placement group with a GPU bundle per vLLM engine plus a trainer bundle."""
import ray
from rlcommon import init_ray, setup_logging
from ray.util.placement_group import placement_group

log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
num_engines, tp = 2, 1
bundles = [{"GPU": 1, "CPU": 0.5} for _ in range(num_engines * tp)] + [{"CPU": 0.5}]
pg = placement_group(bundles, strategy="PACK", name="vllm_engines")
log.info("created placement group for %d vLLM engines (tp=%d): bundles=%s", num_engines, tp, bundles)
log.info("waiting for placement group to be ready (timeout 30s)")
ray.get(pg.ready(), timeout=30)
log.info("placement group ready")
