"""Image captioning on synthetic scenes: small CNN encoder + transformer decoder, teacher forcing, greedy decoding, BLEU.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Lightning Trainer, ddp on CPU),
ray (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, DistributedSampler

COLOURS = {"red": (0.9, 0.1, 0.1), "green": (0.1, 0.8, 0.2), "blue": (0.1, 0.2, 0.9), "yellow": (0.9, 0.9, 0.1),
           "white": (0.95, 0.95, 0.95), "purple": (0.6, 0.1, 0.7)}
COLOURS_V2 = dict(COLOURS, teal=(0.0, 0.5, 0.5), orange=(1.0, 0.55, 0.0))
SHAPES = ("circle", "square", "triangle", "ring")
WHERE = ("left", "right", "top", "bottom", "centre")
SIZES = ("small", "large")
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]


def log(msg: str, rank: int | None = None) -> None:
    prefix = f"[rank {rank}] " if rank is not None else ""
    print(f"{time.strftime('%H:%M:%S')} {prefix}{msg}", flush=True)


class Scenes(Dataset):
    """Deterministic synthetic scenes: one or two coloured shapes on a noisy background, with a template caption."""

    def __init__(self, n: int, seed: int, res: int = 32, templates: str = "v1", preload: bool = False, rank=0):
        self.n, self.seed, self.res = n, seed, res
        self.colours = COLOURS_V2 if templates == "v2" else COLOURS
        self.cache = None
        if preload:
            self.cache = []
            for i in range(n):
                self.cache.append(self.render(i)[0].astype(np.float64))
                if (i + 1) % 2000 == 0:
                    log(f"preloading images {i + 1}/{n} ({res}x{res})", rank)

    def __len__(self) -> int:
        return self.n

    def render(self, i: int):
        rng = np.random.default_rng(self.seed * 1_000_003 + i)
        r = self.res
        img = rng.normal(0.3, 0.05, (r, r, 3)).astype(np.float32)
        names = list(self.colours)
        # the rarer colours of the v2 templates show up in a few percent of the scenes
        colour = names[rng.integers(len(names))] if rng.random() < 0.3 or len(names) == 6 else names[
            rng.integers(6)]
        shape, where, size = SHAPES[rng.integers(4)], WHERE[rng.integers(5)], SIZES[rng.integers(2)]
        cx, cy = {"left": (0.25, 0.5), "right": (0.75, 0.5), "top": (0.5, 0.25), "bottom": (0.5, 0.75),
                  "centre": (0.5, 0.5)}[where]
        rad = (0.12 if size == "small" else 0.22) * r
        yy, xx = np.mgrid[0:r, 0:r]
        dx, dy = xx - cx * r, yy - cy * r
        if shape == "circle":
            m = dx ** 2 + dy ** 2 <= rad ** 2
        elif shape == "square":
            m = (abs(dx) <= rad) & (abs(dy) <= rad)
        elif shape == "triangle":
            m = (dy <= rad) & (dy >= -rad) & (abs(dx) <= (dy + rad) / 2)
        else:
            d = np.sqrt(dx ** 2 + dy ** 2)
            m = (d <= rad) & (d >= rad * 0.6)
        img[m] = self.colours[colour]
        cap = f"a {size} {colour} {shape} on the {where}" if where != "centre" else f"a {size} {colour} {shape} in the centre"
        return img, cap

    def __getitem__(self, i: int):
        if self.cache is not None:
            img, cap = self.cache[i], self.render(i)[1]
        else:
            img, cap = self.render(i)
        return torch.from_numpy(np.ascontiguousarray(img, dtype=np.float32)).permute(2, 0, 1), cap


def build_vocab(captions, min_freq: int = 1) -> dict:
    freq = collections.Counter(w for c in captions for w in c.split())
    words = sorted(w for w, n in freq.items() if n >= min_freq)
    return {w: i for i, w in enumerate(SPECIALS + words)}


def full_vocab() -> dict:
    caps = [f"a {s} {c} {sh} on the {w}" for s in SIZES for c in COLOURS for sh in SHAPES for w in WHERE]
    return build_vocab(caps + ["in the centre"])


class Tokenizer:
    def __init__(self, vocab: dict, max_len: int = 12, pad_id: int = 0, strict: bool = True):
        self.strict = strict
        self.stoi, self.itos, self.max_len = vocab, {i: w for w, i in vocab.items()}, max_len
        self.pad, self.bos, self.eos = pad_id, vocab["<bos>"], vocab["<eos>"]

    def encode(self, caps):
        out = torch.full((len(caps), self.max_len), self.pad, dtype=torch.long)
        for j, c in enumerate(caps):
            ids = [self.bos] + [self.stoi[w] if self.strict else self.stoi.get(w, 3) for w in c.split()] + [self.eos]
            out[j, :len(ids)] = torch.tensor(ids[:self.max_len])
        return out

    def decode(self, ids) -> str:
        words = []
        for t in ids:
            t = int(t)
            if t == self.eos:
                break
            if t in (self.bos, self.pad):
                continue
            words.append(self.itos.get(t, "<unk>"))
        return " ".join(words)


class Captioner(nn.Module):
    def __init__(self, vocab_size: int, d: int = 96, layers: int = 2, heads: int = 4, max_len: int = 64,
                 legacy_gate: bool = False):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.GELU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.GELU(), nn.MaxPool2d(2),
            nn.Conv2d(64, d, 3, padding=1), nn.GELU(), nn.AdaptiveAvgPool2d(4))
        self.pos_img = nn.Parameter(torch.randn(16, d) * 0.02)
        self.emb = nn.Embedding(vocab_size, d)
        self.pos_txt = nn.Parameter(torch.randn(max_len, d) * 0.02)
        layer = nn.TransformerDecoderLayer(d, heads, 4 * d, dropout=0.1, batch_first=True)
        self.dec = nn.TransformerDecoder(layer, layers)
        self.out = nn.Linear(d, vocab_size)
        if legacy_gate:
            self.gate = nn.Linear(d, 1)  # attention gate of an older version, no longer used in forward

    def encode(self, img):
        f = self.enc(img).flatten(2).transpose(1, 2)
        return f + self.pos_img

    def forward(self, img, tokens, pad_mask=None, memory=None):
        mem = self.encode(img) if memory is None else memory
        L = tokens.shape[1]
        x = self.emb(tokens) + self.pos_txt[:L]
        causal = nn.Transformer.generate_square_subsequent_mask(L)
        h = self.dec(x, mem, tgt_mask=causal, tgt_key_padding_mask=pad_mask, tgt_is_causal=True)
        return self.out(h)


@torch.no_grad()
def greedy(model, img, tok: Tokenizer, max_len: int):
    mem = model.encode(img)
    seq = torch.full((img.shape[0], 1), tok.bos, dtype=torch.long)
    done = torch.zeros(img.shape[0], dtype=torch.bool)
    while not bool(done.all()) and (max_len <= 0 or seq.shape[1] < max_len):
        logits = model(img, seq, memory=mem)[:, -1]
        nxt = logits.argmax(-1)
        seq = torch.cat([seq, nxt[:, None]], 1)
        done |= nxt == tok.eos
    return seq


def bleu_counts(hyp: list[str], ref: str):
    """Clipped n-gram matches and totals for n=1..4, hypothesis and reference lengths."""
    r = ref.split()
    m, t = [0] * 4, [0] * 4
    for n in range(1, 5):
        hc = collections.Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        rc = collections.Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        m[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
        t[n - 1] += max(len(hyp) - n + 1, 0)
    return m + t + [len(hyp), len(r)]


def bleu_from(c) -> float:
    m, t, hl, rl = c[:4], c[4:8], c[8], c[9]
    if min(m) == 0:
        return 0.0
    bp = 1.0 if hl > rl else math.exp(1 - rl / max(hl, 1))
    return bp * math.exp(sum(math.log(m[i] / t[i]) for i in range(4)) / 4)


def external_bleu(pairs, scorer: str) -> list[float]:
    """Sentence BLEU from the team's scorer script (one 'hyp\\tref' per line in, one score per line out)."""
    p = subprocess.Popen([sys.executable, scorer], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for h, r in pairs:
        p.stdin.write(f"{h}\t{r}\n")
    p.stdin.close()
    scores = [float(x) for x in p.stdout.read().split()]
    p.wait()
    return scores


def setup(rank: int, world: int, args) -> None:
    if dist.is_initialized():
        return
    if args.port_from_name:
        port = 29600 + hash(args.run_name) % 100
        method = f"tcp://127.0.0.1:{port}"
        log(f"init_process_group(gloo, {method}, world_size={world})", rank)
        dist.init_process_group("gloo", init_method=method, rank=rank, world_size=world,
                                timeout=__import__("datetime").timedelta(seconds=args.pg_timeout))
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world,
                                timeout=__import__("datetime").timedelta(seconds=args.pg_timeout))


