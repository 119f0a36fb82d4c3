"""Export the field-scout leaf patches for training (synthetic stand-in for the drone/phone export).

Writes data/leaves/{train,val}_images.npy (N, 3, 32, 32 float32 reflectance), and the OpenMMLab-style annotation
files data/leaves/{train,val}.json ({"metainfo": {"classes": [...]}, "data_list": [{"img_idx", "gt_label",
"field_id"}]}).
"""
import argparse
import json
import os

import numpy as np

CLASSES = ["healthy", "leaf_rust", "powdery_mildew", "septoria_blotch", "tan_spot"]


def patch(rng, label):
    img = 0.35 + 0.05 * rng.standard_normal((3, 32, 32))
    img[1] += 0.25  # green canopy
    if label:
        k = 2 + 2 * label
        for _ in range(k):
            y, x = rng.integers(2, 30, size=2)
            r = 1 + label % 3
            img[0, max(0, y - r):y + r, max(0, x - r):x + r] += 0.1 * label
            img[1, max(0, y - r):y + r, max(0, x - r):x + r] -= 0.08 * (5 - label)
    return img.astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data/leaves")
    ap.add_argument("--train", type=int, default=960)
    ap.add_argument("--val", type=int, default=240)
    ap.add_argument("--missing-tiles", type=int, default=0, help="annotations whose tile never made it to the shard")
    ap.add_argument("--cloud-masked", type=int, default=0, help="tiles whose cloud-masked pixels were exported as NaN")
    ap.add_argument("--late-field", action="store_true", help="the last validation tile comes from a field scouted late")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    for split, n in (("train", a.train), ("val", a.val)):
        labels = rng.integers(0, len(CLASSES), size=n)
        imgs = np.stack([patch(rng, int(l)) for l in labels])
        if split == "train" and a.cloud_masked:
            for i in rng.choice(n, a.cloud_masked, replace=False):
                imgs[i, :, 10:20, 10:20] = np.nan
        np.save(os.path.join(a.out, f"{split}_images.npy"), imgs)
        data_list = [dict(img_idx=i, gt_label=int(l), field_id=f"F{(i * 7) % 23:03d}") for i, l in enumerate(labels)]
        if split == "val" and a.late_field:
            data_list[-1]["field_id"] = "F777"
        if split == "train" and a.missing_tiles:
            for j in range(a.missing_tiles):
                data_list.append(dict(img_idx=n + j, gt_label=1, field_id="F999"))
        with open(os.path.join(a.out, f"{split}.json"), "w") as f:
            json.dump(dict(metainfo=dict(classes=CLASSES), data_list=data_list), f)
    print(f"wrote {a.train} train / {a.val} val tiles to {a.out}")


if __name__ == "__main__":
    main()
