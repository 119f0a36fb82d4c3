"""CLIP-style image-text contrastive pretraining on synthetic coloured shapes with generated captions.

Each sample is a 32x32 RGB image of a coloured shape (circle, square, triangle, cross; small or large; left, right,
top, bottom or centre; on a noisy background) and a generated caption ("a large red circle on the left"). Model: a
small conv image tower and a small text transformer tower (word-level tokenizer, learned positions, pooled at the
end-of-text token), both projected to a shared embedding space; symmetric InfoNCE with a learnable temperature
(log logit scale, clamped), with the embeddings all_gathered across ranks so every rank scores its batch against the
global batch. Evaluation: zero-shot classification of the validation images by prompting "a photo of a {colour}
{shape}" for every class (accuracy all-reduced over ranks); rank 0 saves last.pt/best.pt.

Modes: make (write caption shards), ddp (under torchrun), spawn (torch.multiprocessing.spawn), lightning (Trainer,
ddp on CPU), hf (transformers Trainer under torchrun), tune (Ray Tune sweep), raytrain (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import json
import math
import os
import signal
import sys
import threading
import time
import urllib.request
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

COLOURS = {"red": (0.9, 0.15, 0.1), "green": (0.1, 0.75, 0.2), "blue": (0.15, 0.25, 0.9), "yellow": (0.95, 0.9, 0.1),
           "purple": (0.55, 0.15, 0.7), "orange": (1.0, 0.55, 0.05), "white": (0.97, 0.97, 0.97),
           "teal": (0.0, 0.5, 0.5)}
BASE_COLOURS = ["red", "green", "blue", "yellow", "purple", "orange", "white"]
SHAPES = ["circle", "square", "triangle", "cross"]
SIZES = ["small", "large"]
POSITIONS = ["left", "right", "top", "bottom", "centre"]
WORDS = ("a an the photo of picture drawing small large on in at with and thin black grey dark light outline "
         "background left right top bottom centre middle").split() + BASE_COLOURS + SHAPES
SPECIAL = ["<pad>", "<bos>", "<eos>"]


class Tokenizer:
    """Word-level tokenizer over the caption vocabulary, with a cache guarded by a lock (shared with the
    background pre-tokenizer thread)."""

    def __init__(self, context_length=16, truncate=False):
        self.vocab = {w: i for i, w in enumerate(SPECIAL + WORDS)}
        self.context_length, self.truncate = context_length, truncate
        self.lock = threading.Lock()
        self.cache = {}

    def __len__(self):
        return len(self.vocab)

    def encode(self, text):
        with self.lock:
            ids = self.cache.get(text)
            if ids is None:
                ids = [1] + [self.vocab[w] for w in text.lower().replace(",", "").split()] + [2]
                self.cache[text] = ids
        if self.truncate and len(ids) > self.context_length:
            ids = ids[:self.context_length - 1] + [2]
        return ids

    def pretokenize(self, texts):
        """Fill the cache for a list of captions (run in a background thread while training starts)."""
        with self.lock:
            for t in texts:
                if t not in self.cache:
                    self.cache[t] = [1] + [self.vocab[w] for w in t.lower().replace(",", "").split()] + [2]
                    time.sleep(0.0005)

    def batch(self, texts):
        ids = [self.encode(t) for t in texts]
        n = max(len(x) for x in ids)
        out = torch.zeros(len(ids), n, dtype=torch.long)
        for i, x in enumerate(ids):
            out[i, :len(x)] = torch.tensor(x)
        return out


def caption_for(rec, style="plain", rng=None):
    c = f"a {rec['size']} {rec['colour']} {rec['shape']} on the {rec['pos']}"
    if style == "rich":  # detailed alt-text style captions
        rng = rng or np.random.default_rng(rec["seed"])
        if rng.random() < 0.4:
            c += f" with a thin {rng.choice(['black', 'grey', 'white'])} outline on a {rng.choice(['dark', 'light'])} " \
                 f"grey background"
        if rng.random() < 0.3:
            c += f" and a {rng.choice(SIZES)} {rng.choice(BASE_COLOURS)} {rng.choice(SHAPES)} in the " \
                 f"{rng.choice(POSITIONS)}"
    return c


def make_record(seed, colours=BASE_COLOURS, style="plain"):
    rng = np.random.default_rng(seed)
    rec = {"seed": int(seed), "colour": str(rng.choice(colours)), "shape": str(rng.choice(SHAPES)),
           "size": str(rng.choice(SIZES)), "pos": str(rng.choice(POSITIONS))}
    rec["caption"] = caption_for(rec, style, rng)
    return rec


def render(rec, size=32, native=None):
    rng = np.random.default_rng(rec["seed"] + 17)
    img = np.clip(rng.normal(0.35, 0.08, (3, size, size)), 0, 1).astype(np.float32)
    r = size * (0.32 if rec["size"] == "large" else 0.17)
    cy, cx = {"left": (0.5, 0.28), "right": (0.5, 0.72), "top": (0.28, 0.5), "bottom": (0.72, 0.5),
              "centre": (0.5, 0.5)}[rec["pos"]]
    cy = cy * size + rng.uniform(-1.5, 1.5)
    cx = cx * size + rng.uniform(-1.5, 1.5)
    rgb = np.array(COLOURS[rec["colour"]], np.float32) * rng.uniform(0.85, 1.0)
    if native is not None:  # compiled rasteriser (render.c)
        buf = np.ascontiguousarray(img)
        native.draw_shape(buf.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(size), ctypes.c_int(SHAPES.index(rec["shape"])),
                          ctypes.c_float(cx), ctypes.c_float(cy), ctypes.c_float(r),
                          (ctypes.c_float * 3)(*rgb.tolist()))
        return buf
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    dy, dx = yy - cy, xx - cx
    if rec["shape"] == "circle":
        m = dy * dy + dx * dx <= r * r
    elif rec["shape"] == "square":
        m = (np.abs(dy) <= r * 0.85) & (np.abs(dx) <= r * 0.85)
    elif rec["shape"] == "triangle":
        m = (dy <= r * 0.8) & (dy >= -r) & (np.abs(dx) <= (dy + r) * 0.6)
    else:
        m = ((np.abs(dy) <= r) & (np.abs(dx) <= r * 0.3)) | ((np.abs(dx) <= r) & (np.abs(dy) <= r * 0.3))
    img[:, m] = rgb[:, None]
    return img


def load_records(args, split, rank=0, world=1):
    """Records of this rank: from caption shards (data/<split>-NN.jsonl, shard k read by rank k % world) or
    generated on the fly from seeds."""
    if args.data and split == "train":
        recs = []
        files = sorted(glob.glob(os.path.join(args.data, f"{split}-*.jsonl")))
        for k, fn in enumerate(files):
            if k % world == rank:
                with open(fn) as f:
                    recs += [json.loads(ln) for ln in f if ln.strip()]
        return recs
    n, base = (args.train_size, 0) if split == "train" else (args.val_size, 10_000_000)
    return [make_record(base + args.seed * 100_003 + i, style=args.captions) for i in range(rank, n, world)]


class ShapeCaptions(torch.utils.data.Dataset):
    def __init__(self, recs, args, bank=None):
        self.recs, self.args, self.bank = recs, args, bank
        self.native = None
        if args.render_lib:
            self.native = ctypes.CDLL(os.path.abspath(args.render_lib))

    def __len__(self):
        return len(self.recs)

    def caption(self, rec):
        if rec.get("paraphrase") and self.args.paraphrase_url:  # records flagged for paraphrasing by the export
            req = urllib.request.Request(self.args.paraphrase_url, data=json.dumps({"text": rec["caption"]}).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req) as resp:
                return json.loads(resp.read())["text"]
        return rec["caption"]

    def __getitem__(self, i):
        rec = self.recs[i]
        img = self.bank[i] if self.bank is not None else torch.from_numpy(render(rec, self.args.image_size,
                                                                                  self.native))
        return {"image": img, "text": self.caption(rec)}


def collate_with(tok):
    def collate(items):
        return {"image": torch.stack([it["image"] for it in items]), "tokens": tok.batch([it["text"] for it in items])}
    return collate


# ---------------------------------------------------------------------------------------------------------------------
class ImageTower(nn.Module):
    def __init__(self, width=32, dim=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * width, 4 * width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.proj = nn.Linear(4 * width, dim)

    def forward(self, x):
        return self.proj(self.net(x))


class TextTower(nn.Module):
    def __init__(self, vocab, context_length=16, dim=64, layers=2, heads=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(context_length, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.ln = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):
        n = tokens.shape[1]
        x = self.tok(tokens) + self.pos(torch.arange(n, device=tokens.device))[None]
        x = self.enc(x, src_key_padding_mask=tokens == 0)
        eot = (tokens == 2).float().argmax(1)
        return self.proj(self.ln(x[torch.arange(len(x)), eot]))


class CLIP(nn.Module):
    def __init__(self, vocab, args):
        super().__init__()
        self.visual = ImageTower(args.width, args.embed_dim)
        self.text = TextTower(vocab, args.context_length, args.embed_dim)
        self.temp_param = args.temp_param
        if args.temp_param == "tau":  # learn the temperature itself
            self.temperature = nn.Parameter(torch.tensor(args.init_temp))
        else:  # learn log(1 / temperature), as in CLIP
            self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / args.init_temp)))
        self.max_scale = args.max_logit_scale

    def scale(self):
        if self.temp_param == "tau":
            return 1.0 / self.temperature
        return self.logit_scale.clamp(max=math.log(self.max_scale)).exp()

    def forward(self, image, tokens):
        return F.normalize(self.visual(image), dim=-1), F.normalize(self.text(tokens), dim=-1), self.scale()


def gather_features(x, rank, world):
    """All-gather embeddings for the global batch; the local slice keeps its gradient."""
    if world == 1:
        return x
    parts = [torch.zeros_like(x) for _ in range(world)]
    dist.all_gather(parts, x.detach().contiguous())
    parts[rank] = x
    return torch.cat(parts)


def clip_loss(img, txt, scale, rank, world):
    all_img, all_txt = gather_features(img, rank, world), gather_features(txt, rank, world)
    logits_i = scale * img @ all_txt.t()
    logits_t = scale * txt @ all_img.t()
    labels = torch.arange(len(img)) + rank * len(img)
    loss = (F.cross_entropy(logits_i, labels) + F.cross_entropy(logits_t, labels)) / 2
    acc = (logits_i.argmax(1) == labels).float().mean()
    return loss, acc


def class_prompts(classes):
    return [f"a photo of a {c} {s}" for c, s in classes]


@torch.no_grad()
def zero_shot(model, tok, vl, val_recs, args, rank, world):
    """Zero-shot accuracy of the validation images; with --per-class-acc, accuracy per class as well."""
    if args.per_class_acc:  # the classes present in this rank's validation shard
        classes = sorted({(r["colour"], r["shape"]) for r in val_recs})
    else:
        classes = [(c, s) for c in BASE_COLOURS for s in SHAPES]
    raw = model.module if hasattr(model, "module") else model
    t = F.normalize(raw.text(tok.batch(class_prompts(classes))), dim=-1)
    counts = torch.zeros(2, dtype=torch.float64)
    per_class = torch.zeros(2, len(classes), dtype=torch.float64)
    k = 0
    for batch in vl:
        v = F.normalize(raw.visual(batch["image"].to(t.dtype)), dim=-1)
        pred = (v @ t.t()).argmax(1)
        for j, p in enumerate(pred.tolist()):
            rec = val_recs[k + j]
            y = classes.index((rec["colour"], rec["shape"]))
            counts[0] += p == y
            counts[1] += 1
            per_class[0, y] += p == y
            per_class[1, y] += 1
        k += len(pred)
    if world > 1:
        dist.all_reduce(counts)
        if args.per_class_acc:
            dist.all_reduce(per_class)
    res = {"zs_acc": (counts[0] / counts[1].clamp(min=1)).item()}
    if args.per_class_acc:
        res["per_class"] = {f"{c} {s}": round((per_class[0, i] / per_class[1, i].clamp(min=1)).item(), 3)
                            for i, (c, s) in enumerate(classes)}
    return res


def mine_hard_negatives(recs, rank):
    """Caption-similarity matrix over the rank's training captions (bag of words), top-8 neighbours per caption."""
    words = {w: i for i, w in enumerate(sorted({w for r in recs for w in r["caption"].split()}))}
    bow = np.zeros((len(recs), len(words)))
    for i, r in enumerate(recs):
        for w in r["caption"].split():
            bow[i, words[w]] += 1
    bow /= np.linalg.norm(bow, axis=1, keepdims=True)
    print(f"[rank {rank}] mining hard negatives: {len(recs)} x {len(recs)} caption similarities", flush=True)
    sim = bow @ bow.T
    np.fill_diagonal(sim, -1)
    nn_idx = np.argsort(-sim, axis=1)[:, :8]
    print(f"[rank {rank}] hard negatives ready ({nn_idx.shape[0]} captions)", flush=True)
    return nn_idx


