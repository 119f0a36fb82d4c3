"""Team recsys trainer: RecBole on the CPU cluster (gloo), launched by torchrun on every node.

RecBole's own distributed mode (Config(config_dict={"nproc", "world_size", "ip", "port", "offset", "local_rank"}))
hard-codes NCCL and CUDA; CpuClusterConfig keeps all of it but uses gloo and the CPU, and the trainer's DDP wrapper
is built without device_ids. Everything else (dataset, dataloaders, Trainer.fit/evaluate, logging, checkpoints)
is RecBole's own.
"""
import argparse
import glob
import os
import sys
from logging import getLogger

# RecBole 1.2.1 pickles its Config into the checkpoint; torch >= 2.6 refuses that with weights_only=True
os.environ.setdefault("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import recbole.trainer.trainer as rb_trainer
from recbole.config import Config
from recbole.data import create_dataset, data_preparation
from recbole.utils import get_model, get_trainer, init_logger, init_seed, set_color, get_environment


class CpuClusterConfig(Config):
    def _init_device(self):
        d = self.final_config_dict
        d["gpu_id"] = ""
        if "local_rank" not in d:
            d["single_spec"], d["local_rank"], d["device"] = True, 0, torch.device("cpu")
            return
        dist.init_process_group(backend="gloo", rank=d["local_rank"] + d["offset"], world_size=d["world_size"],
                                init_method=f"tcp://{d['ip']}:{d['port']}", **PG_KW)
        d["device"] = torch.device("cpu")
        d["single_spec"] = False
        if d["local_rank"] != 0 or d["offset"] != 0:
            d["state"] = "error"
            d["show_progress"] = False
            d["verbose"] = False


PG_KW = {}
_save = rb_trainer.Trainer._save_checkpoint


def _save_checkpoint_rank0(self, epoch, verbose=True, **kwargs):
    # RecBole only checks local_rank: with several nodes every node's local rank 0 would write the same file
    if dist.is_initialized() and dist.get_rank() != 0:
        return
    return _save(self, epoch, verbose=verbose, **kwargs)


rb_trainer.Trainer._save_checkpoint = _save_checkpoint_rank0
rb_trainer.DistributedDataParallel = lambda module, device_ids=None, **kw: DistributedDataParallel(module, **kw)


def write_dataset(root, name, users, items, per_user, seed=7):
    """Synthetic purchase log in RecBole's atomic format (<root>/<name>/<name>.inter)."""
    path = os.path.join(root, name, f"{name}.inter")
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rng = np.random.default_rng(seed)
    pop = rng.zipf(1.3, size=items * 4) % items
    lines = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"]
    t0 = 1_700_000_000
    for u in range(users):
        n = per_user + int(rng.integers(0, per_user))
        taste = rng.integers(0, items)
        for k in range(n):
            i = int(taste + rng.integers(0, 40)) % items if rng.random() < 0.6 else int(pop[rng.integers(0, len(pop))])
            lines.append(f"u{u}\ti{i}\t{1 + rng.integers(0, 5)}\t{t0 + u * 97 + k * 3600}")
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="BPR")
    ap.add_argument("--dataset", default="synthshop")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--emb", type=int, default=32)
    ap.add_argument("--users", type=int, default=4000)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--per-user", type=int, default=12)
    ap.add_argument("--ckpt-dir", default="saved")
    ap.add_argument("--no-predirs", action="store_true", help="the script before the mkdir fix (RecBole's ensure_dir)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--pg-timeout", type=int, default=0)
    ap.add_argument("--extra", action="append", default=[], help="key=value RecBole config overrides")
    a = ap.parse_args()

    if a.pg_timeout:
        import datetime
        PG_KW["timeout"] = datetime.timedelta(seconds=a.pg_timeout)
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    write_dataset("data", a.dataset, a.users, a.items, a.per_user)

    cfg = {
        "data_path": "data", "checkpoint_dir": a.ckpt_dir, "epochs": a.epochs, "learning_rate": a.lr,
        "train_batch_size": a.batch, "eval_batch_size": 4096, "embedding_size": a.emb, "eval_step": 1,
        "stopping_step": 10, "show_progress": False, "seed": 2026, "worker": a.workers,
        "load_col": {"inter": ["user_id", "item_id", "rating", "timestamp"]},
        "metrics": ["Recall", "NDCG", "Hit"], "topk": [10], "valid_metric": "NDCG@10",
    }
    if a.model in ("SASRec", "GRU4Rec"):
        cfg.update({"train_neg_sample_args": None, "loss_type": "CE", "MAX_ITEM_LIST_LENGTH": 20,
                    "n_layers": 1, "n_heads": 2, "hidden_size": a.emb, "inner_size": 2 * a.emb})
    if a.model == "NeuMF":
        cfg.update({"mf_embedding_size": a.emb, "mlp_embedding_size": a.emb, "mlp_hidden_size": [32, 16]})
    for kv in a.extra:
        k, v = kv.split("=", 1)
        try:
            v = eval(v, {})
        except Exception:
            pass
        cfg[k] = v
    if world > 1:
        cfg.update({"local_rank": local_rank, "offset": rank - local_rank, "world_size": world,
                    "nproc": int(os.environ.get("LOCAL_WORLD_SIZE", 1)),
                    "ip": os.environ["MASTER_ADDR"], "port": int(os.environ["MASTER_PORT"])})

    config = CpuClusterConfig(model=a.model, dataset=a.dataset, config_dict=cfg)
    init_seed(config["seed"], config["reproducibility"])
    if not a.no_predirs:  # RecBole's ensure_dir (log/, log/<model>/, checkpoint_dir) races between ranks
        os.makedirs(os.path.join("log", a.model), exist_ok=True)
        os.makedirs(config["checkpoint_dir"], exist_ok=True)
    init_logger(config)
    logger = getLogger()
    logger.info(sys.argv)
    logger.info(config)

    dataset = create_dataset(config)
    logger.info(dataset)
    train_data, valid_data, test_data = data_preparation(config, dataset)

    init_seed(config["seed"] + config["local_rank"], config["reproducibility"])
    model = get_model(config["model"])(config, train_data._dataset).to(config["device"])
    logger.info(model)

    hooks = None
    if os.path.exists("train_hooks.py"):  # the team's optional per-batch hook (audits, probes)
        sys.path.insert(0, os.getcwd())
        import train_hooks as hooks
        calc = model.calculate_loss
        step = {"n": 0}

        def calculate_loss(interaction):
            step["n"] += 1
            if hasattr(hooks, "on_batch"):
                hooks.on_batch(rank, step["n"], model)
            return calc(interaction)
        model.calculate_loss = calculate_loss
        if hasattr(hooks, "on_eval"):
            predict = model.full_sort_predict
            evals = {"n": 0}

            def full_sort_predict(interaction):
                evals["n"] += 1
                hooks.on_eval(rank, evals["n"], model)
                return predict(interaction)
            model.full_sort_predict = full_sort_predict

    trainer = get_trainer(config["MODEL_TYPE"], config["model"])(config, model)
    # one file name for every rank (RecBole's default has the local time in it, which differs between ranks)
    trainer.saved_model_file = os.path.join(config["checkpoint_dir"], f"{a.model}-{a.dataset}.pth")
    if a.resume:
        ckpts = sorted(glob.glob(os.path.join(config["checkpoint_dir"], f"{a.model}-*.pth")), key=os.path.getmtime)
        if ckpts:
            trainer.resume_checkpoint(ckpts[-1])
    best_valid_score, best_valid_result = trainer.fit(train_data, valid_data, saved=True,
                                                      show_progress=config["show_progress"])
    if world > 1:
        dist.barrier()  # rank 0 may still be writing the best checkpoint
    test_result = trainer.evaluate(test_data, load_best_model=True, show_progress=False)
    logger.info("The running environment of this training is as follows:\n" + get_environment(config).draw())
    logger.info(set_color("best valid ", "yellow") + f": {best_valid_result}")
    logger.info(set_color("test result", "yellow") + f": {test_result}")
    if rank == 0:
        print(f"train done: model={a.model} best_valid_score={best_valid_score} world_size={world}", flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
