"""GRPO job: reference + reward model actors take 1 CPU each, then the policy group is requested."""
import ray
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group


@ray.remote(num_cpus=1)
class ReferenceModel:
    def __init__(self):
        print("reference model loaded", flush=True)

    def ping(self):
        return "ok"


@ray.remote(num_cpus=1)
class RewardModel:
    def __init__(self):
        print("reward model loaded", flush=True)

    def ping(self):
        return "ok"


log = setup_logging()
init_ray()
log.info("cluster resources: %s", ray.cluster_resources())
ref, rm = ReferenceModel.remote(), RewardModel.remote()
ray.get([ref.ping.remote(), rm.ping.remote()])
log.info("reference and reward models ready; available now: %s", ray.available_resources())
pg = make_group(2, cpu_per_bundle=0.5, strategy="PACK", log=log)
log.info("waiting for policy placement group (timeout 30s)")
ray.get(pg.ready(), timeout=30)
trainer, rollouts = spawn_in_group(pg, 2)
rl_loop(trainer, rollouts, 3, log)
