"""Physics-informed neural network for the viscous Burgers equation, data-parallel on CPU (gloo).

    u_t + u u_x = nu u_xx,  x in [-1, 1], t in [0, 1],  u(0, x) = -sin(pi x),  u(t, -1) = u(t, 1) = 0,  nu = 0.01/pi

The network u(t, x) is a tanh MLP; the loss is the mean squared PDE residual on collocation points (each rank holds its
own shard, resampled every --resample steps) plus initial- and boundary-condition terms. Gradients are averaged over
the ranks by hand (one flat all_reduce per step). Evaluation: relative L2 error against a reference solution
(finite differences, or the Cole-Hopf closed form with --ref exact), all-reduced over the ranks' shards of the grid.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Lightning Trainer, strategy ddp),
tune (Ray Tune sweep over lr/width, one process per trial), tune-actors (each trial runs its ranks as Ray actors).
"""
from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

NU = 0.01 / math.pi


# ---------------------------------------------------------------------------------------------------------------- data
def reference_fd(nx: int = 256, nt: int = 101) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Explicit finite differences (upwind advection, central diffusion) on nx points, sampled at nt times."""
    x = np.linspace(-1, 1, nx)
    dx = x[1] - x[0]
    u = -np.sin(np.pi * x)
    ts = np.linspace(0, 1, nt)
    out = np.zeros((nt, nx))
    out[0] = u
    t, k = 0.0, 1
    while k < nt:
        dt = 0.4 * min(dx / max(np.abs(u).max(), 1e-6), dx * dx / (2 * NU))
        dt = min(dt, ts[k] - t)
        up = np.where(u[1:-1] > 0, u[1:-1] - u[:-2], u[2:] - u[1:-1]) / dx
        lap = (u[2:] - 2 * u[1:-1] + u[:-2]) / (dx * dx)
        un = u.copy()
        un[1:-1] = u[1:-1] + dt * (-u[1:-1] * up + NU * lap)
        un[0] = un[-1] = 0.0
        u, t = un, t + dt
        if abs(t - ts[k]) < 1e-12:
            out[k] = u
            k += 1
    return ts, x, out


def reference_exact(nx: int, nt: int, nq: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cole-Hopf closed form, one quadrature per grid point (slow, cache the result)."""
    x = np.linspace(-1, 1, nx)
    ts = np.linspace(0, 1, nt)
    out = np.zeros((nt, nx))
    out[0] = -np.sin(np.pi * x)
    for i in range(1, nt):
        s = math.sqrt(4 * NU * ts[i])
        eta = np.linspace(-6 * s, 6 * s, nq)
        g = np.exp(-eta ** 2 / (4 * NU * ts[i]))
        for j in range(nx):
            y = x[j] - eta
            f = np.exp(-np.cos(np.pi * y) / (2 * np.pi * NU) + 1 / (2 * np.pi * NU) * 0.0)
            f = f / f.max()
            out[i, j] = -np.sum(np.sin(np.pi * y) * f * g) / np.sum(f * g)
    return ts, x, out


def load_reference(args, rank: int):
    if args.ref == "fd":
        return reference_fd(args.ref_nx, args.ref_nt)
    path = Path(args.data_dir) / f"burgers_exact_{args.ref_nx}x{args.ref_nt}.npz"
    if path.exists():
        d = np.load(path)
        return d["t"], d["x"], d["u"]
    print(f"[rank {rank}] reference cache {path} not found, computing Cole-Hopf solution on "
          f"{args.ref_nx}x{args.ref_nt} points", flush=True)
    t0 = time.time()
    ts, x, u = reference_exact(args.ref_nx, args.ref_nt)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, t=ts, x=x, u=u)
    print(f"[rank {rank}] reference written to {path} ({time.time() - t0:.1f} s)", flush=True)
    return ts, x, u


def sample_collocation(n: int, gen: torch.Generator) -> torch.Tensor:
    return torch.rand(n, 2, generator=gen) * torch.tensor([1.0, 2.0]) + torch.tensor([0.0, -1.0])  # (t, x)


# --------------------------------------------------------------------------------------------------------------- model
class MLP(nn.Module):
    def __init__(self, width: int, depth: int, hard_bc: bool = False):
        super().__init__()
        layers, d = [], 2
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)
        self.hard_bc = hard_bc
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, tx: torch.Tensor) -> torch.Tensor:
        out = self.net(tx)
        if self.hard_bc:  # u = 0 at x = +-1 by construction
            out = (1 - tx[:, 1:2] ** 2) * out
        return out


