"""ServerApp and ClientApp of the keystroke-authentication federation (run by SuperLink/SuperNodes via `flwr run`).

Same model, pairs and strategy as keystroke_fl.py's start_server/start_client mode; each SuperNode's
``--node-config data=...`` names its organisation's export, the run config carries rounds and hyper-parameters.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from flwr.app import Context
from flwr.client import ClientApp, NumPyClient
from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
from flwr.server import ServerApp, ServerAppComponents, ServerConfig
from flwr.server.strategy import FedAdam, FedAvg, FedProx

from keystroke_fl import bce, eer, forward, init_params, load_export, make_pairs, sgd_epoch


class TypingClient(NumPyClient):
    def __init__(self, data: str, cfg) -> None:
        feats, X, uid = load_export(data)
        self.org = Path(data).stem
        self.rng = np.random.default_rng(int(cfg.get("seed", 0)))
        users = np.unique(uid)
        hold = set(self.rng.choice(users, max(1, len(users) // 6), replace=False).tolist())
        tr = np.array([u not in hold for u in uid])
        self.xtr, self.ytr = make_pairs(self.rng, X[tr], uid[tr], int(cfg["pairs"]))
        self.xte, self.yte = make_pairs(self.rng, X[~tr], uid[~tr], int(cfg["pairs"]) // 4)
        self.batch = int(cfg["batch-size"])
        print(f"[{self.org}] {len(X)} repetitions of {len(users)} users, {len(self.xtr)} training pairs", flush=True)

    def fit(self, parameters, config):
        p = [np.array(w, dtype=np.float64) for w in parameters]
        anchor = [w.copy() for w in p]
        vel = [np.zeros_like(w) for w in p]
        r, epochs = int(config["server_round"]), int(config["local_epochs"])
        for e in range(1, epochs + 1):
            loss = sgd_epoch(p, self.xtr, self.ytr, self.rng, float(config["lr"]), self.batch, 0.9, vel,
                             float(config.get("proximal_mu", 0.0)), anchor)
            print(f"[{self.org}] round {r} local epoch {e}/{epochs} loss {loss:.4f}", flush=True)
        return p, len(self.xtr), {"train_loss": loss}

    def evaluate(self, parameters, config):
        _, _, prob = forward([np.asarray(w) for w in parameters], self.xte)
        loss, e = bce(prob, self.yte), eer(prob, self.yte)
        print(f"[{self.org}] local eval loss {loss:.4f} EER {e:.4f}", flush=True)
        return loss, len(self.xte), {"eer": e}


def client_fn(context: Context):
    return TypingClient(str(context.node_config["data"]), context.run_config).to_client()


def server_fn(context: Context):
    cfg = context.run_config
    feats, Xv, uv = load_export(str(cfg["validation"]))
    xv, yv = make_pairs(np.random.default_rng(1234), Xv, uv, 600)
    save = Path(str(cfg["save-dir"]))
    save.mkdir(parents=True, exist_ok=True)
    print(f"server validation: {len(set(uv))} users, {len(xv)} pairs; run config {dict(cfg)}", flush=True)

    def evaluate_fn(server_round, parameters, config):
        _, _, prob = forward(parameters, xv)
        loss, e = bce(prob, yv), eer(prob, yv)
        print(f"server eval round {server_round}: loss {loss:.4f} EER {e:.4f}", flush=True)
        return loss, {"eer": e}

    def fit_config(server_round):
        return {"server_round": server_round, "local_epochs": int(cfg["local-epochs"]), "lr": float(cfg["lr"])}

    def wavg(key):
        return lambda ms: {key: sum(n * m[key] for n, m in ms) / sum(n for n, _ in ms)}

    base = {"fedavg": FedAvg, "fedprox": FedProx, "fedadam": FedAdam}[str(cfg["strategy"])]
    n = int(cfg["min-clients"])
    kw = dict(fraction_fit=1.0, fraction_evaluate=1.0, min_fit_clients=n, min_evaluate_clients=n,
              min_available_clients=n, evaluate_fn=evaluate_fn, on_fit_config_fn=fit_config,
              initial_parameters=ndarrays_to_parameters(init_params(len(feats), int(cfg["hidden"]), 0)),
              fit_metrics_aggregation_fn=wavg("train_loss"), evaluate_metrics_aggregation_fn=wavg("eer"))
    if base is FedProx:
        kw["proximal_mu"] = float(cfg["proximal-mu"])
    if base is FedAdam:
        kw.update(eta=float(cfg["server-lr"]), tau=1e-3)

    class Strategy(base):
        def aggregate_fit(self, server_round, results, failures):
            for f in failures:
                print(f"round {server_round}: client failure: {f!r}", flush=True)
            if failures and not bool(cfg["accept-failures"]):
                raise RuntimeError(f"round {server_round}: {len(failures)} of {len(results) + len(failures)} "
                                   "organisations failed; refusing to aggregate a partial federation")
            params, metrics = super().aggregate_fit(server_round, results, failures)
            if params is not None:
                path = save / f"global-round{server_round:03d}.npz"
                np.savez(path, *parameters_to_ndarrays(params))
                print(f"round {server_round}: aggregated {len(results)} updates, saved {path}", flush=True)
            return params, metrics

    timeout = float(cfg["round-timeout"]) or None
    return ServerAppComponents(strategy=Strategy(**kw),
                               config=ServerConfig(num_rounds=int(cfg["num-server-rounds"]), round_timeout=timeout))


app = ServerApp(server_fn=server_fn)
client = ClientApp(client_fn=client_fn)
