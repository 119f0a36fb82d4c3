"""The team's launcher for OpenCLIP's own trainer (open_clip_train.main): registers the tiny model configs in
model_configs/ (clip-tiny-sd) and, when a train_hooks.py sits next to it, imports it first (the team's optional
debugging / audit patches). Everything else is `python -m open_clip_train.main` unchanged."""
import os
import sys

import open_clip

open_clip.add_model_config(os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_configs"))
if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_hooks.py")):
    import train_hooks  # noqa: F401

from open_clip_train.main import main

if __name__ == "__main__":
    main(sys.argv[1:])
