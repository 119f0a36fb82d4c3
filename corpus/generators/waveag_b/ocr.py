"""CRNN text-line recogniser (conv features + BiGRU + CTC) on synthetic rendered text lines.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Trainer, ddp on CPU),
hf (transformers Trainer, under torchrun), tune (Ray Tune sweep, one process per trial).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. "
CHAR2ID = {c: i + 1 for i, c in enumerate(ALPHABET)}  # 0 is the CTC blank
GLYPH_H, GLYPH_W = 7, 5
H, W = 24, 160


def glyph_table() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    table = {}
    for c in ALPHABET:
        if c == " ":
            table[c] = np.zeros((GLYPH_H, GLYPH_W), np.float32)
            continue
        g = (rng.random((GLYPH_H, GLYPH_W)) < 0.45).astype(np.float32)
        g[:, 0] = np.maximum(g[:, 0], rng.random(GLYPH_H) < 0.6)
        table[c] = g
    return table


GLYPHS = glyph_table()


def skew_rows(img: np.ndarray, shift: int) -> np.ndarray:
    """Shear the line: row r is shifted by r*shift/rows pixels (a view over a padded buffer, no copy)."""
    rows, cols = img.shape
    pad = np.zeros((rows + 2, cols + abs(shift) * 2 + 2), img.dtype)
    pad[1:rows + 1, abs(shift) + 1:abs(shift) + 1 + cols] = img
    step = pad.strides[0] + (shift // max(rows, 1)) * pad.strides[1]
    view = np.lib.stride_tricks.as_strided(pad[1:, abs(shift) + 1:], shape=(rows, cols),
                                           strides=(step, pad.strides[1]))
    return np.array(view)


def render(text: str, rng: np.random.Generator, args) -> np.ndarray:
    img = np.zeros((H, W), np.float32)
    x = int(rng.integers(1, 6))
    y = int(rng.integers(2, H - 2 * GLYPH_H + 1))
    for c in text:
        g = np.kron(GLYPHS[c], np.ones((2, 2), np.float32))
        gw = g.shape[1]
        if x + gw > W:
            break
        img[y:y + g.shape[0], x:x + gw] = np.maximum(img[y:y + g.shape[0], x:x + gw], g)
        x += gw + int(rng.integers(1, 3))
    if args.skew:
        img = skew_rows(img, int(rng.integers(-args.skew, args.skew + 1)))
    img = img * rng.uniform(0.6, 1.0) + rng.normal(0, args.noise, img.shape).astype(np.float32)
    return img.astype(np.float32)


def make_text(rng: np.random.Generator, args, lexicon) -> str:
    if lexicon:
        words = [lexicon[int(rng.integers(len(lexicon)))] for _ in range(int(rng.integers(1, 3)))]
        return " ".join(words)
    n = int(rng.integers(args.min_chars, args.max_chars + 1))
    return "".join(ALPHABET[int(rng.integers(len(ALPHABET) - 1))] for _ in range(n))


class LineSet(torch.utils.data.Dataset):
    def __init__(self, n: int, seed: int, args, rank: int = 0, world: int = 1):
        self.args, self.seed = args, seed
        self.lexicon = None
        if args.lexicon:
            with open(args.lexicon, encoding="utf-8") as f:
                lines = [ln.strip() for ln in f if ln.strip()]
            self.lexicon = lines[rank::world]
        self.idx = list(range(rank, n, world))
        self.cache = None
        if args.prerender_scale:
            per = H * args.prerender_scale * W * args.prerender_scale * 8
            print(f"[rank {rank}] pre-rendering {len(self.idx)} lines at x{args.prerender_scale} "
                  f"({len(self.idx) * per / 2**30:.2f} GiB float64)", flush=True)
            self.cache = []
            for k in range(len(self.idx)):
                img, txt = self._make(k)
                big = np.kron(img.astype(np.float64), np.ones((args.prerender_scale, args.prerender_scale)))
                self.cache.append((big, txt))
                if (k + 1) % 2000 == 0:
                    print(f"[rank {rank}] pre-rendered {k + 1}/{len(self.idx)}", flush=True)

    def __len__(self):
        return len(self.idx)

    def _make(self, k):
        rng = np.random.default_rng(self.seed * 1_000_003 + self.idx[k])
        txt = make_text(rng, self.args, self.lexicon)
        return render(txt, rng, self.args), txt

    def __getitem__(self, k):
        if self.cache is not None:
            big, txt = self.cache[k]
            s = self.args.prerender_scale
            img = big[::s, ::s].astype(np.float32)
        else:
            img, txt = self._make(k)
        target = [CHAR2ID[c] for c in txt]
        return torch.from_numpy(img)[None], torch.tensor(target, dtype=torch.long), txt


def collate(batch):
    imgs = torch.stack([b[0] for b in batch])
    lens = torch.tensor([len(b[1]) for b in batch], dtype=torch.long)
    tg = torch.cat([b[1] for b in batch])
    return {"pixel_values": imgs, "labels": tg, "label_lengths": lens, "texts": [b[2] for b in batch]}


class CRNN(nn.Module):
    def __init__(self, width: int = 64, fast: bool = False):
        super().__init__()
        pw = 4 if fast else 2

        def block(i, o, pool):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(pool))

        self.features = nn.Sequential(block(1, 16, (2, pw)), block(16, 32, (2, pw)), block(32, 64, (2, 1)))
        self.rnn = nn.GRU(64 * 3, width, bidirectional=True, batch_first=True)
        self.head = nn.Linear(2 * width, len(ALPHABET) + 1)
        self.ctc = nn.CTCLoss(blank=0, reduction="mean")

    def forward(self, pixel_values, labels=None, label_lengths=None, texts=None):
        f = self.features(pixel_values)  # B, C, 3, T
        b, c, h, t = f.shape
        f = f.permute(0, 3, 1, 2).reshape(b, t, c * h)
        y, _ = self.rnn(f)
        logits = self.head(y)  # B, T, K
        out = {"logits": logits}
        if labels is not None:
            lp = logits.log_softmax(-1).transpose(0, 1)
            il = torch.full((b,), t, dtype=torch.long)
            out["loss"] = self.ctc(lp, labels, il, label_lengths)
        return out


def greedy(logits) -> list[str]:
    best = logits.argmax(-1).tolist()
    res = []
    for seq in best:
        s, prev = [], 0
        for k in seq:
            if k != prev and k != 0:
                s.append(ALPHABET[k - 1])
            prev = k
        res.append("".join(s))
    return res


def beam_decode(logprobs: np.ndarray, beam: int) -> str:
    """CTC prefix beam search (pure Python)."""
    beams = {(): (0.0, -1e30)}  # prefix -> (log p ending in blank, log p ending in non-blank)

    def lse(a, b):
        m = max(a, b)
        return m + math.log(math.exp(a - m) + math.exp(b - m)) if m > -1e29 else -1e30

    for t in range(logprobs.shape[0]):
        nxt: dict = {}
        for prefix, (pb, pnb) in beams.items():
            for k in range(logprobs.shape[1]):
                p = float(logprobs[t, k])
                if k == 0:
                    ob, onb = nxt.get(prefix, (-1e30, -1e30))
                    nxt[prefix] = (lse(ob, lse(pb, pnb) + p), onb)
                    continue
                np_ = prefix + (k,)
                ob, onb = nxt.get(np_, (-1e30, -1e30))
                if prefix and prefix[-1] == k:
                    nxt[np_] = (ob, lse(onb, pb + p))
                    sb, snb = nxt.get(prefix, (-1e30, -1e30))
                    nxt[prefix] = (sb, lse(snb, pnb + p))
                else:
                    nxt[np_] = (ob, lse(onb, lse(pb, pnb) + p))
        beams = dict(sorted(nxt.items(), key=lambda kv: -lse(*kv[1]))[:beam])
    best = max(beams.items(), key=lambda kv: lse(*kv[1]))[0]
    return "".join(ALPHABET[k - 1] for k in best)


def edit_distance(a: str, b: str) -> int:
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev, d[j] = d[j], cur
    return d[-1]


# ---------------------------------------------------------------------------------------------------------------------
def train_loop(rank: int, world: int, args) -> dict:
    torch.manual_seed(args.seed)
    ddp = world > 1
    model = CRNN(args.width, fast=args.encoder == "fast")
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        print(f"CRNN: {n / 1e3:.1f}k parameters, encoder={args.encoder}, alphabet={len(ALPHABET)} symbols + blank",
              flush=True)
    if ddp:
        model = nn.parallel.DistributedDataParallel(model)
    train = LineSet(args.train_lines, args.seed, args, rank, world)
    val = LineSet(args.val_lines, args.seed + 7, args, rank, world)
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, collate_fn=collate,
                                     num_workers=args.workers, drop_last=True)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, collate_fn=collate, num_workers=0)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * len(tl)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.2)
    print(f"[rank {rank}] {len(train)} train lines, {len(val)} val lines, {len(tl)} steps/epoch", flush=True)
    best, step, res = 1e9, 0, {}
    os.makedirs(args.ckpt_dir, exist_ok=True)
    for epoch in range(args.epochs):
        model.train()
        t0, seen = time.time(), 0
        for batch in tl:
            out = model(batch["pixel_values"], batch["labels"], batch["label_lengths"])
            loss = out["loss"]
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            sched.step()
            step += 1
            seen += len(batch["texts"])
            if step % args.log_every == 0 and rank == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} grad_norm {gn.item():.3f} "
                      f"lr {sched.get_last_lr()[0]:.2e} {seen * world / (time.time() - t0):.0f} lines/s", flush=True)
        # ---- eval
        model.eval()
        errs = torch.zeros(3)  # edits, chars, val loss sum
        nb = 0
        pred_lens: list[int] = []
        beam_errs = 0
        with torch.no_grad():
            for batch in vl:
                out = model(batch["pixel_values"], batch["labels"], batch["label_lengths"])
                preds = greedy(out["logits"])
                pred_lens += [len(p) for p in preds]
                for p, t in zip(preds, batch["texts"]):
                    errs[0] += edit_distance(p, t)
                    errs[1] += len(t)
                errs[2] += out["loss"].item()
                nb += 1
                if args.beam and rank == 0:
                    lps = out["logits"].log_softmax(-1).numpy()
                    for lp, t in zip(lps, batch["texts"]):
                        beam_errs += edit_distance(beam_decode(lp, args.beam), t)
        if args.beam and rank == 0:
            print(f"epoch {epoch} beam-{args.beam} CER (rank 0 shard) {beam_errs / max(errs[1].item(), 1):.4f}",
                  flush=True)
        if args.length_hist:
            hist = torch.zeros(max(pred_lens) + 1)
            for n_ in pred_lens:
                hist[n_] += 1
            if ddp:
                dist.all_reduce(hist)
            if rank == 0:
                print(f"epoch {epoch} predicted length histogram {hist.int().tolist()}", flush=True)
        errs[2] /= max(nb, 1)
        if ddp:
            dist.all_reduce(errs)
            errs[2] /= world
        cer = (errs[0] / errs[1]).item()
        res = {"cer": cer, "val_loss": errs[2].item(), "epoch": epoch}
        if rank == 0:
            print(f"epoch {epoch} val_loss {errs[2].item():.4f} CER {cer:.4f} ({time.time() - t0:.1f} s)", flush=True)
            raw = model.module if ddp else model
            torch.save({"model": raw.state_dict(), "epoch": epoch, "cer": cer}, os.path.join(args.ckpt_dir, "last.pt"))
            if cer < best:
                best = cer
                torch.save({"model": raw.state_dict(), "epoch": epoch, "cer": cer},
                           os.path.join(args.ckpt_dir, "best.pt"))
                print(f"saved best.pt (CER {cer:.4f})", flush=True)
    return res


def init_pg(rank, world, args):
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))


def spawn_worker(rank, world, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    init_pg(rank, world, args)
    train_loop(rank, world, args)
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_spawn(args):
    # WORLD_SIZE from the environment when a scheduler sets it (several nodes, nprocs ranks each)
    world = int(os.environ.get("WORLD_SIZE", args.nprocs))
    print(f"spawning {args.nprocs} ranks (gloo), world_size={world}, MASTER_PORT={os.environ.get('MASTER_PORT')}",
          flush=True)
    torch.multiprocessing.spawn(spawn_worker, args=(world, args), nprocs=args.nprocs, join=True)


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

    class LitOCR(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = CRNN(args.width)

        def training_step(self, batch, _):
            loss = self.model(batch["pixel_values"], batch["labels"], batch["label_lengths"])["loss"]
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, _):
            out = self.model(batch["pixel_values"], batch["labels"], batch["label_lengths"])
            preds = greedy(out["logits"])
            e = sum(edit_distance(p, t) for p, t in zip(preds, batch["texts"]))
            n = sum(len(t) for t in batch["texts"])
            self.log("val_loss", out["loss"], sync_dist=True)
            self.log("val_cer", e / n, sync_dist=True, prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=args.lr)

    train = LineSet(args.train_lines, args.seed, args)
    val = LineSet(args.val_lines, args.seed + 7, args)
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, collate_fn=collate)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, collate_fn=collate)
    from lightning.pytorch.callbacks import ModelCheckpoint
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_epochs=args.epochs,
                        log_every_n_steps=args.log_every, default_root_dir=args.ckpt_dir,
                        callbacks=[ModelCheckpoint(monitor="val_cer", mode="min")], enable_progress_bar=False)
    trainer.fit(LitOCR(), tl, vl)
    if trainer.global_rank == 0:
        print(f"fit finished: {trainer.callback_metrics}", flush=True)


def main_hf(args):
    import transformers
    from transformers import Trainer, TrainingArguments

    rank = int(os.environ.get("RANK", 0))
    if rank == 0:
        print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)

    class HFCRNN(CRNN):
        def forward(self, pixel_values, labels=None, label_lengths=None, texts=None):
            return super().forward(pixel_values, labels, label_lengths)

    def hf_collate(batch):
        d = collate(batch)
        d.pop("texts")
        return d

    kw = dict(output_dir=args.ckpt_dir, per_device_train_batch_size=args.batch, per_device_eval_batch_size=args.batch,
              num_train_epochs=args.epochs, learning_rate=args.lr, logging_steps=args.log_every,
              save_strategy="epoch", eval_strategy="epoch", report_to=[], use_cpu=True, ddp_backend="gloo",
              remove_unused_columns=False, dataloader_num_workers=0, disable_tqdm=True, save_total_limit=args.keep)
    if args.hf_args:
        kw.update(json.loads(open(args.hf_args).read()))
    targs = TrainingArguments(**kw)
    model = HFCRNN(args.width)
    train = LineSet(args.train_lines, args.seed, args)
    val = LineSet(args.val_lines, args.seed + 7, args)
    trainer = Trainer(model=model, args=targs, train_dataset=train, eval_dataset=val, data_collator=hf_collate)
    trainer.train()
    if trainer.is_world_process_zero():
        m = model.eval()
        e = n = 0
        with torch.no_grad():
            for batch in torch.utils.data.DataLoader(val, batch_size=args.batch, collate_fn=collate):
                for p, t in zip(greedy(m(batch["pixel_values"])["logits"]), batch["texts"]):
                    e += edit_distance(p, t)
                    n += len(t)
        print(f"final val CER {e / n:.4f}", flush=True)
        print("training finished", flush=True)


def main_tune(args):
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))

    def trainable(config):
        import tempfile
        from ray.tune import Checkpoint

        a = argparse.Namespace(**vars(args))
        a.lr, a.width = config["lr"], config["width"]
        torch.set_num_threads(1)
        model = CRNN(a.width)
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr)
        train = LineSet(a.train_lines, a.seed, a)
        val = LineSet(a.val_lines, a.seed + 7, a)
        tl = torch.utils.data.DataLoader(train, batch_size=a.batch, shuffle=True, collate_fn=collate)
        vl = torch.utils.data.DataLoader(val, batch_size=a.batch, collate_fn=collate)
        for epoch in range(a.epochs):
            model.train()
            for i, batch in enumerate(tl):
                loss = model(batch["pixel_values"], batch["labels"], batch["label_lengths"])["loss"]
                opt.zero_grad()
                loss.backward()
                opt.step()
                if i % a.log_every == 0:
                    print(f"epoch {epoch} batch {i} loss {loss.item():.4f}", flush=True)
            model.eval()
            e = n = 0
            with torch.no_grad():
                for batch in vl:
                    for p, t in zip(greedy(model(batch["pixel_values"])["logits"]), batch["texts"]):
                        e += edit_distance(p, t)
                        n += len(t)
            with tempfile.TemporaryDirectory() as d:
                torch.save(model.state_dict(), os.path.join(d, "model.pt"))
                tune.report({"cer": e / n, "epoch": epoch}, checkpoint=Checkpoint.from_directory(d))

    space = {"lr": tune.loguniform(3e-4, 1e-2), "width": tune.choice([32, 48, 64])}
    res = {"cpu": 1}
    if args.trial_memory_gb:
        res["memory"] = args.trial_memory_gb * 2**30
    tuner = tune.Tuner(tune.with_resources(trainable, res), param_space=space,
                       tune_config=tune.TuneConfig(metric="cer", mode="min", num_samples=args.trials,
                                                   scheduler=ASHAScheduler(max_t=args.epochs, grace_period=1)),
                       run_config=tune.RunConfig(name="crnn_sweep", storage_path=os.path.abspath("ray_results"),
                                                 verbose=1))
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial: {best.config} cer {best.metrics['cer']:.4f}", flush=True)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "hf", "tune"])
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--train-lines", type=int, default=1024)
    ap.add_argument("--val-lines", type=int, default=256)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--min-chars", type=int, default=4)
    ap.add_argument("--max-chars", type=int, default=10)
    ap.add_argument("--noise", type=float, default=0.15)
    ap.add_argument("--skew", type=int, default=0)
    ap.add_argument("--encoder", choices=["base", "fast"], default="base")
    ap.add_argument("--lexicon", default="")
    ap.add_argument("--prerender-scale", type=int, default=0)
    ap.add_argument("--beam", type=int, default=0)
    ap.add_argument("--length-hist", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--keep", type=int, default=None)
    ap.add_argument("--hf-args", default="")
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("--trial-memory-gb", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


if __name__ == "__main__":
    a = parse()
    torch.set_num_threads(1)
    {"spawn": main_spawn, "ddp": main_ddp, "lightning": main_lightning, "hf": main_hf, "tune": main_tune}[a.mode](a)
