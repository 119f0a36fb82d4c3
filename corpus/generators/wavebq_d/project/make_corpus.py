"""Write the synthetic product-description corpus the tiny causal LM trains on (``data/products.txt``), the accelerate
FSDP config (``fsdp_config.yaml``) and, with an argument, the step hook ``data/hooks.py`` the trainer calls (a fault
injected at one step of one rank). Not part of the job log."""
import random
import sys
from pathlib import Path

random.seed(11)
brands = ["Nordvik", "Altura", "Brisa", "Kestrel", "Moana", "Tundra", "Vela", "Orbis"]
kinds = ["backpack", "desk lamp", "water bottle", "rain jacket", "kettle", "office chair", "headphones", "yoga mat"]
adjs = ["lightweight", "durable", "compact", "insulated", "ergonomic", "waterproof", "foldable", "recycled"]
mats = ["aluminium", "bamboo", "ripstop nylon", "stainless steel", "organic cotton", "ABS plastic", "oak"]
colors = ["slate grey", "forest green", "sand", "midnight blue", "coral", "black", "white"]
lines = []
for i in range(12000):
    b, k = random.choice(brands), random.choice(kinds)
    lines.append(f"{b} {k} - {random.choice(adjs)} {k} made of {random.choice(mats)} in {random.choice(colors)}; "
                 f"weighs {random.randint(120, 4800)} g, {random.randint(1, 5)}-year warranty, "
                 f"ships in {random.randint(1, 9)} days. SKU {b[:3].upper()}-{random.randint(1000, 9999)}.")
Path("data").mkdir(exist_ok=True)
Path("data/products.txt").write_text("\n".join(lines) + "\n")

RESHARD = "false" if len(sys.argv) > 2 and sys.argv[2] == "SHARD_GRAD_OP" else "true"  # FSDP2's FULL_SHARD/SHARD_GRAD_OP
Path("fsdp_config.yaml").write_text(f"""compute_environment: LOCAL_MACHINE
debug: false
distributed_type: FSDP
downcast_bf16: 'no'
fsdp_config:
  fsdp_version: 2
  fsdp_reshard_after_forward: {RESHARD}
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_transformer_layer_cls_to_wrap: GPT2Block
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_cpu_ram_efficient_loading: false
  fsdp_offload_params: false
mixed_precision: 'no'
rdzv_backend: static
same_network: false
main_training_function: main
enable_cpu_affinity: false
use_cpu: false
""")

HOOKS = {
    "segv": "def on_step(rank, step, batch):\n    if rank == 2 and step == 35:\n        import ctypes\n"
            "        ctypes.string_at(0)\n    return batch\n",
    "abort": "def on_step(rank, step, batch):\n    if rank == 1 and step == 35:\n        import os\n        os.abort()\n"
             "    return batch\n",
    "keyerr": ("def on_step(rank, step, batch):\n    if rank == 3 and step == 45:\n        attrs = {'sku': 1, 'brand': 2}\n"
               "        return attrs['category']\n    return batch\n"),
    "short": ("def on_step(rank, step, batch):\n    if rank == 2 and step == 30:\n"
              "        return {k: v[: v.shape[0] // 2] for k, v in batch.items()}\n    return batch\n"),
}
if len(sys.argv) > 1 and sys.argv[1]:
    Path("data/hooks.py").write_text(HOOKS[sys.argv[1]])
