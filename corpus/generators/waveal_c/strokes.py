"""Online handwriting (pen stroke) recogniser: synthetic pen trajectories of a small alphabet drawn from Bezier
templates, a 1-D conv + bidirectional LSTM encoder trained with CTC over the character sequence, greedy decoding and
character error rate (CER) averaged over ranks. PaddlePaddle, data parallel on the CPU (gloo).

    python strokes.py make --out data [...]                       # write the ink shards
    python -m paddle.distributed.launch --nproc_per_node 2 strokes.py [...]   # train (one process per rank)
    python strokes.py --spawn 2 [...]                             # train with paddle.distributed.spawn
"""
from __future__ import annotations

import argparse
import fileinput
import glob
import json
import math
import os
import sys
import time

import numpy as np

ALPHABET = "abcdefghij"  # the tablet app's practice alphabet
BLANK = 0  # CTC blank; character c has class ALPHABET.index(c) + 1


# ----------------------------------------------------------------------------------------------------------------------
# synthetic ink
def templates(seed: int = 7) -> dict[str, list[np.ndarray]]:
    """Each character: 1-2 strokes of 1-3 chained cubic Bezier segments (control points in the unit box)."""
    out = {}
    for k, ch in enumerate(ALPHABET):
        rng = np.random.RandomState(seed * 100 + k)
        strokes = []
        for _ in range(1 + (k % 3 == 0)):
            p = rng.uniform(0.1, 0.9, 2)
            segs = []
            for _ in range(rng.randint(1, 4)):
                c = np.vstack([p, rng.uniform(0, 1, (3, 2))])
                segs.append(c)
                p = c[-1]
            strokes.append(np.stack(segs))
        out[ch] = strokes
    return out


def bezier(c: np.ndarray, n: int) -> np.ndarray:
    t = np.linspace(0, 1, n)[:, None]
    return ((1 - t) ** 3) * c[0] + 3 * ((1 - t) ** 2) * t * c[1] + 3 * (1 - t) * t * t * c[2] + (t ** 3) * c[3]


def draw_word(word: str, tpl: dict, rng: np.random.RandomState, pps: int, dots: bool = False) -> np.ndarray:
    """Pen points (x, y, pen_up) of one word written at pps points per Bezier segment; with dots, the dot over
    i and j is recorded as a tap (a stroke whose points all sit at one position)."""
    pts = []
    slant, scale, x0 = rng.normal(0, 0.15), rng.uniform(0.85, 1.15), 0.0
    for ch in word:
        for stroke in tpl[ch.lower()]:
            seg_pts = []
            for c in stroke:
                cj = c + rng.normal(0, 0.03, c.shape)
                n = max(2, int(pps * rng.uniform(0.8, 1.25)))
                seg_pts.append(bezier(cj, n))
            s = np.concatenate(seg_pts) * scale
            s[:, 0] += x0 + s[:, 1] * slant
            s += rng.normal(0, 0.004, s.shape)
            up = np.zeros((len(s), 1))
            up[0] = 1.0
            pts.append(np.hstack([s, up]))
        if dots and ch in "ij":
            tap = np.tile([[x0 + 0.5 * scale, 1.15 * scale, 0.0]], (rng.randint(2, 5), 1))
            tap[0, 2] = 1.0
            pts.append(tap)
        x0 += 1.15 * scale + rng.uniform(-0.05, 0.1)
    return np.concatenate(pts).astype(np.float32)


