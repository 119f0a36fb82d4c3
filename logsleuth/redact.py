"""Everything logsleuth writes out passes through here: secret redaction, host/IP aliasing, control characters.

One module so that every output (reports in every format, ``--explain``, scan tables and the scan cache) redacts
the same things. Redaction runs on output text (a report, a table row), never on every input line.

Secrets are found two ways, and both are replaced by ``[REDACTED]``:

- logsleuth's own patterns, for the shapes ML jobs print: Hugging Face ``hf_...``, OpenAI ``sk-...``, AWS key ids
  ``AKIA...``/``ASIA...``, GitHub ``ghp_...``/``github_pat_...``, Slack ``xox?-``, bearer headers, passwords inside
  URLs, ``key=value`` / ``'Key': 'value'`` pairs whose key names a secret (``WANDB_API_KEY=``, boto's
  ``'SecretAccessKey': '...'``), ``--password X``-style flags, ``wandb login <key>``, netrc ``login U password P``
  and bare JSON Web Tokens (``eyJ...``);
- the plugins of the maintained ``detect-secrets`` project (Yelp): provider key formats (Stripe, Twilio, Azure,
  private-key headers...), its keyword detector, and its Shannon-entropy detectors for quoted base64/hex strings
  (limits 4.5 and 3.0 bits per character, detect-secrets' defaults). Its public-IPv4 plugin is left out: hosts are
  aliased only with ``--redact-hosts``.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from typing import Any

import regex

MASK = "[REDACTED]"
_NOT_MASKED = r"(?!\[REDACTED)"
# key names that hold a secret, as the whole key or its last word: API_KEY, hf_token, SecretAccessKey, db-password
_SECRET_KEY = (
    r"(?:api[_-]?key|token|secret(?:[_-]?access)?[_-]?key|secret|access[_-]?key|passw(?:or)?d|pwd|credentials?)"
)
_SECRETS: tuple[tuple[regex.Pattern[str], str], ...] = (
    (regex.compile(r"(?<=://[^/\s:@]{1,256}:)[^@\s/]{1,256}(?=@)"), MASK),
    (regex.compile(r"(?i:\b(?:authorization:\s*)?bearer)\s+[A-Za-z0-9._~+/=-]{8,}"), f"Bearer {MASK}"),
    (regex.compile(r"\bhf_[A-Za-z0-9]{20,}"), MASK),
    (regex.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"), MASK),
    (regex.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (regex.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"), MASK),
    (regex.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}"), MASK),
    # JSON Web Token: base64url header and payload both start with '{"' -> 'eyJ'
    (regex.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), MASK),
    # key=value, key: value, 'Key': 'value', "key" = "value" (JSON, boto, env dumps, argparse Namespace reprs)
    (
        regex.compile(rf"(?i:\b([\w-]*{_SECRET_KEY})([\"']?\s*[=:]\s*[\"']?)){_NOT_MASKED}[^\s\"',;}}\)]{{4,}}"),
        rf"\g<1>\g<2>{MASK}",
    ),
    # --password X / --hf-token=X / --api-key X on a command line
    (regex.compile(rf"(?i:(--[\w-]*{_SECRET_KEY})(=|\s+)){_NOT_MASKED}(?!-)[^\s\"',;]+"), rf"\g<1>\g<2>{MASK}"),
    # `wandb login <key>` (wandb/cli/cli.py), with or without --relogin/--host
    (
        regex.compile(rf"(?i:\b(wandb\s+login\s+(?:--[\w-]+(?:[= ]\S+)?\s+)*)){_NOT_MASKED}[A-Za-z0-9_-]{{20,}}"),
        rf"\g<1>{MASK}",
    ),
    # netrc: machine H login U password P (also `password P` where P looks like a token: long, with a digit)
    (regex.compile(rf"(?i:\b(login\s+\S+\s+password\s+)){_NOT_MASKED}\S+"), rf"\g<1>{MASK}"),
    (regex.compile(rf"(?i:\b(password\s+)){_NOT_MASKED}(?=[^\s]*\d)[^\s\"',;]{{8,}}"), rf"\g<1>{MASK}"),
)
# characters that reach a terminal or a pasted ticket as control: C0 (but \t \n), DEL, C1 (incl. the 8-bit CSI)
_CONTROLS = regex.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# which lines are worth the detect-secrets plugins (they cost ~100 us a line): a token-like run of 16+ characters
# or a private-key header for the format plugins, a secret-ish word for its keyword plugin
_CANDIDATE = regex.compile(r"[A-Za-z0-9+=_-]{16,}|PRIVATE KEY")
_KEYWORDY = regex.compile(r"(?i:key|pass|pwd|secret|contrase)")


def _plugin_hits(line: str) -> Iterable[str]:
    """Secret values the detect-secrets plugins find in one line (entropy plugins apply their limit here, as
    detect-secrets' ``HighEntropyStringsPlugin.analyze_line`` does). The package is imported only when
    ``secret_plugins.gates`` says a plugin may find something in the line."""
    from .secret_plugins import KEYWORD, gates, plugins

    format_gate, keyword_gate = gates()
    formats = _CANDIDATE.search(line) is not None and format_gate(line)
    keywords = _KEYWORDY.search(line) is not None and keyword_gate(line)
    if not formats and not keywords:
        return
    for plugin in plugins():
        if not (keywords if type(plugin).__name__ == KEYWORD else formats):
            continue
        limit = getattr(plugin, "entropy_limit", None)
        for value in plugin.analyze_string(line):
            if not value or MASK in value:
                continue
            if limit is not None and plugin.calculate_shannon_entropy(value) <= limit:
                continue
            yield value


@functools.lru_cache(maxsize=4096)
def redact_text(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED]`` (own patterns, then detect-secrets' plugins)."""
    for pattern, repl in _SECRETS:
        text = pattern.sub(repl, text)
    if not _CANDIDATE.search(text) and not _KEYWORDY.search(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for value in sorted(set(_plugin_hits(line)), key=len, reverse=True):
            line = line.replace(value, MASK)
        lines[i] = line
    return "\n".join(lines)


def strip_controls(text: str) -> str:
    """``text`` without control characters (lone ESC, C1 CSI ``\\x9b``, backspace, BEL...); keeps ``\\n`` and ``\\t``."""
    return _CONTROLS.sub("", text)


_IPV4 = r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])"
# an IPv6 candidate (validated with ``ipaddress``): hex groups and at least two colons, optional IPv4 tail and zone
_IPV6 = (
    r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?(?:%[\w.]+)?(?![\w:]|\.\d)"
)
# host names with a TLD hosts use; the internal ones (a.b.local, x.ec2.internal) need three labels so that Python
# names (threading.local) are left alone
_PUBLIC_TLD = r"com|net|org|edu|gov|io|ai|co|cloud|us|uk|de|fr|jp|cn|kr|ca|au|nl|ch|se|eu|sg|tw|il"
_INTERNAL_TLD = r"local|localdomain|internal|lan|corp|intra|cluster|svc|home"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_FQDN = (
    rf"(?<![\w.-])(?:(?:{_LABEL}\.)+(?i:{_PUBLIC_TLD})|{_LABEL}\.(?:{_LABEL}\.)+(?i:{_INTERNAL_TLD}))"
    r"(?![\w-]|\.[A-Za-z0-9])"
)
# public project sites that rules and tracebacks cite: naming them hides nothing about the user's cluster
_PUBLIC_SITES = (
    "github.com",
    "githubusercontent.com",
    "pytorch.org",
    "python.org",
    "nvidia.com",
    "huggingface.co",
    "ray.io",
    "readthedocs.io",
    "pypi.org",
    "vllm.ai",
    "deepspeed.ai",
    "stackoverflow.com",
    "microsoft.com",
    "wandb.ai",
    "anyscale.com",
    "kubernetes.io",
    "docker.com",
    "slurm.schedmd.com",
)
# a pattern string, compiled with the names a report adds (``HostMap._pattern``): only --redact-hosts pays for it
_HOSTS_IN_TEXT = rf"(?P<v4>{_IPV4})|(?P<v6>{_IPV6})|(?P<fqdn>{_FQDN})"


