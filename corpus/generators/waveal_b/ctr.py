"""Multi-worker click-through-rate model on TensorFlow: hashed categorical features into one embedding table, log
counts as dense features, a DCN-style cross network beside an MLP, binary cross entropy, validation AUC aggregated
over all workers; the chief writes checkpoints (tf.train.CheckpointManager) and a SavedModel at the end.

Workers are separate processes; the cluster comes from TF_CONFIG, or, under Open MPI's mpirun, is built from the OMPI
environment (one worker per rank on --mpi-host, ports --port-base + rank).

    TF_CONFIG='{"cluster": {"worker": [...]}, "task": {"type": "worker", "index": 0}}' python ctr.py --loop fit
    mpirun -np 2 python ctr.py --loop ctl --port-base 29620
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import time

N_DENSE, N_CAT = 13, 26


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--loop", choices=("fit", "ctl"), default="fit", help="Keras model.fit or a custom training loop")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--global-batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hash-buckets", type=int, default=2000, help="hash buckets per categorical feature")
    ap.add_argument("--emb-dim", type=int, default=8)
    ap.add_argument("--cross-layers", type=int, default=2)
    ap.add_argument("--mlp", default="64,32")
    ap.add_argument("--dense-transform", choices=("log1p", "none"), default="log1p")
    ap.add_argument("--categorical", choices=("hash", "vocab"), default="hash",
                    help="hash: hashed buckets; vocab: a StringLookup vocabulary per feature, adapted on the training data")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--keep", type=int, default=3, help="checkpoints to keep")
    ap.add_argument("--backup-dir", default="", help="fit: tf.keras.callbacks.BackupAndRestore directory")
    ap.add_argument("--export-dir", default="export", help="SavedModel written by the chief at the end")
    ap.add_argument("--export-best", action="store_true", help="also export a SavedModel whenever val AUC improves")
    ap.add_argument("--metrics-json", default="", help="ctl: the chief writes the per-epoch metrics here")
    ap.add_argument("--preemption-handler", action="store_true",
                    help="ctl: checkpoint on SIGTERM with tf.distribute.experimental.PreemptionCheckpointHandler")
    ap.add_argument("--tf-log-level", choices=("WARN", "INFO"), default="WARN", help="TensorFlow's Python logger level")
    ap.add_argument("--allreduce-timeout", type=float, default=0, help="seconds; 0: no timeout")
    ap.add_argument("--register-timeout", type=float, default=0,
                    help="seconds the coordination service waits for every worker to connect; 0: TensorFlow's default")
    ap.add_argument("--port-base", type=int, default=29620, help="mpirun: worker ports")
    ap.add_argument("--mpi-host", default="localhost")
    return ap.parse_args()


def tf_config_from_mpi(a: argparse.Namespace) -> None:
    """Under mpirun there is no TF_CONFIG: build it from the Open MPI rank and size."""
    if "TF_CONFIG" in os.environ or "OMPI_COMM_WORLD_RANK" not in os.environ:
        return
    rank, size = int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"])
    workers = [f"{a.mpi_host}:{a.port_base + r}" for r in range(size)]
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": rank}})


def main() -> None:
    a = parse_args()
    tf_config_from_mpi(a)
    cfg = json.loads(os.environ.get("TF_CONFIG", "{}"))
    task = cfg.get("task", {"type": "worker", "index": 0})
    widx = int(task["index"])
    tag = f"[worker {widx}]"

    def log(*x) -> None:
        print(tag, *x, flush=True)

    import numpy as np
    import tensorflow as tf

    keras = tf.keras
    tf.get_logger().setLevel(a.tf_log_level)
    log(f"tensorflow {tf.__version__}, tf.keras is {keras.__name__}, numpy {np.__version__}")
    log("args:", " ".join(f"{k}={v}" for k, v in vars(a).items()))
    log("cluster:", json.dumps(cfg.get("cluster", {})))

    comm = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING,
        timeout_seconds=a.allreduce_timeout or None)
    if a.register_timeout:
        from tensorflow.python.eager import context
        from tensorflow.compiler.xla.tsl.protobuf import coordination_config_pb2
        workers = cfg["cluster"]["worker"]
        context.context().configure_coordination_service(
            service_type="standalone", service_leader="/job:worker/replica:0/task:0",
            coordinated_jobs=[coordination_config_pb2.CoordinatedJob(name="worker", num_tasks=len(workers))],
            cluster_register_timeout_in_ms=int(a.register_timeout * 1000))
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
    resolver = strategy.cluster_resolver
    n_workers = len(cfg.get("cluster", {}).get("worker", [1]))
    is_chief = widx == 0
    log(f"MultiWorkerMirroredStrategy: {strategy.num_replicas_in_sync} replicas in sync, {n_workers} workers, "
        f"chief={is_chief}")

    train_files = sorted(glob.glob(os.path.join(a.data, "train", "*.tsv")))
    val_files = sorted(glob.glob(os.path.join(a.data, "val", "*.tsv")))
    my_train = train_files[widx::n_workers]
    my_val = val_files[widx::n_workers]
    log(f"training shards {[os.path.basename(f) for f in my_train]}, validation shards "
        f"{[os.path.basename(f) for f in my_val]}")
    defaults = [[0.0]] * (1 + N_DENSE) + [[""]] * N_CAT

    lookups = None
    if a.categorical == "vocab":
        lookups = []
        raw = tf.data.TextLineDataset(my_train).batch(1024).map(
            lambda l: tf.io.decode_csv(l, defaults, field_delim="\t", na_value="")[1 + N_DENSE:])
        for k in range(N_CAT):
            lk = keras.layers.StringLookup(num_oov_indices=1, name=f"C{k + 1}_lookup")
            lk.adapt(raw.map(lambda *c, k=k: c[k]))
            lookups.append(lk)
        sizes = [lk.vocabulary_size() for lk in lookups]
        log(f"categorical vocabularies adapted: sizes {sizes[:6]}... total {sum(sizes)}")

    def features(lines):
        cols = tf.io.decode_csv(lines, defaults, field_delim="\t", na_value="")
        label = tf.expand_dims(cols[0], -1)
        dense = tf.stack(cols[1:1 + N_DENSE], axis=1)
        if a.dense_transform == "log1p":
            dense = tf.math.log1p(dense)
        if lookups is None:
            cat = tf.stack([tf.strings.to_hash_bucket_fast(cols[1 + N_DENSE + k], a.hash_buckets) + k * a.hash_buckets
                            for k in range(N_CAT)], axis=1)
        else:
            offs = np.cumsum([0] + [lk.vocabulary_size() for lk in lookups])
            cat = tf.stack([lookups[k](cols[1 + N_DENSE + k]) + int(offs[k]) for k in range(N_CAT)], axis=1)
        return {"dense": dense, "cat": cat}, label

    table_rows = (N_CAT * a.hash_buckets if lookups is None else sum(lk.vocabulary_size() for lk in lookups))

    class Cross(keras.layers.Layer):
        """DCN cross layer: x_{l+1} = x0 * (W x_l + b) + x_l."""

        def build(self, shape):
            self.w = self.add_weight(name="w", shape=(shape[-1], shape[-1]), initializer="glorot_uniform")
            self.b = self.add_weight(name="b", shape=(shape[-1],), initializer="zeros")

        def call(self, x0, xl):
            return x0 * (tf.matmul(xl, self.w) + self.b) + xl

    def build_model():
        dense_in = keras.Input((N_DENSE,), name="dense")
        cat_in = keras.Input((N_CAT,), dtype="int64", name="cat")
        emb = keras.layers.Embedding(table_rows, a.emb_dim, name="embedding")(cat_in)
        x0 = keras.layers.Concatenate()([keras.layers.BatchNormalization()(dense_in),
                                         keras.layers.Flatten()(emb)])
        xl = x0
        for i in range(a.cross_layers):
            xl = Cross(name=f"cross_{i}")(x0, xl)
        deep = x0
        for units in [int(u) for u in a.mlp.split(",") if u]:
            deep = keras.layers.Dense(units, activation="relu", name=f"mlp_{units}")(deep)
        logit = keras.layers.Dense(1, name="logit")(keras.layers.Concatenate()([xl, deep]))
        return keras.Model({"dense": dense_in, "cat": cat_in}, logit, name="dcn_ctr")

    def write_dir(path: str) -> str:
        # every worker must take part in saving; non-chief workers write to a private temporary directory
        return path if is_chief else os.path.join(path, f"worker_tmp_{widx}")

    def drop_tmp(path: str) -> None:
        if not is_chief:
            shutil.rmtree(path, ignore_errors=True)

    def export(model, where: str) -> None:
        d = write_dir(where)
        model.save(d, save_format="tf")
        drop_tmp(d)
        if is_chief:
            log(f"exported SavedModel to {where}")

    with strategy.scope():
        model = build_model()
        optimizer = keras.optimizers.Adam(a.lr)
    if is_chief:
        log(f"model {model.name}: {model.count_params()} parameters, embedding table {table_rows} x {a.emb_dim}")

    config = {k: getattr(a, k) for k in ("hash_buckets", "emb_dim", "cross_layers", "mlp", "categorical")}
    cfg_file = os.path.join(a.ckpt_dir, "config.json")
    if is_chief and os.path.exists(cfg_file) and json.load(open(cfg_file)) != config:
        old = json.load(open(cfg_file))
        diff = ", ".join(f"{k} {old.get(k)} -> {v}" for k, v in config.items() if old.get(k) != v)
        answer = input(f"{tag} {a.ckpt_dir}/ holds checkpoints of another model configuration ({diff}). "
                       "Delete them and start from scratch? [y/N] ")
        if answer.strip().lower() != "y":
            log("keeping the old checkpoints; exiting")
            return 2
        shutil.rmtree(a.ckpt_dir)
    if is_chief:
        os.makedirs(a.ckpt_dir, exist_ok=True)
        with open(cfg_file, "w") as f:
            json.dump(config, f)

    if a.loop == "fit":
        run_fit(a, tf, keras, np, strategy, model, optimizer, features, my_train, train_files, val_files, log, is_chief,
                write_dir, drop_tmp, export)
    else:
        run_ctl(a, tf, keras, np, strategy, resolver, model, optimizer, features, n_workers, widx, log, is_chief,
                write_dir, drop_tmp, export, train_files, val_files)


def run_fit(a, tf, keras, np, strategy, model, optimizer, features, my_train, train_files, val_files, log, is_chief,
            write_dir, drop_tmp, export):
    opts = tf.data.Options()
    opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.FILE
    train = (tf.data.TextLineDataset(train_files).shuffle(4096, seed=1).batch(a.global_batch)
             .map(features, num_parallel_calls=2).prefetch(2).with_options(opts))
    val = (tf.data.TextLineDataset(val_files).batch(a.global_batch).map(features).with_options(opts))
    with strategy.scope():
        model.compile(optimizer=optimizer, loss=keras.losses.BinaryCrossentropy(from_logits=True),
                      metrics=[keras.metrics.AUC(from_logits=True, name="auc")])
        ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, write_dir(a.ckpt_dir), max_to_keep=a.keep)

    class Progress(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.epoch, self.t0 = epoch + 1, time.time()

        def on_train_batch_end(self, batch, logs=None):
            if (batch + 1) % a.log_every == 0:
                log(f"epoch {self.epoch} step {batch + 1} loss {logs['loss']:.4f}")

        def on_epoch_end(self, epoch, logs=None):
            log(f"eval epoch {epoch + 1}: loss {logs['loss']:.4f} val_loss {logs.get('val_loss', float('nan')):.4f} "
                f"val_auc {logs.get('val_auc', float('nan')):.4f} ({time.time() - self.t0:.1f} s)")
            path = manager.save(checkpoint_number=epoch + 1)
            if is_chief:
                log(f"saved checkpoint {path}")

    cbs = [Progress(), keras.callbacks.TerminateOnNaN()]
    if a.backup_dir:
        cbs.insert(0, keras.callbacks.BackupAndRestore(a.backup_dir))
    model.fit(train, validation_data=val, epochs=a.epochs, callbacks=cbs, verbose=2)
    drop_tmp(write_dir(a.ckpt_dir))
    export(model, os.path.join(a.export_dir, "ctr_model"))
    log(f"done: {a.epochs} epochs")


def run_ctl(a, tf, keras, np, strategy, resolver, model, optimizer, features, n_workers, widx, log, is_chief,
            write_dir, drop_tmp, export, train_files, val_files):
    def dataset_fn(files, shuffle):
        def fn(ctx):
            per_replica = ctx.get_per_replica_batch_size(a.global_batch)
            mine = files[ctx.input_pipeline_id::ctx.num_input_pipelines]
            ds = tf.data.TextLineDataset(mine)
            if shuffle:
                ds = ds.shuffle(4096, seed=ctx.input_pipeline_id)
            return ds.batch(per_replica).map(features, num_parallel_calls=2).prefetch(2)
        return fn

    train = strategy.distribute_datasets_from_function(dataset_fn(train_files, True))
    val = strategy.distribute_datasets_from_function(dataset_fn(val_files, False))
    with strategy.scope():
        bce = keras.losses.BinaryCrossentropy(from_logits=True, reduction=keras.losses.Reduction.NONE)
        auc = keras.metrics.AUC(from_logits=True, name="val_auc")
        val_loss = keras.metrics.Mean(name="val_loss")
        ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, write_dir(a.ckpt_dir), max_to_keep=a.keep)
    start = 0
    latest = tf.train.latest_checkpoint(a.ckpt_dir)  # the chief's checkpoints, on the shared filesystem
    if latest:
        ckpt.restore(latest)
        start = int(ckpt.epoch.numpy())
        log(f"restored {latest} (epoch {start})")

    def step_fn(inputs):
        x, y = inputs
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.nn.compute_average_loss(bce(y, logits), global_batch_size=a.global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def train_step(inputs):
        per_replica = strategy.run(step_fn, args=(inputs,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    @tf.function
    def eval_step(inputs):
        def fn(inputs):
            x, y = inputs
            logits = model(x, training=False)
            val_loss.update_state(bce(y, logits))
            auc.update_state(y, logits)
        strategy.run(fn, args=(inputs,))

    handler = None
    if a.preemption_handler:
        handler = tf.distribute.experimental.PreemptionCheckpointHandler(resolver, manager)
        log("preemption handler installed (checkpoint on SIGTERM)")

    history = []
    best = 0.0
    for epoch in range(start + 1, a.epochs + 1):
        t0 = time.time()
        step, total = 0, 0.0
        for batch in train:
            loss = handler.run(train_step, batch) if handler else train_step(batch)
            step += 1
            total += float(loss)
            if not np.isfinite(float(loss)):
                log(f"epoch {epoch} step {step}: loss is {float(loss)}, stopping")
                raise SystemExit(3)
            if step % a.log_every == 0:
                log(f"epoch {epoch} step {step} loss {float(loss):.4f}")
        auc.reset_state()
        val_loss.reset_state()
        for batch in val:
            eval_step(batch)
        m = {"epoch": epoch, "loss": total / max(step, 1), "val_loss": val_loss.result().numpy(),
             "val_auc": auc.result().numpy()}
        log(f"eval epoch {epoch}: loss {m['loss']:.4f} val_loss {m['val_loss']:.4f} val_auc {m['val_auc']:.4f} "
            f"({step} steps, {time.time() - t0:.1f} s)")
        history.append(m)
        ckpt.epoch.assign(epoch)
        path = manager.save(checkpoint_number=epoch)
        if is_chief:
            log(f"saved checkpoint {path}")
        if a.metrics_json and is_chief:
            with open(a.metrics_json, "w") as f:
                json.dump({"history": history}, f, indent=1)
        if a.export_best and m["val_auc"] > best:
            best = m["val_auc"]
            if is_chief:
                model.save(os.path.join(a.export_dir, "best"), save_format="tf")
                log(f"new best val_auc {best:.4f}: exported {a.export_dir}/best")
    drop_tmp(write_dir(a.ckpt_dir))
    export(model, os.path.join(a.export_dir, "ctr_model"))
    log(f"done: {a.epochs} epochs")


if __name__ == "__main__":
    sys.exit(main())
