"""Fine-tune a config-built tiny ViTForImageClassification on synthetic texture images with the Hugging Face Trainer
(run under ``accelerate launch``)."""
import argparse

import numpy as np
import torch
from transformers import Trainer, TrainingArguments, ViTConfig, ViTForImageClassification

from vit_tune import CLASSES, make_images


class Textures(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        self.x, self.y = make_images(n, seed)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"pixel_values": self.x[i], "labels": self.y[i]}


def accuracy(pred):
    return {"accuracy": float((np.argmax(pred.predictions, -1) == pred.label_ids).mean())}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--best-metric", default="accuracy")
    ap.add_argument("--no-metrics", action="store_true")
    ap.add_argument("--output-dir", default="outputs/vit-textures")
    a = ap.parse_args()
    torch.set_num_threads(1)
    cfg = ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=48, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=96, num_labels=CLASSES)
    model = ViTForImageClassification(cfg)
    args = TrainingArguments(output_dir=a.output_dir, num_train_epochs=a.epochs, per_device_train_batch_size=32,
                             per_device_eval_batch_size=64, learning_rate=2e-3, warmup_steps=10, logging_steps=5,
                             eval_strategy="steps", eval_steps=20, save_strategy="steps", save_steps=20,
                             save_total_limit=2, load_best_model_at_end=True, metric_for_best_model=a.best_metric,
                             report_to="none", use_cpu=True, ddp_backend="gloo", dataloader_num_workers=0,
                             disable_tqdm=True, log_level="info")
    trainer = Trainer(model=model, args=args, train_dataset=Textures(1536, 0), eval_dataset=Textures(384, 1),
                      compute_metrics=None if a.no_metrics else accuracy)
    result = trainer.train()
    print(result, flush=True)
    print(trainer.evaluate(), flush=True)
    trainer.save_model(f"{a.output_dir}/final")
