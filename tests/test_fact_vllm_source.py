"""vLLM's failure reports, read as the facts vLLM's source says they state (issue 12: diagnose from facts).

Lines are copied from the public threads named beside them (machine-printed lines kept as printed). Templates:
``vllm/executor/multiproc_worker_utils.py`` (V0 ``WorkerMonitor``: "Worker %s pid %s died, exit code: %s"),
``vllm/v1/executor/multiproc_executor.py`` ("Worker proc %s died unexpectedly, shutting down executor."),
``vllm/logger.py`` / ``NewLineFormatter`` (every line of a logged traceback behind the record's prefix),
``vllm/v1/engine/exceptions.py`` (``EngineDeadError``, a report of a failure printed above it).
"""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze
from logsleuth.types import Event


def _exits(text: str) -> list[tuple[str, int | None, str | None]]:
    ev = Event(line=1, end_line=1, path="job.log", text=text, source="vllm")
    return [(f.reporter, f.code, f.signal) for f in facts_of(ev) if isinstance(f, ProcessExit)]


def _cause(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


# vllm-project/vllm#6823 (the title line): a V0 worker killed by SIGSEGV
SEGV = "ERROR 07-26 14:50:35 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 214281 died, exit code: -11\n"


def test_v0_worker_exit_code_is_a_signal() -> None:
    assert _exits(SEGV) == [("vllm", -11, "SIGSEGV")]
    # vllm-project/vllm#15295 (title): -15 is SIGTERM
    assert _exits("Worker VllmWorkerProcess pid 000000 died, exit code: -15") == [("vllm", -15, "SIGTERM")]


def test_v0_worker_segfault_is_a_native_crash(tmp_path: Path) -> None:
    assert _cause(tmp_path, SEGV) == "native_crash"


def test_v1_worker_died_unexpectedly_is_a_death_without_a_signal(tmp_path: Path) -> None:
    # OpenPipe/ART#201: the executor's monitor saw the process end; nothing says how, so no cause is claimed
    line = (
        "ERROR 07-04 17:35:16 [multiproc_executor.py:140] Worker proc VllmWorker-1 died unexpectedly, "
        "shutting down executor.\n"
    )
    assert _exits(line) == [("vllm", None, None)]
    assert _cause(tmp_path, line) not in ("no_failure", "host_oom_killed", "native_crash")


# vllm-project/vllm-ascend#7384: the API server logs the engine's death as one logger record, every line behind
# the same "(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710]" prefix
ENGINE_DEAD = """\
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710] AsyncLLM output_handler failed.
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710] Traceback (most recent call last):
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710]   File "/vllm-workspace/vllm/vllm/v1/engine/async_llm.py", line 666, in output_handler
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710]     outputs = await engine_core.get_output_async()
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710]               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710]   File "/vllm-workspace/vllm/vllm/v1/engine/core_client.py", line 910, in get_output_async
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710]     raise self._format_exception(outputs) from None
(ApiServer_0 pid=244) ERROR 03-13 06:55:20 [async_llm.py:710] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
"""


def test_logged_traceback_is_one_python_event() -> None:
    tbs = [e for e in parse_text(ENGINE_DEAD) if e.params.get("exc_type")]
    assert len(tbs) == 1
    tb = tbs[0]
    assert (tb.source, tb.params["exc_type"], len(tb.params["frames"])) == (
        "python",
        "vllm.v1.engine.exceptions.EngineDeadError",
        2,
    )
    assert tb.line == 2 and tb.end_line == 8


def test_engine_dead_is_not_a_cause_of_its_own(tmp_path: Path) -> None:
    # it points at the engine's traceback above; without that, the log does not say why
    assert _cause(tmp_path, ENGINE_DEAD) != "worker_exception"


def test_logged_frames_without_their_header() -> None:
    # vllm-project/vllm#27508 (as pasted, from the middle of the engine core's logged traceback)
    text = """\
(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]   File "/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/core/kv_cache_utils.py", line 1243, in get_kv_cache_configs
(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]     check_enough_kv_cache_memory(vllm_config, kv_cache_spec_one_worker,
(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]     ~~~~~~~~~~~~~~~~~~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]                                  available_memory_one_worker)
(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]                                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708]   File "/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/core/kv_cache_utils.py", line 699, in check_enough_kv_cache_memory
"""
    events = parse_text(text)
    frames = [f["func"] for e in events for f in e.params.get("frames", [])]
    assert frames == ["get_kv_cache_configs", "check_enough_kv_cache_memory"]
    assert sum(1 for e in events if e.params.get("frames")) == 1


def test_logged_exception_line_states_its_family() -> None:
    # Not a line copied from a log: vllm#27508's logger prefix (above) with the message its frames show vLLM's
    # kv_cache_utils.py check_enough_kv_cache_memory raising; what is tested is the prefix, the words are vLLM's
    line = (
        "(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708] ValueError: No available memory for the "
        "cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
    )
    ev = Event(line=1, end_line=1, path="job.log", text=line, source="vllm")
    excs = [f for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    assert [(e.type, e.family) for e in excs] == [("ValueError", "cuda_oom")]
