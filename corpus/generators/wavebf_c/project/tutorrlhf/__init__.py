"""tutorrlhf: PPO on a tiny policy so the math-tutoring bot answers in fewer tokens (Ray + torch.distributed/gloo)."""
__version__ = "0.3.1"
