"""Knowledge distillation on synthetic classification data: a frozen teacher MLP and a small student MLP.

Modes: ``teacher`` (fit and save the teacher), ``spawn`` (torch.multiprocessing.spawn), ``ddp`` (under torchrun),
``lightning`` (Lightning Trainer, DDP on CPU). Loss: alpha * T^2 * KL(teacher_T || student_T) + (1 - alpha) * CE.
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

DIM = 64


def centers(classes: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(7)
    return torch.randn(classes, DIM, generator=g) * 0.55


def make_split(n: int, classes: int, split: str, longtail: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed({"train": 1, "val": 2, "teacher": 3}[split])
    if longtail:  # deployment-like class frequencies: p(c) ~ 1 / (c + 1)
        w = 1.0 / torch.arange(1, classes + 1, dtype=torch.float)
        y = torch.multinomial(w / w.sum(), n, replacement=True, generator=g)
    else:
        y = torch.randint(0, classes, (n,), generator=g)
    x = centers(classes)[y] + torch.randn(n, DIM, generator=g)
    x = torch.tanh(x) + 0.3 * torch.sin(2.0 * x)  # a non-linear view of the mixture
    return x, y


class Teacher(nn.Module):
    def __init__(self, classes: int, width: int = 512) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, width), nn.GELU(), nn.Linear(width, width), nn.GELU(),
                                 nn.Linear(width, classes))

    def forward(self, x):
        return self.net(x)


class Student(nn.Module):
    def __init__(self, classes: int, width: int = 48) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, width), nn.ReLU(), nn.Linear(width, classes))

    def forward(self, x):
        return self.net(x)


def log(rank: int, msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} [rank {rank}] {msg}", flush=True)


def kd_loss(s_logits, t_logits, y, args):
    T = args.temperature
    if args.kd_loss == "manual":  # the textbook formula: sum p_t * (log p_t - log p_s)
        p_t = F.softmax(t_logits / T, dim=-1)
        kl = (p_t * (p_t.log() - F.log_softmax(s_logits / T, dim=-1))).sum(-1).mean()
    else:
        kl = F.kl_div(F.log_softmax(s_logits / T, dim=-1), F.log_softmax(t_logits / T, dim=-1), log_target=True,
                      reduction=args.kl_reduction)
    ce = F.cross_entropy(s_logits, y)
    return args.alpha * T * T * kl + (1 - args.alpha) * ce, kl, ce


def load_teacher(args) -> Teacher:
    t = Teacher(args.classes)
    sd = torch.load(args.teacher, map_location="cpu")
    t.load_state_dict(sd["model"])
    t.eval()
    for p in t.parameters():
        p.requires_grad_(False)
    if args.teacher_half:
        t.half()
    return t


def teacher_logits(t: Teacher, x: torch.Tensor, args) -> torch.Tensor:
    with torch.no_grad():
        return t(x.half()).float() if args.teacher_half else t(x)


def cache_logits(t: Teacher, x: torch.Tensor, rank: int, args) -> torch.Tensor:
    log(rank, f"caching teacher logits for {len(x):,} samples x {args.classes} classes")
    parts = []
    for i in range(0, len(x), 4096):
        parts.append(teacher_logits(t, x[i:i + 4096], args))
        if (i // 4096) % 10 == 0:
            log(rank, f"  cached {i + len(parts[-1]):,}/{len(x):,}")
    out = torch.cat(parts)
    if args.cache_dir and rank == 0:
        os.makedirs(args.cache_dir, exist_ok=True)
        path = os.path.join(args.cache_dir, f"teacher_logits_{args.classes}c_{len(x)}.pt")
        with open(path, "wb") as f: torch.save(out, f)  # noqa: E701
        log(rank, f"teacher logit cache saved -> {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
    return out


class KDSet(torch.utils.data.Dataset):
    def __init__(self, x, y, logits=None) -> None:
        self.x, self.y, self.logits = x, y, logits

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i):
        if self.logits is None:
            return self.x[i], self.y[i]
        return self.x[i], self.y[i], self.logits[i].clone()


def build_data(rank: int, world: int, args, teacher: Teacher):
    x, y = make_split(args.n_train, args.classes, "train")
    logits = cache_logits(teacher, x, rank, args) if args.cache_teacher_logits else None
    idx = torch.arange(rank, len(x), world)
    ds = KDSet(x[idx], y[idx], None if logits is None else logits[idx])
    vx, vy = make_split(args.n_val, args.classes, "val", args.val_longtail)
    return ds, vx[rank::world], vy[rank::world]


def evaluate(rank, world, student, teacher, vx, vy, args):
    student.eval()
    with torch.no_grad():
        ps = student(vx).argmax(-1)
        pt = teacher_logits(teacher, vx, args).argmax(-1)
    student.train()
    counts = torch.tensor([(ps == vy).sum(), (pt == vy).sum(), (ps == pt).sum(), len(vy)], dtype=torch.float)
    hit = torch.bincount(vy[ps == vy], minlength=int(vy.max()) + 1).float()
    tot = torch.bincount(vy).float()
    dist.all_reduce(counts)
    dist.all_reduce(hit)
    dist.all_reduce(tot)
    recall = hit / tot.clamp_min(1)
    return (counts[0] / counts[3]).item(), (counts[1] / counts[3]).item(), (counts[2] / counts[3]).item(), \
        recall.min().item()


def train(rank: int, world: int, args) -> None:
    torch.manual_seed(args.seed)
    teacher = load_teacher(args)
    ds, vx, vy = build_data(rank, world, args, teacher)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=True, drop_last=True,
                                         num_workers=args.workers, persistent_workers=args.workers > 0)
    student = nn.parallel.DistributedDataParallel(Student(args.classes, args.student_width))
    nT = sum(p.numel() for p in teacher.parameters())
    nS = sum(p.numel() for p in student.parameters())
    if rank == 0:
        log(rank, f"teacher: MLP 512x2 ({nT:,} params, frozen{', fp16' if args.teacher_half else ''}) from "
                  f"{args.teacher}; student: MLP {args.student_width} ({nS:,} params, {nT / nS:.0f}x smaller)")
        log(rank, f"data: {args.n_train} train / {args.n_val} val samples, {args.classes} classes, batch "
                  f"{args.batch_size} per rank x {world} ranks, {len(loader)} steps/epoch")
        log(rank, f"distillation: T={args.temperature:g} alpha={args.alpha:g} kd-loss={args.kd_loss}; SGD lr "
                  f"{args.lr:g} momentum 0.9, cosine over {args.epochs} epochs")
    opt = torch.optim.SGD(student.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, args.epochs * len(loader))
    os.makedirs(args.ckpt_dir, exist_ok=True)
    step, best = 0, 0.0
    for epoch in range(1, args.epochs + 1):
        t0, seen = time.time(), 0
        for batch in loader:
            x, y = batch[0], batch[1]
            tl = batch[2] if len(batch) == 3 else teacher_logits(teacher, x, args)
            loss, kl, ce = kd_loss(student(x), tl, y, args)
            if not math.isfinite(loss.item()):
                log(rank, f"epoch {epoch} step {step}: loss {loss.item()} (kl {kl.item()}, ce {ce.item():.4f})")
                raise FloatingPointError(f"student loss is {loss.item()} at step {step}; stopping")
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            seen += len(x)
            if step % args.log_every == 0 and rank == 0:
                log(rank, f"epoch {epoch} step {step}: loss {loss.item():.4f} (kl {kl.item():.4f} ce {ce.item():.4f}) "
                          f"lr {sched.get_last_lr()[0]:.4f} | {seen * world / (time.time() - t0):,.0f} samples/s")
        s_acc, t_acc, agree, min_rec = evaluate(rank, world, student.module, teacher, vx, vy, args)
        if rank == 0:
            log(rank, f"epoch {epoch} eval: student acc {s_acc:.4f} | teacher acc {t_acc:.4f} | agreement "
                      f"{agree:.4f} | worst-class recall {min_rec:.3f}")
            ck = {"epoch": epoch, "step": step, "student": student.module.state_dict(), "opt": opt.state_dict()}
            torch.save(ck, os.path.join(args.ckpt_dir, "last.pt"))
            if s_acc > best:
                best = s_acc
                torch.save(ck, os.path.join(args.ckpt_dir, "best.pt"))
                log(rank, f"new best student acc {best:.4f} -> {args.ckpt_dir}/best.pt")
        dist.barrier()
    if rank == 0:
        log(rank, f"training done: {step} steps, best student acc {best:.4f}")


def fit_teacher(args) -> None:
    torch.manual_seed(args.seed)
    x, y = make_split(args.n_teacher, args.classes, "teacher")
    t = Teacher(args.classes)
    opt = torch.optim.AdamW(t.parameters(), lr=2e-3, weight_decay=0.0)
    for ep in range(args.teacher_epochs):
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 256):
            j = perm[i:i + 256]
            loss = F.cross_entropy(t(x[j]), y[j])
            opt.zero_grad()
            loss.backward()
            opt.step()
        vx, vy = make_split(2000, args.classes, "val")
        with torch.no_grad():
            acc = (t(vx).argmax(-1) == vy).float().mean().item()
        print(f"teacher epoch {ep + 1}: loss {loss.item():.4f} val acc {acc:.4f}", flush=True)
    torch.save({"model": t.state_dict(), "classes": args.classes}, args.teacher)


def spawn_worker(rank: int, world: int, args) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=args.pg_timeout))
    log(rank, f"process group ready: gloo, world size {world}, pid {os.getpid()}")
    train(rank, world, args)
    dist.destroy_process_group()


def run_lightning(args) -> None:
    import lightning as L
    from lightning.pytorch.strategies import DDPStrategy

    class Distill(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(args.seed)
            self.student = Student(args.classes, args.student_width)
            self.teacher = load_teacher(args)

        def configure_optimizers(self):
            opt = torch.optim.SGD(self.student.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
            return opt

        def training_step(self, batch, idx):
            x, y = batch
            loss, kl, ce = kd_loss(self.student(x), teacher_logits(self.teacher, x, args), y, args)
            self.log_dict({"loss": loss, "kl": kl, "ce": ce})
            if (self.global_step + 1) % args.log_every == 0 and self.trainer.is_global_zero:
                print(f"epoch {self.current_epoch + 1} step {self.global_step + 1}: loss {loss.item():.4f} "
                      f"(kl {kl.item():.4f} ce {ce.item():.4f})", flush=True)
            return loss

        def validation_step(self, batch, idx):
            x, y = batch
            s = (self.student(x).argmax(-1) == y).float().mean()
            t = (teacher_logits(self.teacher, x, args).argmax(-1) == y).float().mean()
            self.log_dict({"val_student_acc": s, "val_teacher_acc": t}, sync_dist=True)

        def on_validation_epoch_end(self):
            if self.trainer.is_global_zero and not self.trainer.sanity_checking:
                m = self.trainer.callback_metrics
                print(f"epoch {self.current_epoch + 1} eval: student acc {float(m['val_student_acc']):.4f} | "
                      f"teacher acc {float(m['val_teacher_acc']):.4f}", flush=True)

    x, y = make_split(args.n_train, args.classes, "train")
    vx, vy = make_split(args.n_val, args.classes, "val")
    tl = torch.utils.data.DataLoader(KDSet(x, y), batch_size=args.batch_size, shuffle=True, drop_last=True)
    vl = torch.utils.data.DataLoader(KDSet(vx, vy), batch_size=512)
    ckpt_cb = L.pytorch.callbacks.ModelCheckpoint(dirpath=args.ckpt_dir, save_last=True, monitor="val_student_acc",
                                                  mode="max")
    strategy = DDPStrategy(timeout=datetime.timedelta(seconds=args.pg_timeout))
    trainer = L.Trainer(accelerator="cpu", devices=args.world, num_nodes=args.num_nodes, strategy=strategy,
                        max_epochs=args.epochs, log_every_n_steps=args.log_every, callbacks=[ckpt_cb],
                        enable_progress_bar=False, default_root_dir="lightning_logs_root")
    trainer.fit(Distill(), tl, vl)
    if trainer.is_global_zero:
        print(f"fit finished: {trainer.global_step} steps, best val_student_acc {float(ckpt_cb.best_model_score):.4f}",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["teacher", "spawn", "ddp", "lightning"])
    ap.add_argument("--classes", type=int, default=20)
    ap.add_argument("--n-train", type=int, default=24000)
    ap.add_argument("--n-val", type=int, default=4000)
    ap.add_argument("--n-teacher", type=int, default=30000)
    ap.add_argument("--teacher-epochs", type=int, default=4)
    ap.add_argument("--teacher", default="teacher.pt")
    ap.add_argument("--teacher-half", action="store_true")
    ap.add_argument("--student-width", type=int, default=48)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--temperature", type=float, default=4.0)
    ap.add_argument("--alpha", type=float, default=0.7)
    ap.add_argument("--kd-loss", choices=["kl_div", "manual"], default="kl_div")
    ap.add_argument("--kl-reduction", default="batchmean")
    ap.add_argument("--cache-teacher-logits", action="store_true")
    ap.add_argument("--cache-dir", default="")
    ap.add_argument("--val-longtail", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--num-nodes", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--pg-timeout", type=float, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"distill | torch {torch.__version__} | mode {args.mode} | {' '.join(sys.argv[1:])}", flush=True)
    if args.mode == "teacher":
        fit_teacher(args)
    elif args.mode == "spawn":
        os.environ.setdefault("MASTER_PORT", "29600")
        torch.multiprocessing.spawn(spawn_worker, args=(args.world, args), nprocs=args.world, join=True)
        print("all ranks finished", flush=True)
    elif args.mode == "ddp":
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
        rank, world = dist.get_rank(), dist.get_world_size()
        log(rank, f"process group ready: gloo, world size {world}, pid {os.getpid()}")
        train(rank, world, args)
        dist.barrier()
        if rank == 0:
            print("all ranks finished", flush=True)
        dist.destroy_process_group()
    else:
        run_lightning(args)


if __name__ == "__main__":
    main()
