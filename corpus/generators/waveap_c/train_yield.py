"""Crop-yield regression from multispectral field patches, data-parallel with MindSpore on CPU.

Launch with msrun (``msrun --worker_num=2 --local_worker_num=2 --master_port=P train_yield.py ...``) or by the dynamic
cluster's environment variables (MS_ROLE=MS_SCHED / MS_WORKER, MS_WORKER_NUM, MS_SCHED_HOST, MS_SCHED_PORT). Each rank
reads its own regions, a mindspore.dataset pipeline computes NDVI and normalises in a map op, Model.train runs the
CNN with gradients all-reduced (ParallelMode.DATA_PARALLEL), a callback reports validation RMSE all-reduced across
ranks after each epoch, and rank 0 keeps checkpoints with ModelCheckpoint.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import time
import urllib.request

import numpy as np
import mindspore as ms
import mindspore.dataset as ds
from mindspore import Tensor, nn, ops
from mindspore.communication import get_group_size, get_rank, init
from mindspore.train import Callback, CheckpointConfig, LossMonitor, Model, ModelCheckpoint, TimeMonitor

CROP_IDS = {"maize": 0, "wheat": 1, "soy": 2}
W_MEAN = np.array([360.0, 1650.0, 29.0, 20.0], np.float32)
W_STD = np.array([150.0, 180.0, 3.0, 2.5], np.float32)
B_MEAN, B_STD = 0.15, 0.1


def load_region(path: str, mmap: bool):
    if os.path.isdir(path):
        m = "r" if mmap else None
        return tuple(np.load(os.path.join(path, k + ".npy"), mmap_mode=m if k == "patches" else None)
                     for k in ("patches", "weather", "crop", "yield_t_ha"))
    z = np.load(path)
    return z["patches"], z["weather"], z["crop"], z["yield_t_ha"]


class Fields:
    """Random-access source over this rank's regions."""

    def __init__(self, paths: list[str], mmap: bool = False, adjust: dict | None = None, upsample: int = 1) -> None:
        self.parts = [load_region(p, mmap) for p in paths]
        if upsample > 1:  # nearest-neighbour onto the finer grid, once, in memory
            self.parts = [(np.kron(p.astype(np.float64), np.ones((1, 1, upsample, upsample))).astype(np.float32), w, c, y)
                          for p, w, c, y in self.parts]
        self.index = [(k, i) for k, part in enumerate(self.parts) for i in range(len(part[3]))]
        self.adjust = adjust or {}

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, j: int):
        k, i = self.index[j]
        p, w, c, y = self.parts[k]
        w = w[i] * np.array(self.adjust.get(k, [1.0, 1.0, 1.0, 1.0]), np.float32)
        return np.asarray(p[i], np.float32), w.astype(np.float32), np.array(str(c[i])), np.array([y[i]], np.float32)


def prepare(patch, weather, crop, y):
    """Map op: reflectance bands + NDVI, normalised; weather normalised + crop one-hot."""
    red, nir = patch[2], patch[3]
    ndvi = (nir - red) / (nir + red)
    x = np.concatenate([(patch - B_MEAN) / B_STD, ndvi[None]], 0).astype(np.float32)
    c = crop.item() if hasattr(crop, "item") else crop
    c = c.decode() if isinstance(c, bytes) else str(c)
    onehot = np.zeros(len(CROP_IDS), np.float32)
    onehot[CROP_IDS[c]] = 1.0
    w = np.concatenate([(weather - W_MEAN) / W_STD, onehot]).astype(np.float32)
    return x, w, y


def log_yield(y):
    return np.log(y).astype(np.float32)


def flip(x, w, y):
    if np.random.rand() < 0.5:
        x = x[:, :, ::-1].copy()
    return x, w, y


