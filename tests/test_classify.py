"""The classifier: training on real corpus logs, safe loading, the rules+model policy, eval and --explain."""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logsleuth import analyze
from logsleuth import combine as comb
from logsleuth.classify import features, model
from logsleuth.classify.ablate import ablate_job
from logsleuth.classify.evaluate import evaluate, evaluate_settings, to_json
from logsleuth.classify.train import train
from logsleuth.cli import app
from logsleuth.errors import ModelError
from logsleuth.pipeline import collect, decide
from logsleuth.taxonomy import ROOT_CAUSES
from tests.conftest import CORPUS, ROOT, manifest_rows

# a subset of real labels, enough logs each to learn and calibrate; one real log is held out of training
LABELS = {"collective_timeout", "cuda_oom", "port_in_use", "shm_exhausted", "duplicate_gpu", "no_failure",
          "ray_scheduling_stall", "rendezvous_timeout", "worker_exception"}
HELD_OUT = "logs/gh-verl-project-verl-1309/critic_init_model_16xh20.log"  # a collective_timeout thread
# At most this many groups (a thread's or a generator's directory) per label, drawn by a hash of their names (``_rows``):
# enough to learn and calibrate each label, and a model fitted in seconds however large the corpus grows
# (uncapped, this subset was half the corpus: 1574 logs at 3132, and its three cross-validations took 12 min of CI).
# The model's figures on the whole corpus are test_eval_on_the_whole_corpus_holds_the_issue_bars's business.
MAX_GROUPS_PER_LABEL = 40
runner = CliRunner()


def _rows() -> list[dict[str, str]]:
    rows = [r for r in manifest_rows() if r["label"] in LABELS and (CORPUS / r["file"]).exists()]
    groups: dict[str, list[str]] = {}
    for r in rows:
        groups.setdefault(r["label"], []).append(features.group_of(r["file"]))
    kept = set()
    for label, names in groups.items():
        # the groups whose names hash lowest: a fixed pseudo-random draw that a new wave's groups join only where they
        # hash lower, instead of every step-th group in name order, which one new wave reshuffled for every label
        names = sorted(set(names), key=lambda g: hashlib.sha256(g.encode()).hexdigest())
        kept |= {(label, g) for g in names[:MAX_GROUPS_PER_LABEL]}
    return [r for r in rows if (r["label"], features.group_of(r["file"])) in kept]