def residual(model: nn.Module, tx: torch.Tensor, create_graph: bool = True) -> torch.Tensor:
    tx = tx.clone().requires_grad_(True)
    u = model(tx)
    g = torch.autograd.grad(u.sum(), tx, create_graph=True)[0]
    u_t, u_x = g[:, 0:1], g[:, 1:2]
    u_xx = torch.autograd.grad(u_x.sum(), tx, create_graph=create_graph)[0][:, 1:2]
    return u_t + u * u_x - NU * u_xx


def loss_terms(model, colloc, n_ic: int, n_bc: int, gen: torch.Generator):
    r = residual(model, colloc)
    x0 = torch.rand(n_ic, 1, generator=gen) * 2 - 1
    ic = model(torch.cat([torch.zeros_like(x0), x0], 1)) + torch.sin(math.pi * x0)
    tb = torch.rand(n_bc, 1, generator=gen)
    xb = torch.where(torch.rand(n_bc, 1, generator=gen) < 0.5, -1.0, 1.0)
    bc = model(torch.cat([tb, xb], 1))
    return (r ** 2).mean(), (ic ** 2).mean(), (bc ** 2).mean()


def average_gradients(model: nn.Module, world: int) -> None:
    grads = [p.grad for p in model.parameters()]
    flat = torch.cat([g.reshape(-1) for g in grads])
    if world > 1:
        dist.all_reduce(flat)
        flat /= world
    off = 0
    for g in grads:
        g.copy_(flat[off:off + g.numel()].view_as(g))
        off += g.numel()


class GradNormBalancer:
    """Learning-rate annealing of the loss weights (Wang, Teng & Perdikaris 2021): lambda_i = max|grad L_pde| /
    mean|grad L_i|, smoothed with an exponential moving average."""

    def __init__(self, alpha: float = 0.9):
        self.alpha, self.lam = alpha, {"ic": 1.0, "bc": 1.0}

    def update(self, model, terms: dict[str, torch.Tensor]) -> None:
        params = [p for p in model.parameters()]
        gp = torch.autograd.grad(terms["pde"], params, retain_graph=True, allow_unused=True)
        max_pde = max(g.abs().max() for g in gp if g is not None)
        for k in ("ic", "bc"):
            gk = torch.autograd.grad(terms[k], params, retain_graph=True, allow_unused=True)
            mean_k = torch.cat([(g if g is not None else torch.zeros_like(p)).abs().reshape(-1)
                                for g, p in zip(gk, params)]).mean()
            lam_hat = (max_pde / mean_k).item()
            self.lam[k] = self.alpha * self.lam[k] + (1 - self.alpha) * lam_hat


# ----------------------------------------------------------------------------------------------------------- evaluate
def evaluate(model, ref, rank: int, world: int, args) -> tuple[float, float]:
    ts, xs, u_ref = ref
    T, X = np.meshgrid(ts, xs, indexing="ij")
    tx = torch.tensor(np.stack([T.ravel(), X.ravel()], 1), dtype=torch.float32)
    uref = torch.tensor(u_ref.ravel(), dtype=torch.float32)
    if args.eval_sensors:
        # virtual sensors on a regular (t, x) lattice, the reference looked up at the nearest grid node
        st, sx = np.meshgrid(np.linspace(0, 1, 21), np.linspace(-1, 1, args.eval_sensors), indexing="ij")
        tx = torch.tensor(np.stack([st.ravel(), sx.ravel()], 1), dtype=torch.float32)
        tx = tx[torch.argsort(tx[:, 1], stable=True)]
        it = (tx[:, 0] * (len(ts) - 1)).round().long()
        ix = ((tx[:, 1] + 1) / 2 * len(xs)).long()
        idx = torch.arange(len(tx)).chunk(world)[rank]
        u_ref_t = torch.tensor(u_ref, dtype=torch.float32)
        uref_s = u_ref_t[it[idx], ix[idx]]
        tx, uref = tx[idx], uref_s
    else:
        idx = torch.arange(len(tx)).chunk(world)[rank]
        tx, uref = tx[idx], uref[idx]
    with torch.no_grad():
        pred = model(tx).squeeze(1)
    sums = torch.tensor([((pred - uref) ** 2).sum().item(), (uref ** 2).sum().item(),
                         (pred - uref).abs().max().item()], dtype=torch.float64)
    if world > 1:
        dist.all_reduce(sums[:2])
        mx = sums[2:].clone()
        dist.all_reduce(mx, op=dist.ReduceOp.MAX)
        sums[2] = mx[0]
    if args.residual_map:
        n = args.residual_map
        g = torch.stack(torch.meshgrid(torch.linspace(0, 1, n), torch.linspace(-1, 1, n), indexing="ij"), -1)
        g = g.reshape(-1, 2).chunk(world)[rank]
        r = residual(model, g).detach().abs()
        print(f"[rank {rank}] residual map {n}x{n}: mean |r| {r.mean():.3e}, max |r| {r.max():.3e}", flush=True)
    return math.sqrt(sums[0] / sums[1]), float(sums[2])


