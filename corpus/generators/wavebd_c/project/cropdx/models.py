import torch
import torch.nn as nn
import torch.nn.functional as F
from mmengine.model import BaseModel
from mmengine.registry import MODELS


@MODELS.register_module()
class CropNet(BaseModel):
    """A small conv net: leaf patch (3x32x32 reflectance) -> disease class."""

    def __init__(self, num_classes=5, width=32, depth=2, data_preprocessor=None, init_cfg=None):
        super().__init__(data_preprocessor=data_preprocessor, init_cfg=init_cfg)
        layers, c = [], 3
        for i in range(depth):
            layers += [nn.Conv2d(c, width * 2 ** i, 3, padding=1), nn.BatchNorm2d(width * 2 ** i), nn.ReLU(inplace=True),
                       nn.MaxPool2d(2)]
            c = width * 2 ** i
        self.backbone = nn.Sequential(*layers)
        self.head = nn.Linear(c, num_classes)

    def forward(self, inputs, data_samples=None, mode="tensor"):
        x = torch.stack(inputs) if isinstance(inputs, (list, tuple)) else inputs
        logits = self.head(self.backbone(x).mean((2, 3)))
        if mode == "tensor":
            return logits
        labels = torch.as_tensor(data_samples["gt_label"])  # default_collate: a dict of batched fields
        if mode == "loss":
            return dict(loss_cls=F.cross_entropy(logits, labels))
        if mode == "predict":
            return [dict(pred=int(p), gt=int(g), field_id=f)
                    for p, g, f in zip(logits.argmax(1), labels, data_samples["field_id"])]
        raise ValueError(f"unknown mode {mode}")
