"""Reading a file envguard was pointed at: regular files only, and never more than a bound (the lowest layer).

A FIFO would block the read forever, ``/dev/zero`` would fill the memory: both are refused with one line
before a byte is read (the file is opened non-blocking and checked with ``fstat``, so there is no race).
"""

from __future__ import annotations

import os
import stat

from envguard.errors import InputError

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words ("a FIFO (named pipe)")."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(
    path: str, limit: int, *, what: str = "file", error: type[InputError] = InputError,
) -> bytes:
    """At most ``limit`` + 1 bytes of the regular file ``path`` (one more than allowed, so callers can say
    "too large"); ``what`` names the file in messages ("lock", "snapshot").

    :raises InputError: (or ``error``) missing, unreadable, a folder, a FIFO, a device or a socket.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"cannot read {what} {path}: it is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise error(f"cannot read {what} {path}: it is {kind_of(mode)}, not a regular file (use '-' for stdin)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