def save_snapshot(model, step: int, args) -> None:
    n = 384
    g = torch.stack(torch.meshgrid(torch.linspace(0, 1, n), torch.linspace(-1, 1, n), indexing="ij"), -1)
    with torch.no_grad():
        u = model(g.reshape(-1, 2)).reshape(n, n).double().numpy()
    r = residual(model, g.reshape(-1, 2)[::4]).detach().double().numpy()
    path = Path(args.snapshot_dir) / f"field_step{step:06d}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, u=u, residual=r, t=np.linspace(0, 1, n), x=np.linspace(-1, 1, n))
    print(f"  snapshot {path} ({path.stat().st_size / 1e6:.1f} MB)", flush=True)


# -------------------------------------------------------------------------------------------------------------- train
def rar_refine(model, colloc: torch.Tensor, rank: int, world: int, gen: torch.Generator, args) -> torch.Tensor:
    """Residual-based adaptive refinement: candidates whose residual exceeds mean + 2 std join every rank's set."""
    cand = sample_collocation(4000, gen)
    r = residual(model, cand, create_graph=False).detach().abs().squeeze(1)
    new = cand[r > r.mean() + 2 * r.std()]
    print(f"[rank {rank}] RAR: {len(new)} of {len(cand)} candidates above mean+2std (max |r| {r.max():.3e})",
          flush=True)
    if world > 1:
        parts = [torch.empty_like(new) for _ in range(world)]
        dist.all_gather(parts, new)
        new = torch.cat(parts)
    return torch.cat([colloc, new])


def train_worker(rank: int, world: int, args, report=None) -> dict:
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(args.seed * 100 + rank)
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))
    if rank == 0:
        print(f"world {world}, backend {dist.get_backend() if world > 1 else 'none'}, nu={NU:.5f}, "
              f"width {args.width}, depth {args.depth}, lr {args.lr}, {args.colloc} collocation points/rank",
              flush=True)
    model = MLP(args.width, args.depth, hard_bc=args.hard_bc)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=args.decay ** (1 / 1000))
    ckdir = Path(args.ckpt_dir)
    start = 0
    last = ckdir / "last.pt"
    if args.resume and last.exists():
        st = torch.load(last, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        start = st["step"]
        print(f"[rank {rank}] resumed from {last} at step {start}", flush=True)
    ref = load_reference(args, rank) if rank == 0 or args.ref == "fd" else None
    if ref is None:
        ref = load_reference(args, rank) if (Path(args.data_dir) / f"burgers_exact_{args.ref_nx}x{args.ref_nt}.npz").exists() else None
    balancer = GradNormBalancer() if args.balance == "gradnorm" else None
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        print(f"model: {nparams} parameters; reference grid {args.ref_nt}x{args.ref_nx} ({args.ref})", flush=True)
    colloc = sample_collocation(args.colloc, gen)
    t0 = time.time()
    tl = time.time()
    l2 = float("nan")
    for step in range(start + 1, args.steps + 1):
        if args.resample and step % args.resample == 0:
            colloc = sample_collocation(args.colloc, gen)
        if args.rar and step % args.rar == 0:
            colloc = rar_refine(model, colloc, rank, world, gen, args)
        opt.zero_grad(set_to_none=False)
        pde, ic, bc = loss_terms(model, colloc, args.n_ic, args.n_bc, gen)
        if balancer is not None and step > args.balance_warmup and step % 10 == 1:
            balancer.update(model, {"pde": pde, "ic": ic, "bc": bc})
        lam = balancer.lam if balancer else {"ic": args.w_ic, "bc": args.w_bc}
        loss = pde + lam["ic"] * ic + lam["bc"] * bc
        if not torch.isfinite(loss):
            raise FloatingPointError(f"non-finite loss {loss.item()} at step {step} (pde {pde.item():.3e}, "
                                     f"ic {ic.item():.3e}, bc {bc.item():.3e}, lambda_ic {lam['ic']:.3g}, "
                                     f"lambda_bc {lam['bc']:.3g})")
        loss.backward()
        average_gradients(model, world)
        opt.step()
        sched.step()
        if rank == 0 and step % args.log_every == 0:
            dt = time.time() - tl
            tl = time.time()
            print(f"step {step:5d} | loss {loss.item():.4e} | pde {pde.item():.3e} ic {ic.item():.3e} "
                  f"bc {bc.item():.3e} | lambda_ic {lam['ic']:.3g} lambda_bc {lam['bc']:.3g} | "
                  f"lr {sched.get_last_lr()[0]:.2e} | {args.log_every * len(colloc) * world / dt:,.0f} pts/s",
                  flush=True)
        if step % args.eval_every == 0 or step == args.steps:
            if ref is None:
                ref = load_reference(args, rank)
            l2, mx = evaluate(model, ref, rank, world, args)
            if rank == 0:
                print(f"eval step {step} | rel L2 {l2:.4e} | max abs err {mx:.4e} | elapsed {time.time() - t0:.1f} s",
                      flush=True)
                ckdir.mkdir(parents=True, exist_ok=True)
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                            "step": step, "rel_l2": l2}, ckdir / "last.tmp")
                os.replace(ckdir / "last.tmp", last)
                print(f"checkpoint saved: {last} (step {step})", flush=True)
                if args.snapshot_dir:
                    save_snapshot(model, step, args)
            if report is not None:
                report({"step": step, "rel_l2": l2, "loss": loss.item()})
    if args.lbfgs_steps:
        lb = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=20, history_size=50,
                               line_search_fn="strong_wolfe")
        for it in range(1, args.lbfgs_steps + 1):
            nev = [0]

            def closure():
                lb.zero_grad()
                pde, ic, bc = loss_terms(model, colloc, args.n_ic, args.n_bc, torch.Generator().manual_seed(it))
                loss = pde + args.w_ic * ic + args.w_bc * bc
                loss.backward()
                average_gradients(model, world)
                nev[0] += 1
                return loss

            loss = lb.step(closure)
            if rank == 0:
                print(f"lbfgs iter {it:3d} | loss {loss.item():.4e} | {nev[0]} function evals", flush=True)
        l2, mx = evaluate(model, ref, rank, world, args)
        if rank == 0:
            print(f"eval after L-BFGS | rel L2 {l2:.4e} | max abs err {mx:.4e}", flush=True)
    if rank == 0:
        print(f"training finished: {args.steps} Adam steps in {time.time() - t0:.1f} s, final rel L2 {l2:.4e}",
              flush=True)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()
    return {"rel_l2": l2}