STOP = {"flag": False}


def on_sigterm(signum, frame):
    STOP["flag"] = True


def train_loop(rank, world, args, bank=None):
    torch.manual_seed(args.seed)
    if args.save_on_sigterm:
        signal.signal(signal.SIGTERM, on_sigterm)
    ddp = world > 1
    tok = Tokenizer(args.context_length, args.truncate)
    model = CLIP(len(tok), args)
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        print(f"CLIP: {n / 1e3:.1f}k parameters (image tower {sum(p.numel() for p in model.visual.parameters()) / 1e3:.1f}k, "
              f"text tower {sum(p.numel() for p in model.text.parameters()) / 1e3:.1f}k), vocab {len(tok)}, "
              f"context {args.context_length}, embed {args.embed_dim}, temperature {args.temp_param} "
              f"init {args.init_temp}", flush=True)
    if args.precision == "fp16":  # half the memory: weights, activations and optimizer state in float16
        model = model.half()
    if ddp:
        model = nn.parallel.DistributedDataParallel(model)
    train_recs = load_records(args, "train", rank, world)
    val_recs = load_records(args, "val", rank, world)
    if args.hard_negatives:
        mine_hard_negatives(train_recs, rank)
    train = ShapeCaptions(train_recs, args, bank)
    val = ShapeCaptions(val_recs, args)
    if args.pretokenize:
        threading.Thread(target=tok.pretokenize, args=([r["caption"] for r in train_recs + val_recs],),
                         daemon=True).start()
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                     drop_last=True, collate_fn=collate_with(tok))
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, num_workers=0, collate_fn=collate_with(tok))
    raw = model.module if ddp else model
    scale_params = [p for n, p in raw.named_parameters() if n in ("logit_scale", "temperature")]
    other = [p for n, p in raw.named_parameters() if n not in ("logit_scale", "temperature")]
    opt = torch.optim.AdamW([{"params": other, "weight_decay": 0.05},
                             {"params": scale_params, "weight_decay": 0.0, "lr": args.scale_lr or args.lr}], lr=args.lr)
    print(f"[rank {rank}] {len(train)} train pairs, {len(val)} val images, {len(tl)} steps/epoch, global batch "
          f"{args.batch * world}", flush=True)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    steps = args.epochs * len(tl)
    best, step, res, bad = -1.0, 0, {}, 0
    for epoch in range(args.epochs):
        model.train()
        t0, seen = time.time(), 0
        for batch in tl:
            image = batch["image"].half() if args.precision == "fp16" else batch["image"]
            img, txt, scale = model(image, batch["tokens"])
            loss, acc = clip_loss(img, txt, scale, rank, world)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            step += 1
            seen += len(img)
            if step % args.log_every == 0 and rank == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} i2t_acc {acc.item():.3f} "
                      f"logit_scale {scale.item():.2f} grad_norm {gn.item():.3f} "
                      f"{seen * world / (time.time() - t0):.0f} pairs/s", flush=True)
            if not torch.isfinite(loss):
                bad += 1
                if bad >= 3:
                    raise FloatingPointError(f"loss is {loss.item()} for {bad} consecutive steps (step {step}, "
                                             f"logit_scale {scale.item()})")
            else:
                bad = 0
            stop = STOP["flag"]
            if args.save_on_sigterm and ddp:  # every rank stops at the same step
                flag = torch.tensor([float(stop)])
                dist.all_reduce(flag, op=dist.ReduceOp.MAX)
                stop = flag.item() > 0
            if stop:
                if rank == 0:
                    torch.save({"model": raw.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step},
                               os.path.join(args.ckpt_dir, "last.pt"))
                print(f"[rank {rank}] SIGTERM received at epoch {epoch} step {step}; "
                      f"{'saved ' + os.path.join(args.ckpt_dir, 'last.pt') + ', ' if rank == 0 else ''}"
                      f"stopping", flush=True)
                return {"stopped": step}
        model.eval()
        res = zero_shot(model, tok, vl, val_recs, args, rank, world)
        res["epoch"] = epoch
        if rank == 0:
            print(f"epoch {epoch} zero-shot acc {res['zs_acc']:.4f} ({time.time() - t0:.1f} s)", flush=True)
            if "per_class" in res:
                print(f"epoch {epoch} per-class zero-shot acc {res['per_class']}", flush=True)
            state = {"model": raw.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "zs_acc": res["zs_acc"]}
            torch.save(state, os.path.join(args.ckpt_dir, "last.pt"))
            if res["zs_acc"] > best:
                best = res["zs_acc"]
                torch.save(state, os.path.join(args.ckpt_dir, "best.pt"))
                print(f"saved best.pt (zero-shot acc {best:.4f})", flush=True)
    return res


