"""The error hierarchy: everything envguard raises on purpose derives from EnvguardError."""

from __future__ import annotations


class EnvguardError(Exception):
    """envguard could not do what was asked (exit code 3); the message names the problem."""


class InputError(EnvguardError, ValueError):
    """A file or argument given to envguard is unreadable, malformed or of an unknown version."""


class UsageError(InputError):
    """An option or argument has a value envguard cannot use (exit code 2, like click's own usage errors)."""


class SnapshotError(InputError):
    """A snapshot document cannot be read back."""


class TargetPythonError(EnvguardError):
    """The target interpreter (``--python``) is missing or cannot be run."""


class ProbeError(EnvguardError):
    """A probe crashed unexpectedly (as distinct from returning ``Unavailable``)."""


class MatrixError(EnvguardError):
    """A compatibility matrix is missing, malformed or of an unknown schema version."""


class MatrixSchemaError(MatrixError, ValueError):
    """One or more matrix rows break the schema; the message lists every bad row."""


class LockError(InputError):
    """A lock cannot be made (unknown package, conflict, no CUDA build of that release) or read back."""


class LockUsageError(LockError, UsageError):
    """A lock option has an unusable value (``--python 3.99``, ``--cuda twelve``): exit code 2."""


class PlannedLockError(LockError):
    """Resolving or checking failed after the build was planned; carries the plan for `lock --json`."""

    def __init__(self, message: str, plan: dict[str, object]) -> None:
        super().__init__(message)
        self.plan = plan
