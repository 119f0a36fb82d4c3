"""Where a scan's jobs run: one interface (``Executor.run(todo, emit)``), a local and a Ray implementation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..errors import InputError
from .jobs import Emit, Job

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

ENGINES = ("local", "ray")


class Executor(Protocol):
    def run(self, todo: list[Job], emit: Emit) -> None:
        """Analyse every job of ``todo`` and call ``emit(job, row)`` for each, in this process, in any order.

        A job that cannot be analysed still gets a row (``error`` set); only Ctrl-C or a lost cluster raise."""


def make_executor(
    engine: str, rules: RuleSet, *, workers: int, address: str | None, model: bool, max_job_bytes: int | None
) -> Executor:
    """The executor for ``engine`` (``local``: ``workers`` processes; ``ray``: the cluster at ``address``).

    Raises:
        InputError: unknown engine.
    """
    if engine == "local":
        from .local import LocalExecutor

        return LocalExecutor(rules, workers, model, max_job_bytes)
    if engine == "ray":
        from .on_ray import RayExecutor

        return RayExecutor(rules, address, model, max_job_bytes)
    raise InputError(f"unknown engine {engine!r}; choose {' or '.join(ENGINES)}")
