"""Build data/pydocs_char/{train,val}.bin + meta.pkl (char-level, uint16) from text already on this machine:
Python's bundled pydoc topic texts and its LICENSE. Same layout as nanoGPT's data/shakespeare_char/prepare.py."""
import os
import pickle
import sys

import numpy as np
import pydoc_data.topics as topics

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'pydocs_char')
os.makedirs(out, exist_ok=True)
parts = [topics.topics[k] for k in sorted(topics.topics)]
lic = os.path.join(os.path.dirname(os.__file__), 'LICENSE.txt')
if os.path.exists(lic):
    parts.append(open(lic, encoding='utf-8', errors='replace').read())
text = '\n'.join(parts)
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for i, ch in enumerate(chars)}
ids = np.array([stoi[c] for c in text], dtype=np.uint16)
n = int(0.9 * len(ids))
ids[:n].tofile(os.path.join(out, 'train.bin'))
ids[n:].tofile(os.path.join(out, 'val.bin'))
with open(os.path.join(out, 'meta.pkl'), 'wb') as f:
    pickle.dump({'vocab_size': len(chars), 'itos': itos, 'stoi': stoi}, f)
print(f"{len(text):,} chars, vocab {len(chars)}, train {n:,} val {len(ids) - n:,}", file=sys.stderr)
