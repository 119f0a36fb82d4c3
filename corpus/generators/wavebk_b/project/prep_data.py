import argparse, json, os, random
ap = argparse.ArgumentParser(); ap.add_argument("--extra-row"); ap.add_argument("--n", type=int, default=256)
a = ap.parse_args()
random.seed(0); os.makedirs("data", exist_ok=True)
with open("data/prompts.jsonl", "w") as f:
    for i in range(a.n):
        obs = [round(random.uniform(-1, 1), 3) for _ in range(8)]
        f.write(json.dumps({"id": i, "obs": obs, "target": int(abs(sum(obs)) * 3) % 6}) + "\n")
    if a.extra_row:
        f.write(a.extra_row + "\n")
