"""`envguard lock` and `envguard verify`."""

from __future__ import annotations

import sys

import click

from envguard.cli._shared import (
    EXIT_FINDINGS,
    EXIT_OK,
    Seconds,
    fail,
)
from envguard.commands import lock as use
from envguard.commands._io import read_stdin
from envguard.errors import EnvguardError, UsageError


def _formats(value: str) -> tuple[str, ...]:
    items = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    unknown = [i for i in items if i not in use.LOCK_FORMATS]
    if unknown or not items:
        raise click.BadParameter(f"{','.join(unknown) or value!r}: choose from {','.join(use.LOCK_FORMATS)}",
                                 param_hint="--format")
    return items


@click.command()
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
@click.option("--platform", "platform_", type=click.Choice(["linux-x86_64", "linux-aarch64"]), multiple=True,
              help="Platform to lock for; repeat for one lock for several (each resolved on its own, pins that "
                   "differ marked with platform_machine).  [default: the interpreter's]")
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
@click.option("--timeout", "timeout_s", type=Seconds(1.0), default=600.0, show_default=True,
              help="Seconds the resolver may take (with --from-current, also the interpreter: at most 300).")
@click.option("-c", "--constraint", "constraint_files", multiple=True, metavar="FILE",
              help="Constrain versions with FILE (pip's -c): limits, never adds, packages.")
@click.option("--for", "for_paths", multiple=True, metavar="SNAPSHOT|DIR",
              help="Lock for the machine(s) a snapshot (`envguard snapshot`, or `check --format json`) was taken "
                   "on; a folder of them: the lock must run on every node. --cuda auto then uses them, not this host.")
@click.option("--driver", metavar="VERSION", help="Target NVIDIA driver (e.g. 580.65.06) for --cuda auto.")
@click.option("--gpu", "gpus", multiple=True, metavar="NAME", help="Target GPU by name (e.g. 'Tesla V100-SXM2-32GB'); "
              "repeatable.")
@click.option("--cc", "ccs", multiple=True, metavar="X.Y", help="Target GPU compute capability (e.g. 7.0); repeatable.")
@click.option("--record-files", is_flag=True, help="Read each locked wheel's RECORD (a few ranged reads per wheel) "
              "and record its file digest, so `verify` catches files edited together with their RECORD line "
              "(--from-current always records them).")
@click.option("--os", "os_tag", metavar="TAG", help="OS of the Dockerfile's base image (e.g. ubuntu24.04, debian12).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON envelope instead of text.")
def lock(
    requirements: tuple[str, ...], requirement_files: tuple[str, ...], pyproject: str | None, from_current: bool,
    python: str | None, cuda: str | None, platform_: tuple[str, ...], fmt: str, output_dir: str, force: bool,
    dry_run: bool, resolver: str, index_url: str | None, extra_index_urls: tuple[str, ...],
    find_links: tuple[str, ...], no_index: bool, base_image: str | None, wheelhouse: str | None, build: bool,
    tag: str | None, timeout_s: float, constraint_files: tuple[str, ...], for_paths: tuple[str, ...],
    driver: str | None, gpus: tuple[str, ...], ccs: tuple[str, ...], record_files: bool, os_tag: str | None,
    as_json: bool,
) -> None:
    """Lock an environment to exact, hash-checked pins matched to its CUDA build.

    \b
    envguard lock "torch==2.5.*" torchvision --cuda 12.4 --python 3.11 -o lock/
    envguard lock -r requirements.in --cuda auto
    envguard lock --from-current --python .venv -o lock/
    envguard lock torch --cuda cpu --format docker --build --tag myimage
    envguard lock torch torchvision --for node-snapshots/ -o lock/      (lock on a CPU runner for a GPU fleet)
    envguard lock torch --driver 580.65.06 --gpu 'Tesla V100-SXM2-32GB'
    """
    from envguard.formatters.lockfiles import lock_json, lock_text

    out_fmt = "json" if as_json else "text"
    try:
        formats = _formats(fmt)
        if python is not None and not python.strip():
            raise UsageError("--python is empty: give an interpreter path, a virtualenv folder or a version (3.11)")
        if "-" in requirement_files and len(requirement_files) > 1:
            raise click.UsageError("-r - (stdin) can be given only once")
        options = use.LockOptions(
            requirements=requirements, requirement_files=requirement_files, pyproject=pyproject,
            from_current=from_current, python=python or sys.executable, cuda=cuda,
            platform=platform_[0] if platform_ else None, platforms=platform_ if len(platform_) > 1 else (),
            formats=formats, output_dir=output_dir, force=force, dry_run=dry_run, resolver=resolver,
            index_url=index_url, extra_index_urls=extra_index_urls, find_links=find_links, no_index=no_index,
            base_image=base_image, wheelhouse=wheelhouse, build=build, tag=tag, timeout_s=timeout_s,
            stdin=read_stdin(sys.stdin.buffer) if "-" in requirement_files else None,
            for_paths=for_paths, driver=driver, gpus=gpus, ccs=ccs, os_tag=os_tag, constraint_files=constraint_files,
            record_files=record_files,
        )
        outcome = use.lock(options)
    except EnvguardError as exc:
        from envguard.errors import PlannedLockError

        fail(exc, out_fmt, "lock", extra={"plan": exc.plan} if isinstance(exc, PlannedLockError) else None)
    if as_json:
        click.echo(lock_json(outcome, dry_run=dry_run, exit_code=EXIT_OK), nl=False)
    else:
        click.echo(lock_text(outcome, dry_run=dry_run), nl=False)
    raise SystemExit(EXIT_OK)


