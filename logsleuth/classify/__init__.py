"""The trained classifier's vote, combined with the rules' diagnosis.

Until a model file ships (``logsleuth train`` writes it), ``apply`` returns the rules' diagnosis unchanged.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..types import Diagnosis, Event


def apply(diagnosis: Diagnosis, notable: Sequence[Event], tail: Sequence[Event], *, explain: bool = False) -> Diagnosis:
    """Combine the rules' ``diagnosis`` with the model's vote over the job's ``notable`` and ``tail`` events."""
    return diagnosis
