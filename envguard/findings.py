"""Findings (what a rule concluded) and the Report that bundles them with the snapshot."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from envguard.codes import FINDING_CODES
from envguard.snapshot import Snapshot

__all__ = ["FINDING_CODES", "Evidence", "Finding", "Report", "Severity"]



class Severity(enum.IntEnum):
    """How bad a finding is; ``--fail-on`` compares against these."""

    INFO = 10
    WARNING = 20
    ERROR = 30

    @property
    def label(self) -> str:
        """Lower-case name used in output and JSON ("error")."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        """``"warning"`` → ``Severity.WARNING``.

        :raises ValueError: for an unknown name.
        """
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r}") from None


@dataclass(frozen=True, slots=True)
class Evidence:
    """One fact a finding rests on, with the source that reported it."""

    fact: str
    value: str
    source: str


@dataclass(frozen=True, slots=True)
class Finding:
    """A judgement about the environment, with what it rests on and how to fix it."""

    code: str
    severity: Severity
    #: One sentence naming the components involved.
    message: str
    evidence: tuple[Evidence, ...]
    #: An exact command or action.
    fix: str | None
    #: The matrix row (file, row and upstream reference) that justified the verdict.
    source: str | None = None
    #: The framework or component the finding is about ("torch", "driver" ...).
    subject: str | None = None

    def __post_init__(self) -> None:
        if self.code not in FINDING_CODES:
            raise ValueError(f"unknown finding code {self.code!r}")


@dataclass(frozen=True, slots=True)
class Report:
    """The snapshot, what the rules found, and which matrices they used."""

    snapshot: Snapshot
    findings: tuple[Finding, ...]
    #: name → "version (retrieved date)" of each matrix consulted.
    matrices: Mapping[str, str] = field(default_factory=dict)
    #: Non-fatal problems met while probing (a probe that crashed or timed out).
    notes: tuple[str, ...] = ()

    @property
    def worst(self) -> Severity | None:
        """The highest severity among the findings, or None."""
        return max((f.severity for f in self.findings), default=None)

    def count(self, severity: Severity) -> int:
        """How many findings have exactly this severity."""
        return sum(1 for f in self.findings if f.severity == severity)

    def exit_code(self, fail_on: Severity) -> int:
        """0 when nothing is at or above ``fail_on``, else 1."""
        worst = self.worst
        return 1 if worst is not None and worst >= fail_on else 0
