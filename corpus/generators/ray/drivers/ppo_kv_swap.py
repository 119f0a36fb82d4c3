"""PPO job whose rollout engine pre-allocates a host-side KV cache that grows each iteration."""
import ray
import rlcommon
import torch
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group


class RolloutWorker(rlcommon.RolloutWorker):
    def __init__(self, rank, hidden=64):
        super().__init__(rank, hidden)
        self.kv_blocks = []

    def generate(self, n_prompts=8, seq_len=16):
        if self.rank == 0 and self.version >= 2:
            # swap space for preempted sequences, 256 MiB blocks
            for i in range(40):
                blk = torch.ones(64 * 1024 * 1024, dtype=torch.float32)
                self.kv_blocks.append(blk)
                if i % 4 == 0:
                    print(f"[rollout {self.rank}] kv swap blocks: {len(self.kv_blocks)} "
                          f"({len(self.kv_blocks) * blk.nbytes / 2**30:.2f} GiB)", flush=True)
                rlcommon.time.sleep(0.15)
        return super().generate(n_prompts, seq_len)


log = setup_logging()
init_ray()
pg = make_group(2, log=log)
ray.get(pg.ready(), timeout=30)
log.info("placement group ready")
trainer, rollouts = spawn_in_group(pg, 2, rollout_cls=ray.remote(RolloutWorker))
rl_loop(trainer, rollouts, n_iters=4, log=log)
log.info("training finished")
