"""vibration-anomaly: a small Keras 3 classifier for pump vibration windows (normal / bearing wear / cavitation /
misalignment), trained data-parallel over several hosts with keras.distribution on the JAX backend.

    python train_sensor.py --coordinator tpu-sim-a:29770 --num-processes 2 --process-id K [--epochs N ...]
"""
from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import numpy as np  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--coordinator", required=True)
ap.add_argument("--num-processes", type=int, required=True)
ap.add_argument("--process-id", type=int, required=True)
ap.add_argument("--epochs", type=int, default=6)
ap.add_argument("--steps-per-epoch", type=int, default=50)
ap.add_argument("--global-batch", type=int, default=64)
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--width", type=int, default=64)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--init-timeout", type=int, default=60)
ap.add_argument("--log-every", type=int, default=10)
args = ap.parse_args()

host = socket.gethostname()
logging.basicConfig(format=f"%(asctime)s [{host} p{args.process_id}] %(levelname)s %(name)s: %(message)s",
                    level=logging.INFO, stream=sys.stdout)
log = logging.getLogger("vibration_anomaly")

jax.config.update("jax_cpu_collectives_implementation", "gloo")
log.info("jax %s, jaxlib %s; coordinator %s, process %d of %d", jax.__version__, jax.lib.__version__,
         args.coordinator, args.process_id, args.num_processes)
jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.num_processes,
                           process_id=args.process_id, initialization_timeout=args.init_timeout)

import keras  # noqa: E402

sys.path.insert(0, os.getcwd())
try:
    import site_hooks  # noqa: E402  (per-site instrumentation, optional)
except ImportError:
    site_hooks = None

keras.utils.set_random_seed(1234)
devices = keras.distribution.list_devices()
log.info("keras %s backend %s; %d global devices, %d local: %s", keras.__version__, keras.backend.backend(),
         len(devices), jax.local_device_count(), devices)
mesh = keras.distribution.DeviceMesh(shape=(len(devices),), axis_names=["batch"], devices=devices)
keras.distribution.set_distribution(keras.distribution.DataParallel(device_mesh=mesh, auto_shard_dataset=False))

# ---- data: 1.6 s windows of a 3-axis accelerometer at 80 Hz, summarised into 48 spectral features ----
CLASSES = ["normal", "bearing_wear", "cavitation", "misalignment"]
N_FEAT = 48


def make_split(n: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, len(CLASSES), n)
    base = rng.normal(0, 1, (n, N_FEAT)).astype("float32")
    bands = np.stack([np.roll(np.hanning(N_FEAT), 9 * k) for k in range(len(CLASSES))]).astype("float32")
    x = base * 1.0 + bands[y] * 0.45
    return x, y.astype("int32")


per_proc = args.global_batch // args.num_processes
n_train = per_proc * args.steps_per_epoch
x_all, y_all = make_split(n_train * args.num_processes, seed=7)
x_train = x_all[args.process_id::args.num_processes]
y_train = y_all[args.process_id::args.num_processes]
x_val, y_val = make_split(512 // args.num_processes * args.num_processes, seed=11)
x_val, y_val = x_val[args.process_id::args.num_processes], y_val[args.process_id::args.num_processes]
log.info("train shard %s (%d windows/process, %d per step, global batch %d), val shard %s", x_train.shape,
         n_train, per_proc, args.global_batch, x_val.shape)


def build(width: int) -> keras.Model:
    inp = keras.Input((N_FEAT,), name="spectrum")
    h = keras.layers.Dense(width, activation="gelu", name="proj")(inp)
    h = keras.layers.LayerNormalization(name="norm1")(h)
    h = keras.layers.Dense(width, activation="gelu", name="mlp1")(h)
    h = keras.layers.Dropout(0.1)(h)
    h = keras.layers.Dense(width // 2, activation="gelu", name="mlp2")(h)
    out = keras.layers.Dense(len(CLASSES), name="logits")(h)
    return keras.Model(inp, out, name="vibration_mlp")


width = args.width
if site_hooks and hasattr(site_hooks, "width"):
    width = site_hooks.width(args.process_id, width)
model = build(width)
model.compile(optimizer=keras.optimizers.AdamW(learning_rate=args.lr, weight_decay=1e-4),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["sparse_categorical_accuracy"])
if args.process_id == 0:
    model.summary(print_fn=lambda s, **kw: print(s))


class StepLogger(keras.callbacks.Callback):
    """Logs loss/throughput every few steps (what the team watches in the console)."""

    def __init__(self, every: int):
        super().__init__()
        self.every, self.step, self.t0 = every, 0, time.time()

    def on_train_batch_end(self, batch, logs=None):
        self.step += 1
        if site_hooks and hasattr(site_hooks, "on_step"):
            site_hooks.on_step(args.process_id, self.step, logs)
        if self.step % self.every == 0:
            dt = time.time() - self.t0
            self.t0 = time.time()
            log.info("step %d loss %.4f acc %.3f (%.1f windows/s)", self.step, logs["loss"],
                     logs["sparse_categorical_accuracy"], self.every * args.global_batch / max(dt, 1e-6))


os.makedirs(args.ckpt_dir, exist_ok=True)
ckpt = os.path.join(args.ckpt_dir, host)  # every host writes its own copy (keras saves on every process)
callbacks = [StepLogger(args.log_every), keras.callbacks.TerminateOnNaN(),
             keras.callbacks.BackupAndRestore(backup_dir=f"backup/{host}"),
             keras.callbacks.ModelCheckpoint(os.path.join(ckpt, "vibration-e{epoch:02d}.weights.h5"),
                                             save_weights_only=True, verbose=1 if args.process_id == 0 else 0),
             keras.callbacks.CSVLogger(f"train_log.{host}.csv", append=True)]
log.info("starting fit: %d epochs x %d steps, lr %g", args.epochs, args.steps_per_epoch, args.lr)
hist = model.fit(x_train, y_train, batch_size=per_proc, epochs=args.epochs, validation_data=(x_val, y_val),
                 callbacks=callbacks, verbose=2, shuffle=True)
if not hist.history:
    log.info("nothing to train")
else:
    log.info("training complete: final loss %.4f, val accuracy %.3f", hist.history["loss"][-1],
             hist.history["val_sparse_categorical_accuracy"][-1])
jax.distributed.shutdown()
