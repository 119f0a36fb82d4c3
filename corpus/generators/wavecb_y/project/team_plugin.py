"""The team's ms-swift plugin (loaded with --external_plugins team_plugin.py): registers two trainer callbacks.

- ``team_hooks``: if a ``train_hooks.py`` sits in the working directory (the team's per-experiment probes), call its
  ``on_step(rank, step, model)`` after every optimizer step and, if it has one, ``on_save(rank, step, output_dir)``
  after every checkpoint save.
- ``nan_guard``: stop the job when a logged loss is not finite (raises on every rank that logs it).
"""
import importlib.util
import math
import os

from swift.callbacks import TrainerCallback, callbacks_map


def _load_hooks():
    path = os.path.join(os.getcwd(), "train_hooks.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("train_hooks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class TeamHooks(TrainerCallback):

    def __init__(self, args, trainer):
        super().__init__(args, trainer)
        self.hooks = _load_hooks()
        self.rank = int(os.environ.get("RANK", "0"))

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if self.hooks is not None and hasattr(self.hooks, "on_step"):
            self.hooks.on_step(self.rank, state.global_step, model)

    def on_save(self, args, state, control, **kwargs):
        if self.hooks is not None and hasattr(self.hooks, "on_save"):
            self.hooks.on_save(self.rank, state.global_step, args.output_dir)


class NanGuard(TrainerCallback):

    def on_log(self, args, state, control, logs=None, **kwargs):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            raise RuntimeError(f"nan_guard: non-finite loss {loss} at step {state.global_step}; stopping the run")


callbacks_map["team_hooks"] = TeamHooks
callbacks_map["nan_guard"] = NanGuard
