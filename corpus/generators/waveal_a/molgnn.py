"""Message-passing graph neural network for molecular property regression, data-parallel over JAX processes.

Molecules are graphs (atoms = nodes with an element embedding, bonds = directed edges both ways, optional Gaussian
radial-basis features of the bond length from the conformer's 3D coordinates). Each device gets a fixed number of
molecules packed into one padded graph (static shapes: one compilation); messages are summed with
``jax.ops.segment_sum``, atom states are summed per molecule for the readout, and the loss is the MSE on the
standardised property. Gradients are averaged over the ``data`` mesh axis inside ``shard_map``; validation MAE sums
are reduced over all devices of all processes; process 0 writes pickle-free ``.npz`` checkpoints.

Launch: one process per host slot, either with explicit ``--coordinator/--num-processes/--process-id`` or with none of
them under Open MPI's ``mpirun`` (JAX reads the Open MPI environment).
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import signal
import sys
import time
from collections import deque


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coordinator", default=None, help="host:port of process 0's coordination service")
    ap.add_argument("--num-processes", type=int, default=None)
    ap.add_argument("--process-id", type=int, default=None)
    ap.add_argument("--local-devices", type=int, default=1, help="CPU devices per process")
    ap.add_argument("--init-timeout", type=int, default=300)
    ap.add_argument("--data", default="data")
    ap.add_argument("--config", default="", help="JSON file with defaults for the options below")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--global-batch", type=int, default=64)
    ap.add_argument("--micro-batch", type=int, default=0, help="molecules per device per micro step (0: derived)")
    ap.add_argument("--accum-steps", type=int, default=1)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--rbf", type=int, default=0, help="radial basis features of bond lengths, plus 1/r (0: none)")
    ap.add_argument("--edges", choices=["bond", "radius"], default="bond")
    ap.add_argument("--cutoff", type=float, default=4.0)
    ap.add_argument("--drop-hydrogens", action="store_true", help="message passing over heavy atoms only")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--mmap", action="store_true", help="keep shards memory-mapped, read per batch")
    ap.add_argument("--compile-cache", default="", help="persistent XLA compilation cache directory")
    ap.add_argument("--featurize-workers", type=int, default=0)
    ap.add_argument("--eval-on", choices=["all", "main"], default="all")
    ap.add_argument("--atom-budget", type=int, default=0,
                    help="batch molecules by atom count: at most this many atoms per device graph (0: fixed count)")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--keep-epochs", action="store_true", help="also keep every epoch's checkpoint (epoch-NN.npz)")
    ap.add_argument("--resume", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=10)
    a = ap.parse_args()
    if a.config:
        with open(a.config) as f:
            cfg = json.load(f)
        defaults = {k: ap.get_default(k) for k in cfg}
        for k, v in cfg.items():
            if getattr(a, k) == defaults[k]:
                setattr(a, k, v)
    return a


args = parse()
faulthandler.enable()  # native crashes print the Python stack
faulthandler.register(signal.SIGUSR1, all_threads=True)  # kill -USR1 <pid>: dump the stacks of a stuck process
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           f" --xla_force_host_platform_device_count={args.local_devices}").strip()

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_cpu_collectives_implementation", "gloo")
if args.compile_cache:
    jax.config.update("jax_compilation_cache_dir", args.compile_cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

if args.coordinator:
    jax.distributed.initialize(args.coordinator, args.num_processes, args.process_id,
                               initialization_timeout=args.init_timeout)
else:
    jax.distributed.initialize(initialization_timeout=args.init_timeout)
PID, NPROC = jax.process_index(), jax.process_count()
NDEV, LDEV = jax.device_count(), jax.local_device_count()


def log(msg: str) -> None:
    print(f"[p{PID}] {msg}", flush=True)


def main_log(msg: str) -> None:
    if PID == 0:
        print(msg, flush=True)


if PID == 0:
    main_log(f"jax {jax.__version__}, {NPROC} processes x {LDEV} devices = {NDEV} devices ({jax.default_backend()})")
    main_log("args: " + " ".join(f"{k}={v}" for k, v in vars(args).items()))
mesh = jax.make_mesh((NDEV,), ("data",))
REPL = NamedSharding(mesh, P())
DATA = NamedSharding(mesh, P("data"))

# ---------------------------------------------------------------------------------------------------------- data
with open(os.path.join(args.data, "meta.json")) as f:
    META = json.load(f)
VOCAB = {s: i for i, s in enumerate(META["vocab"])}


class Shard:
    """One shard's molecules: element indices, bonds, coordinates, targets, with per-molecule offsets."""

    def __init__(self, path: str, mmap: bool) -> None:
        mode = "r" if mmap else None
        self.path = path
        self.n_atoms = np.load(os.path.join(path, "n_atoms.npy"))
        self.n_bonds = np.load(os.path.join(path, "n_bonds.npy"))
        self.y = np.load(os.path.join(path, "y.npy"))
        self.coords = np.load(os.path.join(path, "coords.npy"), mmap_mode=mode)
        self.bonds = np.load(os.path.join(path, "bonds.npy"), mmap_mode=mode)
        elements = np.load(os.path.join(path, "elements.npy"))
        self.z = featurize(elements)
        self.a_off = np.concatenate([[0], np.cumsum(self.n_atoms)])
        self.b_off = np.concatenate([[0], np.cumsum(self.n_bonds)])
        self.radius = None
        if args.edges == "radius":
            self.radius = radius_graph(self)

    def __len__(self) -> int:
        return len(self.y)

    def mol(self, i: int):
        a0, a1, b0, b1 = self.a_off[i], self.a_off[i + 1], self.b_off[i], self.b_off[i + 1]
        bonds = self.radius[i] if self.radius is not None else np.asarray(self.bonds[b0:b1])
        return self.z[a0:a1], np.asarray(self.coords[a0:a1]), bonds, self.y[i]


