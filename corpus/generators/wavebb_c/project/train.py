"""Hourly footfall forecaster for the retail analytics team: a small Keras MLP over the store-counter export,
trained with tf.distribute.MultiWorkerMirroredStrategy (one worker per host, TF_CONFIG set by launch.sh)."""
import argparse
import functools
import json
import os
import sys
import time

import numpy as np
import pandas as pd

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # Keras 2 (tf_keras): what MultiWorkerMirroredStrategy's guide uses
import tensorflow as tf  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/footfall.csv")
ap.add_argument("--regions", default="data/regions.csv")
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--batch-size", type=int, default=64, help="global batch size")
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--units", type=int, default=64)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--backup-dir", default="backup", help="BackupAndRestore directory (resume after an interruption)")
ap.add_argument("--collective-timeout", type=float, default=0, help="seconds; 0 = no timeout")
ap.add_argument("--step-delay", type=float, default=0.0, help="seconds to sleep after every step")
ap.add_argument("--log-every", type=int, default=20)
ap.add_argument("--cache-copies", type=int, default=0, help="augmented copies of the training set kept in memory")
a = ap.parse_args()

tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
task = tf_config.get("task", {}).get("index", 0)
print(f"[worker{task}] {time.strftime('%H:%M:%S')} TF {tf.__version__}, TF_CONFIG cluster "
      f"{tf_config.get('cluster')}", flush=True)

comm = tf.distribute.experimental.CommunicationOptions(
    implementation=tf.distribute.experimental.CommunicationImplementation.RING,
    timeout_seconds=a.collective_timeout or None)
strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
nw = strategy.num_replicas_in_sync
print(f"[worker{task}] {time.strftime('%H:%M:%S')} replicas in sync: {nw}", flush=True)

# --- data -------------------------------------------------------------------------------------------------
sys.setrecursionlimit(1_000_000)
parents = dict(pd.read_csv(a.regions, keep_default_na=False).itertuples(index=False))


@functools.lru_cache(maxsize=None)
def root_region(node):
    p = parents[node]
    return node if not p else root_region(p)


df = pd.read_csv(a.data)
bad = pd.to_numeric(df["footfall"], errors="coerce").isna()
for i in np.flatnonzero(bad.values):
    print(f"[worker{task}] {time.strftime('%H:%M:%S')} ERROR row {i} ({df.store.iat[i]} day {df.day.iat[i]} "
          f"hour {df.hour.iat[i]}): footfall {df.footfall.iat[i]!r} is not a number, dropped", flush=True)
df = df[~bad].copy()
df["footfall"] = df["footfall"].astype(float)
# each worker reads its own part of the export (rows task, task+nw, ...)
df = df.iloc[task::nw].copy()
df["region"] = [root_region(s) for s in df["store"]]
df = pd.get_dummies(df, columns=["store"], dtype=float)
val = df[df.day >= 49]
trn = df[df.day < 49]
num = ["hour", "dow", "temp_c", "rain_mm", "promo", "footfall_lag7"]
store_cols = sorted(c for c in df.columns if c.startswith("store_"))
cols = num + store_cols


def xy(d):
    x = d[cols].to_numpy(np.float32)
    x[:, :len(num)] = (x[:, :len(num)] - mu) / sd
    return x, (d["footfall"].to_numpy(np.float32) / 100.0)


mu = trn[num].to_numpy(np.float32).mean(0)
sd = trn[num].to_numpy(np.float32).std(0) + 1e-6
xt, yt = xy(trn)
xv, yv = xy(val)
if a.cache_copies:
    print(f"[worker{task}] {time.strftime('%H:%M:%S')} caching {a.cache_copies} augmented copies of {len(xt)} rows",
          flush=True)
    cache = [xt + np.random.normal(0, 0.01, xt.shape).astype(np.float32) for _ in range(a.cache_copies)]
    xt = np.concatenate([xt] + cache)
    yt = np.tile(yt, a.cache_copies + 1)
print(f"[worker{task}] {time.strftime('%H:%M:%S')} {len(xt)} train rows, {len(xv)} val rows, {len(cols)} features",
      flush=True)

per_worker = a.batch_size // nw  # the strategy splits each global batch over the replicas
opts = tf.data.Options()
opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF  # sharded above
steps = len(xt) // per_worker
train_ds = tf.data.Dataset.from_tensor_slices((xt, yt)).shuffle(4096, seed=1).repeat().batch(a.batch_size).with_options(opts)
val_ds = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(a.batch_size).with_options(opts)
train_ds = train_ds.prefetch(2)

with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(len(cols),)),
        tf.keras.layers.Dense(a.units, activation="relu"),
        tf.keras.layers.Dense(a.units, activation="relu"),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(a.lr), loss="mse", metrics=["mae"])


class StepLog(tf.keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch + 1

    def on_train_batch_end(self, batch, logs=None):
        if a.step_delay:
            time.sleep(a.step_delay)
        if (batch + 1) % a.log_every == 0:
            print(f"[worker{task}] {time.strftime('%H:%M:%S')} epoch {self.epoch} step {batch + 1}/{steps} "
                  f"loss {logs['loss']:.4f} mae {logs['mae']:.4f}", flush=True)


# Keras' callbacks are multi-worker aware: the chief writes the checkpoint, other workers a temporary copy
callbacks = [
    tf.keras.callbacks.BackupAndRestore(backup_dir=a.backup_dir),
    tf.keras.callbacks.ModelCheckpoint(os.path.join(a.ckpt_dir, "footfall-epoch{epoch:02d}.h5"),
                                       save_weights_only=True),
    tf.keras.callbacks.TerminateOnNaN(),
    StepLog(),
]
hist = model.fit(train_ds, validation_data=val_ds, epochs=a.epochs, steps_per_epoch=steps, callbacks=callbacks,
                 verbose=2)
print(f"[worker{task}] {time.strftime('%H:%M:%S')} finished {len(hist.history.get('loss', []))} epochs this run, "
      f"last val_mae {hist.history.get('val_mae', [float('nan')])[-1] if hist.history.get('val_mae') else 'n/a'}",
      flush=True)
