"""errors.toml: the error-message signature catalogue."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from envguard._regex import LazyPattern, lazy
from envguard.codes import FINDING_CODES, NOT_ENVIRONMENT
from envguard.errors import MatrixError
from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_unique,
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class ErrorSignature:
    """An error message people paste, what it means, and what to check."""

    id: str
    #: Case-insensitive regular expression matched against one line at a time (compiled on first use: the
    #: catalogue is read by every `check`, but matched only against reports and logs).
    pattern: LazyPattern[str]
    #: The finding code this message is evidence of.
    code: str
    severity: str
    #: The cause, in one sentence.
    cause: str
    #: What to check or run to confirm it.
    check: str
    #: Example lines (tests assert each matches).
    examples: tuple[str, ...]
    prov: Provenance


@dataclass(frozen=True, slots=True)
class SignatureMatch:
    """One signature found in one line of text."""

    signature: ErrorSignature
    line: str
    #: Named groups of the pattern (e.g. {"found": "11040"}).
    groups: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ErrorsMatrix:
    """The catalogue of error signatures."""

    meta: MatrixMeta
    signatures: tuple[ErrorSignature, ...]
    #: signature id → a lower-case literal every match contains (from the pattern's own syntax tree), so that a
    #: line without it is skipped before the regex runs; "" when there is none. Filled on the first match().
    _anchors: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: (signature, anchor) for every signature, in catalogue order: built on the first match() (a report's lines are
    #: matched one at a time, so this is read once per line).
    _anchored: list[tuple[ErrorSignature, str]] = field(default_factory=list, repr=False, compare=False)
    #: The last tuple of lines matched (held, so compared by identity) and its matches: every rule that reads a
    #: snapshot's messages asks for the same ``observed_errors`` tuple (nine rules per check). A new tuple, even
    #: an equal one, is matched afresh, so nothing carries over from one report to the next.
    _last: list[tuple[tuple[str, ...], tuple[SignatureMatch, ...]]] = field(default_factory=list, repr=False,
                                                                          compare=False)

    def anchor(self, sig: ErrorSignature) -> str:
        """The literal ``sig`` needs (computed once)."""
        if sig.id not in self._anchors:
            self._anchors[sig.id] = required_literal(sig.pattern.pattern)
        return self._anchors[sig.id]

    def validate(self) -> list[str]:
        """Every problem a loaded catalogue has that its loader does not check (to stay cheap): patterns that
        do not compile or do not match their own examples. The matrix tests run this."""
        problems = []
        for sig in self.signatures:
            try:
                compiled = sig.pattern.compiled
            except re.error as exc:
                problems.append(f"errors.toml {sig.id}: pattern is not a valid regular expression: {exc}")
                continue
            problems.extend(f"errors.toml {sig.id}: pattern does not match its own example {e[:80]!r}"
                            for e in sig.examples if not compiled.search(e))
        return problems

    def match(self, lines: Iterable[str]) -> tuple[SignatureMatch, ...]:
        """Every (signature, line) pair that matches, in line order; one match per signature and line.

        A line longer than :data:`WINDOW_CHARS` is searched in overlapping windows (a message shorter than
        :data:`WINDOW_OVERLAP` is never cut), so a 400 KB log line costs time linear in its length.

        :raises MatrixError: when a pattern of the catalogue does not compile.
        """
        if isinstance(lines, tuple) and self._last and self._last[0][0] is lines:
            return self._last[0][1]
        found = self._match(tuple(lines))
        if isinstance(lines, tuple):
            self._last[:] = [(lines, found)]
        return found

    def _match(self, lines: tuple[str, ...]) -> tuple[SignatureMatch, ...]:
        out: list[SignatureMatch] = []
        if len(self._anchored) != len(self.signatures):
            self._anchored[:] = [(sig, self.anchor(sig)) for sig in self.signatures]
        anchors = self._anchored
        for line in lines:
            text = line.strip()
            if not text:
                continue
            lowered = text.lower()
            for sig, anchor in anchors:
                if anchor and anchor not in lowered:
                    continue
                for window in _windows(text):
                    try:
                        found = sig.pattern.search(window)
                    except re.error as exc:
                        raise MatrixError(f"errors.toml {sig.id}: pattern is not a valid regular expression: "
                                          f"{exc}") from None
                    if found:
                        groups = {k: v for k, v in found.groupdict().items() if v is not None}
                        # NOTE: the excerpt always holds the whole match (rules match it again): a long line's
                        # message may start past the excerpt's 500 characters (a docker hook error's tail).
                        start = 0 if found.end() <= EXCERPT_CHARS else max(0, found.start() - 100)
                        stop = max(start + EXCERPT_CHARS, found.end())
                        out.append(SignatureMatch(sig, window[start:stop], MappingProxyType(groups)))
                        break
        return tuple(out)


#: How much of a matched line a match keeps (the line from its start, or from 100 characters before the
#: message when the message ends later than this).
EXCERPT_CHARS = 500
#: Longest stretch of one line a signature pattern is run on at once.
WINDOW_CHARS = 4096
#: How much consecutive windows overlap (longer than any catalogued message).
WINDOW_OVERLAP = 1024


def _windows(text: str) -> Iterator[str]:
    """``text`` itself when short, else overlapping slices of :data:`WINDOW_CHARS` covering it."""
    if len(text) <= WINDOW_CHARS:
        yield text
        return
    step = WINDOW_CHARS - WINDOW_OVERLAP
    for start in range(0, len(text) - WINDOW_OVERLAP, step):
        yield text[start:start + WINDOW_CHARS]


_SEVERITIES = ("error", "warning", "info")
#: Longest part of a line the catalogue matches (messages sit near a log line's start; a line can be megabytes).
MAX_LINE_CHARS = 4000


def required_literal(pattern: str) -> str:
    """The longest lower-case literal that every match of ``pattern`` contains ("" when none is certain).

    Read from the pattern's syntax tree: only literals at the top level, or inside groups that must match
    once, count; alternatives, optional parts and classes end a run.
    """
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse  # type: ignore[no-redef,unused-ignore]
    try:
        tree = sre_parse.parse(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError):
        return ""
    best = ""

    def walk(items: Any) -> None:
        nonlocal best
        run = ""
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                run += chr(arg).lower()
                continue
            if len(run) > len(best):
                best = run
            run = ""
            if name == "SUBPATTERN":
                walk(arg[-1])
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and arg[0] >= 1:
                walk(arg[2])
        if len(run) > len(best):
            best = run

    walk(tree)
    return best.strip() if len(best.strip()) >= 3 else ""


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> ErrorsMatrix:
    col.keys(data, META_KEYS | {"signature"}, "header")
    sigs = []
    for where, row in col.rows(data, "signature"):
        col.keys(row, {"id", "pattern", "code", "severity", "cause", "check", "examples"} | PROV_KEYS, where)
        sig_id = col.string(row, "id", where, required=True)
        raw = col.string(row, "pattern", where, required=True)
        code = col.string(row, "code", where, required=True)
        severity = col.string(row, "severity", where) or "error"
        cause = col.string(row, "cause", where, required=True)
        check = col.string(row, "check", where, required=True)
        examples = row.get("examples", [])
        if not isinstance(examples, list) or not examples or not all(isinstance(e, str) for e in examples):
            col.error(where, "examples must be a non-empty list of strings (real messages the pattern matches)")
            examples = []
        if code is not None and code not in FINDING_CODES and code != NOT_ENVIRONMENT:
            col.error(where, f"code {code!r} is not a finding code (nor {NOT_ENVIRONMENT!r})")
        if code == NOT_ENVIRONMENT and severity != "info":
            col.error(where, f"a {NOT_ENVIRONMENT} message has severity \"info\"")
        if severity not in _SEVERITIES:
            col.error(where, f"severity must be one of {_SEVERITIES}")
        if None in (sig_id, raw, code, cause, check):
            continue
        # NOTE: compiled on first use; ErrorsMatrix.validate() (run by the matrix tests) checks each pattern
        # against its examples, so that reading the catalogue costs no regex compilation.
        sigs.append(ErrorSignature(sig_id or "", lazy(raw or "", re.IGNORECASE), code or "", severity, cause or "",
                                   check or "", tuple(examples), col.prov(row, where)))
    check_unique([s.id for s in sigs], col, "signature", "id")
    return ErrorsMatrix(meta, tuple(sigs))
