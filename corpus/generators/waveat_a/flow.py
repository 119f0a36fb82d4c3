"""Hotel booking cancellation model: prepare features per export shard (foreach), train with DDP over gloo across
@parallel nodes, evaluate on the validation export."""
import functools
import json
import os
import sys
import time

from metaflow import FlowSpec, Parameter, catch, current, parallel, resources, retry, step, timeout


def log(msg):
    print(msg, flush=True)


class BookingCancelFlow(FlowSpec):
    data_dir = Parameter("data-dir", default="data")
    nodes = Parameter("nodes", default=2, type=int)
    epochs = Parameter("epochs", default=3, type=int)
    lr = Parameter("lr", default=3e-3, type=float)
    optimizer = Parameter("optimizer", default="adam")
    global_batch = Parameter("global-batch", default=512, type=int)
    micro_batch = Parameter("micro-batch", default=256, type=int)
    grad_accum = Parameter("grad-accum", default=1, type=int)
    master_port = Parameter("master-port", default=31100, type=int)
    log_every = Parameter("log-every", default=10, type=int)
    step_delay = Parameter("step-delay", default=0.0, type=float)
    pg_timeout = Parameter("pg-timeout", default=300, type=int)
    loader_workers = Parameter("loader-workers", default=1, type=int)
    occupancy_days = Parameter("occupancy-days", default=0, type=int)
    occupancy_in_loader = Parameter("occupancy-in-loader", default=False, type=bool)
    feature_url = Parameter("feature-url", default="")
    calibration_plot = Parameter("calibration-plot", default=False, type=bool)

    @step
    def start(self):
        meta = json.load(open(os.path.join(self.data_dir, "meta.json")))
        self.meta = meta
        log(f"bookings export: {meta['shards']} shards, {meta['hotels']} hotels, numeric={meta['numeric']}")
        log(f"config: nodes={self.nodes} epochs={self.epochs} lr={self.lr} optimizer={self.optimizer} "
            f"global_batch={self.global_batch} micro_batch={self.micro_batch} grad_accum={self.grad_accum}")
        self.parts = [f"bookings-{k:02d}" for k in range(meta["shards"])] + ["val"]
        self.next(self.prepare, foreach="parts")

    @retry(times=3, minutes_between_retries=0)
    @step
    def prepare(self):
        import numpy as np
        part = self.input
        if self.feature_url:
            import io
            import urllib.request
            with urllib.request.urlopen(f"{self.feature_url}/{part}.npz", timeout=10) as r:
                raw = np.load(io.BytesIO(r.read()))
        else:
            raw = np.load(os.path.join(self.data_dir, f"{part}.npz"))
        num = np.stack([raw[c] for c in self.meta["numeric"]], axis=1).astype(np.float64)
        num[:, 0] = np.log1p(num[:, 0])  # lead time (days)
        num[:, 4] = np.log1p(num[:, 4])  # adr
        self.part = part
        self.rows = len(raw["label"])
        self.sums = num.sum(0).tolist()
        self.sq = (num ** 2).sum(0).tolist()
        os.makedirs("features", exist_ok=True)
        np.savez(f"features/{part}.npz", num=num.astype(np.float32), hotel=raw["hotel"], segment=raw["segment"],
                 deposit=raw["deposit"], label=raw["label"])
        log(f"[prepare {part}] rows={self.rows} cancel_rate={raw['label'].mean():.3f} "
            f"max_hotel={int(raw['hotel'].max())} -> features/{part}.npz")
        self.next(self.join_prepare)

    @step
    def join_prepare(self, inputs):
        import numpy as np
        train = [i for i in inputs if i.part != "val"]
        n = sum(i.rows for i in train)
        mean = np.sum([i.sums for i in train], 0) / n
        var = np.sum([i.sq for i in train], 0) / n - mean ** 2
        self.mean, self.std = mean.tolist(), np.sqrt(np.maximum(var, 1e-6)).tolist()
        self.meta = inputs[0].meta
        self.train_rows = n
        log(f"feature stats over {n} training rows: mean={np.round(mean, 3).tolist()}")
        self.next(self.launch)

    @step
    def launch(self):
        log(f"launching {self.nodes} training nodes (gloo, master port {self.master_port})")
        self.next(self.train, num_parallel=self.nodes)

    @resources(cpu=1, memory=2048)
    @timeout(minutes=20)
    @parallel
    @step
    def train(self):
        import numpy as np
        import torch
        import torch.distributed as dist
        import torch.nn as nn
        from datetime import timedelta
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data import DataLoader, TensorDataset

        torch.set_num_threads(1)
        rank = current.parallel.node_index
        world = int(os.environ.get("WORLD_SIZE", current.parallel.num_nodes))
        os.environ["MASTER_ADDR"] = current.parallel.main_ip
        os.environ["MASTER_PORT"] = str(self.master_port)
        os.environ["RANK"] = str(rank)
        os.environ["WORLD_SIZE"] = str(world)
        p = f"[rank{rank}]"
        log(f"{p} node {rank}/{current.parallel.num_nodes} main_ip={current.parallel.main_ip} "
            f"master_port={self.master_port} world_size={world} pid={os.getpid()}")
        if self.global_batch != self.micro_batch * self.grad_accum * world:
            raise ValueError(f"global batch {self.global_batch} != micro batch {self.micro_batch} * grad accum "
                             f"{self.grad_accum} * world size {world}")
        dist.init_process_group("gloo", timeout=timedelta(seconds=self.pg_timeout))
        log(f"{p} process group ready (backend=gloo, world_size={dist.get_world_size()})")

        meta = self.meta
        chains = json.load(open(os.path.join(self.data_dir, "hotel_chains.json")))
        sys.setrecursionlimit(1_000_000)  # deep franchise chains

        @functools.lru_cache(maxsize=None)
        def owner(node):
            up = chains["parent"].get(node)
            return node if up is None else owner(up)

        groups = sorted({owner(b) for b in set(chains["hotel"].values())})
        gidx = {g: i for i, g in enumerate(groups)}
        hotel_group = torch.tensor([gidx[owner(chains["hotel"][str(h)])] for h in range(meta["hotels"])])
        log(f"{p} {len(groups)} owner groups for {meta['hotels']} hotels")

        occupancy_days = self.occupancy_days

        def load_occupancy(worker_id):  # each loader worker keeps its own copy of the demand table
            occ = np.random.default_rng(worker_id).random((meta["hotels"] + 1, occupancy_days * 24 * 2))
            log(f"{p} loader worker {worker_id}: occupancy history {occ.shape} ({occ.nbytes / 2**30:.2f} GiB)")
            torch.utils.data.get_worker_info().dataset.occ = occ

        if self.occupancy_days and not self.occupancy_in_loader:  # per-hotel hourly occupancy as a demand feature
            occ = np.random.default_rng(rank).random((meta["hotels"] + 1, self.occupancy_days * 24 * 2))
            log(f"{p} occupancy history {occ.shape} ({occ.nbytes / 2**30:.2f} GiB)")

        d = np.load(f"features/bookings-{rank:02d}.npz")
        mean, std = np.array(self.mean, np.float32), np.array(self.std, np.float32)
        num = torch.from_numpy((d["num"] - mean) / std)
        ds = TensorDataset(num, torch.from_numpy(d["hotel"]), torch.from_numpy(d["segment"]),
                           torch.from_numpy(d["deposit"]), torch.from_numpy(d["label"]))
        loader = DataLoader(ds, batch_size=self.micro_batch, shuffle=True, num_workers=self.loader_workers,
                            drop_last=True, generator=torch.Generator().manual_seed(rank),
                            worker_init_fn=load_occupancy if self.occupancy_days and self.occupancy_in_loader else None)
        log(f"{p} loaded features/bookings-{rank:02d}.npz rows={len(ds)} steps/epoch={len(loader)}")

        class CancelNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.hotel = nn.Embedding(meta["hotels"], 16)
                self.group = nn.Embedding(len(groups), 4)
                self.segment = nn.Embedding(meta["segments"], 4)
                self.deposit = nn.Embedding(meta["deposit_types"], 2)
                self.mlp = nn.Sequential(nn.Linear(16 + 4 + 4 + 2 + len(meta["numeric"]), 64), nn.ReLU(),
                                         nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

            def forward(self, x, h, s, dep):
                z = torch.cat([self.hotel(h), self.group(hotel_group[h]), self.segment(s), self.deposit(dep), x], 1)
                return self.mlp(z).squeeze(1)

        torch.manual_seed(0)
        model = DDP(CancelNet())
        opt = (torch.optim.SGD(model.parameters(), lr=self.lr, momentum=0.9) if self.optimizer == "sgd"
               else torch.optim.Adam(model.parameters(), lr=self.lr))
        lossf = nn.BCEWithLogitsLoss()
        v = np.load("features/val.npz")
        vidx = np.array_split(np.arange(len(v["label"])), world)[rank]
        vx = torch.from_numpy((v["num"][vidx] - mean) / std)
        vh, vs, vd = (torch.from_numpy(v[k][vidx]) for k in ("hotel", "segment", "deposit"))
        vy = torch.from_numpy(v["label"][vidx])
        os.makedirs("checkpoints", exist_ok=True)
        step_no = 0
        for epoch in range(1, self.epochs + 1):
            model.train()
            t0 = time.time()
            for i, (x, h, s, dep, y) in enumerate(loader, 1):
                loss = lossf(model(x, h, s, dep), y)
                if not torch.isfinite(loss):
                    raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
                opt.zero_grad()
                loss.backward()
                opt.step()
                step_no += 1
                if i % self.log_every == 0 or i == 1:
                    log(f"{p} epoch {epoch} step {i}/{len(loader)} loss {loss.item():.4f}")
                if self.step_delay:
                    time.sleep(self.step_delay)
            model.eval()
            with torch.no_grad():
                scores = torch.sigmoid(model.module(vx, vh, vs, vd))
                vloss = lossf(torch.logit(scores.clamp(1e-6, 1 - 1e-6)), vy).item()
            gathered = [torch.empty_like(scores) for _ in range(world)]
            dist.all_gather(gathered, scores)
            labels = [torch.empty_like(vy) for _ in range(world)]
            dist.all_gather(labels, vy)
            if rank == 0:
                sc, lb = torch.cat(gathered).numpy(), torch.cat(labels).numpy()
                order = np.argsort(sc)
                ranks = np.empty(len(sc))
                ranks[order] = np.arange(1, len(sc) + 1)
                pos = lb == 1
                auc = (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())
                log(f"{p} epoch {epoch} done in {time.time() - t0:.1f}s val_loss {vloss:.4f} val_auc {auc:.4f}")
                torch.save({"epoch": epoch, "step": step_no, "model": model.module.state_dict(),
                            "optimizer": opt.state_dict()}, f"checkpoints/epoch-{epoch}.pt")
                log(f"{p} saved checkpoints/epoch-{epoch}.pt")
        self.rank = rank
        if rank == 0:
            self.model_state = {k: v.clone() for k, v in model.module.state_dict().items()}
            self.groups = groups
        dist.barrier()
        dist.destroy_process_group()
        log(f"{p} finished {self.epochs} epochs ({step_no} steps)")
        self.next(self.join_train)

    @step
    def join_train(self, inputs):
        lead = [i for i in inputs if i.rank == 0][0]
        self.model_state = lead.model_state
        self.groups = lead.groups
        self.mean, self.std, self.meta = lead.mean, lead.std, lead.meta
        log(f"collected model from {len(list(inputs))} nodes")
        self.next(self.evaluate)

    @step
    def evaluate(self):
        import numpy as np
        v = np.load("features/val.npz")
        log(f"evaluating on {len(v['label'])} validation bookings, {len(self.model_state)} tensors")
        self.val_rows = len(v["label"])
        self.next(self.report)

    @catch(var="report_error", print_exception=True)
    @step
    def report(self):
        if self.calibration_plot:
            import matplotlib  # noqa: F401  (calibration plot for the weekly review)
            log("calibration plot written")
        self.next(self.end)

    @step
    def end(self):
        if getattr(self, "report_error", None):
            log("calibration report skipped (see the report step)")
        log(f"done: model with {len(self.model_state)} tensors, {len(self.groups)} owner groups")


if __name__ == "__main__":
    BookingCancelFlow()