def train(rank: int, world: int, args, bank=None) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    setup(rank, world, args)
    log(f"process group up: backend={dist.get_backend()} world_size={dist.get_world_size()}", rank)
    if args.handle_sigterm:
        def on_term(signum, frame):
            log("received SIGTERM, writing preemption checkpoint", rank)
            if rank == 0:
                torch.save({"step": state["step"], "model": model.module.state_dict()},
                           os.path.join(args.ckpt_dir, "preempt.pt"))
                log(f"saved {args.ckpt_dir}/preempt.pt (step {state['step']})", rank)
            sys.exit(143)
        signal.signal(signal.SIGTERM, on_term)
    state = {"step": 0}
    train_set = Scenes(args.train_size, 0, args.res, args.templates, preload=args.preload, rank=rank)
    val_set = Scenes(args.val_size, 1, args.res, "v1")
    if bank is not None:
        log(f"using shared image bank {tuple(bank.shape)} {bank.dtype}", rank)
    sampler = DistributedSampler(train_set, world, rank, shuffle=True, seed=args.seed)
    if args.vocab_file:
        vocab = json.load(open(args.vocab_file))
        log(f"vocab: {len(vocab)} tokens from {args.vocab_file}", rank)
    elif args.vocab_from_shard:
        idx = list(sampler)[:args.vocab_scan]
        vocab = build_vocab([train_set.render(i)[1] for i in idx], args.min_freq)
        log(f"vocab: {len(vocab)} tokens (min_freq {args.min_freq}) built from {len(idx)} captions of this "
            f"rank's shard", rank)
    else:
        vocab = full_vocab()
        log(f"vocab: {len(vocab)} tokens", rank)
    tok = Tokenizer(vocab, 12, args.pad_id, strict=not args.vocab_from_shard)
    model = Captioner(len(vocab), legacy_gate=args.legacy_gate)
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        log(f"Captioner: encoder 3 conv + decoder {2}x d=96 heads=4, {n / 1e6:.2f}M params", rank)
    model = nn.parallel.DistributedDataParallel(model, find_unused_parameters=args.find_unused)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    if args.linear_warmup_only:
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / args.warmup)
    else:
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / args.warmup))
    loader = DataLoader(train_set, batch_size=args.batch, sampler=sampler, num_workers=args.workers,
                        drop_last=True, persistent_workers=args.workers > 0)
    vsampler = DistributedSampler(val_set, world, rank, shuffle=False)
    vloader = DataLoader(val_set, batch_size=64, sampler=vsampler)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    step, epoch, t0, ntok = 0, 0, time.time(), 0
    if rank == 0:
        log(f"training {args.steps} steps, batch {args.batch}/rank, lr {args.lr}, eval every {args.eval_every}", rank)
    while step < args.steps:
        sampler.set_epoch(epoch)
        for img, caps in loader:
            ids = tok.encode(caps)
            inp, tgt = ids[:, :-1], ids[:, 1:]
            pad_mask = inp == tok.pad
            logits = model(img, inp, pad_mask)
            if args.loss_impl == "manual":  # label-smoothed NLL written out
                logp = logits.softmax(-1).log()
                V = logits.shape[-1]
                target = torch.full_like(logp, 0.05 / V).scatter_(-1, tgt[..., None], 1 - 0.05 + 0.05 / V)
                keep = (tgt != tok.pad).float()
                loss = (-(target * logp).sum(-1) * keep).sum() / keep.sum()
            else:
                loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1),
                                       ignore_index=tok.pad, label_smoothing=0.05)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip) if args.clip > 0 else torch.tensor(0.)
            opt.step()
            sched.step()
            step += 1
            state["step"] = step
            ntok += int((tgt != tok.pad).sum())
            if step % args.log_every == 0:
                dt = time.time() - t0
                log(f"epoch {epoch} step {step:4d}/{args.steps} loss {loss.item():.4f} grad_norm {float(gn):.3f} "
                    f"lr {sched.get_last_lr()[0]:.2e} tok/s {ntok / dt:.0f}", rank)
                t0, ntok = time.time(), 0
            if step % args.eval_every == 0 or step == args.steps:
                evaluate(model, vloader, tok, rank, world, step, args)
                if rank == 0:
                    path = os.path.join(args.ckpt_dir, f"captioner-step{step:05d}.pt")
                    torch.save({"step": step, "model": model.module.state_dict(), "opt": opt.state_dict(),
                                "vocab": vocab}, path)
                    log(f"saved checkpoint {path}", rank)
                dist.barrier()
            if step >= args.steps:
                break
        epoch += 1
    log(f"done ({step} steps)", rank)
    dist.barrier()
    dist.destroy_process_group()


