"""Shared file I/O of the commands: atomic writers that refuse to overwrite without --force, bounded readers."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from envguard._files import kind_of, read_regular
from envguard.errors import InputError, SnapshotError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from envguard.snapshot import Snapshot

#: Largest snapshot file envguard reads (a real one is tens of kB).
MAX_SNAPSHOT_BYTES = 32 << 20


def read_text_input(path: str, *, stdin: bytes | None = None, what: str = "report") -> tuple[str, str]:
    """(text, name) of a file, or of stdin when ``path`` is "-" (``stdin`` holds its bytes).

    :raises InputError: unreadable, a directory, a FIFO or device, or too large.
    """
    from envguard.reports import MAX_REPORT_CHARS

    if path == "-":
        raw, name = (stdin or b"")[: MAX_REPORT_CHARS + 1], "<stdin>"
    else:
        raw, name = read_regular(path, MAX_REPORT_CHARS, what=what), path
    if len(raw) > MAX_REPORT_CHARS:
        raise InputError(f"{name} is larger than {MAX_REPORT_CHARS >> 20} MiB: not a {what}")
    if not raw.strip():
        raise InputError(f"{name} is empty")
    if b"\x00" in raw[:65536]:
        raise InputError(f"{name} is a binary file, not a text {what}")
    return raw.decode("utf-8", errors="replace"), name


def read_stdin(stream: BinaryIO) -> bytes:
    """At most one byte more than a report may hold, from ``stream`` (stdin): "-" is bounded like a file."""
    from envguard.reports import MAX_REPORT_CHARS

    return stream.read(MAX_REPORT_CHARS + 1)


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot JSON file (``-`` is not accepted here; the CLI reads stdin itself).

    :raises SnapshotError: unreadable, not a regular file, not JSON, truncated, or of an unknown schema version.
    """
    raw = read_regular(path, MAX_SNAPSHOT_BYTES, what="snapshot", error=SnapshotError)
    if len(raw) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(f"{path} is larger than {MAX_SNAPSHOT_BYTES >> 20} MiB: not an envguard snapshot")
    return parse_snapshot(raw, path)


def parse_snapshot(raw: bytes, name: str) -> Snapshot:
    """Decode snapshot bytes; the error names the file.

    :raises SnapshotError: when the bytes are not a supported snapshot.
    """
    if not raw.strip():
        raise SnapshotError(f"{name} is empty: not an envguard snapshot")
    from envguard import _json

    try:
        data = _json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{name} is not UTF-8 text: not an envguard snapshot") from exc
    except json.JSONDecodeError as exc:
        hint = " (truncated?)" if exc.pos >= len(raw.rstrip()) - 1 else ""
        raise SnapshotError(f"{name} is not valid JSON{hint}: {exc.msg} at line {exc.lineno}") from exc
    except _json.DocumentError as exc:
        raise SnapshotError(f"{name} {exc}: not an envguard snapshot") from None
    if isinstance(data, dict) and "snapshot" in data and "envguard_result_version" in data:
        data = data["snapshot"]  # a saved `check --format json` envelope carries the snapshot
    try:
        from envguard.snapshot import Snapshot

        snapshot = Snapshot.from_dict(data)
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from exc
    return dataclasses.replace(snapshot, origin=f"snapshot {name}, taken by {snapshot.origin}")


def _plural(paths: Sequence[str]) -> str:
    """"a exists" / "a and b exist" / "a, b and c exist"."""
    if len(paths) == 1:
        return f"{paths[0]} exists"
    return f"{', '.join(paths[:-1])} and {paths[-1]} exist"


def exist_message(paths: Sequence[str], tail: str = "nothing was written") -> str:
    """The refusal line for outputs that are already there."""
    return f"{_plural(paths)}; use --force to overwrite ({tail})"


@dataclass(frozen=True, slots=True)
class _Target:
    """Where one output goes: ``path`` as given, ``real`` the file actually replaced (a symlink's target)."""

    path: str
    real: Path
    #: Permission bits of the file being replaced (kept); None for a new file.
    mode: int | None
    exists: bool


def _inspect(path: str) -> _Target:
    """Resolve ``path`` for writing: follow symlinks to their target; a dangling link or a loop counts as existing.

    :raises InputError: the target is a folder, a device, a FIFO or a socket.
    """
    p = Path(path)
    try:
        is_link = p.is_symlink()
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    real = p
    if is_link:
        try:
            real = Path(os.path.realpath(p, strict=True))
        except FileNotFoundError:
            # NOTE: a dangling link exists; written through (creating its target) only with --force.
            real = Path(os.path.realpath(p))
            return _Target(path, real, None, True)
        except OSError:  # a symlink loop: nothing to write through, so --force replaces the link itself
            return _Target(path, p, None, True)
    try:
        st = real.stat()
    except FileNotFoundError:
        return _Target(path, real, None, False)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{path} is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path} is {kind_of(st.st_mode)}: envguard writes only regular files (nothing was written)")
    return _Target(path, real, stat.S_IMODE(st.st_mode), True)


