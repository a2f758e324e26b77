"""Ctrl-C and SIGTERM end a long command (smoke, preflight) with exit 128+signal (130, 143) and one line.

A terminal sends SIGINT to its whole foreground process group; the children envguard runs sit in sessions
of their own (so that a timeout can kill a child's group), so envguard kills each running child's group
itself (envguard._subprocess.run) when the interrupt arrives as KeyboardInterrupt. SIGTERM is turned into
that same KeyboardInterrupt while the command runs.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import ParamSpec, TypeVar

#: The shell's convention for "terminated by SIGINT" (128 + 2).
EXIT_INTERRUPTED = 130

P = ParamSpec("P")
R = TypeVar("R")


def _raise_interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def exit_130_on_interrupt(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with SIGTERM raising KeyboardInterrupt; a KeyboardInterrupt ends it with one line on
    stderr and SystemExit(130), or 143 for SIGTERM. Writers are atomic, so nothing half-written is left behind."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _raise_interrupt) if main else None
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt as exc:
            what = str(exc) or "SIGINT"
            sys.stderr.write(f"envguard: interrupted ({what}); stopped the running case and its processes\n")
            sys.stderr.flush()
            # NOTE: the shell's convention, 128 + the signal: 130 for Ctrl-C, 143 for SIGTERM.
            code = 128 + signal.SIGTERM if what == "SIGTERM" else EXIT_INTERRUPTED
            raise SystemExit(code) from None
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)

    return wrapper
