"""Averages the returns of the episodes that finished this iteration across all ranks."""
import torch
import torch.distributed as dist


def on_iteration(rank, iteration, agent, b_actions, infos):
    returns = [float(i["episode"]["r"][0]) for i in infos.get("final_info", []) if i and "episode" in i]
    if not returns:
        return
    t = torch.tensor(returns)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    if rank == 0:
        print(f"iteration {iteration}: mean episodic return over ranks {t.mean().item():.2f}")