@click.command()
@click.argument("lockfile", metavar="LOCKFILE")
@click.option("--python", "target_python", default=sys.executable, show_default="this interpreter",
              help="Interpreter (or virtualenv folder) whose environment to verify.")
@click.option("--no-files", is_flag=True, help="Skip hashing installed files against their RECORD.")
@click.option("--ignore", multiple=True, metavar="NAME", help="Leave a distribution out of the comparison.")
@click.option("--allow-unsigned", is_flag=True, help="Accept a lock without a fingerprint (written before envguard "
              "recorded one); a lock whose fingerprint does not match its content is always refused.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", "timeout_s", type=Seconds(1.0), default=300.0, show_default=True,
              help="Seconds the interpreter may take to list (and hash) its installed files.")
def verify(lockfile: str, target_python: str, no_files: bool, ignore: tuple[str, ...], allow_unsigned: bool,
           fmt: str, timeout_s: float) -> None:
    """Check that an environment still matches its lock (envguard.lock.json or its folder).

    Exit 1 on drift: missing, extra or different packages, another CUDA variant, installed files
    that no longer match their RECORD hashes (or a RECORD that no longer matches the lock's digest),
    files no RECORD lists inside a locked package, .pth files no locked package owns, bytecode that
    is not its source's, another Python, or a driver below the lock's floor.
    """
    from envguard.formatters.lockfiles import verify_json, verify_text

    try:
        result = use.verify(lockfile, target_python, records=not no_files, ignore=ignore,
                            allow_unsigned=allow_unsigned, timeout_s=timeout_s)
    except EnvguardError as exc:
        fail(exc, fmt, "verify")
    code = EXIT_OK if result.ok else EXIT_FINDINGS
    click.echo(verify_json(result, code) if fmt == "json" else verify_text(result), nl=False)
    raise SystemExit(code)


@click.command()
@click.argument("lockfile", metavar="LOCK")
@click.option("--python", "target_python", default=sys.executable, show_default="this interpreter",
              help="Interpreter (or virtualenv folder) to install the lock into.")
@click.option("--installer", type=click.Choice(["auto", "uv", "pip"]), default="auto", show_default=True,
              help="auto: `uv pip sync` when uv is installed, otherwise pip --require-hashes --no-deps.")
@click.option("--find-links", multiple=True, metavar="DIR", help="Also look for the locked files in DIR.")
@click.option("--no-index", is_flag=True, help="Use no index, only --find-links (air-gapped).")
@click.option("--allow-unsigned", is_flag=True, help="Accept a lock without a fingerprint.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1), default=1800.0, show_default=True,
              help="Seconds the installer may take.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def sync(lockfile: str, target_python: str, installer: str, find_links: tuple[str, ...], no_index: bool,
         allow_unsigned: bool, timeout_s: float, fmt: str) -> None:
    """Install exactly a lock into an environment (removing what it does not list), then verify it.

    \b
    envguard sync lock/ --python .venv
    envguard sync lock/envguard.lock.json --python .venv --no-index --find-links wheelhouse/

    Exit 0 when the environment then verifies, 1 when drift remains, 3 when it could not run.
    """
    import json
    import shlex

    from envguard.formatters.lockfiles import verify_dict, verify_text

    try:
        outcome = use.sync(lockfile, target_python, installer=installer, find_links=find_links, no_index=no_index,
                           allow_unsigned=allow_unsigned, timeout_s=timeout_s)
    except EnvguardError as exc:
        fail(str(exc), fmt, "sync")
    code = EXIT_OK if outcome.result.ok else EXIT_FINDINGS
    if fmt == "json":
        doc = {**verify_dict(outcome.result, code), "command": "sync", "installer": outcome.installer,
               "ran": [list(c) for c in outcome.commands], "removed": list(outcome.removed)}
        click.echo(json.dumps(doc, indent=2))
    else:
        lines = [f"envguard sync: installed with {outcome.installer}"]
        lines += [f"  ran: {shlex.join(c)}" for c in outcome.commands]
        lines += [f"  removed: {', '.join(outcome.removed)}"] if outcome.removed else []
        click.echo("\n".join(lines))
        click.echo(verify_text(outcome.result), nl=False)
    raise SystemExit(code)