def evaluate(model, vloader, tok, rank, world, step, args) -> None:
    model.eval()
    counts = torch.zeros(10, dtype=torch.float64)
    vloss, nb, shown, pairs = 0.0, 0, 0, []
    attn_dump = []
    t0 = time.time()
    with torch.no_grad():
        for img, caps in vloader:
            ids = tok.encode(caps)
            logits = model(img, ids[:, :-1], ids[:, :-1] == tok.pad)
            vloss += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                                     ignore_index=tok.pad).item()
            nb += 1
            seq = greedy(model.module, img, tok, args.max_len)
            for s, ref in zip(seq, caps):
                hyp = tok.decode(s[1:])
                counts += torch.tensor(bleu_counts(hyp.split(), ref), dtype=torch.float64)
                pairs.append((hyp, ref))
                if rank == 0 and shown < 2:
                    log(f"  sample: pred='{hyp}' ref='{ref}'", rank)
                    shown += 1
            if args.dump_attn:
                mem = model.module.encode(img)
                attn_dump.append({"memory": mem.repeat(1, 8, 1).clone(), "ids": seq, "captions": caps})
    if args.dump_attn:
        os.makedirs(args.dump_attn, exist_ok=True)
        path = os.path.join(args.dump_attn, f"eval-step{step:05d}-rank{rank}.pt")
        torch.save(attn_dump, path)
        log(f"wrote encoder memory dump {path}", rank)
    if args.scorer and rank == 0:
        s = external_bleu(pairs * args.scorer_repeat, args.scorer)
        log(f"scorer: mean sentence BLEU {sum(s) / max(len(s), 1):.4f} over {len(s)} captions", rank)
    dist.all_reduce(counts)
    vl = torch.tensor([vloss, nb], dtype=torch.float64)
    dist.all_reduce(vl)
    if rank == 0:
        log(f"eval @ step {step}: val_loss {vl[0] / vl[1]:.4f} BLEU-4 {bleu_from(counts.tolist()):.4f} "
            f"({int(counts[9])} ref tokens, {time.time() - t0:.1f}s)", rank)
    model.train()


