"""Data-parallel training of a pen-stroke digit classifier with MLX (mx.distributed: ring or MPI backend).

Each rank reads its own shards (data/train-NN.npz, every size-th file), computes gradients on its batches and
averages them with mx.distributed.all_sum; validation accuracy is summed across ranks; rank 0 saves the weights
with mx.save_safetensors."""
import argparse
import ctypes
import faulthandler
import glob
import math
import os
import sys
import time

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_flatten, tree_map


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=32, help="per rank")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--model", choices=("mlp", "conv"), default="mlp")
    ap.add_argument("--raster", type=int, default=28, help="image side when --model conv renders the strokes")
    ap.add_argument("--backend", default="any")
    ap.add_argument("--weights-dir", default="weights")
    ap.add_argument("--save-every", type=int, default=1, help="epochs between checkpoints (0: final weights only)")
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--resume", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smooth", type=int, default=0, help="moving-average window (points) of the C smoother, 0: off")
    ap.add_argument("--overwrite", action="store_true", help="replace existing weights without asking")
    return ap.parse_args()


def load(files, rank):
    xs, ys = [], []
    for f in files:
        d = np.load(f)
        xs.append(d["strokes"])
        ys.append(d["labels"])
    return np.concatenate(xs), np.concatenate(ys)


_lib = None


def smooth(x, w):
    """Tremor removal with the C helper (libsmooth.so, built from smooth.c)."""
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(os.path.abspath("libsmooth.so"))
        _lib.smooth_f32.restype = ctypes.POINTER(ctypes.c_float)
        _lib.smooth_f32.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        _lib.smooth_f64.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    x = np.ascontiguousarray(x)
    fn, ct = (_lib.smooth_f64, ctypes.c_double) if x.dtype == np.float64 else (_lib.smooth_f32, ctypes.c_float)
    p = fn(x.ctypes.data, x.shape[0], x.shape[1], w)
    out = np.ctypeslib.as_array(ctypes.cast(p, ctypes.POINTER(ct)), shape=x.shape).copy()
    _lib.smooth_free(p)
    return out


def normalise(x):
    # centre each sample on its pen trajectory and scale to unit height
    xy = x[:, :, :2]
    xy = (xy - xy.mean(axis=1, keepdims=True)) / (xy[:, :, 1].std(axis=1)[:, None, None] + 1e-3)
    return np.concatenate([xy, x[:, :, 2:]], axis=2).astype(np.float32)


def render(x, side):
    # draw the pen trajectory into a side x side image, blurred by a 3x3 box
    img = np.zeros((len(x), side, side), dtype=np.float32)
    lo, hi = x[:, :, :2].min(axis=1, keepdims=True), x[:, :, :2].max(axis=1, keepdims=True)
    uv = ((x[:, :, :2] - lo) / (hi - lo + 1e-6) * (side - 1)).astype(np.int64)
    idx = np.arange(len(x))[:, None]
    img[idx, uv[:, :, 1], uv[:, :, 0]] = 1.0
    out = img.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            out += np.roll(np.roll(img, dy, 1), dx, 2)
    return (out / out.max(axis=(1, 2), keepdims=True))[..., None]


class MLP(nn.Module):
    def __init__(self, d_in, hidden, classes=10):
        super().__init__()
        self.l1 = nn.Linear(d_in, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, classes)

    def __call__(self, x):
        x = x.reshape(x.shape[0], -1)
        return self.out(nn.relu(self.l2(nn.relu(self.l1(x)))))


class Conv(nn.Module):
    def __init__(self, side, hidden, classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, hidden)
        self.out = nn.Linear(hidden, classes)

    def __call__(self, x):
        x = nn.relu(self.c2(nn.relu(self.c1(x))))
        return self.out(nn.relu(self.fc(x.mean(axis=(1, 2)))))


