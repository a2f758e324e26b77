"""`envguard init ci` and `envguard init fleet`: render and write CI workflows and fleet launchers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envguard.commands._io import write_files

if TYPE_CHECKING:
    from collections.abc import Sequence

    from envguard.scaffold import CiOptions, FleetOptions, ScaffoldFile


def render_ci(kinds: Sequence[str], options: CiOptions) -> tuple[ScaffoldFile, ...]:
    """The `envguard init ci` files (validated, rendered, not written).

    :raises InputError: an unknown kind or a bad option value.
    """
    from envguard.scaffold import render_ci as _render_ci

    return _render_ci(kinds, options)


def render_fleet(kind: str, options: FleetOptions) -> tuple[ScaffoldFile, ...]:
    """The `envguard init fleet` file (validated, rendered, not written).

    :raises InputError: an unknown kind or a bad option value.
    """
    from envguard.scaffold import render_fleet as _render_fleet

    return _render_fleet(kind, options)


def write_scaffold(files: Sequence[ScaffoldFile], out_dir: str, *, force: bool) -> tuple[str, ...]:
    """Write rendered files under ``out_dir`` (see write_files)."""
    return write_files(out_dir, [(f.path, f.text) for f in files], force=force)


def init_ci(kinds: Sequence[str], out_dir: str, force: bool, options: CiOptions) -> tuple[str, ...]:
    """Render and write the CI files for ``kinds`` (github, gitlab, pre-commit) under ``out_dir``."""
    return write_scaffold(render_ci(kinds, options), out_dir, force=force)


def init_fleet(kind: str, out_dir: str, force: bool, options: FleetOptions) -> tuple[str, ...]:
    """Render and write the fleet launcher for ``kind`` (slurm, kubernetes) under ``out_dir``."""
    return write_scaffold(render_fleet(kind, options), out_dir, force=force)