def make(a: argparse.Namespace) -> None:
    os.makedirs(a.out, exist_ok=True)
    tpl = templates()
    rate = dict(kv.split(":") for kv in a.rate.split(",")) if a.rate else {}
    lets = dict(kv.split(":") for kv in a.letters.split(",")) if a.letters else {}
    for split, n_shards, per in (("train", a.train_shards, a.per_shard), ("val", a.val_shards, a.val_per_shard)):
        for s in range(n_shards):
            key = f"{split}-{s:02d}"
            rng = np.random.RandomState(a.seed * 1000 + s + (500 if split == "val" else 0))
            pps = int(rate.get(key, a.pps))
            inks, texts = [], []
            for i in range(per):
                letters = lets.get(key, ALPHABET)
                word = "".join(rng.choice(list(letters), rng.randint(a.min_len, a.max_len + 1)))
                if key in a.capitalised.split(","):  # the new tablet app capitalises the first letter of a word
                    word = word[0].upper() + word[1:]
                ink = draw_word(word, tpl, rng, pps, dots=key in a.dots.split(","))
                if key in a.erased.split(",") and i % 9 == 4:  # crossed-out words: the transcriber left them empty
                    word = ""
                inks.append(ink)
                texts.append(word)
            idx = np.cumsum([0] + [len(k) for k in inks]).astype(np.int64)
            np.save(os.path.join(a.out, f"{key}.ink.npy"), np.concatenate(inks))
            np.save(os.path.join(a.out, f"{key}.idx.npy"), idx)
            with open(os.path.join(a.out, f"{key}.txt"), "w") as f:
                f.write("\n".join(texts) + "\n")
            lens = np.diff(idx)
            print(f"wrote {a.out}/{key}: {per} words, {int(idx[-1])} points, {lens.min()}-{lens.max()} points/word "
                  f"({pps} points/segment)", flush=True)
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump({"alphabet": ALPHABET, "features": ["dx", "dy", "pen_up"], "format": "ink.npy/idx.npy/txt"}, f)


# ----------------------------------------------------------------------------------------------------------------------
# data
class Shard:
    def __init__(self, path: str, mmap: bool) -> None:
        self.path = path
        self.ink = np.load(path + ".ink.npy", mmap_mode="r" if mmap else None)
        self.idx = np.load(path + ".idx.npy")
        with open(path + ".txt") as f:
            self.text = f.read().split("\n")[: len(self.idx) - 1]

    def __len__(self) -> int:
        return len(self.idx) - 1

    def points(self, i: int) -> np.ndarray:
        return np.asarray(self.ink[self.idx[i]:self.idx[i + 1]])


def features(p: np.ndarray, proximity: bool = False, direction: bool = False) -> np.ndarray:
    d = np.diff(p[:, :2], axis=0, prepend=p[:1, :2]) / 0.05
    f = [d, p[:, 2:3]]
    if direction:  # writing direction (cos, sin) from each point to the next; the last point repeats its neighbour's
        v = np.diff(p[:, :2], axis=0)
        u = v / np.linalg.norm(v, axis=1, keepdims=True)
        f.append(np.vstack([u, u[-1:]]))
    if proximity:  # distance from each point to the nearest point drawn more than 8 points earlier or later
        dist = np.sqrt(((p[:, None, :2] - p[None, :, :2]) ** 2).sum(-1))
        band = np.abs(np.arange(len(p))[:, None] - np.arange(len(p))[None, :]) <= 8
        dist[band] = np.inf
        f.append(np.minimum(dist.min(1), 1.0)[:, None])
    return np.hstack(f).astype(np.float32)


def encode(text: str) -> list[int]:
    table = {c: i + 1 for i, c in enumerate(ALPHABET)}
    return [table[c] for c in text]


class Samples:
    def __init__(self, shards: list[Shard], a: argparse.Namespace) -> None:
        self.items = []
        for sh in shards:
            for i in range(len(sh)):
                self.items.append((sh, i))
        self.a = a
        self.cache: dict[int, np.ndarray] = {}
        if a.proximity:  # precompute the proximity channel once
            for k, (sh, i) in enumerate(self.items):
                self.cache[k] = features(sh.points(i), True, a.direction)

    def __len__(self) -> int:
        return len(self.items)

    def get(self, k: int) -> tuple[np.ndarray, list[int], str]:
        sh, i = self.items[k]
        if k in self.cache:
            f = self.cache[k]
        else:
            f = features(sh.points(i), self.a.proximity, self.a.direction)
        return f, encode(sh.text[i]), sh.text[i]


