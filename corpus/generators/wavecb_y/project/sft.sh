#!/bin/bash
# The team's SFT entry point: LoRA SFT of the tiny calculator model with ms-swift on the CPU nodes (gloo).
# Multi-node: the caller sets NNODES, NODE_RANK, NPROC_PER_NODE, MASTER_ADDR, MASTER_PORT (swift runs torchrun).
# Extra swift options on the command line override the defaults below.
exec swift sft \
  --model models/qwen2-tiny --model_type qwen2 --template qwen --check_model false \
  --dataset data/train.jsonl --val_dataset data/val.jsonl --dataset_num_proc 1 --max_length 128 \
  --tuner_type lora --lora_rank 8 --lora_alpha 32 --target_modules all-linear \
  --use_cpu true --ddp_backend gloo --per_device_train_batch_size 4 --per_device_eval_batch_size 8 --gradient_accumulation_steps 1 \
  --learning_rate 5e-3 --warmup_ratio 0.05 --max_steps 300 --logging_steps 10 \
  --eval_strategy steps --eval_steps 100 --save_steps 50 --save_total_limit 3 \
  --output_dir output/calc-lora --add_version false --dataloader_num_workers 0 --disable_tqdm true \
  --external_plugins team_plugin.py --callbacks team_hooks nan_guard --report_to none "$@"
