# tiny character-level GPT on the pydoc topic texts, CPU + gloo (multi-node torchrun)
out_dir = 'out-pydocs-char'
eval_interval = 40
eval_iters = 10
log_interval = 2
always_save_checkpoint = True

wandb_log = False
dataset = 'pydocs_char'
gradient_accumulation_steps = 12  # divisible by 4 and 6 ranks
batch_size = 8
block_size = 64

n_layer = 2
n_head = 2
n_embd = 64
dropout = 0.0

learning_rate = 1e-3
max_iters = 240
lr_decay_iters = 240
min_lr = 1e-4
beta2 = 0.99
warmup_iters = 20

backend = 'gloo'
device = 'cpu'
dtype = 'float32'
compile = False
