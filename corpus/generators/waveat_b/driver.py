"""Submit the quake-detector pipeline to the Celery workers and wait for it: a group of per-station prep tasks, a
chord of hyperparameter trials with pick_best as its callback, then the final DDP training (one task per node)."""
import argparse
import itertools
import time

from celery import chord, group

from tasks import pick_best, prep_station, train_final, train_trial

p = argparse.ArgumentParser()
p.add_argument("--stations", type=int, default=4)
p.add_argument("--trials", type=int, default=4)
p.add_argument("--trial-epochs", type=int, default=2)
p.add_argument("--final-epochs", type=int, default=2)
p.add_argument("--port", type=int, default=31210)
p.add_argument("--nodes", type=int, default=1)
p.add_argument("--augment", type=int, default=1)
p.add_argument("--lrs", default="0.003,0.001")
p.add_argument("--raw-gain", action="store_true", help="keep station gain (no per-window normalisation)")
p.add_argument("--step-delay", type=float, default=0.0)
p.add_argument("--final-args", default="")
p.add_argument("--timeout", type=float, default=None)
a = p.parse_args()
print(f"driver args: {vars(a)}", flush=True)
t0 = time.time()
stations = list(range(a.stations))

res = group(prep_station.s(i, gain_normalise=not a.raw_gain) for i in stations).apply_async()
print(f"prep: submitted group {res.id} ({len(stations)} stations)", flush=True)
for r in res.get(timeout=a.timeout):
    print(f"prep: station {r['station']} ({r['code']}) {r['windows']} windows, {r['events']} events", flush=True)

grid = list(itertools.product([float(v) for v in a.lrs.split(",")], [8, 16]))[: a.trials]
trials = [{"id": k, "lr": lr, "channels": ch, "kernel": 7, "seed": k} for k, (lr, ch) in enumerate(grid)]
c = chord(train_trial.s(t, stations, epochs=a.trial_epochs, augment=a.augment, step_delay=a.step_delay)
          for t in trials)(pick_best.s())
print(f"trials: submitted chord {c.id} ({len(trials)} trials)", flush=True)
best = c.get(timeout=a.timeout)
print(f"trials: best {best} after {time.time() - t0:.0f} s", flush=True)

extra = a.final_args.split()
final = group(train_final.s(best, stations, a.port, epochs=a.final_epochs, node_rank=n, nnodes=a.nodes, extra=extra)
              for n in range(a.nodes)).apply_async()
print(f"final: submitted {a.nodes} node task(s), group {final.id}", flush=True)
for r in final.get(timeout=a.timeout):
    print(f"final: node {r['node']} done", flush=True)
print(f"pipeline finished in {time.time() - t0:.0f} s", flush=True)
