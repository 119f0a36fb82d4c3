"""Redaction of secrets (and optionally hosts/IPs) in report data, on by default in every format.

Token shapes from the issuers' docs: Hugging Face ``hf_...``, OpenAI ``sk-...``, AWS access key ids ``AKIA...``/``ASIA...``,
GitHub ``ghp_/gho_/ghu_/ghs_/ghr_...`` and ``github_pat_...``, W&B 40-hex API keys after ``WANDB_API_KEY``, Slack
``xox[abpr]-``, bearer headers, passwords inside URLs, and ``key=value`` pairs whose key names a secret.
"""
from __future__ import annotations

from typing import Any

import regex

MASK = "[REDACTED]"
_SECRETS: tuple[tuple[regex.Pattern[str], str], ...] = (
    (regex.compile(r"(?<=://[^/\s:@]{1,256}:)[^@\s/]{1,256}(?=@)"), MASK),
    (regex.compile(r"(?i:\b(?:authorization:\s*)?bearer)\s+[A-Za-z0-9._~+/=-]{8,}"), f"Bearer {MASK}"),
    (regex.compile(r"\bhf_[A-Za-z0-9]{20,}"), MASK),
    (regex.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"), MASK),
    (regex.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (regex.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"), MASK),
    (regex.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}"), MASK),
    (regex.compile(r"(?i:\b((?:[A-Z0-9_]*_)?(?:API_?KEY|TOKEN|SECRET(?:_ACCESS_KEY)?|PASSWORD|PASSWD|PWD)"
                   r"[\"']?\s*[=:]\s*[\"']?))(?!\[REDACTED)[^\s\"',;]{4,}"), rf"\g<1>{MASK}"),
)
_IPV4 = regex.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])")


def redact_text(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED]``."""
    for pattern, repl in _SECRETS:
        text = pattern.sub(repl, text)
    return text


class HostMap:
    """Consistent replacement of host names and IPs by ``node-1``, ``node-2``... across one report."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def alias(self, host: str) -> str:
        if host not in self.names:
            self.names[host] = f"node-{len(self.names) + 1}"
        return self.names[host]

    def add(self, host: str | None) -> None:
        if host:
            self.alias(host)

    def apply(self, text: str) -> str:
        for host in sorted(self.names, key=len, reverse=True):
            text = text.replace(host, self.names[host])
        return _IPV4.sub(lambda m: self.alias(m.group()), text)


def redact(data: Any, hosts: HostMap | None = None, secrets: bool = True) -> Any:
    """Deep copy of JSON-like ``data`` with secrets (and, given ``hosts``, host names/IPs) replaced in every string."""
    if isinstance(data, str):
        out = redact_text(data) if secrets else data
        return hosts.apply(out) if hosts is not None else out
    if isinstance(data, dict):
        return {k: redact(v, hosts, secrets) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact(v, hosts, secrets) for v in data]
    return data
