"""Random 3-D affine augmentation (rotation about the slice axis, isotropic scale) for image/label volume pairs.
Vendored from an older in-house volumetric augmentation package (written against NumPy 1.16)."""
import numpy as np
import torch
import torch.nn.functional as F


class RandomAffine3D:
    def __init__(self, max_rotate=10, max_scale=0.1, seed=0):
        self.max_rotate = np.deg2rad(max_rotate)
        self.max_scale = max_scale
        self.rng = np.random.RandomState(seed)

    def matrix(self):
        t = self.rng.uniform(-self.max_rotate, self.max_rotate)
        s = 1.0 + self.rng.uniform(-self.max_scale, self.max_scale)
        m = np.zeros((3, 4), dtype=np.float)
        m[0, 0] = s
        m[1, 1], m[1, 2] = s * np.cos(t), -s * np.sin(t)
        m[2, 1], m[2, 2] = s * np.sin(t), s * np.cos(t)
        return m

    def __call__(self, vol, seg):
        m = torch.from_numpy(self.matrix().astype(np.float32))[None]
        grid = F.affine_grid(m, (1, 1) + vol.shape, align_corners=False)
        v = F.grid_sample(torch.from_numpy(vol)[None, None], grid, mode="bilinear", align_corners=False)[0, 0]
        s = F.grid_sample(torch.from_numpy(seg.astype(np.float32))[None, None], grid, mode="nearest",
                          align_corners=False)[0, 0]
        return v.numpy(), s.numpy().astype(np.int64)
