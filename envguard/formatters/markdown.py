"""Markdown report for CI step summaries and issue comments, from templates/check-report.md.tmpl."""

from __future__ import annotations

from string import Template

from envguard.findings import Report
from envguard.formatters.base import environment_rows, verdict
from envguard.resources import data_dir

_ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class MarkdownFormatter:
    """Verdict, environment table and findings as GitHub-flavoured Markdown."""

    name = "markdown"

    def format(self, report: Report, *, command: str, exit_code: int) -> str:
        """Render with the logic-free template; loops live here."""
        env_lines = ["| Fact | Value | Source |", "| --- | --- | --- |"]
        env_lines += [f"| {_cell(r.label)} | {_cell(r.value)} | {_cell(r.source)} |"
                      for r in environment_rows(report.snapshot)]
        parts: list[str] = []
        for f in report.findings:
            parts.append(f"### {_ICON[f.severity.label]} `{f.code}` ({f.severity.label})\n\n{f.message}\n")
            parts.extend(f"- **{_cell(e.fact)}**: {_cell(e.value)} _({_cell(e.source)})_" for e in f.evidence)
            if f.fix:
                parts.append(f"\n**Fix:** `{f.fix}`" if "\n" not in f.fix else f"\n**Fix:**\n```\n{f.fix}\n```")
            if f.source:
                parts.append(f"\nSource: {f.source}")
            parts.append("")
        template = Template((data_dir("templates") / "check-report.md.tmpl").read_text(encoding="utf-8"))
        return template.substitute(
            verdict=verdict(report, exit_code),
            command=command,
            environment="\n".join(env_lines),
            findings="\n".join(parts).strip() or "No findings.",
            matrices=", ".join(report.matrices.values()) or "none consulted",
        )
