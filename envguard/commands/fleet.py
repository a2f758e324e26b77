"""`envguard fleet report`: read the nodes' results in a folder and analyse the fleet."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from envguard.errors import InputError

if TYPE_CHECKING:
    from envguard.fleet import FleetReport


def fleet_report(directory: str, *, perf_threshold: float | None = None) -> FleetReport:
    """Read every ``*.json`` result in ``directory``, its immediate subfolders and their ``ddp/`` folders (see
    fleet.result_paths), and analyse the fleet.

    A bad file is a problem entry in the report, never an error; an empty folder is a report without nodes.

    :raises InputError: when ``directory`` is not a folder or cannot be listed.
    """
    from envguard.fleet import DEFAULT_PERF_THRESHOLD, Problem, analyse, read_results, result_paths

    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{directory} is not a folder (give the folder that holds the nodes' JSON results)")
    threshold = DEFAULT_PERF_THRESHOLD if perf_threshold is None else perf_threshold
    try:
        paths = result_paths(root)
    except OSError as exc:
        raise InputError(f"cannot list {directory}: {exc.strerror or exc}") from None
    if not paths:
        return analyse([], [Problem(directory, "no *.json files in the folder or its subfolders")],
                       perf_threshold=threshold, files=0, source=directory)
    return read_results(paths, root=root, perf_threshold=threshold)
