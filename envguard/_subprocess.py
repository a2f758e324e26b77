"""The only place envguard spawns processes: a runner with a mandatory timeout."""

from __future__ import annotations

import logging
import os
import subprocess
import time
from dataclasses import dataclass
from typing import Protocol

logger = logging.getLogger(__name__)

#: Exit status recorded when a command did not finish within its timeout.
TIMEOUT_STATUS = -9
#: Exit status recorded when the executable could not be started at all.
NOT_FOUND_STATUS = 127


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a finished (or abandoned) command left behind."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    #: Set when the command could not be started (not found, not executable).
    start_error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the command ran to completion with exit status 0."""
        return self.returncode == 0 and not self.timed_out and self.start_error is None

    def describe_failure(self) -> str:
        """One line saying why the command did not succeed."""
        name = self.argv[0] if self.argv else "?"
        if self.start_error is not None:
            return f"{name}: {self.start_error}"
        if self.timed_out:
            return f"{name} did not finish within {self.duration_s:.1f}s (killed)"
        detail = (self.stderr.strip() or self.stdout.strip()).splitlines()
        tail = _one_line(detail[-1], PRINTED_CHARS) if detail else "no output"
        return f"{name} exited with status {self.returncode}: {tail}"

    def printed(self, limit: int = 200) -> str:
        """What the command printed, on one line: its first ``limit`` characters (stderr first, then stdout),
        or the last line of a Python traceback (where the error is named)."""
        text = self.stderr.strip() or self.stdout.strip()
        if not text:
            return "nothing"
        lines = text.splitlines()
        if lines[0].startswith("Traceback (most recent call last)"):
            return _one_line(lines[-1], limit)
        return _one_line(text, limit)


#: How much of a tool's output an error line quotes.
PRINTED_CHARS = 200


#: How much of a command line -v logs.
ARGV_CHARS = 120


def describe_argv(argv: tuple[str, ...], limit: int = ARGV_CHARS) -> str:
    """A command line on one line, cut to ``limit`` characters (the inspection script is hundreds of lines)."""
    import shlex

    return _one_line(shlex.join(argv), limit)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class CommandRunner(Protocol):
    """Runs a command to completion or until the timeout, never raising for command failures."""

    def __call__(
        self,
        argv: tuple[str, ...],
        *,
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        stdin: str | None = None,
    ) -> CommandResult: ...


def run(
    argv: tuple[str, ...],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stdin: str | None = None,
) -> CommandResult:
    """Run ``argv`` with a hard timeout; a hung child (and its process group) is killed.

    :raises ValueError: if ``argv`` is empty or the timeout is not positive.
    """
    if not argv:
        raise ValueError("empty command")
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    start = time.monotonic()
    try:
        proc = subprocess.Popen(  # noqa: S603 # reason: argv is a tuple, never a shell string
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
        )
    except OSError as exc:
        logger.info("could not start %s: %s", describe_argv(argv), exc)
        reason = "not found" if isinstance(exc, FileNotFoundError) else exc.strerror or str(exc)
        return CommandResult(argv, NOT_FOUND_STATUS, "", "", time.monotonic() - start, start_error=reason)
    try:
        out, err = proc.communicate(input=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        duration = time.monotonic() - start
        logger.info("ran %s: killed after %.2fs (timeout %.1fs)", describe_argv(argv), duration, timeout)
        return CommandResult(argv, TIMEOUT_STATUS, out or "", err or "", duration, timed_out=True)
    except BaseException:
        # Ctrl-C (or SIGTERM turned into KeyboardInterrupt): the child runs in a session of its own, so the
        # terminal's SIGINT never reached it or its workers; kill its whole group before going on.
        _kill_group(proc)
        proc.wait()
        raise
    duration = time.monotonic() - start
    logger.info("ran %s in %.2fs: exit %s", describe_argv(argv), duration, proc.returncode)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("  cwd %s, timeout %.1fs, %d chars of stdout, %d of stderr%s", cwd or ".", timeout, len(out),
                     len(err), f": {_one_line(err, PRINTED_CHARS)}" if err.strip() else "")
    return CommandResult(argv, proc.returncode, out, err, duration)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """Kill the child's whole process group, so grandchildren cannot keep pipes open."""
    try:
        os.killpg(proc.pid, 9)
    except (ProcessLookupError, PermissionError):  # pragma: no cover - raced with exit
        proc.kill()
