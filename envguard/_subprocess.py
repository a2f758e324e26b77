"""The only place envguard spawns processes: a runner with a mandatory timeout.

What :func:`run` guarantees (issue 17):

- **bounded time**: the timeout bounds the whole call, reading included. The child runs in its own process
  group (session); at the deadline the group is killed and the pipes are read for at most
  :data:`DRAIN_S` more, so a ``setsid`` grandchild that keeps stdout open cannot hold the call. A child that
  finished in time is never reported as timed out because this thread was slow to notice (another thread
  parsing while holding the GIL): the verdict is "still running at the deadline". A child that closed both
  pipes before exiting (coreutils do, in an atexit handler) is waited for until the deadline, not killed at EOF.
- **bounded memory**: at most :data:`MAX_OUTPUT_BYTES` of each stream are kept (the rest is read and
  dropped, so the child never blocks on a full pipe); decoding happens after the clock stops.
- **nothing left running**: on Linux every child gets ``PR_SET_PDEATHSIG`` (SIGKILL when envguard dies,
  even by SIGKILL); its process group is killed when the call ends, however it ends; the CLI's SIGTERM/
  SIGHUP handler (:func:`install_signal_handlers`) kills the groups of calls in flight before exiting; and a
  small watchdog process (:data:`_WATCHDOG`, started with the first child) kills the groups still registered
  when envguard dies without running any handler (SIGKILL, OOM): it reads their ids on a pipe and acts at EOF.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
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


#: Most bytes kept of each of stdout and stderr (the rest is read and dropped).
MAX_OUTPUT_BYTES = 16 << 20
#: Seconds the pipes are still read after the child exited or was killed (a grandchild may hold them).
DRAIN_S = 0.25
_CHUNK = 1 << 16

#: Process groups of the calls in flight (killed by the signal handler and at exit).
_LIVE: set[int] = set()
_LIVE_LOCK = threading.Lock()


def run(
    argv: tuple[str, ...],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stdin: str | None = None,
) -> CommandResult:
    """Run ``argv`` with a hard timeout on the whole call; a hung child (and its process group) is killed.

    :raises ValueError: if ``argv`` is empty or the timeout is not a positive finite number.
    """
    if not argv:
        raise ValueError("empty command")
    if not 0 < timeout < float("inf"):  # NOTE: also refuses NaN
        raise ValueError("timeout must be a positive finite number of seconds")
    start = time.monotonic()
    try:
        proc = subprocess.Popen(  # noqa: S603 # reason: argv is a tuple, never a shell string
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_death_signal(),  # noqa: PLW1509 # reason: only prctl via ctypes, resolved beforehand
        )
    except (OSError, subprocess.SubprocessError) as exc:
        logger.info("could not start %s: %s", describe_argv(argv), exc)
        reason = "not found" if isinstance(exc, FileNotFoundError) else getattr(exc, "strerror", None) or str(exc)
        return CommandResult(argv, NOT_FOUND_STATUS, "", "", time.monotonic() - start, start_error=reason)
    with _LIVE_LOCK:
        _LIVE.add(proc.pid)
        _tell_watchdog(f"+{proc.pid}")
    try:
        out, err, timed_out = _collect(proc, stdin.encode("utf-8") if stdin is not None else None,
                                       start + timeout)
    finally:
        # NOTE: also on Ctrl-C: the child runs in a session of its own, so the terminal's SIGINT never reached
        # it or its workers; its whole group is killed before going on.
        _kill_group(proc.pid)
        with _LIVE_LOCK:
            _LIVE.discard(proc.pid)
            _tell_watchdog(f"-{proc.pid}")
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            proc.wait(timeout=DRAIN_S)  # killed: reaped at once
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
    duration = time.monotonic() - start
    stdout, stderr = _decode(out), _decode(err)
    if timed_out:
        logger.info("ran %s: killed after %.2fs (timeout %.1fs)", describe_argv(argv), duration, timeout)
        return CommandResult(argv, TIMEOUT_STATUS, stdout, stderr, duration, timed_out=True)
    returncode = proc.returncode if proc.returncode is not None else TIMEOUT_STATUS
    logger.info("ran %s in %.2fs: exit %s", describe_argv(argv), duration, returncode)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("  cwd %s, timeout %.1fs, %d chars of stdout, %d of stderr%s", cwd or ".", timeout, len(stdout),
                     len(stderr), f": {_one_line(stderr, PRINTED_CHARS)}" if stderr.strip() else "")
    return CommandResult(argv, returncode, stdout, stderr, duration)


def _decode(chunks: list[bytes]) -> str:
    return b"".join(chunks).decode("utf-8", errors="replace")


class _Stream:
    """The bytes kept of one output stream (at most :data:`MAX_OUTPUT_BYTES`)."""

    __slots__ = ("chunks", "size")

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0

    def keep(self, chunk: bytes) -> None:
        room = MAX_OUTPUT_BYTES - self.size
        if room > 0:
            self.chunks.append(chunk[:room])
            self.size += min(room, len(chunk))


def _collect(
    proc: subprocess.Popen[bytes], data: bytes | None, deadline: float,
) -> tuple[list[bytes], list[bytes], bool]:
    """Feed stdin, read stdout/stderr until both close, or until the deadline; (stdout, stderr, timed out)."""
    assert proc.stdout is not None and proc.stderr is not None  # reason: both are PIPE
    streams = {proc.stdout.fileno(): _Stream(), proc.stderr.fileno(): _Stream()}
    timed_out = False
    exited_at: float | None = None
    with selectors.DefaultSelector() as sel:
        for pipe in (proc.stdout, proc.stderr):
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe.fileno(), selectors.EVENT_READ)
        pending = memoryview(data) if data else None
        stdin_fd = -1
        if proc.stdin is not None:
            if pending is None:
                proc.stdin.close()
            else:
                stdin_fd = proc.stdin.fileno()
                os.set_blocking(stdin_fd, False)
                sel.register(stdin_fd, selectors.EVENT_WRITE)
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > DRAIN_S:
                break  # the child is gone; whoever still holds the pipes is not waited for
            if exited_at is None and now >= deadline:
                if proc.poll() is None:  # NOTE: still running at the deadline, not merely noticed late
                    timed_out = True
                    _kill_group(proc.pid)
                exited_at = now
                continue
            wait = min(deadline - now if exited_at is None else DRAIN_S, 0.1)
            for key, _events in sel.select(max(wait, 0.0)):
                fd = int(key.fd)
                if fd == stdin_fd:
                    pending = _feed(sel, proc, pending)
                    continue
                try:
                    chunk = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(fd)
                    continue
                streams[fd].keep(chunk)
    if exited_at is None:
        # NOTE: both pipes closed while the child still runs: coreutils close stdout and stderr in an atexit
        # handler, before they exit. Killing the group now would kill them with their status unset (an `rm`
        # read as killed by SIGKILL); they are waited for until the deadline instead.
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
    return streams[proc.stdout.fileno()].chunks, streams[proc.stderr.fileno()].chunks, timed_out


def _feed(sel: selectors.BaseSelector, proc: subprocess.Popen[bytes], pending: memoryview | None) -> memoryview | None:
    """Write what the child can take of ``pending``; close its stdin when all is written (or it stopped reading)."""
    assert proc.stdin is not None  # reason: only called for a PIPE stdin
    fd = proc.stdin.fileno()
    try:
        written = os.write(fd, pending[:_CHUNK]) if pending else 0
    except BlockingIOError:
        return pending
    except OSError:  # BrokenPipeError: the child does not read its input
        written = len(pending) if pending else 0
    rest = pending[written:] if pending else None
    if not rest:
        sel.unregister(fd)
        proc.stdin.close()
        return None
    return rest


def _kill_group(pgid: int) -> None:
    """Kill a child's whole process group, so grandchildren cannot keep running (or keep pipes open)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill_live_groups() -> None:
    """Kill the process groups of every call in flight (for signal handlers and exit)."""
    with _LIVE_LOCK:
        groups = list(_LIVE)
    for pgid in groups:
        _kill_group(pgid)


