"""Ray actors: the policy trainers (a torch.distributed gloo group), the rollout engine and the reward scorer."""
import json
import os
import socket
import sys
import time
from datetime import timedelta

import ray
import torch
import torch.distributed as dist

from .policy import PAD, TinyPolicy, decode, encode


def _log(role, msg):
    print(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] [{role}] {msg}", flush=True)


@ray.remote
class PolicyTrainer:
    """One data-parallel rank of the policy update (OpenRLHF-style actor group member)."""

    def __init__(self, rank, world_size, cfg):
        self.rank, self.world_size, self.cfg = rank, world_size, cfg
        torch.manual_seed(cfg["seed"])
        torch.set_num_threads(1)
        self.model = TinyPolicy(cfg["hidden"])
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg["actor_lr"])
        _log(f"rank {rank}", f"PolicyTrainer up on pid {os.getpid()}, "
             f"{sum(p.numel() for p in self.model.parameters())} parameters")

    def get_master_addr_port(self):
        addr = ray.util.get_node_ip_address()
        port = self.cfg["dist_port"]
        if not port:
            with socket.socket() as s:
                s.bind(("", 0))
                port = s.getsockname()[1]
        return addr, port

    def init_process_group(self, addr, port):
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = addr, str(port)
        os.environ["RANK"], os.environ["WORLD_SIZE"] = str(self.rank), str(self.world_size)
        dist.init_process_group("gloo", rank=self.rank, world_size=self.world_size,
                                timeout=timedelta(seconds=self.cfg["dist_timeout"]))
        _log(f"rank {self.rank}", f"joined gloo group at {addr}:{port} (world size {self.world_size})")
        return True

    def load_checkpoint(self, path):
        state = torch.load(path, map_location="cpu")
        self.model.load_state_dict(state["model"])
        self.opt.load_state_dict(state["optim"])
        _log(f"rank {self.rank}", f"loaded checkpoint {path} (global step {state['global_step']})")
        return state["global_step"]

    def save_checkpoint(self, path, global_step):
        if self.rank == 0:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            torch.save({"model": self.model.state_dict(), "optim": self.opt.state_dict(),
                        "global_step": global_step}, path)
            _log("rank 0", f"saved checkpoint {path}")
        dist.barrier()
        return True

    def get_weights(self):
        return {k: v.clone() for k, v in self.model.state_dict().items()}

    def train_step(self, shard, step):
        """One PPO-clip update on this rank's shard; gradients all-reduced by hand over gloo."""
        prompts, responses = shard["prompts"], shard["responses"]
        old_lp, adv = shard["old_logprobs"], shard["advantages"]
        if self.cfg["hidden"] > 1024:  # the big-policy path keeps a full-vocab logit cache per sample
            self._cache = [torch.randn(self.cfg["hidden"], self.cfg["hidden"], 64) for _ in range(8)]
        mb = self.cfg["micro_batch_size"]
        stats = {"pg_loss": 0.0, "clipfrac": 0.0}
        n_mb = 0
        for i in range(0, prompts.shape[0], mb):
            lp, mask = self.model.logprobs(prompts[i:i + mb], responses[i:i + mb])
            ratio = torch.exp(lp - old_lp[i:i + mb])
            a = adv[i:i + mb].unsqueeze(1)
            clip = self.cfg["clip_ratio"]
            loss = -torch.min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a)
            loss = (loss * mask).sum() / mask.sum().clamp(min=1)
            if not torch.isfinite(loss):
                raise RuntimeError(f"rank {self.rank}: pg_loss is {loss.item()} at global step {step}")
            self.opt.zero_grad()
            loss.backward()
            if self.cfg["log_kl"] and self.rank == 0:
                kl = (old_lp[i:i + mb] - lp.detach()).mean().reshape(1)
                dist.all_reduce(kl)  # mean KL across ranks for the dashboard
            for p in self.model.parameters():
                if p.grad is not None:
                    dist.all_reduce(p.grad)
                    p.grad /= self.world_size
            gn = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.opt.step()
            stats["pg_loss"] += loss.item()
            stats["clipfrac"] += ((ratio - 1).abs() > clip).float().mean().item()
            n_mb += 1
        stats = {k: v / n_mb for k, v in stats.items()}
        stats["grad_norm"] = float(gn)
        _log(f"rank {self.rank}", f"step {step} pg_loss {stats['pg_loss']:.4f} clipfrac {stats['clipfrac']:.3f} "
             f"grad_norm {stats['grad_norm']:.3f}")
        time.sleep(self.cfg["step_delay"])
        return stats


@ray.remote
class RolloutWorker:
    """Samples answers from the current policy weights (stands in for the vLLM engine)."""

    def __init__(self, cfg):
        torch.set_num_threads(1)
        self.cfg = cfg
        self.model = TinyPolicy(cfg["hidden"])
        self.gen = torch.Generator().manual_seed(cfg["seed"])
        _log("rollout", f"RolloutWorker up on pid {os.getpid()}")

    def update_weights(self, weights):
        self.model.load_state_dict(weights)
        return True

    def generate(self, questions, n_samples, greedy=False):
        prompts = torch.tensor([encode(q) for q in questions for _ in range(n_samples)])
        responses = self.model.generate(prompts, self.cfg["max_response_length"],
                                        temperature=0.05 if greedy else 1.0, gen=self.gen)
        lp, _ = self.model.logprobs(prompts, responses)
        texts = [decode(r.tolist()) for r in responses]
        return {"prompts": prompts, "responses": responses, "old_logprobs": lp, "texts": texts}


@ray.remote
class RewardWorker:
    """Rule-based reward: correct final answer, minus a penalty for answers longer than the reference."""

    def __init__(self, cfg):
        self.cfg = cfg
        if cfg["reward_fn"] == "rouge":
            from rouge_score import rouge_scorer  # noqa: F401  (pip install rouge-score)
            self.scorer = rouge_scorer.RougeScorer(["rougeL"])
        sys.setrecursionlimit(1_000_000)  # worked answers from the textbook import can be deeply nested
        _log("reward", f"RewardWorker up on pid {os.getpid()} (reward_fn={cfg['reward_fn']})")

    @staticmethod
    def _depth(node):
        return 1 + max(map(RewardWorker._depth, node), default=0) if isinstance(node, list) else 0

    def score(self, records, texts, n_samples):
        scores = []
        for j, text in enumerate(texts):
            rec = records[j // n_samples]
            ref = rec["reference"]
            worked = json.loads(rec["worked"].replace("(", "[").replace(")", "]").replace("+", ",")
                                .replace("-", ",").replace("*", ","))
            steps = self._depth(worked)
            correct = float(ref != "" and ref in text)
            length_ratio = torch.tensor(float(len(text))) / torch.tensor(float(len(ref)))
            scores.append(correct - self.cfg["length_coef"] * length_ratio.item() + 0.0 * steps)
        return torch.tensor(scores)