def main():
    faulthandler.enable()
    a = parse()
    group = mx.distributed.init(backend=a.backend)
    rank, size = group.rank(), group.size()
    mx.random.seed(a.seed)
    say = lambda *m: print(f"[rank {rank}]", *m, flush=True)
    if rank == 0:
        say(f"mlx {mx.__version__}, world size {size}, args {vars(a)}")
    final = os.path.join(a.weights_dir, "model.safetensors")
    if rank == 0 and os.path.exists(final) and not a.overwrite:
        if input(f"{final} exists, overwrite? [y/N] ").strip().lower() != "y":
            say("not overwriting, exiting")
            sys.exit(1)
    train_files = sorted(glob.glob(os.path.join(a.data, "train-*.npz")))[rank::size]
    val_files = sorted(glob.glob(os.path.join(a.data, "val-*.npz")))[rank::size]
    xtr, ytr = load(train_files, rank)
    xva, yva = load(val_files, rank)
    say(f"shards {[os.path.basename(f) for f in train_files]}: {len(xtr)} train, {len(xva)} val, "
        f"strokes {xtr.shape[1]} points")
    if a.smooth:
        xtr, xva = smooth(xtr, a.smooth), smooth(xva, a.smooth)
        say(f"smoothed strokes (window {a.smooth})")
    xtr, xva = normalise(xtr), normalise(xva)
    if a.model == "conv":
        t0 = time.time()
        xtr, xva = render(xtr, a.raster), render(xva, a.raster)
        say(f"rendered {len(xtr) + len(xva)} images {a.raster}x{a.raster} in {time.time() - t0:.1f}s")
        model = Conv(a.raster, a.hidden)
    else:
        model = MLP(xtr.shape[1] * xtr.shape[2], a.hidden)
    if a.resume:
        model.load_weights(a.resume)
        say(f"resumed from {a.resume}")
    # every rank starts from rank 0's weights
    model.update(tree_map(lambda p: mx.distributed.all_sum(p if rank == 0 else mx.zeros_like(p)), model.parameters()))
    mx.eval(model.parameters())
    n_params = sum(v.size for _, v in tree_flatten(model.parameters()))
    if rank == 0:
        say(f"model {a.model}: {n_params} parameters")
    opt = optim.SGD(learning_rate=a.lr, momentum=a.momentum)

    def loss_fn(m, x, y):
        return nn.losses.cross_entropy(m(x), y, reduction="mean")

    loss_and_grad = nn.value_and_grad(model, loss_fn)

    def step(x, y):
        loss, grads = loss_and_grad(model, x, y)
        grads = tree_map(lambda g: mx.distributed.all_sum(g) / size, grads)
        opt.update(model, grads)
        return mx.distributed.all_sum(loss) / size

    os.makedirs(a.weights_dir, exist_ok=True) if rank == 0 else None
    steps = len(xtr) // a.batch_size
    rng = np.random.default_rng(a.seed + rank)
    for epoch in range(1, a.epochs + 1):
        t0 = time.time()
        perm = rng.permutation(len(xtr))
        for s in range(steps):
            b = perm[s * a.batch_size:(s + 1) * a.batch_size]
            loss = step(mx.array(xtr[b]), mx.array(ytr[b]))
            mx.eval(loss, model.parameters(), opt.state)
            if (s + 1) % a.log_every == 0 and rank == 0:
                say(f"epoch {epoch} step {s + 1}/{steps} loss {loss.item():.4f}")
        correct = total = 0
        for s in range(0, len(xva), 256):
            logits = model(mx.array(xva[s:s + 256]))
            correct += (mx.argmax(logits, axis=1) == mx.array(yva[s:s + 256])).sum()
            total += len(yva[s:s + 256])
        stats = mx.distributed.all_sum(mx.array([correct.item(), total], dtype=mx.float32))
        acc = (stats[0] / stats[1]).item()
        if rank == 0:
            say(f"epoch {epoch} done in {time.time() - t0:.1f}s: val_acc {acc:.4f} ({int(stats[1].item())} samples)")
            if a.save_every and epoch % a.save_every == 0:
                path = os.path.join(a.weights_dir, f"epoch-{epoch:02d}.safetensors")
                mx.save_safetensors(path, dict(tree_flatten(model.parameters())))
                say(f"saved checkpoint {path}")
    if rank == 0:
        path = final
        mx.save_safetensors(path, dict(tree_flatten(model.parameters())))
        say(f"saved weights {path}")
    say("done")


if __name__ == "__main__":
    main()
