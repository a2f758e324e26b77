"""ProbeContext: everything a probe may touch (processes, environment, files, NVML)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from envguard import _subprocess
from envguard._subprocess import CommandResult, CommandRunner

if TYPE_CHECKING:
    from envguard.probes.inspection import StartedInspection
    from envguard.probes.nvml import NvmlReport
    from envguard.snapshot import Unavailable


def default_run(
    argv: tuple[str, ...],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stdin: str | None = None,
) -> CommandResult:
    """``envguard._subprocess.run``, looked up at call time (so the test guard can replace it)."""
    return _subprocess.run(argv, timeout=timeout, env=env, cwd=cwd, stdin=stdin)


#: ``--timeout`` bounds each external call; calls into the target interpreter get a documented multiple of it
#: (with the default of 10 s: 30 s to inspect it, 60 s per ``--deep`` framework import, 300 s to list and hash
#: its installed files), and never more, whatever a hung interpreter does.
TARGET_TIMEOUT_FACTOR = 3.0
DEEP_TIMEOUT_FACTOR = 6.0
INSTALLED_TIMEOUT_FACTOR = 30.0


@dataclass(frozen=True)
class ProbeContext:
    """The boundary between probes and the machine; tests replace parts of it."""

    run: CommandRunner = default_run
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    target_python: str = sys.executable
    #: Seconds any single external call may take.
    timeout_s: float = 10.0
    #: Filesystem root for /proc, /etc, /usr/local/cuda ... (tests point it at a fixture tree).
    root: Path = Path("/")
    #: Queries NVML; None means "use pynvml". Tests pass a fake built from captures.
    nvml: Callable[[float], NvmlReport | Unavailable] | None = None
    #: Import each framework in the target interpreter for runtime facts.
    deep: bool = False
    #: The inspection of ``target_python`` already started (`check` starts it before importing the rules);
    #: used only when it was started for this interpreter, environment and timeout.
    inspection: StartedInspection | None = None

    def path(self, absolute: str) -> Path:
        """Map an absolute path on the probed machine into ``root``."""
        return self.root / absolute.lstrip("/")

    def unmap(self, real: str) -> str:
        """The probed machine's name for a path inside ``root`` (the inverse of :meth:`path`)."""
        if self.root == Path("/"):
            return real
        try:
            return "/" + str(Path(real).relative_to(self.root))
        except ValueError:
            return real

    def read_text(self, absolute: str, limit: int = 1 << 20) -> str | None:
        """Contents of a file, or None when it is missing or unreadable."""
        try:
            with self.path(absolute).open(encoding="utf-8", errors="replace") as fh:
                return fh.read(limit)
        except OSError:
            return None

    def which(self, name: str) -> str | None:
        """Find an executable on the probed environment's PATH."""
        return shutil.which(name, path=self.env.get("PATH", os.defpath))