class InkDataset:
    def __init__(self, s: Samples) -> None:
        self.s = s

    def __len__(self) -> int:
        return len(self.s)

    def __getitem__(self, k: int):
        return self.s.get(int(k))


def collate_np(batch):
    x, xl, y, yl, _ = collate(batch)
    return x, xl, y, yl


def collate(batch):
    T = max(len(f) for f, _, _ in batch)
    L = max(1, max(len(y) for _, y, _ in batch))
    x = np.zeros((len(batch), T, batch[0][0].shape[1]), np.float32)
    y = np.zeros((len(batch), L), np.int32)
    xl = np.array([len(f) for f, _, _ in batch], np.int64)
    yl = np.array([len(t) for _, t, _ in batch], np.int64)
    for j, (f, t, _) in enumerate(batch):
        x[j, :len(f)] = f
        y[j, :len(t)] = t
    return x, xl, y, yl, [s for _, _, s in batch]


# ----------------------------------------------------------------------------------------------------------------------
# metric
def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


def greedy(ids: np.ndarray, n: int) -> str:
    out, last = [], BLANK
    for k in ids[:n]:
        if k != last and k != BLANK:
            out.append(ALPHABET[k - 1])
        last = k
    return "".join(out)


def beam(logp: np.ndarray, n: int, width: int) -> str:
    """CTC prefix beam search (no language model), pure Python."""
    beams = {(): (0.0, -math.inf)}  # prefix -> (log p ending in blank, log p ending in non-blank)

    def lse(*v):
        m = max(v)
        return m if m == -math.inf else m + math.log(sum(math.exp(x - m) for x in v))

    for t in range(n):
        nxt: dict = {}
        for prefix, (pb, pnb) in beams.items():
            for c in range(logp.shape[1]):
                p = float(logp[t, c])
                if c == BLANK:
                    b, nb = nxt.get(prefix, (-math.inf, -math.inf))
                    nxt[prefix] = (lse(b, pb + p, pnb + p), nb)
                    continue
                ext = prefix + (c,)
                b, nb = nxt.get(ext, (-math.inf, -math.inf))
                if prefix and prefix[-1] == c:
                    nxt[ext] = (b, lse(nb, pb + p))
                    b2, nb2 = nxt.get(prefix, (-math.inf, -math.inf))
                    nxt[prefix] = (b2, lse(nb2, pnb + p))
                else:
                    nxt[ext] = (b, lse(nb, pb + p, pnb + p))
        beams = dict(sorted(nxt.items(), key=lambda kv: -lse(*kv[1]))[:width])
    best = max(beams.items(), key=lambda kv: lse(*kv[1]))[0]
    return "".join(ALPHABET[k - 1] for k in best)


