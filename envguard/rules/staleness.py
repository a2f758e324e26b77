"""unknown-version (info) when envguard's knowledge itself has gone stale: the newest matrix is old."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Final

from envguard.findings import Finding, Severity
from envguard.knowledge._base import MatrixMeta
from envguard.rules.base import ev

#: Matrices older than this (newest ``retrieved`` date, in days) miss releases people already run.
STALE_AFTER_DAYS: Final = 180


def stale_matrices(headers: Sequence[MatrixMeta], today: dt.date, today_source: str) -> Finding | None:
    """An info finding when the newest ``retrieved`` date is more than STALE_AFTER_DAYS before ``today``."""
    if not headers:
        return None
    newest = max(headers, key=lambda m: m.retrieved)
    oldest = min(headers, key=lambda m: m.retrieved)
    age = (today - newest.retrieved).days
    if age <= STALE_AFTER_DAYS:
        return None
    return Finding(
        "unknown-version", Severity.INFO,
        f"envguard's matrices were last refreshed on {newest.retrieved.isoformat()}, {age} days before "
        f"{today.isoformat()}: releases since then (drivers, CUDA, frameworks) are unknown to it and are reported "
        "as unknown, not judged.",
        (ev("newest matrix", f"{newest.name}.toml (retrieved {newest.retrieved.isoformat()})", "matrix header"),
         ev("oldest matrix", f"{oldest.name}.toml (retrieved {oldest.retrieved.isoformat()})", "matrix header"),
         ev("today", today.isoformat(), today_source)),
        "update envguard (newer matrices ship with it), or point ENVGUARD_MATRICES at refreshed matrices "
        "(scripts/refresh_matrices.py news lists the releases they lack)",
        None, "matrices",
    )
