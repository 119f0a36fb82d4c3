"""The Ray executor: batches of jobs as tasks on a Ray cluster (files readable at the same paths on every node)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import LogsleuthError
from .jobs import Emit, Job, batches
from .rows import analyze_job, error_row

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

_RAY_RULES: dict[str, Any] = {}


def _ray_task(
    jobs: list[Job], rules_ref: list[Any], rules_key: str, model: bool, max_job_bytes: int | None
) -> list[dict[str, Any]]:
    """Runs on a Ray worker: the rules are fetched once per worker process (cached by fingerprint)."""
    rules = _RAY_RULES.get(rules_key)
    if rules is None:
        import ray

        rules = _RAY_RULES[rules_key] = ray.get(rules_ref[0])
    return [analyze_job(job, rules, model=model, max_job_bytes=max_job_bytes) for job in jobs]


def _as_given(row: dict[str, Any], job: Job) -> dict[str, Any]:
    """Paths in a row computed from absolute paths (Ray) written as the user gave them, as in local mode."""
    prefixes = sorted(((os.path.abspath(a), a) for a in job.analyze_paths), key=lambda x: -len(x[0]))
    for col in ("first_failure_path", "error"):
        v = row.get(col)
        if not isinstance(v, str):
            continue
        for absolute, given in prefixes:
            if absolute != given and absolute in v:
                v = v.replace(absolute, given)
        row[col] = v
    return row


def _run_ray(
    todo: list[Job], rules: RuleSet, address: str | None, model: bool, max_job_bytes: int | None, emit: Emit
) -> None:
    try:
        import ray
    except ImportError as exc:
        raise LogsleuthError("--engine ray needs Ray: pip install 'logsleuth[ray]'") from exc
    connected_here = not ray.is_initialized()
    if connected_here:
        import logging

        try:
            ray.init(
                address=address or os.environ.get("RAY_ADDRESS") or "auto",
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        except ConnectionError as exc:
            raise LogsleuthError(
                f"cannot connect to a Ray cluster at {address or 'auto'} ({exc}); "
                "start one with 'ray start --head' or pass --address"
            ) from exc
    try:
        _run_ray_tasks(ray, todo, rules, model, max_job_bytes, emit)
    finally:
        if connected_here:
            ray.shutdown()  # disconnects this driver; the cluster keeps running


def _run_ray_tasks(
    ray: Any, todo: list[Job], rules: RuleSet, model: bool, max_job_bytes: int | None, emit: Emit
) -> None:
    rules_ref = ray.put(rules)
    task = ray.remote(num_cpus=1, max_retries=1)(_ray_task)
    # absolute paths: Ray workers may run in another working directory (the archive must be on a shared filesystem)
    running = {}
    for batch in batches(todo):
        ajobs = [
            Job(j.name, j.paths, j.bytes, j.fingerprint, tuple(os.path.abspath(p) for p in j.analyze_paths))
            for j in batch
        ]
        ref = task.remote(ajobs, [rules_ref], rules.fingerprint(), model, max_job_bytes)
        running[ref] = batch
    try:
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                batch = running.pop(ref)
                try:
                    rows = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a worker crash / task error fails only this batch
                    rows = [
                        error_row(j, f"Ray task failed: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                        for j in batch
                    ]
                for job, row in zip(batch, rows):
                    emit(job, _as_given(row, job))
    except BaseException:
        for ref in running:
            ray.cancel(ref, force=True)
        raise


class RayExecutor:
    """Tasks on a Ray cluster at ``address`` (default ``RAY_ADDRESS``, else ``auto``; an initialised session is used
    as is), batches of up to 16 jobs / 64 MB per task, rules put in the object store once."""

    def __init__(self, rules: RuleSet, address: str | None, model: bool, max_job_bytes: int | None) -> None:
        self.rules, self.address, self.model, self.max_job_bytes = rules, address, model, max_job_bytes

    def run(self, todo: list[Job], emit: Emit) -> None:
        _run_ray(todo, self.rules, self.address, self.model, self.max_job_bytes, emit)
