"""Collaborative protein secondary-structure tagging with hivemind.

Every peer joins one DHT (the first peer's multiaddr passed to the others as --initial-peers), trains a small BiLSTM
or 1D-CNN tagger (H/E/C per residue) on its own shard and steps a hivemind.Optimizer that averages gradients with
whoever is there once the collaboration has accumulated --target-batch-size samples. Prints per-step loss, per-epoch
global progress and Q3 accuracy on the validation set; one peer (--checkpoint-dir) saves checkpoints.
"""
import argparse
import math
import os
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import hivemind

AA = {a: i + 1 for i, a in enumerate("ACDEFGHIKLMNPQRSTVWY")}
SS = {"H": 0, "E": 1, "C": 2}


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", type=int, default=0)
    ap.add_argument("--host-port", type=int, required=True)
    ap.add_argument("--initial-peers", nargs="*", default=[])
    ap.add_argument("--maddr-file", default="")
    ap.add_argument("--run-id", default="ss3_tagger")
    ap.add_argument("--data", default="data")
    ap.add_argument("--shard", type=int, default=-1)
    ap.add_argument("--model", choices=["bilstm", "cnn"], default="bilstm")
    ap.add_argument("--emb", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--kernel", type=int, default=7)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--target-batch-size", type=int, default=256)
    ap.add_argument("--matchmaking-time", type=float, default=3.0)
    ap.add_argument("--averaging-timeout", type=float, default=15.0)
    ap.add_argument("--use-local-updates", action="store_true")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--max-steps", type=int, default=0, help="leave the collaboration after this many local steps")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--checkpoint-dir", default="")
    ap.add_argument("--save-every", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


def load(path):
    chains = []
    with open(path) as f:
        for line in f:
            cid, seq, lab = line.rstrip("\n").split("\t")
            x = torch.tensor([AA[c] for c in seq])
            y = torch.tensor([SS.get(c, -100) for c in lab])
            chains.append((cid, x, y))
    return chains


def batches(chains, bs, rng):
    while True:
        order = list(range(len(chains)))
        rng.shuffle(order)
        for i in range(0, len(order) - bs + 1, bs):
            part = [chains[j] for j in order[i:i + bs]]
            x = nn.utils.rnn.pad_sequence([c[1] for c in part], batch_first=True)
            y = nn.utils.rnn.pad_sequence([c[2] for c in part], batch_first=True, padding_value=-100)
            yield x, y


class Tagger(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.kind = a.model
        self.emb = nn.Embedding(len(AA) + 1, a.emb, padding_idx=0)
        if a.model == "bilstm":
            self.enc = nn.LSTM(a.emb, a.hidden, num_layers=a.layers, batch_first=True, bidirectional=True)
            out = 2 * a.hidden
        else:
            self.enc = nn.Sequential(*[m for i in range(a.layers) for m in (
                nn.Conv1d(a.emb if i == 0 else a.hidden, a.hidden, a.kernel, padding=a.kernel // 2), nn.ReLU())])
            out = a.hidden
        self.head = nn.Linear(out, 3)

    def forward(self, x):
        h = self.emb(x)
        if self.kind == "bilstm":
            h, _ = self.enc(h)
        else:
            h = self.enc(h.transpose(1, 2)).transpose(1, 2)
        return self.head(h)


@torch.no_grad()
def q3(model, chains):
    model.eval()
    right = total = 0
    for i in range(0, len(chains), 64):
        part = chains[i:i + 64]
        x = nn.utils.rnn.pad_sequence([c[1] for c in part], batch_first=True)
        y = nn.utils.rnn.pad_sequence([c[2] for c in part], batch_first=True, padding_value=-100)
        pred = model(x).argmax(-1)
        mask = y != -100
        right += (pred[mask] == y[mask]).sum().item()
        total += mask.sum().item()
    model.train()
    return right / max(total, 1)


def main():
    a = parse()
    torch.manual_seed(a.seed)
    print(f"[peer {a.peer}] args: {vars(a)}", flush=True)
    dht = hivemind.DHT(host_maddrs=[f"/ip4/127.0.0.1/tcp/{a.host_port}"], initial_peers=a.initial_peers, start=True)
    maddrs = [str(m) for m in dht.get_visible_maddrs()]
    print(f"[peer {a.peer}] DHT up, visible multiaddrs: {' '.join(maddrs)}", flush=True)
    if a.maddr_file:
        with open(a.maddr_file + ".tmp", "w") as f:
            f.write(maddrs[0] + "\n")
        os.replace(a.maddr_file + ".tmp", a.maddr_file)

    shards = sorted(f for f in os.listdir(a.data) if f.startswith("train-"))
    shard = shards[(a.shard if a.shard >= 0 else a.peer) % len(shards)]
    train = load(os.path.join(a.data, shard))
    valid = load(os.path.join(a.data, "valid.tsv"))
    print(f"[peer {a.peer}] shard {shard}: {len(train)} chains, {sum(len(c[1]) for c in train)} residues; "
          f"valid {len(valid)} chains", flush=True)

    model = Tagger(a)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"[peer {a.peer}] model {a.model}: {n_params} parameters", flush=True)
    opt = hivemind.Optimizer(
        dht=dht, run_id=a.run_id, params=model.parameters(),
        optimizer=lambda params: torch.optim.Adam(params, lr=a.lr),
        batch_size_per_step=a.batch_size, target_batch_size=a.target_batch_size,
        matchmaking_time=a.matchmaking_time, averaging_timeout=a.averaging_timeout,
        use_local_updates=a.use_local_updates, verbose=True)
    opt.load_state_from_peers()
    print(f"[peer {a.peer}] joined run {a.run_id} at epoch {opt.local_epoch}", flush=True)

    try:
        rng = random.Random(a.seed + a.peer)
        data = batches(train, a.batch_size, rng)
        step, epoch, t0 = 0, opt.local_epoch, time.time()
        while opt.local_epoch < a.epochs:
            x, y = next(data)
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, 3), y.reshape(-1), ignore_index=-100)
            loss.backward()
            opt.step()
            opt.zero_grad()
            step += 1
            if step % a.log_every == 0:
                print(f"[peer {a.peer}] step {step} loss {loss.item():.4f} local_epoch {opt.local_epoch} "
                      f"({a.batch_size * step / (time.time() - t0):.1f} samples/s)", flush=True)
            if opt.local_epoch != epoch:
                epoch = opt.local_epoch
                gp = opt.tracker.global_progress
                acc = q3(model, valid)
                print(f"[peer {a.peer}] epoch {epoch}: global samples {gp.samples_accumulated}/{a.target_batch_size}, "
                      f"{gp.num_peers} peers, valid Q3 {acc:.4f}", flush=True)
                if not math.isfinite(loss.item()):
                    raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} (step {step})")
                if a.checkpoint_dir and epoch % a.save_every == 0:
                    os.makedirs(a.checkpoint_dir, exist_ok=True)
                    path = os.path.join(a.checkpoint_dir, f"ss3-epoch{epoch:03d}.pt")
                    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch,
                                "q3": acc}, path)
                    print(f"[peer {a.peer}] saved checkpoint {path}", flush=True)
            if a.max_steps and step >= a.max_steps:
                print(f"[peer {a.peer}] reached --max-steps {a.max_steps}, leaving the collaboration", flush=True)
                break
        print(f"[peer {a.peer}] done: {step} local steps, epoch {opt.local_epoch}, valid Q3 {q3(model, valid):.4f}",
              flush=True)
    finally:
        opt.shutdown()
        dht.shutdown()


if __name__ == "__main__":
    main()