def init_pg(rank, world, args):
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))


def spawn_worker(rank, world, args, bank):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    init_pg(rank, world, args)
    out = train_loop(rank, world, args, bank[rank] if bank is not None else None)
    if "stopped" in out:
        dist.destroy_process_group()
        return
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_spawn(args):
    print(f"spawning {args.nprocs} ranks (gloo), MASTER_ADDR={os.environ.get('MASTER_ADDR', '127.0.0.1')} "
          f"MASTER_PORT={os.environ.get('MASTER_PORT')}", flush=True)
    bank = None
    if args.image_bank:  # render every training image once in the parent and share the tensors with the ranks
        bank = []
        for r in range(args.nprocs):
            recs = load_records(args, "train", r, args.nprocs)
            t = torch.from_numpy(np.stack([render(x, args.image_size) for x in recs]))
            print(f"image bank rank {r}: {tuple(t.shape)} {t.element_size() * t.nelement() / 2**20:.1f} MiB",
                  flush=True)
            bank.append(t.share_memory_())
    got = {"term": False}
    if args.save_on_sigterm:
        def fwd(signum, frame):
            got["term"] = True
            print("launcher: SIGTERM received, waiting for the ranks to checkpoint", flush=True)
        signal.signal(signal.SIGTERM, fwd)
    torch.multiprocessing.spawn(spawn_worker, args=(args.nprocs, args, bank), nprocs=args.nprocs, join=True)
    if got["term"]:
        print("launcher: ranks stopped after SIGTERM, exiting 143 for requeue", flush=True)
        sys.exit(143)