def _symbols_to_index(chunk):
    return np.array([VOCAB[s] for s in chunk], np.int32)


def featurize(elements: np.ndarray) -> np.ndarray:
    if args.featurize_workers > 0:
        import multiprocessing as mp
        chunks = np.array_split(elements, args.featurize_workers * 4)
        with mp.Pool(args.featurize_workers) as pool:
            return np.concatenate(pool.map(_symbols_to_index, chunks))
    return _symbols_to_index(elements)


def radius_graph(sh: Shard) -> list:
    """All atom pairs closer than the cutoff, per molecule (vectorised over the whole shard)."""
    xyz = np.asarray(sh.coords, np.float64)
    mol_of = np.repeat(np.arange(len(sh.n_atoms)), sh.n_atoms)
    d = np.sqrt(((xyz[:, None, :] - xyz[None, :, :]) ** 2).sum(-1))
    keep = (d < args.cutoff) & (mol_of[:, None] == mol_of[None, :]) & ~np.eye(len(xyz), dtype=bool)
    src, dst = np.nonzero(keep)
    out = []
    for i in range(len(sh.n_atoms)):
        sel = (mol_of[src] == i) & (src < dst)
        out.append(np.stack([src[sel], dst[sel]], 1).astype(np.int32) - sh.a_off[i])
    return out


def load(split: str) -> list[Shard]:
    shards = sorted(os.listdir(os.path.join(args.data, split)))
    mine = shards[PID::NPROC] if split == "train" else shards
    log(f"{split}: shards {mine}")
    return [Shard(os.path.join(args.data, split, s), args.mmap) for s in mine]


t0 = time.time()
train = load("train")
val = load("val")
train_index = [(s, i) for s, sh in enumerate(train) for i in range(len(sh))]
val_index = [(s, i) for s, sh in enumerate(val) for i in range(len(sh))][PID::NPROC]
n_atoms_max = max(int(sh.n_atoms.max()) for sh in train + val)
n_edges_max = max(max(len(sh.mol(i)[2]) for i in range(len(sh))) for sh in train + val)
log(f"{len(train_index)} training molecules, {len(val_index)} validation molecules, up to {n_atoms_max} atoms, "
    f"loaded in {time.time() - t0:.1f} s")

