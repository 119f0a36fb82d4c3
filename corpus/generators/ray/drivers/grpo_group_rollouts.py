"""GRPO job that starts one 1-CPU rollout worker per sampling group (3 groups on a 2-CPU cluster)."""
import ray
from rlcommon import Rollout, Trainer, init_ray, setup_logging

log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
n_groups = 3
rollouts = [Rollout.options(num_cpus=1, name=f"rollout_{i}").remote(i) for i in range(n_groups)]
trainer = Trainer.options(num_cpus=0).remote()
weights = ray.get(trainer.get_weights.remote())
for step in range(1, 4):
    refs = [r.update_weights.remote(weights, step) for r in rollouts]
    ready, pending = ray.wait(refs, num_returns=len(refs), timeout=25)
    log.info("step %d: %d/%d rollout workers answered", step, len(ready), len(refs))
    if pending:
        log.error("rollout workers %s still not started after 25s, available resources: %s",
                  [i for i, r in enumerate(refs) if r in pending], ray.available_resources())
        raise RuntimeError(f"{len(pending)} rollout worker(s) never started")
