"""Data-parallel training of a small Transformer encoder-decoder translator (seq2seq) on the parallel corpus written
by make_corpus.py. Ranks come from torchrun/deepspeed/accelerate (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*) or
Slurm (SLURM_PROCID, SLURM_NTASKS). gloo on CPU, DistributedDataParallel (or accelerate's prepare, or a DeepSpeed
engine with --ds-config). Length-bucketed batches (fixed sentence count, or --max-tokens token budget), label-smoothed
cross-entropy, Adam with the inverse-square-root (Noam) schedule, greedy-decoding BLEU on the dev set, checkpoints with
retention, --resume, a SIGTERM handler.
"""
import argparse
import collections
import datetime
import faulthandler
import functools
import glob
import json
import math
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

faulthandler.enable()
# compound words in the crawl can be long; the recursive segmenter needs more than the default 1000 frames
sys.setrecursionlimit(1_000_000)

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--steps", type=int, default=400)
ap.add_argument("--epochs", type=int, default=0, help="train by epochs (each rank runs its own loader to the end)")
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--max-tokens", type=int, default=0, help="token-budget batches instead of a fixed sentence count")
ap.add_argument("--workers", type=int, default=0)
ap.add_argument("--d-model", type=int, default=64)
ap.add_argument("--layers", type=int, default=2)
ap.add_argument("--lr", type=float, default=2.0, help="Noam factor")
ap.add_argument("--warmup", type=int, default=100)
ap.add_argument("--clip", type=float, default=1.0)
ap.add_argument("--eval-every", type=int, default=100)
ap.add_argument("--eval-rank0-only", action="store_true", help="decode the whole dev set on rank 0 only")
ap.add_argument("--dev-limit", type=int, default=64)
ap.add_argument("--save-every", type=int, default=200)
ap.add_argument("--save-dir", default="ckpt")
ap.add_argument("--keep", type=int, default=2, help="checkpoints to keep (0 = all)")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--log-every", type=int, default=20)
ap.add_argument("--timeout-s", type=int, default=1800)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--local_rank", type=int, default=-1)
args = ap.parse_args()


def env_rank():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ and w in os.environ:
            return int(os.environ[r]), int(os.environ[w])
    return 0, 1


RANK, WORLD = env_rank()
os.environ.setdefault("RANK", str(RANK))
os.environ.setdefault("WORLD_SIZE", str(WORLD))
os.environ.setdefault("LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("SLURM_LOCALID", "0")))
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29500")


def log(msg, all_ranks=False):
    if all_ranks or RANK == 0:
        ts = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        print(f"[{ts}] [rank{RANK}] {msg}", flush=True)


STATE = {"step": 0, "save": None}


def on_term(signum, frame):
    log(f"caught {signal.Signals(signum).name} at step {STATE['step']}", all_ranks=True)
    if STATE["save"] is not None and RANK == 0:
        STATE["save"](STATE["step"], tag="preempt")
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, on_term)
os.makedirs("pids", exist_ok=True)
with open(f"pids/rank{RANK}.pid", "w") as f:
    f.write(str(os.getpid()))

timeout = datetime.timedelta(seconds=args.timeout_s)
accelerator = None
if args.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
elif args.accelerate:
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    accelerator = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=timeout)])
else:
    dist.init_process_group("gloo", timeout=timeout)
RANK, WORLD = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
log(f"process group up: backend {dist.get_backend()}, world {WORLD}, master "
    f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}, pid {os.getpid()}, torch {torch.__version__}",
    all_ranks=True)

vocab = json.load(open(os.path.join(args.data, "vocab.json")))
SRC, TGT = vocab["src"], vocab["tgt"]
S2I, T2I = {w: i for i, w in enumerate(SRC)}, {w: i for i, w in enumerate(TGT)}
PAD, BOS, EOS, UNK = 0, 1, 2, 3
PIECES = sorted({w[:k] for w in SRC[4:] for k in range(1, len(w) + 1)}, key=len, reverse=True)
PIECESET = set(PIECES)
log(f"vocab {vocab['version']}: {len(SRC)} source / {len(TGT)} target words")


