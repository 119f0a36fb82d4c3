"""General facts beyond one library's wording: launcher ordering (siblings the launcher stopped are symptoms),
scheduler verdicts, placement requests that cannot fit, chained exceptions, known-bad version pairs."""
from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, SchedulerVerdict, SignalFact
from logsleuth.factlayer.reason import sibling_terminations
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.engine import load_rules

DATA = Path(__file__).parent / "data"


def facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def diagnose_text(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


def test_torchrun_sigkill_escalation_of_a_sibling_is_a_symptom() -> None:
    """A real torchrun run here: rank 1 segfaults, rank 0 ignores the agent's SIGTERM and is SIGKILLed 30 s later;
    the summary lists rank 0's -9 before the root cause. The -9 is torchrun's own doing, not the OOM killer."""
    log = DATA / "torchrun-segv-sigkill-escalation.log"
    ev = collect([str(log)], load_rules())
    stops = [f for f in ev.facts if isinstance(f, SignalFact) and f.sender == "launcher"]
    assert [(f.signal, f.target) for f in stops] == [("SIGTERM", 31370), ("SIGKILL", 31370)]
    siblings = sibling_terminations(ev.facts)
    assert len(siblings) == 1
    d = analyze([str(log)], model=False)
    assert d.root_cause == "native_crash" and "SIGSEGV" in d.message
    assert any(m.root_cause == "host_oom_killed" for m in d.symptoms)


def test_without_a_launcher_stop_no_exit_is_a_sibling(tmp_path: Path) -> None:
    """The same summary shape with no closing signal for that pid: an unexplained -9 keeps its default reading."""
    text = (DATA / "torchrun-segv-sigkill-escalation.log").read_text()
    text = "\n".join(line for line in text.splitlines() if "closing signal" not in line and "forcefully" not in line)
    ev = collect([str(_write(tmp_path, text))], load_rules())
    assert sibling_terminations(ev.facts) == frozenset()


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "job.log"
    p.write_text(text)
    return p


@pytest.mark.parametrize("line, verdict", [
    # slurmstepd src/slurmd/slurmstepd/req.c messages
    ("slurmstepd: error: *** JOB 4242 ON node-7 CANCELLED AT 2024-03-01T10:00:00 DUE TO NODE FAILURE, SEE SLURMCTLD "
     "LOG FOR DETAILS ***", "node_fail"),
    ("slurmstepd: error: *** JOB 4242 ON node-7 CANCELLED AT 2024-03-01T10:00:00 DUE TO JOB REQUEUE ***", "requeued"),
    ("slurmstepd: error: *** STEP 4242.0 ON node-7 CANCELLED AT 2024-03-01T10:00:00 DUE TO PREEMPTION ***",
     "preempted"),
])
def test_slurm_verdicts_end_the_job_from_outside(tmp_path: Path, line: str, verdict: str) -> None:
    (v,) = [f for f in facts(line) if isinstance(f, SchedulerVerdict)]
    assert v.verdict == verdict
    assert diagnose_text(tmp_path, line + "\n") == "job_preempted"


def test_ray_placement_request_that_cannot_fit_is_a_scheduling_stall() -> None:
    """A real Ray run here: an actor asking for 2 CPUs inside a placement group of 1-CPU bundles (Ray's
    ``_validate_resource_shape`` raises a plain ValueError at actor creation)."""
    d = analyze([str(DATA / "ray-placement-group-bundle-too-small.log")], model=False)
    assert d.root_cause == "ray_scheduling_stall"


@pytest.mark.parametrize("line", [
    # vllm-project/vllm#3190 (vLLM's ray_gpu_executor with no GPU on the driver node)
    "ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group or "
    "running the driver on a GPU node.",
    # vLLM ray_utils.initialize_ray_cluster inside an existing placement group
    "ValueError: Placement group bundle cannot have more than 1 GPU.",
])
def test_vllm_placement_value_errors_are_a_scheduling_stall(tmp_path: Path, line: str) -> None:
    (e,) = [f for f in facts(line) if isinstance(f, ExceptionFact)]
    assert e.family == "placement"
    assert diagnose_text(tmp_path, line + "\n") == "ray_scheduling_stall"


CHAINED = """Traceback (most recent call last):
  File "/home/user/ckpt.py", line 9, in save
    np.save(f, arr)
OSError: 200000 requested and 60400 written

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/user/train.py", line 20, in <module>
    save()
  File "/home/user/ckpt.py", line 11, in save
    raise RuntimeError("checkpoint failed") from e
RuntimeError: checkpoint failed
"""


def test_chained_exception_names_its_cause_and_takes_its_family(tmp_path: Path) -> None:
    """CPython's chain separators (Lib/traceback.py): the generic outer exception takes the inner one's family."""
    ev = collect([str(_write(tmp_path, CHAINED))], load_rules())
    inner, outer = [f for f in ev.facts if isinstance(f, ExceptionFact)]
    assert (inner.type, inner.caused_by, inner.family) == ("OSError", "", "disk_full")
    assert (outer.type, outer.caused_by, outer.family) == ("RuntimeError", "OSError", "disk_full")
    assert analyze([str(tmp_path / "job.log")], model=False).root_cause == "disk_full"


def test_unchained_exceptions_are_not_linked(tmp_path: Path) -> None:
    text = CHAINED.replace("The above exception was the direct cause of the following exception:", "step 2 loss 1.0")
    ev = collect([str(_write(tmp_path, text))], load_rules())
    outer = [f for f in ev.facts if isinstance(f, ExceptionFact)][-1]
    assert outer.caused_by == "" and outer.family == ""


ASSERTION = ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
             "gradient_acc_step * world_size 16 != 2 * 1 * 1\n")
