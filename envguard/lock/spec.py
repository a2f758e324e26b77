"""The lock: what is pinned, for which Python, platform and CUDA, from which index. Versioned JSON."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from envguard.errors import LockError

#: Version of envguard.lock.json; readers reject any other.
LOCK_SCHEMA: Final = 1
LOCK_JSON: Final = "envguard.lock.json"

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(?::\d+)?(?:/[A-Za-z0-9._~%/+-]*)?$")


def check_name(name: str, what: str = "package name") -> str:
    """A distribution name safe to put in a file envguard renders.

    :raises LockError: for anything that is not a PEP 508 name.
    """
    if not _NAME.fullmatch(name):
        raise LockError(f"{what} {name!r} is not a valid distribution name")
    return name


def check_version(version: str, name: str) -> str:
    """A PEP 440 version, as the resolver wrote it.

    :raises LockError: when it is not one.
    """
    try:
        Version(version)
    except InvalidVersion:
        raise LockError(f"{name}: {version!r} is not a PEP 440 version") from None
    if not re.fullmatch(r"[A-Za-z0-9.+!_-]+", version):
        raise LockError(f"{name}: version {version!r} has characters envguard will not render")
    return version


def check_url(url: str, what: str = "index URL") -> str:
    """An http(s) index URL with nothing a template could be tricked by.

    :raises LockError: otherwise.
    """
    if not _URL.fullmatch(url):
        from envguard._redact import redact_urls

        raise LockError(f"{what} {redact_urls(url)!r} is not a plain http(s) URL")
    return url


@dataclass(frozen=True, slots=True)
class LockedPackage:
    """One pinned distribution and the sha256 hashes of the files allowed to install it."""

    name: str
    version: str
    hashes: tuple[str, ...]
    #: True when the user asked for it (a top-level requirement), False for a dependency.
    requested: bool = False
    #: sha256 over the files its wheel installs ("path<TAB>hash" lines of its RECORD), when recorded at lock
    #: time: verify then catches a file edited together with its RECORD line.
    files: str | None = None
    #: A PEP 508 marker when the pin holds only on some of a multi-platform lock's platforms.
    marker: str | None = None

    @property
    def key(self) -> str:
        """Normalized name (PEP 503)."""
        return canonicalize_name(self.name)

    @property
    def local(self) -> str | None:
        """The local version label ("cu124"), if any."""
        return Version(self.version).local


@dataclass(frozen=True, slots=True)
class IndexUse:
    """An extra package index the lock needs, and why (e.g. the PyTorch cu124 index)."""

    url: str
    reason: str


@dataclass(frozen=True, slots=True)
class LockTarget:
    """What the lock was made for."""

    python: str
    #: "linux-x86_64", "linux-aarch64".
    platform: str
    #: CUDA of the framework build ("12.4"); None for CPU builds or no framework.
    cuda: str | None
    #: Framework variant tag ("cu124", "cpu"), when a framework with variants is locked.
    variant: str | None = None
    cudnn: str | None = None
    nccl: str | None = None
    #: Lowest Linux driver that runs the locked CUDA (minor-version compatibility), when known.
    driver_floor: str | None = None


@dataclass(frozen=True, slots=True)
class LockSpec:
    """A complete lock, as written to envguard.lock.json."""

    target: LockTarget
    packages: tuple[LockedPackage, ...]
    indexes: tuple[IndexUse, ...] = ()
    #: "request" or "current".
    mode: str = "request"
    #: The requirements as given (request mode) or "name==version" of what was installed.
    requirements: tuple[str, ...] = ()
    #: "uv 0.5.1" / "pip 24.2".
    resolver: str = ""
    envguard_version: str = ""
    #: Matrix files and their retrieval dates, e.g. "torch v1 (retrieved 2026-11-30)".
    matrices: tuple[str, ...] = ()
    #: Installed distributions left out of a --from-current lock, with the reason.
    skipped: tuple[tuple[str, str], ...] = field(default=())
    schema_version: int = LOCK_SCHEMA

    def package(self, name: str) -> LockedPackage | None:
        """The pin for a distribution name, normalized."""
        key = canonicalize_name(name)
        return next((p for p in self.packages if p.key == key), None)

    @property
    def fingerprint(self) -> str:
        """sha256 of what determines the environment: target, pins, hashes and indexes (not provenance)."""
        core = {
            "target": _plain(self.target),
            "packages": [[p.key, p.version, sorted(p.hashes), *([p.files] if p.files else []),
                          *([f"; {p.marker}"] if p.marker else [])]
                         for p in sorted(self.packages, key=lambda p: (p.key, p.marker or ""))],
            "indexes": sorted(i.url for i in self.indexes),
        }
        blob = json.dumps(core, sort_keys=True, separators=(",", ":")).encode()
        return "sha256:" + hashlib.sha256(blob).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The envguard.lock.json document (sorted, so equal locks are byte-identical)."""
        return {
            "schema_version": self.schema_version,
            "generator": {"envguard": self.envguard_version, "resolver": self.resolver,
                          "matrices": list(self.matrices)},
            "fingerprint": self.fingerprint,
            "mode": self.mode,
            "requirements": list(self.requirements),
            "target": _plain(self.target),
            "indexes": [{"url": i.url, "reason": i.reason} for i in self.indexes],
            "packages": [{"name": p.name, "version": p.version, "hashes": sorted(p.hashes),
                          "requested": p.requested, **({"files": p.files} if p.files else {}),
                          **({"marker": p.marker} if p.marker else {})}
                         for p in sorted(self.packages, key=lambda p: (p.key, p.marker or ""))],
            "skipped": [{"name": n, "reason": r} for n, r in self.skipped],
        }

    def to_json(self) -> str:
        """Canonical file text."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_dict(cls, data: Any, name: str = LOCK_JSON, *, allow_unsigned: bool = False) -> LockSpec:
        """Read a lock document back, validating every field; its ``fingerprint`` must match the content
        (a lock without one is refused unless ``allow_unsigned``: deleting the key must not make an edit pass).

        :raises LockError: unknown schema version or malformed content.
        """
        if not isinstance(data, Mapping):
            raise LockError(f"{name} is not a JSON object")
        version = data.get("schema_version")
        if version is None:
            raise LockError(f"{name} has no schema_version: not an envguard lock (`envguard lock` writes one)")
        if version != LOCK_SCHEMA:
            raise LockError(f"{name}: lock schema_version {version!r} is not supported "
                            f"(this envguard reads {LOCK_SCHEMA}); re-create it with `envguard lock`")
        try:
            t = data["target"]
            target = LockTarget(
                python=_str(t["python"]), platform=_str(t["platform"]), cuda=_opt(t.get("cuda")),
                variant=_opt(t.get("variant")), cudnn=_opt(t.get("cudnn")), nccl=_opt(t.get("nccl")),
                driver_floor=_opt(t.get("driver_floor")),
            )
            packages = []
            for p in data["packages"]:
                pname = check_name(_str(p["name"]))
                hashes = tuple(_str(h) for h in p.get("hashes") or ())
                bad = [h for h in hashes if not _HASH.fullmatch(h)]
                if bad:
                    raise LockError(f"{name}: {pname}: malformed hash {bad[0]!r}")
                files = _opt(p.get("files"))
                if files is not None and not _HASH.fullmatch(files):
                    raise LockError(f"{name}: {pname}: malformed files digest {files!r}")
                marker = _opt(p.get("marker"))
                if marker is not None:
                    _check_marker(marker, pname, name)
                packages.append(LockedPackage(pname, check_version(_str(p["version"]), pname), hashes,
                                              bool(p.get("requested", False)), files, marker))
            indexes = tuple(IndexUse(check_url(_str(i["url"])), _str(i.get("reason", "")))
                            for i in data.get("indexes") or ())
            gen = data.get("generator") or {}
            spec = cls(
                target=target, packages=tuple(packages), indexes=indexes, mode=_str(data.get("mode", "request")),
                requirements=tuple(_str(r) for r in data.get("requirements") or ()),
                resolver=_str(gen.get("resolver", "")), envguard_version=_str(gen.get("envguard", "")),
                matrices=tuple(_str(m) for m in gen.get("matrices") or ()),
                skipped=tuple((_str(s["name"]), _str(s["reason"])) for s in data.get("skipped") or ()),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise LockError(f"{name} is not a valid envguard lock: missing or malformed field {exc}") from None
        recorded = data.get("fingerprint")
        if recorded is None and not allow_unsigned:
            raise LockError(f"{name} has no fingerprint, so a hand edit cannot be told from `envguard lock`'s "
                            "output; re-create it with `envguard lock` (or pass --allow-unsigned for a lock "
                            "written before fingerprints)")
        if recorded is not None and recorded != spec.fingerprint:
            raise LockError(f"{name}: fingerprint {recorded} does not match its content ({spec.fingerprint}); "
                            "the file was edited by hand — re-create it with `envguard lock`")
        return spec


def _check_marker(marker: str, pname: str, name: str) -> None:
    from packaging.markers import InvalidMarker, Marker

    try:
        Marker(marker)
    except InvalidMarker:
        raise LockError(f"{name}: {pname}: {marker!r} is not an environment marker") from None
    if not re.fullmatch(r"[A-Za-z0-9_ .=<>!'\"()~-]+", marker):
        raise LockError(f"{name}: {pname}: marker {marker!r} has characters envguard will not render")


def _plain(target: LockTarget) -> dict[str, str | None]:
    return {"python": target.python, "platform": target.platform, "cuda": target.cuda, "variant": target.variant,
            "cudnn": target.cudnn, "nccl": target.nccl, "driver_floor": target.driver_floor}


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _opt(value: Any) -> str | None:
    return None if value is None else _str(value)
