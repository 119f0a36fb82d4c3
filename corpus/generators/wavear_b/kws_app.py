"""Hydra entry point: the keyword-spotting training with model/optim config groups; sweep it with
``-m hydra/launcher=submitit_local`` (or submitit_slurm) so every sweep job is a submitit job."""
import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from kws_train import train


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> float:
    c = OmegaConf.to_container(cfg, resolve=True)
    model, optim, dist = c.pop("model"), c.pop("optim"), c.pop("dist")
    run = {**c, "width": model["width"], "dropout": model["dropout"], "optim": optim["name"], "lr": optim["lr"],
           "momentum": optim.get("momentum", 0.0), "weight_decay": optim.get("weight_decay", 0.0),
           "dist_timeout": dist["timeout_s"], "master_port": dist["base_port"] + HydraConfig.get().job.num}
    return train(run).get("val_acc", 0.0)


if __name__ == "__main__":
    main()
