"""Synthetic wearable-sensor recordings for human-activity recognition: one continuous tri-axial accelerometer (g) +
gyroscope (rad/s) recording per subject, activity segments of 10-20 s (walking, upstairs, downstairs, sitting,
standing, lying) with a subject-specific gait frequency, step intensity and sensor placement (a random rotation of the
device frame plus mounting noise). Writes data/train/subj-NN.npz (sig [C, L] float32, lab [L] int8, fs) and
data/val/subj-NN.npz, and data/meta.json."""
import argparse
import json
import os

import numpy as np

ACTIVITIES = ["walking", "upstairs", "downstairs", "sitting", "standing", "lying"]


def rotation(rng, max_deg):
    a = np.deg2rad(rng.uniform(-max_deg, max_deg, 3))
    cx, cy, cz = np.cos(a)
    sx, sy, sz = np.sin(a)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


def segment(rng, act, n, fs, gait, amp):
    t = np.arange(n) / fs
    ph = rng.uniform(0, 2 * np.pi)
    acc = np.zeros((3, n))
    gyr = np.zeros((3, n))
    if act <= 2:  # locomotion: gravity on z plus periodic steps
        f = gait * (1.0, 0.85, 1.1)[act]
        a = amp * (1.0, 1.3, 1.5)[act]
        acc[2] = 1.0 + a * np.sin(2 * np.pi * f * t + ph) + (0.25 * a * np.abs(np.sin(2 * np.pi * f * t + ph)) ** 8
                                                            if act == 2 else 0)
        acc[0] = 0.3 * a * np.sin(np.pi * f * t + ph) + (0.15 if act == 1 else -0.1 if act == 2 else 0)
        acc[1] = 0.2 * a * np.cos(np.pi * f * t + ph)
        gyr[0] = 0.6 * a * np.sin(np.pi * f * t + ph + 0.4)
        gyr[1] = 0.9 * a * np.sin(2 * np.pi * f * t + ph + 1.0)
        gyr[2] = 0.3 * a * np.cos(np.pi * f * t + ph)
    else:
        g = {3: (0.55, 0.1, 0.83), 4: (0.05, 0.05, 0.99), 5: (0.1, 0.98, 0.12)}[act]
        sway = 0.02 if act == 4 else 0.006
        for k in range(3):
            acc[k] = g[k] + sway * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t + rng.uniform(0, 6))
            gyr[k] = sway * 2 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t + rng.uniform(0, 6))
    return acc, gyr


def subject(rng, sid, fs, n_seg, seconds, acts, dead_gyro=False, gaps=0, channels=6):
    gait, amp = rng.uniform(1.6, 2.2), rng.uniform(0.25, 0.5)
    R = rotation(rng, 25)
    sigs, labs = [], []
    for _ in range(n_seg):
        act = int(rng.choice(acts))
        n = int(rng.uniform(*seconds) * fs)
        acc, gyr = segment(rng, act, n, fs, gait, amp)
        sigs.append(np.concatenate([R @ acc, R @ gyr]))
        labs.append(np.full(n, act, np.int8))
    sig = np.concatenate(sigs, 1)
    sig += rng.normal(0, 0.02, sig.shape)
    if dead_gyro:  # gyroscope never powered up: constant zeros
        sig[3:] = 0.0
    for _ in range(gaps):  # bluetooth dropouts: samples missing, stored as NaN
        s = int(rng.integers(0, sig.shape[1] - 40))
        sig[:, s:s + int(rng.integers(5, 40))] = np.nan
    if channels == 9:  # newer firmware: magnetometer (uT) appended
        mag = (R @ np.array([20.0, 5.0, -40.0]))[:, None] + rng.normal(0, 1.0, (3, sig.shape[1]))
        sig = np.concatenate([sig, mag])
    return sig.astype(np.float32), np.concatenate(labs)


def ints(s):
    return [int(x) for x in s.split(",")] if s else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--subjects", type=int, default=8)
    ap.add_argument("--val-subjects", type=int, default=2)
    ap.add_argument("--segments", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seated-cohort", default="", help="subjects recorded in wheelchairs: no walking or stairs")
    ap.add_argument("--dead-gyro", default="")
    ap.add_argument("--gaps", default="", help="subject:count of dropout gaps")
    ap.add_argument("--fs", default="", help="subject:rate for devices not recording at 50 Hz")
    ap.add_argument("--firmware-v2", default="", help="subjects whose devices export 9 channels")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    fs_of = {int(k): int(v) for k, v in (x.split(":") for x in a.fs.split(",") if x)}
    gaps = {int(k): int(v) for k, v in (x.split(":") for x in a.gaps.split(",") if x)}
    for split, n in (("train", a.subjects), ("val", a.val_subjects)):
        os.makedirs(os.path.join(a.out, split), exist_ok=True)
        for i in range(n):
            sid = i if split == "train" else 100 + i
            seated = split == "train" and i in ints(a.seated_cohort)
            acts = [3, 4, 5] if seated else list(range(6))
            fs = fs_of.get(i, 50) if split == "train" else 50
            sig, lab = subject(rng, sid, fs, a.segments, (10, 20), acts,
                               dead_gyro=split == "train" and i in ints(a.dead_gyro),
                               gaps=gaps.get(i, 0) if split == "train" else 0,
                               channels=9 if split == "train" and i in ints(a.firmware_v2) else 6)
            np.savez(os.path.join(a.out, split, f"subj-{sid:02d}.npz"), sig=sig, lab=lab, fs=fs)
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump({"activities": ACTIVITIES, "fs": 50, "channels": ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y",
                                                                    "gyr_z"], "units": ["g"] * 3 + ["rad/s"] * 3}, f)
    print(f"wrote {a.subjects} train + {a.val_subjects} val subjects to {a.out}")


if __name__ == "__main__":
    main()
