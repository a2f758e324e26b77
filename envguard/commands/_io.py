"""Shared file I/O of the commands: atomic writers that refuse to overwrite without --force, bounded readers."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from envguard.errors import InputError, SnapshotError
from envguard.snapshot import Snapshot

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Largest snapshot file envguard reads (a real one is tens of kB).
MAX_SNAPSHOT_BYTES = 32 << 20


def read_text_input(path: str, *, stdin: bytes | None = None, what: str = "report") -> tuple[str, str]:
    """(text, name) of a file, or of stdin when ``path`` is "-" (``stdin`` holds its bytes).

    :raises InputError: unreadable, a directory, or too large.
    """
    from envguard.reports import MAX_REPORT_CHARS

    if path == "-":
        raw, name = stdin or b"", "<stdin>"
    else:
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_REPORT_CHARS + 1)
        except OSError as exc:
            raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
        name = path
    if len(raw) > MAX_REPORT_CHARS:
        raise InputError(f"{name} is larger than {MAX_REPORT_CHARS >> 20} MiB: not a {what}")
    if not raw.strip():
        raise InputError(f"{name} is empty")
    if b"\x00" in raw[:65536]:
        raise InputError(f"{name} is a binary file, not a text {what}")
    return raw.decode("utf-8", errors="replace"), name


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot JSON file (``-`` is not accepted here; the CLI reads stdin itself).

    :raises SnapshotError: unreadable, not JSON, truncated, or of an unknown schema version.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SNAPSHOT_BYTES + 1)
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {path}: {exc.strerror or exc}") from exc
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
        snapshot = Snapshot.from_dict(data)
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from exc
    return dataclasses.replace(snapshot, origin=f"snapshot {name}, taken by {snapshot.origin}")


def write_atomic(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path`` via a temp file and rename; refuse to overwrite without ``force``.

    :raises InputError: when the file exists and ``force`` is false, or it cannot be written.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{path} is a directory")
    if target.exists() and not force:
        raise InputError(f"{path} exists; use --force to overwrite it")
    directory = target.parent if str(target.parent) else Path()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        # NOTE: mkstemp creates 0600 files; give the result the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def write_files(
    out_dir: str, files: Sequence[tuple[str, str]], *, force: bool, option: str = "-o",
) -> tuple[str, ...]:
    """Write (relative path, text) pairs under ``out_dir``, each atomically; every target is checked before the
    first is written, so a refusal writes nothing. ``option`` names the flag in messages ("-o", "--out").

    :raises InputError: a target exists (without ``force``) or is a folder, or a path cannot be created.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{option} {out_dir} is not a folder")
    targets = [out / name for name, _text in files]
    for target in targets:
        if target.is_dir():
            raise InputError(f"{target} is a directory")
        blocked = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        if blocked is not None:
            where = f"{option} {out_dir}" if blocked == out or blocked in out.parents else str(target)
            raise InputError(f"cannot create {where}: {blocked} is not a folder")
    existing = [str(t) for t in targets if t.exists()]
    if existing and not force:
        raise InputError(f"{', '.join(existing)} exist(s); use --force to overwrite (nothing was written)")
    written = []
    for (_name, text), target in zip(files, targets, strict=True):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            where = f"{option} {out_dir}" if target.parent == out else str(target.parent)
            raise InputError(f"cannot create {where}: {exc.strerror or exc}") from None
        write_atomic(str(target), text, force=force)
        written.append(str(target))
    return tuple(written)