def main_ddp(args):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    init_pg(rank, world, args)
    if rank == 0:
        print(f"world size {world}, backend gloo, torch {torch.__version__}", flush=True)
    train_loop(rank, world, args)
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_lightning(args):
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from lightning.pytorch.strategies import DDPStrategy

    tok = Tokenizer(args.context_length, args.truncate)

    class LitCLIP(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = CLIP(len(tok), args)

        def training_step(self, batch, _):
            img, txt, scale = self.model(batch["image"], batch["tokens"])
            loss, acc = clip_loss(img, txt, scale, self.global_rank, self.trainer.world_size)
            self.log("train_loss", loss, prog_bar=True)
            self.log("logit_scale", scale)
            return loss

        def validation_step(self, batch, _):
            img, txt, scale = self.model(batch["image"], batch["tokens"])
            sim = img @ txt.t()
            self.log("val_i2t_acc", (sim.argmax(1) == torch.arange(len(img))).float().mean(), sync_dist=True,
                     prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=args.lr, weight_decay=0.05)

    train = ShapeCaptions(load_records(args, "train"), args)
    val = ShapeCaptions(load_records(args, "val"), args)
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                     drop_last=True, collate_fn=collate_with(tok), persistent_workers=args.workers > 0)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, num_workers=0, collate_fn=collate_with(tok))
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, num_nodes=args.num_nodes,
                        strategy=DDPStrategy(process_group_backend="gloo", timeout=timedelta(seconds=args.pg_timeout)),
                        max_epochs=args.epochs, log_every_n_steps=args.log_every, default_root_dir=args.ckpt_dir,
                        callbacks=[ModelCheckpoint(dirpath=os.path.join(args.ckpt_dir, "checkpoints"),
                                                   filename="clip-{epoch:02d}", monitor="val_i2t_acc", mode="max",
                                                   save_top_k=args.save_top_k, save_last=True)],
                        enable_progress_bar=False)
    trainer.fit(LitCLIP(), tl, vl)
    if trainer.global_rank == 0:
        print(f"fit finished: {trainer.callback_metrics}", flush=True)