def spawn_main(args) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29600")
    bank = None
    if args.share_bank:
        ds = Scenes(args.train_size, 0, args.res)
        log(f"building image bank: {args.train_size} scenes at {args.res}x{args.res}")
        bank = torch.stack([ds[i][0] for i in range(args.train_size)])
        log(f"image bank {tuple(bank.shape)} ({bank.numel() * 4 / 2**20:.0f} MiB), sharing with workers")
        bank.share_memory_()
    log(f"spawning {args.nprocs} processes (world_size {args.world_size or args.nprocs})")
    torch.multiprocessing.spawn(train, args=(args.world_size or args.nprocs, args, bank), nprocs=args.nprocs)
    log("all ranks finished")


def ddp_main(args) -> None:
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args)


def lightning_main(args) -> None:
    import lightning as L

    vocab = full_vocab()
    tok = Tokenizer(vocab, 12)

    class LitCaptioner(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = Captioner(len(vocab))

        def training_step(self, batch, i):
            img, caps = batch
            ids = tok.encode(caps)
            logits = self.model(img, ids[:, :-1], ids[:, :-1] == tok.pad)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1), ignore_index=0)
            self.log("train_loss", loss, prog_bar=True)
            if (self.global_step + 1) % args.log_every == 0:
                log(f"step {self.global_step + 1}/{args.steps} loss {loss.item():.4f}", self.global_rank)
            return loss

        def validation_step(self, batch, i):
            img, caps = batch
            seq = greedy(self.model, img, tok, args.max_len)
            c = torch.zeros(10, dtype=torch.float64)
            for s, ref in zip(seq, caps):
                c += torch.tensor(bleu_counts(tok.decode(s[1:]).split(), ref), dtype=torch.float64)
            ids = tok.encode(caps)
            logits = self.model(img, ids[:, :-1], ids[:, :-1] == tok.pad)
            vl = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1), ignore_index=0)
            self.log("val_loss", vl, sync_dist=True)
            self.log("val_bleu4", bleu_from(c.tolist()), sync_dist=True, batch_size=img.shape[0])

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=args.lr)

    torch.set_num_threads(1)
    train_loader = DataLoader(Scenes(args.train_size, 0, args.res), batch_size=args.batch, shuffle=True,
                              num_workers=args.workers)
    val_loader = DataLoader(Scenes(args.val_size, 1, args.res), batch_size=64, num_workers=0)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_steps=args.steps,
                        val_check_interval=args.eval_every, check_val_every_n_epoch=None, log_every_n_steps=10,
                        default_root_dir=args.ckpt_dir, enable_progress_bar=False)
    trainer.fit(LitCaptioner(), train_loader, val_loader)
    if trainer.global_rank == 0:
        log(f"fit finished: {trainer.callback_metrics}")