# global statistics, sizes and the per-step layout agreed by every process
y_local = np.concatenate([sh.y for sh in train])
stats = multihost_utils.process_allgather(np.array([len(y_local), y_local.sum(), (y_local.astype(np.float64) ** 2).sum(),
                                                    n_atoms_max, n_edges_max, len(val_index)], np.float64))
stats = stats.reshape(NPROC, -1)
Y_MEAN = stats[:, 1].sum() / stats[:, 0].sum()
Y_STD = float(np.sqrt(stats[:, 2].sum() / stats[:, 0].sum() - Y_MEAN ** 2))
AMAX, EMAX = int(stats[:, 3].max()), int(stats[:, 4].max())
if args.micro_batch == 0:
    args.micro_batch = args.global_batch // (NDEV * args.accum_steps)
if args.micro_batch * args.accum_steps * NDEV != args.global_batch:
    raise ValueError(f"global_batch ({args.global_batch}) != micro_batch ({args.micro_batch}) x accum_steps "
                     f"({args.accum_steps}) x devices ({NDEV})")
MB = args.micro_batch
A_CAP = (args.atom_budget or MB * AMAX) + 2  # two reserved padding atoms at the end
E_CAP = 2 * MB * EMAX + 1
steps_per_epoch = int(min(stats[:, 0])) // (MB * LDEV * args.accum_steps) * args.accum_steps
main_log(f"target mean {Y_MEAN:.3f} std {Y_STD:.3f}; micro batch {MB}/device, accumulation {args.accum_steps}, global "
         f"batch {args.global_batch}; about {steps_per_epoch} steps/epoch; padded graph {A_CAP} atoms / {E_CAP} edges "
         f"per device")


def pack(mols) -> dict:
    """Pack up to MB molecules into one padded graph."""
    z = np.zeros(A_CAP, np.int32)
    xyz = np.zeros((A_CAP, 3), np.float32)
    xyz[:, 0] = 100.0 + 3.0 * np.arange(A_CAP)  # padding atoms far apart from everything (and each other)
    gid = np.full(A_CAP, MB, np.int32)  # padding atoms belong to a dummy graph
    amask = np.zeros(A_CAP, np.float32)
    src = np.full(E_CAP, A_CAP - 2, np.int32)
    dst = np.full(E_CAP, A_CAP - 1, np.int32)
    y = np.zeros(MB, np.float32)
    gmask = np.zeros(MB, np.float32)
    a = e = 0
    for g, (zz, cc, bb, yy) in enumerate(mols):
        n, m = len(zz), len(bb)
        z[a:a + n], xyz[a:a + n], gid[a:a + n], amask[a:a + n] = zz, cc, g, 1.0
        src[e:e + m], dst[e:e + m] = bb[:, 0] + a, bb[:, 1] + a
        src[e + m:e + 2 * m], dst[e + m:e + 2 * m] = bb[:, 1] + a, bb[:, 0] + a
        y[g], gmask[g] = (yy - Y_MEAN) / Y_STD, 1.0
        a, e = a + n, e + 2 * m
    return dict(z=z, xyz=xyz, gid=gid, amask=amask, src=src, dst=dst, y=y, gmask=gmask)


def budget_groups(shards, index, order):
    """Groups of up to MB molecules with at most --atom-budget atoms in all; a molecule that does not fit in the
    current group waits for a later one."""
    pending = deque(int(k) for k in order)
    while pending:
        group, atoms = [], 0
        while pending and len(group) < MB:
            k = pending[0]
            n = int(shards[index[k][0]].n_atoms[index[k][1]])
            if atoms + n > args.atom_budget:
                if group:
                    break
                pending.rotate(-1)  # try the next molecule first
                continue
            group.append(pending.popleft())
            atoms += n
        yield group


