"""The public JSON contract: committed schemas == generated ones; every corpus job's ``analyze -f json`` validates,
round-trips through the models (they describe every field), has one shape whatever the verdict, and dates its
times with a year; ``report`` and ``verify --from`` reject documents that break the schema."""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

import logsleuth
from logsleuth.cli import app
from logsleuth.models import SCHEMAS, DiagnosisDoc, ScanRow
from logsleuth.schemas import NAMES, dumps, errors, generate, load
from logsleuth.types import Diagnosis
from tests.conftest import CORPUS, manifest_rows

runner = CliRunner()


@pytest.mark.parametrize("name", NAMES)
def test_committed_schema_equals_generated(name: str) -> None:
    committed = (Path(logsleuth.__file__).parent / "schemas" / f"{name}.json").read_text(encoding="utf-8")
    assert committed == dumps(generate(name)), "regenerate: python -c \"import logsleuth.schemas as s; s.write_all()\""
    assert load(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_command_prints_the_committed_schema() -> None:
    res = runner.invoke(app, ["schema", "diagnosis"])
    assert res.exit_code == 0 and json.loads(res.stdout) == load("diagnosis")
    assert set(SCHEMAS) == set(NAMES)


def _times(doc: dict) -> list[str | None]:
    events = [doc["first_failure"] or {}, *doc["evidence"], *doc["symptoms"], *doc["unexplained"]]
    return [e.get("time") for e in events] + list(doc["ranks"]["last_seen"].values())


@pytest.fixture(scope="module")
def corpus_diagnoses(rules) -> list[tuple[str, Diagnosis]]:
    """``analyze`` of every corpus job, in process (rules loaded once; the shipped model votes)."""
    return [(row["file"], logsleuth.analyze([str(CORPUS / row["file"])], rules=rules)) for row in manifest_rows()]


@pytest.fixture(scope="module")
def corpus_docs(corpus_diagnoses) -> list[tuple[str, dict]]:
    """``analyze -f json`` of every corpus job."""
    return [(f, json.loads(logsleuth.render(d, "json", redact_secrets=False))) for f, d in corpus_diagnoses]


def _time_fields(node: object, where: str = "") -> list[tuple[str, object]]:
    """Every ``*time`` field of a JSON document (and the values of ``ranks.last_seen``), with its dotted path."""
    out: list[tuple[str, object]] = []
    if isinstance(node, dict):
        for k, v in node.items():
            path = f"{where}.{k}" if where else k
            if k.endswith("time") or where.endswith("last_seen"):
                out.append((path, v))
            out.extend(_time_fields(v, path))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_time_fields(v, f"{where}.{i}"))
    return out


def test_every_corpus_job_validates_and_round_trips(corpus_docs) -> None:
    for file, doc in corpus_docs:
        assert errors("diagnosis", doc) == [], file
        # the models describe every field: nothing is dropped or added by a round trip
        assert DiagnosisDoc.model_validate(doc).model_dump(mode="json") == doc, file


def test_corpus_times_carry_a_year_and_symptoms_never_repeat_the_cause(corpus_docs) -> None:
    dated = 0
    for file, doc in corpus_docs:
        for t in _times(doc):
            if t is not None:
                assert datetime.fromisoformat(t).year > 1900, (file, t)
                dated += 1
        assert doc["root_cause"]["id"] not in {s["id"] for s in doc["symptoms"]}, file
        ff = doc["first_failure"]
        if ff is not None:  # the first failure's line is the same record wherever it is listed
            for e in doc["evidence"]:
                if (e["path"], e["line"]) == (ff["path"], ff["line"]):
                    assert (e["host"], e["rank"]) == (ff["host"], ff["rank"]), file
    assert dated > 300


def test_every_time_field_is_null_or_iso_with_a_year(corpus_docs) -> None:
    """Done-when: every ``*time`` field of every corpus job's JSON is null or parses with ``fromisoformat``, with a
    real year (a year-less clock is null there, its clock in ``time_raw``)."""
    dated = 0
    for file, doc in corpus_docs:
        for path, t in _time_fields(doc):
            if t is None:
                continue
            assert isinstance(t, str) and datetime.fromisoformat(t).year > 1900, (file, path, t)
            dated += 1
    assert dated > 300


def test_no_scan_row_of_the_corpus_is_dated_1900(corpus_diagnoses) -> None:
    """Done-when: the scan row of every corpus job (``scan.rows.row_from_diagnosis``) validates against the scan-row
    schema, and its ``first_failure_time`` is null or carries the job's year."""
    from logsleuth.scan.jobs import Job
    from logsleuth.scan.rows import row_from_diagnosis

    timed = 0
    for file, d in corpus_diagnoses:
        p = CORPUS / file
        row = row_from_diagnosis(Job(file, (str(p),), p.stat().st_size, "", (str(p),)), d)
        assert errors("scan-row", json.loads(json.dumps(row))) == [], file
        t = row["first_failure_time"]
        if t is not None:
            assert datetime.fromisoformat(t).year > 1900, (file, t)
            timed += 1
    assert timed > 50  # not vacuous: 73 corpus jobs dated their first failure when written (others print no time)