def install_signal_handlers() -> None:
    """On SIGTERM/SIGHUP: kill the children's process groups, then exit 128+signal (``finally`` blocks run,
    so temporary folders are removed). Call from the main thread of the CLI only."""
    import atexit

    global _HANDLERS_INSTALLED  # noqa: PLW0603 # reason: once per process
    if _HANDLERS_INSTALLED:
        return
    _HANDLERS_INSTALLED = True

    def handler(signum: int, _frame: FrameType | None) -> None:
        kill_live_groups()
        raise SystemExit(128 + signum)

    atexit.register(kill_live_groups)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            with contextlib.suppress(ValueError, OSError):  # not the main thread / not supported
                signal.signal(sig, handler)


_HANDLERS_INSTALLED = False

#: Runs beside envguard: keeps the process groups envguard registers; at EOF (envguard gone) kills them all.
_WATCHDOG = """
import os, signal, sys
groups = set()
for line in sys.stdin:
    line = line.strip()
    if line[1:].isdigit():
        (groups.add if line[0] == "+" else groups.discard)(int(line[1:]))
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""
_watchdog: subprocess.Popen[str] | None = None
_watchdog_failed = False


def _tell_watchdog(message: str) -> None:
    """Send one registration line to the watchdog (started on first use); called with _LIVE_LOCK held."""
    global _watchdog, _watchdog_failed  # noqa: PLW0603 # reason: one watchdog per process
    if _watchdog_failed or not sys.platform.startswith("linux"):
        return
    try:
        if _watchdog is None or _watchdog.poll() is not None:
            _watchdog = subprocess.Popen(  # noqa: S603 # reason: this interpreter and a constant script
                (sys.executable, "-S", "-c", _WATCHDOG), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, text=True, start_new_session=True,
            )
        assert _watchdog.stdin is not None  # reason: stdin is a PIPE
        _watchdog.stdin.write(message + "\n")
        _watchdog.stdin.flush()
    except (OSError, ValueError):  # no watchdog: PDEATHSIG and the signal handler still apply
        _watchdog_failed = True
_PR_SET_PDEATHSIG = 1
_prctl: Callable[..., int] | None = None


def _death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child SIGKILL when its parent thread dies (Linux), or None elsewhere.

    The libc function is looked up here, in the parent: the child only makes one foreign call.
    """
    global _prctl  # noqa: PLW0603 # reason: the libc handle is resolved once per process
    if not sys.platform.startswith("linux"):
        return None
    if _prctl is None:
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            return None
    prctl = _prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: nobody will send the signal
            os._exit(1)

    return preexec