DS_VERSION = ("[2023-04-14 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.9.0, "
              "git-hash=unknown, git-branch=unknown\n")


@pytest.mark.parametrize("text, root_cause", [
    # huggingface/accelerate#1324, deepspeedai/DeepSpeed#3228: DeepSpeed 0.9.0 with Accelerate 0.17/0.18
    ("- `Accelerate` version: 0.18.0\n" + DS_VERSION + ASSERTION, "library_version_mismatch"),
    ("- `Accelerate` version: 0.16.0\n" + DS_VERSION + ASSERTION, "batch_size_mismatch"),  # the working pair
    (ASSERTION, "batch_size_mismatch"),  # no versions printed: the user's configuration
    (ASSERTION + "- `Accelerate` version: 0.18.0\n" + DS_VERSION, "batch_size_mismatch"),  # printed only after
])
def test_batch_assertion_after_a_known_bad_version_pair(tmp_path: Path, text: str, root_cause: str) -> None:
    assert diagnose_text(tmp_path, text) == root_cause


@pytest.mark.parametrize("text, root_cause", [
    # hafs-community/HAFS#101: a task's SIGBUS, then srun ends the step and slurmstepd reports it cancelled (the SIGBUS
    # stays the cause, read by default as a mapping with no memory behind it: rule sigbus-default-shared-memory)
    ("srun: error: Orion-18-69: task 289: Bus error\nsrun: Terminating job step 3495450.0\n"
     "slurmstepd: error: *** STEP 3495450.0 ON orion-01-04 CANCELLED AT 2021-10-27T20:22:22 ***\n", "shm_exhausted"),
    # chrisknewman/tusas#149: tasks killed by the cgroup OOM handler, srun's own report of it
    ("srun: error: nid001277: tasks 1-3: Out Of Memory\nsrun: Terminating StepId=440575.0\n"
     "slurmstepd: error: *** STEP 440575.0 ON nid001277 CANCELLED AT 2023-12-05T07:16:01 ***\n", "host_oom_killed"),
    # a reason-less cancel srun did not cause (scancel): still the scheduler ending the job
    ("slurmstepd: error: *** JOB 440575 ON nid001277 CANCELLED AT 2023-12-05T07:16:01 ***\n", "job_preempted"),
])
def test_srun_ending_the_step_after_a_task_failed_is_a_symptom(tmp_path: Path, text: str, root_cause: str) -> None:
    assert diagnose_text(tmp_path, text) == root_cause


