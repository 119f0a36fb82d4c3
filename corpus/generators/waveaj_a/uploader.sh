#!/bin/bash
# Checkpoint uploader sidecar: every 10 s, copies ckpt/*.pt to the bucket mount; holds ckpt/.upload.lock while copying
# so the trainer does not rewrite a checkpoint mid-copy.
mkdir -p ckpt bucket
while true; do
    if ls ckpt/*.pt > /dev/null 2>&1; then
        touch ckpt/.upload.lock
        cp ckpt/*.pt bucket/ && sync bucket/*.pt
        rm -f ckpt/.upload.lock
    fi
    sleep 10
done
