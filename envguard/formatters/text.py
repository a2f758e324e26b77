"""Human-readable report rendered with rich; readable without colour (NO_COLOR is respected).

Into a pipe or a file (no colour, nothing wrapped) the same text is laid out here without rich: importing rich's
console costs `check` tens of milliseconds, and without colour or wrapping its layout is padding columns. A test
holds the two renderings equal on every corpus report; text with any character whose width rich might count
differently (beyond printable ASCII and the verdict's dash) is left to rich.
"""

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
        if self.width <= 0 and not self.color:
            plain = plain_text(report, exit_code)
            if plain is not None:
                return plain
        return self.rich_text(report, exit_code)

    def rich_text(self, report: Report, exit_code: int) -> str:
        """The report laid out by rich (colour, wrapping at the terminal's width)."""
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
            table.add_row(_text(row.label), _text(row.value), _text(row.source))
        console.print(table)
        if report.findings:
            console.print()
            console.print("[bold]Findings[/]")
        for finding in report.findings:
            style = _STYLE[finding.severity]
            console.print()
            console.print(f"[{style}]{finding.severity.label.upper()}[/] [bold]{finding.code}[/]: "
                          f"{_text(finding.message)}")
            for item in finding.evidence:
                console.print(f"    {_text(item.fact)}: {_text(item.value)}  [dim]({escape(item.source)})[/]")
            if finding.fix:
                console.print(f"  [bold]fix:[/] {_text(finding.fix)}")
            if finding.source:
                console.print(f"  [dim]source: {escape(finding.source)}[/]")
        for note in report.notes:
            console.print(f"[yellow]note:[/] {_text(note)}")
        if report.matrices:
            console.print()
            console.print(f"[dim]matrices: {escape(', '.join(report.matrices.values()))}[/]")
        return finish(buffer)


#: Characters the plain layout measures as one column each, as rich does (printable ASCII and the verdict's dash).
_ONE_COLUMN = frozenset(map(chr, range(0x20, 0x7F))) | {"—"}


def plain_text(report: Report, exit_code: int) -> str | None:
    """The uncoloured, unwrapped rendering, or None when some text holds a character rich may measure otherwise."""
    rows = [(row.label, row.value, row.source) for row in environment_rows(report.snapshot)]
    lines = [verdict(report, exit_code), "", "Environment"]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in rows]
    if report.findings:
        lines += ["", "Findings"]
    for finding in report.findings:
        lines += ["", f"{finding.severity.label.upper()} {finding.code}: {finding.message}"]
        lines += [f"    {item.fact}: {item.value}  ({item.source})" for item in finding.evidence]
        if finding.fix:
            lines.append(f"  fix: {finding.fix}")
        if finding.source:
            lines.append(f"  source: {finding.source}")
    lines += [f"note: {note}" for note in report.notes]
    if report.matrices:
        lines += ["", f"matrices: {', '.join(report.matrices.values())}"]
    text = "\n".join(line.rstrip() for line in lines) + "\n"
    return text if set(text) <= _ONE_COLUMN | {"\n"} else None


def _text(value: str) -> str:
    r"""rich markup for text that no tag follows: rich's escape() doubles a trailing backslash (so that it cannot
    escape the tag it expects next), which rich then prints as two (a Windows path cut after "D:\" shown as
    "D:\\")."""
    from rich.markup import escape

    escaped = escape(value)
    if value.endswith("\\") and not value.endswith("\\\\") and escaped.endswith("\\\\"):
        return escaped[:-1]
    return escaped
