"""Shared fixtures: the repository paths and the loaded rules (loaded once per session)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from logsleuth import load_rules

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


def manifest_rows() -> list[dict[str, str]]:
    """Rows of corpus/manifest.csv (file, label, source, notes)."""
    with open(CORPUS / "manifest.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="session")
def rules():
    return load_rules()
