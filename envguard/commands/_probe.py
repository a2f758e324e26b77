"""The probing options every command that looks at this machine shares, and the target interpreter."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envguard.errors import TargetPythonError, UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from envguard.probes.inspection import StartedInspection
    from envguard.snapshot import Snapshot

# NOTE: the probes are imported by take_snapshot, not here: `check` starts the target interpreter first.


@dataclass(frozen=True, slots=True)
class ProbeOptions:
    """What the user asked the probes to do."""

    target_python: str
    deep: bool = False
    timeout_s: float = 10.0


def resolve_python(target: str, env: Mapping[str, str]) -> str:
    """An interpreter path from ``--python`` (a path, or a name on PATH).

    :raises TargetPythonError: when it does not exist.
    """
    import shutil

    if not target.strip():
        raise UsageError("--python is empty: give an interpreter path, a name on PATH or a virtualenv folder")
    if os.sep in target or (os.altsep and os.altsep in target) or Path(target).expanduser().is_dir():
        path = Path(target).expanduser()
        if path.is_dir():  # a virtual environment folder
            for candidate in (path / "bin" / "python", path / "Scripts" / "python.exe"):
                if candidate.exists():
                    return os.path.abspath(candidate)
            raise TargetPythonError(f"{target} is a folder without bin/python: not a virtual environment")
        if not path.exists():
            raise TargetPythonError(f"target interpreter {target} does not exist")
        # NOTE: absolute, because the target runs with a fresh temporary working directory.
        return os.path.abspath(path)
    found = shutil.which(target, path=env.get("PATH"))
    if found is None:
        raise TargetPythonError(f"target interpreter {target!r} is not on PATH")
    return found


def take_snapshot(options: ProbeOptions, env: Mapping[str, str] | None = None, *,
                  inspection: StartedInspection | None = None) -> tuple[Snapshot, tuple[str, ...]]:
    """Probe this machine and the target interpreter (``inspection``: its run, already started by
    :func:`start_inspection`)."""
    from envguard.probes.base import ProbeContext
    from envguard.probes.collect import collect_snapshot

    environ = dict(os.environ if env is None else env)
    exe = inspection.exe if inspection is not None else resolve_python(options.target_python, environ)
    ctx = ProbeContext(env=environ, target_python=exe, timeout_s=options.timeout_s, deep=options.deep,
                       inspection=inspection)
    return collect_snapshot(ctx)


def start_inspection(options: ProbeOptions, env: Mapping[str, str] | None = None) -> StartedInspection:
    """Start the target interpreter's inspection now, for :func:`take_snapshot` to pick up.

    :raises TargetPythonError, UsageError: as :func:`resolve_python`.
    """
    from envguard.probes import inspection
    from envguard.probes.base import TARGET_TIMEOUT_FACTOR, default_run

    environ = dict(os.environ if env is None else env)
    exe = resolve_python(options.target_python, environ)
    return inspection.start(default_run, exe, environ, options.timeout_s * TARGET_TIMEOUT_FACTOR)
