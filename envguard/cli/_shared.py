"""What every command module of the CLI shares: exit codes, common options, colour choice, the error line."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from typing import NoReturn

import click

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_CANNOT_RUN = 3
EXIT_SMOKE_FAILED = 4
EXIT_FINGERPRINT_DIFFERS = 5


def use_color(flag: bool | None) -> bool:
    """Colour when asked, else when stdout is a terminal and NO_COLOR/TERM=dumb do not say otherwise."""
    if flag is not None:
        return flag
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def fail(error: str | BaseException, fmt: str, command: str, extra: Mapping[str, object] | None = None) -> NoReturn:
    """Report that envguard could not run: one line on stderr (and one JSON envelope in json mode, with
    ``extra`` keys such as lock's ``plan``). Credentials in URLs are redacted (``--index-url
    https://user:SECRET@...`` is echoed in errors).

    An ``envguard.errors.UsageError`` (an option value envguard cannot use) exits 2, like click's own usage
    errors; anything else exits 3.
    """
    from envguard._redact import redact_urls
    from envguard.errors import UsageError

    code = EXIT_USAGE if isinstance(error, UsageError) else EXIT_CANNOT_RUN
    message = redact_urls(str(error))
    if fmt == "json":
        from envguard.formatters.json import error_envelope

        click.echo(error_envelope(command, message, code, extra), nl=False)
    click.echo(f"envguard: error: {message}", err=True)
    raise SystemExit(code)


def split_values(values: tuple[str, ...]) -> tuple[str, ...]:
    """Repeated and comma-separated option values, flattened ("a,b" "c" → a, b, c)."""
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


class Seconds(click.FloatRange):
    """A finite number of seconds in ``[minimum, maximum]`` (``nan``, ``inf`` and ``1e308`` are usage errors)."""

    name = "seconds"

    def __init__(self, minimum: float, maximum: float = 7 * 86400.0) -> None:
        super().__init__(min=minimum, max=maximum)

    def convert(self, value: float, param: click.Parameter | None, ctx: click.Context | None) -> float:
        seconds = float(super().convert(value, param, ctx))
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return seconds


python_option = click.option(
    "--python", "target_python", default=sys.executable, show_default="this interpreter",
    help="Interpreter (or virtualenv folder) whose frameworks to inspect.",
)
deep_option = click.option(
    "--deep", is_flag=True,
    help="Also import each framework (in its own subprocess, in parallel) for runtime facts.",
)
timeout_option = click.option(
    "--timeout", "timeout_s", type=Seconds(0.1), default=10.0, show_default=True,
    help="Seconds any single external call (nvidia-smi, nvcc, NVML) may take; the target interpreter gets 3x "
         "(6x per --deep import).",
)


def emit(text: str, output: str | None, *, force: bool, what: str, color: bool = False) -> None:
    """``text`` on stdout when ``output`` is None or "-", else written to ``output`` atomically, saying so on
    stderr ("envguard: wrote the snapshot to FILE")."""
    if output is None or output == "-":
        click.echo(text, nl=False, color=color)
        return
    from envguard.commands import _io

    _io.write_atomic(output, text, force=force)
    click.echo(f"envguard: wrote {what} to {output}", err=True)
