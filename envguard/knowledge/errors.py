"""errors.toml: the error-message signature catalogue."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
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
    #: A lower-case literal every match contains (from the pattern's own syntax tree), so that a line without it
    #: is skipped before the regex runs; "" when the pattern has no such literal.
    anchor: str = ""


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
        """Every (signature, line) pair that matches, in line order; one match per signature and line."""
        out: list[SignatureMatch] = []
        for line in lines:
            text = line.strip()[:MAX_LINE_CHARS]
            if not text:
                continue
            lowered = text.lower()
            for sig in self.signatures:
                if sig.anchor and sig.anchor not in lowered:
                    continue
                found = sig.pattern.search(text)
                if found:
                    groups = {k: v for k, v in found.groupdict().items() if v is not None}
                    out.append(SignatureMatch(sig, text[:500], groups))
        return tuple(out)




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
#: The "code" of a message that is NOT an environment problem (CUDA out of memory, a device-side assert):
#: recognised, so that it is never read as one, and it never becomes a finding. Its severity is "info".
NOT_ENVIRONMENT = "not-environment"


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
        try:
            pattern = re.compile(raw or "", re.IGNORECASE)
        except re.error as exc:
            col.error(where, f"pattern is not a valid regular expression: {exc}")
            continue
        for example in examples:
            if not pattern.search(example):
                col.error(where, f"pattern does not match its own example {example[:80]!r}")
        sigs.append(ErrorSignature(sig_id or "", pattern, code or "", severity, cause or "", check or "",
                                   tuple(examples), col.prov(row, where), required_literal(raw or "")))
    check_unique([s.id for s in sigs], col, "signature", "id")
    return ErrorsMatrix(meta, tuple(sigs))