class YieldNet(nn.Cell):
    def __init__(self, in_ch: int, patch: int, n_w: int, width: int) -> None:
        super().__init__()
        self.features = nn.SequentialCell([
            nn.Conv2d(in_ch, width, 3, pad_mode="same"), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(width, 2 * width, 3, pad_mode="same"), nn.ReLU(), nn.MaxPool2d(2, 2)])
        self.flatten = nn.Flatten()
        self.img_fc = nn.Dense(2 * width * (patch // 4) ** 2, 64)
        self.w_fc = nn.Dense(n_w, 16)
        self.head = nn.Dense(80, 1)
        self.relu = nn.ReLU()

    def construct(self, x, w):
        h = self.relu(self.img_fc(self.flatten(self.features(x))))
        g = self.relu(self.w_fc(w))
        return self.head(ops.cat((h, g), 1))


class WithLoss(nn.Cell):
    def __init__(self, net: nn.Cell) -> None:
        super().__init__(auto_prefix=False)
        self.net = net
        self.loss = nn.MSELoss()

    def construct(self, x, w, y):
        return self.loss(self.net(x, w), y)


class ValRMSE(Callback):
    """Validation RMSE after each epoch, squared errors and counts all-reduced across ranks."""

    def __init__(self, net: nn.Cell, val: ds.Dataset, rank: int) -> None:
        super().__init__()
        self.net, self.val, self.rank = net, val, rank
        self.allreduce = ops.AllReduce()

    def on_train_epoch_end(self, run_context) -> None:
        epoch = run_context.original_args().cur_epoch_num
        self.net.set_train(False)
        sse, n = 0.0, 0
        for x, w, y in self.val.create_tuple_iterator():
            p = self.net(x, w)
            sse += float(((p - y) ** 2).sum().asnumpy())
            n += y.shape[0]
        self.net.set_train(True)
        tot = self.allreduce(Tensor(np.array([sse, n], np.float32))).asnumpy()
        rmse = math.sqrt(tot[0] / max(tot[1], 1))
        print(f"[rank {self.rank}] epoch {epoch} validation RMSE {rmse:.3f} t/ha over {int(tot[1])} fields", flush=True)


def fetch_weather_adjustments(api: str, regions: list[str], cache: str) -> dict:
    """Season-forecast scaling of the weather covariates per region (cached; fetched from the agronomy service)."""
    out = {}
    for k, r in enumerate(regions):
        f = os.path.join(cache, r + ".json")
        if not os.path.exists(f):
            print(f"fetching weather adjustments for {r} from {api}", flush=True)
            with urllib.request.urlopen(f"{api}/adjustments/{r}") as resp:
                body = resp.read()
            os.makedirs(cache, exist_ok=True)
            with open(f, "wb") as fh:
                fh.write(body)
        with open(f) as fh:
            out[k] = json.load(fh)["scale"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--patch", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2, help="num_parallel_workers of the map op")
    ap.add_argument("--loader-workers", type=int, default=1, help="num_parallel_workers of the GeneratorDataset")
    ap.add_argument("--max-rowsize", type=int, default=0, help="MB of shared memory per row for loader workers")
    ap.add_argument("--mp", action="store_true", help="python_multiprocessing for the map op")
    ap.add_argument("--augment", action="store_true")
    ap.add_argument("--log-target", action="store_true", help="train on log(yield)")
    ap.add_argument("--upsample", type=int, default=1, help="resample patches onto a finer grid (x factor)")
    ap.add_argument("--mmap", action="store_true", help="memory-map the patch arrays (npy regions)")
    ap.add_argument("--weather-api", default="")
    ap.add_argument("--weather-cache", default="weather-cache")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--keep-ckpt", type=int, default=3)
    ap.add_argument("--ckpt-every", type=int, default=0, help="steps between checkpoints (0: once per epoch)")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--resume", default="")
    a = ap.parse_args()

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(1234)
    if rank == 0:
        print(f"[rank 0] args: {vars(a)}", flush=True)
        print(f"[rank 0] world size {size}, mindspore {ms.__version__}", flush=True)

    def pick(split: str) -> list[str]:
        allr = sorted(glob.glob(os.path.join(a.data, split, "region-*")))
        return allr[rank::size]

    train_paths, val_paths = pick("train"), pick("val")
    names = [os.path.basename(p).split(".")[0] for p in train_paths]
    adjust = fetch_weather_adjustments(a.weather_api, names, a.weather_cache) if a.weather_api else None
    src = Fields(train_paths, mmap=a.mmap, adjust=adjust, upsample=a.upsample)
    vsrc = Fields(val_paths, upsample=a.upsample)
    bands = src.parts[0][0].shape[1]
    print(f"[rank {rank}] regions {','.join(names)}: {len(src)} train / {len(vsrc)} val fields, {bands} bands",
          flush=True)

    cols = ["patch", "weather", "crop", "yield"]

    def pipeline(source, shuffle: bool, augment: bool) -> ds.Dataset:
        kw = {"max_rowsize": a.max_rowsize} if a.max_rowsize else {}
        d = ds.GeneratorDataset(source, column_names=cols, shuffle=shuffle, num_parallel_workers=a.loader_workers, **kw)
        d = d.map(operations=prepare, input_columns=cols, output_columns=["x", "w", "y"],
                  num_parallel_workers=a.workers, python_multiprocessing=a.mp)
        if a.log_target:  # regress log yield (relative errors)
            d = d.map(operations=log_yield, input_columns=["y"])
        if augment:
            d = d.map(operations=flip, input_columns=["x", "w", "y"], num_parallel_workers=a.workers,
                      python_multiprocessing=a.mp)
        return d.batch(a.batch_size, drop_remainder=shuffle)

    train = pipeline(src, True, a.augment)
    val = pipeline(vsrc, False, False)
    steps = train.get_dataset_size()

    net = YieldNet(bands + 1, a.patch, len(W_MEAN) + len(CROP_IDS), a.width)
    if a.resume:
        params = ms.load_checkpoint(a.resume)
        not_loaded, _ = ms.load_param_into_net(net, params)
        print(f"[rank {rank}] resumed from {a.resume} ({len(params)} tensors, not loaded: {not_loaded})", flush=True)
    opt = nn.Adam(net.trainable_params(), learning_rate=a.lr)
    model = Model(WithLoss(net), optimizer=opt)
    cbs = [LossMonitor(a.log_every), ValRMSE(net, val, rank)]
    if rank == 0:
        cbs.append(TimeMonitor(steps))
        cfg = CheckpointConfig(save_checkpoint_steps=a.ckpt_every or steps, keep_checkpoint_max=a.keep_ckpt)
        cbs.append(ModelCheckpoint(prefix="yieldnet", directory=a.ckpt_dir, config=cfg))
    print(f"[rank {rank}] training {a.epochs} epochs x {steps} steps, batch {a.batch_size} per rank", flush=True)
    t0 = time.time()
    model.train(a.epochs, train, callbacks=cbs, dataset_sink_mode=False)
    print(f"[rank {rank}] finished in {time.time() - t0:.1f}s", flush=True)
    if rank == 0:
        print(f"[rank 0] checkpoints: {sorted(os.listdir(a.ckpt_dir))}", flush=True)


if __name__ == "__main__":
    main()
