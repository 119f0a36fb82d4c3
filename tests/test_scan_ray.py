"""``scan(engine="ray")`` against a real local Ray cluster (2 CPUs): the same table as local processes."""
from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from logsleuth.scan import scan
from tests.conftest import CORPUS, manifest_rows

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_engine_gives_the_same_table_as_local_processes(local_cluster, rules, tmp_path, monkeypatch) -> None:
    bad = tmp_path / "bad" / "train.log.gz"
    bad.parent.mkdir()
    bad.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    for r in manifest_rows():  # a snapshot: the corpus may be regenerated while the test runs
        src = CORPUS / r["file"]
        if src.is_dir():
            shutil.copytree(src, tmp_path / "corpus" / r["file"])
        elif src.exists():
            (tmp_path / "corpus" / r["file"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, tmp_path / "corpus" / r["file"])
    monkeypatch.chdir(tmp_path)  # relative paths: Ray's workers run elsewhere, the table must not show it
    paths = ["corpus", "bad"]
    local = scan(paths, group_by="file", jobs=2, rules=rules)
    on_ray = scan(paths, group_by="file", engine="ray", rules=rules)
    assert len(on_ray) == len(local) > 40
    pd.testing.assert_frame_equal(on_ray.drop(columns="seconds"), local.drop(columns="seconds"))
    row = on_ray.set_index("job").loc[os.path.join("bad", "train.log.gz")]
    assert "bad/train.log.gz" in row["error"] and str(tmp_path) not in row["error"]  # a bad file: an error row
    assert ray.cluster_resources().get("CPU") == 2.0