def spawn_entry(rank: int, world: int, args) -> None:
    train_worker(rank, world, args)


# ---------------------------------------------------------------------------------------------------------- lightning
def run_lightning(args) -> None:
    import lightning as L

    class PINNModule(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = MLP(args.width, args.depth, hard_bc=args.hard_bc)
            self.gen = torch.Generator().manual_seed(args.seed + int(os.environ.get("LOCAL_RANK", 0)))
            self.ref = reference_fd(args.ref_nx, args.ref_nt)

        def training_step(self, batch, idx):
            colloc = batch[0]
            pde, ic, bc = loss_terms(self.model, colloc, args.n_ic, args.n_bc, self.gen)
            loss = pde + args.w_ic * ic + args.w_bc * bc
            self.log_dict({"loss": loss, "pde": pde, "ic": ic, "bc": bc}, prog_bar=False)
            if self.global_rank == 0 and self.global_step % args.log_every == 0:
                print(f"step {self.global_step:5d} | loss {loss.item():.4e} | pde {pde.item():.3e} "
                      f"ic {ic.item():.3e} bc {bc.item():.3e}", flush=True)
            return loss

        def validation_step(self, batch, idx):
            with torch.enable_grad():
                l2, mx = evaluate(self.model, self.ref, self.global_rank, self.trainer.world_size, args)
            self.log("val_rel_l2", l2)
            if self.global_rank == 0:
                print(f"eval step {self.global_step} | rel L2 {l2:.4e} | max abs err {mx:.4e}", flush=True)

        def on_validation_epoch_end(self):
            if args.snapshot_dir and self.global_rank == 0:
                with torch.enable_grad():
                    save_snapshot(self.model, self.global_step, args)

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=args.lr)

    L.seed_everything(args.seed)
    colloc = sample_collocation(args.colloc * 64, torch.Generator().manual_seed(args.seed))
    train = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(colloc), batch_size=args.colloc,
                                        shuffle=True)
    val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.zeros(2, 1)), batch_size=1)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_steps=args.steps,
                        val_check_interval=args.eval_every, check_val_every_n_epoch=None, log_every_n_steps=10,
                        default_root_dir=args.ckpt_dir, enable_progress_bar=False)
    trainer.fit(PINNModule(), train, val)
    if trainer.global_rank == 0:
        print("fit finished", flush=True)


