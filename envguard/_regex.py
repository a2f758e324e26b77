"""Regular expressions compiled on first use: a module full of patterns costs nothing to import.

``envguard check`` imports the parsers of every tool output it might meet, but runs a handful of them;
compiling all their patterns at import time was a measurable part of its start-up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    """A ``re.Pattern`` stand-in that compiles ``pattern`` the first time it is used."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags: int = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    def match(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[AnyStr] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[AnyStr] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[AnyStr] | None:
        return self.compiled.search(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> Iterator[re.Match[AnyStr]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        return self.compiled.sub(repl, string, count)


def lazy(pattern: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:
    """``re.compile(pattern, flags)``, deferred to the first use."""
    return LazyPattern(pattern, flags)
