"""`envguard explain`."""

from __future__ import annotations

import os
import sys

import click

from envguard.cli._shared import (
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
    python_option,
    use_color,
)
from envguard.commands import _io, _probe
from envguard.commands import explain as use
from envguard.errors import EnvguardError


def _width() -> int:
    """The terminal's width, or 0 (nothing wrapped) for a pipe or a file."""
    import shutil

    return shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() else 0


@click.command()
@click.argument("text", nargs=-1)
@click.option("--from", "report_file", metavar="FILE", help="Check the causes against a pasted report's facts.")
@click.option("--snapshot", "snapshot_file", metavar="FILE", help="Check the causes against a saved snapshot.")
@click.option("--no-check", is_flag=True, help="Only explain; do not probe this machine for facts.")
@python_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain(
    text: tuple[str, ...], report_file: str | None, snapshot_file: str | None, no_check: bool, target_python: str,
    fmt: str,
) -> None:
    """Explain an error message (TEXT, a log FILE, or '-' for stdin) and check its cause.

    \b
    By default the cause is confirmed or ruled out against this machine's facts;
    --from/--snapshot use someone else's facts instead. Exit 1 when a cause is confirmed.
    """
    from envguard.formatters.queries import explain_json, explain_text

    try:
        if not text:
            raise click.UsageError("give the error message, a log file, or '-' to read stdin")
        joined = " ".join(text)
        if joined == "-":
            body = _io.read_text_input("-", stdin=_io.read_stdin(sys.stdin.buffer), what="text")[0]
        elif len(text) == 1 and (os.path.lexists(joined) or use.looks_like_path(joined)):
            body = _io.read_text_input(joined, what="log")[0]
        else:
            body = joined
        result = use.explain_text(body, report_file=report_file, snapshot_file=snapshot_file,
                                  probe=None if no_check else _probe.ProbeOptions(target_python))
        code = EXIT_FINDINGS if any(v.status == "confirmed" for v in result.verdicts) else EXIT_OK
        if fmt == "json":
            out = explain_json(result, code)
        else:
            out = explain_text(result, color=use_color(None), width=_width())
        click.echo(out, nl=False, color=use_color(None) and fmt == "text")
    except EnvguardError as exc:
        fail(exc, fmt, "explain")
    raise SystemExit(code)
