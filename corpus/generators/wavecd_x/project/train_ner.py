"""Team NER tagger: a small Flair SequenceTagger (one-hot word + character embeddings, BiLSTM, no CRF) trained with
Flair's ModelTrainer in multi-process mode (multi_gpu=True) on CPU over gloo, one process per torchrun rank. The
corpus is synthetic CoNLL (written by rank 0 under data/ if missing). Optional team hooks: train_hooks.py with
on_batch(rank, epoch, batch_no, trainer) is called after every training batch through a Flair TrainerPlugin."""
import argparse
import datetime
import importlib.util
import math
import os
import random
from pathlib import Path

import torch
import torch.distributed as dist

import flair
import flair.trainers.trainer as flair_trainer
from flair.data import Dictionary
from flair.datasets import ColumnCorpus
from flair.embeddings import CharacterEmbeddings, OneHotEmbeddings, StackedEmbeddings
from flair.models import SequenceTagger
from flair.trainers import ModelTrainer
from flair.trainers.plugins.base import TrainerPlugin

p = argparse.ArgumentParser()
p.add_argument("--base-path", default="out-ner")
p.add_argument("--data", default="data/ner-synth")
p.add_argument("--n-train", type=int, default=1200)
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--batch-size", type=int, default=16)
p.add_argument("--chunk-size", type=int, default=0)
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--hidden", type=int, default=32)
p.add_argument("--save-every", type=int, default=1)
p.add_argument("--seed", type=int, default=42)
p.add_argument("--seed-per-rank", action="store_true")
p.add_argument("--resume-from", default="")
p.add_argument("--pg-timeout", type=int, default=1800)
p.add_argument("--max-grad-norm", type=float, default=5.0)
p.add_argument("--tag-type", default="ner")
p.add_argument("--no-char", action="store_true")
p.add_argument("--stop-on-nan", action="store_true")
a = p.parse_args()

rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
flair.device = torch.device("cpu")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
print(f"[rank {rank}/{world}] {os.uname().nodename}: gloo process group up (flair {flair.__version__}, "
      f"torch {torch.__version__})", flush=True)


# Flair's multi_gpu path builds DistributedDataParallel(model, device_ids=[flair.device.index]); on CPU the index is
# None, which DDP rejects. The CPU cluster shim drops device_ids for CPU devices.
class _CpuDDP(torch.nn.parallel.DistributedDataParallel):
    def __init__(self, module, device_ids=None, **kw):
        super().__init__(module, device_ids=None if device_ids == [None] else device_ids, **kw)


flair_trainer.DistributedDataParallel = _CpuDDP

PER = ["anna", "boris", "chen", "dara", "emil", "fatima", "gus", "hana", "ivo", "jun", "kofi", "lena"]
ORG = ["acme", "globex", "initech", "umbrella", "hooli", "vandelay", "stark", "wayne"]
LOC = ["berlin", "lagos", "lima", "oslo", "pune", "quito", "seoul", "tunis", "perth"]
FILL = ["the", "a", "met", "visited", "joined", "left", "in", "at", "from", "with", "today", "said", "and", "for"]


def write_corpus(d: Path, seed: int = 7) -> None:
    r = random.Random(seed)
    d.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", a.n_train), ("dev", 150), ("test", 150)):
        with open(d / f"{split}.txt", "w") as f:
            for _ in range(n):
                for _ in range(r.randint(5, 12)):
                    k = r.random()
                    if k < 0.15:
                        f.write(f"{r.choice(PER)} B-PER\n")
                        if r.random() < 0.3:
                            f.write(f"{r.choice(PER)} I-PER\n")
                    elif k < 0.25:
                        f.write(f"{r.choice(ORG)} B-ORG\n")
                    elif k < 0.35:
                        f.write(f"{r.choice(LOC)} B-LOC\n")
                    else:
                        f.write(f"{r.choice(FILL)} O\n")
                f.write("\n")


data = Path(a.data)
if rank == 0 and not (data / "train.txt").exists():
    write_corpus(data)
    print(f"wrote synthetic CoNLL corpus to {data}", flush=True)
dist.barrier()

flair.set_seed(a.seed + (rank if a.seed_per_rank else 0))
corpus = ColumnCorpus(data, {0: "text", 1: "ner"}, train_file="train.txt", dev_file="dev.txt", test_file="test.txt")
tag_dict = corpus.make_label_dictionary(label_type="ner", add_unk=False)

if a.resume_from:
    tagger = SequenceTagger.load(a.resume_from)
    print(f"[rank {rank}] resumed weights from {a.resume_from}", flush=True)
else:
    embs = [OneHotEmbeddings.from_corpus(corpus, embedding_length=32, min_freq=1)]
    if not a.no_char:
        chars = Dictionary(add_unk=True)  # built from the corpus: Flair's default char table is a download
        for ch in sorted({c for s in corpus.train for t in s for c in t.text}):
            chars.add_item(ch)
        embs.append(CharacterEmbeddings(chars, char_embedding_dim=16, hidden_size_char=16))
    tagger = SequenceTagger(hidden_size=a.hidden, embeddings=StackedEmbeddings(embs), tag_dictionary=tag_dict,
                            tag_type=a.tag_type, use_crf=False, use_rnn=True, reproject_embeddings=False)

plugins = []
if os.path.exists("train_hooks.py"):
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    class HookPlugin(TrainerPlugin):
        @TrainerPlugin.hook
        def after_training_batch(self, batch_no, epoch, **kw):
            hooks.on_batch(rank, epoch, batch_no, self.trainer)

        @property
        def attach_to_all_processes(self):
            return True

    plugins.append(HookPlugin())

if a.stop_on_nan:  # the team's guard: stop as soon as an epoch's training loss is not finite
    class NanGuard(TrainerPlugin):
        @TrainerPlugin.hook
        def metric_recorded(self, record):
            if str(record.name) == "train/loss" and not math.isfinite(record.value):
                raise RuntimeError(f"non-finite training loss {record.value} at epoch {record.global_step}; stopping")

        @property
        def attach_to_all_processes(self):
            return True

    plugins.append(NanGuard())

trainer = ModelTrainer(tagger, corpus)
result = trainer.train(a.base_path, learning_rate=a.lr, mini_batch_size=a.batch_size,
                       mini_batch_chunk_size=a.chunk_size or None, max_epochs=a.epochs,
                       save_model_each_k_epochs=a.save_every, max_grad_norm=a.max_grad_norm or None, multi_gpu=True,
                       plugins=plugins, use_final_model_for_eval=True)
if rank == 0:
    print(f"training done: test_score={result['test_score']:.4f} files={sorted(os.listdir(a.base_path))}", flush=True)
dist.barrier()
dist.destroy_process_group()
