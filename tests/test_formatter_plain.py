"""The text report into a pipe or a file is laid out without rich (formatters/text.py plain_text): it must be the
very text rich lays out, for every real report and for a probed machine, and leave to rich what it cannot measure."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from envguard.commands.check import check_report
from envguard.errors import EnvguardError
from envguard.findings import Evidence, Finding, Report, Severity
from envguard.formatters.text import TextFormatter, plain_text

ROOT = Path(__file__).resolve().parent / "data" / "reports"
REPORTS = sorted(ROOT.glob("*/env.txt"))


def _judged(path: Path) -> Report | None:
    try:
        return check_report(path.read_text(encoding="utf-8"), str(path))
    except EnvguardError:
        return None


@pytest.mark.slow
def test_plain_layout_is_riches_for_every_corpus_report() -> None:
    fmt = TextFormatter(color=False, width=0)
    plain = 0
    for path in REPORTS:
        report = _judged(path)
        if report is None:
            continue
        for code in (0, 1):
            text = plain_text(report, code)
            if text is not None:
                plain += 1
                assert text == fmt.rich_text(report, code), path.parent.name
    assert plain > 400  # most reports are laid out without rich


def _a_report() -> Report:
    report = check_report("PyTorch version: 2.5.1+cu124\nNvidia driver version: 470.82.01\n", "t")
    assert report.findings
    return report


def test_a_pipe_gets_the_plain_layout_and_a_terminal_rich() -> None:
    report = _a_report()
    assert TextFormatter(color=False, width=0).format(report, command="check", exit_code=1) == plain_text(report, 1)
    coloured = TextFormatter(color=True, width=100).format(report, command="check", exit_code=1)
    assert "\x1b[" in coloured


@pytest.mark.parametrize("odd", ["RTX 4090 显卡", "tab\there", "emoji 🚀", "NVIDIA® Tesla"])
def test_text_rich_may_measure_otherwise_is_left_to_rich(odd: str) -> None:
    report = _a_report()
    finding = dataclasses.replace(report.findings[0], evidence=(Evidence("gpu", odd, "report line 1"),))
    odd_report = dataclasses.replace(report, findings=(finding,))
    assert plain_text(odd_report, 1) is None
    text = TextFormatter(color=False, width=0).format(odd_report, command="check", exit_code=1)
    assert text == TextFormatter(color=False, width=0).rich_text(odd_report, 1)


def test_an_empty_findings_report_with_notes() -> None:
    report = dataclasses.replace(_a_report(), findings=(), notes=("a note", "another"))
    assert plain_text(report, 0) == TextFormatter(color=False, width=0).rich_text(report, 0)


def test_every_severity_label() -> None:
    base = _a_report()
    findings = tuple(Finding("cpu-only-build", sev, f"message {sev.label}", (), None, None)
                     for sev in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    report = dataclasses.replace(base, findings=findings)
    assert plain_text(report, 1) == TextFormatter(color=False, width=0).rich_text(report, 1)


@pytest.mark.slow
def test_plain_layout_is_riches_for_this_machine() -> None:
    import sys

    from envguard.commands._probe import ProbeOptions
    from envguard.commands.check import check

    report = check(ProbeOptions(sys.executable, False, 60.0))
    text = plain_text(report, 0)
    assert text is not None
    assert text == TextFormatter(color=False, width=0).rich_text(report, 0)


def test_a_value_that_ends_in_a_backslash_is_printed_as_it_is() -> None:
    # microsoft/onnxruntime's Windows log, cut by the report after "D:\" (tests/data/reports/1803-...)
    report = _a_report()
    cut = Evidence("CUDA provider", "TryGetProviderInfo_CUDA] D:\\", "report line 1")
    finding = dataclasses.replace(report.findings[0], evidence=(cut,))
    odd = dataclasses.replace(report, findings=(finding,))
    rich = TextFormatter(color=False, width=0).rich_text(odd, 1)
    assert "TryGetProviderInfo_CUDA] D:\\  (report line 1)" in rich
    assert "D:\\\\" not in rich
