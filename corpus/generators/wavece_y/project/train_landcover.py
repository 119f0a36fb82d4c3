"""Team land-cover chip classifier: TorchGeo's ClassificationTask (a small timm backbone built from its config, no
pretrained weights) over 4-band GeoTIFF chips, fed by a TorchGeo NonGeoDataModule, trained by Lightning's Trainer with
a multi-node DDP strategy over gloo on CPU (one process per torchrun rank). The chips are synthetic: rank 0 writes
them with rasterio under --data if missing. Optional team hooks: train_hooks.py with on_batch(rank, epoch, batch_idx,
trainer, module) and/or on_val_batch(...) are called after every training/validation batch through a Lightning
Callback."""
import argparse
import datetime
import glob
import importlib.util
import os
import time
from pathlib import Path

import numpy as np
import torch

# The wheel index only has the CUDA build of torchvision; its _C.so cannot load on the CPU nodes, and its fake-kernel
# registrations for nms/qnms then fail at import. Declare the two op schemas so torchvision imports (no ops used).
_tv = torch.library.Library("torchvision", "DEF")
_tv.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
_tv.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")

import lightning
import rasterio
import torchgeo
from lightning.pytorch import Trainer, seed_everything
from lightning.pytorch.callbacks import Callback, EarlyStopping, ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger
from lightning.pytorch.strategies import DDPStrategy
from rasterio.transform import from_origin
from torchgeo.datamodules import NonGeoDataModule
from torchgeo.datasets import NonGeoDataset
from torchgeo.trainers import ClassificationTask

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/chips-v1")
p.add_argument("--out", default="out-lc")
p.add_argument("--n-train", type=int, default=768)
p.add_argument("--chip", type=int, default=32)
p.add_argument("--bands", type=int, default=4)
p.add_argument("--in-channels", type=int, default=0)
p.add_argument("--classes", type=int, default=5)
p.add_argument("--model", default="mobilenetv3_small_050")
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--batch-size", type=int, default=16)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--workers", type=int, default=0)
p.add_argument("--nodes", type=int, default=2)
p.add_argument("--devices", type=int, default=2)
p.add_argument("--pg-timeout", type=int, default=1800)
p.add_argument("--resume", default="")
p.add_argument("--seed", type=int, default=7)
p.add_argument("--stop-on-nan", action="store_true")
p.add_argument("--precision", default="32-true")
a = p.parse_args()

rank = int(os.environ.get("RANK", 0))
host = os.uname().nodename
print(f"[rank {rank}] {host}: torchgeo {torchgeo.__version__}, lightning {lightning.__version__}, torch "
      f"{torch.__version__}, rasterio {rasterio.__version__}", flush=True)

MEANS = np.array([[40, 60, 50, 120], [90, 80, 60, 40], [150, 140, 130, 110], [60, 110, 70, 200],
                  [200, 190, 170, 60], [30, 30, 90, 20]], dtype=np.float32)


def write_chips(root: Path) -> None:
    tmp = root.with_name(root.name + f".tmp{os.getpid()}")
    rng = np.random.default_rng(0)
    for split, n in (("train", a.n_train), ("val", a.n_train // 4), ("test", a.n_train // 4)):
        (tmp / split).mkdir(parents=True)
        for i in range(n):
            c = int(rng.integers(a.classes))
            img = rng.normal(MEANS[c % len(MEANS), :a.bands, None, None], 25, (a.bands, a.chip, a.chip))
            img = np.clip(img, 0, 255).astype(np.uint8)
            with rasterio.open(tmp / split / f"chip_{i:05d}_c{c}.tif", "w", driver="GTiff", width=a.chip,
                               height=a.chip, count=a.bands, dtype="uint8", crs="EPSG:32633",
                               transform=from_origin(500000 + 320 * i, 5200000, 10, 10)) as dst:
                dst.write(img)
    os.rename(tmp, root)


class Chips(NonGeoDataset):
    """Land-cover chips: one GeoTIFF per chip, the class in the file name."""

    def __init__(self, root="data", split="train", transforms=None):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.tif")))
        if not self.files:
            raise FileNotFoundError(f"no chips under {root}/{split}")
        self.transforms = transforms

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with rasterio.open(self.files[i]) as src:
            img = torch.from_numpy(src.read().astype(np.float32))
        sample = {"image": img, "label": torch.tensor(int(self.files[i][-5]))}
        return self.transforms(sample) if self.transforms else sample


data = Path(a.data)
if rank == 0 and not data.exists():
    write_chips(data)
    print(f"[rank 0] wrote synthetic GeoTIFF chips to {data}", flush=True)
for _ in range(600):
    if data.exists():
        break
    time.sleep(0.2)

seed_everything(a.seed, workers=True)
dm = NonGeoDataModule(Chips, batch_size=a.batch_size, num_workers=a.workers, root=str(data))
task = ClassificationTask(model=a.model, weights=None, in_channels=a.in_channels or a.bands, num_classes=a.classes,
                          lr=a.lr, patience=5)

callbacks = [ModelCheckpoint(dirpath=os.path.join(a.out, "checkpoints"), filename="lc-{epoch:02d}",
                             save_top_k=-1, save_last=True, every_n_epochs=1)]
if a.stop_on_nan:  # the team's guard: stop when the epoch's training loss is not finite
    callbacks.append(EarlyStopping(monitor="train_loss", check_finite=True, patience=1000, verbose=True,
                                   check_on_train_epoch_end=True))


class Progress(Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if batch_idx % 4 == 0:
            loss = outputs["loss"].item() if isinstance(outputs, dict) else float(outputs)
            print(f"[rank {trainer.global_rank}] epoch {trainer.current_epoch} step {trainer.global_step} "
                  f"batch {batch_idx} loss {loss:.4f}", flush=True)

    def on_validation_epoch_end(self, trainer, module):
        if trainer.global_rank == 0 and not trainer.sanity_checking:
            m = {k: round(float(v), 4) for k, v in trainer.callback_metrics.items()}
            print(f"[rank 0] epoch {trainer.current_epoch} metrics {m}", flush=True)


callbacks.append(Progress())
if os.path.exists("train_hooks.py"):
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    class Hooks(Callback):
        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
            if hasattr(hooks, "on_batch"):
                hooks.on_batch(trainer.global_rank, trainer.current_epoch, batch_idx, trainer, module)

        def on_validation_batch_end(self, trainer, module, outputs, batch, batch_idx, dataloader_idx=0):
            if hasattr(hooks, "on_val_batch") and not trainer.sanity_checking:
                hooks.on_val_batch(trainer.global_rank, trainer.current_epoch, batch_idx, trainer, module)

    callbacks.append(Hooks())

trainer = Trainer(accelerator="cpu", devices=a.devices, num_nodes=a.nodes, max_epochs=a.epochs,
                  strategy=DDPStrategy(process_group_backend="gloo", timeout=datetime.timedelta(seconds=a.pg_timeout)),
                  logger=CSVLogger(a.out, name="logs"), callbacks=callbacks, log_every_n_steps=4,
                  enable_progress_bar=False, precision=a.precision, deterministic=True)
trainer.fit(task, datamodule=dm, ckpt_path=a.resume or None)
res = trainer.test(task, datamodule=dm)
if trainer.global_rank == 0:
    print(f"training done: test={res} checkpoints={sorted(os.listdir(os.path.join(a.out, 'checkpoints')))}",
          flush=True)