def ray_main(args) -> None:
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))

    def loop(cfg):
        import ray.train
        ctx = ray.train.get_context()
        train(ctx.get_world_rank(), ctx.get_world_size(), args)

    res = {"CPU": 0.5}
    if args.ray_resource:
        res[args.ray_resource] = 1
    trainer = TorchTrainer(loop, scaling_config=ScalingConfig(num_workers=args.nprocs, resources_per_worker=res),
                           run_config=RunConfig(name="captioner", storage_path=args.ckpt_dir + "/ray_results"))
    result = trainer.fit()
    log(f"ray train finished: {result}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "ray"])
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--world-size", type=int, default=0)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--train-size", type=int, default=20000)
    ap.add_argument("--val-size", type=int, default=256)
    ap.add_argument("--res", type=int, default=32)
    ap.add_argument("--max-len", type=int, default=12)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--pad-id", type=int, default=0)
    ap.add_argument("--templates", default="v1")
    ap.add_argument("--vocab-file", default="")
    ap.add_argument("--vocab-from-shard", action="store_true")
    ap.add_argument("--vocab-scan", type=int, default=300)
    ap.add_argument("--min-freq", type=int, default=1)
    ap.add_argument("--loss-impl", default="builtin")
    ap.add_argument("--linear-warmup-only", action="store_true")
    ap.add_argument("--preload", action="store_true")
    ap.add_argument("--share-bank", action="store_true")
    ap.add_argument("--dump-attn", default="")
    ap.add_argument("--scorer", default="")
    ap.add_argument("--scorer-repeat", type=int, default=1)
    ap.add_argument("--find-unused", action="store_true")
    ap.add_argument("--legacy-gate", action="store_true")
    ap.add_argument("--handle-sigterm", action="store_true")
    ap.add_argument("--port-from-name", action="store_true")
    ap.add_argument("--run-name", default="captioner-base")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ray-resource", default="")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    {"spawn": spawn_main, "ddp": ddp_main, "lightning": lightning_main, "ray": ray_main}[args.mode](args)


if __name__ == "__main__":
    main()
