"""envguard: make deep-learning environments correct and reproducible.

The CLI and the JSON schemas are the contract. The Python API for training scripts is
``envguard.fingerprint()`` and ``envguard.record(...)``; other modules are internal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envguard._version import __version__

if TYPE_CHECKING:
    from envguard.fingerprints import Fingerprint

__all__ = ["__version__", "fingerprint", "record"]


def fingerprint(python: str | None = None) -> Fingerprint:
    """The environment's reproducibility fingerprint (see ``envguard.api.fingerprint``)."""
    from envguard.api import fingerprint as _fingerprint

    return _fingerprint(python)


def record(target: Any = None, **kwargs: Any) -> Fingerprint:
    """Fingerprint the environment and record it to a file, a logger, MLflow or W&B (``envguard.api.record``)."""
    from envguard.api import record as _record

    return _record(target, **kwargs)
