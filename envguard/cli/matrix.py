"""`envguard matrix torch|cuda`: questions to the knowledge."""

from __future__ import annotations

from collections.abc import Callable

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
    """Query the compatibility matrices: which torch, TensorFlow, jax or PaddlePaddle builds run where, and
    what CUDA a driver runs."""


_driver_option = click.option("--driver", metavar="VERSION", help="NVIDIA driver version, e.g. 470.82.01.")


_os_option = click.option("--os", "system", type=click.Choice(["linux", "windows"]), default="linux",
                          show_default=True)


def _width() -> int:
    """The terminal's width, or 0 (nothing wrapped) when stdout is a pipe or a file."""
    import shutil
    import sys

    return shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() else 0


def _exit_code(rows: tuple[object, ...], gpu_asked: bool) -> int:
    """0 when a build runs (a GPU build, when a GPU was named), else 1."""
    def counts(row: object) -> bool:
        on_gpu = getattr(row, "cuda", None) is not None or getattr(getattr(row, "variant", None), "cuda", None)
        return bool(getattr(row, "runs", False)) and (not gpu_asked or bool(on_gpu))

    return EXIT_OK if any(counts(r) for r in rows) else EXIT_FINDINGS


def _constraint_options(func: Callable[..., None]) -> Callable[..., None]:
    for option in reversed((
        _driver_option,
        click.option("--gpu", metavar="NAME", help='GPU product name, e.g. "GTX 1080" or "H100 80GB HBM3".'),
        click.option("--cc", metavar="X.Y", help="Compute capability instead of --gpu, e.g. 8.6."),
        click.option("--python", "python_version", metavar="X.Y", help="Python version, e.g. 3.8."),
        _os_option,
        click.option("--all", "show_all", is_flag=True, help="Also list the builds that do not run, with the reason."),
        click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True),
    )):
        func = option(func)
    return func


@matrix.command("torch")
@_constraint_options
def matrix_torch(
    driver: str | None, gpu: str | None, cc: str | None, python_version: str | None, system: str, show_all: bool,
    fmt: str,
) -> None:
    """Which torch releases and variants run here, newest first, with the install command (exit 1: none; with
    --gpu/--cc: no GPU build)."""
    from envguard.formatters.queries import torch_json, torch_text

    try:
        rows, resolved = use.matrix_torch(driver=driver, gpu=gpu, cc=cc, python=python_version, system=system)
        code = _exit_code(rows, resolved is not None)
        constraints = {"driver": driver, "gpu": gpu, "cc": resolved, "python": python_version, "os": system}
        if fmt == "json":
            click.echo(torch_json(rows, constraints, code), nl=False)
        else:
            described = ", ".join(f"{k} {v}" for k, v in constraints.items() if v) or "no constraints"
            click.echo(torch_text(rows, described, show_all=show_all, width=_width()), nl=False)
    except EnvguardError as exc:
        fail(exc, fmt, "matrix torch")
    raise SystemExit(code)


def _framework_command(framework: str, title: str) -> click.Command:
    @_constraint_options
    def command(
        driver: str | None, gpu: str | None, cc: str | None, python_version: str | None, system: str,
        show_all: bool, fmt: str,
    ) -> None:
        from envguard.formatters.queries import builds_json, builds_text

        try:
            rows, resolved = use.matrix_framework(framework, driver=driver, gpu=gpu, cc=cc, python=python_version,
                                                  system=system)
            code = _exit_code(rows, resolved is not None)
            constraints = {"driver": driver, "gpu": gpu, "cc": resolved, "python": python_version, "os": system}
            if fmt == "json":
                click.echo(builds_json(framework, rows, constraints, code), nl=False)
            else:
                described = ", ".join(f"{k} {v}" for k, v in constraints.items() if v) or "no constraints"
                click.echo(builds_text(framework, rows, described, gpu_asked=resolved is not None,
                                       show_all=show_all, width=_width()), nl=False)
        except EnvguardError as exc:
            fail(exc, fmt, f"matrix {framework}")
        raise SystemExit(code)

    command.__doc__ = (f"Which {title} releases and builds run here, newest first, with the install command "
                       "(exit 1: none; with --gpu/--cc: no GPU build).")
    return matrix.command(framework)(command)


matrix_tensorflow = _framework_command("tensorflow", "TensorFlow")
matrix_jax = _framework_command("jax", "jax")
matrix_paddle = _framework_command("paddle", "PaddlePaddle")


@matrix.command("cuda")
@click.option("--driver", metavar="VERSION", required=True, help="NVIDIA driver version, e.g. 535.104.05.")
@_os_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def matrix_cuda(driver: str, system: str, fmt: str) -> None:
    """The newest CUDA a driver runs, natively and by minor-version compatibility (exit 1: none)."""
    from envguard.formatters.queries import cuda_json, cuda_text

    try:
        answer = use.matrix_cuda(driver, system)
        # NOTE: a driver that runs no CUDA at all is an answer, but not a good one: exit 1, as `matrix torch`.
        code = EXIT_OK if answer.newest_native is not None or answer.compatible_majors else EXIT_FINDINGS
        click.echo(cuda_json(answer, code) if fmt == "json" else cuda_text(answer), nl=False)
    except EnvguardError as exc:
        fail(exc, fmt, "matrix cuda")
    raise SystemExit(code)
