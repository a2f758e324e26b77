"""The command line: parse options, call app, pick a formatter, print, choose the exit code."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Callable
from typing import NoReturn

import click

from envguard import app
from envguard._version import __version__
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
    from envguard.formatters import make_formatter

    try:
        options = app.ProbeOptions(target_python, deep, timeout_s)
        if sum(x is not None for x in (report_file, snapshot_file, image_ref)) > 1:
            raise click.UsageError("use only one of --from, --snapshot and --image")
        if image_ref is not None:
            report = app.check_image(image_ref, timeout_s=max(timeout_s, 60.0))
        elif report_file is not None:
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


@main.command()
@click.argument("text", nargs=-1)
@click.option("--from", "report_file", metavar="FILE", help="Check the causes against a pasted report's facts.")
@click.option("--snapshot", "snapshot_file", metavar="FILE", help="Check the causes against a saved snapshot.")
@click.option("--no-check", is_flag=True, help="Only explain; do not probe this machine for facts.")
@_python_option
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
            body = app.read_text_input("-", stdin=sys.stdin.buffer.read(), what="text")[0]
        elif len(text) == 1 and os.path.isfile(joined):
            body = app.read_text_input(joined, what="log")[0]
        else:
            body = joined
        result = app.explain_text(body, report_file=report_file, snapshot_file=snapshot_file,
                                  probe=None if no_check else app.ProbeOptions(target_python))
        code = EXIT_FINDINGS if any(v.status == "confirmed" for v in result.verdicts) else EXIT_OK
        out = explain_json(result, code) if fmt == "json" else explain_text(result, color=_use_color(None))
        click.echo(out, nl=False, color=_use_color(None) and fmt == "text")
    except EnvguardError as exc:
        _fail(str(exc), fmt, "explain")
    raise SystemExit(code)


@main.group()
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
        rows, resolved = app.matrix_torch(driver=driver, gpu=gpu, cc=cc, python=python_version, system=system)
        code = EXIT_OK if any(r.runs for r in rows) else EXIT_FINDINGS
        constraints = {"driver": driver, "gpu": gpu, "cc": resolved, "python": python_version, "os": system}
        if fmt == "json":
            click.echo(torch_json(rows, constraints, code), nl=False)
        else:
            described = ", ".join(f"{k} {v}" for k, v in constraints.items() if v) or "no constraints"
            click.echo(torch_text(rows, described, show_all=show_all), nl=False)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "matrix torch")
    raise SystemExit(code)


@matrix.command("cuda")
@click.option("--driver", metavar="VERSION", required=True, help="NVIDIA driver version, e.g. 535.104.05.")
@_os_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def matrix_cuda(driver: str, system: str, fmt: str) -> None:
    """The newest CUDA a driver runs, natively and by minor-version compatibility."""
    from envguard.formatters.queries import cuda_json, cuda_text

    try:
        answer = app.matrix_cuda(driver, system)
        click.echo(cuda_json(answer) if fmt == "json" else cuda_text(answer), nl=False)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "matrix cuda")


EXIT_SMOKE_FAILED = 4
EXIT_FINGERPRINT_DIFFERS = 5


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


@main.command()
@_python_option
@click.option("--level", type=click.IntRange(1, 3), default=2, show_default=True,
              help="1: seconds (one step per case); 2: every case; 3: longer perf and stress.")
@click.option("--only", multiple=True, metavar="CASE[,CASE]", help="Run only these cases.")
@click.option("--skip", multiple=True, metavar="CASE[,CASE]", help="Skip these cases.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1.0), default=None,
              help="Seconds each case may take (default by level: 120/300/900); a hung case is killed.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--nproc-per-node", type=click.IntRange(1), default=None,
              help="DDP ranks per node (default: every GPU when there are two or more, else 2 on the CPU).")
@click.option("--nnodes", type=click.IntRange(1), default=1, show_default=True, help="DDP nodes (multi-node).")
@click.option("--node-rank", type=click.IntRange(0), default=0, show_default=True)
@click.option("--rdzv-endpoint", metavar="HOST:PORT", help="c10d rendezvous endpoint for multi-node DDP.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--junit", "junit_file", metavar="FILE", help="Also write JUnit XML (one test case per smoke case).")
@click.option("--fingerprint-out", metavar="FILE", help="Also write the fingerprint file.")
@click.option("--force", is_flag=True, help="Overwrite --junit/--fingerprint-out files.")
def smoke(
    target_python: str, level: int, only: tuple[str, ...], skip: tuple[str, ...], timeout_s: float | None,
    device: str, nproc_per_node: int | None, nnodes: int, node_rank: int, rdzv_endpoint: str | None, fmt: str,
    junit_file: str | None, fingerprint_out: str | None, force: bool,
) -> None:
    """Run a short real training suite (AMP, DDP, dataloader, determinism, gradcheck, perf) and fingerprint it.

    Each case runs in the target interpreter as its own subprocess with a timeout; a crash or hang fails
    that case and the suite goes on. Exit 4 when a case fails, errors or times out.
    """
    from envguard.formatters.smoke import smoke_json, smoke_junit, smoke_markdown, smoke_text
    from envguard.smoke import DistOptions, select_cases

    try:
        try:
            cases = select_cases(level, _split(only), _split(skip))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        if nnodes > 1 and not rdzv_endpoint:
            raise click.UsageError("--nnodes > 1 needs --rdzv-endpoint HOST:PORT (the same on every node)")
        progress = _smoke_progress() if fmt == "text" and sys.stderr.isatty() else None
        run, fingerprint = app.smoke(
            app.ProbeOptions(target_python), level=level, cases=cases, timeout_s=timeout_s, device=device,
            dist=DistOptions(nproc_per_node, nnodes, node_rank, rdzv_endpoint), on_event=progress,
        )
        code = EXIT_SMOKE_FAILED if run.failed else EXIT_OK
        if junit_file:
            app.write_atomic(junit_file, smoke_junit(run), force=force)
        if fingerprint_out:
            app.write_atomic(fingerprint_out, app.fingerprint_json(fingerprint), force=force)
        if fmt == "json":
            click.echo(smoke_json(run, fingerprint, code), nl=False)
        elif fmt == "markdown":
            click.echo(smoke_markdown(run, fingerprint), nl=False)
        else:
            click.echo(smoke_text(run, fingerprint, color=_use_color(None)), nl=False, color=_use_color(None))
    except EnvguardError as exc:
        _fail(str(exc), fmt, "smoke")
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


@main.group(invoke_without_command=True)
@_python_option
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
        text = app.fingerprint_json(app.environment_fingerprint(app.ProbeOptions(target_python)))
        if output == "-":
            click.echo(text, nl=False)
        else:
            app.write_atomic(output, text, force=force)
            click.echo(f"envguard: wrote fingerprint to {output}", err=True)
    except EnvguardError as exc:
        _fail(str(exc), "text", "fingerprint")


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
        prints = [(name, app.read_fingerprint(name)) for name in files]
        groups = fleet(prints)
        code = EXIT_FINGERPRINT_DIFFERS if len(groups) > 1 else EXIT_OK
        if fmt == "json":
            click.echo(diff_json(groups, code), nl=False)
        elif len(files) == 2:
            click.echo(diff_text(files[0], files[1], diff(prints[0][1], prints[1][1])), nl=False)
        else:
            click.echo(fleet_text(groups), nl=False)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "fingerprint diff")
    raise SystemExit(code)


# ---- lock / verify -------------------------------------------------------------------------


def _formats(value: str) -> tuple[str, ...]:
    items = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    unknown = [i for i in items if i not in app.LOCK_FORMATS]
    if unknown or not items:
        raise click.BadParameter(f"{','.join(unknown) or value!r}: choose from {','.join(app.LOCK_FORMATS)}",
                                 param_hint="--format")
    return items


@main.command()
@click.argument("requirements", nargs=-1)
@click.option("-r", "--requirement", "requirement_files", multiple=True, metavar="FILE",
              help="Read requirements from FILE (one PEP 508 requirement per line; '-' for stdin).")
@click.option("--pyproject", metavar="FILE", help="Lock the [project].dependencies of a pyproject.toml.")
@click.option("--from-current", is_flag=True, help="Lock what the --python interpreter has installed "
              "(exact versions, local variants such as +cu124 included).")
@click.option("--python", "python", default=None, metavar="PATH|X.Y",
              help="Interpreter or virtualenv folder to lock for (or from, with --from-current), or a Python "
                   "version such as 3.11.  [default: this interpreter]")
@click.option("--cuda", default=None, metavar="X.Y|auto|cpu",
              help="CUDA of the framework build: a version, 'auto' (newest build this host's driver AND GPUs "
                   "run, per the matrices) or 'cpu'.  [default: auto; --from-current: the installed build]")
@click.option("--platform", "platform_", type=click.Choice(["linux-x86_64", "linux-aarch64"]), default=None,
              help="Platform to lock for.  [default: the interpreter's]")
@click.option("--format", "fmt", default="pip,conda,docker,json", show_default=True, metavar="LIST",
              help="Comma-separated outputs: pip (requirements.lock.txt), conda (environment.yml), docker "
                   "(Dockerfile), json (envguard.lock.json).")
@click.option("-o", "--output-dir", default=".", show_default=True, metavar="DIR", help="Folder to write into.")
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@click.option("--dry-run", is_flag=True, help="Resolve and print what would be written; write nothing.")
@click.option("--resolver", type=click.Choice(["auto", "uv", "pip"]), default="auto", show_default=True,
              help="auto: uv when installed, otherwise pip's resolver.")
@click.option("--index-url", metavar="URL", help="Base package index (default: the installer's own).")
@click.option("--extra-index-url", "extra_index_urls", multiple=True, metavar="URL", help="An additional index.")
@click.option("--find-links", multiple=True, metavar="DIR", help="Also look for files in DIR (a wheelhouse).")
@click.option("--no-index", is_flag=True, help="Use no index, only --find-links.")
@click.option("--base-image", metavar="IMAGE", help="Dockerfile base instead of the matrices' nvidia/cuda image.")
@click.option("--wheelhouse", metavar="DIR", help="Copy the locked files from DIR into the build context and "
              "install from there with no index access (air-gapped builds).")
@click.option("--build", is_flag=True, help="Build the Dockerfile with the local Docker engine.")
@click.option("--tag", metavar="IMAGE", help="Tag for --build.  [default: envguard-lock:<fingerprint>]")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Seconds the resolver may take.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON envelope instead of text.")
def lock(
    requirements: tuple[str, ...], requirement_files: tuple[str, ...], pyproject: str | None, from_current: bool,
    python: str | None, cuda: str | None, platform_: str | None, fmt: str, output_dir: str, force: bool,
    dry_run: bool, resolver: str, index_url: str | None, extra_index_urls: tuple[str, ...],
    find_links: tuple[str, ...], no_index: bool, base_image: str | None, wheelhouse: str | None, build: bool,
    tag: str | None, timeout_s: float, as_json: bool,
) -> None:
    """Lock an environment to exact, hash-checked pins matched to its CUDA build.

    \b
    envguard lock "torch==2.5.*" torchvision --cuda 12.4 --python 3.11 -o lock/
    envguard lock -r requirements.in --cuda auto
    envguard lock --from-current --python .venv -o lock/
    envguard lock torch --cuda cpu --format docker --build --tag myimage
    """
    from envguard.formatters.lockfiles import lock_json, lock_text

    out_fmt = "json" if as_json else "text"
    try:
        formats = _formats(fmt)
        if "-" in requirement_files and len(requirement_files) > 1:
            raise click.UsageError("-r - (stdin) can be given only once")
        options = app.LockOptions(
            requirements=requirements, requirement_files=requirement_files, pyproject=pyproject,
            from_current=from_current, python=python or sys.executable, cuda=cuda, platform=platform_,
            formats=formats, output_dir=output_dir, force=force, dry_run=dry_run, resolver=resolver,
            index_url=index_url, extra_index_urls=extra_index_urls, find_links=find_links, no_index=no_index,
            base_image=base_image, wheelhouse=wheelhouse, build=build, tag=tag, timeout_s=timeout_s,
            stdin=sys.stdin.buffer.read() if "-" in requirement_files else None,
        )
        outcome = app.lock(options)
    except EnvguardError as exc:
        _fail(str(exc), out_fmt, "lock")
    if as_json:
        click.echo(lock_json(outcome, dry_run=dry_run, exit_code=EXIT_OK), nl=False)
    else:
        click.echo(lock_text(outcome, dry_run=dry_run), nl=False)
    raise SystemExit(EXIT_OK)


@main.command()
@click.argument("lockfile", metavar="LOCKFILE")
@click.option("--python", "target_python", default=sys.executable, show_default="this interpreter",
              help="Interpreter (or virtualenv folder) whose environment to verify.")
@click.option("--no-files", is_flag=True, help="Skip hashing installed files against their RECORD.")
@click.option("--ignore", multiple=True, metavar="NAME", help="Leave a distribution out of the comparison.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def verify(lockfile: str, target_python: str, no_files: bool, ignore: tuple[str, ...], fmt: str) -> None:
    """Check that an environment still matches its lock (envguard.lock.json or its folder).

    Exit 1 on drift: missing, extra or different packages, another CUDA variant, installed files
    that no longer match their RECORD hashes, another Python, or a driver below the lock's floor.
    """
    from envguard.formatters.lockfiles import verify_json, verify_text

    try:
        result = app.verify(lockfile, target_python, records=not no_files, ignore=ignore)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "verify")
    code = EXIT_OK if result.ok else EXIT_FINDINGS
    click.echo(verify_json(result, code) if fmt == "json" else verify_text(result), nl=False)
    raise SystemExit(code)


# ---- preflight -----------------------------------------------------------------------------


@main.command()
@_python_option
@click.option("--lock", "lock_file", metavar="FILE|DIR",
              help="Verify against this lock (default: ./envguard.lock.json when present).")
@click.option("--no-verify", is_flag=True, help="Do not verify, even when a lock is found.")
@click.option("--no-files", is_flag=True, help="verify: skip hashing installed files against their RECORD.")
@click.option("--smoke-level", type=click.IntRange(0, 3), default=1, show_default=True,
              help="Smoke suite level (0 skips the smoke step).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@_deep_option
@click.option("--budget", "budget_s", type=click.FloatRange(min=1.0), default=None, metavar="SECONDS",
              help="Skip the steps that would not fit in this many seconds (and say so).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="error", show_default=True,
              help="check findings at or above this severity fail the gate.")
@click.option("--out", "out_dir", default="envguard-preflight", show_default=True, metavar="DIR",
              help="Folder for preflight.json, junit.xml, summary.md and fingerprint.json.")
@click.option("--force", is_flag=True, help="Overwrite the files in --out.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="What to print: the verdict and summary, or preflight.json.")
@_timeout_option
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
        options = app.PreflightOptions(target_python, lock=lock_file, find_lock=not no_verify,
                                       smoke_level=smoke_level, deep=deep, budget_s=budget_s, fail_on=fail_on,
                                       timeout_s=timeout_s, device=device, verify_files=not no_files)
        app.check_preflight_out(out_dir, force=force)
        result = app.preflight(options)
        written = app.write_preflight(result, out_dir, force=force)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "preflight")
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


# ---- fleet -----------------------------------------------------------------------------------


@main.group("fleet")
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
        report = app.fleet_report(directory, perf_threshold=perf_threshold / 100.0)
        code = EXIT_CANNOT_RUN if not report.readable else EXIT_OK if report.ok else EXIT_FINDINGS
        use_color = output is None and fmt == "text" and _use_color(color)
        if fmt == "json":
            text = fleet_json(report, code)
        elif fmt == "html":
            text = fleet_html(report, code)
        else:
            text = fleet_text(report, code, color=use_color, width=shutil.get_terminal_size((110, 24)).columns)
        if output:
            app.write_atomic(output, text, force=force)
            click.echo(f"envguard: wrote the fleet report to {output}", err=True)
        else:
            click.echo(text, nl=False, color=use_color)
    except EnvguardError as exc:
        _fail(str(exc), fmt, "fleet report")
    raise SystemExit(code)


# ---- init: CI workflows and fleet launchers --------------------------------------------------------


@main.group("init")
def init_group() -> None:
    """Write CI workflows and fleet launchers that run envguard (review them, then commit them)."""


def _emit_scaffold(files: tuple[tuple[str, str], ...], written: tuple[str, ...], dry_run: bool,
                   next_step: str) -> None:
    """--dry-run: each (path, text) on stdout, its name on stderr; otherwise what was written and what next."""
    if dry_run:
        for path, text in files:
            click.echo(f"envguard: would write {path} (dry run: nothing written)", err=True)
            click.echo(text, nl=False)
        return
    for path in written:
        click.echo(f"envguard: wrote {path}", err=True)
    click.echo(f"envguard: next: {next_step}", err=True)


@init_group.command("ci")
@click.option("--github", is_flag=True, help="GitHub Actions: .github/workflows/envguard-preflight.yml.")
@click.option("--gitlab", is_flag=True, help="GitLab CI: .gitlab/envguard-preflight.gitlab-ci.yml (to include).")
@click.option("--pre-commit", "pre_commit", is_flag=True,
              help="pre-commit: .pre-commit-config.yaml with a local `envguard verify` hook.")
@click.option("--runner-label", "runner_labels", multiple=True, default=("self-hosted,linux,gpu",),
              show_default=True, metavar="LABEL[,LABEL]",
              help="Labels of the self-hosted GPU runner (GitHub runs-on; GitLab tags, without self-hosted).")
@click.option("--python", "python", metavar="PATH", help="Interpreter under test on the runner.  "
              "[default: envguard's own]")
@click.option("--lock", metavar="FILE|DIR", help="Lock to verify against.  [default: ./envguard.lock.json "
              "(pre-commit), when present (preflight)]")
@click.option("--smoke-level", type=int, default=1, show_default=True, help="Preflight smoke level (0 skips it).")
@click.option("--install-cmd", metavar="COMMAND", help="How the runner installs envguard (the name envguard on the "
              "public index is an unrelated project).  [default: the source this envguard was installed from: its "
              "git URL and commit, or its wheel]")
@click.option("-o", "--output-dir", default=".", show_default=True, metavar="DIR",
              help="Repository root to write into.")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
@click.option("--dry-run", is_flag=True, help="Print the files instead of writing them.")
def init_ci(
    github: bool, gitlab: bool, pre_commit: bool, runner_labels: tuple[str, ...], python: str | None,
    lock: str | None, smoke_level: int, install_cmd: str | None, output_dir: str, force: bool, dry_run: bool,
) -> None:
    """Write GPU CI jobs (GitHub Actions, GitLab CI) and a pre-commit verify hook.

    The CI jobs run `envguard preflight` on a self-hosted GPU runner and keep its results.

    \b
    Default: all three (--github --gitlab --pre-commit).
    envguard init ci --github --runner-label self-hosted,linux,a100
    envguard init ci --pre-commit --lock lock/ --dry-run
    """
    from envguard.ci_setup import ci_inputs
    from envguard.scaffold import DEFAULT_LOCK, CiOptions

    chosen = {"github": github, "gitlab": gitlab, "pre-commit": pre_commit}
    kinds = tuple(k for k, on in chosen.items() if on) or tuple(chosen)
    try:
        install, defaulted = ci_inputs(kinds, output_dir, lock or DEFAULT_LOCK, install_cmd)
        options = CiOptions(runner_labels=_split(runner_labels), python=python, lock=lock, smoke_level=smoke_level,
                            install_cmd=install)
        files = app.render_ci(kinds, options)
        written = () if dry_run else app.init_ci(kinds, output_dir, force, options)
    except EnvguardError as exc:
        _fail(str(exc), "text", "init ci")
    _emit_scaffold(tuple((f.path, f.text) for f in files), written, dry_run,
                   "review the install command (REVIEW note), then commit the files" if defaulted
                   else "commit the files")
    raise SystemExit(EXIT_OK)


@init_group.command("fleet")
@click.option("--slurm", is_flag=True, help="An sbatch script: envguard-preflight.sbatch.")
@click.option("--kubernetes", is_flag=True, help="A headless Service and an Indexed Job: envguard-preflight.yaml.")
@click.option("--nodes", type=int, default=2, show_default=True, help="Nodes to check (one envguard each).")
@click.option("--gpus-per-node", type=int, default=8, show_default=True,
              help="GPUs to request on each node (0: CPU nodes, no GPU request).")
@click.option("--partition", metavar="NAME[,NAME]", help="Slurm partition.  [default: the cluster's]")
@click.option("--time", "time_limit", default="00:30:00", show_default=True, metavar="TIME",
              help="Wall-clock limit, Slurm format (Kubernetes: the Job's activeDeadlineSeconds).")
@click.option("--image", metavar="IMAGE", help="Kubernetes: an image holding envguard and the frameworks (required).")
@click.option("--namespace", metavar="NAME", help="Kubernetes namespace.  [default: kubectl's current]")
@click.option("--job-name", default="envguard-preflight", show_default=True, metavar="NAME",
              help="Slurm job / Kubernetes Job and Service name.")
@click.option("--smoke-level", type=int, default=1, show_default=True, help="Preflight smoke level (0 skips it).")
@click.option("--python", "python", metavar="PATH", help="Interpreter under test on the nodes.  "
              "[default: envguard's own]")
@click.option("--lock", metavar="FILE|DIR", help="Lock to verify against on the nodes.  "
              "[default: ./envguard.lock.json when present]")
@click.option("--rdzv-port", type=int, default=29500, show_default=True,
              help="c10d rendezvous port of the multi-node DDP smoke.")
@click.option("-o", "--output-dir", default=".", show_default=True, metavar="DIR", help="Folder to write into.")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@click.option("--dry-run", is_flag=True, help="Print the file instead of writing it.")
def init_fleet(
    slurm: bool, kubernetes: bool, nodes: int, gpus_per_node: int, partition: str | None, time_limit: str,
    image: str | None, namespace: str | None, job_name: str, smoke_level: int, python: str | None,
    lock: str | None, rdzv_port: int, output_dir: str, force: bool, dry_run: bool,
) -> None:
    """Write a Slurm or Kubernetes launcher that preflights every node of a GPU fleet.

    Preflight on every node, then a multi-node DDP smoke (torchrun, c10d rendezvous), then a fleet
    report. envguard schedules nothing itself: the cluster's scheduler runs one envguard per node.

    \b
    envguard init fleet --slurm --nodes 4 --gpus-per-node 8 --partition gpu
    envguard init fleet --kubernetes --nodes 4 --image registry.example.com/train:1.2 --namespace ml
    """
    from envguard.scaffold import FLEET_FILES, FleetOptions

    if slurm == kubernetes:
        raise click.UsageError("choose one of --slurm and --kubernetes")
    kind = "slurm" if slurm else "kubernetes"
    if kind == "kubernetes" and image is None:
        raise click.UsageError("--kubernetes needs --image (an image with envguard and the frameworks to check)")
    try:
        options = FleetOptions(nodes=nodes, gpus_per_node=gpus_per_node, partition=partition, time=time_limit,
                               image=image, namespace=namespace, smoke_level=smoke_level, python=python, lock=lock,
                               job_name=job_name, rdzv_port=rdzv_port)
        files = app.render_fleet(kind, options)
        written = () if dry_run else app.init_fleet(kind, output_dir, force, options)
    except EnvguardError as exc:
        _fail(str(exc), "text", f"init fleet --{kind}")
    path = os.path.join(output_dir, FLEET_FILES[kind])
    step = f"sbatch {path}" if kind == "slurm" else f"kubectl apply -f {path} (then collect the logs: see its header)"
    _emit_scaffold(tuple((f.path, f.text) for f in files), written, dry_run, step)
    raise SystemExit(EXIT_OK)
