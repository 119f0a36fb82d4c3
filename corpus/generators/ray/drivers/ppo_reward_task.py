"""PPO job that scores rollouts with a remote reward task which materialises a large feature matrix."""
import time

import numpy as np
import ray
from rlcommon import init_ray, make_group, setup_logging, spawn_in_group


@ray.remote(num_cpus=0.5, max_retries=1)
def score_rollouts(batch, it):
    # builds a dense (n_samples x 2**k) feature cache that grows with every chunk
    cache = []
    for chunk in range(40):
        cache.append(np.ones((256, 1024 * 1024 // 8 * 1), dtype=np.float64))  # ~256 MB per chunk
        if chunk % 4 == 0:
            print(f"[reward iter {it}] feature chunk {chunk}: {sum(c.nbytes for c in cache) / 2**30:.2f} GiB", flush=True)
        time.sleep(0.15)
    return [float(b["rewards"].mean()) for b in batch]


log = setup_logging()
init_ray()
pg = make_group(2, cpu_per_bundle=0.4, log=log)
ray.get(pg.ready(), timeout=30)
trainer, rollouts = spawn_in_group(pg, 2, cpu_per_bundle=0.4)
for it in range(1, 4):
    w = trainer.get_weights.remote()
    ray.get([r.update_weights.remote(w, it) for r in rollouts])
    batch = ray.get([r.generate.remote(8) for r in rollouts])
    log.info("iter %d: scoring %d rollout groups", it, len(batch))
    scores = ray.get(score_rollouts.remote(batch, it))
    stats = ray.get(trainer.train_step.remote(batch))
    log.info("iter %d: scores=%s stats=%s", it, scores, stats)
