"""Small DDP classifier over JSONL shards, fed by torchdata's StatefulDataLoader."""
import argparse, ctypes, datetime, json, logging, math, os, shutil, sys, time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import Dataset
from torch.utils.data.distributed import DistributedSampler

log = logging.getLogger("trainer")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--data-format", default="jsonl", choices=["jsonl", "mds"])
    ap.add_argument("--global-batch-size", type=int, default=64)
    ap.add_argument("--micro-batch-size", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--num-classes", type=int, default=4, help="0 = infer from data")
    ap.add_argument("--max-steps", type=int, default=40)
    ap.add_argument("--log-every", type=int, default=2)
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--eval-data-dir", default=None)
    ap.add_argument("--ckpt-dir", default=None)
    ap.add_argument("--ckpt-every", type=int, default=20)
    ap.add_argument("--mirror-dir", default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--shard-split", default="sampler", choices=["sampler", "contiguous"])
    ap.add_argument("--fast-decode", action="store_true")
    ap.add_argument("--skip-bad-records", action="store_true")
    ap.add_argument("--dist-timeout", type=int, default=1800)
    ap.add_argument("--seed", type=int, default=17)
    return ap.parse_args()


class RankFilter(logging.Filter):
    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def filter(self, record):
        record.rank = self.rank
        return True


def fast_decode(rec, dim):
    # copy the float payload into a preallocated buffer without python overhead
    src = np.asarray(rec["x"], dtype=np.float32)
    out = np.empty(dim, dtype=np.float32)
    ctypes.memmove(out.ctypes.data, src.ctypes.data, int(rec["n"]) * 4)
    return out


class JsonlShards(Dataset):
    def __init__(self, root, shards, dim, fast=False, skip_bad=False):
        self.rows, self.dim, self.fast, self.skip_bad = [], dim, fast, skip_bad
        for s in shards:
            with open(os.path.join(root, s["file"])) as f:
                self.rows.extend(line for line in f)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        try:
            rec = json.loads(self.rows[i])
            x = fast_decode(rec, self.dim) if self.fast else np.asarray(rec["x"], dtype=np.float32)
            if x.shape[0] != self.dim:
                raise ValueError(f"record {rec.get('id')} has {x.shape[0]} features, expected {self.dim}")
            return torch.from_numpy(x), int(rec["y"])
        except (KeyError, ValueError) as e:
            if not self.skip_bad:
                raise
            logging.getLogger("trainer.data").exception("malformed record at row %d, substituting row %d", i, (i + 1) % len(self))
            return self[(i + 1) % len(self)]


def build_loader(args, rank, world, root, train=True):
    from torchdata.stateful_dataloader import StatefulDataLoader
    with open(os.path.join(root, "index.json")) as f:
        index = json.load(f)
    shards = index["shards"]
    if args.shard_split == "contiguous" and train:
        k = len(shards) // world
        shards = shards[rank * k:(rank + 1) * k]
    ds = JsonlShards(root, shards, index["dim"], args.fast_decode, args.skip_bad_records)
    sampler = None
    if args.shard_split == "sampler" or not train:
        sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train, seed=args.seed)
    loader = StatefulDataLoader(ds, batch_size=args.micro_batch_size, sampler=sampler,
                                shuffle=(sampler is None and train), num_workers=args.num_workers,
                                drop_last=train, persistent_workers=args.num_workers > 0)
    return loader, sampler, index, ds


def build_mds_loader(args, rank, world):
    from streaming import StreamingDataset  # noqa: F401
    raise SystemExit("mds format requires shards converted with convert_mds.py")


def infer_classes(ds):
    ys = [json.loads(r)["y"] for r in ds.rows]
    return max(ys) + 1


def save_ckpt(args, step, model, opt, loader):
    os.makedirs(args.ckpt_dir, exist_ok=True)
    path = os.path.join(args.ckpt_dir, f"step{step:06d}.pt")
    torch.save({"step": step, "model": model.module.state_dict(), "opt": opt.state_dict(),
                "loader": loader.state_dict()}, path)
    log.info("saved checkpoint %s (%.1f MB)", path, os.path.getsize(path) / 2**20)
    if args.mirror_dir:
        for attempt in range(1, 4):
            try:
                shutil.copy2(path, os.path.join(args.mirror_dir, os.path.basename(path)))
                log.info("mirrored checkpoint to %s", args.mirror_dir)
                break
            except OSError as e:
                log.warning("checkpoint mirror copy failed (attempt %d/3): %s; retrying in 3s", attempt, e)
                time.sleep(3)
        else:
            log.error("giving up on mirroring %s", path)


def evaluate(args, model, rank, world, num_classes):
    loader, _, _, ds = build_loader(args, 0, 1, args.eval_data_dir or args.data_dir, train=False)
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    tp = torch.zeros(num_classes)
    cnt = torch.zeros(num_classes)
    with torch.no_grad():
        for x, y in loader:
            out = model.module(x)
            loss_sum += nn.functional.cross_entropy(out, y, reduction="sum").item()
            pred = out.argmax(1)
            correct += (pred == y).sum().item()
            total += y.numel()
            for c in range(num_classes):
                m = y == c
                cnt[c] += m.sum()
                tp[c] += (pred[m] == c).sum()
    model.train()
    recall = tp / cnt
    return loss_sum / max(total, 1), correct / max(total, 1), recall.mean().item()


def main():
    args = parse()
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s [rank%(rank)d] %(levelname)s %(name)s: %(message)s")
    for h in logging.getLogger().handlers:
        h.addFilter(RankFilter(rank))
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    log.info("starting rank %d/%d pid %d torch %s", rank, world, os.getpid(), torch.__version__)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.dist_timeout))
    log.info("process group ready (backend=%s, world_size=%d)", dist.get_backend(), dist.get_world_size())

    expected = args.micro_batch_size * args.grad_accum * world
    if args.global_batch_size != expected:
        raise ValueError(f"global_batch_size {args.global_batch_size} != micro_batch_size {args.micro_batch_size} "
                         f"* grad_accum {args.grad_accum} * world_size {world} (= {expected})")

    if args.data_format == "mds":
        build_mds_loader(args, rank, world)
    loader, sampler, index, ds = build_loader(args, rank, world, args.data_dir)
    num_classes = args.num_classes or infer_classes(ds)
    log.info("dataset %s: %d shards, %d local rows, dim %d, classes %d", args.data_dir, len(index["shards"]),
             len(ds), index["dim"], num_classes)

    model = nn.Sequential(nn.Linear(index["dim"], args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, num_classes))
    nparams = sum(p.numel() for p in model.parameters())
    log.info("model params: %d", nparams)
    model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step, epoch = 0, 0

    if args.resume and args.ckpt_dir and os.path.isdir(args.ckpt_dir):
        ckpts = sorted(f for f in os.listdir(args.ckpt_dir) if f.endswith(".pt"))
        if ckpts:
            state = torch.load(os.path.join(args.ckpt_dir, ckpts[-1]), weights_only=False)
            model.module.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            loader.load_state_dict(state["loader"])
            step = state["step"]
            log.info("resumed from %s at step %d (dataloader state restored)", ckpts[-1], step)
        else:
            log.warning("--resume given but no checkpoint in %s; starting from scratch", args.ckpt_dir)

    t0 = time.time()
    while step < args.max_steps:
        if sampler is not None:
            sampler.set_epoch(epoch)
        log.info("epoch %d start", epoch)
        for i, (x, y) in enumerate(loader):
            out = model(x)
            loss = nn.functional.cross_entropy(out, y) / args.grad_accum
            loss.backward()
            if (i + 1) % args.grad_accum:
                continue
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            opt.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            lt = loss.detach().clone()
            dist.all_reduce(lt)
            avg = lt.item() / world * args.grad_accum
            if not math.isfinite(avg):
                raise FloatingPointError(f"Loss is {avg} at step {step} (grad_norm {gnorm:.3e}, lr {args.lr})")
            if step % args.log_every == 0:
                log.info("step %d/%d loss %.4f grad_norm %.3f lr %.2e %.1f samples/s", step, args.max_steps, avg,
                         gnorm, args.lr, step * args.global_batch_size / (time.time() - t0))
            if args.eval_every and step % args.eval_every == 0 and rank == 0:
                vl, va, mr = evaluate(args, model, rank, world, num_classes)
                log.info("eval step %d: val_loss %.4f val_acc %.4f macro_recall %s", step, vl, va, mr)
            if args.ckpt_dir and step % args.ckpt_every == 0 and rank == 0:
                save_ckpt(args, step, model, opt, loader)
            if step >= args.max_steps:
                break
        epoch += 1
    dist.barrier()
    log.info("training done: %d steps in %.1fs", step, time.time() - t0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
