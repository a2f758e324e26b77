"""The versioned JSON envelope: one object, the public machine-readable contract."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from envguard.findings import Finding, Report, Severity
from envguard.formatters.base import RESULT_VERSION


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as JSON-ready data."""
    return {
        "code": finding.code,
        "severity": finding.severity.label,
        "message": finding.message,
        "subject": finding.subject,
        "evidence": [{"fact": e.fact, "value": e.value, "source": e.source} for e in finding.evidence],
        "fix": finding.fix,
        "source": finding.source,
    }


def envelope(report: Report, *, command: str, exit_code: int) -> dict[str, Any]:
    """``{"envguard_result_version": 1, "command", "snapshot", "findings", "summary", "exit_code"}``."""
    return {
        "envguard_result_version": RESULT_VERSION,
        "command": command,
        "snapshot": report.snapshot.to_dict(),
        "findings": [finding_dict(f) for f in report.findings],
        "summary": {
            "errors": report.count(Severity.ERROR),
            "warnings": report.count(Severity.WARNING),
            "infos": report.count(Severity.INFO),
        },
        "matrices": dict(report.matrices),
        "notes": list(report.notes),
        "exit_code": exit_code,
    }


def error_envelope(command: str, message: str, exit_code: int, extra: Mapping[str, object] | None = None) -> str:
    """The envelope printed when envguard could not run (still exactly one JSON object)."""
    return json.dumps({"envguard_result_version": RESULT_VERSION, "command": command, "error": message,
                       **(extra or {}), "exit_code": exit_code}, indent=2) + "\n"


class JsonFormatter:
    """Renders the envelope as indented JSON."""

    name = "json"

    def format(self, report: Report, *, command: str, exit_code: int) -> str:
        """One JSON object and a newline."""
        return json.dumps(envelope(report, command=command, exit_code=exit_code), indent=2, sort_keys=False) + "\n"
