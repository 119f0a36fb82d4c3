"""Every 8 iterations the last rank logs the share of each action it took, by name (rollout audit)."""
import torch.distributed as dist

NAMES = {0: "NOOP", 1: "FIRE", 2: "RIGHT"}


def on_iteration(rank, iteration, agent, b_actions, infos):
    if iteration % 8 or rank != dist.get_world_size() - 1:
        return
    counts = {}
    for a in b_actions.long().tolist():
        counts[NAMES[a]] = counts.get(NAMES[a], 0) + 1
    print(f"rank {rank} iteration {iteration} actions: {counts}")
