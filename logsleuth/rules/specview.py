"""A read-only view of a validated rule, rebuilt from the compiled-rules cache without importing pydantic."""

from __future__ import annotations

import copy
from typing import Any


class SpecView:
    """Attribute access over ``RuleSpec.model_dump(mode="json")`` data (nested mappings become views), as a
    ``RuleSpec`` offers it; ``model_dump`` returns a copy of the data. Only validated data is ever wrapped."""

    __slots__ = ("_data", "__dict__")

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data
        for k, v in data.items():
            self.__dict__[k] = SpecView(v) if isinstance(v, dict) else v

    def __getattr__(self, name: str) -> Any:  # only for names the data lacks; tells type checkers fields are Any
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "_data":
            raise AttributeError("a rule is read-only")
        object.__setattr__(self, name, value)

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return copy.deepcopy(self._data)

    def __repr__(self) -> str:
        return f"SpecView({self._data!r})"
