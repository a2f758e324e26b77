"""Human-readable report rendered with rich; readable without colour (NO_COLOR is respected)."""

from __future__ import annotations

import io

from envguard.findings import Report, Severity
from envguard.formatters.base import environment_rows, finish, verdict

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


class TextFormatter:
    """Verdict line, environment summary, then findings with evidence, fix and source."""

    name = "text"

    def __init__(self, *, color: bool = False, width: int = 100) -> None:
        self.color = color
        self.width = width

    def format(self, report: Report, *, command: str, exit_code: int) -> str:  # noqa: ARG002 # reason: Formatter protocol
        """Render the report as plain (or coloured) text."""
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        buffer = io.StringIO()
        # NOTE: width <= 0 (a pipe or a file): nothing is wrapped, so no path or command is ever broken.
        unwrapped = self.width <= 0
        console = Console(file=buffer, force_terminal=self.color, no_color=not self.color,
                          width=10_000 if unwrapped else self.width, color_system="standard" if self.color else None,
                          highlight=False, emoji=False, soft_wrap=unwrapped)
        status_style = "bold red" if exit_code else "bold green"
        console.print(f"[{status_style}]{escape(verdict(report, exit_code))}[/]")
        console.print()
        table = Table(title="Environment", title_justify="left", show_header=False, box=None, pad_edge=False,
                      expand=False)
        table.add_column("fact", style="bold", no_wrap=True)
        table.add_column("value", overflow="fold")
        table.add_column("source", style="dim", overflow="fold", max_width=None if unwrapped else 34)
        for row in environment_rows(report.snapshot):
            table.add_row(escape(row.label), escape(row.value), escape(row.source))
        console.print(table)
        if report.findings:
            console.print()
            console.print("[bold]Findings[/]")
        for finding in report.findings:
            style = _STYLE[finding.severity]
            console.print()
            console.print(f"[{style}]{finding.severity.label.upper()}[/] [bold]{finding.code}[/]: "
                          f"{escape(finding.message)}")
            for item in finding.evidence:
                console.print(f"    {escape(item.fact)}: {escape(item.value)}  [dim]({escape(item.source)})[/]")
            if finding.fix:
                console.print(f"  [bold]fix:[/] {escape(finding.fix)}")
            if finding.source:
                console.print(f"  [dim]source: {escape(finding.source)}[/]")
        for note in report.notes:
            console.print(f"[yellow]note:[/] {escape(note)}")
        if report.matrices:
            console.print()
            console.print(f"[dim]matrices: {escape(', '.join(report.matrices.values()))}[/]")
        return finish(buffer)
