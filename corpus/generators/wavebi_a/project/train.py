"""ticketrouter: route support tickets to a queue. TF-IDF features + an MLP trained with skorch's
NeuralNetClassifier, data-parallel through skorch's AccelerateMixin (launched with `accelerate launch`)."""
import argparse
import datetime
import functools
import json
import logging
import os
import sys
import time

import numpy as np
import pandas as pd
import torch
from accelerate import Accelerator
from accelerate.utils import InitProcessGroupKwargs
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import precision_score
from sklearn.preprocessing import LabelEncoder
from skorch import NeuralNetClassifier
from skorch.callbacks import Callback, Checkpoint, EarlyStopping, EpochScoring, LoadInitState, LRScheduler
from skorch.dataset import Dataset
from skorch.helper import predefined_split
from skorch.hf import AccelerateMixin

log = logging.getLogger("ticketrouter")


class AcceleratedNet(AccelerateMixin, NeuralNetClassifier):
    """NeuralNetClassifier with accelerate support"""


class MLP(torch.nn.Module):
    def __init__(self, n_features=1000, hidden=256, n_classes=5, dropout=0.2):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(n_features, hidden), torch.nn.ReLU(), torch.nn.Dropout(dropout),
            torch.nn.Linear(hidden, hidden // 2), torch.nn.ReLU(), torch.nn.Linear(hidden // 2, n_classes))

    def forward(self, X):
        return self.net(X)


class TicketLoss:
    """Cross-entropy with label smoothing. Not an nn.Module on purpose: accelerate would wrap a parameter-less
    module criterion in DDP, which refuses modules without parameters."""

    def __init__(self, label_smoothing=0.0):
        self.label_smoothing = label_smoothing

    def __call__(self, y_pred, y_true):
        return torch.nn.functional.cross_entropy(y_pred, y_true, label_smoothing=self.label_smoothing)

    def train(self, mode=True):
        return self

    def eval(self):
        return self


class FiniteLoss(Callback):
    """Stop the job when the epoch's training loss is not finite."""

    def on_epoch_end(self, net, **kwargs):
        loss = net.history[-1, "train_loss"]
        if not np.isfinite(loss):
            raise FloatingPointError(f"train_loss is {loss} at epoch {len(net.history)}; check --lr / --optimizer")


class EpochTimer(Callback):
    def __init__(self, accelerator, sleep=0.0):
        self.accelerator = accelerator
        self.sleep = sleep

    def on_epoch_end(self, net, **kwargs):
        log.info("rank %d finished epoch %d (%d train batches)", self.accelerator.process_index,
                 len(net.history), len(net.history[-1, "batches"]))
        if self.sleep:
            time.sleep(self.sleep)


def read_tickets(path):
    df = pd.read_csv(path)
    log.info("read %d rows from %s", len(df), path)
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-file", default="data/tickets_train.csv")
    ap.add_argument("--valid-file", default="data/tickets_valid.csv")
    ap.add_argument("--max-features", type=int, default=2000)
    ap.add_argument("--ngram-max", type=int, default=2)
    ap.add_argument("--text-encoder", choices=["tfidf", "sbert"], default="tfidf")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--dropout", type=float, default=0.2)
    ap.add_argument("--lr", type=float, default=0.2)
    ap.add_argument("--label-smoothing", type=float, default=0.05)
    ap.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--global-batch-size", type=int, default=0)
    ap.add_argument("--max-epochs", type=int, default=15)
    ap.add_argument("--patience", type=int, default=100)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--ckpt-monitor", default="", help="history key; empty: save every epoch")
    ap.add_argument("--ckpt-log", action="store_true", help="log every checkpoint save")
    ap.add_argument("--eval-best", action="store_true", help="reload the last checkpoint and re-score valid at the end")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--dist-timeout", type=int, default=1800, help="seconds")
    ap.add_argument("--epoch-pause", type=float, default=0.0, help="seconds to idle after each epoch (throttling)")
    ap.add_argument("--extra-metrics", action="store_true")
    a = ap.parse_args()

    accelerator = Accelerator(cpu=not torch.cuda.is_available(), kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=a.dist_timeout))])
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s [rank{accelerator.process_index}] %(levelname)s %(name)s: %(message)s")
    log.info("accelerator: %s", str(accelerator.state).replace("\n", " | "))
    log.info("torch %s, world size %d", torch.__version__, accelerator.num_processes)
    if a.global_batch_size and a.global_batch_size != a.batch_size * accelerator.num_processes:
        raise ValueError(f"global_batch_size ({a.global_batch_size}) must equal batch_size ({a.batch_size}) x "
                         f"num_processes ({accelerator.num_processes})")

    train, valid = read_tickets(a.train_file), read_tickets(a.valid_file)
    with open("data/queues.json") as f:
        queues = json.load(f)
    enc = LabelEncoder().fit(queues)
    if a.text_encoder == "sbert":
        from sentence_transformers import SentenceTransformer  # noqa: F401
        raise SystemExit("sbert encoder not wired up yet")
    vec = TfidfVectorizer(max_features=a.max_features, ngram_range=(1, a.ngram_max), sublinear_tf=True)
    X_train = vec.fit_transform(train["subject_body"]).astype(np.float32).toarray()
    X_valid = vec.transform(valid["subject_body"]).astype(np.float32).toarray()
    y_train = enc.transform(train["queue"]).astype(np.int64)
    y_valid = enc.transform(valid["queue"]).astype(np.int64)
    log.info("features: %d train x %d, %d valid; classes %s", X_train.shape[0], X_train.shape[1],
             X_valid.shape[0], [str(c) for c in enc.classes_])

    ckpt = Checkpoint(monitor=a.ckpt_monitor or None, dirname=a.ckpt_dir, f_pickle=None, f_criterion=None,
                      **({"sink": log.info} if a.ckpt_log else {}))
    callbacks = [
        ("valid_f1", EpochScoring("f1_macro", lower_is_better=False, name="valid_f1")),
        ("lr_sched", LRScheduler(policy="StepLR", step_size=4, gamma=0.5)),
        ("early_stop", EarlyStopping(monitor="valid_acc", patience=a.patience, lower_is_better=False)),
        ("checkpoint", ckpt),
        ("finite", FiniteLoss()),
        ("timer", EpochTimer(accelerator, a.epoch_pause)),
    ]
    if a.extra_metrics:
        callbacks.insert(1, ("valid_prec_min", EpochScoring(
            lambda net, X, y: float(np.min(precision_score(y, net.predict(X), average=None, zero_division=np.nan))),
            lower_is_better=False, name="valid_prec_min")))
    if a.resume:
        callbacks.append(("load_state", LoadInitState(ckpt)))
    net = AcceleratedNet(
        MLP, module__n_features=X_train.shape[1], module__hidden=a.hidden, module__n_classes=len(queues),
        module__dropout=a.dropout, criterion=functools.partial(TicketLoss, label_smoothing=a.label_smoothing),
        optimizer=torch.optim.SGD if a.optimizer == "sgd" else torch.optim.Adam, lr=a.lr,
        **({"optimizer__momentum": 0.9} if a.optimizer == "sgd" else {}),
        batch_size=a.batch_size, max_epochs=a.max_epochs, iterator_train__shuffle=True,
        train_split=predefined_split(Dataset(X_valid, y_valid)), callbacks=callbacks, accelerator=accelerator,
    )
    t0 = time.time()
    net.fit(X_train, y_train)
    accelerator.wait_for_everyone()
    acc = net.history[-1, "valid_acc"]
    if a.eval_best:
        net.load_params(checkpoint=ckpt)
        log.info("reloaded checkpoint from %s/", a.ckpt_dir)
        acc = float((net.predict(X_valid) == y_valid).mean())
    if accelerator.is_main_process:
        log.info("training done: %d epochs in %.1f s, valid accuracy %.4f, best checkpoint in %s/",
                 len(net.history), time.time() - t0, acc, a.ckpt_dir)
    accelerator.end_training()


if __name__ == "__main__":
    main()
