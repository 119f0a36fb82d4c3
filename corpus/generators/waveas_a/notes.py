"""One note per committed run of generate.py (what ran, how the cause was made real, key lines quoted as evidence).
Written after the runs, from their logs."""

ACC = "accelerate launch --config_file accelerate_ddp.yaml (2 processes, torchrun underneath, gloo on CPU)"
TR = "torchrun --nproc-per-node 2 (gloo on CPU)"

NOTES = {
    "acc-grpo-healthy": (
        f"Healthy run. {ACC}: train_support.py grpo, GRPOTrainer with use_vllm=False (the policy generates 4 "
        "completions per prompt, max_completion_length 48) and the Python reward cites_ticket_and_short; 12 steps, "
        "checkpoints at 6 and 12, eval at 12; both ranks finish. Harmless FutureWarnings about gradient_checkpointing. "
        "evidence: \"[rank0] grpo finished 12 steps in 12 s; model saved to runs/grpo/final\", \"job exited with 0\""),
    "acc-sft-demo-running": (
        f"Healthy run with a scary warning. {ACC} with --main_process_port 30875 while the team's demo server "
        "(serve_demo.py, the base model behind http.server) already listens on 30875; accelerate sees the port taken "
        "and picks a free one on its own, so SFT runs its 40 steps normally. evidence: \"UserWarning: Port `30875` is "
        "already in use. Accelerate will attempt to launch in a standalone-like mode by finding an open port "
        "automatically\", \"[rank0] sft finished 40 steps\", \"job exited with 0\""),
    "acc-grpo-long-answers": (
        f"host_oom_killed. {ACC}: GRPO with --max_completion_length 3072, --num_generations 8 and "
        "--per_device_train_batch_size 16 (long completions from the policy itself), the job in a 2 GB cgroup-v1 "
        "memory cgroup: the kernel OOM killer killed rank 0 (dmesg: \"Memory cgroup out of memory: Killed process\"); "
        "the elastic agent then stopped rank 1. No Python traceback from the killed rank. evidence: \"[transformers] "
        "This is a friendly reminder - the current text generation call has exceeded the model's predefined maximum "
        "length (512)\", \"failed (exitcode: -9) local_rank: 0\", \"Signal 9 (SIGKILL) received by PID\""),
    "acc-dpo-vendor-export": (
        f"worker_exception (a dataset column the trainer does not expect). {ACC}: DPO on dpo-train.jsonl re-exported "
        "by the labelling vendor with columns question/good_answer/bad_answer instead of prompt/chosen/rejected; "
        "DPOTrainer's dataset preparation (extract_prompt in dataset.map) raises on rank 0 while rank 1 waits in "
        "main_process_first, then sees the connection close. evidence: \"columns ['question', 'good_answer', "
        "'bad_answer']\", \"[rank0]: KeyError: 'chosen'\", \"[rank1]: RuntimeError: ... Connection closed by peer\""),
    "acc-sft-new-base": (
        f"worker_exception (chat template error). {ACC}: SFT started from base-v2, whose tokenizer carries the newer "
        "Mistral-style chat template (no system role, roles must alternate); every support chat starts with Ticko's "
        "system prompt, so tokenizing the dataset raises the template's own exception on rank 0; rank 1 sees the "
        "connection close. evidence: \"raise jinja2.exceptions.TemplateError(message)\", \"[rank0]: "
        "jinja2.exceptions.TemplateError: System role not supported\""),
    "acc-grpo-eu-tickets": (
        f"worker_exception (the reward function raises on one rank). {ACC}: GRPO prompts re-exported with every 61st "
        "ticket from the EU helpdesk (ids TCK-EU-nnnnn); the reward function parses the ticket number with "
        "int(tid.split('-')[1]) and raises on rank 1, the rank whose batch held such a ticket; rank 0 then sees the "
        "connection close and is stopped. evidence: \"[rank1]: ValueError: invalid literal for int() with base 10: "
        "'EU'\", \"[rank0]: RuntimeError: ... Connection closed by peer\", \"failed (exitcode: 1) local_rank: 1\""),
    "acc-sft-checkpoints": (
        f"disk_full. {ACC}: SFT with --save_steps 10, the output dir runs/ a 5 MB volume (tmpfs); a later checkpoint's "
        "optimizer state does not fit: torch.save fails inside its zip writer on rank 0 (torch reports the short write, "
        "not errno 28); rank 1 sees the connection close. evidence: \"[rank0]: RuntimeError: basic_ios::clear: "
        "iostream error\", \"[rank0]: RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos\""),
    "acc-dpo-ssh-closed": (
        f"terminal_hangup. {ACC}: DPO for 300 steps; at about step 20 SIGHUP to the job's process group (the terminal "
        "closing): the elastic agent forwards SIGHUP to both ranks and dies with SignalException; the shell is gone too, "
        "so no 'job exited' line. evidence: \"Sending process ... closing signal SIGHUP\", "
        "\"torch.distributed.elastic.multiprocessing.api.SignalException: Process ... got signal: 1\""),
    "acc-grpo-word-counter": (
        f"native_crash. {ACC}: GRPO with --word_counter ./libwordcount.so: the reward counts words through a C helper "
        "(ctypes) that strcpy()s the completion into a 256-byte stack buffer, built with -O2 -D_FORTIFY_SOURCE=2; with "
        "--max_completion_length 128 the decoded completions exceed 256 bytes and glibc's fortify check aborts both "
        "ranks. evidence: \"*** buffer overflow detected ***: terminated\", \"exitcode  : -6 (pid: ...)  (SIGABRT)\", "
        "\"Signal 6 (SIGABRT) received by PID\""),
    "tr-dpo-healthy": (
        f"Healthy run. {TR} without OMP_NUM_THREADS set (torchrun's warning that it sets it to 1): DPO from the SFT "
        "model (runs/sft/final, trained before the logged command), 30 steps, eval and checkpoints at 15 and 30. "
        "evidence: \"[rank0] dpo finished 30 steps\", \"job exited with 0\""),
    "tr-grpo-generations": (
        f"batch_size_mismatch. {TR}: GRPO with --per_device_train_batch_size 3 and --num_generations 4: the global "
        "generation batch (3 x 2 processes = 6) is not divisible by num_generations; GRPOConfig raises on both ranks "
        "while parsing the arguments. evidence: \"[rank1]: ValueError: generation_batch_size (6) must be divisible by "
        "num_generations (4).\""),
    "tr-sft-warmup-lr": (
        f"training_divergence. {TR}: SFT with --optim sgd --learning_rate 80 --max_grad_norm 0 (a learning rate meant "
        "for another optimizer, no clipping): the loss explodes (900, then 3.8e+08) and the gradients turn NaN; "
        "Trainer's NaN filter logs the loss as 0 while grad_norm is nan; the script's own check stops the run at step 8 "
        "(exit 0). evidence: \"'loss': '3.83e+08', 'grad_norm': '1.333e+18'\", \"'grad_norm': 'nan'\", "
        "\"[rank0] grad_norm is nan at step 8; stopping the run\""),
    "tr-dpo-team-venv": (
        "library_version_mismatch. torchrun from the team's venv /tmp/corpus-venv-as-a-team (trl 0.7.11 next to "
        "transformers 5.24.0): `from trl import ...` fails in trl/core.py on both ranks because transformers no longer "
        "has top_k_top_p_filtering. evidence: \"ImportError: cannot import name 'top_k_top_p_filtering' from "
        "'transformers'\""),
    "tr-grpo-time-limit": (
        f"job_preempted. {TR}: a 200-step GRPO run; at step 10 SIGTERM from outside to the torchrun agent (a time limit "
        "reached): the agent shuts the workers down and exits with SignalException. evidence: \"Received 15 death "
        "signal, shutting down workers\", \"Sending process ... closing signal SIGTERM\", \"SignalException: Process "
        "... got signal: 15\""),
    "tr-sft-demo-port": (
        f"port_in_use. {TR} --master-port 30881 while the team's demo server (serve_demo.py) listens on 30881: "
        "torchrun's own TCPStore cannot bind and the launch fails before any worker starts (torchrun, unlike accelerate "
        "launch, does not look for another port). evidence: \"torch.distributed.DistNetworkError: The server socket has "
        "failed to listen on any local network address. port: 30881, useIpv6: false, code: -98, name: EADDRINUSE\""),
    "tr-sft-two-nodes": (
        "rendezvous_timeout. torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint "
        "127.0.0.1:30882 --rdzv-conf join_timeout=60: the second node's job never started, so the c10d rendezvous "
        "waits for it and times out after 60 s on node 0. evidence: \"raise RendezvousTimeoutError\", "
        "\"torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\""),
    "cli-sft-healthy": (
        "Healthy run. TRL's CLI: trl sft --config_file accelerate_ddp.yaml --main_process_port 30864 "
        "--model_name_or_path base-model --dataset_name chats (a local folder with train.jsonl/test.jsonl), 40 steps on "
        "2 processes, eval at 20 and 40. evidence: \"✅ Training completed.\", \"💾 Model saved to runs/sft-cli.\", "
        "\"job exited with 0\""),
    "tr-grpo-ticket-service": (
        f"silent_hang. {TR}: GRPO with --ticket_service http://127.0.0.1:30878: the reward checks each ticket id "
        "against the helpdesk's ticket service, which was stopped (SIGSTOP, like Ctrl-Z in its terminal) before the "
        "job: its socket still accepts connections, so urlopen (no timeout) waits forever for a reply on both ranks; "
        "no progress past step 0 and no error for 2 minutes, then Ctrl-C (SIGINT to the process group). evidence: "
        "\"0/40 [02:18<?, ?it/s]\", \"line 99, in ticket_known\", \"return self._sock.recv_into(b)\", "
        "\"KeyboardInterrupt\", \"Received 2 death signal, shutting down workers\""),
    "tr-reward-no-pad": (
        f"Healthy run. {TR}: RewardTrainer (AutoModelForSequenceClassification on the tiny Llama, one label) on "
        "chosen/rejected pairs, the tokenizer saved without a pad token (TRL falls back to the eos token, so nothing "
        "fails); 40 steps, eval and checkpoints at 20 and 40. evidence: \"columns ['chosen', 'rejected']\", "
        "\"[rank0] reward finished 40 steps\", \"job exited with 0\""),
}
