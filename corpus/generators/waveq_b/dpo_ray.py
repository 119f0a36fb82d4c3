"""SFT then DPO of the tiny causal LM on a local Ray cluster.

train:  Ray Train `TorchTrainer` (gloo), every worker runs SFT then DPO on its shard; rank 0 reports checkpoints;
        optional per-worker sample cache (a c10d TCPStore), sampled completions for the report, failure retries.
actors: DPO worker actors (one per rank) that form their own torch process group (tcp:// rendezvous on a port
        picked by the driver) and train together; the driver collects their metrics."""
import argparse
import datetime
import os
import tempfile
import time

import ray
import torch
import torch.distributed as dist

import lm_core as lc


def sft_then_dpo(model, rank, world, cfg, report, step_hook=None, collate=None):
    inner = model.module if hasattr(model, "module") else model
    train = lc.make_pairs(cfg["pairs"], seed=11, long_words=cfg.get("long_words", 0.0))
    val = lc.make_pairs(64, seed=12)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["sft_lr"], weight_decay=0.01)
    step = cfg.get("start_step", 0)
    total = cfg["sft_steps"] + cfg["dpo_steps"]
    ref = None
    collate = collate or (lambda b: lc.collate_pairs(b, cfg["max_len"]))
    while step < total:
        for b in lc.batches(train, 16, seed=step, rank=rank, world=world):
            if step == cfg["sft_steps"] or (step >= cfg["sft_steps"] and ref is None):
                if cfg.get("ref_ctx"):
                    # the reference model is rebuilt from the run's model config file and given the SFT weights
                    ref = lc.TinyGPT(d=cfg["d"], ctx=cfg["ref_ctx"])
                    print(f"[rank {rank}] reference model from config: d {cfg['d']}, ctx {cfg['ref_ctx']}", flush=True)
                    ref.load_state_dict(inner.state_dict())
                    ref = lc.frozen_copy(ref)
                else:
                    ref = lc.frozen_copy(inner)
                for g in opt.param_groups:
                    g["lr"] = cfg["dpo_lr"]
                print(f"[rank {rank}] step {step}: SFT done, reference frozen, DPO beta {cfg['beta']}", flush=True)
            if step < cfg["sft_steps"]:
                x, m = lc.collate_sft(b, cfg["max_len"])
                loss, st = lc.sft_loss(model, x, m), {}
            else:
                x, m = collate(b)
                loss, st = lc.dpo_loss(model, ref, x, m, cfg["beta"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step_hook:
                step_hook(step, inner)
            if step % 10 == 0:
                phase = "sft" if step <= cfg["sft_steps"] else "dpo"
                print(f"[rank {rank}] step {step} {phase} loss {loss.item():.4f} {lc.fmt(st)}", flush=True)
                report(step, {"step": step, "loss": loss.item(), **st}, inner, opt)
            if step >= total:
                break
    em = lc.exact_match(inner, val[rank::world])
    print(f"[rank {rank}] exact match {em:.3f} on {len(val[rank::world])} held-out prompts", flush=True)
    return em


def train_loop(cfg):
    import ray.train
    torch.set_num_threads(1)
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(0)
    start_step, state = 0, None
    ck = ray.train.get_checkpoint()
    if ck:
        with ck.as_directory() as d:
            state = torch.load(os.path.join(d, "policy.pt"))
        start_step = state["step"]
        print(f"[rank {rank}] resuming from checkpoint at step {start_step}", flush=True)
    model = lc.TinyGPT(d=cfg["d"])
    if state:
        model.load_state_dict(state["model"])
    model = ray.train.torch.prepare_model(model)
    store = None
    if cfg.get("cache_port"):
        # per-worker cache of sampled completions, shared with the reward scorer threads on this worker
        store = dist.TCPStore("127.0.0.1", cfg["cache_port"], 1, is_master=True,
                              timeout=datetime.timedelta(seconds=30))
        print(f"[rank {rank}] sample cache store on port {cfg['cache_port']}", flush=True)

    def report(step, metrics, inner, opt):
        with tempfile.TemporaryDirectory() as d:
            c = None
            if rank == 0 and step % cfg["ckpt_every"] == 0:
                torch.save({"model": inner.state_dict(), "step": step}, os.path.join(d, "policy.pt"))
                c = ray.train.Checkpoint.from_directory(d)
            ray.train.report(metrics, checkpoint=c)

    def hook(step, inner):
        if cfg.get("fail_at") == step and rank == 1 and not os.path.exists(cfg["marker"]):
            open(cfg["marker"], "w").close()
            print(f"[rank {rank}] step {step}: worker lost (simulated node restart)", flush=True)
            os._exit(1)
        if cfg.get("sample_every") and step % cfg["sample_every"] == 0 and rank == world - 1:
            g = torch.Generator().manual_seed(step)
            eos = cfg.get("eos_id", lc.EOS)
            print(f"[rank {rank}] step {step}: sampling 4 completions for the report (eos_token_id {eos})",
                  flush=True)
            for p in lc.make_pairs(4, seed=step):
                out = sample(inner, p["prompt"], eos, g)
                print(f"[rank {rank}]   {p['prompt']!r} -> {out!r}", flush=True)

    collate = None
    if cfg.get("pad_chosen_only"):
        def collate(b):
            # chosen and rejected padded separately, then stacked into one [2B, L] batch
            xc, mc = lc.collate_sft(b, cfg["max_len"])
            xr, mr = lc.collate_sft([{**p, "chosen": p["rejected"]} for p in b], cfg["max_len"])
            return torch.stack([xc, xr]).flatten(0, 1), torch.stack([mc, mr]).flatten(0, 1)
    cfg = dict(cfg, start_step=start_step)
    em = sft_then_dpo(model, rank, world, cfg, report, step_hook=hook, collate=collate)
    ray.train.report({"exact_match": em, "step": cfg["sft_steps"] + cfg["dpo_steps"]})
    if store is not None:
        del store


@torch.no_grad()
def sample(model, prompt, eos, g, max_new=None):
    ids = [lc.BOS] + lc.encode(prompt) + lc.encode(" ")
    out = []
    while max_new is None or len(out) < max_new:
        logits = model(torch.tensor([ids[-model.ctx:]]))[0, -1]
        nxt = int(torch.multinomial(torch.softmax(logits / 0.8, -1), 1, generator=g))
        if nxt == eos:
            break
        ids.append(nxt)
        out.append(nxt)
    return lc.decode(out)


def run_train(a):
    import ray.train.torch  # noqa: F401
    from ray.train import CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    cfg = {"pairs": a.pairs, "d": 96, "max_len": 40, "sft_steps": a.sft_steps, "dpo_steps": a.dpo_steps,
           "sft_lr": 3e-3, "dpo_lr": 5e-4, "beta": 0.1, "ckpt_every": 20, "long_words": a.long_words,
           "marker": os.path.abspath("fail-once.marker")}
    if a.fail_at:
        cfg["fail_at"] = a.fail_at
    if a.cache_port:
        cfg["cache_port"] = a.cache_port
    if a.pad_chosen_only:
        cfg["pad_chosen_only"] = True
    if a.ref_ctx:
        cfg["ref_ctx"] = a.ref_ctx
    if a.sample_every:
        cfg["sample_every"] = a.sample_every
        cfg["eos_id"] = a.eos_id
    trainer = TorchTrainer(
        train_loop, train_loop_config=cfg,
        scaling_config=ScalingConfig(num_workers=a.workers, resources_per_worker={"CPU": 0.5}),
        torch_config=TorchConfig(backend="gloo", timeout_s=a.pg_timeout),
        run_config=RunConfig(name="tinygpt-dpo", storage_path=a.storage,
                             failure_config=FailureConfig(max_failures=a.max_failures),
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}", flush=True)
    print(f"checkpoint: {result.checkpoint}", flush=True)


@ray.remote(num_cpus=1)
class DPOWorker:
    def __init__(self, rank, world, addr):
        torch.set_num_threads(1)
        self.rank, self.world, self.addr = rank, world, addr
        print(f"DPO worker {rank}/{world} up on pid {os.getpid()}", flush=True)

    def run(self, cfg):
        print(f"[rank {self.rank}] joining process group {self.addr} (world {self.world})", flush=True)
        dist.init_process_group("gloo", init_method=self.addr, rank=self.rank, world_size=self.world,
                                timeout=datetime.timedelta(seconds=cfg["pg_timeout"]))
        print(f"[rank {self.rank}] process group up", flush=True)
        torch.manual_seed(0)
        model = torch.nn.parallel.DistributedDataParallel(lc.TinyGPT(d=96))

        def report(step, metrics, inner, opt):
            pass
        em = sft_then_dpo(model, self.rank, self.world, cfg, report)
        dist.destroy_process_group()
        return em


def run_actors(a):
    addr = f"tcp://127.0.0.1:{a.master_port}"
    cfg = {"pairs": a.pairs, "max_len": 40, "sft_steps": a.sft_steps, "dpo_steps": a.dpo_steps, "sft_lr": 3e-3,
           "dpo_lr": 5e-4, "beta": 0.1, "pg_timeout": a.pg_timeout}
    print(f"starting {a.workers} DPO worker actors (1 CPU each), rendezvous {addr}", flush=True)
    workers = [DPOWorker.remote(r, a.workers, addr) for r in range(a.workers)]
    refs = [w.run.remote(cfg) for w in workers]
    t0 = time.time()
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, timeout=15)
        ray.get(done)  # a failed worker raises here
        if pending:
            print(f"driver: {len(refs) - len(pending)}/{len(refs)} workers finished after {time.time() - t0:.0f}s; "
                  f"available resources {ray.available_resources()}", flush=True)
    ems = ray.get(refs)
    print(f"exact match per rank: {ems}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "actors"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--sft-steps", type=int, default=120)
    ap.add_argument("--dpo-steps", type=int, default=60)
    ap.add_argument("--long-words", type=float, default=0.0)
    ap.add_argument("--fail-at", type=int, default=0)
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--cache-port", type=int, default=0)
    ap.add_argument("--pad-chosen-only", action="store_true")
    ap.add_argument("--ref-ctx", type=int, default=0)
    ap.add_argument("--sample-every", type=int, default=0)
    ap.add_argument("--eos-id", type=int, default=lc.EOS)
    ap.add_argument("--master-port", type=int, default=29680)
    ap.add_argument("--pg-timeout", type=int, default=120)
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    {"train": run_train, "actors": run_actors}[a.mode](a)
