"""Patterns compiled on first use (``logsleuth/lazy_regex.py``): every one in the package compiles, behaves as the
compiled pattern, and importing the fact layer compiles none of them."""

import importlib
import pkgutil
import subprocess
import sys

import regex

import logsleuth
from logsleuth.lazy_regex import _Lazy, lazy


def _lazies(obj, depth=0):
    if isinstance(obj, _Lazy):
        yield obj
    elif isinstance(obj, tuple | list) and depth < 3:
        for o in obj:
            yield from _lazies(o, depth + 1)


def test_every_lazy_pattern_in_the_package_compiles() -> None:
    found = 0
    for info in pkgutil.walk_packages(logsleuth.__path__, "logsleuth."):
        if info.name.endswith("__main__"):  # runs the CLI
            continue
        mod = importlib.import_module(info.name)
        for value in vars(mod).values():
            for p in _lazies(value):
                assert isinstance(p.pattern, str) and p.groups >= 0  # ``groups`` compiles; regex.error otherwise
                found += 1
    assert found > 100  # the fact layer's, the version table's and NCCL's WARN templates


def test_lazy_pattern_matches_as_the_compiled_one() -> None:
    text = "a\n  pid: 5067\nWorker PID: 12"
    p, q = lazy(r"Worker PID: (?P<pid>\d+)|^\s*pid: (?P<pid>\d+)$", regex.M), regex.compile(
        r"Worker PID: (?P<pid>\d+)|^\s*pid: (?P<pid>\d+)$", regex.M
    )
    assert [m["pid"] for m in p.finditer(text)] == [m["pid"] for m in q.finditer(text)] == ["5067", "12"]
    assert p.search("x").__class__ is type(None) and p.sub("-", text) == q.sub("-", text)
    assert p.flags == q.flags and p.groupindex == q.groupindex and p.pattern == q.pattern


def test_a_malformed_pattern_fails_at_first_use() -> None:
    p = lazy(r"(unclosed")
    try:
        p.search("x")
    except regex.error:
        pass
    else:
        raise AssertionError("a malformed pattern compiled")


def test_importing_the_fact_layer_compiles_none_of_its_patterns() -> None:
    code = (
        "from logsleuth.factlayer import extract, nccl_source, reason\nfrom logsleuth import facts\n"
        "from logsleuth.lazy_regex import _Lazy\n"
        "mods = (extract, nccl_source, reason, facts)\n"
        "ps = [p for m in mods for v in vars(m).values() for p in (v if isinstance(v, tuple) else (v,))]\n"
        "ps = [q for p in ps for q in (p if isinstance(p, tuple) else (p,)) if isinstance(q, _Lazy)]\n"
        "print(len(ps), sum('search' in vars(p) for p in ps))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    total, compiled = map(int, out.stdout.split())
    assert total > 100 and compiled == 0
