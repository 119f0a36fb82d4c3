"""Write the synthetic segmentation set: 40 2D images + masks (monai.data.synthetic.create_test_image_2d) as NIfTI."""
import os

import nibabel as nib
import numpy as np
from monai.data.synthetic import create_test_image_2d

os.makedirs("data", exist_ok=True)
rs = np.random.RandomState(0)
for i in range(40):
    im, seg = create_test_image_2d(64, 64, num_objs=4, rad_max=12, num_seg_classes=1, random_state=rs)
    nib.save(nib.Nifti1Image(im.astype(np.float32), np.eye(4)), f"data/img{i:02d}.nii.gz")
    nib.save(nib.Nifti1Image(seg.astype(np.uint8), np.eye(4)), f"data/seg{i:02d}.nii.gz")
print("wrote 40 image/mask pairs to data/")
