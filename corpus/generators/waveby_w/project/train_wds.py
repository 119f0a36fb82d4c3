"""Tiny classifier trained with DDP (gloo) on a WebDataset tar shard set read via wds.WebDataset + wds.WebLoader."""
import argparse, os, socket, time
import numpy as np
import torch
import torch.distributed as dist
import webdataset as wds

ap = argparse.ArgumentParser()
ap.add_argument("--urls", default="shards/train-{000000..000011}.tar")
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--batch", type=int, default=8)
ap.add_argument("--steps", type=int, default=16, help="batches per epoch per rank (with_epoch)")
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--ckpt", default="ckpt/model.pt")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--handler", default="reraise_exception")
ap.add_argument("--pg-timeout", type=float, default=300)
ap.add_argument("--sleep", type=float, default=0.15)
ap.add_argument("--hook", default="")
ap.add_argument("--keep-all", action="store_true", help="keep every epoch's checkpoint (model-E.pt)")
a = ap.parse_args()

import datetime
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
print(f"[rank {rank}] host {socket.gethostname()} world {world} webdataset {wds.__version__ if hasattr(wds, '__version__') else '?'}", flush=True)

handler = getattr(wds, a.handler)
ds = (wds.WebDataset(a.urls, nodesplitter=wds.split_by_node, shardshuffle=False, handler=handler, empty_check=True)
      .decode(handler=handler).to_tuple("x.npy", "cls", handler=handler).batched(a.batch).with_epoch(a.steps))
loader = wds.WebLoader(ds, batch_size=None, num_workers=a.workers)

model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
start = 0
if a.resume and os.path.exists(a.ckpt):
    st = torch.load(a.ckpt)
    model.load_state_dict(st["model"]); start = st["epoch"] + 1
    print(f"[rank {rank}] resumed from {a.ckpt} at epoch {start}", flush=True)
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=a.lr)
hook = {}
if a.hook:
    exec(open(a.hook).read(), hook)

for epoch in range(start, a.epochs):
    for step, (x, y) in enumerate(loader):
        x = torch.as_tensor(np.asarray(x)); y = torch.as_tensor(np.asarray(y))
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if "on_step" in hook:
            hook["on_step"](rank, epoch, step, x, y, loss)
        if not torch.isfinite(loss):
            raise FloatingPointError(f"[rank {rank}] loss is {loss.item()} at epoch {epoch} step {step}")
        if rank == 0 and step % 4 == 0:
            print(f"epoch {epoch} step {step}: loss {loss.item():.4f}", flush=True)
        time.sleep(a.sleep)
    dist.barrier()
    if rank == 0:
        os.makedirs(os.path.dirname(a.ckpt), exist_ok=True)
        path = a.ckpt.replace(".pt", f"-{epoch}.pt") if a.keep_all else a.ckpt
        torch.save({"model": model.state_dict(), "epoch": epoch}, path)
        print(f"epoch {epoch} done, saved {path}", flush=True)
dist.barrier()
print(f"[rank {rank}] training finished", flush=True)
dist.destroy_process_group()
