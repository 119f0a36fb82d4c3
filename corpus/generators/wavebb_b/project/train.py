"""Bike-share station demand forecaster (rentals per station per hour), data parallel over JAX processes on CPU.

One process per process_id (see launch.sh); jax.distributed connects them through the coordinator, gloo does the
cross-process collectives. Global batch sharded over the 'data' axis of a 1-D mesh of all processes' devices.
"""
import argparse
import csv
import functools
import logging
import math
import os
import sys
import time

import numpy as np

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--coordinator", default="127.0.0.1:29950")
ap.add_argument("--num-processes", type=int, default=2)
ap.add_argument("--process-id", type=int, default=0)
ap.add_argument("--init-timeout", type=int, default=300, help="jax.distributed initialization_timeout (s)")
ap.add_argument("--heartbeat-timeout", type=int, default=100, help="jax.distributed heartbeat_timeout_seconds")
ap.add_argument("--data", default="data/demand.csv")
ap.add_argument("--stations", default="data/stations.csv")
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--batch-size", type=int, default=128, help="global batch (all processes)")
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--step-delay", type=float, default=0.0, help="seconds to sleep after each step (throttle)")
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--cache-copies", type=int, default=0, help="augmented copies of the train set kept on device")
ap.add_argument("--station-weights", action="store_true", help="weight the loss by inverse station frequency")
ap.add_argument("--debug-nans", action="store_true")
ap.add_argument("--ema-decay", type=float, default=0.0, help="keep an EMA of the weights for eval (0: off)")
args = ap.parse_args()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
import orbax.checkpoint as ocp  # noqa: E402
from flax import linen as nn  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_cpu_collectives_implementation", "gloo")
if args.debug_nans:
    jax.config.update("jax_debug_nans", True)

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s proc{args.process_id} %(levelname)s %(message)s", datefmt="%H:%M:%S",
                    force=True)
logging.getLogger("absl").setLevel(logging.WARNING)  # orbax's per-save INFO chatter
log = logging.getLogger("bikes")

jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.num_processes,
                           process_id=args.process_id, initialization_timeout=args.init_timeout,
                           heartbeat_timeout_seconds=args.heartbeat_timeout)
PID, NPROC = jax.process_index(), jax.process_count()
log.info("jax %s: process %d/%d, %d global devices %s", jax.__version__, PID, NPROC, jax.device_count(),
         [d.id for d in jax.devices()])
mesh = Mesh(np.array(jax.devices()), ("data",))
DATA = NamedSharding(mesh, P("data"))
REPL = NamedSharding(mesh, P())


# ---- data --------------------------------------------------------------------------------------------------------
def load_network(path):
    with open(path) as f:
        return {r["station"]: r["overflows_to"] for r in csv.DictReader(f)}


NET = load_network(args.stations)
sys.setrecursionlimit(1_000_000)


@functools.lru_cache(maxsize=None)
def hub_of(station):  # where a full station's riders end up: follow the overflow chain to its end
    nxt = NET.get(station, "")
    return station if not nxt else hub_of(nxt)


def load_rows(path):
    rows, dropped = [], 0
    with open(path) as f:
        for i, r in enumerate(csv.DictReader(f)):
            try:
                rentals = float(r["rentals_1h"])
            except ValueError as e:
                if PID == 0:
                    log.error("row %d (%s hour %s): %s, dropped", i, r["station"], r["hour"], e)
                dropped += 1
                continue
            rows.append((r["station"], int(r["hour"]), float(r["docks"]), float(r["bikes_avail"]),
                         float(r["temp_c"]), float(r["rain_mm"]), int(r["dow"]), int(r["holiday"]), rentals))
    return rows, dropped


rows, dropped = load_rows(args.data)
stations = sorted({r[0] for r in rows})
hubs = sorted({hub_of(s) for s in stations})
sidx = {s: i for i, s in enumerate(stations)}
hidx = {h: i for i, h in enumerate(hubs)}


def featurize(rows):
    n = len(rows)
    x = np.zeros((n, 8 + 7 + len(stations) + len(hubs)), np.float32)
    y = np.zeros((n,), np.float32)
    st = np.zeros((n,), np.int32)
    for i, (s, hour, docks, bikes, temp, rain, dow, hol, rent) in enumerate(rows):
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = np.float32(bikes) / np.float32(docks)  # dock fill ratio
        x[i, :8] = [math.sin(2 * math.pi * hour / 24), math.cos(2 * math.pi * hour / 24), docks / 25, fill,
                    temp / 20, rain / 5, hol, 1.0]
        x[i, 8 + dow] = 1
        x[i, 15 + sidx[s]] = 1
        x[i, 15 + len(stations) + hidx[hub_of(s)]] = 1
        y[i] = rent / 10
        st[i] = sidx[s]
    return x, y, st