@functools.lru_cache(maxsize=None)
def segment(word):
    """Split an unknown word into the longest known prefixes (memoised; recursion over the rest of the word)."""
    if not word:
        return ()
    for k in range(min(len(word), 9), 0, -1):
        if word[:k] in PIECESET:
            return (word[:k],) + segment(word[k:])
    return ("<unk>",) + segment(word[1:])


def encode(line, table):
    ids = []
    for w in line.split():
        if w in table:
            ids.append(table[w])
        else:
            ids.extend(table.get(p, UNK) for p in segment(w))
    return ids


def read_shard(path):
    pairs = []
    if path.endswith(".ids"):
        with open(path) as f:
            for line in f:
                s, t = line.rstrip("\n").split("\t")
                pairs.append(([int(x) for x in s.split()], [int(x) for x in t.split()]))
        return pairs
    with open(path) as f:
        for line in f:
            s, t = line.rstrip("\n").split("\t")
            pairs.append((encode(s, S2I), encode(t, T2I)))
    return pairs


shards = sorted(glob.glob(os.path.join(args.data, "train-*.tsv")) + glob.glob(os.path.join(args.data, "train-*.ids")))
mine = shards[RANK::WORLD]
log(f"shards {[os.path.basename(p) for p in mine]}", all_ranks=True)
pairs = []
for p in mine:
    t0 = time.time()
    got = read_shard(p)
    pairs += got
    log(f"loaded {os.path.basename(p)}: {len(got)} pairs in {time.time() - t0:.1f} s", all_ranks=True)


def make_batches(pairs, seed):
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(pairs), generator=g).tolist()
    out = []
    for b0 in range(0, len(order), 100 * args.batch):  # length buckets of 100 batches
        chunk = sorted(order[b0:b0 + 100 * args.batch], key=lambda i: len(pairs[i][0]))
        if args.max_tokens:
            cur, longest = [], 0
            for i in chunk:
                longest = max(longest, len(pairs[i][0]) + 2, len(pairs[i][1]) + 2)
                if cur and longest * (len(cur) + 1) > args.max_tokens:
                    out.append(cur)
                    cur, longest = [], max(len(pairs[i][0]), len(pairs[i][1])) + 2
                cur.append(i)
            if cur:
                out.append(cur)
        else:
            out += [chunk[k:k + args.batch] for k in range(0, len(chunk), args.batch)]
    perm = torch.randperm(len(out), generator=g).tolist()
    return [out[k] for k in perm]


def collate(idx, pairs):
    src = [torch.tensor(pairs[i][0] + [EOS]) for i in idx]
    tgt = [torch.tensor([BOS] + pairs[i][1] + [EOS]) for i in idx]
    return (nn.utils.rnn.pad_sequence(src, batch_first=True, padding_value=PAD),
            nn.utils.rnn.pad_sequence(tgt, batch_first=True, padding_value=PAD))


class BatchSet(torch.utils.data.Dataset):
    def __init__(self, batches, pairs):
        self.batches, self.pairs = batches, pairs

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, k):
        return collate(self.batches[k], self.pairs)


def positions(n, d):
    pos = torch.arange(n).unsqueeze(1)
    div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
    return pe


