"""errors.toml: the error-message signature catalogue."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from envguard.codes import FINDING_CODES
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
    #: Compiled, case-insensitive regular expression matched against one line at a time.
    pattern: re.Pattern[str]
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

    def match(self, lines: Iterable[str]) -> tuple[SignatureMatch, ...]:
        """Every (signature, line) pair that matches, in line order; one match per signature and line.

        A line longer than :data:`WINDOW_CHARS` is searched in overlapping windows (a message shorter than
        :data:`WINDOW_OVERLAP` is never cut), so a 400 KB log line costs time linear in its length.
        """
        out: list[SignatureMatch] = []
        for line in lines:
            text = line.strip()
            if not text:
                continue
            for sig in self.signatures:
                for window in _windows(text):
                    found = sig.pattern.search(window)
                    if found:
                        groups = {k: v for k, v in found.groupdict().items() if v is not None}
                        start = 0 if window is text else max(0, found.start() - 100)
                        out.append(SignatureMatch(sig, window[start:start + 500], groups))
                        break
        return tuple(out)


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
        if code is not None and code not in FINDING_CODES:
            col.error(where, f"code {code!r} is not a finding code")
        if severity not in _SEVERITIES:
            col.error(where, f"severity must be one of {_SEVERITIES}")
        if None in (sig_id, raw, code, cause, check):
            continue
        try:
            pattern = re.compile(raw or "", re.IGNORECASE)
        except re.error as exc:
            col.error(where, f"pattern is not a valid regular expression: {exc}")
            continue
        for example in examples:
            if not pattern.search(example):
                col.error(where, f"pattern does not match its own example {example[:80]!r}")
        sigs.append(ErrorSignature(sig_id or "", pattern, code or "", severity, cause or "", check or "",
                                   tuple(examples), col.prov(row, where)))
    check_unique([s.id for s in sigs], col, "signature", "id")
    return ErrorsMatrix(meta, tuple(sigs))
