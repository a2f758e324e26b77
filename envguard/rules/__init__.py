"""ALL_RULES and run_rules: judge a snapshot against the matrices."""

from __future__ import annotations

from collections.abc import Sequence

from envguard.findings import Finding, Report
from envguard.knowledge import Matrices
from envguard.rules.arch import ArchRule
from envguard.rules.base import Rule
from envguard.rules.builds import CompanionRule, CpuOnlyRule, PlatformRule, PythonRule
from envguard.rules.cpu_report import ReportedCpuBuildRule
from envguard.rules.driver import DriverRule
from envguard.rules.driver_compat import ForwardCompatRule, ReportedCudaMajorRule
from envguard.rules.installs import FreeThreadedRule, OfferedVersionsRule, RejectedWheelRule
from envguard.rules.jax import JaxPluginRule
from envguard.rules.libraries import (
    LoaderPathRule,
    MixedWheelsRule,
    SystemLibrariesRule,
    ToolkitRule,
    WheelPinRule,
)
from envguard.rules.loaded import LoadedLibraryRule
from envguard.rules.signatures import SignatureRule, merge_corroborated
from envguard.snapshot import Snapshot

__all__ = ["ALL_RULES", "Rule", "run_rules"]

ALL_RULES: tuple[Rule, ...] = (
    DriverRule(),
    ForwardCompatRule(),
    ReportedCudaMajorRule(),
    ArchRule(),
    CpuOnlyRule(),
    ReportedCpuBuildRule(),
    PlatformRule(),
    PythonRule(),
    FreeThreadedRule(),
    RejectedWheelRule(),
    OfferedVersionsRule(),
    CompanionRule(),
    WheelPinRule(),
    JaxPluginRule(),
    LoaderPathRule(),
    SystemLibrariesRule(),
    MixedWheelsRule(),
    LoadedLibraryRule(),
    ToolkitRule(),
    SignatureRule(),
)


def run_rules(
    snapshot: Snapshot, matrices: Matrices, rules: Sequence[Rule] = ALL_RULES, notes: tuple[str, ...] = ()
) -> Report:
    """Run every rule; findings come out worst first, then in rule order. Duplicates are dropped."""
    findings: list[Finding] = []
    for rule in rules:
        for finding in rule.check(snapshot, matrices):
            if finding not in findings:
                findings.append(finding)
    ordered = sorted(merge_corroborated(findings), key=lambda f: -f.severity)
    return Report(snapshot, tuple(ordered), matrices.loaded(), notes)
