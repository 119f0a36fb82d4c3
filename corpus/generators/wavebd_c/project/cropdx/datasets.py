import os.path as osp

import numpy as np
import torch
from mmengine.dataset import BaseDataset
from mmengine.logging import MMLogger, print_log
from mmengine.registry import DATASETS, TRANSFORMS


@DATASETS.register_module()
class LeafPatchDataset(BaseDataset):
    """Leaf patches from the field-scout export: one .npy shard of images, an OpenMMLab-style json of annotations."""

    METAINFO = dict(classes=("healthy", "leaf_rust", "powdery_mildew", "septoria_blotch", "tan_spot"))

    def __init__(self, img_shard, mmap=True, **kwargs):
        self.img_shard = img_shard
        self.mmap = mmap
        super().__init__(**kwargs)

    def load_data_list(self):
        data_list = super().load_data_list()
        shard = osp.join(self.data_root, self.img_shard) if self.data_root else self.img_shard
        self.images = np.load(shard, mmap_mode="r" if self.mmap else None)
        kept = []
        for info in data_list:
            if info["img_idx"] >= len(self.images):
                print_log(f"tile {info['img_idx']} (field {info['field_id']}) is not in {self.img_shard}, skipped",
                          logger="current", level=40)
                continue
            kept.append(info)
        return kept

    def get_data_info(self, idx):
        info = super().get_data_info(idx)
        info["images"] = self.images
        return info


@TRANSFORMS.register_module()
class LoadLeafPatch:
    def __call__(self, results):
        results["img"] = np.array(results.pop("images")[results["img_idx"]], dtype=np.float32)
        return results


@TRANSFORMS.register_module()
class RandomFlipLeaf:
    def __init__(self, prob=0.5):
        self.prob = prob

    def __call__(self, results):
        if np.random.rand() < self.prob:
            results["img"] = results["img"][:, :, ::-1].copy()
        return results


@TRANSFORMS.register_module()
class PackLeafInputs:
    def __call__(self, results):
        return dict(inputs=torch.from_numpy(results["img"]), data_samples=dict(gt_label=int(results["gt_label"]),
                                                                                field_id=results["field_id"]))
