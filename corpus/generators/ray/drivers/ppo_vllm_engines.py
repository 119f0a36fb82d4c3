"""PPO job whose rollout engines ask for a GPU each (like vLLM engine actors) on a CPU-only cluster."""
import ray
from ray.exceptions import GetTimeoutError
from rlcommon import Rollout, Trainer, init_ray, setup_logging

log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
trainer = Trainer.options(num_cpus=1, name="PolicyTrainer").remote()
log.info("starting 2 rollout engines with num_gpus=1 each")
rollouts = [Rollout.options(num_cpus=0.5, num_gpus=1).remote(i) for i in range(2)]
w = ray.get(trainer.get_weights.remote())
log.info("trainer up, %d weight tensors", len(w))
try:
    ray.get([r.update_weights.remote(w, 0) for r in rollouts], timeout=30)
except GetTimeoutError as e:
    log.error("rollout engines did not come up within 30s: %s", e)
    raise
