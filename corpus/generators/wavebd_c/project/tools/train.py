# Copied from the OpenMMLab repos' tools/train.py (mmpretrain style), trimmed to what the team uses.
import argparse
import os
import os.path as osp
import sys

from mmengine.config import Config, DictAction
from mmengine.runner import Runner

sys.path.insert(0, osp.abspath(osp.join(osp.dirname(__file__), "..")))


def parse_args():
    parser = argparse.ArgumentParser(description="Train a leaf-disease classifier")
    parser.add_argument("config", help="train config file path")
    parser.add_argument("--work-dir", help="the dir to save logs and models")
    parser.add_argument("--resume", nargs="?", type=str, const="auto",
                        help="If specify checkpoint path, resume from it, while if not specify, try to auto resume "
                             "from the latest checkpoint in the work directory.")
    parser.add_argument("--amp", action="store_true", help="enable automatic-mixed-precision training")
    parser.add_argument("--no-validate", action="store_true", help="whether not to evaluate the checkpoint during "
                                                                   "training")
    parser.add_argument("--cfg-options", nargs="+", action=DictAction,
                        help="override some settings in the used config, the key-value pair in xxx=yyy format will "
                             "be merged into config file.")
    parser.add_argument("--launcher", choices=["none", "pytorch", "slurm", "mpi"], default="none",
                        help="job launcher")
    parser.add_argument("--local_rank", "--local-rank", type=int, default=0)
    args = parser.parse_args()
    if "LOCAL_RANK" not in os.environ:
        os.environ["LOCAL_RANK"] = str(args.local_rank)
    return args


def merge_args(cfg, args):
    cfg.launcher = args.launcher
    if args.work_dir is not None:
        cfg.work_dir = args.work_dir
    elif cfg.get("work_dir", None) is None:
        cfg.work_dir = osp.join("./work_dirs", osp.splitext(osp.basename(args.config))[0])
    if args.amp is True:
        optim_wrapper = cfg.optim_wrapper.get("type", "OptimWrapper")
        assert optim_wrapper in ["OptimWrapper", "AmpOptimWrapper"], \
            "`--amp` is not supported custom optimizer wrapper type " f"`{optim_wrapper}."
        cfg.optim_wrapper.type = "AmpOptimWrapper"
        cfg.optim_wrapper.setdefault("loss_scale", "dynamic")
    if args.resume == "auto":
        cfg.resume = True
        cfg.load_from = None
    elif args.resume is not None:
        cfg.resume = True
        cfg.load_from = args.resume
    if args.no_validate:
        cfg.val_cfg = None
        cfg.val_dataloader = None
        cfg.val_evaluator = None
    if args.cfg_options is not None:
        cfg.merge_from_dict(args.cfg_options)
    return cfg


def init_cpu_dist(cfg):
    """mmengine's pytorch launcher calls torch.cuda.set_device(local_rank) before init_process_group, which a
    CPU-only torch build cannot do; on the CPU scouting box we create the process group ourselves from
    env_cfg.dist_cfg (Runner.setup_env then sees it already initialized)."""
    import datetime

    import torch
    import torch.distributed as dist
    dist_cfg = dict(cfg.env_cfg.get("dist_cfg", {}))
    timeout = dist_cfg.pop("timeout", None)
    if timeout is not None:
        dist_cfg["timeout"] = datetime.timedelta(seconds=timeout)
    if not torch.cuda.is_available() and not dist.is_initialized():
        dist.init_process_group(**dist_cfg)


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    cfg = merge_args(cfg, args)
    if cfg.launcher == "pytorch" and cfg.env_cfg.get("cpu_dist_init", True):
        init_cpu_dist(cfg)
    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == "__main__":
    main()