# --------------------------------------------------------------------------------------------------------------- ray
def run_tune(args) -> None:
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    ray.init(address=os.environ.get("RAY_ADDRESS"))

    def trainable(config):
        a = argparse.Namespace(**vars(args))
        a.lr, a.width = config["lr"], config["width"]
        train_worker(0, 1, a, report=lambda m: tune.report(m))

    @ray.remote(num_cpus=1)
    class PINNRank:
        def run(self, rank, world, port, config):
            os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
            a = argparse.Namespace(**vars(args))
            a.lr, a.width = config["lr"], config["width"]
            return train_worker(rank, world, a)

    def trainable_actors(config):
        port = 29650 + int(config["width"] // 16) + int(-math.log10(config["lr"]))
        ranks = [PINNRank.remote() for _ in range(args.nprocs)]
        print(f"trial lr={config['lr']} width={config['width']}: {args.nprocs} rank actors, port {port}", flush=True)
        res = ray.get([r.run.remote(i, args.nprocs, port, config) for i, r in enumerate(ranks)])
        tune.report({"rel_l2": res[0]["rel_l2"], "step": args.steps})

    fn = trainable_actors if args.mode == "tune-actors" else trainable
    tuner = tune.Tuner(
        tune.with_resources(fn, tune.PlacementGroupFactory([{"CPU": 1}] + [{"CPU": 1}] * args.nprocs)
                            if args.reserve_rank_slots else {"cpu": 1}),
        param_space={"lr": tune.grid_search([float(v) for v in args.sweep_lrs.split(",")]),
                     "width": tune.grid_search([int(v) for v in args.sweep_widths.split(",")])},
        tune_config=tune.TuneConfig(metric="rel_l2", mode="min",
                                    scheduler=ASHAScheduler(time_attr="step", max_t=args.steps,
                                                            grace_period=args.eval_every * 2),
                                    max_concurrent_trials=2),
        run_config=tune.RunConfig(name="burgers_pinn_sweep", storage_path=str(Path(args.ckpt_dir).resolve()),
                                  verbose=1),
    )
    res = tuner.fit()
    best = res.get_best_result()
    print(f"best trial: lr={best.config['lr']} width={best.config['width']} rel L2 {best.metrics['rel_l2']:.4e}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "tune", "tune-actors"])
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--decay", type=float, default=0.9)
    ap.add_argument("--colloc", type=int, default=1024)
    ap.add_argument("--n-ic", type=int, default=128)
    ap.add_argument("--n-bc", type=int, default=128)
    ap.add_argument("--w-ic", type=float, default=10.0)
    ap.add_argument("--w-bc", type=float, default=10.0)
    ap.add_argument("--resample", type=int, default=100)
    ap.add_argument("--rar", type=int, default=0)
    ap.add_argument("--balance", choices=["fixed", "gradnorm"], default="fixed")
    ap.add_argument("--balance-warmup", type=int, default=200)
    ap.add_argument("--hard-bc", action="store_true")
    ap.add_argument("--ref", choices=["fd", "exact"], default="fd")
    ap.add_argument("--ref-nx", type=int, default=256)
    ap.add_argument("--ref-nt", type=int, default=101)
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--eval-sensors", type=int, default=0)
    ap.add_argument("--residual-map", type=int, default=0)
    ap.add_argument("--snapshot-dir", default="")
    ap.add_argument("--lbfgs-steps", type=int, default=0)
    ap.add_argument("--time-windows", type=int, default=0, help="causal time-marching: one rank per window")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--sweep-lrs", default="1e-3,3e-3")
    ap.add_argument("--reserve-rank-slots", action="store_true", help="tune-actors: one bundle per rank actor")
    ap.add_argument("--sweep-widths", default="32,48")
    args = ap.parse_args()
    print(f"pinn-burgers {args.mode}: torch {torch.__version__}, python {sys.version.split()[0]}", flush=True)
    if args.mode == "spawn":
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        world = args.time_windows or args.nprocs
        if args.time_windows:
            print(f"time-marching over {args.time_windows} windows of length {1 / args.time_windows:.3f}, "
                  f"world size {world}", flush=True)
        torch.multiprocessing.spawn(spawn_entry, args=(world, args), nprocs=args.nprocs, join=True)
        print("all ranks finished", flush=True)
    elif args.mode == "ddp":
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        train_worker(rank, world, args)
        if rank == 0:
            print("all ranks finished", flush=True)
    elif args.mode == "lightning":
        run_lightning(args)
    else:
        run_tune(args)


if __name__ == "__main__":
    main()
