"""Data processing: station exports -> clean clips -> normalised band features -> train/val tables."""
import logging
import sys
from functools import lru_cache

import numpy as np
import pandas as pd
from kedro.pipeline import Pipeline, node, pipeline

log = logging.getLogger(__name__)


def band_columns(params: dict) -> list[str]:
    return [f"b{b:02d}_f{f:02d}" for b in range(params["n_bands"]) for f in range(params["n_frames"])]


def clean_recordings(recordings: pd.DataFrame, stations: pd.DataFrame, params: dict) -> pd.DataFrame:
    n0 = len(recordings)
    known = set(stations["station_id"])
    unknown = recordings[~recordings["station_id"].isin(known)]
    if len(unknown):
        log.error("%d clips reference stations missing from stations.csv (%s); dropping them",
                  len(unknown), ", ".join(sorted(unknown["station_id"].unique())))
    df = recordings[recordings["station_id"].isin(known)]
    df = df[df["snr_db"] >= params["min_snr_db"]]
    df = df.merge(stations[["station_id", "habitat", "elevation_m"]], on="station_id", how="left")
    log.info("kept %d of %d clips (snr >= %.1f dB)", len(df), n0, params["min_snr_db"])
    return df


def attach_taxonomy(clips: pd.DataFrame, species: pd.DataFrame) -> pd.DataFrame:
    """Adds the family and the taxonomic depth of each clip's species (walks the parent links)."""
    parent = dict(zip(species["code"], species["parent"].fillna("")))
    sys.setrecursionlimit(1_000_000)  # deep lineages in the full checklist

    @lru_cache(maxsize=None)
    def depth(code: str) -> int:
        p = parent.get(code, "")
        return 0 if not p else 1 + depth(p)

    out = clips.copy()
    out["taxon_depth"] = [depth(c) for c in out["species_code"]]
    out = out.merge(species[["code", "family"]], left_on="species_code", right_on="code", how="left").drop(columns="code")
    return out


def normalise_bands(clips: pd.DataFrame, params: dict) -> pd.DataFrame:
    cols = band_columns(params)
    x = clips[cols].to_numpy(dtype=np.float64)
    x = (x + 60.0) / 20.0  # band energies exported in dBFS
    feats = pd.concat([clips[["clip_id", "station_id", "species_code", "habitat", "taxon_depth"]].reset_index(drop=True),
                       pd.DataFrame(x, columns=cols)], axis=1)
    log.info("normalised %d band/frame features for %d clips", len(cols), len(feats))
    return feats


def split_train_val(feats: pd.DataFrame, params: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(params["seed"])
    is_val = rng.random(len(feats)) < params["val_fraction"]
    train, val = feats[~is_val], feats[is_val]
    log.info("train %d clips, val %d clips, %d species", len(train), len(val), feats["species_code"].nunique())
    return train, val


def create_pipeline(**kwargs) -> Pipeline:
    return pipeline([
        node(clean_recordings, ["recordings", "stations", "params:features"], "clips_clean", name="clean_recordings"),
        node(attach_taxonomy, ["clips_clean", "species"], "clips_taxon", name="attach_taxonomy"),
        node(normalise_bands, ["clips_taxon", "params:features"], "clips_features", name="normalise_bands"),
        node(split_train_val, ["clips_features", "params:features"], ["train_table", "val_table"],
             name="split_train_val"),
    ])
