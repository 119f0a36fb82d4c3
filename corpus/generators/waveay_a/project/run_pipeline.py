"""Run the gearbox pipeline locally (kfp SubprocessRunner) before submitting it to the cluster.

    python run_pipeline.py --epochs 3 --master-port 29500 [--cache]
"""
import argparse
import os

from kfp import local

from pipeline import gearbox_pipeline


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", default="data/scada_10min.csv")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--master-port", type=int, default=29500)
    ap.add_argument("--nnodes", type=int, default=1)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--augment-copies", type=int, default=0)
    ap.add_argument("--class-weights", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--launch-timeout-s", type=int, default=0)
    ap.add_argument("--min-accuracy", type=float, default=0.8)
    ap.add_argument("--cache", action="store_true", help="reuse finished steps from .kfp-cache")
    a = ap.parse_args()
    local.init(runner=local.SubprocessRunner(use_venv=False), pipeline_root="./local_outputs",
               enable_caching=a.cache, cache_root="./.kfp-cache" if a.cache else None)
    run = gearbox_pipeline(workdir=os.getcwd(), export=a.export, epochs=a.epochs, master_port=a.master_port,
                           nnodes=a.nnodes, micro_batch=a.micro_batch, optimizer=a.optimizer, lr=a.lr,
                           loader_workers=a.loader_workers, step_delay=a.step_delay, pg_timeout=a.pg_timeout,
                           augment_copies=a.augment_copies, class_weights=a.class_weights, resume=a.resume,
                           log_every=a.log_every, launch_timeout_s=a.launch_timeout_s,
                           min_accuracy=a.min_accuracy)
    print(f"pipeline finished, validation accuracy {run.output:.3f}")


if __name__ == "__main__":
    main()