rng = np.random.default_rng(0)
order = rng.permutation(len(rows))
n_val = len(rows) // 10
val_rows = [rows[i] for i in order[:n_val]]
train_rows = [rows[i] for i in order[n_val:]]
# this process's share (like a DistributedSampler): every NPROC-th row
xtr, ytr, sttr = featurize(train_rows[PID::NPROC])
xva, yva, _ = featurize(val_rows[PID::NPROC])
n_local = min(len(train_rows) // NPROC, len(xtr))
xtr, ytr, sttr = xtr[:n_local], ytr[:n_local], sttr[:n_local]
nv = len(val_rows) // NPROC
xva, yva = xva[:nv], yva[:nv]
log.info("%d train rows (%d on this process), %d val rows, %d stations, %d features, %d rows dropped",
         len(train_rows), n_local, len(val_rows), len(stations), xtr.shape[1], dropped)

w_local = np.ones_like(ytr)
if args.station_weights:
    counts = np.bincount(sttr).astype(np.float32)  # rows per station on this process
    counts = multihost_utils.process_allgather(counts).sum(0)
    w_local = (counts.mean() / counts)[sttr].astype(np.float32)
    log.info("station weights from %d stations", len(counts))

if args.cache_copies:
    # jittered copies of the train set kept on device, for augmentation
    base = jnp.asarray(xtr)
    cache = [base + 0.01 * jax.random.normal(jax.random.key(k), base.shape) for k in range(args.cache_copies)]
    log.info("augmentation cache: %d copies, %.1f MB", len(cache), sum(c.nbytes for c in cache) / 2**20)


# ---- model -------------------------------------------------------------------------------------------------------
class DemandMLP(nn.Module):
    hidden: int

    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(self.hidden)(x))
        x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(1)(x)[:, 0]


model = DemandMLP(args.hidden)
local_bs = args.batch_size // NPROC
steps_per_epoch = n_local // local_bs
tx = optax.chain(optax.clip_by_global_norm(1.0),
                 optax.adamw(optax.warmup_cosine_decay_schedule(0.0, args.lr, 20, steps_per_epoch * args.epochs)))
params = model.init(jax.random.key(42), jnp.zeros((1, xtr.shape[1])))
params = jax.device_put(params, REPL)
opt_state = jax.device_put(tx.init(params), REPL)


@functools.partial(jax.jit, donate_argnums=(0, 1))
def train_step(params, opt_state, x, y, w):
    def loss_fn(p):
        return jnp.mean(w * (model.apply(p, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


@jax.jit
def eval_step(params, x, y):
    return jnp.mean(jnp.abs(model.apply(params, x) - y)) * 10


def global_batch(local, *rest):
    return jax.make_array_from_process_local_data(DATA, local, (args.batch_size,) + local.shape[1:])


# ---- checkpoints -------------------------------------------------------------------------------------------------
ckpt_dir = os.path.abspath(args.ckpt_dir)
mngr = ocp.CheckpointManager(ckpt_dir, options=ocp.CheckpointManagerOptions(max_to_keep=2))
start_step = 0
if args.resume and mngr.latest_step() is not None:
    start_step = mngr.latest_step()
    abstract = {"params": params, "opt_state": opt_state}
    restored = mngr.restore(start_step, args=ocp.args.StandardRestore(abstract))
    params, opt_state = restored["params"], restored["opt_state"]
    log.info("resumed from %s/%d (epoch %d, step %d)", ckpt_dir, start_step, start_step // steps_per_epoch, start_step)


def save(step):
    mngr.save(step, args=ocp.args.StandardSave({"params": params, "opt_state": opt_state}), force=True)
    mngr.wait_until_finished()
    log.info("saved checkpoint %s/%d", ckpt_dir, step)


# ---- train -------------------------------------------------------------------------------------------------------
xva_g = jax.make_array_from_process_local_data(DATA, xva, (nv * NPROC,) + xva.shape[1:])
yva_g = jax.make_array_from_process_local_data(DATA, yva, (nv * NPROC,))
step = start_step
ema = params if args.ema_decay else None
for epoch in range(start_step // steps_per_epoch + 1, args.epochs + 1):
    perm = np.random.default_rng(epoch).permutation(n_local)
    t0 = time.time()
    for b in range(step - (epoch - 1) * steps_per_epoch, steps_per_epoch):
        if multihost_utils.reached_preemption_sync_point(step):  # SIGTERM on any process: save, then stop
            save(step)
            log.warning("preemption notice at step %d (epoch %d): checkpoint saved, exiting", step, epoch)
            sys.exit(0)
        idx = perm[b * local_bs:(b + 1) * local_bs]
        params, opt_state, loss = train_step(params, opt_state, global_batch(xtr[idx]),
                                             global_batch(ytr[idx]), global_batch(w_local[idx]))
        step += 1
        if ema is not None:
            ema = jax.tree_map(lambda e, p: args.ema_decay * e + (1 - args.ema_decay) * p, ema, params)
        if step % args.log_every == 0:
            lv = float(loss)
            log.info("epoch %d step %d loss %.4f", epoch, step, lv)
            if not math.isfinite(lv):
                raise FloatingPointError(f"loss is {lv} at epoch {epoch} step {step}")
        if args.step_delay:
            time.sleep(args.step_delay)
    mae = float(eval_step(ema if ema is not None else params, xva_g, yva_g))
    log.info("epoch %d done in %.1fs: val MAE %.3f rentals/h", epoch, time.time() - t0, mae)
    save(step)
    multihost_utils.sync_global_devices(f"epoch{epoch}")

log.info("finished %d epochs", args.epochs)
jax.distributed.shutdown()
