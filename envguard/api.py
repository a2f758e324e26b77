"""The Python API for training scripts: fingerprint the environment and record it with every run."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
from typing import Any

from envguard.commands import _io, _probe
from envguard.commands.smoke import environment_fingerprint
from envguard.errors import EnvguardError
from envguard.fingerprints import Fingerprint

__all__ = ["fingerprint", "record"]


def fingerprint(python: str | None = None) -> Fingerprint:
    """The fingerprint of this machine and of ``python`` (default: the running interpreter).

    Frameworks are read from their files, not imported, so this is cheap to call at start-up.
    """
    return environment_fingerprint(_probe.ProbeOptions(python or sys.executable))


def record(
    target: str | os.PathLike[str] | logging.Logger | None = None,
    *,
    python: str | None = None,
    mlflow: bool = False,
    wandb: bool = False,
) -> Fingerprint:
    """Fingerprint the environment and record it in one line.

    ``target``: a file path (one JSON line is appended: time, digest, components), a ``logging.Logger``
    (one INFO record), or None (only the trackers). ``mlflow=True`` logs the fingerprint to the active
    MLflow run (tag + JSON artifact); ``wandb=True`` to the active Weights & Biases run (config).

    A missing folder of the file is created; a symlink is followed; a folder, device or FIFO is refused.

    :raises EnvguardError: when a requested tracker is not installed or has no active run, the file cannot
        be written (``InputError``), or the target interpreter cannot be inspected (``TargetPythonError``).
    """
    fp = fingerprint(python)
    line = json.dumps({"time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                       **fp.to_dict()}, sort_keys=True)
    if isinstance(target, logging.Logger):
        target.info("envguard fingerprint %s", line)
    elif target is not None:
        _io.append_line(os.fspath(target), line)
    if mlflow:
        _to_mlflow(fp)
    if wandb:
        _to_wandb(fp)
    return fp


def _to_mlflow(fp: Fingerprint) -> None:
    try:
        import mlflow
    except ImportError:
        raise EnvguardError("record(mlflow=True) needs mlflow: pip install mlflow") from None
    client: Any = mlflow
    try:
        client.set_tag("envguard.fingerprint", fp.digest)
        client.log_dict(fp.to_dict(), "envguard-fingerprint.json")
    except Exception as exc:  # reason: the public API raises only EnvguardError
        raise EnvguardError(f"record(mlflow=True): mlflow failed: {type(exc).__name__}: {exc}") from exc


def _to_wandb(fp: Fingerprint) -> None:
    try:
        import wandb
    except ImportError:
        raise EnvguardError("record(wandb=True) needs wandb: pip install wandb") from None
    run: Any = getattr(wandb, "run", None)
    if run is None:
        raise EnvguardError("record(wandb=True) needs an active run: call wandb.init() first")
    try:
        run.config.update({"envguard_fingerprint": fp.digest,
                           "envguard_components": dict(fp.components)}, allow_val_change=True)
    except Exception as exc:  # reason: the public API raises only EnvguardError
        raise EnvguardError(f"record(wandb=True): wandb failed: {type(exc).__name__}: {exc}") from exc