class Translator(nn.Module):
    def __init__(self, ns, nt, d, layers):
        super().__init__()
        self.d = d
        self.src_emb, self.tgt_emb = nn.Embedding(ns, d, padding_idx=PAD), nn.Embedding(nt, d, padding_idx=PAD)
        self.core = nn.Transformer(d, 4, layers, layers, 4 * d, dropout=0.1, batch_first=True)
        self.out = nn.Linear(d, nt)

    def embed(self, emb, x):
        return emb(x) * math.sqrt(self.d) + positions(x.size(1), self.d)

    def encode(self, src):
        return self.core.encoder(self.embed(self.src_emb, src), src_key_padding_mask=src.eq(PAD))

    def decode(self, tgt, memory, src):
        mask = self.core.generate_square_subsequent_mask(tgt.size(1))
        h = self.core.decoder(self.embed(self.tgt_emb, tgt), memory, tgt_mask=mask, tgt_is_causal=True,
                              tgt_key_padding_mask=tgt.eq(PAD), memory_key_padding_mask=src.eq(PAD))
        return self.out(h)

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src), src)


model = Translator(len(SRC), len(TGT), args.d_model, args.layers)
nparam = sum(p.numel() for p in model.parameters())
log(f"model: Transformer enc-dec d_model {args.d_model}, {args.layers}+{args.layers} layers, {nparam / 1e6:.2f} M parameters")
opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
noam = lambda s: args.lr * args.d_model ** -0.5 * min(max(s, 1) ** -0.5, max(s, 1) * max(args.warmup, 1) ** -1.5)
sched = torch.optim.lr_scheduler.LambdaLR(opt, noam)
engine = None
if args.deepspeed and args.ds_config:
    cfg = json.load(open(args.ds_config))
    log(f"deepspeed config {args.ds_config}: {json.dumps(cfg)}")
    engine, opt, _, sched = deepspeed.initialize(model=model, optimizer=opt, lr_scheduler=sched, config=cfg)
    net = engine
elif accelerator is not None:
    net, opt = accelerator.prepare(model, opt)
else:
    net = nn.parallel.DistributedDataParallel(model)
crit = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)

dev = []
with open(os.path.join(args.data, "dev.tsv")) as f:
    for line in f:
        s, t = line.rstrip("\n").split("\t")
        dev.append((encode(s, S2I), t.split()))


def bleu_stats(hyp, ref):
    st = [len(hyp), len(ref)]
    for n in range(1, 5):
        h = collections.Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r = collections.Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        st += [sum(min(c, r[g]) for g, c in h.items()), max(len(hyp) - n + 1, 0)]
    return st


@torch.no_grad()
def evaluate(step):
    model.eval()
    if args.eval_rank0_only:
        part = dev if RANK == 0 else []
    else:
        part = dev[:args.dev_limit * WORLD][RANK::WORLD]
    stats = torch.zeros(10, dtype=torch.float64)
    t0 = time.time()
    order = sorted(range(len(part)), key=lambda i: len(part[i][0]))
    for b0 in range(0, len(order), 32):
        idx = order[b0:b0 + 32]
        src = nn.utils.rnn.pad_sequence([torch.tensor(part[i][0] + [EOS]) for i in idx], batch_first=True)
        mem = model.encode(src)
        ys = torch.full((len(idx), 1), BOS)
        done = torch.zeros(len(idx), dtype=torch.bool)
        for _ in range(src.size(1) + 10):
            nxt = model.decode(ys, mem, src)[:, -1].argmax(-1)
            ys = torch.cat([ys, nxt[:, None]], 1)
            done |= nxt.eq(EOS)
            if done.all():
                break
        for row, i in zip(ys[:, 1:].tolist(), idx):
            hyp = [TGT[t] for t in row[:row.index(EOS)] if t > EOS] if EOS in row else [TGT[t] for t in row if t > EOS]
            stats += torch.tensor(bleu_stats(hyp, part[i][1]), dtype=torch.float64)
    if not args.eval_rank0_only:
        dist.all_reduce(stats)
    hl, rl = stats[0].item(), stats[1].item()
    prec = [(stats[2 + 2 * k] / max(stats[3 + 2 * k], 1)).item() for k in range(4)]
    bleu = 0.0 if min(prec) == 0 else math.exp(min(0.0, 1 - rl / max(hl, 1)) + sum(math.log(p) for p in prec) / 4)
    log(f"eval step {step}: dev BLEU {100 * bleu:.2f} (p1 {prec[0]:.3f} p4 {prec[3]:.3f}, hyp/ref len "
        f"{hl / max(rl, 1):.3f}, {int(hl)} words decoded in {time.time() - t0:.1f} s)")
    model.train()