class HFCLIP(CLIP):
    def forward(self, image, tokens, **_):
        img, txt, scale = super().forward(image, tokens)
        world = dist.get_world_size() if dist.is_initialized() else 1
        rank = dist.get_rank() if dist.is_initialized() else 0
        loss, _ = clip_loss(img, txt, scale, rank, world)
        return {"loss": loss, "logits": img @ txt.t()}


def main_hf(args):
    import transformers
    from transformers import Trainer, TrainingArguments

    rank = int(os.environ.get("RANK", 0))
    if rank == 0:
        print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)
    tok = Tokenizer(args.context_length, args.truncate)
    targs = TrainingArguments(output_dir=args.ckpt_dir, per_device_train_batch_size=args.batch,
                              per_device_eval_batch_size=args.batch, num_train_epochs=args.epochs, learning_rate=args.lr,
                              weight_decay=0.05, logging_steps=args.log_every, save_strategy="epoch",
                              eval_strategy="epoch", report_to=[], use_cpu=True, ddp_backend="gloo",
                              remove_unused_columns=False, dataloader_num_workers=0, disable_tqdm=True,
                              dataloader_drop_last=True, max_grad_norm=10.0)
    model = HFCLIP(len(tok), args)
    val_recs = load_records(args, "val")
    trainer = Trainer(model=model, args=targs, train_dataset=ShapeCaptions(load_records(args, "train"), args),
                      eval_dataset=ShapeCaptions(val_recs, args), data_collator=collate_with(tok))
    trainer.train()
    if trainer.is_world_process_zero():
        vl = torch.utils.data.DataLoader(ShapeCaptions(val_recs, args), batch_size=args.batch,
                                         collate_fn=collate_with(tok))
        res = zero_shot(model.eval(), tok, vl, val_recs, args, 0, 1)
        print(f"final zero-shot acc {res['zs_acc']:.4f}", flush=True)
        print("training finished", flush=True)


