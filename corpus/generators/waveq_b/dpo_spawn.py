"""SFT then DPO of a tiny character-level causal LM with DDP over gloo, started with torch.multiprocessing.spawn.

Phase 1: SFT on prompt+chosen (prompt tokens masked). Phase 2: DPO against a frozen copy of the SFT policy.
Optional online sampling: a sampler process per rank generates answers with a shared-memory snapshot of the policy;
wrong sampled answers become extra `rejected` examples."""
import argparse
import datetime
import faulthandler
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

import lm_core as lc


def log(rank, msg):
    print(f"{time.strftime('%H:%M:%S')} [rank {rank}] {msg}", flush=True)


def sampler_main(rank, policy, prompts, q):
    """Sampler process: temperature sampling with the shared policy snapshot; sends the results back."""
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(rank)
    out = []
    for p in prompts:
        ans = lc.generate(policy, p["prompt"], 12, sample=True, temperature=0.8, gen=g)
        out.append({"prompt": p["prompt"], "sampled": ans, "chosen": p["chosen"], "kind": p["kind"],
                    "correct": ans == p["chosen"], "tokens": lc.encode(ans)})
    q.put(out)


def load_fused(a):
    from torch.utils.cpp_extension import load
    return load(name="dpo_fused_ops", sources=[os.path.join(os.path.dirname(os.path.abspath(__file__)), "fused_ops.cpp")],
                extra_cflags=["-O2"], verbose=False)


