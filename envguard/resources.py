"""Locate the packaged compatibility matrices, templates and in-target scripts, installed or not."""

from __future__ import annotations

import logging
import os
import sys
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

logger = logging.getLogger(__name__)

MATRICES_ENV = "ENVGUARD_MATRICES"


def data_dir(kind: str, env: dict[str, str] | None = None) -> Traversable:
    """Return the folder holding ``kind`` ("matrices" or "templates").

    ``ENVGUARD_MATRICES`` overrides the shipped matrices (site policy). Inside a wheel
    the data is force-included as ``envguard/_data/<kind>``; in a checkout or an editable
    install it is the top-level folder beside the package.
    """
    environ = os.environ if env is None else env
    if kind == "matrices" and environ.get(MATRICES_ENV):
        override = Path(environ[MATRICES_ENV])
        logger.info("using matrices from %s (%s)", override, MATRICES_ENV)
        return override
    packaged = files("envguard") / "_data" / kind
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / kind


def script_source(package: str, name: str) -> str:
    """Source text of a script that runs inside the target interpreter."""
    return (files(package) / name).read_text(encoding="utf-8")
