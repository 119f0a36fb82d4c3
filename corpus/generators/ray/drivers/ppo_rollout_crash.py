"""PPO job in which one actor process goes away in the middle of iteration 3.

--target rollout|trainer picks which actor; --mode kill sends it SIGKILL (what the kernel
OOM killer does), --mode exit makes the engine loop log its error and exit(1).
"""
import argparse
import logging
import os
import signal
import sys

import ray
import rlcommon
import torch
from rlcommon import init_ray, make_group, rl_loop, setup_logging, spawn_in_group

ap = argparse.ArgumentParser()
ap.add_argument("--target", default="rollout")
ap.add_argument("--mode", default="kill")
args = ap.parse_args()
TARGET, MODE = args.target, args.mode


class RolloutWorker(rlcommon.RolloutWorker):
    def generate(self, n_prompts=8, seq_len=16):
        if TARGET == "rollout" and self.rank == 0 and self.version == 3:
            if MODE == "kill":
                self._scratch = torch.ones(128 * 1024 * 1024)
                os.kill(os.getpid(), signal.SIGKILL)
            try:
                self._step_engine(n_prompts)
            except Exception:
                logging.getLogger("rlhf.engine").exception("engine step failed, shutting down engine loop")
                sys.exit(1)
        return super().generate(n_prompts, seq_len)

    def _step_engine(self, n_prompts):
        block_table = {i: [i * 4 + j for j in range(4)] for i in range(n_prompts)}
        free_blocks = 12
        for seq_id, blocks in block_table.items():
            assert free_blocks >= len(blocks), f"sequence {seq_id} needs {len(blocks)} KV blocks, {free_blocks} free"
            free_blocks -= len(blocks)


class PolicyTrainer(rlcommon.PolicyTrainer):
    def train_step(self, rollouts):
        if TARGET == "trainer" and self.step == 2:
            self._scratch = torch.ones(128 * 1024 * 1024)
            os.kill(os.getpid(), signal.SIGKILL)
        return super().train_step(rollouts)


log = setup_logging()
init_ray()
pg = make_group(2, log=log)
ray.get(pg.ready(), timeout=30)
log.info("placement group ready")
trainer, rollouts = spawn_in_group(pg, 2, trainer_cls=ray.remote(PolicyTrainer),
                                   rollout_cls=ray.remote(RolloutWorker))
rl_loop(trainer, rollouts, n_iters=5, log=log)
log.info("training finished")
