"""Run envguard as ``python -m envguard``."""

from __future__ import annotations

from envguard.cli import run

if __name__ == "__main__":  # pragma: no cover
    run()
