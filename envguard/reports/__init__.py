"""Reading pasted reports (``check --from``, ``explain --from``): text in, a ``Snapshot`` of what it states out.

Not a probe: nothing here looks at this machine. A fact the report does not give is "not reported".
"""

from __future__ import annotations

from envguard.reports.reader import (
    MAX_REPORT_CHARS,
    NOT_REPORTED,
    ReadEnvironment,
    normalize_report,
    parse_environments,
    parse_report,
)

__all__ = ["MAX_REPORT_CHARS", "NOT_REPORTED", "ReadEnvironment", "normalize_report", "parse_environments",
           "parse_report"]
