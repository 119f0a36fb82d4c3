#!/usr/bin/env python3
"""Recipe: a tiny keyword-spotting classifier (4 commands) on synthetic 40-dim features, in the layout of
SpeechBrain's recipes (templates/speaker_id, recipes/Google-speech-commands): an ``sb.Brain`` subclass, HyperPyYAML
hparams, a ``DynamicItemDataset`` pipeline with a ``CategoricalEncoder``, the ``Checkpointer`` and a
``FileTrainLogger``. Run with ``torchrun ... train.py hparams/train.yaml --device=cpu --distributed_backend=gloo``.

An optional ``train_hooks.py`` next to this file (the team's per-batch audit) gets ``on_batch(rank, step, epoch,
batch, loss)`` after every training batch."""
import datetime
import os
import sys

import numpy as np
import speechbrain as sb
import torch
from hyperpyyaml import load_hyperpyyaml
from speechbrain.utils.distributed import run_on_main
from speechbrain.utils.logger import get_logger

logger = get_logger(__name__)
try:
    import train_hooks
except ImportError:
    train_hooks = None


class KWSBrain(sb.Brain):
    def compute_forward(self, batch, stage):
        batch = batch.to(self.device)
        feats, lens = batch.fbank
        feats = self.modules.mean_var_norm(feats, lens)
        x = self.modules.encoder(feats)
        x = self.hparams.pooling(x, lens)
        x = self.modules.classifier(x)
        return self.hparams.log_softmax(x), lens

    def compute_objectives(self, predictions, batch, stage):
        predictions, lens = predictions
        command, _ = batch.command_encoded
        loss = self.hparams.compute_cost(predictions, command, lens)
        if stage != sb.Stage.TRAIN:
            self.error_metrics.append(batch.id, predictions, command, lens)
        return loss

    def on_fit_batch_end(self, batch, outputs, loss, should_step):
        step = self.step
        if train_hooks is not None:
            train_hooks.on_batch(self.rank, step, self.hparams.epoch_counter.current, batch, loss)
        if sb.utils.distributed.if_main_process() and step % self.hparams.log_every == 0:
            logger.info(f"epoch {self.hparams.epoch_counter.current} step {step}: loss {loss.item():.4f}")

    def on_stage_start(self, stage, epoch=None):
        if stage != sb.Stage.TRAIN:
            self.error_metrics = self.hparams.error_stats()

    def on_stage_end(self, stage, stage_loss, epoch=None):
        if stage == sb.Stage.TRAIN:
            self.train_loss = stage_loss
        else:
            stats = {"loss": stage_loss, "error": self.error_metrics.summarize("average")}
            self.hparams.train_logger.log_stats(
                stats_meta={"epoch": epoch, "lr": self.hparams.lr},
                train_stats={"loss": self.train_loss},
                valid_stats=stats,
            )
            self.checkpointer.save_and_keep_only(meta={"error": stats["error"]}, min_keys=["error"])


def dataio_prep(hparams):
    label_encoder = hparams["label_encoder"]

    @sb.utils.data_pipeline.takes("feats")
    @sb.utils.data_pipeline.provides("fbank")
    def feats_pipeline(path):
        return torch.from_numpy(np.load(path))

    @sb.utils.data_pipeline.takes("command")
    @sb.utils.data_pipeline.provides("command", "command_encoded")
    def label_pipeline(command):
        yield command
        yield label_encoder.encode_sequence_torch([command])

    datasets = {}
    for split in ("train", "valid"):
        datasets[split] = sb.dataio.dataset.DynamicItemDataset.from_json(
            json_path=hparams[f"{split}_annotation"],
            dynamic_items=[feats_pipeline, label_pipeline],
            output_keys=["id", "fbank", "command_encoded"],
        )
    lab_enc_file = os.path.join(hparams["save_folder"], "label_encoder.txt")
    label_encoder.load_or_create(path=lab_enc_file, from_iterables=[hparams["labels"]])
    return datasets


if __name__ == "__main__":
    hparams_file, run_opts, overrides = sb.parse_arguments(sys.argv[1:])
    with open(hparams_file) as fin:
        hparams = load_hyperpyyaml(fin, overrides)
    if hparams["ddp_timeout_s"] > 0 and "RANK" in os.environ:
        # the team's override of SpeechBrain's fixed 7200 s process-group timeout
        torch.distributed.init_process_group(backend=run_opts["distributed_backend"],
                                             timeout=datetime.timedelta(seconds=hparams["ddp_timeout_s"]))
    else:
        sb.utils.distributed.ddp_init_group(run_opts)
    sb.create_experiment_directory(experiment_directory=hparams["output_folder"], hyperparams_to_save=hparams_file,
                                   overrides=overrides)
    datasets = dataio_prep(hparams)
    brain = KWSBrain(modules=hparams["modules"], opt_class=hparams["opt_class"], hparams=hparams,
                     run_opts=run_opts, checkpointer=hparams["checkpointer"])
    brain.fit(brain.hparams.epoch_counter, datasets["train"], datasets["valid"],
              train_loader_kwargs=hparams["train_dataloader_opts"],
              valid_loader_kwargs=hparams["valid_dataloader_opts"])
    logger.info("training finished")
