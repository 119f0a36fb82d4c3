"""The team's small unconditional DDPM training script, written after the layout of Diffusers'
examples/unconditional_image_generation/train_unconditional.py: UNet2DModel + DDPMScheduler, AdamW with
diffusers.optimization.get_scheduler, EMAModel, accelerate.Accelerator (DDP), accelerator.save_state checkpoints and
a DDPMPipeline sample + save_pretrained at the end of every epoch."""
import argparse
import glob
import importlib.util
import logging
import math
import os
import shutil
from datetime import timedelta

import numpy as np
import torch
import torch.nn.functional as F
from accelerate import Accelerator, InitProcessGroupKwargs
from accelerate.logging import get_logger
from accelerate.utils import ProjectConfiguration, set_seed
from PIL import Image
from torch.utils.data import DataLoader, Dataset

import diffusers
from diffusers import DDPMPipeline, DDPMScheduler, UNet2DModel
from diffusers.optimization import get_scheduler
from diffusers.training_utils import EMAModel

logger = get_logger(__name__, log_level="INFO")


def parse_args():
    p = argparse.ArgumentParser(description="tiny unconditional DDPM training")
    p.add_argument("--train_data_dir", default="data/shapes")
    p.add_argument("--output_dir", default="ddpm-shapes-16")
    p.add_argument("--resolution", type=int, default=16)
    p.add_argument("--sample_size", type=int, default=None, help="UNet sample_size (default: resolution)")
    p.add_argument("--train_batch_size", type=int, default=4)
    p.add_argument("--dataloader_num_workers", type=int, default=0)
    p.add_argument("--num_epochs", type=int, default=3)
    p.add_argument("--gradient_accumulation_steps", type=int, default=1)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--lr_scheduler", default="cosine")
    p.add_argument("--lr_warmup_steps", type=int, default=5)
    p.add_argument("--adam_weight_decay", type=float, default=1e-6)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--use_ema", action="store_true")
    p.add_argument("--ema_max_decay", type=float, default=0.9999)
    p.add_argument("--ddpm_num_steps", type=int, default=1000)
    p.add_argument("--ddpm_beta_schedule", default="linear")
    p.add_argument("--prediction_type", default="epsilon")
    p.add_argument("--ddpm_num_inference_steps", type=int, default=20)
    p.add_argument("--eval_batch_size", type=int, default=4)
    p.add_argument("--save_images_epochs", type=int, default=1)
    p.add_argument("--save_model_epochs", type=int, default=1)
    p.add_argument("--checkpointing_steps", type=int, default=20)
    p.add_argument("--checkpoints_total_limit", type=int, default=None)
    p.add_argument("--resume_from_checkpoint", default=None)
    p.add_argument("--split_batches", action="store_true")
    p.add_argument("--pg_timeout", type=int, default=1800, help="process group timeout in seconds")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


class ImageFolder(Dataset):
    def __init__(self, root, resolution):
        self.files = sorted(glob.glob(os.path.join(root, "*.png")))
        self.resolution = resolution

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = Image.open(self.files[i]).convert("RGB").resize((self.resolution, self.resolution), Image.BILINEAR)
        if np.random.rand() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 127.5 - 1.0).permute(2, 0, 1)
        return {"input": x}


