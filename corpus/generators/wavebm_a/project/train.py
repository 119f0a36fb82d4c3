"""Data-parallel MLP regression with JAX multi-process on CPU."""
import argparse
import ctypes
import glob
import logging
import os
import re
import time
import warnings

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--coordinator", required=True)
ap.add_argument("--num-processes", type=int, required=True)
ap.add_argument("--process-id", type=int, required=True)
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-every", type=int, default=50)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--init-timeout", type=int, default=40)
ap.add_argument("--native-copy", action="store_true")
ap.add_argument("--eval-every", type=int, default=0)
a = ap.parse_args()

logging.basicConfig(level=logging.INFO,
                    format=f"%(asctime)s [p{a.process_id}] %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402

log.info("jax %s, optax %s, initializing distributed runtime (coordinator %s, %d processes)",
         jax.__version__, optax.__version__, a.coordinator, a.num_processes)
jax.distributed.initialize(coordinator_address=a.coordinator, num_processes=a.num_processes,
                           process_id=a.process_id, initialization_timeout=a.init_timeout)
pid, nproc = jax.process_index(), jax.process_count()
log.info("process %d/%d up: local devices %s, global devices %d", pid, nproc, jax.local_devices(), jax.device_count())

d = np.load(f"data/shard_{pid}.npz")
X, Y = d["x"], d["y"]
index = np.load(f"data/index_{pid}.npy")
offset = int(np.load(f"data/offset_{pid}.npy")[0])
log.info("loaded shard %d: %d rows x %d features", pid, X.shape[0], X.shape[1])


def native_gather(rows):
    """Copy the selected rows with memmove (avoids a fancy-index temporary)."""
    out = np.empty((len(rows), X.shape[1]), dtype=np.float32)
    base = X.ctypes.data + offset
    stride = X.strides[0]
    for i, r in enumerate(rows):
        ctypes.memmove(out.ctypes.data + i * stride, base + int(r) * stride, stride)
    return out


def batch(step):
    nb = len(index) // a.batch_size
    rows = index[(step % nb) * a.batch_size:(step % nb + 1) * a.batch_size]
    xb = native_gather(rows) if a.native_copy else X[rows]
    return xb, Y[rows]


def init(key):
    sizes = [X.shape[1], *a.hidden, 1]
    params = []
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        k = jax.random.fold_in(key, i)
        params.append({"w": jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), "b": jnp.zeros((n,))})
    return params


def forward(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    return (x @ params[-1]["w"] + params[-1]["b"])[:, 0]


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


grad_fn = jax.jit(jax.value_and_grad(loss_fn))
opt = optax.chain(optax.clip_by_global_norm(10.0), optax.adam(a.lr))


@jax.jit
def apply(params, opt_state, grads):
    updates, opt_state = opt.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params = init(jax.random.PRNGKey(42))
opt_state = opt.init(params)
start = 0
if a.resume:
    ckpts = sorted(glob.glob(os.path.join(a.ckpt_dir, "step_*.npz")))
    if ckpts:
        z = np.load(ckpts[-1])
        leaves, tree = jax.tree_util.tree_flatten(params)
        params = jax.tree_util.tree_unflatten(tree, [jnp.asarray(z[f"p{i}"]) for i in range(len(leaves))])
        start = int(z["step"])
        opt_state = opt.init(params)
        log.info("resumed from %s (step %d); optimizer state re-initialized", ckpts[-1], start)
    else:
        log.warning("--resume given but no checkpoint found in %s; starting from scratch", a.ckpt_dir)

n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
log.info("model: MLP %s, %d parameters, global batch %d, lr %g", a.hidden, n_params, a.batch_size * nproc, a.lr)


def save(step):
    os.makedirs(a.ckpt_dir, exist_ok=True)
    leaves = jax.tree_util.tree_leaves(params)
    path = os.path.join(a.ckpt_dir, f"step_{step:06d}.npz")
    np.savez(path, step=step, **{f"p{i}": np.asarray(v) for i, v in enumerate(leaves)},
             **{f"o{i}": np.asarray(v) for i, v in enumerate(jax.tree_util.tree_leaves(opt_state))})
    log.info("saved checkpoint %s (%.1f MB)", path, os.path.getsize(path) / 1e6)


t0 = time.time()
last = t0
for step in range(start, a.steps):
    xb, yb = batch(step)
    loss, grads = grad_fn(params, xb, yb)
    flat, tree = jax.tree_util.tree_flatten(grads)
    gathered = multihost_utils.process_allgather([np.asarray(g) for g in flat] + [np.asarray(loss)])
    flat = [jnp.mean(g, axis=0) for g in gathered[:-1]]
    gloss = float(np.mean(gathered[-1]))
    params, opt_state = apply(params, opt_state, jax.tree_util.tree_unflatten(tree, flat))
    if (step + 1) % a.log_every == 0 and pid == 0:
        now = time.time()
        sps = a.log_every * a.batch_size * nproc / (now - last)
        last = now
        log.info("step %d/%d loss %.5f (%.0f samples/s)", step + 1, a.steps, gloss, sps)
    if not np.isfinite(gloss):
        raise FloatingPointError(f"loss is {gloss} at step {step + 1}")
    if (step + 1) % a.ckpt_every == 0:
        multihost_utils.sync_global_devices(f"ckpt{step}")
        if pid == 0:
            save(step + 1)
log.info("training finished: %d steps in %.1fs", a.steps - start, time.time() - t0)
multihost_utils.sync_global_devices("done")
jax.distributed.shutdown()