def _public_site(name: str) -> bool:
    name = name.lower()
    return any(name == s or name.endswith("." + s) for s in _PUBLIC_SITES)


class HostMap:
    """Consistent replacement of host names and IPs by ``node-1``, ``node-2``... across one report.

    Replaced: the hosts the report's events name (``add``), and in any text IPv4 and IPv6 addresses and fully
    qualified host names (``gpu7.cluster.example.com``, ``ip-10-0-0-1.ec2.internal``); public project sites
    (github.com, pytorch.org...) are kept.
    """

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self._known: regex.Pattern[str] | None = None

    def alias(self, host: str) -> str:
        if host not in self.names:
            self.names[host] = f"node-{len(self.names) + 1}"
            self._known = None
        return self.names[host]

    def add(self, host: str | None) -> None:
        if host:
            self.alias(host)

    def _pattern(self) -> regex.Pattern[str]:
        if self._known is None:
            names = [n for n in self.names if not n.startswith("node-")]
            known = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True))
            own = rf"(?P<known>(?<![\w.-])(?:{known})(?![\w-]|\.[A-Za-z0-9]))|" if known else ""
            self._known = regex.compile(own + _HOSTS_IN_TEXT)
        return self._known

    def _replace(self, m: regex.Match[str]) -> str:
        text = m.group()
        if m.lastgroup == "v6":
            try:
                ipaddress.ip_address(text.split("%", 1)[0])
            except ValueError:
                return text
        elif m.lastgroup == "fqdn" and _public_site(text):
            return text
        return self.alias(text)

    def apply(self, text: str) -> str:
        """``text`` with every known host, IP and host name replaced by its alias (one pass, so aliases are never
        rewritten)."""
        return self._pattern().sub(self._replace, text)


def redact(data: Any, hosts: HostMap | None = None, secrets: bool = True) -> Any:
    """Deep copy of JSON-like ``data`` ready to write out: in every string, control characters stripped, secrets
    (unless ``secrets`` is False) and, given ``hosts``, host names/IPs replaced. Dict keys are kept."""
    if isinstance(data, str):
        out = strip_controls(data)
        if secrets:
            out = redact_text(out)
        return hosts.apply(out) if hosts is not None else out
    if isinstance(data, dict):
        return {k: redact(v, hosts, secrets) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact(v, hosts, secrets) for v in data]
    return data
