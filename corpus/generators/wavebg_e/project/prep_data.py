"""Write the synthetic listening-session export: data/sessions_{train,valid}.csv and data/catalog.json."""
import argparse, json, os, random, time

p = argparse.ArgumentParser()
p.add_argument("--out", default="data")
p.add_argument("--users", type=int, default=2000)
p.add_argument("--tracks", type=int, default=5000)
p.add_argument("--artists", type=int, default=400)
p.add_argument("--train", type=int, default=4096)
p.add_argument("--valid", type=int, default=512)
p.add_argument("--bad-row", type=int, default=-1, help="row whose history the export writes as 'NA'")
p.add_argument("--empty-history", type=int, default=-1, help="row exported with an empty history")
p.add_argument("--delay", type=float, default=0)
a = p.parse_args()
rng = random.Random(7)
time.sleep(a.delay)
os.makedirs(a.out, exist_ok=True)
artist_of = [rng.randrange(a.artists) for _ in range(a.tracks)]
json.dump({"num_users": a.users, "num_tracks": a.tracks, "num_artists": a.artists, "artist_of": artist_of},
          open(os.path.join(a.out, "catalog.json"), "w"))
for split, n in (("train", a.train), ("valid", a.valid)):
    with open(os.path.join(a.out, f"sessions_{split}.csv"), "w") as f:
        f.write("user_id,history,candidate_track,listened\n")
        for i in range(n):
            u = rng.randrange(a.users)
            hist = [rng.randrange(a.tracks) for _ in range(rng.randint(1, 12))]
            cand = rng.randrange(a.tracks)
            lab = int((u + cand) % 3 == 0 or artist_of[cand] in {artist_of[t] for t in hist})
            h = " ".join(map(str, hist))
            if split == "train" and i == a.bad_row:
                h = "NA"
            if split == "train" and i == a.empty_history:
                h = ""
            f.write(f"{u},{h},{cand},{lab}\n")
