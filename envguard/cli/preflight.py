"""`envguard preflight`."""

from __future__ import annotations

import os

import click

from envguard.cli._shared import (
    Seconds,
    deep_option,
    fail,
    python_option,
    timeout_option,
)
from envguard.commands import preflight as use
from envguard.errors import EnvguardError
from envguard.interrupts import exit_130_on_interrupt


@click.command()
@python_option
@click.option("--lock", "lock_file", metavar="FILE|DIR",
              help="Verify against this lock (default: ./envguard.lock.json when present).")
@click.option("--no-verify", is_flag=True, help="Do not verify, even when a lock is found.")
@click.option("--no-files", is_flag=True, help="verify: skip hashing installed files against their RECORD.")
@click.option("--smoke-level", type=click.IntRange(0, 3), default=1, show_default=True,
              help="Smoke suite level (0 skips the smoke step).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@deep_option
@click.option("--budget", "budget_s", type=Seconds(1.0), default=None, metavar="SECONDS",
              help="Skip the steps that would not fit in this many seconds (and say so).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="error", show_default=True,
              help="check findings at or above this severity fail the gate.")
@click.option("--out", "out_dir", default="envguard-preflight", show_default=True, metavar="DIR",
              help="Folder for preflight.json, junit.xml, summary.md and fingerprint.json.")
@click.option("--force", is_flag=True, help="Overwrite the files in --out.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="What to print: the verdict and summary, or preflight.json.")
@timeout_option
@exit_130_on_interrupt
def preflight(
    target_python: str, lock_file: str | None, no_verify: bool, no_files: bool, smoke_level: int, device: str,
    deep: bool, budget_s: float | None, fail_on: str, out_dir: str, force: bool, fmt: str, timeout_s: float,
) -> None:
    """The CI gate in front of a GPU job: check, verify against the lock, smoke; one exit code.

    \b
    Exit: 0 ok; 1 check findings at or above --fail-on, or drift from the lock; 3 a step could not
    run (bad lock, missing interpreter ...); 4 a smoke case failed. Writes --out/preflight.json (read by
    `envguard fleet report`), junit.xml (a test case per finding, drift and smoke case), summary.md (also
    appended to $GITHUB_STEP_SUMMARY) and fingerprint.json; prints GitHub annotations under GitHub Actions.
    """
    from envguard.formatters.preflight import github_annotations, preflight_json, preflight_verdict

    try:
        if lock_file is not None and no_verify:
            raise click.UsageError("use either --lock or --no-verify")
        options = use.PreflightOptions(target_python, lock=lock_file, find_lock=not no_verify,
                                       smoke_level=smoke_level, deep=deep, budget_s=budget_s, fail_on=fail_on,
                                       timeout_s=timeout_s, device=device, verify_files=not no_files)
        use.check_preflight_out(out_dir, force=force)
        result = use.preflight(options)
        written = use.write_preflight(result, out_dir, force=force)
    except EnvguardError as exc:
        fail(exc, fmt, "preflight")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        # NOTE: the runner reads workflow commands on stderr too; stdout stays one JSON object.
        for line in github_annotations(result):
            click.echo(line, err=fmt == "json")
    if fmt == "json":
        click.echo(preflight_json(result), nl=False)
    else:
        click.echo(preflight_verdict(result))
        for path in written:
            click.echo(f"  wrote {path}")
    raise SystemExit(result.exit_code)
