"""Wave AU (``heldout50``: real Kedro and Hydra runs, and thread excerpts from new and from the big LLM projects),
measured blind before any change for it: what was changed for its misses. Each is a fact in a library's own words
(UCX's shared-memory transport out of /dev/shm, Open MPI's runtime losing a daemon, the raylet out of worker ports,
Ray Train's worker group not starting, DeepSpeed 0.15 refusing transformers' float bucket size, an orchestrator saying
the whole run succeeded) or a broader reading of one the product had (a GPU the driver says must be reset explains
"busy or unavailable"; a pasted frame path that starts at an ML-stack package is that package's code; a frame indented
by one blank still starts a traceback; an exception line behind a Ray worker's prefix is that worker's exception)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import api_mismatch, facts_of
from logsleuth.factlayer.kinds import ExceptionFact, RunFinished
from logsleuth.factlayer.tables import is_advisory
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # NVIDIA/ai-cloud-validation#643: UCX's mm transport cannot allocate its FIFO in a 64 MiB /dev/shm, then SIGSEGV
        ("gh-NVIDIA-ai-cloud-validation-643/k8s_nccl_allreduce_8rank_no_dshm.log", "shm_exhausted"),
        # kubeflow/mpi-operator#152: "ORTE has lost communication with a remote daemon" after a worker pod crashed
        ("gh-kubeflow-mpi-operator-152/launcher_lost_worker_daemon.log", "peer_process_died"),
        # kubernetes-sigs/dra-driver-nvidia-gpu#982: "busy or unavailable" from a GPU whose driver says reset required
        ("gh-kubernetes-sigs-dra-driver-nvidia-gpu-982/gb200_bad_gpu_probe.log", "gpu_hardware_fault"),
        # hiyouga/LlamaFactory#5252: DeepSpeed 0.15's pydantic config refusing transformers' float bucket size; the
        # exception's first line lost its [rank3] tag in the paste, the detail lines kept it
        ("gh-hiyouga-LlamaFactory-5252/ds015_zero3_prefetch_validation.log", "library_version_mismatch"),
        # ray-project/ray#60376: Ray Train v2's controller reporting the worker group's startup timeout, then retrying
        ("gh-ray-project-ray-60376/worker_group_start_timeout.log", "ray_scheduling_stall"),
        # NVIDIA-NeMo/RL#951: the raylet's worker port range used up
        ("gh-NVIDIA-NeMo-RL-951/ray_worker_ports_exhausted_async_vllm.log", "port_in_use"),
        # OpenRLHF/OpenRLHF#702: vLLM's own frame (a pasted, package-relative path) refusing OpenRLHF's keyword
        ("gh-OpenRLHF-OpenRLHF-702/llmrayactor_worker_use_ray_vllm070.log", "library_version_mismatch"),
        # vllm-project/vllm-omni#7616: the workers' AssertionError behind Ray's "(DiffusionWorker pid=...)" prefix
        ("gh-vllm-project-vllm-omni-7616/hunyuan_image_diffusion_worker_init_assert.log", "worker_exception"),
        # Kedro 1.7 (corpus/generators/waveau_b): a node retried torchrun after a port clash, then the pipeline
        # completed; a node's ERROR record about dropped rows, then the pipeline completed
        ("run-waveau-b-kedro-birdsong-healthy-port-retry/job.log", "no_failure"),
        ("run-waveau-b-kedro-birdsong-healthy-threads-noise/job.log", "no_failure"),
        # ... and the same project failing: its pipeline never says it completed
        ("run-waveau-b-kedro-birdsong-notebook-port/job.log", "port_in_use"),
        ("run-waveau-b-kedro-birdsong-renamed-column/job.log", "worker_exception"),
        # Hydra 1.3 (corpus/generators/waveau_a): an override of a key the config lacks, reported by Hydra with no
        # traceback; hydra-core 1.1 refused by Python 3.11's dataclasses at import; a run whose only ERROR lines say
        # they continue without the metrics server
        ("run-waveau-a-hydra-signs-cli-key/job.log", "worker_exception"),
        ("run-waveau-a-hydra-signs-old-pin/job.log", "library_version_mismatch"),
        ("run-waveau-a-hydra-signs-healthy-tracking/job.log", "no_failure"),
    ],
)
def test_wave_au_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_wave_au_logs_with_the_shipped_model() -> None:
    # a healthy verdict read from the orchestrator's report is final: the model's vote on the port clash's lines does
    # not overrule it (``combine.SUCCESS_FACTS``)
    assert analyze([str(CORPUS / "run-waveau-b-kedro-birdsong-healthy-port-retry/job.log")]).root_cause == "no_failure"


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_kedro_pipeline_completed_is_the_runs_end() -> None:
    # kedro/runner/runner.py, as Kedro 1.7's rich logging handler prints it (run-waveau-b-kedro-birdsong-healthy, end)
    line = (
        "                    INFO     Pipeline execution completed successfully in 21.5 sec.      "
        "                                                          runner.py:119"
    )
    assert [f.by for f in _facts(line) if isinstance(f, RunFinished)] == ["kedro"]
    failed = (
        "                    ERROR    Pipeline execution failed.                                        runner.py:130"
    )
    assert not [f for f in _facts(failed) if isinstance(f, RunFinished)]


def test_a_failure_after_the_orchestrators_success_still_counts(tmp_path: Path) -> None:
    # the run-finished reading needs nothing failing after the report (a teardown step that raised, say)
    log = tmp_path / "job.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 10, in <module>\n'
        "    main()\n"
        "KeyError: 'snr_db'\n"
        "                    INFO     Pipeline execution completed successfully in 21.5 sec.   runner.py:119\n"
        "Traceback (most recent call last):\n"
        '  File "/workspace/upload.py", line 3, in <module>\n'
        "    push()\n"
        "PermissionError: [Errno 13] Permission denied: 'registry/v3'\n"
    )
    assert analyze([str(log)], model=False).root_cause == "worker_exception"


def test_frames_indented_by_one_blank_start_a_traceback() -> None:
    # OpenRLHF/OpenRLHF#702's quoted creation-task error (lines 2-8): the frames kept one blank of indentation
    text = (
        ' File "openrlhf/trainer/ray/vllm_engine.py", line 58, in __init__\n'
        " self.llm = vllm.LLM(*args, **kwargs)\n"
        ' File "vllm/entrypoints/llm.py", line 210, in __init__\n'
        " engine_args = EngineArgs(\n"
        "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'\n"
    )
    (tb,) = [e for e in parse_text(text) if e.params.get("exc_type")]
    assert [f["file"] for f in tb.params["frames"]] == [
        "openrlhf/trainer/ray/vllm_engine.py",
        "vllm/entrypoints/llm.py",
    ]


def test_frames_quoted_deeper_in_a_report_start_no_traceback() -> None:
    # torchelastic's error summary quotes the failed worker's frames four blanks in: not a traceback of their own
    text = '    File "/workspace/train.py", line 10, in <module>\n      main()\n'
    assert not [e for e in parse_text(text) if e.params.get("frames")]


@pytest.mark.parametrize(
    ("innermost", "user", "installed"),
    [
        ("vllm/entrypoints/llm.py:210 in __init__", True, True),  # a paste shortened the path to the package
        ("/venv/lib/python3.11/site-packages/trl/trainer/grpo_trainer.py:300 in __init__", False, True),
        ("train/model.py:12 in build", True, False),  # the user's own package: not one of the ML stack's
        ("/workspace/train.py:10 in main", True, False),
    ],
)
def test_a_library_calling_another_with_a_keyword_it_lacks(innermost: str, user: bool, installed: bool) -> None:
    msg = "EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'"
    assert api_mismatch("TypeError", msg, innermost, user) is installed


def test_an_exception_behind_a_ray_workers_prefix_is_the_workers() -> None:
    (ev,) = parse_text("(DiffusionWorker pid=1097) AssertionError: distributed environment is not initialized\n")
    assert ev.source == "python" and ev.pid == 1097
    assert [f.type for f in facts_of(ev) if isinstance(f, ExceptionFact)] == ["AssertionError"]
    # a worker's ordinary line behind the same prefix is still Ray's
    (plain,) = parse_text("(DiffusionWorker pid=1097) loading the text encoder on cuda:0\n")
    assert plain.source == "ray"


@pytest.mark.parametrize(
    ("line", "advisory"),
    [
        # run-waveau-a-hydra-signs-healthy-tracking, line 57
        (
            "[2026-11-30 17:03:08,817][__mp_main__][ERROR] - metrics push to http://127.0.0.1:31499/api/metrics failed: "
            "<urlopen error [Errno 111] Connection refused>; continuing without remote metrics",
            True,
        ),
        ("ERROR failed to load the tokenizer cache, continuing anyway", True),
        ("ERROR loss is nan at step 40; stopping", False),
        ("ERROR continuing without a checkpoint is not possible", False),  # no separator: the words are the subject
    ],
)
def test_an_error_line_that_says_it_goes_on(line: str, advisory: bool) -> None:
    assert is_advisory(line) is advisory


def test_a_dataclass_refused_by_a_newer_python_is_the_environment() -> None:
    # CPython 3.11's dataclasses on hydra-core 1.1.2's JobConf (run-waveau-a-hydra-signs-old-pin, last line)
    line = (
        "ValueError: mutable default <class 'hydra.conf.JobConf.JobConfig.OverrideDirname'> for field "
        "override_dirname is not allowed: use default_factory"
    )
    (exc,) = [f for f in _facts(line) if isinstance(f, ExceptionFact)]
    assert exc.family == "environment"


def test_training_complete_after_a_logging_separator() -> None:
    # Hydra's job logging format (run-waveau-a-hydra-signs-healthy-tracking, line 78)
    line = "[2026-11-30 17:03:13,670][__main__][INFO] - training complete"
    assert [f.by for f in _facts(line) if isinstance(f, RunFinished)] == ["script"]
    assert not [
        f for f in _facts("[INFO] - waiting for training complete signal-handler") if isinstance(f, RunFinished)
    ]