@pytest.mark.parametrize("text, kind, value", [
    # nextflow-io/nextflow#5932 (newer Slurm wording of the cgroup OOM report)
    ("slurmstepd: error: Detected 1 oom_kill event in StepId=11300781.0. Some of the step tasks have been OOM "
     "Killed.", "scheduler", "oom_killed"),
    ("srun: error: sdumont6156: task 0: Out Of Memory", "scheduler", "oom_killed"),  # same thread
    # gimlet-io/gimlet#649 (kubectl describe pod)
    ("Last State:     Terminated\n  Reason:       OOMKilled\n  Exit Code:    137", "scheduler", "oom_killed"),
    ("command terminated with exit code 137", "process_exit", "SIGKILL"),  # jupyter/docker-stacks#736 (kubectl exec)
    ("  exitcode  : -11 (pid: 31371)  (SIGSEGV)", "process_exit", "SIGSEGV"),  # ChildFailedError table, a run here
    ("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.", "exception", "cuda_oom"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "cuda_error", "cudaErrorIllegalAddress"),
])
def test_more_launcher_and_library_shapes_are_facts(text: str, kind: str, value: str) -> None:
    found = {(f.kind, f.fields().get({"scheduler": "verdict", "process_exit": "signal", "exception": "family",
                                      "cuda_error": "name"}[f.kind])) for f in facts(text) if f.kind == kind}
    assert (kind, value) in found


@pytest.mark.parametrize("line, what", [
    # Megatron-LM's check_for_nan_in_loss_and_grad (rerun_state_machine.validate_result / older assert)
    ("RuntimeError: Rank 255, node n1, device 0, iteration 2: Unexpected result nan "
     "(message='found NaN in local forward loss calculation')", "nan_loss"),
    ("AssertionError: Rank 3: found Inf in local forward loss calculation. Device: 3, node: gpu-node-1", "inf_loss"),
    # Lightning's _check_finite and detect_nan_parameters (utilities/finite_checks.py)
    ("ValueError: The loss returned in `training_step` is tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>).",
     "nan_loss"),
    ("ValueError: Detected nan and/or inf values in `layer.weight`. Check your forward pass for numerically unstable "
     "operations.", "nan_grad"),
])
def test_framework_nan_checks_are_numeric_facts(line: str, what: str) -> None:
    assert what in [f.what for f in facts(line) if f.kind == "numeric"]


def test_ray_task_error_takes_the_wrapped_exception_family() -> None:
    """A real Ray run here: an actor's numpy allocation fails; the driver re-raises it as RayTaskError(MemoryError)."""
    ev = collect([str(DATA / "ray-actor-numpy-memoryerror.log")], load_rules())
    wrapped = [f for f in ev.facts if isinstance(f, ExceptionFact) and f.type.startswith("ray.exceptions.RayTask")]
    assert [f.family for f in wrapped] == ["host_memory"]
    assert analyze([str(DATA / "ray-actor-numpy-memoryerror.log")], model=False).root_cause == "host_oom_killed"


@pytest.mark.parametrize("line", [
    # vLLM's start-up KV-cache checks (vllm/worker/worker.py raise_if_cache_size_invalid, v1 kv_cache_utils)
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
    "the engine.",
    "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV "
    "cache (15424). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
])
def test_vllm_kv_cache_that_does_not_fit_is_gpu_memory(tmp_path: Path, line: str) -> None:
    (e,) = [f for f in facts(line) if isinstance(f, ExceptionFact)]
    assert e.family == "cuda_oom"
    assert diagnose_text(tmp_path, line + "\n") == "cuda_oom"


