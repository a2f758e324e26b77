"""A pasted report judged as `check --from` judges it (every environment it describes, parsed and run through
the rules), for the report tests: one place instead of a helper per test file."""

from __future__ import annotations

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_environments
from envguard.rules import run_rules
from envguard.snapshot import Snapshot


def findings(text: str, matrices: Matrices | None = None) -> list[Finding]:
    """Every finding of every environment of ``text``, in report order."""
    m = matrices if matrices is not None else load_matrices()
    return [f for env in parse_environments(text, "t", m) for f in run_rules(env.snapshot, m, notes=env.notes).findings]


def error_codes(text: str, matrices: Matrices | None = None) -> set[str]:
    """The codes of the error findings."""
    return {f.code for f in findings(text, matrices) if f.severity is Severity.ERROR}


def error_messages(text: str, matrices: Matrices | None = None) -> dict[str, list[str]]:
    """code -> the messages of its error findings."""
    out: dict[str, list[str]] = {}
    for f in findings(text, matrices):
        if f.severity is Severity.ERROR:
            out.setdefault(f.code, []).append(f.message)
    return out


def worst_severity(text: str, matrices: Matrices | None = None) -> dict[str, Severity]:
    """code -> the most severe of its findings."""
    out: dict[str, Severity] = {}
    for f in findings(text, matrices):
        out[f.code] = max(out.get(f.code, f.severity), f.severity)
    return out


def first_snapshot(text: str, matrices: Matrices | None = None) -> Snapshot:
    """The snapshot of the first environment ``text`` describes."""
    m = matrices if matrices is not None else load_matrices()
    return parse_environments(text, "report", m)[0].snapshot