def make_groups(shards, index, rng=None) -> list:
    """This epoch's device batches (lists of molecule indices), fixed-size or by atom budget."""
    order = rng.permutation(len(index)) if rng is not None else np.arange(len(index))
    if args.atom_budget:
        return list(budget_groups(shards, index, order))
    return [order[g * MB:(g + 1) * MB] for g in range(len(order) // MB)]


def agreed_steps(groups) -> int:
    """Every process runs the same number of steps: the smallest number of full steps over all processes."""
    counts = multihost_utils.process_allgather(np.array(len(groups) // LDEV, np.int32))
    return int(np.min(counts))


def batches(shards, index, groups, n_steps):
    it = iter(groups)
    for s in range(n_steps):
        devs = []
        for d in range(LDEV):
            ids = next(it, [])
            devs.append(pack([shards[index[k][0]].mol(index[k][1]) for k in ids]))
        local = {k: np.stack([dv[k] for dv in devs]) for k in devs[0]}
        yield {k: jax.make_array_from_process_local_data(DATA, v) for k, v in local.items()}


# --------------------------------------------------------------------------------------------------------- model
DT = jnp.dtype(args.dtype)


def init_params(key) -> dict:
    H, K = args.hidden, max(args.rbf, 0)
    ks = iter(jax.random.split(key, 4 * args.layers + 4))

    def dense(i, o):
        return {"w": jax.random.normal(next(ks), (i, o), DT) * np.sqrt(2.0 / i), "b": jnp.zeros(o, DT)}

    p = {"embed": jax.random.normal(next(ks), (len(VOCAB), H), DT) * 0.5}
    for layer in range(args.layers):
        p[f"msg{layer}"] = dense(H + K + (K > 0), H)
        p[f"upd{layer}"] = dense(2 * H, H)
    p["read1"], p["read2"] = dense(H, H), dense(H, 1)
    return p


def dense_apply(d, x):
    return x @ d["w"] + d["b"]


def rbf(dist):
    mu = jnp.linspace(0.5, args.cutoff + 1.0, args.rbf)
    return jnp.concatenate([jnp.exp(-4.0 * (dist[:, None] - mu[None, :]) ** 2), 1.0 / dist[:, None]], -1)


def forward(params, b):
    h = params["embed"][b["z"]] * b["amask"][:, None]
    src, dst, amask = b["src"], b["dst"], b["amask"]
    if args.drop_hydrogens:  # message passing over heavy atoms only
        heavy = b["z"] != VOCAB["H"]
        h, amask = h[heavy], amask[heavy]
    feats = []
    if args.rbf:
        dist = jnp.linalg.norm(b["xyz"][src] - b["xyz"][dst], axis=-1)
        feats.append(rbf(dist))
    for layer in range(args.layers):
        m = jax.nn.silu(dense_apply(params[f"msg{layer}"], jnp.concatenate([h[src]] + feats, -1)))
        agg = jax.ops.segment_sum(m, dst, num_segments=h.shape[0])
        h = h + jax.nn.silu(dense_apply(params[f"upd{layer}"], jnp.concatenate([h, agg], -1))) * amask[:, None]
    g = jax.ops.segment_sum(h * amask[:, None], b["gid"], num_segments=MB + 1)[:MB]
    return dense_apply(params["read2"], jax.nn.silu(dense_apply(params["read1"], g)))[:, 0] / 10.0


def loss_fn(params, b):
    err = (forward(params, b) - b["y"]) * b["gmask"]
    return jnp.sum(err ** 2) / jnp.maximum(jnp.sum(b["gmask"]), 1.0)


tx = optax.adamw(optax.warmup_cosine_decay_schedule(0.0, args.lr, 20, max(steps_per_epoch * args.epochs // args.accum_steps, 40)),
                 weight_decay=1e-5)
tx = optax.chain(optax.clip_by_global_norm(5.0), tx)
if args.accum_steps > 1:
    tx = optax.MultiSteps(tx, every_k_schedule=args.accum_steps)


def _squeeze(b):
    return jax.tree.map(lambda x: x[0], b)


def _train_local(params, opt_state, batch):
    loss, grads = jax.value_and_grad(loss_fn)(params, _squeeze(batch))
    grads = jax.lax.pmean(grads, "data")
    loss = jax.lax.pmean(loss, "data")
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def _eval_local(params, batch):
    b = _squeeze(batch)
    err = jnp.abs(forward(params, b) - b["y"]) * b["gmask"]
    return jax.lax.psum(jnp.sum(err), "data"), jax.lax.psum(jnp.sum(b["gmask"]), "data")


train_step = jax.jit(jax.shard_map(_train_local, mesh=mesh, in_specs=(P(), P(), P("data")), out_specs=(P(), P(), P())),
                     donate_argnums=(0, 1))
eval_step = jax.jit(jax.shard_map(_eval_local, mesh=mesh, in_specs=(P(), P("data")), out_specs=(P(), P())))


def replicate(tree):
    return jax.tree.map(lambda x: jax.make_array_from_callback(np.shape(x), REPL, lambda idx, x=x: np.asarray(x)[idx]),
                        tree)


def to_host(tree):
    return jax.tree.map(lambda x: np.asarray(x.addressable_data(0)), tree)


def flatten(tree, prefix=""):
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def unflatten(flat):
    tree: dict = {}
    for k, v in flat.items():
        node = tree
        *parents, leaf = k.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = v
    return tree


def save(params, epoch, mae, name):
    os.makedirs(args.ckpt_dir, exist_ok=True)
    path = os.path.join(args.ckpt_dir, name)
    np.savez(path, epoch=epoch, val_mae=mae, y_mean=Y_MEAN, y_std=Y_STD, **flatten(to_host(params)))
    return path


VAL = {}


def evaluate(params):
    if not VAL:  # built once, at the first evaluation
        groups = make_groups(val, val_index)
        VAL["groups"] = groups
        VAL["steps"] = int(np.max(multihost_utils.process_allgather(np.array(-(-len(groups) // LDEV), np.int32))))
    tot = cnt = 0.0
    for b in batches(val, val_index, VAL["groups"], VAL["steps"]):
        s, c = eval_step(params, b)
        tot, cnt = tot + float(s), cnt + float(c)
    return tot / max(cnt, 1.0) * Y_STD


params = init_params(jax.random.key(args.seed))
start_epoch = 0
if args.resume and os.path.exists(args.resume):
    with np.load(args.resume) as ck:
        params = unflatten({k: ck[k] for k in ck.files if k not in ("epoch", "val_mae", "y_mean", "y_std")})
        start_epoch = int(ck["epoch"])
    main_log(f"resumed from {args.resume}: epoch {start_epoch}")
n_params = sum(int(np.prod(np.shape(x))) for x in jax.tree.leaves(params))
main_log(f"model: {args.layers} message-passing layers, hidden {args.hidden}, rbf {args.rbf}, {n_params} parameters")
opt_state = replicate(jax.tree.map(np.asarray, tx.init(params)))
params = replicate(params)

rng = np.random.default_rng(args.seed + 1000 * PID)
best = float("inf")
step = start_epoch * steps_per_epoch
for epoch in range(start_epoch, args.epochs):
    t_ep = time.time()
    groups = make_groups(train, train_index, rng)
    for i, b in enumerate(batches(train, train_index, groups, agreed_steps(groups))):
        params, opt_state, loss = train_step(params, opt_state, b)
        step += 1
        if step % args.log_every == 0:
            lv = float(loss)
            main_log(f"epoch {epoch + 1} step {step} loss {lv:.4f}")
            if not np.isfinite(lv):
                main_log(f"ERROR: non-finite loss {lv} at step {step}, stopping")
                sys.exit(1)
        if multihost_utils.reached_preemption_sync_point(step):
            main_log(f"preemption notice at step {step}: saving and exiting")
            if PID == 0:
                main_log(f"saved {save(params, epoch, float('nan'), 'preempted.npz')}")
            sys.exit(143)
    if args.eval_on == "main" and PID != 0:
        mae = float("nan")
    else:
        mae = evaluate(params)
    main_log(f"eval epoch {epoch + 1}: val MAE {mae:.4f} ({time.time() - t_ep:.1f} s)")
    if PID == 0:
        main_log(f"saved {save(params, epoch + 1, mae, 'last.npz')}")
        if args.keep_epochs:
            main_log(f"saved {save(params, epoch + 1, mae, f'epoch-{epoch + 1:02d}.npz')}")
        if mae < best:
            best = mae
            main_log(f"saved {save(params, epoch + 1, mae, 'best.npz')} (best)")
main_log(f"done: {args.epochs} epochs, best val MAE {best:.4f}")
