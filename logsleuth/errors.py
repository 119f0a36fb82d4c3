"""Errors raised by the library. Only ``cli.py`` turns them into a message and exit code 2."""

from __future__ import annotations


class LogsleuthError(Exception):
    """Base error, carrying where it happened.

    Args:
        message: what went wrong, one line.
        source: ``path:line`` (or ``path``) the error refers to, when known.
    """

    def __init__(self, message: str, source: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source

    def __str__(self) -> str:
        return f"{self.source}: {self.message}" if self.source else self.message


class InputError(LogsleuthError):
    """Unreadable, missing, binary, empty or corrupt input."""


class RuleError(LogsleuthError):
    """A rule file that does not load or does not validate."""


class ModelError(LogsleuthError):
    """The classifier model is missing, untrusted or inconsistent with its sidecar."""