def test_unknown_verdict_has_the_same_shape(rules) -> None:
    log = CORPUS / "logs/gh-carperai-trlx-340/gptj_summarize_ppo.log"  # rules alone abstain on it
    doc = json.loads(logsleuth.render(logsleuth.analyze([str(log)], rules=rules, model=False), "json"))
    assert doc["verdict"] == "unknown" and errors("diagnosis", doc) == []
    rc = doc["root_cause"]
    assert rc["method"] == "none" and rc["rule_id"] is None
    assert doc["first_failure"] is not None and doc["first_failure"]["line"] == doc["unexplained"][0]["line"]
    assert set(doc["ranks"]) == set(DiagnosisDoc.model_fields["ranks"].annotation.model_fields)
    assert all(set(e) == set(doc["evidence"][0]) for e in doc["evidence"])
    assert {"id", "rule_id", "role", "confidence"} <= set(doc["evidence"][0])


def test_yearless_clock_takes_the_file_year_else_null_with_raw_clock(tmp_path, rules) -> None:
    # the lines of a corpus log without a year-bearing date (torch glog clocks are year-less); the mtime sets the year
    src = CORPUS / "logs/gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log"
    log = tmp_path / "job.log"
    log.write_text("".join(ln for ln in src.read_text().splitlines(keepends=True) if not re.search(r"\d{4}-\d\d-\d\d", ln)))
    import os

    os.utime(log, (datetime(2023, 6, 1).timestamp(),) * 2)
    d = logsleuth.analyze([str(log)], rules=rules, model=False)
    times = [t for t in _times(json.loads(logsleuth.render(d, "json"))) if t]
    assert times and all(t.startswith("2023-") for t in times)
    from logsleuth.report import to_dict
    from logsleuth.types import Event

    raw = to_dict(d.__class__(verdict="unknown", root_cause="unknown", stats=d.stats,
                              unexplained=(Event(1, 1, "-", "x", time=datetime(1900, 11, 21, 16, 7, 22)),)))
    assert raw["unexplained"][0]["time"] is None and raw["unexplained"][0]["time_raw"] == "--11-21T16:07:22"


def test_same_path_twice_is_read_once(rules) -> None:
    log = str(CORPUS / "logs/gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log")
    once, twice = (logsleuth.analyze(p, rules=rules, model=False) for p in ([log], [log, log]))
    assert twice.stats["lines"] == once.stats["lines"] and twice.stats["paths"] == [log]


def test_report_and_verify_from_reject_a_document_that_breaks_the_schema(tmp_path) -> None:
    bad = tmp_path / "d.json"
    bad.write_text(json.dumps({"schema_version": 1, "verdict": "maybe"}))
    res = runner.invoke(app, ["report", str(bad), "-f", "text"])
    assert res.exit_code == 2 and "not a valid logsleuth diagnosis document" in res.output
    from logsleuth.errors import LogsleuthError
    from logsleuth.verify import hypotheses_from_json

    with pytest.raises(LogsleuthError, match="not a valid logsleuth diagnosis"):
        hypotheses_from_json(bad)


def test_scan_row_model_matches_the_table_columns() -> None:
    from logsleuth.scan.table import COLUMNS

    assert list(ScanRow.model_fields) == list(COLUMNS)


def test_render_compiles_templates_once(rules) -> None:
    from logsleuth import report

    d = logsleuth.analyze([str(CORPUS / "logs/gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log")],
                          rules=rules, model=False)
    logsleuth.render(d, "text")
    before = report._environment.cache_info().hits
    env = report._environment(None)
    logsleuth.render(d, "text")
    assert report._environment.cache_info().hits > before
    assert env.get_template("text.j2") is env.get_template("text.j2")  # compiled once, then cached


def test_scan_jsonl_rows_validate_and_carry_years(tmp_path) -> None:
    from logsleuth.scan import write_table

    df = logsleuth.scan([str(CORPUS / "logs/gen-torchrun-rank-raises")], jobs=1)
    out = tmp_path / "rows.jsonl"
    write_table(df, out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(df) == 4
    for row in rows:
        assert errors("scan-row", row) == [], row
        t = row["first_failure_time"]  # null when the failing line prints no time (a traceback)
        assert t is None or datetime.fromisoformat(t).year > 1900