def main_raytrain(args):
    import ray
    import ray.train
    from ray.train.torch import TorchTrainer, prepare_model

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))

    def loop(config):
        torch.set_num_threads(1)
        ctx = ray.train.get_context()
        rank, world = ctx.get_world_rank(), ctx.get_world_size()
        tok = Tokenizer(args.context_length, args.truncate)
        model = prepare_model(CLIP(len(tok), args))
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
        recs = load_records(args, "train", rank, world)
        val_recs = load_records(args, "val", rank, world)
        print(f"[rank {rank}] {len(recs)} train pairs", flush=True)
        tl = torch.utils.data.DataLoader(ShapeCaptions(recs, args), batch_size=args.batch, shuffle=True,
                                         drop_last=True, collate_fn=collate_with(tok))
        vl = torch.utils.data.DataLoader(ShapeCaptions(val_recs, args), batch_size=args.batch,
                                         collate_fn=collate_with(tok))
        for epoch in range(args.epochs):
            model.train()
            for i, batch in enumerate(tl):
                img, txt, scale = model(batch["image"], batch["tokens"])
                loss, acc = clip_loss(img, txt, scale, rank, world)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if i % args.log_every == 0 and rank == 0:
                    print(f"epoch {epoch} batch {i} loss {loss.item():.4f} i2t_acc {acc.item():.3f}", flush=True)
            model.eval()
            res = zero_shot(model, tok, vl, val_recs, args, rank, world)
            ray.train.report({"loss": loss.item(), "zs_acc": res["zs_acc"], "epoch": epoch})

    trainer = TorchTrainer(loop, scaling_config=ray.train.ScalingConfig(
        num_workers=args.nprocs, resources_per_worker={"CPU": 1}),
        run_config=ray.train.RunConfig(name="clip_shapes", storage_path=os.path.abspath(args.storage)))
    result = trainer.fit()
    print(f"result: {result.metrics}", flush=True)


