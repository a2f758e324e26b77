"""`envguard preflight`: check, verify and smoke as one CI gate. The result types, the time budget and the
combined exit code (pure); commands.preflight runs the steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from envguard.findings import Report, Severity
from envguard.fingerprints import Fingerprint
from envguard.lock.verify import VerifyResult
from envguard.smoke.base import SmokeRun

#: Seconds each step is expected to take, for --budget: measured medians on a 2-core CPU machine with a
#: margin (check 0.2 s, --deep 2.3 s, verify with RECORD hashing of torch 2.7 s, smoke L1 7.8 s, L2 13.1 s).
ESTIMATE_S: Final = {"check": 2.0, "check --deep": 5.0, "verify": 10.0, "smoke 1": 30.0, "smoke 2": 60.0,
                     "smoke 3": 300.0}

#: Environment variables that name the node in its scheduler, first found wins (Slurm sets SLURMD_NODENAME in
#: every task: unique in the cluster, even where several slurmd daemons share one host and its hostname).
NODE_NAME_ENV: Final = ("SLURMD_NODENAME",)

EXIT_OK: Final = 0
EXIT_FINDINGS: Final = 1
EXIT_CANNOT_RUN: Final = 3
EXIT_SMOKE_FAILED: Final = 4


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What happened to one step: ran, skipped (with why), or could not run (with the error)."""

    step: str
    status: str  # "ran" | "skipped" | "error"
    detail: str = ""
    duration_s: float = 0.0


@dataclass(frozen=True, slots=True)
class PreflightResult:
    """Every step's result and how it went."""

    node: str
    steps: tuple[StepOutcome, ...]
    report: Report | None
    verify: VerifyResult | None
    smoke: SmokeRun | None
    fingerprint: Fingerprint | None
    fail_on: Severity
    wall_s: float

    @property
    def exit_code(self) -> int:
        """3 when a step could not run, else 4 when a smoke case failed, else 1 for findings or drift, else 0."""
        return combined_exit(self)


def combined_exit(result: PreflightResult) -> int:
    """The one exit code of a preflight run."""
    if any(s.status == "error" for s in result.steps):
        return EXIT_CANNOT_RUN
    if result.smoke is not None and result.smoke.failed:
        return EXIT_SMOKE_FAILED
    if result.report is not None and result.report.exit_code(result.fail_on) != 0:
        return EXIT_FINDINGS
    if result.verify is not None and not result.verify.ok:
        return EXIT_FINDINGS
    return EXIT_OK


def node_name(environ: Mapping[str, str], hostname: str) -> str:
    """The node's name in preflight.json: its scheduler's name for it when it runs under one, else the hostname."""
    for key in NODE_NAME_ENV:
        value = environ.get(key, "").strip()
        if value:
            return value
    return hostname


def fits(step: str, elapsed_s: float, budget_s: float | None) -> str | None:
    """None when ``step`` fits the remaining budget, else the reason it is skipped."""
    if budget_s is None:
        return None
    need = ESTIMATE_S.get(step, 10.0)
    left = budget_s - elapsed_s
    if need > left:
        return f"needs about {need:.0f} s, {max(left, 0):.0f} s of the {budget_s:.0f} s budget left"
    return None


def plan_steps(*, verify: bool, smoke_level: int, deep: bool) -> Sequence[str]:
    """The steps in order (check always first)."""
    steps = ["check --deep" if deep else "check"]
    if verify:
        steps.append("verify")
    if smoke_level > 0:
        steps.append(f"smoke {smoke_level}")
    return steps
