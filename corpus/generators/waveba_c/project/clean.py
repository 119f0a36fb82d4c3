"""make data: validates the TOS export and writes data/moves.csv (rows with an unreadable move time are logged at
ERROR and dropped)."""
import csv
import logging
import sys

log = logging.getLogger("cranes.clean")
NUMERIC = ["bay", "row", "tier", "weight_t", "twin", "hour", "wind_ms", "move_s"]


def main(src: str, dst: str) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    kept = dropped = 0
    with open(src, newline="") as f, open(dst, "w", newline="") as g:
        rd = csv.DictReader(f)
        wr = csv.writer(g)
        out_cols = ["call_id", "prev_call", "crane"] + NUMERIC
        wr.writerow(out_cols)
        for n, r in enumerate(rd, 2):
            try:
                vals = [float(r[c]) for c in NUMERIC]
            except ValueError:
                log.error("line %d: call %s crane %s: unreadable move time %r, dropped", n, r["call_id"], r["crane"],
                          r["move_s"])
                dropped += 1
                continue
            wr.writerow([r["call_id"], r["prev_call"], r["crane"]] + vals)
            kept += 1
    log.info("%s: %d moves kept, %d dropped", dst, kept, dropped)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
