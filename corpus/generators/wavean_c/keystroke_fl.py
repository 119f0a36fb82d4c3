"""Federated keystroke-dynamics authentication with Flower.

Each organisation (a Flower client) holds the typing-timing exports of its own users; nobody shares raw typing data.
The shared model is a small verification MLP: given two repetitions of the passphrase it scores whether the same
person typed both (input |x_a - x_b| of the 31 timing features, two hidden ReLU layers, sigmoid). Clients train
locally on genuine/impostor pairs drawn from their users; the server aggregates (FedAvg, FedProx or FedAdam),
evaluates the global model on its own held-out validation users (equal error rate) and saves a checkpoint per round.

    python keystroke_fl.py server --address 127.0.0.1:30301 --rounds 5 --min-clients 3
    python keystroke_fl.py client --server 127.0.0.1:30301 --data data/org-1.csv
"""
from __future__ import annotations

import argparse
import csv
import ctypes
import faulthandler
import json
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np

faulthandler.enable()


# ----------------------------------------------------------------------------------------------------------- data
def load_export(path: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(feature names, X [n, 31] seconds, user index per row) from an enrolment export."""
    with open(path, newline="") as f:
        r = csv.reader(f)
        cols = next(r)
        feats = [c for c in cols if c.split(".")[0] in ("H", "DD", "UD")]
        idx = [cols.index(c) for c in feats]
        subjects, rows = [], []
        for row in r:
            subjects.append(row[0])
            rows.append([float(row[i]) for i in idx])
    users = sorted(set(subjects))
    uid = np.array([users.index(s) for s in subjects])
    return feats, np.asarray(rows, dtype=np.float64), uid


def key_names(feats: list[str]) -> list[str]:
    return [f[2:] for f in feats if f.startswith("H.")]


def layout_features(feats: list[str], n_rows: int) -> np.ndarray:
    """Physical key travel between consecutive keys of the passphrase (libkeymap.so), same for every row."""
    lib = ctypes.CDLL(os.path.abspath("libkeymap.so"))
    keys = key_names(feats)
    arr = (ctypes.c_char_p * len(keys))(*[k.encode() for k in keys])
    out = (ctypes.c_double * (len(keys) - 1))()
    lib.key_travel(arr, len(keys), out)
    return np.tile(np.array(list(out)), (n_rows, 1))


def make_pairs(rng, X: np.ndarray, uid: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n genuine + n impostor pairs as |x_a - x_b| (scaled) with labels 1/0."""
    a = rng.integers(0, len(X), n)
    same = np.empty(n, dtype=int)
    for i, ai in enumerate(a):
        cand = np.flatnonzero(uid == uid[ai])
        same[i] = rng.choice(cand)
    other = rng.integers(0, len(X), n)
    clash = uid[other] == uid[a]
    while clash.any():
        other[clash] = rng.integers(0, len(X), clash.sum())
        clash = uid[other] == uid[a]
    pa = np.abs(X[a] - X[same]) * 10.0
    pi = np.abs(X[a] - X[other]) * 10.0
    return np.vstack([pa, pi]), np.concatenate([np.ones(n), np.zeros(n)])


# ---------------------------------------------------------------------------------------------------------- model
def init_params(n_in: int, hidden: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(0, np.sqrt(2 / n_in), (n_in, hidden)), np.zeros(hidden),
            rng.normal(0, np.sqrt(2 / hidden), (hidden, hidden)), np.zeros(hidden),
            rng.normal(0, np.sqrt(1 / hidden), (hidden, 1)), np.zeros(1)]


def forward(p: list[np.ndarray], x: np.ndarray):
    h1 = np.maximum(x @ p[0] + p[1], 0)
    h2 = np.maximum(h1 @ p[2] + p[3], 0)
    z = (h2 @ p[4] + p[5])[:, 0]
    return h1, h2, 1 / (1 + np.exp(-z))


def bce(prob: np.ndarray, y: np.ndarray) -> float:
    eps = 1e-7
    return float(-np.mean(y * np.log(prob + eps) + (1 - y) * np.log(1 - prob + eps)))


def sgd_epoch(p, x, y, rng, lr, batch, momentum, vel, prox_mu=0.0, anchor=None):
    order = rng.permutation(len(x))
    losses = []
    for s in range(0, len(x), batch):
        b = order[s:s + batch]
        xb, yb = x[b], y[b]
        h1, h2, prob = forward(p, xb)
        losses.append(bce(prob, yb))
        d = ((prob - yb) / len(b))[:, None]
        g5, g4 = h2.T @ d, d.sum(0)
        d2 = (d @ p[4].T) * (h2 > 0)
        g3, g2 = h1.T @ d2, d2.sum(0)
        d1 = (d2 @ p[2].T) * (h1 > 0)
        g1, g0 = xb.T @ d1, d1.sum(0)
        grads = [g1, g0, g3, g2, g5, g4]
        for i, g in enumerate(grads):
            if prox_mu and anchor is not None:
                g = g + prox_mu * (p[i] - anchor[i])
            vel[i] = momentum * vel[i] + g
            p[i] = p[i] - lr * vel[i]
    return float(np.mean(losses))


def hard_negatives(p, X, uid, xtr, ytr):
    """Replace the random impostor pairs by, for every anchor repetition, the impostor the model scores highest."""
    hard = []
    for i in range(len(X)):
        cand = np.flatnonzero(uid != uid[i])
        d = np.abs(X[i] - X[cand]) * 10.0
        _, _, prob = forward(p, d)
        hard.append(d[int(np.argmax(prob))])
    gen = xtr[ytr == 1]
    hard = np.asarray(hard)
    return np.vstack([gen, hard]), np.concatenate([np.ones(len(gen)), np.zeros(len(hard))])


def eer(scores: np.ndarray, y: np.ndarray) -> float:
    """Equal error rate: where the false-accept and false-reject rates cross."""
    if not np.all(np.isfinite(scores)):
        return float("nan")
    thr = np.unique(scores)
    gen, imp = scores[y == 1], scores[y == 0]
    far = np.array([(imp >= t).mean() for t in thr])
    frr = np.array([(gen < t).mean() for t in thr])
    i = int(np.argmin(np.abs(far - frr)))
    return float((far[i] + frr[i]) / 2)


# --------------------------------------------------------------------------------------------------------- client
def run_client(a) -> None:
    import flwr as fl

    t0 = time.time()
    org = Path(a.data).stem
    rng = np.random.default_rng(a.seed)
    st = {}

    def prepare(round_no: int) -> None:
        """Read this organisation's export and draw the round's genuine/impostor pairs."""
        if a.wait_for_sync:
            lock = Path(a.data).with_suffix(".sync.lock")
            while lock.exists():  # the nightly export sync holds it while it rewrites the file
                time.sleep(1)
        if "X" in st and not a.refresh_data:
            return
        feats, X, uid = load_export(a.data)
        print(f"[{org}] loaded {a.data}: {len(X)} repetitions of {len(set(uid))} users, {len(feats)} timing "
              "features", flush=True)
        if a.layout_features:
            X = np.hstack([X, layout_features(feats, len(X))])
            print(f"[{org}] added {X.shape[1] - len(feats)} key-travel features from libkeymap.so", flush=True)
        users = np.unique(uid)
        hold = set(np.random.default_rng(a.seed).choice(users, max(1, len(users) // 6), replace=False).tolist())
        tr = np.array([u not in hold for u in uid])
        if a.all_impostor_pairs:  # every impostor pair of the training users, hardest first
            d = np.abs(X[tr][:, None, :] - X[tr][None, :, :]) * 10.0
            other = uid[tr][:, None] != uid[tr][None, :]
            imp = d[other]
            imp = imp[np.argsort(imp.sum(1))[:a.pairs]]
            gen, _ = make_pairs(rng, X[tr], uid[tr], len(imp))
            st["xtr"] = np.vstack([gen[:len(imp)], imp])
            st["ytr"] = np.concatenate([np.ones(len(imp)), np.zeros(len(imp))])
        else:
            st["xtr"], st["ytr"] = make_pairs(rng, X[tr], uid[tr], a.pairs)
        st["xte"], st["yte"] = make_pairs(rng, X[~tr], uid[~tr], a.pairs // 4)
        st["X"], st["uid"] = X[tr], uid[tr]
        print(f"[{org}] round {round_no}: {len(st['xtr'])} training pairs, {len(st['xte'])} local test pairs "
              f"(held-out users {sorted(hold)})", flush=True)

    class TypingClient(fl.client.NumPyClient):
        def __init__(self):
            self.round = 0

        def get_parameters(self, config):
            prepare(0)
            return init_params(st["X"].shape[1], a.hidden, a.seed)

        def fit(self, parameters, config):
            self.round = int(config.get("server_round", self.round + 1))
            prepare(self.round)
            xtr, ytr = st["xtr"], st["ytr"]
            if a.hard_negatives:  # impostor pairs the current global model finds most confusable
                xtr, ytr = hard_negatives([np.asarray(w) for w in parameters], st["X"], st["uid"], xtr, ytr)
            p = [np.array(w, dtype=np.float64) for w in parameters]
            anchor = [w.copy() for w in p]
            vel = [np.zeros_like(w) for w in p]
            epochs = int(config.get("local_epochs", a.local_epochs))
            lr = float(config.get("lr", a.lr))
            mu = float(config.get("proximal_mu", 0.0))
            for e in range(1, epochs + 1):
                loss = sgd_epoch(p, xtr, ytr, rng, lr, a.batch_size, 0.9, vel, mu, anchor)
                print(f"[{org}] round {self.round} local epoch {e}/{epochs} loss {loss:.4f}", flush=True)
            return p, len(xtr), {"train_loss": loss, "org": org}

        def evaluate(self, parameters, config):
            p = [np.array(w, dtype=np.float64) for w in parameters]
            prepare(self.round)
            xte, yte = st["xte"], st["yte"]
            _, _, prob = forward(p, xte)
            loss, e = bce(prob, yte), eer(prob, yte)
            print(f"[{org}] round {self.round} local eval loss {loss:.4f} EER {e:.4f}", flush=True)
            return loss, len(xte), {"eer": e}

    print(f"[{org}] connecting to {a.server} ({time.time() - t0:.1f} s after start)", flush=True)
    fl.client.start_client(server_address=a.server, client=TypingClient().to_client(), insecure=True,
                           max_retries=a.max_retries, max_wait_time=a.max_wait_time)
    print(f"[{org}] disconnected, bye", flush=True)


# --------------------------------------------------------------------------------------------------------- server
def run_server(a) -> None:
    import flwr as fl
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.strategy import FedAdam, FedAvg, FedProx

    print("args: " + json.dumps(vars(a), sort_keys=True), flush=True)
    feats, Xv, uv = load_export(a.validation)
    if a.layout_features:
        Xv = np.hstack([Xv, layout_features(feats, len(Xv))])
    rng = np.random.default_rng(1234)
    xv, yv = make_pairs(rng, Xv, uv, 600)
    print(f"server validation: {len(set(uv))} users, {len(xv)} pairs", flush=True)
    save = Path(a.save_dir)
    save.mkdir(parents=True, exist_ok=True)
    init = ndarrays_to_parameters(init_params(Xv.shape[1], a.hidden, 0))

    def evaluate_fn(server_round, parameters, config):
        _, _, prob = forward(parameters, xv)
        loss, e = bce(prob, yv), eer(prob, yv)
        print(f"server eval round {server_round}: loss {loss:.4f} EER {e:.4f}", flush=True)
        return loss, {"eer": e}

    def fit_config(server_round):
        return {"server_round": server_round, "local_epochs": a.local_epochs, "lr": a.lr}

    def agg_fit_metrics(metrics):
        n = sum(k for k, _ in metrics)
        return {"train_loss": sum(k * m["train_loss"] for k, m in metrics) / n}

    def agg_eval_metrics(metrics):
        n = sum(k for k, _ in metrics)
        return {"eer": sum(k * m["eer"] for k, m in metrics) / n}

    base = {"fedavg": FedAvg, "fedprox": FedProx, "fedadam": FedAdam}[a.strategy]
    kw = dict(fraction_fit=1.0, fraction_evaluate=1.0, min_fit_clients=a.min_clients,
              min_evaluate_clients=a.min_clients, min_available_clients=a.min_clients, evaluate_fn=evaluate_fn,
              on_fit_config_fn=fit_config, initial_parameters=init, accept_failures=a.accept_failures,
              fit_metrics_aggregation_fn=agg_fit_metrics, evaluate_metrics_aggregation_fn=agg_eval_metrics)
    if a.strategy == "fedprox":
        kw["proximal_mu"] = a.proximal_mu
    if a.strategy == "fedadam":
        kw.update(eta=a.server_lr, tau=1e-3)

    class Strategy(base):
        def aggregate_fit(self, server_round, results, failures):
            for f in failures:
                print(f"round {server_round}: client failure: {f!r}", flush=True)
            if failures and not a.accept_failures:
                raise RuntimeError(f"round {server_round}: {len(failures)} of {len(results) + len(failures)} "
                                   "organisations failed; refusing to aggregate a partial federation")
            params, metrics = super().aggregate_fit(server_round, results, failures)
            if params is not None:
                nd = parameters_to_ndarrays(params)
                path = save / f"global-round{server_round:03d}.npz"
                np.savez(path, *nd)
                if a.keep_client_updates:
                    for proxy, res in results:
                        np.savez(save / f"update-round{server_round:03d}-{res.metrics.get('org', proxy.cid)}.npz",
                                 *parameters_to_ndarrays(res.parameters))
                print(f"round {server_round}: aggregated {len(results)} updates, saved {path}", flush=True)
            return params, metrics

    class Manager(fl.server.SimpleClientManager):
        def wait_for(self, num_clients, timeout=86400):
            if len(self) < num_clients:
                print(f"waiting for {num_clients} organisations ({len(self)} connected, join timeout "
                      f"{a.join_timeout} s)", flush=True)
            if not super().wait_for(num_clients, timeout=a.join_timeout):
                raise TimeoutError(f"only {len(self)} of {num_clients} organisations joined within "
                                   f"{a.join_timeout} s")
            return True

    strategy = Strategy(**kw)
    try:
        hist = fl.server.start_server(server_address=a.address, strategy=strategy, client_manager=Manager(),
                                      config=fl.server.ServerConfig(num_rounds=a.rounds,
                                                                    round_timeout=a.round_timeout))
    except BaseException:
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)  # the gRPC server's threads would keep the process alive
    if not hist.metrics_centralized.get("eer"):
        raise SystemExit("no round completed")
    final = hist.metrics_centralized["eer"][-1]
    print(f"done: {a.rounds} rounds, final validation EER {final[1]:.4f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="role", required=True)
    s = sub.add_parser("server")
    s.add_argument("--address", default="127.0.0.1:30301")
    s.add_argument("--rounds", type=int, default=5)
    s.add_argument("--min-clients", type=int, default=3)
    s.add_argument("--strategy", choices=["fedavg", "fedprox", "fedadam"], default="fedavg")
    s.add_argument("--proximal-mu", type=float, default=0.01)
    s.add_argument("--server-lr", type=float, default=0.01)
    s.add_argument("--local-epochs", type=int, default=2)
    s.add_argument("--lr", type=float, default=0.05)
    s.add_argument("--hidden", type=int, default=32)
    s.add_argument("--round-timeout", type=float, default=None)
    s.add_argument("--join-timeout", type=int, default=86400)
    s.add_argument("--accept-failures", action="store_true")
    s.add_argument("--keep-client-updates", action="store_true")
    s.add_argument("--layout-features", action="store_true")
    s.add_argument("--validation", default="data/validation.csv")
    s.add_argument("--save-dir", default="checkpoints")
    c = sub.add_parser("client")
    c.add_argument("--server", default="127.0.0.1:30301")
    c.add_argument("--data", required=True)
    c.add_argument("--pairs", type=int, default=2000)
    c.add_argument("--hidden", type=int, default=32)
    c.add_argument("--batch-size", type=int, default=64)
    c.add_argument("--local-epochs", type=int, default=2)
    c.add_argument("--lr", type=float, default=0.05)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--layout-features", action="store_true")
    c.add_argument("--wait-for-sync", action="store_true")
    c.add_argument("--refresh-data", action="store_true", help="re-read the export every round")
    c.add_argument("--all-impostor-pairs", action="store_true")
    c.add_argument("--hard-negatives", action="store_true")
    c.add_argument("--max-retries", type=int, default=None)
    c.add_argument("--max-wait-time", type=float, default=None)
    a = ap.parse_args()
    run_server(a) if a.role == "server" else run_client(a)


if __name__ == "__main__":
    main()
