"""Submit keyword-spotting training to a cluster (or this machine) with submitit and wait for the result."""
import argparse
import sys

import submitit

from kws_train import DEFAULTS, KwsTrainer, train


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", default="kws_jobs/%j")
    ap.add_argument("--cluster", default=None, help="local, debug or slurm (default: auto)")
    ap.add_argument("--tasks", type=int, default=2)
    ap.add_argument("--timeout-min", type=float, default=30)
    ap.add_argument("--signal-delay-s", type=int, default=30)
    ap.add_argument("--requeue", action="store_true", help="checkpointable job: resubmit itself at the time limit")
    ap.add_argument("--python", default=None, help="interpreter the job runs with (default: this one)")
    ap.add_argument("--sweep-lr", default="", help="comma list: one job per learning rate (job array)")
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    a = ap.parse_args()
    cfg = {k: getattr(a, k) for k in DEFAULTS}
    if a.cluster == "local":  # this machine: one process per task, the time limit enforced by submitit
        ex = submitit.LocalExecutor(folder=a.folder, python=a.python)
        ex.update_parameters(nodes=1, tasks_per_node=a.tasks, timeout_min=a.timeout_min,
                             signal_delay_s=a.signal_delay_s)
    else:
        ex = submitit.AutoExecutor(folder=a.folder, cluster=a.cluster, slurm_python=a.python)
        ex.update_parameters(name="kws", nodes=1, tasks_per_node=a.tasks, timeout_min=int(a.timeout_min))
    fn = KwsTrainer() if a.requeue else train
    print(f"executor: {a.cluster or ex.cluster}, {a.tasks} task(s) per job, timeout {a.timeout_min} min", flush=True)
    if a.sweep_lr:
        cfgs = [{**cfg, "lr": float(lr), "ckpt_dir": f"{cfg['ckpt_dir']}/lr{lr}",
                 "master_port": cfg["master_port"] + i if cfg["master_port"] else 0}
                for i, lr in enumerate(a.sweep_lr.split(","))]
        jobs = ex.map_array(fn, cfgs)
        print(f"submitted job array {jobs[0].job_id.split('_')[0]} ({len(jobs)} jobs)", flush=True)
        failed = 0
        for c, j in zip(cfgs, jobs):
            try:
                res = j.results()[0] if a.tasks > 1 else j.result()
                print(f"lr {c['lr']}: job {j.job_id} {res}", flush=True)
            except Exception as e:  # keep the other jobs' results
                failed += 1
                print(f"lr {c['lr']}: job {j.job_id} {j.state}: {type(e).__name__}", flush=True)
                print(e, file=sys.stderr, flush=True)
        sys.exit(1 if failed else 0)
    job = ex.submit(fn, cfg)
    print(f"submitted job {job.job_id}, logs in {job.paths.stdout.parent}", flush=True)
    res = job.results()[0] if a.tasks > 1 else job.result()  # task 0 reports
    print(f"job {job.job_id} {job.state}: {res}", flush=True)


if __name__ == "__main__":
    main()
