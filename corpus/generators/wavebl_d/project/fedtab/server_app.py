"""fedtab ServerApp: FedAvg over the connected sites; the global model is saved after every round."""
from __future__ import annotations

import math
import os
from pathlib import Path

import torch
from flwr.app import ArrayRecord, ConfigRecord, Context, MetricRecord
from flwr.serverapp import Grid, ServerApp
from flwr.serverapp.strategy import FedAvg

from fedtab.task import Net

app = ServerApp()


class SiteFedAvg(FedAvg):
    """FedAvg that, unless failures are accepted, stops the run when a sampled site fails to train."""

    def __init__(self, *args, accept_failures: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.accept_failures = accept_failures

    def aggregate_train(self, server_round, replies):
        replies = list(replies)
        failed = [m for m in replies if m.has_error()]
        if failed and not self.accept_failures:
            for m in failed:
                print(f"round {server_round}: train reply from node {m.metadata.src_node_id} failed: "
                      f"{m.error.reason}", flush=True)
            raise RuntimeError(f"round {server_round}: {len(failed)} of {len(replies)} sampled sites failed to "
                               f"train (accept-failures is false)")
        return super().aggregate_train(server_round, replies)


@app.main()
def main(grid: Grid, context: Context) -> None:
    cfg = context.run_config
    num_rounds = int(cfg["num-server-rounds"])
    ckpt_dir = Path(str(cfg["ckpt-dir"]))
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    net = Net(int(cfg["in-features"]), int(cfg["hidden"]), int(cfg["num-classes"]))
    start_round = 0
    resume = str(cfg.get("resume-from", ""))
    if resume:
        state = torch.load(resume, weights_only=True)
        net.load_state_dict(state["model"])
        start_round = int(state["round"])
        print(f"resumed global model from {resume} (round {start_round})", flush=True)
    print(f"global model: {sum(p.numel() for p in net.parameters())} parameters, {num_rounds} rounds, "
          f"checkpoints -> {ckpt_dir}", flush=True)

    def save_global(server_round: int, arrays: ArrayRecord):
        if server_round == 0:
            return None
        state = arrays.to_torch_state_dict()
        norm = math.sqrt(sum(float((v.float() ** 2).sum()) for v in state.values()))
        rnd = start_round + server_round
        path = ckpt_dir / f"global_round_{rnd:03d}.pt"
        torch.save({"model": state, "round": rnd}, path)
        print(f"round {rnd}: saved global model to {path} (weight norm {norm:.4f})", flush=True)
        if not math.isfinite(norm):
            raise FloatingPointError(f"global model has non-finite weights after round {rnd} (norm {norm})")
        return MetricRecord({"weight_norm": norm})

    strategy = SiteFedAvg(accept_failures=bool(cfg["accept-failures"]), fraction_train=float(cfg["fraction-train"]), fraction_evaluate=float(cfg["fraction-evaluate"]),
                      min_train_nodes=int(cfg["min-train-nodes"]), min_evaluate_nodes=int(cfg["min-train-nodes"]),
                      min_available_nodes=int(cfg["min-train-nodes"]))
    result = strategy.start(grid=grid, initial_arrays=ArrayRecord(net.state_dict()),
                            train_config=ConfigRecord({"lr": float(cfg["lr"])}), num_rounds=num_rounds,
                            timeout=float(cfg["round-timeout"]), evaluate_fn=save_global)
    final = result.arrays.to_torch_state_dict()
    torch.save({"model": final, "round": start_round + num_rounds}, ckpt_dir / "final_model.pt")
    print(f"training finished; final model saved to {ckpt_dir / 'final_model.pt'}", flush=True)
