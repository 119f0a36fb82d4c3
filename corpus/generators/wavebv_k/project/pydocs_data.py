"""The team's data module: LitGPT's TextFiles over data/pydocs, with an optional per-batch audit hook.

If a ``batch_hooks.py`` sits next to the job (the team drops one in to audit batches), every training batch is
passed to ``batch_hooks.on_batch(rank, n, batch)`` from the DataLoader's collate function, before it reaches
LitGPT's training loop. Without that file the batches are exactly TextFiles'."""
import importlib.util
import os
from dataclasses import dataclass

from torch.utils.data import default_collate

from litgpt.data import TextFiles


class _HookedCollate:
    def __init__(self) -> None:
        self.n = 0
        self.hooks = None
        if importlib.util.find_spec("batch_hooks") is not None:
            import batch_hooks

            self.hooks = batch_hooks

    def __call__(self, items):
        batch = default_collate(items)
        self.n += 1
        if self.hooks is not None:
            self.hooks.on_batch(int(os.environ.get("RANK", "0")), self.n, batch)
        return batch


@dataclass
class PyDocsFiles(TextFiles):
    def train_dataloader(self):
        from litdata.streaming import StreamingDataLoader, StreamingDataset, TokensLoader

        train_dataset = StreamingDataset(
            input_dir=str(self.out_path_train),
            item_loader=TokensLoader(block_size=self.max_seq_length),
            shuffle=True,
        )
        return StreamingDataLoader(
            train_dataset, batch_size=self.batch_size, pin_memory=True, num_workers=self.num_workers, drop_last=True,
            collate_fn=_HookedCollate(),
        )
