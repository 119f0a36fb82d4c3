"""Demand-forecasting MLP and the data loading the tuning job shares."""
import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import TensorDataset

FEATURES = ["dow", "price", "promo_depth", "temp_c"]
TARGET = "units_sold"


def load_sales(path, features=FEATURES):
    df = pd.read_csv(path)
    x = df[list(features)].to_numpy(dtype=np.float32)
    x = np.concatenate([x, np.eye(7, dtype=np.float32)[df["dow"].to_numpy()]], axis=1)
    y = (df[TARGET].to_numpy(dtype=np.float32) / 100.0)[:, None]
    n_valid = len(df) // 5
    return (TensorDataset(torch.from_numpy(x[n_valid:]), torch.from_numpy(y[n_valid:])),
            TensorDataset(torch.from_numpy(x[:n_valid]), torch.from_numpy(y[:n_valid])))


class DemandMLP(nn.Module):
    def __init__(self, n_in, hidden=64, layers=2, dropout=0.1):
        super().__init__()
        mods, d = [], n_in
        for _ in range(layers):
            mods += [nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(dropout)]
            d = hidden
        mods.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*mods)

    def forward(self, x):
        return self.net(x)
