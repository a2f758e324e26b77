"""The command line: the click group; each command lives in its own module and is imported only when it runs.

Every command module only parses options, calls its use case in ``envguard.commands``, picks a formatter,
prints and chooses the exit code.
"""

from __future__ import annotations

import logging
import os
import sys
from importlib import import_module
from typing import NoReturn

import click

from envguard._version import __version__
from envguard.cli._shared import EXIT_CANNOT_RUN, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, use_color

__all__ = ["EXIT_CANNOT_RUN", "EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "main", "run", "use_color"]

#: command name → "module:attribute" of its click command (imported on first use).
COMMANDS = {
    "check": "envguard.cli.check:check",
    "snapshot": "envguard.cli.check:snapshot",
    "explain": "envguard.cli.explain:explain",
    "matrix": "envguard.cli.matrix:matrix",
    "smoke": "envguard.cli.smoke:smoke",
    "fingerprint": "envguard.cli.smoke:fingerprint",
    "lock": "envguard.cli.lock:lock",
    "verify": "envguard.cli.lock:verify",
    "sync": "envguard.cli.lock:sync",
    "preflight": "envguard.cli.preflight:preflight",
    "fleet": "envguard.cli.fleet:fleet_group",
    "init": "envguard.cli.init:init_group",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported when they are looked up (click's documented lazy-loading pattern)."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type] # reason: click's own signature
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:  # noqa: ARG002 - click's signature
        return list(self.lazy)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:  # noqa: ARG002
        target = self.lazy.get(cmd_name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        command = getattr(import_module(module), attr)
        if not isinstance(command, click.Command):  # pragma: no cover - a wiring mistake, caught by the tests
            raise TypeError(f"{target} is not a click command")
        return command

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand. A usage error under ``--format json``/``--json`` also prints one JSON envelope; an
        unexpected exception is exit 3 and one line, never a traceback with exit 1 (the "findings" code a CI gate
        acts on). ``-vv`` logs the traceback too."""
        from envguard import _subprocess

        _subprocess.install_signal_handlers()
        # NOTE: click keeps the subcommand's name apart until invoke (protected_args is deprecated for _protected_args).
        args = [*getattr(ctx, "_protected_args", ()), *ctx.args]
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            if _wants_json(args):
                from envguard.formatters.json import error_envelope

                failing = exc.ctx.command_path if exc.ctx is not None else ""
                command = failing.partition(" ")[2] or (args[0] if args else "envguard")
                click.echo(error_envelope(command, exc.format_message(), exc.exit_code), nl=False)
            raise
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # reason: the last-resort handler of the CLI
            logging.getLogger("envguard").debug("unexpected error", exc_info=True)
            from envguard._redact import redact_urls

            message = redact_urls(" ".join(str(exc).split()))[:300] or "no detail"
            click.echo(f"envguard: error: internal error ({type(exc).__name__}: {message}); "
                       "rerun with -vv for the traceback", err=True)
            raise SystemExit(EXIT_CANNOT_RUN) from None


def _wants_json(args: list[str]) -> bool:
    """Whether the raw arguments ask for JSON output (``lock`` spells it --json; its --format lists files)."""
    if "--json" in args:
        return True
    if args[:1] == ["lock"]:
        return False
    pairs = zip(args, [*args[1:], ""], strict=True)
    return any((a == "--format" and b == "json") or a == "--format=json" for a, b in pairs)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: envguard's version and each matrix file's ``retrieved`` date (headers only: fast)."""
    if not value or ctx.resilient_parsing:
        return
    # NOTE: resources, not envguard.knowledge: the table loaders and their imports are not needed for headers.
    from envguard.resources import data_dir, matrix_header

    click.echo(f"envguard, version {__version__}")
    root = data_dir("matrices")
    rows = []
    try:
        names = sorted(node.name[:-5] for node in root.iterdir() if node.name.endswith(".toml"))
        for name in names:
            head = matrix_header(root, name)
            rows.append(f"  {name + '.toml':<18} v{head.get('schema_version', '?')}  "
                        f"retrieved {head.get('retrieved', 'unknown')}")
    except (OSError, ValueError) as exc:
        click.echo(f"matrices: cannot read the matrices in {root}: {exc}")
        ctx.exit(EXIT_CANNOT_RUN)
    if not rows:
        click.echo(f"matrices: no matrix files in {root}")
        ctx.exit(EXIT_CANNOT_RUN)
    click.echo(f"matrices ({root}):")
    click.echo("\n".join(rows))
    ctx.exit(EXIT_OK)


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


@click.group(cls=LazyGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and each matrix file's retrieved date, and exit.")
@click.option("-v", "--verbose", count=True,
              help="Log each command envguard runs, with its wall time (-vv: also details).")
@click.option("-q", "--quiet", is_flag=True, help="Log errors only.")
def main(verbose: int, quiet: bool) -> None:
    """Check deep-learning GPU environments against sourced compatibility matrices.

    \b
    Exit codes: 0 ok, 1 findings at or above --fail-on (or drift from a lock), 2 usage error,
    3 envguard could not run (bad input, missing interpreter, unreadable matrix),
    4 a smoke case failed, 5 fingerprints differ (fingerprint diff).
    """
    _configure_logging(verbose, quiet)


def run() -> NoReturn:
    """The console script (and ``python -m envguard``): run the command, then leave without tearing the
    interpreter down.

    A `check` has imported ~100 modules and built thousands of objects; freeing them one by one at exit
    (interpreter finalisation) took 25-60 ms of every run — a sixth of `check`. The command has finished: what
    it writes is written through atomic renames and closed files, so when no other thread is alive this runs
    the atexit handlers (logging's flush among them), flushes stdout and stderr, and ends the process with
    ``os._exit``. With another thread alive it exits normally, so that thread is joined as usual.
    """
    try:
        main()  # NOTE: click's standalone mode: always ends in SystemExit
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if not isinstance(code, int):
        if code is not None:  # NOTE: what the interpreter does with a non-integer exit code
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()  # NOTE: what interpreter shutdown would run next (logging.shutdown among them)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # NOTE: a closed pipe: the interpreter's own exit status for it is 120
            code = code or 120
    os._exit(code)

