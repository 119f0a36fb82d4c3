"""``report.RANK_KEYS`` gives each report its own default lists and dicts: editing one report's ``ranks`` (a caller
post-processing ``to_dict``) must not change the next report's, and the defaults themselves are read-only."""

from __future__ import annotations

import pytest

from logsleuth.report import RANK_KEYS, to_dict
from logsleuth.types import Diagnosis


def test_rank_defaults_are_fresh_per_report() -> None:
    first = to_dict(Diagnosis(verdict="no_failure", root_cause="no_failure"))
    first["ranks"]["seen"].append(3)
    first["ranks"]["counts"]["seen"] = 1
    first["ranks"]["last_seen"]["3"] = None
    second = to_dict(Diagnosis(verdict="no_failure", root_cause="no_failure"))
    assert second["ranks"]["seen"] == [] and second["ranks"]["counts"] == {} and second["ranks"]["last_seen"] == {}
    assert first["ranks"]["seen"] is not second["ranks"]["seen"]
    assert second["ranks"]["world_size"] is None and second["ranks"]["silent_first"] is None


def test_rank_defaults_cannot_be_edited() -> None:
    with pytest.raises(TypeError):
        RANK_KEYS["seen"] = lambda: [1]  # type: ignore[index]
    assert RANK_KEYS["seen"]() == [] and RANK_KEYS["seen"]() is not RANK_KEYS["seen"]()


def test_ranks_the_diagnosis_knows_are_kept() -> None:
    d = Diagnosis(verdict="failure", root_cause="cuda_oom", ranks={"world_size": 4, "seen": [0, 1]})
    r = to_dict(d)["ranks"]
    assert r["world_size"] == 4 and r["seen"] == [0, 1] and set(r) == set(RANK_KEYS)