def _copy_corpus(dest: Path, rows: list[dict[str, str]]) -> Path:
    for r in rows:
        src, dst = CORPUS / r["file"], dest / r["file"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    with open(dest / "manifest.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["file", "label", "source", "notes"])
        w.writeheader()
        w.writerows({k: r.get(k, "") for k in ("file", "label", "source", "notes")} for r in rows)
    return dest


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory):
    """A real subset of the corpus (held-out thread excluded), and a model trained on it into a temp dir."""
    held_group = features.group_of(HELD_OUT)
    rows = [r for r in _rows() if features.group_of(r["file"]) != held_group]
    corpus = _copy_corpus(tmp_path_factory.mktemp("corpus"), rows)
    out = tmp_path_factory.mktemp("model")
    res = train(corpus, out)
    return corpus, out, res


@pytest.fixture(scope="module")
def clf(small):
    return model.load(small[1])


def test_train_writes_skops_and_sidecar(small) -> None:
    corpus, out, res = small
    assert res.model_path == out / "model.skops" and res.sidecar_path == out / "model.json"
    meta = json.loads(res.sidecar_path.read_text())
    rows = features.read_manifest(corpus)
    assert meta["training_data"]["files"] == len(rows)
    assert meta["training_data"]["sha256"] == features.corpus_sha256(corpus, rows)
    assert set(meta["labels"]) <= LABELS and "collective_timeout" in meta["labels"]
    assert {"scikit-learn", "skops", "numpy", "scipy", "logsleuth", "python"} <= set(meta["versions"])
    assert meta["model_sha256"] == model.sha256_file(res.model_path)
    assert res.seconds < 120


def test_model_holds_only_trusted_types(small, clf) -> None:
    import skops.io as sio

    untrusted = sio.get_untrusted_types(file=small[1] / "model.skops")
    assert set(untrusted) <= set(model.TRUSTED_TYPES)
    assert clf.labels == json.loads((small[1] / "model.json").read_text())["labels"]
    with open(small[1] / "model.skops", "rb") as f:
        assert f.read(2) == b"PK"  # a skops zip, not a pickle stream


def test_untrusted_type_is_refused(small, tmp_path: Path) -> None:
    import skops.io as sio
    from sklearn.preprocessing import FunctionTransformer

    shutil.copy2(small[1] / "model.json", tmp_path / "model.json")
    # a transformer holding an arbitrary callable: the classic code-execution vector of pickled models
    sio.dump(FunctionTransformer(func=shutil.rmtree), tmp_path / "model.skops")
    meta = json.loads((tmp_path / "model.json").read_text())
    meta["model_sha256"] = model.sha256_file(tmp_path / "model.skops")
    (tmp_path / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="untrusted types"):
        model.load(tmp_path)


def test_tampered_model_is_refused(small, tmp_path: Path) -> None:
    shutil.copy2(small[1] / "model.json", tmp_path / "model.json")
    data = bytearray((small[1] / "model.skops").read_bytes())
    data[-100] ^= 0xFF
    (tmp_path / "model.skops").write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256"):
        model.load(tmp_path)


def test_shipped_model_loads_with_trusted_types() -> None:
    import skops.io as sio

    path = model.MODEL_DIR / model.MODEL_FILE
    if not path.exists():
        pytest.skip("no model shipped (run 'logsleuth train')")
    assert set(sio.get_untrusted_types(file=path)) <= set(model.TRUSTED_TYPES)
    shipped = model.load()
    meta = shipped.meta
    assert set(shipped.labels) <= set(ROOT_CAUSES) | {"no_failure"}
    assert meta["training_data"]["files"] >= 40 and len(meta["training_data"]["sha256"]) == 64


def test_decisive_line_deleted_model_still_names_the_cause(clf, rules, tmp_path: Path) -> None:
    """The held-out log's watchdog line (what the rule keys on) is deleted: the rules abstain, the model (never
    trained on this thread) names collective_timeout from the lines that remain."""
    evidence, diag = features.collect([str(CORPUS / HELD_OUT)], rules)
    assert diag.root_cause == "collective_timeout" and diag.method == "rule"
    sample = features.Sample(features.CorpusRow(HELD_OUT, "collective_timeout", "", "x"), CORPUS / HELD_OUT,
                             evidence, diag)
    decisive = features.decisive_matches(diag)
    assert decisive
    paths = ablate_job(sample, tmp_path, rules)
    kept = Path(paths[0]).read_text().splitlines()
    gone = {n for m in decisive for n in rules.matched_lines(m)}
    assert gone and len(kept) == len((CORPUS / HELD_OUT).read_text().splitlines()) - len(gone)
    rules_only = analyze(paths, rules=rules, model=False)
    assert rules_only.root_cause != "collective_timeout"
    d = decide(collect(paths, rules), rules, clf)
    assert d.root_cause == "collective_timeout"
    assert d.verdict == "failure" and d.method == "model"
    assert d.first_failure is not None and d.evidence and d.fix.summary
    assert d.hypotheses[0].method == "model"


# Healthy logs the product still flags, each a known miss reported in docs/history.md ("Fresh batches") and in the issue's note:
# kept here so the check below holds for every other healthy log, and fails the day one of these is read right (then
# delete it from the list). None since the session of wave BR: the last, wave AY's `fabric run` launched again by a
# shell loop after a port clash, is read healthy (``recovered._trained_only_after``; tests/test_fact_launch_retry.py),
# as six before it were (tests/test_runs_that_went_on.py).
KNOWN_FLAGGED: frozenset[str] = frozenset()


def _known_fp_rate(corpus: Path = CORPUS) -> float:
    """The ``no_failure`` false-positive rate the ``KNOWN_FLAGGED`` logs alone make in ``corpus`` (the whole corpus,
    or a test's subset of it): eval may flag those, no other."""
    healthy = [r.file for r in features.read_manifest(corpus) if r.label == "no_failure"]
    rate = len(KNOWN_FLAGGED.intersection(healthy)) / len(healthy)
    return max(rate, round(rate, 4)) + 1e-9  # eval's JSON gives rates to 4 decimals


def test_no_failure_logs_stay_no_failure(clf, rules) -> None:
    healthy = [r for r in manifest_rows() if r["label"] == "no_failure" and (CORPUS / r["file"]).exists()]
    assert healthy
    for r in healthy:
        d = decide(collect([str(CORPUS / r["file"])], rules), rules, clf)
        if r["file"] in KNOWN_FLAGGED:
            assert d.verdict != "no_failure", f"{r['file']} is read healthy now: remove it from KNOWN_FLAGGED"
        else:
            assert d.verdict == "no_failure", r["file"]
    assert KNOWN_FLAGGED <= {r["file"] for r in healthy}


def test_policy_model_needs_a_high_bar_to_turn_a_clean_log_into_a_failure(rules) -> None:
    r = next(r for r in manifest_rows() if r["label"] == "no_failure" and (CORPUS / r["file"]).exists())
    d = analyze([str(CORPUS / r["file"])], rules=rules, model=False)
    assert d.verdict == "no_failure"
    # (a host cause: a GPU cause also needs the log to name a GPU, ``combine.NEEDS_GPU``)
    unsure = model.Vote("host_oom_killed", comb.NO_FAILURE_OVERRIDE - 0.01, (("host_oom_killed", 0.79),), 0.5)
    out = comb.combine(d, lambda: unsure, rules)
    assert out.verdict == "no_failure" and out.root_cause == "no_failure"
    assert any(h.root_cause == "host_oom_killed" and h.method == "model" for h in out.hypotheses) or not out.hypotheses
    healthy = model.Vote("no_failure", 0.99, (("no_failure", 0.99),), 0.5)
    assert comb.combine(d, lambda: healthy, rules).verdict == "no_failure"
    sure = model.Vote("host_oom_killed", 0.95, (("host_oom_killed", 0.95),), 0.5)
    out = comb.combine(d, lambda: sure, rules)
    assert out.verdict == "failure" and out.root_cause == "host_oom_killed" and out.method == "model"
    assert out.fix.summary


def test_policy_model_never_overrules_every_process_exiting_cleanly(rules) -> None:
    # wave AQ (Optuna): trials raised ValueError, caught by study.optimize(catch=...); both workers exited 0
    log = CORPUS / "logs/run-waveaq-b-launch-pm25-healthy-new-station/job.log"
    d = analyze([str(log)], rules=rules, model=False)
    assert (d.verdict, d.rule_id) == ("no_failure", "all-exited-cleanly")
    sure = model.Vote("worker_exception", 0.99, (("worker_exception", 0.99),), 0.5)
    out = comb.combine(d, lambda: sure, rules)
    assert out.verdict == "no_failure" and out.root_cause == "no_failure"


def test_policy_symptom_only_answer_stands_against_a_sure_model(rules) -> None:
    log = CORPUS / "logs/gen-torchrun-rank-raises/ws2_rank1_valueerror/job.log"
    d = analyze([str(log)], rules=rules, model=False)
    assert d.root_cause == "worker_exception"
    # the same job seen only through a peer's symptom: drop every cause match
    sym = [m for m in d.symptoms if m.role == "symptom" and m.root_cause != d.root_cause]
    assert sym
    only = dataclasses.replace(d, evidence=tuple(sym), symptoms=(), root_cause=sym[0].root_cause,
                               rule_id=sym[0].rule_id, confidence=0.56)
    # cross-validation: a sure model overriding a symptom-only answer won no log on the 1709 logs of waves up to AC
    # and lost vllm-project/vllm#7896 (an "unhandled cuda error" a fold model read as a P2P fault at >= 0.97)
    sure = model.Vote("worker_exception", 0.99, (("worker_exception", 0.99),), 0.5)
    out = comb.combine(only, lambda: sure, rules)
    assert out.root_cause == only.root_cause and out.method != "model"
    assert any(h.root_cause == "worker_exception" for h in out.hypotheses)
    # the model naming the same cause still corroborates it
    same = model.Vote(only.root_cause, 0.9, ((only.root_cause, 0.9),), 0.5)
    assert comb.combine(only, lambda: same, rules).method == "rule+model"


def test_policy_advisory_line_alone_never_turns_a_clean_log_failed(rules) -> None:
    """anhvth/opensloth#17: a healthy two-rank run whose only lines are torch's exit warning "destroy_process_group()
    was not called" (printed by failed runs too, so a model learns it beside their causes): a sure vote resting on
    that line alone leaves the log clean; the same vote resting on another line still decides."""
    log = CORPUS / "logs/gh-anhvth-opensloth-17/two_gpu_exit.log"
    ev = collect([str(log)], rules)
    d = decide(ev, rules)
    assert d.verdict == "no_failure"
    advisory = [line for line in features.doc_lines(ev.notable, ev.tail) if "destroy_process_group" in line.text]
    assert advisory
    on_advisory = model.Vote("cuda_oom", 0.98, (("cuda_oom", 0.98),), 0.5, tuple((1.0, x) for x in advisory))
    assert comb.combine(d, lambda: on_advisory, rules).verdict == "no_failure"
    other = CORPUS / "logs/gh-ray-project-ray-11179/fractional_cpu_actors.log"
    ev2 = collect([str(other)], rules)
    lines = tuple((1.0, x) for x in features.doc_lines(ev2.notable, ev2.tail))
    assert lines
    d2 = decide(ev2, rules)
    assert d2.verdict == "no_failure"
    stall = model.Vote("ray_scheduling_stall", 0.98, (("ray_scheduling_stall", 0.98),), 0.5, lines)
    assert comb.combine(d2, lambda: stall, rules).root_cause == "ray_scheduling_stall"


def test_policy_decisive_rule_is_final_and_weak_rule_is_corroborated(rules) -> None:
    strong = analyze([str(CORPUS / HELD_OUT)], rules=rules, model=False)
    assert comb.rule_decides(strong)
    other = model.Vote("cuda_oom", 0.99, (("cuda_oom", 0.99),), 0.5)
    assert comb.combine(strong, lambda: other, rules) is strong
    weak = dataclasses.replace(strong, confidence=0.6, severity="medium")
    agree = model.Vote("collective_timeout", 0.7, (("collective_timeout", 0.7),), 0.5)
    out = comb.combine(weak, lambda: agree, rules)
    assert out.method == "rule+model" and out.root_cause == "collective_timeout"
    assert out.confidence == pytest.approx(1 - 0.4 * 0.3, abs=1e-3)
    out = comb.combine(weak, lambda: other, rules)  # a rule's answer is not overruled; the vote is listed
    assert out.root_cause == "collective_timeout" and out.method == "rule"
    assert ("cuda_oom", "model") in [(h.root_cause, h.method) for h in out.hypotheses]
    unsure = model.Vote("cuda_oom", 0.3, (("cuda_oom", 0.3),), 0.5)
    abstained = dataclasses.replace(weak, verdict="unknown", root_cause="unknown", confidence=0.3)
    assert comb.combine(abstained, lambda: unsure, rules).verdict == "unknown"


def test_no_model_flag_never_loads_a_model(small, rules, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    # an error no rule reads (a bare "SomeError: ..." line is an uncaught exception now: worker_exception)
    log.write_text("ERROR: something nobody has a rule for\n")

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("model loaded")

    monkeypatch.setattr(model, "default", boom)
    res = runner.invoke(app, ["analyze", str(log), "--no-model", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["root_cause"]["method"] == "none"  # unknown: nothing decided


def test_analyze_explain_shows_lines_and_features(clf, monkeypatch: pytest.MonkeyPatch) -> None:
    log = str(CORPUS / HELD_OUT)
    monkeypatch.setattr(model, "default", lambda: clf)  # analyze loads the shipped model through model.default
    res = runner.invoke(app, ["analyze", log, "--explain", "-f", "json"])
    text = runner.invoke(app, ["analyze", log, "--explain"])
    md = runner.invoke(app, ["analyze", log, "--explain", "-f", "markdown"])
    plain = runner.invoke(app, ["analyze", log])
    assert res.exit_code == 0, res.output
    x = json.loads(res.output)["stats"]["explain"]
    assert x["model_label"] in clf.labels and 0 <= x["model_probability"] <= 1
    assert x["lines"] and all(l["path"] == log and l["line"] >= 1 for l in x["lines"])
    assert x["features"] and all(f["feature"].startswith(("tpl__", "txt__", "rul__")) for f in x["features"])
    assert x["decided_by"] == "rules"  # a decisive rule: the vote is shown, not used
    assert "Classifier vote" in text.output and x["lines"][0]["text"][:60] in text.output
    assert "Classifier vote" in md.output and "| score |" in md.output
    assert "Classifier vote" not in plain.output


@pytest.mark.slow  # grouped cross-validation on the capped subset: CI runs it; -m 'not slow' skips it locally
def test_eval_json_has_the_contract_keys(small) -> None:
    corpus = small[0]
    res = runner.invoke(app, ["eval", str(corpus), "--json", "--folds", "3"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"rules", "model", "combined"}
    n = len(features.read_manifest(corpus))
    for m in data.values():
        assert {"accuracy", "macro_f1", "per_class", "abstain_rate", "n"} <= set(m)
        assert m["n"] == n and 0 <= m["accuracy"] <= 1 and 0 <= m["abstain_rate"] <= 1
        assert all({"precision", "recall", "support"} <= set(v) for v in m["per_class"].values())
    assert data["combined"]["no_failure_fp_rate"] <= _known_fp_rate(corpus)
    # the combination never names a different cause than a rule that answered
    assert data["combined"]["accuracy"] >= data["rules"]["accuracy"]


@pytest.mark.slow  # grouped cross-validation on the capped subset: CI runs it; -m 'not slow' skips it locally
def test_eval_drop_rule_lines_text_report(small, rules) -> None:
    res = evaluate(small[0], folds=3, drop_rule_lines=True, rules=rules)
    assert res.drop_rule_lines and res.ablated_of > 0
    # both settings from one set of fold models, fitted two at a time, give what each setting gives alone; the worker
    # pool is gone when it returns (a thread left behind would make this process unsafe to fork from: scan's workers)
    threads = threading.active_count()
    both = evaluate_settings(small[0], settings=(True, False), folds=3, rules=rules, jobs=2)
    assert threading.active_count() == threads
    assert to_json(both[0]) == to_json(res)
    assert to_json(both[1]) == to_json(evaluate(small[0], folds=3, rules=rules))
    assert res.scores["combined"]["n"] == res.ablated_of
    # deleting the decisive lines defeats the rules; the model recovers part of what they lose
    assert res.scores["rules"]["accuracy"] < 0.5
    assert res.scores["combined"]["accuracy"] > res.scores["rules"]["accuracy"]
    assert to_json(res)["combined"]["setting"] == "drop_rule_lines"
    # the breakdown by events left partitions the ablated logs; an emptied log is a miss for every system
    ctx = to_json(res)["combined"]["by_context"]
    assert sum(b["n"] for b in ctx.values()) == res.ablated_of
    assert ctx["empty"]["n"] == res.emptied and ctx["empty"]["accuracy"] in (None, 0.0)
    text = runner.invoke(app, ["eval", str(small[0]), "--drop-rule-lines", "--folds", "3"])
    assert text.exit_code == 0, text.output
    assert "rules" in text.stdout and "Confusion matrix" in text.stdout and "became empty" in text.stdout
    assert "by distinct events left" in text.stdout


@pytest.mark.slow  # grouped cross-validation (leave one ecosystem out): ~20 s on 2 cores
def test_eval_leave_one_ecosystem_out(small, tmp_path: Path) -> None:
    """``--group-by ecosystem``: each ecosystem is scored by a model that never saw it; figures per ecosystem."""
    corpus = small[0]
    rows = list(csv.DictReader(open(corpus / "manifest.csv", encoding="utf-8")))
    for r in rows:  # the source project family, as the manifest's ecosystem column names it
        r["ecosystem"] = "ray" if "ray" in r["file"] else "torchrun" if "torchrun" in r["file"] else "threads"
    for r in rows:
        dst = tmp_path / r["file"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        src = corpus / r["file"]
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    with open(tmp_path / "manifest.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["file", "label", "source", "notes", "ecosystem"])
        w.writeheader()
        w.writerows(rows)
    res = runner.invoke(app, ["eval", str(tmp_path), "--group-by", "ecosystem", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    ecos = {r["ecosystem"] for r in rows}
    for m in data.values():
        assert m["group_by"] == "ecosystem" and m["groups"] == len(ecos) == m["folds"]
        assert set(m["by_ecosystem"]) == ecos
        assert sum(v["n"] for v in m["by_ecosystem"].values()) == len(rows)
    text = runner.invoke(app, ["eval", str(tmp_path), "--group-by", "ecosystem"])
    assert "Leave-one-ecosystem-out" in text.stdout and "by ecosystem" in text.stdout


def test_eval_bad_corpus_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "manifest.csv").write_text("file,label\nlogs/missing.log,cuda_oom\n")
    res = runner.invoke(app, ["eval", str(tmp_path)])
    assert res.exit_code == 2
    assert "does not exist" in res.output and "Traceback" not in res.output


def test_analyze_does_not_import_training_code() -> None:
    code = ("import sys, logsleuth.cli as c; from typer.testing import CliRunner; "
            f"r = CliRunner().invoke(c.app, ['analyze', {str(CORPUS / HELD_OUT)!r}, '-f', 'json']); "
            "assert r.exit_code == 0, r.output; "
            "print(sorted(m for m in sys.modules if m.startswith('logsleuth.classify')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "logsleuth.classify.train" not in out.stdout and "logsleuth.classify.evaluate" not in out.stdout


def test_numpy_scorer_equals_the_sklearn_pipeline(small, clf, rules) -> None:
    """The fast path ``analyze`` uses (``model.scorer.npz``, no scikit-learn import) gives the pipeline's own
    probabilities on every log of the training corpus and on a held-out thread."""
    import numpy as np

    from logsleuth.classify.ablate import add_ablations

    samples = features.load_corpus(small[0], rules)
    add_ablations(samples, rules)
    rows = [features.document(s.lines, features.rule_tokens(s.diagnosis)) for s in samples]
    rows += [features.document(s.ablated.lines, features.rule_tokens(s.ablated.diagnosis))
             for s in samples if s.ablated is not None and not s.ablated.emptied]
    evidence, diag = features.collect([str(CORPUS / HELD_OUT)], rules)
    rows.append(features.row_for(evidence.notable, evidence.tail, diag))
    fast = model.load_fast(small[1])
    assert fast.pipeline is None and fast.labels == clf.labels
    want = clf.pipeline.predict_proba(np.asarray(rows, dtype=object))
    got = fast.predict_proba(rows)
    assert got.shape == want.shape and np.abs(got - want).max() < 1e-6


def test_tampered_scorer_is_refused(small, tmp_path: Path) -> None:
    d = tmp_path / "m"
    shutil.copytree(small[1], d)
    data = bytearray((d / model.SCORER_FILE).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (d / model.SCORER_FILE).write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256"):
        model.load_fast(d)


def test_analyze_with_the_model_imports_neither_sklearn_nor_skops() -> None:
    code = ("import sys; from logsleuth import analyze; "
            f"d = analyze([{str(CORPUS / 'logs/gen-torchrun-healthy/ws2_standalone/job.log')!r}]); "
            "from logsleuth.classify import model; assert model._default.get('model') is not None; "
            "print(sorted(m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('sklearn', 'skops', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.slow  # the whole corpus's 5-fold cross-validation: CI runs it; -m 'not slow' skips it locally
def test_eval_on_the_whole_corpus_holds_the_issue_bars(rules) -> None:
    """Grouped CV on the real corpus: combined is at least as good as rules alone overall and for every class's
    recall, never calls a healthy log failed, and in the ablation names more causes than the rules do."""
    # one cross-validation scored both ways (the fold models are the same), its folds fitted on every CPU
    full_res, ablated_res = evaluate_settings(CORPUS, settings=(False, True), rules=rules, jobs=os.cpu_count() or 1)
    full = full_res.scores
    r, c = full["rules"], full["combined"]
    assert c["accuracy"] >= r["accuracy"]
    # macro-F1 within 0.001: where the rules abstain, the model's confident wrong guesses cost a small class's precision
    # (on the 1752 logs of waves up to AD: 8 of its 14 decisions there right, the 6 wrong ones at p >= 0.8; combined
    # 0.9397 against rules 0.9399, accuracy 0.9515 against 0.9452; raising the bar for those decisions to 0.6-0.8, or
    # asking for a trouble line under the vote, changed none of them)
    assert c["macro_f1"] >= r["macro_f1"] - 0.001
    assert c["no_failure_fp_rate"] <= _known_fp_rate()
    for label, pc in r["per_class"].items():
        assert c["per_class"][label]["recall"] >= pc["recall"], label
    assert set(c["by_split"]) >= {"dev", "heldout"}
    assert c["by_split"]["dev"]["accuracy"] == 1.0  # the rules decide every dev log the same way with the model on
    ablated = ablated_res.scores
    assert ablated_res.drop_rule_lines and not full_res.drop_rule_lines
    assert ablated["combined"]["accuracy"] > ablated["rules"]["accuracy"]
