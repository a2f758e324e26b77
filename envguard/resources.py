"""Locate the packaged compatibility matrices, templates and in-target scripts, installed or not."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    here = Path(__file__).resolve().parent
    if (here / "_data" / kind).is_dir():  # NOTE: an installed wheel on a file system: no importlib.resources import
        return here / "_data" / kind
    if here.is_dir() and (here.parent / kind).is_dir():
        return here.parent / kind
    from importlib.resources import files

    packaged = files("envguard") / "_data" / kind
    if packaged.is_dir():
        return packaged
    return here.parent / kind


def script_source(package: str, name: str) -> str:
    """Source text of a script that runs inside the target interpreter.

    Read beside the package's ``__init__`` when the package is a folder on disk (importlib.resources costs
    ~40 ms to import: most of the time before `check` can start its target interpreter); through
    importlib.resources otherwise (a zip)."""
    import importlib

    origin = getattr(importlib.import_module(package), "__file__", None)
    if origin:
        path = Path(origin).parent / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    from importlib.resources import files

    return (files(package) / name).read_text(encoding="utf-8")


def matrix_header_text(root: Traversable, name: str) -> str:
    """The lines of ``root/<name>.toml`` before its first table (provenance, ``retrieved``), read without the rest.

    :raises OSError, UnicodeDecodeError: when the file cannot be read.
    """
    head = []
    with (root / f"{name}.toml").open("r", encoding="utf-8") as handle:
        for line in handle:
            if line.lstrip().startswith("["):
                break
            head.append(line)
    return "".join(head)


def matrix_header(root: Traversable, name: str) -> dict[str, Any]:
    """The keys of ``root/<name>.toml`` before its first table (provenance, ``retrieved``), read without the rest.

    Cheap on purpose (``envguard --version`` and the staleness check read every file's header).

    :raises OSError, UnicodeDecodeError: when the file cannot be read.
    :raises ValueError: when the header is not valid TOML (TOMLDecodeError).
    """
    try:
        import tomli as toml  # the compiled parser (a dependency); see knowledge._base
    except ImportError:  # pragma: no cover
        import tomllib as toml  # type: ignore[no-redef,import-not-found,unused-ignore] # reason: same API
    data: dict[str, Any] = toml.loads(matrix_header_text(root, name))
    return data
