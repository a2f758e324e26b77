"""The command line: parse options, call app, pick a formatter, print, choose the exit code."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from typing import NoReturn

import click

from envguard import __version__, app
from envguard.errors import EnvguardError
from envguard.findings import Severity

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_CANNOT_RUN = 3

logger = logging.getLogger("envguard")


def _configure_logging(verbose: int, quiet: bool) -> None:
    level_name = os.environ.get("ENVGUARD_LOGLEVEL")
    level = logging.WARNING
    if level_name:
        level = getattr(logging, level_name.upper(), logging.WARNING)
    if verbose == 1:
        level = logging.INFO
    elif verbose >= 2:
        level = logging.DEBUG
    if quiet:
        level = logging.ERROR
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("envguard: %(levelname)s: %(message)s"))
    root = logging.getLogger("envguard")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def _use_color(flag: bool | None) -> bool:
    if flag is not None:
        return flag
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def _fail(message: str, fmt: str, command: str) -> NoReturn:
    """Report that envguard could not run: one line on stderr (and one JSON envelope in json mode)."""
    if fmt == "json":
        from envguard.formatters.json import error_envelope

        click.echo(error_envelope(command, message, EXIT_CANNOT_RUN), nl=False)
    click.echo(f"envguard: error: {message}", err=True)
    raise SystemExit(EXIT_CANNOT_RUN)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="envguard")
@click.option("-v", "--verbose", count=True, help="Log what envguard runs (-vv: debug).")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only.")
def main(verbose: int, quiet: bool) -> None:
    """Check deep-learning GPU environments against sourced compatibility matrices.

    \b
    Exit codes: 0 ok, 1 findings at or above --fail-on, 2 usage error,
    3 envguard could not run (bad input, missing interpreter, unreadable matrix).
    """
    _configure_logging(verbose, quiet)


_python_option = click.option(
    "--python", "target_python", default=sys.executable, show_default="this interpreter",
    help="Interpreter (or virtualenv folder) whose frameworks to inspect.",
)
_deep_option = click.option(
    "--deep", is_flag=True,
    help="Also import each framework (in its own subprocess, in parallel) for runtime facts.",
)
_timeout_option = click.option(
    "--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
    help="Seconds any single external call (nvidia-smi, nvcc, NVML) may take.",
)


@main.command()
@_python_option
@_deep_option
@_timeout_option
@click.option("--snapshot", "snapshot_file", metavar="FILE",
              help="Judge a saved snapshot (from `envguard snapshot`, or '-' for stdin) instead of this machine.")
@click.option("--from", "report_file", metavar="FILE",
              help="Diagnose someone else's pasted report ('-' for stdin): collect_env output, a TensorFlow "
                   "issue template, nvidia-smi output, pip list/freeze lines, training-log banners, error "
                   "messages, or envguard JSON — mixed and partial is fine.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True, help="Output format; json prints exactly one envelope.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="error", show_default=True,
              help="Exit 1 when a finding is at or above this severity.")
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite --output if it exists.")
@click.option("--color/--no-color", default=None, help="Colour text output (default: when stdout is a terminal "
              "and NO_COLOR is unset).")
def check(
    target_python: str, deep: bool, timeout_s: float, snapshot_file: str | None, report_file: str | None,
    fmt: str, fail_on: str, output: str | None, force: bool, color: bool | None,
) -> None:
    """Probe this machine (or read a snapshot) and report what will not work, with fixes."""
    from envguard.formatters import make_formatter

    try:
        options = app.ProbeOptions(target_python, deep, timeout_s)
        if report_file is not None and snapshot_file is not None:
            raise click.UsageError("use either --from or --snapshot, not both")
        if report_file is not None:
            stdin = sys.stdin.buffer.read() if report_file == "-" else None
            report = app.check_report(*app.read_text_input(report_file, stdin=stdin))
        elif snapshot_file == "-":
            report = app.judge(app.parse_snapshot(sys.stdin.buffer.read(app.MAX_SNAPSHOT_BYTES + 1), "<stdin>"))
        else:
            report = app.check(options, snapshot_file=snapshot_file)
        code = report.exit_code(Severity.parse(fail_on))
        colored = _use_color(color) and output is None and fmt == "text"
        width = shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() and output is None else 100
        text = make_formatter(fmt, color=colored, width=max(width, 60)).format(report, command="check",
                                                                              exit_code=code)
        if output:
            app.write_atomic(output, text, force=force)
        else:
            click.echo(text, nl=False, color=colored)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "check")
    raise SystemExit(code)


@main.command()
@_python_option
@_deep_option
@_timeout_option
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True,
              help="Where to write the snapshot JSON ('-' for stdout).")
@click.option("--force", is_flag=True, help="Overwrite --output if it exists.")
def snapshot(target_python: str, deep: bool, timeout_s: float, output: str, force: bool) -> None:
    """Record every probed fact as versioned JSON (judge it later with `check --snapshot`)."""
    try:
        snap, notes = app.take_snapshot(app.ProbeOptions(target_python, deep, timeout_s))
        text = app.snapshot_json(snap)
        if output == "-":
            click.echo(text, nl=False)
        else:
            app.write_atomic(output, text, force=force)
            click.echo(f"envguard: wrote snapshot to {output}", err=True)
        for note in notes:
            click.echo(f"envguard: note: {note}", err=True)
    except EnvguardError as exc:
        _fail(str(exc), "text", "snapshot")