def main_make(args):
    os.makedirs(args.out, exist_ok=True)
    colours = args.colours.split(",") if args.colours else BASE_COLOURS
    for k in range(args.first_shard, args.first_shard + args.shards):
        fn = os.path.join(args.out, f"train-{k:02d}.jsonl")
        with open(fn, "w") as f:
            for i in range(args.per_shard):
                rec = make_record(1000 + k * 100_000 + i, colours, args.captions)
                if args.paraphrase_frac and np.random.default_rng(i).random() < args.paraphrase_frac:
                    rec["paraphrase"] = True
                f.write(json.dumps(rec) + "\n")
        print(f"wrote {fn} ({args.per_shard} captions)")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "spawn", "ddp", "lightning", "hf", "raytrain"])
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--num-nodes", type=int, default=1)
    ap.add_argument("--train-size", type=int, default=1024)
    ap.add_argument("--val-size", type=int, default=256)
    ap.add_argument("--data", default="")
    ap.add_argument("--captions", choices=["plain", "rich"], default="plain")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--scale-lr", type=float, default=0.0)
    ap.add_argument("--temp-param", choices=["log_scale", "tau"], default="log_scale")
    ap.add_argument("--init-temp", type=float, default=0.07)
    ap.add_argument("--max-logit-scale", type=float, default=100.0)
    ap.add_argument("--precision", choices=["fp32", "fp16"], default="fp32")
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--embed-dim", type=int, default=64)
    ap.add_argument("--context-length", type=int, default=16)
    ap.add_argument("--truncate", action="store_true")
    ap.add_argument("--image-size", type=int, default=32)
    ap.add_argument("--render-lib", default="")
    ap.add_argument("--image-bank", action="store_true")
    ap.add_argument("--hard-negatives", action="store_true")
    ap.add_argument("--pretokenize", action="store_true")
    ap.add_argument("--per-class-acc", action="store_true")
    ap.add_argument("--paraphrase-url", default="")
    ap.add_argument("--save-on-sigterm", action="store_true")
    ap.add_argument("--save-top-k", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--storage", default="ray_results")
    ap.add_argument("--seed", type=int, default=0)
    # make
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--first-shard", type=int, default=0)
    ap.add_argument("--per-shard", type=int, default=512)
    ap.add_argument("--colours", default="")
    ap.add_argument("--paraphrase-frac", type=float, default=0.0)
    return ap.parse_args()


if __name__ == "__main__":
    a = parse()
    torch.set_num_threads(1)
    {"make": main_make, "spawn": main_spawn, "ddp": main_ddp, "lightning": main_lightning, "hf": main_hf,
     "raytrain": main_raytrain}[a.mode](a)
