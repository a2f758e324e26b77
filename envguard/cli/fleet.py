"""`envguard fleet report`."""

from __future__ import annotations

import shutil

import click

from envguard.cli._shared import (
    EXIT_CANNOT_RUN,
    EXIT_FINDINGS,
    EXIT_OK,
    emit,
    fail,
    use_color,
)
from envguard.commands import _io
from envguard.commands import fleet as use
from envguard.errors import EnvguardError


@click.group("fleet")
def fleet_group() -> None:
    """Compare the JSON results of many nodes (from `envguard preflight`, `check` or `smoke`)."""


@fleet_group.command("report")
@click.argument("directory", metavar="DIR")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", show_default=True,
              help="html: one self-contained page (inline CSS and SVG, no scripts) with a chart of per-node perf.")
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite --output if it exists.")
@click.option("--perf-threshold", type=click.FloatRange(1.0, 100.0), default=80.0, show_default=True,
              metavar="PCT", help="A node is a perf outlier below PCT percent of the median of its GPU-model peers.")
@click.option("--color/--no-color", default=None, help="Colour text output (default: when stdout is a terminal "
              "and NO_COLOR is unset).")
def fleet_report(
    directory: str, fmt: str, output: str | None, force: bool, perf_threshold: float, color: bool | None,
) -> None:
    """Read the nodes' JSON results in DIR (and its subfolders): group nodes by fingerprint, list findings
    by how many nodes have them, and name outliers — a driver or cuDNN other than the majority's, a minority
    fingerprint, or a perf number below --perf-threshold (80%) of the median of the node's GPU-model peers.

    \b
    Reads preflight.json (envguard preflight) and `envguard check|smoke --format json` output, one node per
    file. A file from an older or newer envguard, a truncated file, another command's result or a node with
    missing facts is listed under problems; the rest of the report is still produced.
    Exit: 0 one fingerprint, no outliers, no error finding; 1 outliers, several fingerprints or an error
    finding on some node; 3 no file could be read (or DIR is not a folder).
    """
    from envguard.formatters.fleet import fleet_html, fleet_json, fleet_text

    try:
        if output:
            _io.check_output(output, force=force)
        report = use.fleet_report(directory, perf_threshold=perf_threshold / 100.0)
        code = EXIT_CANNOT_RUN if not report.readable else EXIT_OK if report.ok else EXIT_FINDINGS
        colored = output is None and fmt == "text" and use_color(color)
        if fmt == "json":
            text = fleet_json(report, code)
        elif fmt == "html":
            text = fleet_html(report, code)
        else:
            text = fleet_text(report, code, color=colored, width=shutil.get_terminal_size((110, 24)).columns)
        emit(text, output or None, force=force, what="the fleet report", color=colored)
    except EnvguardError as exc:
        fail(exc, fmt, "fleet report")
    raise SystemExit(code)