def save(step, tag="step"):
    os.makedirs(args.save_dir, exist_ok=True)
    path = os.path.join(args.save_dir, f"{tag}-{step:06d}.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step,
                "vocab": vocab["version"]}, path)
    log(f"saved checkpoint {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
    if args.keep:
        old = sorted(glob.glob(os.path.join(args.save_dir, "step-*.pt")))[:-args.keep]
        for o in old:
            os.remove(o)
            log(f"removed old checkpoint {o}")


STATE["save"] = save
start_step = 0
if args.resume:
    ck = sorted(glob.glob(os.path.join(args.save_dir, "step-*.pt")))
    if ck:
        sd = torch.load(ck[-1], map_location="cpu")
        model.load_state_dict(sd["model"])
        opt.load_state_dict(sd["opt"])
        sched.load_state_dict(sd["sched"])
        start_step = sd["step"]
        log(f"resumed from {ck[-1]} at step {start_step}", all_ranks=True)
    else:
        log("no checkpoint to resume from, starting at step 0")

step, epoch = start_step, 0
ntok, t_last = 0, time.time()
log(f"training: {len(pairs)} pairs on this rank, batch {args.batch if not args.max_tokens else str(args.max_tokens) + ' tokens'}, "
    f"{args.workers} loader workers, " + (f"{args.epochs} epochs" if args.epochs else f"{args.steps} steps"), all_ranks=True)
model.train()
while True:
    epoch += 1
    batches = make_batches(pairs, seed=1000 * epoch + RANK)
    loader = torch.utils.data.DataLoader(BatchSet(batches, pairs), batch_size=None, shuffle=False,
                                         num_workers=args.workers, prefetch_factor=4 if args.workers else None)
    log(f"epoch {epoch}: {len(batches)} batches on this rank", all_ranks=True)
    for src, tgt in loader:
        step += 1
        STATE["step"] = step
        logits = net(src, tgt[:, :-1])
        loss = crit(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1))
        if engine is not None:
            engine.backward(loss)
            engine.step()
            gn = 0.0
        else:
            opt.zero_grad(set_to_none=True)
            if accelerator is not None:
                accelerator.backward(loss)
            else:
                loss.backward()
            gn = nn.utils.clip_grad_norm_(model.parameters(), args.clip if args.clip else float("inf")).item()
            opt.step()
            sched.step()
        ntok += int(tgt[:, 1:].ne(PAD).sum())
        if not math.isfinite(loss.item()):
            log(f"non-finite loss {loss.item()} at step {step} (grad norm {gn}), stopping", all_ranks=True)
            raise FloatingPointError(f"loss is {loss.item()} at step {step}")
        if step % args.log_every == 0:
            dt = time.time() - t_last
            log(f"step {step}/{args.steps if not args.epochs else '-'} | epoch {epoch} | loss {loss.item():.4f} | "
                f"lr {sched.get_last_lr()[0]:.2e} | grad-norm {gn:.3f} | {ntok * WORLD / dt:.0f} tgt tok/s")
            ntok, t_last = 0, time.time()
        if step % args.eval_every == 0:
            evaluate(step)
        if step % args.save_every == 0 and RANK == 0:
            save(step)
        if args.step_sleep:
            time.sleep(args.step_sleep)
        if not args.epochs and step >= args.steps:
            break
    if (args.epochs and epoch >= args.epochs) or (not args.epochs and step >= args.steps):
        break
dist.barrier()
log(f"done: {step} steps, {epoch} epoch(s)", all_ranks=True)
dist.destroy_process_group()
