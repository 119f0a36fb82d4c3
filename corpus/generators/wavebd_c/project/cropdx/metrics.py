import torch
import torch.distributed as dist
from mmengine.dist import is_distributed
from mmengine.evaluator import BaseMetric
from mmengine.registry import METRICS


@METRICS.register_module()
class DiseaseAccuracy(BaseMetric):
    """Top-1 accuracy; optionally a per-field hit count the agronomists read (summed over ranks)."""

    default_prefix = "leaf"

    def __init__(self, per_field=False, **kwargs):
        super().__init__(**kwargs)
        self.per_field = per_field

    def process(self, data_batch, data_samples):
        for s in data_samples:
            self.results.append((s["pred"], s["gt"], s["field_id"]))

    def compute_metrics(self, results):
        correct = sum(p == g for p, g, _ in results)
        out = dict(accuracy=100.0 * correct / max(1, len(results)))
        return out

    def evaluate(self, size):
        if self.per_field and is_distributed():
            # fields seen by this rank's share of the validation set, summed across ranks
            fields = sorted({f for _, _, f in self.results})
            hits = torch.tensor([float(sum(p == g for p, g, f2 in self.results if f2 == f)) for f in fields])
            dist.all_reduce(hits)
        return super().evaluate(size)
