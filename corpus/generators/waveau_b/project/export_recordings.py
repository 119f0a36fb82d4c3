"""Writes the station archive's nightly export (synthetic): data/01_raw/{recordings,stations,species}.csv.

Each clip: 16 mel bands x 12 frames of band energy in dBFS; each species has its own spectral-temporal template."""
import argparse
import os

import numpy as np
import pandas as pd

SPECIES = [("eurrob", "European robin", "Muscicapidae", "muscicapidae"),
           ("blackb", "Common blackbird", "Turdidae", "turdidae"),
           ("sonthr", "Song thrush", "Turdidae", "turdidae"),
           ("wren", "Eurasian wren", "Troglodytidae", "troglodytidae"),
           ("chiffc", "Common chiffchaff", "Phylloscopidae", "phylloscopidae"),
           ("blutit", "Eurasian blue tit", "Paridae", "paridae"),
           ("gretit", "Great tit", "Paridae", "paridae"),
           ("chaffi", "Common chaffinch", "Fringillidae", "fringillidae"),
           ("dunnoc", "Dunnock", "Prunellidae", "prunellidae"),
           ("blackc", "Eurasian blackcap", "Sylviidae", "sylviidae"),
           ("goldcr", "Goldcrest", "Regulidae", "regulidae"),
           ("woopig", "Common wood pigeon", "Columbidae", "columbidae")]
FAMILIES = sorted({s[3] for s in SPECIES})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data/01_raw")
    ap.add_argument("--clips", type=int, default=1600)
    ap.add_argument("--bands", type=int, default=16)
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--new-species", default="", help="a species newly logged by the stations, not in the checklist")
    ap.add_argument("--rename", default="", help="old:new column rename (an export tool update)")
    ap.add_argument("--dropout-station", default="", help="station whose recorder writes dropped frames as inf")
    ap.add_argument("--regroup", default="", help="family:parent, a checklist revision moving a family under a parent")
    ap.add_argument("--unknown-stations", type=int, default=0)
    ap.add_argument("--rare", default="", help="code:n, a species with only n clips this season")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    species = list(SPECIES)
    codes = [s[0] for s in species] + ([a.new_species] if a.new_species else [])
    templates = {c: rng.normal(0, 1, (a.bands, a.frames)) * 8 - 40 for c in codes}
    stations = [f"st{i:02d}" for i in range(8)]
    rows = []
    n_rare = 0
    for i in range(a.clips):
        c = codes[rng.integers(len(codes))]
        if a.rare and c == a.rare.split(":")[0]:
            n_rare += 1
            if n_rare > int(a.rare.split(":")[1]):
                c = codes[0]
        st = stations[rng.integers(len(stations))]
        if i < a.unknown_stations:
            st = "st99"
        e = templates[c] + rng.normal(0, 6, (a.bands, a.frames))
        if a.dropout_station and st == a.dropout_station and rng.random() < 0.3:
            e[:, rng.integers(a.frames)] = np.inf
        r = {"clip_id": f"clip-{i:05d}", "station_id": st, "species_code": c,
             "recorded_at": f"2026-05-{1 + i % 28:02d}T04:{i % 60:02d}:00Z", "snr_db": round(float(rng.uniform(1, 30)), 1)}
        r.update({f"b{b:02d}_f{f:02d}": round(float(e[b, f]), 2) for b in range(a.bands) for f in range(a.frames)})
        rows.append(r)
    rec = pd.DataFrame(rows)
    if a.rename:
        old, new = a.rename.split(":")
        rec = rec.rename(columns={old: new})
    rec.to_csv(os.path.join(a.out, "recordings.csv"), index=False)
    pd.DataFrame({"station_id": stations, "habitat": ["woodland", "hedgerow", "park", "wetland"] * 2,
                  "elevation_m": rng.integers(20, 400, len(stations))}).to_csv(
        os.path.join(a.out, "stations.csv"), index=False)
    sp = pd.DataFrame([{"code": s[0], "common_name": s[1], "family": s[2], "parent": s[3]} for s in species])
    fam = pd.DataFrame([{"code": f, "common_name": "", "family": f.capitalize(), "parent": "passeriformes"}
                        for f in FAMILIES if f != "columbidae"]
                       + [{"code": "columbidae", "common_name": "", "family": "Columbidae", "parent": "columbiformes"},
                          {"code": "passeriformes", "common_name": "", "family": "", "parent": "aves"},
                          {"code": "columbiformes", "common_name": "", "family": "", "parent": "aves"},
                          {"code": "aves", "common_name": "", "family": "", "parent": ""}])
    if a.regroup:
        f, p = a.regroup.split(":")
        fam.loc[fam["code"] == f, "parent"] = p
    pd.concat([sp, fam]).to_csv(os.path.join(a.out, "species.csv"), index=False)
    print(f"wrote {len(rec)} clips from {len(stations)} stations, {len(codes)} species")


if __name__ == "__main__":
    main()