@pytest.mark.parametrize(
    ("message", "family"),
    [
        # Dask's WorkerStartTimeoutError (distributed/client.py), by type and by count
        ("Only 1/2 workers arrived after 90.0", "rendezvous"),
        # wave AN's Flower run: the script's own count of the organisations that joined
        ("only 3 of 4 organisations joined within 60 s", "rendezvous"),
        # a count with nothing missing is no meeting that failed to happen
        ("loaded 3 of 4 shards", ""),
    ],
)
def test_a_count_of_participants_that_met_is_a_rendezvous_fact(message: str, family: str) -> None:
    (exc,) = [f for f in facts(f"RuntimeError: {message}\n") if isinstance(f, ExceptionFact)]
    assert exc.family == family


def test_store_socket_timeout_as_dist_store_error(tmp_path: Path) -> None:
    # https://github.com/hiyouga/LlamaFactory/issues/6154: the whole pasted log is this line
    assert diagnose_text(tmp_path, "torch.distributed.DistStoreError: Socket Timeout\n") == "rendezvous_timeout"


# CPython 3.11 here (a ProcessPoolExecutor's workers slower than the driver's ``Future.result(timeout=1)``)
FUTURE_TIMEOUT = """waiting for shard gradients
Traceback (most recent call last):
  File "/tmp/probe/tmo.py", line 9, in <listcomp>
    grads = [f.result(timeout=1) for f in futs]
             ^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/concurrent/futures/_base.py", line 458, in result
    raise TimeoutError()
TimeoutError
"""


def test_pythons_own_timeout_is_a_wait_that_ran_out(tmp_path: Path) -> None:
    (exc,) = [f for f in facts(FUTURE_TIMEOUT) if isinstance(f, ExceptionFact)]
    assert exc.family == "timeout"
    assert diagnose_text(tmp_path, FUTURE_TIMEOUT) == "collective_timeout"


def test_a_timeout_raised_connecting_is_the_rendezvous_family() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/user/train.py", line 20, in <module>\n'
        '    sock = socket.create_connection(("10.0.0.1", 5555), timeout=60)\n'
        '  File "/usr/lib/python3.10/socket.py", line 833, in create_connection\n'
        "    sock.connect(sa)\n"
        "TimeoutError: timed out\n"
    )
    (exc,) = [f for f in facts(text) if isinstance(f, ExceptionFact)]
    assert exc.family == "rendezvous"


def test_a_librarys_own_timeout_type_is_not_read_as_a_wait() -> None:
    line = "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out.\n"
    assert not [f for f in facts(line) if isinstance(f, ExceptionFact) and f.family]


def test_a_version_warning_explains_a_wait_that_timed_out() -> None:
    # areal-project/AReaL#979: "TimeoutError: server launch failed" after torchao's warning that it cannot load
    log = Path(__file__).resolve().parent.parent / "corpus" / "logs" / "gh-areal-project-AReaL-979" / "rollout.log"
    assert analyze([str(log)], model=False).root_cause == "library_version_mismatch"


def test_a_grpc_deadline_is_a_wait_that_ran_out() -> None:
    # https://github.com/GoogleCloudPlatform/python-docs-samples/issues/4054
    text = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/datalabeling/.nox/py-3-8/lib/python3.8/site-packages/grpc/_channel.py", line 729, in '
        "_end_unary_response_blocking\n"
        "    raise _InactiveRpcError(state)\n"
        "grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:\n"
        "\tstatus = StatusCode.DEADLINE_EXCEEDED\n"
        '\tdetails = "Deadline Exceeded"\n'
        '\tdebug_error_string = "{"created":"@1591821793.129451776","description":"Error received from peer '
        'ipv4:172.217.204.81:443","file":"src/core/lib/surface/call.cc","file_line":1056,"grpc_message":"Deadline '
        'Exceeded","grpc_status":4}"\n'
        ">\n"
    )
    assert [f.family for f in facts(text) if isinstance(f, ExceptionFact)] == ["timeout"]
