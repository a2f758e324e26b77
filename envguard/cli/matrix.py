"""`envguard matrix torch|cuda`: questions to the knowledge."""

from __future__ import annotations

import click

from envguard.cli._shared import (
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
)
from envguard.commands import query as use
from envguard.errors import EnvguardError


@click.group()
def matrix() -> None:
    """Query the compatibility matrices (which builds run where)."""


_driver_option = click.option("--driver", metavar="VERSION", help="NVIDIA driver version, e.g. 470.82.01.")


_os_option = click.option("--os", "system", type=click.Choice(["linux", "windows"]), default="linux",
                          show_default=True)


@matrix.command("torch")
@_driver_option
@click.option("--gpu", metavar="NAME", help='GPU product name, e.g. "GTX 1080" or "H100 80GB HBM3".')
@click.option("--cc", metavar="X.Y", help="Compute capability instead of --gpu, e.g. 8.6.")
@click.option("--python", "python_version", metavar="X.Y", help="Python version, e.g. 3.8.")
@_os_option
@click.option("--all", "show_all", is_flag=True, help="Also list the builds that do not run, with the reason.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def matrix_torch(
    driver: str | None, gpu: str | None, cc: str | None, python_version: str | None, system: str, show_all: bool,
    fmt: str,
) -> None:
    """Which torch releases and variants run here, newest first, with the install command (exit 1: none)."""
    from envguard.formatters.queries import torch_json, torch_text

    try:
        rows, resolved = use.matrix_torch(driver=driver, gpu=gpu, cc=cc, python=python_version, system=system)
        code = EXIT_OK if any(r.runs for r in rows) else EXIT_FINDINGS
        constraints = {"driver": driver, "gpu": gpu, "cc": resolved, "python": python_version, "os": system}
        if fmt == "json":
            click.echo(torch_json(rows, constraints, code), nl=False)
        else:
            described = ", ".join(f"{k} {v}" for k, v in constraints.items() if v) or "no constraints"
            click.echo(torch_text(rows, described, show_all=show_all), nl=False)
    except EnvguardError as exc:
        fail(exc, fmt, "matrix torch")
    raise SystemExit(code)


@matrix.command("cuda")
@click.option("--driver", metavar="VERSION", required=True, help="NVIDIA driver version, e.g. 535.104.05.")
@_os_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def matrix_cuda(driver: str, system: str, fmt: str) -> None:
    """The newest CUDA a driver runs, natively and by minor-version compatibility."""
    from envguard.formatters.queries import cuda_json, cuda_text

    try:
        answer = use.matrix_cuda(driver, system)
        click.echo(cuda_json(answer) if fmt == "json" else cuda_text(answer), nl=False)
    except EnvguardError as exc:
        fail(exc, fmt, "matrix cuda")
