"""`envguard explain`: recognise error messages and check their causes against facts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envguard.commands._io import read_snapshot, read_text_input
from envguard.commands.check import check, check_report
from envguard.knowledge import load_matrices
from envguard.rules import run_rules

if TYPE_CHECKING:
    from envguard.commands._probe import ProbeOptions
    from envguard.findings import Report
    from envguard.rules.signatures import Explanation


def explain_text(
    text: str, *, report_file: str | None = None, snapshot_file: str | None = None, probe: ProbeOptions | None = None,
) -> Explanation:
    """Recognise error messages in ``text``; check each cause against a report, a snapshot or this machine."""
    from envguard.reports import normalize_report
    from envguard.rules.signatures import explain

    matrices = load_matrices()
    facts: Report | None = None
    if report_file is not None:
        facts = check_report(*read_text_input(report_file), matrices)
    elif snapshot_file is not None:
        facts = run_rules(read_snapshot(snapshot_file), matrices)
    elif probe is not None:
        facts = check(probe, matrices=matrices)
    lines = normalize_report(text)
    while lines and not lines[-1].strip():  # "one line\n" is one line, not two
        lines.pop()
    return explain(lines, matrices, facts)


#: Suffixes of the log files people pass to explain.
LOG_SUFFIXES = (".log", ".txt", ".out", ".err")


def looks_like_path(text: str) -> bool:
    """Whether a single explain argument reads as a file name rather than a message: no spaces, and a path
    separator or a log suffix (``train.log``, ``logs/run1``)."""
    import os

    if not text or any(c.isspace() for c in text):
        return False
    return os.sep in text or (os.altsep or os.sep) in text or text.lower().endswith(LOG_SUFFIXES)
