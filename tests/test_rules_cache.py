"""Rules start from a compiled cache (JSON under the user cache dir) without changing what they do."""
from __future__ import annotations

from logsleuth import analyze
from logsleuth.errors import RuleError
from logsleuth.rules.engine import _load_rules, builtin_rules_dir
from logsleuth.rules.schema import RuleSpec
from logsleuth.rules.specview import SpecView
from tests.conftest import CORPUS, manifest_rows


def test_a_cached_rule_set_is_the_parsed_one(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    parsed = _load_rules([builtin_rules_dir()])
    assert isinstance(parsed.rules[0].spec, RuleSpec) and list(tmp_path.glob("rules-*.json"))
    cached = _load_rules([builtin_rules_dir()])
    assert isinstance(cached.rules[0].spec, SpecView)
    assert cached.fingerprint() == parsed.fingerprint()
    assert [r.spec.model_dump(mode="json") for r in cached.rules] == [r.spec.model_dump(mode="json") for r in parsed.rules]
    path = str(CORPUS / manifest_rows()[0]["file"])
    a, b = analyze([path], rules=parsed, model=False), analyze([path], rules=cached, model=False)
    assert (a.root_cause, a.rule_id, a.fix) == (b.root_cause, b.rule_id, b.fix)


def test_a_corrupt_cache_is_parsed_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    _load_rules([builtin_rules_dir()])
    for f in tmp_path.glob("rules-*.json"):
        f.write_text('[{"path": 1}')
    assert isinstance(_load_rules([builtin_rules_dir()]).rules[0].spec, RuleSpec)


def test_a_changed_rule_file_is_not_taken_from_the_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path / "cache"))
    rules = tmp_path / "rules"
    rules.mkdir()
    src = next(builtin_rules_dir().rglob("*.yaml"))
    (rules / src.name).write_text(src.read_text())
    _load_rules([rules])
    (rules / src.name).write_text(src.read_text() + "id: again\n")  # a duplicate key: libyaml path still refuses it
    try:
        _load_rules([rules])
    except RuleError as exc:
        assert "duplicate key 'id'" in str(exc) and f"{src.name}:" in (exc.source or "")
    else:
        raise AssertionError("the edited rule file was taken from the cache")