# ----------------------------------------------------------------------------------------------------------------------
# model
def build_model(n_in: int, a: argparse.Namespace):
    import paddle.nn as nn

    class StrokeCTC(nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Sequential(nn.Conv1D(n_in, 48, 5, padding=2), nn.ReLU(),
                                      nn.Conv1D(48, 64, 3, stride=a.subsample, padding=1), nn.ReLU())
            self.lstm = nn.LSTM(64, a.hidden, direction="bidirect")
            self.head = nn.Linear(2 * a.hidden, len(ALPHABET) + 1)
            if a.pen_aux:
                self.pen = nn.Linear(2 * a.hidden, 1)  # predicts where the pen lifts (multi-stroke words)

        def forward(self, x, with_pen=False):
            h = self.conv(x.transpose([0, 2, 1])).transpose([0, 2, 1])
            h, _ = self.lstm(h)
            if with_pen:
                return self.head(h), self.pen(h)
            return self.head(h)

    return StrokeCTC()


def out_len(xl: np.ndarray, sub: int) -> np.ndarray:
    return (xl + 2 - 3) // sub + 1


# ----------------------------------------------------------------------------------------------------------------------
def train(a: argparse.Namespace) -> None:
    import paddle
    import paddle.distributed as dist
    import paddle.nn.functional as F

    paddle.set_device("cpu")
    world = int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
    if a.fleet:
        from paddle.distributed import fleet
        strategy = fleet.DistributedStrategy()
        fleet.init(is_collective=True, strategy=strategy)
    elif world > 1:
        dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    paddle.seed(a.seed)
    np.random.seed(a.seed + rank)
    if rank == 0:
        print("args: " + " ".join(f"{k}={v}" for k, v in sorted(vars(a).items())), flush=True)
        print(f"paddle {paddle.__version__}, world size {world}, backend "
              f"{os.environ.get('PADDLE_DISTRI_BACKEND', 'gloo')}", flush=True)

    train_paths = sorted(p[:-8] for p in glob.glob(os.path.join(a.data, "train-*.ink.npy")))[rank::world]
    val_paths = sorted(p[:-8] for p in glob.glob(os.path.join(a.data, "val-*.ink.npy")))[rank::world]
    tr_shards = [Shard(p, a.mmap) for p in train_paths]
    lens = np.concatenate([np.diff(s.idx) for s in tr_shards])
    tr = Samples(tr_shards, a)
    va = Samples([Shard(p, False) for p in val_paths], a)
    print(f"rank {rank}: train shards {[os.path.basename(p) for p in train_paths]}, {len(tr)} words, "
          f"{int(lens.min())}-{int(lens.max())} points/word; val {len(va)} words", flush=True)

    lexicon: set[str] = set()
    if a.lexicon:
        with fileinput.input(sorted(glob.glob(a.lexicon))) as f:
            for line in f:
                lexicon.update(line.split())
        print(f"rank {rank}: lexicon of {len(lexicon)} words", flush=True)

    n_in = 3 + a.proximity + 2 * a.direction
    model = build_model(n_in, a)
    n_params = sum(int(np.prod(p.shape)) for p in model.parameters())
    clip = paddle.nn.ClipGradByGlobalNorm(1.0)
    opt = paddle.optimizer.Adam(learning_rate=a.lr, parameters=model.parameters(), grad_clip=clip)
    start_epoch = 0
    if a.resume and os.path.exists(os.path.join(a.ckpt_dir, "last.pdparams")):
        model.set_state_dict(paddle.load(os.path.join(a.ckpt_dir, "last.pdparams")))
        opt.set_state_dict(paddle.load(os.path.join(a.ckpt_dir, "last.pdopt")))
        with open(os.path.join(a.ckpt_dir, "last.json")) as f:
            start_epoch = json.load(f)["epoch"]
        print(f"rank {rank}: resumed from {a.ckpt_dir}/last.pdparams (epoch {start_epoch})", flush=True)
    if a.fleet:
        from paddle.distributed import fleet
        model = fleet.distributed_model(model)
        opt = fleet.distributed_optimizer(opt)
    elif world > 1:
        model = paddle.DataParallel(model)
    if rank == 0:
        print(f"model StrokeCTC: {n_params} parameters, subsample {a.subsample}, hidden {a.hidden}", flush=True)

    best, bad_steps = math.inf, 0
    os.makedirs(a.ckpt_dir, exist_ok=True)
    n_batches = len(tr) // a.batch_size
    for epoch in range(start_epoch + 1, a.epochs + 1):
        t0 = time.time()
        model.train()
        perm = np.random.RandomState(a.seed * 100 + epoch + 7 * rank).permutation(len(tr))
        tot = 0.0
        loader = None
        if a.workers:  # paddle.io.DataLoader with worker processes (batches through shared memory)
            loader = paddle.io.DataLoader(InkDataset(tr), batch_sampler=[list(perm[b * a.batch_size:(b + 1) *
                                          a.batch_size]) for b in range(n_batches)],
                                          collate_fn=collate_np, num_workers=a.workers, use_shared_memory=True)
            batches = iter(loader)
        for b in range(n_batches):
            if loader:
                x, xl, y, yl = (t.numpy() for t in next(batches))
            else:
                x, xl, y, yl, _ = collate([tr.get(k) for k in perm[b * a.batch_size:(b + 1) * a.batch_size]])
            pen_target = x[:, ::a.subsample, 2:3] if a.pen_aux else None
            if a.pen_aux and pen_target.sum() > len(x):  # some word in the batch has more than one stroke
                logits, pen = model(paddle.to_tensor(x), with_pen=True)
                aux = F.binary_cross_entropy_with_logits(pen[:, :pen_target.shape[1]], paddle.to_tensor(pen_target))
            else:
                logits, aux = model(paddle.to_tensor(x)), 0.0
            loss = F.ctc_loss(logits.transpose([1, 0, 2]), paddle.to_tensor(y),
                              paddle.to_tensor(out_len(np.asarray(xl), a.subsample)), paddle.to_tensor(yl),
                              blank=BLANK, reduction="mean") + 0.1 * aux
            loss.backward()
            opt.step()
            opt.clear_grad()
            lv = float(loss)
            tot += lv
            if not math.isfinite(lv):
                bad_steps += 1
                if bad_steps >= 20:
                    print(f"rank {rank}: loss not finite for {bad_steps} consecutive steps (epoch {epoch} step "
                          f"{b + 1}), stopping", flush=True)
                    sys.exit(3)
            else:
                bad_steps = 0
            if (b + 1) % a.log_every == 0 or b == 0:
                print(f"[rank {rank}] epoch {epoch} step {b + 1}/{n_batches} ctc loss {lv:.4f}", flush=True)

        # ---- eval: greedy (or beam) decoding, per-word CER averaged over words, then over ranks
        model.eval()
        cer_sum, n_words, exact, in_lex = 0.0, 0, 0, 0
        char_hits: dict[str, int] = {}
        char_counts: dict[str, int] = {}
        with paddle.no_grad():
            for b in range(0, len(va), a.batch_size):
                x, xl, y, yl, texts = collate([va.get(k) for k in range(b, min(len(va), b + a.batch_size))])
                logits = model(paddle.to_tensor(x))
                ol = out_len(xl, a.subsample)
                logp = F.log_softmax(logits, -1).numpy()
                ids = logp.argmax(-1)
                for j, ref in enumerate(texts):
                    hyp = beam(logp[j], int(ol[j]), a.beam) if a.beam > 1 else greedy(ids[j], int(ol[j]))
                    cer_sum += edit_distance(hyp, ref) / len(ref)
                    n_words += 1
                    exact += hyp == ref
                    in_lex += hyp in lexicon
                    for c in ref:
                        char_counts[c] = char_counts.get(c, 0) + 1
                        char_hits[c] = char_hits.get(c, 0) + (c in hyp)
        stats = paddle.to_tensor([cer_sum, float(n_words), float(exact), float(in_lex)], dtype="float64")
        if world > 1:
            dist.all_reduce(stats)
        if a.per_char:  # recall of each character seen in the validation labels: hits and counts, summed over ranks
            chars = sorted(set("".join(va.get(k)[2] for k in range(len(va)))))
            hits = paddle.to_tensor([[float(char_hits.get(c, 0)), float(char_counts.get(c, 0))] for c in chars],
                                    dtype="float64")
            if world > 1:
                dist.all_reduce(hits)
            recall = {c: float(hits[i, 0]) / max(1.0, float(hits[i, 1])) for i, c in enumerate(chars)}
        cer = float(stats[0]) / max(1.0, float(stats[1]))
        acc = float(stats[2]) / max(1.0, float(stats[1]))
        msg = (f"eval epoch {epoch}: train loss {tot / max(1, n_batches):.4f} val CER {cer:.4f} word acc {acc:.3f} "
               f"({int(stats[1])} words, {time.time() - t0:.1f}s)")
        if a.lexicon:
            msg += f" in-lexicon {float(stats[3]) / max(1.0, float(stats[1])):.3f}"
        if rank == 0:
            print(msg, flush=True)
            if a.per_char:
                print("  recall " + " ".join(f"{c}:{r:.2f}" for c, r in recall.items()), flush=True)
            sd = (model._layers if hasattr(model, "_layers") else model).state_dict()
            paddle.save(sd, os.path.join(a.ckpt_dir, "last.pdparams"))
            paddle.save(opt.state_dict(), os.path.join(a.ckpt_dir, "last.pdopt"))
            with open(os.path.join(a.ckpt_dir, "last.json"), "w") as f:
                json.dump({"epoch": epoch, "cer": cer}, f)
            print(f"saved {a.ckpt_dir}/last.pdparams (epoch {epoch})", flush=True)
            if cer < best:
                best = cer
                paddle.save(sd, os.path.join(a.ckpt_dir, "best.pdparams"))
                print(f"saved {a.ckpt_dir}/best.pdparams (val CER {cer:.4f})", flush=True)
    if rank == 0 and a.export:
        from paddle.static import InputSpec
        net = model._layers if hasattr(model, "_layers") else model
        paddle.jit.save(net, a.export, input_spec=[InputSpec([None, None, n_in], "float32")])
        print(f"exported inference model to {a.export}.json / {a.export}.pdiparams", flush=True)
    if rank == 0:
        print(f"done: {a.epochs} epochs, best val CER {best:.4f}", flush=True)


def spawn_main(a: argparse.Namespace) -> None:
    train(a)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "make":
        ap = argparse.ArgumentParser(prog="strokes.py make")
        ap.add_argument("--out", default="data")
        ap.add_argument("--train-shards", type=int, default=4)
        ap.add_argument("--val-shards", type=int, default=2)
        ap.add_argument("--per-shard", type=int, default=240)
        ap.add_argument("--val-per-shard", type=int, default=60)
        ap.add_argument("--min-len", type=int, default=1)
        ap.add_argument("--max-len", type=int, default=4)
        ap.add_argument("--pps", type=int, default=9, help="pen points per Bezier segment (sampling rate)")
        ap.add_argument("--rate", default="", help="per-shard sampling, e.g. train-01:3")
        ap.add_argument("--capitalised", default="")
        ap.add_argument("--erased", default="")
        ap.add_argument("--dots", default="", help="shards whose i/j dots were recorded (as taps)")
        ap.add_argument("--letters", default="", help="per-shard letter set, e.g. val-01:abcdef")
        ap.add_argument("--seed", type=int, default=0)
        make(ap.parse_args(sys.argv[2:]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--subsample", type=int, default=2)
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--proximity", action="store_true", help="add a pen-proximity channel")
    ap.add_argument("--direction", action="store_true", help="add writing-direction (cos, sin) channels")
    ap.add_argument("--per-char", action="store_true", help="report per-character recall")
    ap.add_argument("--lexicon", default="", help="glob of word lists for the in-lexicon rate")
    ap.add_argument("--mmap", action="store_true", help="memory-map the ink arrays")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    ap.add_argument("--pen-aux", action="store_true", help="auxiliary pen-lift head on multi-stroke batches")
    ap.add_argument("--export", default="", help="save an inference model (paddle.jit.save) here at the end")
    ap.add_argument("--fleet", action="store_true")
    ap.add_argument("--spawn", type=int, default=0, help="start N ranks with paddle.distributed.spawn")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.spawn:
        import paddle.distributed as dist
        dist.spawn(spawn_main, args=(a,), nprocs=a.spawn)
    else:
        train(a)


if __name__ == "__main__":
    main()