def _clean_stale_temps(directory: Path, name: str) -> None:
    """Remove ``.NAME.PID.*.tmp`` files a killed envguard left (its PID no longer runs)."""
    try:
        entries = list(directory.glob(f".{name}.*.tmp"))
    except OSError:
        return
    for entry in entries:
        pid_text = entry.name[len(name) + 2:].split(".", 1)[0]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            entry.unlink(missing_ok=True)
        except OSError:  # alive under another user: leave it
            continue


def _write_temp(target: _Target, text: str) -> str:
    """Write ``text`` to a temp file beside the real target (same folder, so the rename is atomic)."""
    directory = target.real.parent
    _clean_stale_temps(directory, target.real.name)
    import tempfile  # NOTE: here, not at the top: a `check` that prints to stdout never writes a file

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.real.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write {target.path}: {exc.strerror or exc}") from exc
    try:
        if target.mode is not None:
            os.chmod(tmp, target.mode)  # --force keeps the mode of the file it replaces
        else:
            # NOTE: mkstemp creates 0600 files; give the result the mode a plain open() would.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {target.path}: {exc.strerror or exc}") from exc
    except BaseException:  # reason: Ctrl-C mid-write leaves no temp file behind
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _commit(pairs: Sequence[tuple[_Target, str]]) -> None:
    """Rename every temp over its target (all temps are complete before the first rename)."""
    for index, (target, tmp) in enumerate(pairs):
        try:
            os.replace(tmp, target.real)
        except OSError as exc:
            for _t, rest in pairs[index:]:
                Path(rest).unlink(missing_ok=True)
            raise InputError(f"cannot write {target.path}: {exc.strerror or exc}") from exc
        except BaseException:  # reason: interrupted between renames: no temp is left behind
            for _t, rest in pairs[index:]:
                Path(rest).unlink(missing_ok=True)
            raise


def write_atomic(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path`` via a temp file and rename; refuse to overwrite without ``force``.

    A symlink is written through (its target is replaced atomically); a dangling link or a loop counts as an
    existing file; a device, FIFO or socket is refused.

    :raises InputError: when the file exists and ``force`` is false, or it cannot be written.
    """
    target = _inspect(path)
    if target.exists and not force:
        raise InputError(f"{path} exists; use --force to overwrite it")
    _commit([(target, _write_temp(target, text))])


def check_output(path: str, *, force: bool) -> None:
    """Refuse early (before any probing) an output that would be refused at the end.

    :raises InputError: exists without ``force``, or is a folder, a device, a FIFO or a socket.
    """
    if _inspect(path).exists and not force:
        raise InputError(f"{path} exists; use --force to overwrite it")


def append_line(path: str, line: str) -> None:
    """Append one line to a regular file (created with its folders when missing; a symlink is followed).

    :raises InputError: the path is a folder, a device, a FIFO or a socket, or cannot be written.
    """
    target = _inspect(path)
    try:
        target.real.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(target.real, flags, 0o666)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # pragma: no cover - raced with _inspect
                raise InputError(f"{path} is not a regular file")
            os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_files(
    out_dir: str, files: Sequence[tuple[str, str]], *, force: bool, option: str = "-o",
) -> tuple[str, ...]:
    """Write (relative path, text) pairs under ``out_dir`` as one set: every target is checked, then every
    temp file written, then all are renamed into place, so a refusal or a failed write leaves the old set
    whole. ``option`` names the flag in messages ("-o", "--out").

    :raises InputError: a target exists (without ``force``) or is a folder, or a path cannot be created.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{option} {out_dir} is not a folder")
    paths = [out / name for name, _text in files]
    for path in paths:
        blocked = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocked is not None:
            where = f"{option} {out_dir}" if blocked == out or blocked in out.parents else str(path)
            raise InputError(f"cannot create {where}: {blocked} is not a folder")
    targets = [_inspect(str(path)) for path in paths]
    existing = [t.path for t in targets if t.exists]
    if existing and not force:
        raise InputError(exist_message(existing))
    for target in targets:
        try:
            target.real.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            where = f"{option} {out_dir}" if target.real.parent == out else str(target.real.parent)
            raise InputError(f"cannot create {where}: {exc.strerror or exc}") from None
    pairs: list[tuple[_Target, str]] = []
    try:
        for target, (_name, text) in zip(targets, files, strict=True):
            pairs.append((target, _write_temp(target, text)))
    except BaseException:  # reason: a failed or interrupted write leaves no temp file behind
        for _t, tmp in pairs:
            Path(tmp).unlink(missing_ok=True)
        raise
    _commit(pairs)
    return tuple(t.path for t in targets)
