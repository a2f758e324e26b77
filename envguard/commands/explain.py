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
    return explain(normalize_report(text), matrices, facts)
