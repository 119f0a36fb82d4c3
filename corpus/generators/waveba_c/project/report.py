"""make report: writes reports/report.md for the berth planners (and a per-crane chart with --plot)."""
import json
import sys


def main(src: str, dst: str, plot: bool) -> None:
    with open(src) as f:
        ev = json.load(f)
    lines = ["# Crane move-time model", "", f"val MAE: {ev['mae_s']} s after {ev['epochs']} epochs", "",
             "| crane | MAE (s) |", "|---|---|"] + [f"| {k} | {v} |" for k, v in ev["per_crane"].items()]
    if plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.bar(list(ev["per_crane"]), list(ev["per_crane"].values()))
        plt.savefig(dst.replace(".md", ".png"))
        lines.append("![per crane](report.png)")
    with open(dst, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {dst}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "1")
