"""fedtab: federated MLP classifier on per-site tabular features."""
