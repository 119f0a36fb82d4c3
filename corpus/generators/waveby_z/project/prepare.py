"""Build the synthetic tone corpus (not logged): 96 utterances of 0.6-2.4 s, 16 kHz, a sine of one of 8 tone classes
plus noise, written as FLAC/WAV with soundfile, and Lhotse RecordingSet/SupervisionSet/CutSet manifests."""
import sys
from pathlib import Path

import numpy as np
import soundfile as sf
from lhotse import CutSet, Recording, RecordingSet, SupervisionSegment, SupervisionSet

SR, N, CLASSES = 16000, 96, 8
root = Path("data")
(root / "audio").mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(0)
recs, sups = [], []
for i in range(N):
    cls = i % CLASSES
    dur = float(np.round(rng.uniform(0.6, 2.4), 2))
    t = np.arange(int(dur * SR)) / SR
    x = 0.3 * np.sin(2 * np.pi * (200 + 120 * cls) * t) + 0.05 * rng.standard_normal(t.size)
    path = root / "audio" / f"tone{i:03d}.{'flac' if i % 2 else 'wav'}"
    sf.write(path, x.astype(np.float32), SR)
    rec = Recording.from_file(path, recording_id=f"tone{i:03d}")
    recs.append(rec)
    sups.append(SupervisionSegment(id=f"tone{i:03d}-0", recording_id=rec.id, start=0.0, duration=rec.duration,
                                   text=f"TONE{cls}", speaker=f"spk{i % 4}", custom={"cls": cls}))
recordings, supervisions = RecordingSet.from_recordings(recs), SupervisionSet.from_segments(sups)
recordings.to_file(root / "recordings.jsonl.gz")
supervisions.to_file(root / "supervisions.jsonl.gz")
cuts = CutSet.from_manifests(recordings=recordings, supervisions=supervisions)
cuts.to_file(root / "cuts_train.jsonl.gz")
print(f"{len(cuts)} cuts, {sum(c.duration for c in cuts):.1f} s", file=sys.stderr)
