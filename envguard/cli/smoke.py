"""`envguard smoke` and `envguard fingerprint [diff]`."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from envguard.cli._shared import (
    EXIT_FINGERPRINT_DIFFERS,
    EXIT_OK,
    EXIT_SMOKE_FAILED,
    Seconds,
    emit,
    fail,
    python_option,
    split_values,
    use_color,
)
from envguard.commands import _io, _probe
from envguard.commands import smoke as use
from envguard.errors import EnvguardError
from envguard.interrupts import exit_130_on_interrupt


@click.command()
@python_option
@click.option("--level", type=click.IntRange(1, 3), default=2, show_default=True,
              help="1: seconds (one step per case); 2: every case; 3: longer perf and stress.")
@click.option("--only", multiple=True, metavar="CASE[,CASE]", help="Run only these cases.")
@click.option("--skip", multiple=True, metavar="CASE[,CASE]", help="Skip these cases.")
@click.option("--timeout", "timeout_s", type=Seconds(1.0), default=None,
              help="Seconds each case may take (default by level: 120/300/900); a hung case is killed.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--nproc-per-node", type=click.IntRange(1), default=None,
              help="DDP ranks per node (default: one per visible GPU over NCCL, else 2 on the CPU).")
@click.option("--nnodes", type=click.IntRange(1), default=1, show_default=True, help="DDP nodes (multi-node).")
@click.option("--node-rank", type=click.IntRange(0), default=0, show_default=True)
@click.option("--rdzv-endpoint", metavar="HOST:PORT", help="c10d rendezvous endpoint for multi-node DDP.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--junit", "junit_file", metavar="FILE", help="Also write JUnit XML (one test case per smoke case).")
@click.option("--fingerprint-out", metavar="FILE", help="Also write the fingerprint file.")
@click.option("--force", is_flag=True, help="Overwrite --junit/--fingerprint-out files.")
@exit_130_on_interrupt
def smoke(
    target_python: str, level: int, only: tuple[str, ...], skip: tuple[str, ...], timeout_s: float | None,
    device: str, nproc_per_node: int | None, nnodes: int, node_rank: int, rdzv_endpoint: str | None, fmt: str,
    junit_file: str | None, fingerprint_out: str | None, force: bool,
) -> None:
    """Run a short real training suite (AMP, DDP, dataloader, determinism, gradcheck, perf) and fingerprint it.

    Each case runs in the target interpreter as its own subprocess with a timeout; a crash or hang fails
    that case and the suite goes on. Exit 4 when a case fails, errors or times out, or nothing was tested.
    """
    from envguard.formatters.smoke import smoke_json, smoke_junit, smoke_markdown, smoke_text
    from envguard.smoke import DistOptions, select_cases

    try:
        try:
            cases = select_cases(level, split_values(only), split_values(skip))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        if nnodes > 1 and not rdzv_endpoint:
            raise click.UsageError("--nnodes > 1 needs --rdzv-endpoint HOST:PORT (the same on every node)")
        for out_file in (junit_file, fingerprint_out):
            if out_file:
                _io.check_output(out_file, force=force)
        progress = _smoke_progress() if fmt == "text" and sys.stderr.isatty() else None
        run, fingerprint = use.smoke(
            # NOTE: the per-case --timeout also bounds the probes of the target interpreter (at most the default 10 s).
            _probe.ProbeOptions(target_python, timeout_s=min(timeout_s or 10.0, 10.0)), level=level, cases=cases,
            timeout_s=timeout_s, device=device,
            dist=DistOptions(nproc_per_node, nnodes, node_rank, rdzv_endpoint), on_event=progress,
        )
        code = EXIT_SMOKE_FAILED if run.failed else EXIT_OK
        if junit_file:
            _io.write_atomic(junit_file, smoke_junit(run), force=force)
        if fingerprint_out:
            _io.write_atomic(fingerprint_out, use.fingerprint_json(fingerprint), force=force)
        if fmt == "json":
            click.echo(smoke_json(run, fingerprint, code), nl=False)
        elif fmt == "markdown":
            click.echo(smoke_markdown(run, fingerprint), nl=False)
        else:
            click.echo(smoke_text(run, fingerprint, color=use_color(None)), nl=False, color=use_color(None))
    except EnvguardError as exc:
        fail(exc, fmt, "smoke")
    raise SystemExit(code)


def _smoke_progress() -> Callable[[str, object], None]:
    """A live spinner per running case and one line per finished case, on stderr (a terminal only)."""
    from rich.console import Console
    from rich.status import Status

    console = Console(stderr=True, highlight=False)
    current: list[Status] = []
    colors = {"passed": "green", "skipped": "yellow"}

    def event(case: str, result: object) -> None:
        if current:
            current.pop().stop()
        if result is None:
            status = console.status(f"envguard smoke: running [bold]{case}[/] ...")
            status.start()
            current.append(status)
            return
        state = getattr(getattr(result, "status", None), "value", "?")
        seconds = getattr(result, "duration_s", 0.0)
        console.print(f"  [{colors.get(state, 'bold red')}]{state:8}[/] {case} ({seconds:.1f}s)")

    return event


@click.group(invoke_without_command=True)
@python_option
@click.option("-o", "--output", metavar="FILE", default="-", show_default=True,
              help="Where to write the fingerprint JSON ('-' for stdout).")
@click.option("--force", is_flag=True, help="Overwrite --output if it exists.")
@click.pass_context
def fingerprint(ctx: click.Context, target_python: str, output: str, force: bool) -> None:
    """Fingerprint this environment (driver, GPUs, CUDA, cuDNN, NCCL, Python, framework builds, packages).

    `envguard fingerprint diff A B [C ...]` compares fingerprint files (exit 5 when they differ).
    """
    if ctx.invoked_subcommand is not None:
        return
    try:
        if output != "-":
            _io.check_output(output, force=force)
        text = use.fingerprint_json(use.environment_fingerprint(_probe.ProbeOptions(target_python)))
        emit(text, output, force=force, what="fingerprint")
    except EnvguardError as exc:
        fail(exc, "text", "fingerprint")


@fingerprint.command("diff")
@click.argument("files", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def fingerprint_diff(files: tuple[str, ...], fmt: str) -> None:
    """Name each component that differs between fingerprints; with many files, group nodes and name outliers."""
    from envguard.fingerprints import diff, fleet
    from envguard.formatters.smoke import diff_json, diff_text, fleet_text

    try:
        if len(files) < 2:
            raise click.UsageError("give at least two fingerprint files")
        prints = [(name, use.read_fingerprint(name)) for name in files]
        groups = fleet(prints)
        code = EXIT_FINGERPRINT_DIFFERS if len(groups) > 1 else EXIT_OK
        if fmt == "json":
            click.echo(diff_json(groups, code), nl=False)
        elif len(files) == 2:
            click.echo(diff_text(files[0], files[1], diff(prints[0][1], prints[1][1])), nl=False)
        else:
            click.echo(fleet_text(groups), nl=False)
    except EnvguardError as exc:
        fail(exc, fmt, "fingerprint diff")
    raise SystemExit(code)
