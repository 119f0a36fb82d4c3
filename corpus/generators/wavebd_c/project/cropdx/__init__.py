"""The agronomy team's MMEngine components: leaf-patch dataset, transforms, CropNet model, metric and hooks."""
from .datasets import LeafPatchDataset, LoadLeafPatch, PackLeafInputs  # noqa: F401
from .hooks import CheckInvalidLossHook, FieldPaceHook  # noqa: F401
from .metrics import DiseaseAccuracy  # noqa: F401
from .models import CropNet  # noqa: F401
