"""Installed distributions as `lock --from-current` and `verify` see them: RECORD hashes, what lies beside the
distributions in site-packages. Pure data, apart from the Snapshot (`check` does not read these)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecordCheck:
    """Whether an installed distribution's files still match the sha256 hashes in its RECORD."""

    checked: int
    mismatched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    mismatched_count: int = 0
    missing_count: int = 0
    #: Why nothing could be checked ("no RECORD file"), if so.
    error: str | None = None
    #: sha256 over the installed RECORD's file entries (what a lock records per package; see _installed.py).
    files_digest: str | None = None

    @property
    def intact(self) -> bool:
        """True when every hashed file is present and unchanged."""
        return self.error is None and not self.mismatched_count and not self.missing_count


@dataclass(frozen=True, slots=True)
class SiteScan:
    """What lies in site-packages beside the distributions: files no RECORD lists under a locked package's
    folders, every ``.pth`` (code run at each start) with the distribution whose RECORD hash it matches, and
    bytecode that is not the compilation of its source."""

    unrecorded: tuple[str, ...] = ()
    unrecorded_count: int = 0
    #: (path, owning distribution or None).
    pth: tuple[tuple[str, str | None], ...] = ()
    bytecode: tuple[str, ...] = ()
    bytecode_count: int = 0


@dataclass(frozen=True, slots=True)
class InstalledDistribution:
    """An installed distribution as `lock --from-current` and `verify` see it."""

    name: str
    version: str
    installer: str | None = None
    #: direct_url.json's url (a local folder, a VCS or file URL), None for an index install.
    direct_url: str | None = None
    editable: bool = False
    record: RecordCheck | None = None
