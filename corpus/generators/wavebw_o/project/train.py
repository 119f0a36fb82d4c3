"""DDP segmentation training with MONAI's engines (the shape of MONAI tutorials' distributed_training/
unet_training_workflows.py): a tiny 2D UNet on synthetic NIfTI images, SupervisedTrainer + SupervisedEvaluator,
StatsHandler, LrScheduleHandler, ValidationHandler, CheckpointSaver, gloo on CPU."""
import argparse
import glob
import logging
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
import ignite.distributed as idist
from ignite.engine import Events
from ignite.handlers import TerminateOnNan
from torch.nn.parallel import DistributedDataParallel

import monai
from monai.data import DataLoader, Dataset, decollate_batch
from monai.engines import SupervisedEvaluator, SupervisedTrainer
from monai.handlers import (CheckpointLoader, CheckpointSaver, LrScheduleHandler, MeanDice, StatsHandler,
                            ValidationHandler, from_engine)
from monai.inferers import SimpleInferer
from monai.losses import DiceLoss
from monai.networks.nets import UNet
from monai.transforms import (Activationsd, AsDiscreted, Compose, EnsureChannelFirstd, EnsureTyped, LoadImaged,
                              RandRotate90d, ScaleIntensityd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--out", default="runs")
    ap.add_argument("--resume", default="")
    ap.add_argument("--pg-timeout", type=float, default=1800)
    ap.add_argument("--nan-check", action="store_true")
    a = ap.parse_args()

    dist.init_process_group("gloo", timeout=timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    idist.get_rank()  # ignite builds its own sub-groups on first use: every rank must take part
    logging.basicConfig(stream=sys.stdout, level=logging.INFO)
    if rank == 0:
        monai.config.print_config()
    monai.utils.set_determinism(seed=0)

    images = sorted(glob.glob("data/img*.nii.gz"))
    segs = sorted(glob.glob("data/seg*.nii.gz"))
    files = [{"image": i, "label": s} for i, s in zip(images, segs)]
    train_files, val_files = files[:32], files[32:]
    train_tf = Compose([LoadImaged(keys=["image", "label"]), EnsureChannelFirstd(keys=["image", "label"], channel_dim="no_channel"),
                        ScaleIntensityd(keys="image"), RandRotate90d(keys=["image", "label"], prob=0.5, spatial_axes=[0, 1]),
                        EnsureTyped(keys=["image", "label"])])
    val_tf = Compose([LoadImaged(keys=["image", "label"]), EnsureChannelFirstd(keys=["image", "label"], channel_dim="no_channel"),
                      ScaleIntensityd(keys="image"), EnsureTyped(keys=["image", "label"])])
    train_ds = Dataset(data=train_files, transform=train_tf)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_ds)
    train_loader = DataLoader(train_ds, batch_size=a.batch_size, shuffle=False, num_workers=a.workers,
                              sampler=train_sampler)
    val_ds = Dataset(data=val_files, transform=val_tf)
    val_sampler = torch.utils.data.distributed.DistributedSampler(val_ds, shuffle=False)
    val_loader = DataLoader(val_ds, batch_size=2, num_workers=a.workers, sampler=val_sampler)

    net = UNet(spatial_dims=2, in_channels=1, out_channels=1, channels=(4, 8, 16), strides=(2, 2), num_res_units=1)
    net = DistributedDataParallel(net)
    loss = DiceLoss(sigmoid=True)
    opt = torch.optim.Adam(net.parameters(), a.lr)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    post = Compose([Activationsd(keys="pred", sigmoid=True), AsDiscreted(keys="pred", threshold=0.5)])

    val_handlers = [StatsHandler(output_transform=lambda x: None)] if rank == 0 else []
    evaluator = SupervisedEvaluator(
        device=torch.device("cpu"), val_data_loader=val_loader, network=net, inferer=SimpleInferer(),
        postprocessing=post, key_val_metric={"val_mean_dice": MeanDice(include_background=True,
                                             output_transform=from_engine(["pred", "label"]))},
        val_handlers=val_handlers)

    train_handlers = [LrScheduleHandler(lr_scheduler=lr_scheduler, print_lr=True),
                      ValidationHandler(validator=evaluator, interval=1, epoch_level=True)]
    if rank == 0:
        train_handlers += [StatsHandler(tag_name="train_loss", output_transform=from_engine(["loss"], first=True)),
                           CheckpointSaver(save_dir=a.out, save_dict={"net": net, "opt": opt}, save_interval=1,
                                           epoch_level=True, n_saved=2)]
    if a.resume:
        train_handlers.insert(0, CheckpointLoader(load_path=a.resume, load_dict={"net": net, "opt": opt}))
    trainer = SupervisedTrainer(
        device=torch.device("cpu"), max_epochs=a.epochs, train_data_loader=train_loader, network=net, optimizer=opt,
        loss_function=loss, inferer=SimpleInferer(), train_handlers=train_handlers)
    if a.nan_check:
        trainer.add_event_handler(Events.ITERATION_COMPLETED, TerminateOnNan(output_transform=from_engine(["loss"], first=True)))
    if os.path.exists("train_hooks.py"):  # the team's optional per-iteration hook
        import train_hooks
        trainer.add_event_handler(Events.ITERATION_COMPLETED, lambda e: train_hooks.on_iter(rank, world, e))
    trainer.add_event_handler(Events.EPOCH_STARTED, lambda e: train_sampler.set_epoch(e.state.epoch))
    trainer.run()
    if rank == 0:
        print(f"training done: {trainer.state.epoch} epochs, best val_mean_dice "
              f"{evaluator.state.best_metric:.4f} at epoch {evaluator.state.best_metric_epoch}", flush=True)
    if a.nan_check and trainer.should_terminate:
        raise RuntimeError(f"training stopped on a non-finite loss at iteration {trainer.state.iteration}")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
