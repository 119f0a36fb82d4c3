"""Gearbox-fault training pipeline for the Northridge wind farm's condition-monitoring team, on ZenML:

    load_readings -> clean_readings -> build_features -> train_model (torchrun, DDP over gloo) -> evaluate

Run: python run.py [--config configs/train.yaml] [--epochs N --master-port P ...]
"""
import argparse

from zenml import pipeline
from zenml.config.retry_config import StepRetryConfig

from steps import build_features, clean_readings, evaluate, load_readings, train_model


@pipeline(enable_cache=True)
def gearbox_fault_training():
    raw = load_readings()
    clean = clean_readings(raw)
    train_path, val_path = build_features(clean)
    summary = train_model(train_path, val_path)
    evaluate(summary)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/train.yaml")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--train-retries", type=int, default=0)
    for name, typ in (("epochs", int), ("master-port", int), ("nnodes", int), ("micro-batch", int),
                      ("optimizer", str), ("lr", float), ("loader-workers", int), ("step-delay", float),
                      ("pg-timeout", int), ("augment-copies", int), ("log-every", int), ("train-timeout-s", int)):
        ap.add_argument(f"--{name}", type=typ)
    ap.add_argument("--class-weights", action="store_true", default=None)
    ap.add_argument("--resume", action="store_true", default=None)
    a = vars(ap.parse_args())
    overrides = {k: v for k, v in a.items() if v is not None and k not in ("config", "no_cache", "train_retries")}
    p = gearbox_fault_training.with_options(config_path=a["config"], enable_cache=not a["no_cache"])
    if overrides:
        train_model.configure(parameters=overrides)
    if a["train_retries"]:
        train_model.configure(retry=StepRetryConfig(max_retries=a["train_retries"], delay=10, backoff=1))
    p()


if __name__ == "__main__":
    main()
