"""Parse the SCADA export, drop readings whose pressure logger failed, keep the numeric telemetry per main."""
import argparse
import csv
import logging
import pickle

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s clean_readings: %(message)s")
log = logging.getLogger("clean_readings")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    kept, dropped = [], 0
    with open(a.src) as f:
        for row in csv.DictReader(f):
            try:
                pressure = float(row["pressure_bar"])
            except ValueError:
                log.error("reading %s (main %s): pressure logger value %r is not a number, dropped",
                          row["reading_id"], row["main_id"], row["pressure_bar"])
                dropped += 1
                continue
            kept.append({
                "main": row["main_id"], "upstream": row["upstream_main"], "district": row["district"],
                "grade": row["risk_grade"],
                "x": [pressure, float(row["pressure_min_bar"]), float(row["pressure_swing_bar"]),
                      float(row["flow_lps"]), float(row["night_flow_lps"]), float(row["pipe_age_years"]),
                      float(row["diameter_mm"]), float(row["soil_temp_c"])],
            })
    log.info("kept %d readings (%d dropped)", len(kept), dropped)
    with open(a.out, "wb") as f:
        pickle.dump(kept, f)


if __name__ == "__main__":
    main()