def load_hooks():
    # optional per-step hooks the team drops next to the script (train_hooks.py): on_step(accelerator, step, batch,
    # loss) after each optimizer step, setup(accelerator, model) once after prepare
    if not os.path.exists("train_hooks.py"):
        return None
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    args = parse_args()
    project_config = ProjectConfiguration(project_dir=args.output_dir, logging_dir=os.path.join(args.output_dir, "logs"),
                                          total_limit=args.checkpoints_total_limit)
    pg = InitProcessGroupKwargs(timeout=timedelta(seconds=args.pg_timeout))
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=args.gradient_accumulation_steps,
                              project_config=project_config, split_batches=args.split_batches, kwargs_handlers=[pg])
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        level=logging.INFO)
    logger.info(accelerator.state, main_process_only=False)
    if accelerator.is_local_main_process:
        diffusers.utils.logging.set_verbosity_info()
    else:
        diffusers.utils.logging.set_verbosity_error()
    set_seed(args.seed)
    hooks = load_hooks()

    model = UNet2DModel(
        sample_size=args.sample_size or args.resolution, in_channels=3, out_channels=3, layers_per_block=1,
        block_out_channels=(32, 64), norm_num_groups=8,
        down_block_types=("DownBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "UpBlock2D"),
    )
    if args.use_ema:
        ema_model = EMAModel(model.parameters(), decay=args.ema_max_decay, use_ema_warmup=True, inv_gamma=1.0,
                             power=3 / 4, model_cls=UNet2DModel, model_config=model.config)

    # save/load hooks as in Diffusers' example: the checkpoint holds unet/ (and unet_ema/) in diffusers format
    def save_model_hook(models, weights, output_dir):
        if accelerator.is_main_process:
            if args.use_ema:
                ema_model.save_pretrained(os.path.join(output_dir, "unet_ema"))
            for m in models:
                m.save_pretrained(os.path.join(output_dir, "unet"))
                weights.pop()

    def load_model_hook(models, input_dir):
        if args.use_ema:
            load_model = EMAModel.from_pretrained(os.path.join(input_dir, "unet_ema"), UNet2DModel)
            ema_model.load_state_dict(load_model.state_dict())
            del load_model
        for _ in range(len(models)):
            m = models.pop()
            load_model = UNet2DModel.from_pretrained(input_dir, subfolder="unet")
            m.register_to_config(**load_model.config)
            m.load_state_dict(load_model.state_dict())
            del load_model

    accelerator.register_save_state_pre_hook(save_model_hook)
    accelerator.register_load_state_pre_hook(load_model_hook)

    noise_scheduler = DDPMScheduler(num_train_timesteps=args.ddpm_num_steps, beta_schedule=args.ddpm_beta_schedule,
                                    prediction_type=args.prediction_type)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.adam_weight_decay)
    dataset = ImageFolder(args.train_data_dir, args.resolution)
    logger.info(f"Dataset size: {len(dataset)}")
    train_dataloader = DataLoader(dataset, batch_size=args.train_batch_size, shuffle=True,
                                  num_workers=args.dataloader_num_workers)
    lr_scheduler = get_scheduler(args.lr_scheduler, optimizer=optimizer,
                                 num_warmup_steps=args.lr_warmup_steps * args.gradient_accumulation_steps,
                                 num_training_steps=len(train_dataloader) * args.num_epochs)
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(model, optimizer, train_dataloader,
                                                                           lr_scheduler)
    if args.use_ema:
        ema_model.to(accelerator.device)
    if hooks and hasattr(hooks, "setup"):
        hooks.setup(accelerator, model)

    total_batch_size = args.train_batch_size * accelerator.num_processes * args.gradient_accumulation_steps
    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    max_train_steps = args.num_epochs * num_update_steps_per_epoch
    logger.info("***** Running training *****")
    logger.info(f"  Num examples = {len(dataset)}")
    logger.info(f"  Num Epochs = {args.num_epochs}")
    logger.info(f"  Instantaneous batch size per device = {args.train_batch_size}")
    logger.info(f"  Total train batch size (w. parallel, distributed & accumulation) = {total_batch_size}")
    logger.info(f"  Total optimization steps = {max_train_steps}")

    global_step, first_epoch = 0, 0
    if args.resume_from_checkpoint:
        path = args.resume_from_checkpoint
        if path == "latest":
            dirs = sorted((d for d in os.listdir(args.output_dir) if d.startswith("checkpoint")),
                          key=lambda x: int(x.split("-")[1]))
            path = dirs[-1] if dirs else None
        if path is None:
            accelerator.print("Checkpoint does not exist. Starting a new training run.")
        else:
            accelerator.print(f"Resuming from checkpoint {path}")
            accelerator.load_state(os.path.join(args.output_dir, path))
            global_step = int(path.split("-")[1])
            first_epoch = global_step // num_update_steps_per_epoch

    for epoch in range(first_epoch, args.num_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            if args.resume_from_checkpoint and epoch == first_epoch and step < (global_step % num_update_steps_per_epoch) * args.gradient_accumulation_steps:
                continue
            clean_images = batch["input"]
            noise = torch.randn(clean_images.shape)
            bsz = clean_images.shape[0]
            timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (bsz,)).long()
            noisy_images = noise_scheduler.add_noise(clean_images, noise, timesteps)
            with accelerator.accumulate(model):
                model_output = model(noisy_images, timesteps).sample
                loss = F.mse_loss(model_output.float(), noise.float())
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                if args.use_ema:
                    ema_model.step(model.parameters())
                global_step += 1
                if hooks and hasattr(hooks, "on_step"):
                    hooks.on_step(accelerator, global_step, batch, loss)
                if not torch.isfinite(loss):
                    raise FloatingPointError(f"Loss is {loss.item()} at step {global_step} (epoch {epoch}); "
                                             "stopping the run")
                if global_step % args.checkpointing_steps == 0 and accelerator.is_main_process:
                    save_path = os.path.join(args.output_dir, f"checkpoint-{global_step}")
                    accelerator.save_state(save_path)
                    logger.info(f"Saved state to {save_path}")
            logs = {"loss": loss.detach().item(), "lr": lr_scheduler.get_last_lr()[0], "step": global_step}
            if args.use_ema:
                logs["ema_decay"] = ema_model.cur_decay_value
            if global_step % 2 == 0:
                accelerator.print(f"Epoch {epoch} | step {global_step}/{max_train_steps} | loss {logs['loss']:.4f} | "
                                  f"lr {logs['lr']:.2e}" + (f" | ema_decay {logs['ema_decay']:.4f}" if args.use_ema else ""))
        accelerator.wait_for_everyone()
        if accelerator.is_main_process:
            unet = accelerator.unwrap_model(model)
            if args.use_ema:
                ema_model.store(unet.parameters())
                ema_model.copy_to(unet.parameters())
            pipeline = DDPMPipeline(unet=unet, scheduler=noise_scheduler)
            if (epoch + 1) % args.save_images_epochs == 0 or epoch == args.num_epochs - 1:
                generator = torch.Generator(device="cpu").manual_seed(0)
                images = pipeline(generator=generator, batch_size=args.eval_batch_size,
                                  num_inference_steps=args.ddpm_num_inference_steps, output_type="np").images
                images_processed = (images * 255).round().astype("uint8")
                os.makedirs(os.path.join(args.output_dir, "samples"), exist_ok=True)
                for k, im in enumerate(images_processed):
                    Image.fromarray(im).save(os.path.join(args.output_dir, "samples", f"epoch{epoch}_{k}.png"))
                logger.info(f"Epoch {epoch}: saved {len(images_processed)} samples, pixel mean {images.mean():.4f}")
            if (epoch + 1) % args.save_model_epochs == 0 or epoch == args.num_epochs - 1:
                pipeline.save_pretrained(args.output_dir)
                logger.info(f"Epoch {epoch}: pipeline saved to {args.output_dir}")
            if args.use_ema:
                ema_model.restore(unet.parameters())
        accelerator.wait_for_everyone()
    accelerator.end_training()
    accelerator.print("Training finished.")


if __name__ == "__main__":
    main()