def worker(rank, a):
    faulthandler.enable()
    torch.set_num_threads(1)
    world = a.nprocs
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.pg_timeout))
    log(rank, f"process group up: world {world}, backend {dist.get_backend()}, master "
              f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}")
    torch.manual_seed(0)
    train = lc.make_pairs(a.pairs, seed=11)
    val = lc.make_pairs(96, seed=12)
    model = DDP(lc.TinyGPT(d=a.d))
    if rank == 0:
        log(rank, f"TinyGPT: {lc.n_params(model.module)} parameters, vocab {lc.VOCAB}, ctx {model.module.ctx}; "
                  f"{len(train)} preference pairs ({len(train) // world} per rank), max_len {a.max_len}")
    fused = load_fused(a) if a.fused_gather else None
    if fused is not None:
        log(rank, "fused_ops: using fused log-prob gather kernel (dpo_fused_ops)")
    # ---------------- SFT ----------------
    opt = torch.optim.AdamW(model.parameters(), lr=a.sft_lr, weight_decay=0.01)
    meter, step = lc.Meter(), 0
    while step < a.sft_steps:
        for b in lc.batches(train, a.bs, seed=step, rank=rank, world=world):
            x, m = lc.collate_sft(b, a.max_len)
            for g in opt.param_groups:
                g["lr"] = lc.cosine_lr(step, a.sft_steps, 10, a.sft_lr)
            loss = lc.sft_loss(model, x, m)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.tokens += int(m.sum()) * world
            step += 1
            if step % 10 == 0:
                lt = loss.detach().clone()
                dist.all_reduce(lt)
                if rank == 0:
                    log(rank, f"sft step {step}/{a.sft_steps} loss {lt.item() / world:.4f} "
                              f"lr {opt.param_groups[0]['lr']:.2e} | {meter.rate():.0f} answer tok/s")
            if step >= a.sft_steps:
                break
    em = lc.exact_match(model.module, val[rank::world])
    t = torch.tensor([em])
    dist.all_reduce(t)
    log(rank, f"sft eval shard: {len(val[rank::world])} prompts, exact match {em:.3f}")
    if rank == 0:
        log(rank, f"sft done: exact match {t.item() / world:.3f} on {len(val)} held-out prompts")
    # ---------------- online samples ----------------
    ref = lc.frozen_copy(model.module)
    extra = []
    if a.sampler_prompts:
        snapshot = lc.frozen_copy(model.module)
        snapshot.share_memory()
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        prompts = lc.make_pairs(a.sampler_prompts, seed=100 + rank)
        p = ctx.Process(target=sampler_main, args=(rank, snapshot, prompts, q), name=f"sampler-{rank}")
        p.start()
        log(rank, f"sampler pid {p.pid}: {len(prompts)} prompts, temperature 0.8")
        p.join()
        res = q.get()
        wrong = [r for r in res if not r["correct"]]
        extra = [{"prompt": r["prompt"], "chosen": r["chosen"], "rejected": r["sampled"], "kind": r["kind"]}
                 for r in wrong if r["sampled"]]
        log(rank, f"sampler: {len(res)} samples, {len(wrong)} wrong -> {len(extra)} on-policy pairs")
    # ---------------- DPO ----------------
    opt = torch.optim.AdamW(model.parameters(), lr=a.dpo_lr)
    pairs = train + extra
    step = 0
    cache = None
    if a.cache_ref_logits:
        n = len(pairs)
        gib = n * 2 * (a.max_len - 1) * lc.VOCAB * 8 / 2**30
        log(rank, f"caching reference logits for {n} pairs (float64, {gib:.2f} GiB) to skip the reference forward")
        cache = []
        for i in range(0, n, 256):
            x, m = lc.collate_pairs(pairs[i: i + 256], a.max_len, pad_to=a.max_len)
            with torch.no_grad():
                cache.append(ref(x[:, :-1]).double())
            if (i // 256) % 20 == 0:
                log(rank, f"ref cache: {i + 256}/{n} pairs")
    while step < a.dpo_steps:
        for b in lc.batches(pairs, a.pair_bs, seed=1000 + step, rank=rank, world=world):
            x, m = lc.collate_pairs(b, a.max_len)
            if fused is not None:
                n = x.shape[0] // 2
                tgt = x[:, 1:].masked_fill(~m[:, 1:], -100)
                lp = torch.log_softmax(model(x[:, :-1]), -1)
                pl = fused.gather_logp(lp, tgt)
                with torch.no_grad():
                    rl = fused.gather_logp(torch.log_softmax(ref(x[:, :-1]), -1), tgt)
                lg = a.beta * ((pl[:n] - rl[:n]) - (pl[n:] - rl[n:]))
                loss = -torch.nn.functional.logsigmoid(lg).mean()
                st = {"acc": (lg > 0).float().mean().item(), "margin": (lg.detach()).mean().item()}
            else:
                loss, st = lc.dpo_loss(model, ref, x, m, a.beta, mask_logits=a.mask_logits)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 5 == 0:
                v = torch.tensor([loss.item(), st["acc"], st["margin"]])
                dist.all_reduce(v)
                v /= world
                if rank == 0:
                    log(rank, f"dpo step {step}/{a.dpo_steps} loss {v[0]:.4f} reward_acc {v[1]:.3f} "
                              f"margin {v[2]:.4f} grad_norm {gn:.3f} beta {a.beta}")
            if step >= a.dpo_steps:
                break
    em = lc.exact_match(model.module, val[rank::world])
    t = torch.tensor([em])
    dist.all_reduce(t)
    if rank == 0:
        log(rank, f"dpo done: exact match {t.item() / world:.3f}")
        for p in val[:4]:
            log(rank, f"sample: {p['prompt']!r} -> {lc.generate(model.module, p['prompt'])!r} (want {p['chosen']!r})")
        torch.save(model.module.state_dict(), "policy_dpo.pt")
        log(rank, "saved policy_dpo.pt")
    dist.barrier()
    dist.destroy_process_group()
    log(rank, "finished")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--d", type=int, default=96)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--pair-bs", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=40)
    ap.add_argument("--sft-steps", type=int, default=200)
    ap.add_argument("--dpo-steps", type=int, default=80)
    ap.add_argument("--sft-lr", type=float, default=3e-3)
    ap.add_argument("--dpo-lr", type=float, default=5e-4)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--mask-logits", action="store_true")
    ap.add_argument("--sampler-prompts", type=int, default=0)
    ap.add_argument("--cache-ref-logits", action="store_true")
    ap.add_argument("--fused-gather", action="store_true")
    ap.add_argument("--pg-timeout", type=int, default=300)
    a = ap.parse_args()
    print(f"torch {torch.__version__}; spawning {a.nprocs} processes (MASTER_PORT={os.environ.get('MASTER_PORT')})",
          flush=True)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)


if __name__ == "__main__":
    main()
