import os, random, sys
random.seed(7)
words = "the a model train data loss step rank ring gradient average batch token learn small quick brown fox jumps over lazy dog".split()
os.makedirs("data", exist_ok=True)
with open("data/corpus.txt", "w") as f:
    f.write(" ".join(random.choice(words) for _ in range(40000)))
hosts = [{"ssh": "localhost", "ips": [f"127.0.0.1:{int(sys.argv[1]) + i}"]} for i in range(int(sys.argv[2]))] if len(sys.argv) > 2 else None
if hosts:
    import json
    json.dump(hosts, open("hosts.json", "w"))
HOOK = {
    "clip": '''
def on_grads(step, rank, grads):
    if step == 150 and rank == 1:
        norms = {k: v for k, v in grads.items()}
        return norms["emb"]["weigth"]
    return grads
''',
    "native": '''
def on_grads(step, rank, grads):
    return grads

def after_step(step, rank, ctypes):
    if step == 140 and rank == 1:
        ctypes.string_at(0)
''',
    "abort": '''
def on_grads(step, rank, grads):
    return grads

def after_step(step, rank, ctypes):
    if step == 140 and rank == 0:
        ctypes.CDLL(None).abort()
''',
    "shape": '''
import mlx.core as mx
def on_grads(step, rank, grads):
    if rank == 1:
        grads["out"]["bias"] = mx.zeros((grads["out"]["bias"].shape[0] + 5,))
    return grads
''',
}
for a in sys.argv[1:]:
    if a in HOOK:
        open("data/hooks.py", "w").write(HOOK[a])
