#!/usr/bin/env bash
# Real GPU runs for the corpus, on one NVIDIA H200 (the device tool's machine), from the repo root.
# Each scenario runs gpt.py under torchrun with NCCL in a fresh job dir and captures stdout+stderr combined as
# `cmd 2>&1 | tee job.log` would, then appends <name>/job.log to $OUT/logs.tar (so a run cut short keeps what
# finished). collect.py (run on the corpus machine) checks each log's signature and writes the corpus rows.
# Part 1 (the default) then runs logsleuth's own GPU checks (the nccl probe tests and `logsleuth verify --backend nccl`);
# part 2 (`run_device.sh 2`, a second call) adds DDP and Lightning scenarios.
set -u
PART=${1:-1}
G=$PWD/corpus/generators/gpu_h200
L=/tmp/gpulogs
mkdir -p "$L" "$OUT"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
PORT=29510
DONE='; echo "job exited with $?"'

scenario() {  # name outer-limit-seconds command...
  local name=$1 limit=$2; shift 2
  PORT=$((PORT + 1))
  local job=/tmp/gpujob/$name
  mkdir -p "$job" "$L/$name" && cp "$G/gpt.py" "$G/lit_gpt.py" "$job/"
  local cmd="${*//@PORT@/$PORT}"
  local t0=$SECONDS
  (cd "$job" && timeout -k 15 "$limit" bash -c "$cmd$DONE") > "$L/$name/job.log" 2>&1
  echo "$name: rc=$? $((SECONDS - t0))s lines=$(wc -l < "$L/$name/job.log") :: $cmd" >> "$OUT/summary.txt"
  tar -rf "$OUT/logs.tar" -C "$L" "$name"
}
TR="torchrun --nproc-per-node 1 --master-port @PORT@"
TR2="torchrun --nproc-per-node 2 --master-port @PORT@"

{ date; hostname; nvidia-smi; python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())"; } > "$OUT/summary.txt" 2>&1

if [ "$PART" = 2 ]; then
  scenario ddp_unused_aux_head 120 "$TR gpt.py --steps 50 --aux-head"
  scenario stuck_kernel_watchdog_abort 150 \
    "TORCH_NCCL_ASYNC_ERROR_HANDLING=1 TORCH_NCCL_DUMP_ON_TIMEOUT=0 $TR gpt.py --steps 100 --stall-at 30 --pg-timeout 20"
  scenario lightning_healthy_nccl_info 150 "NCCL_DEBUG=INFO python3 lit_gpt.py --steps 200"
  scenario lightning_long_context_oom 150 "python3 lit_gpt.py --steps 50 --seq 8192 --bsz 64 --naive"
  date >> "$OUT/summary.txt"
  exit 0
fi

# fast failures first
scenario two_ranks_one_visible_gpu 120 "CUDA_VISIBLE_DEVICES=0 $TR2 gpt.py --device-from-env --steps 50"
scenario two_ranks_pinned_device0 120 "NCCL_DEBUG=WARN $TR2 gpt.py --pin-device 0 --steps 50"
scenario socket_ifname_missing 120 "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 $TR gpt.py --steps 50"
scenario net_ib_forced 120 "NCCL_DEBUG=INFO NCCL_NET=IB $TR gpt.py --steps 50"
scenario healthy_nccl_info 150 "NCCL_DEBUG=INFO $TR gpt.py --steps 150 --save ckpt.pt"
scenario long_context_eval_oom 150 "$TR gpt.py --steps 60 --eval-seq 131072"
scenario labels_past_vocab 150 "$TR gpt.py --steps 80 --bad-labels-at 47"

# logsleuth's own GPU checks (needs the carried wheels)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  > "$OUT/pip.txt" 2>&1
( export PYTHONPATH=/tmp/site:$PWD
  timeout 240 python3 -m pytest tests/test_verify_probe.py -k gpu -p no:cacheprovider -q -rA > "$OUT/pytest_gpu.txt" 2>&1
  echo "pytest rc=$?" >> "$OUT/pytest_gpu.txt"
  { timeout 120 python3 -m logsleuth verify --backend nccl --nproc-per-node 1 --log-dir /tmp/vlog; echo "verify rc=$?"
    timeout 60 python3 -m logsleuth verify --env; echo "env rc=$?"; } > "$OUT/verify_nccl.txt" 2>&1 )

# slower ones last
scenario stuck_kernel_watchdog 150 "$TR gpt.py --steps 100 --stall-at 30 --pg-timeout 20"
scenario healthy_coll_trace 150 "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL $TR gpt.py --steps 60"
scenario fp16_high_lr 150 "$TR gpt.py --fp16 --lr 1.0 --steps 300"
scenario stuck_kernel_time_limit 120 "timeout -s TERM 45 $TR gpt.py --steps 200 --hang-at 30"
date >> "$OUT/summary.txt"
