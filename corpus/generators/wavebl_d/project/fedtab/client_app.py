"""fedtab ClientApp: local SGD on this site's shard."""
from __future__ import annotations

import time

import torch
from flwr.app import ArrayRecord, Context, Message, MetricRecord, RecordDict
from flwr.clientapp import ClientApp

from fedtab.task import Net, evaluate, load_partition, train

app = ClientApp()


def _model(cfg):
    return Net(int(cfg["in-features"]), int(cfg["hidden"]), int(cfg["num-classes"]))


@app.train()
def train_fn(msg: Message, context: Context):
    pid = int(context.node_config["partition-id"])
    cfg = context.run_config
    hidden = int(context.node_config.get("hidden", cfg["hidden"]))
    net = Net(int(cfg["in-features"]), hidden, int(cfg["num-classes"]))
    net.load_state_dict(msg.content["arrays"].to_torch_state_dict())
    lr = float(msg.content["config"]["lr"])
    rnd = int(msg.content["config"]["server-round"])
    trainloader, _ = load_partition(cfg["data-dir"], pid, int(cfg["batch-size"]))
    t0 = time.time()
    loss = train(net, trainloader, int(cfg["local-epochs"]), lr, f"[site {pid}] round {rnd}")
    print(f"[site {pid}] round {rnd} local training done: {len(trainloader.dataset)} examples, "
          f"train_loss {loss:.4f}, {time.time() - t0:.1f}s", flush=True)
    content = RecordDict({
        "arrays": ArrayRecord(net.state_dict()),
        "metrics": MetricRecord({"train_loss": loss, "num-examples": len(trainloader.dataset)}),
    })
    return Message(content=content, reply_to=msg)


@app.evaluate()
def evaluate_fn(msg: Message, context: Context):
    pid = int(context.node_config["partition-id"])
    cfg = context.run_config
    hidden = int(context.node_config.get("hidden", cfg["hidden"]))
    net = Net(int(cfg["in-features"]), hidden, int(cfg["num-classes"]))
    net.load_state_dict(msg.content["arrays"].to_torch_state_dict())
    _, valloader = load_partition(cfg["data-dir"], pid, int(cfg["batch-size"]))
    loss, acc = evaluate(net, valloader)
    print(f"[site {pid}] eval: val_loss {loss:.4f} val_acc {acc:.4f}", flush=True)
    content = RecordDict({"metrics": MetricRecord({"eval_loss": loss, "eval_acc": acc,
                                                   "num-examples": len(valloader.dataset)})})
    return Message(content=content, reply_to=msg)
