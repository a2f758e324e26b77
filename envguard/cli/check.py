"""`envguard check` and `envguard snapshot`."""

from __future__ import annotations

import sys

import click

from envguard.cli._shared import (
    deep_option,
    emit,
    fail,
    python_option,
    timeout_option,
    use_color,
)
from envguard.errors import EnvguardError


def _terminal_width() -> int:
    """The terminal's width for wrapped text (at least 60 columns; $COLUMNS honoured, as shutil does)."""
    import shutil  # NOTE: only for a terminal (shutil imports bz2 and lzma)

    return max(shutil.get_terminal_size((100, 24)).columns, 60)


@click.command()
@python_option
@deep_option
@timeout_option
@click.option("--snapshot", "snapshot_file", metavar="FILE",
              help="Judge a saved snapshot (from `envguard snapshot`, or '-' for stdin) instead of this machine.")
@click.option("--from", "report_file", metavar="FILE",
              help="Diagnose someone else's pasted report ('-' for stdin): collect_env output, a TensorFlow "
                   "issue template, nvidia-smi output, pip list/freeze lines, training-log banners, error "
                   "messages, or envguard JSON — mixed and partial is fine.")
@click.option("--image", "image_ref", metavar="IMAGE",
              help="Judge a local container image (its CUDA, NVIDIA_REQUIRE_CUDA, Python and frameworks) and "
                   "the Docker engine against this host's driver.")
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
    image_ref: str | None, fmt: str, fail_on: str, output: str | None, force: bool, color: bool | None,
) -> None:
    """Probe this machine (or read a snapshot) and report what will not work, with fixes."""
    # NOTE: imported here, in this order: `use.check` starts the target interpreter before the rules, the
    # formatters and the snapshot types are imported (they load while it runs).
    from envguard.commands import _io, _probe
    from envguard.commands import check as use

    try:
        options = _probe.ProbeOptions(target_python, deep, timeout_s)
        if output:
            _io.check_output(output, force=force)
        if sum(x is not None for x in (report_file, snapshot_file, image_ref)) > 1:
            raise click.UsageError("use only one of --from, --snapshot and --image")
        if image_ref is not None:
            report = use.check_image(image_ref, timeout_s=max(timeout_s, 60.0))
        elif report_file is not None:
            stdin = _io.read_stdin(sys.stdin.buffer) if report_file == "-" else None
            report = use.check_report(*_io.read_text_input(report_file, stdin=stdin))
        elif snapshot_file == "-":
            report = use.judge(_io.parse_snapshot(sys.stdin.buffer.read(_io.MAX_SNAPSHOT_BYTES + 1), "<stdin>"))
        else:
            report = use.check(options, snapshot_file=snapshot_file)
        from envguard.findings import Severity
        from envguard.formatters import make_formatter

        code = report.exit_code(Severity.parse(fail_on))
        colored = use_color(color) and output is None and fmt == "text"
        # NOTE: a pipe or a file gets unwrapped text (width 0): a path or a command is never broken.
        width = _terminal_width() if sys.stdout.isatty() and output is None else 0
        text = make_formatter(fmt, color=colored, width=width).format(report, command="check", exit_code=code)
        if output:
            _io.write_atomic(output, text, force=force)
        else:
            click.echo(text, nl=False, color=colored)
    except EnvguardError as exc:
        fail(exc, fmt, "check")
    raise SystemExit(code)


@click.command()
@python_option
@deep_option
@timeout_option
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True,
              help="Where to write the snapshot JSON ('-' for stdout).")
@click.option("--force", is_flag=True, help="Overwrite --output if it exists.")
def snapshot(target_python: str, deep: bool, timeout_s: float, output: str, force: bool) -> None:
    """Record every probed fact as versioned JSON (judge it later with `check --snapshot`)."""
    from envguard.commands import _io, _probe
    from envguard.commands import check as use

    try:
        if output != "-":
            _io.check_output(output, force=force)
        snap, notes = _probe.take_snapshot(_probe.ProbeOptions(target_python, deep, timeout_s))
        emit(use.snapshot_json(snap), output, force=force, what="snapshot")
        for note in notes:
            click.echo(f"envguard: note: {note}", err=True)
    except EnvguardError as exc:
        fail(exc, "text", "snapshot")
