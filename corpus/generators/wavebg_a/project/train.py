import logging

import torch
from lightning.pytorch.cli import LightningCLI

from forecaster import LoadForecaster, MeterData


def main():
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(1)
    LightningCLI(LoadForecaster, MeterData, save_config_kwargs={"overwrite": True})


if __name__ == "__main__":
    main()
