"""Shared machinery of the matrix loaders: provenance types, the row-error collector, file loading."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import logging
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar, cast

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.errors import MatrixError, MatrixSchemaError


def _toml() -> Any:
    """The TOML parser, imported only when a matrix is not in the cache: tomli when installed (its compiled
    wheels parse about 3.5x faster than the standard library's tomllib, the same parser), else tomllib."""
    try:
        import tomli

        return tomli
    except ImportError:  # the standard library reads the same TOML
        import tomllib  # type: ignore[import-not-found,unused-ignore] # reason: Python 3.11+; 3.10 has tomli

        return tomllib

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

logger = logging.getLogger("envguard.knowledge")

MATRIX_SCHEMA: Final = 1
MATRIX_NAMES: Final = (
    "cuda-driver", "gpu-arch", "torch", "tensorflow", "errors",
    "jax", "cudnn", "nccl", "cuda-images", "gpu-peaks", "paddle", "onnxruntime",
)
CONFIDENCE: Final = ("official", "transcribed", "derived")
#: A row's source entries: documents by URL, or a distribution's own metadata (wheel METADATA /
#: Requires-Dist), cited by name and version so no package-index hostname is written here.
SOURCE_PREFIXES: Final = ("https://", "package metadata: ")
META_KEYS: Final = {"schema_version", "name", "source", "retrieved", "description"}


class VerbatimVersion(Version):
    """A Version that prints as written (NVIDIA spells 580.65.06, which PEP 440 prints as 580.65.6)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._text = text

    def __str__(self) -> str:
        return self._text


@functools.cache
def _verbatim(text: str) -> VerbatimVersion:
    """One VerbatimVersion per text: the tables repeat the same versions across rows (and Version is immutable)."""
    return VerbatimVersion(text)


@functools.cache
def _specifier_set(text: str) -> SpecifierSet:
    """One SpecifierSet per text, shared by the rows that write it (a matrix row's set is never changed after
    loading; building one hashes each clause through a Version parse, most of loading a table's specifiers)."""
    return SpecifierSet(text)


@dataclass(frozen=True, slots=True)
class MatrixMeta:
    """Provenance of one matrix file."""

    name: str
    schema_version: int
    source: str
    retrieved: dt.date
    description: str

    def describe(self) -> str:
        """``"torch v1 (retrieved 2026-11-30)"``."""
        return f"{self.name} v{self.schema_version} (retrieved {self.retrieved.isoformat()})"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a row's facts come from."""

    source: str
    confidence: str
    note: str | None = None


def norm_gpu(name: str) -> str:
    text = name.strip().lower()
    for prefix in ("nvidia ",):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return " ".join(text.replace("-", " ").split())


class Collector:
    """Collects every row error of one file, so they are reported together."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.errors: list[str] = []

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{self.name}.toml {where}: {message}")

    def version(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> Version | None:
        value = row.get(key)
        if value is None:
            if required:
                self.error(where, f"missing {key!r}")
            return None
        if not isinstance(value, str):
            self.error(where, f"{key!r} must be a string, got {value!r}")
            return None
        try:
            return _verbatim(value)
        except InvalidVersion:
            self.error(where, f"{key!r} is not a version: {value!r}")
            return None

    def string(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
        value = row.get(key)
        if value is None:
            if required:
                self.error(where, f"missing {key!r}")
            return None
        if not isinstance(value, str) or not value.strip():
            self.error(where, f"{key!r} must be a non-empty string, got {value!r}")
            return None
        return value

    def specifier(self, row: Mapping[str, Any], key: str, where: str) -> SpecifierSet:
        value = self.string(row, key, where, required=True)
        try:
            return _specifier_set(value or "")
        except InvalidSpecifier:
            self.error(where, f"{key!r} is not a PEP 440 specifier: {value!r}")
            return SpecifierSet()

    def cc_list(self, row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
        value = row.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and is_cc(v) for v in value):
            self.error(where, f"{key!r} must be a list of compute capabilities like '8.6', got {value!r}")
            return None
        return tuple(value)

    def flag(self, row: Mapping[str, Any], key: str, where: str) -> bool | None:
        value = row.get(key)
        if value is not None and not isinstance(value, bool):
            self.error(where, f"{key!r} must be true or false")
            return None
        return value

    def prov(self, row: Mapping[str, Any], where: str) -> Provenance:
        source = self.string(row, "source", where, required=True) or ""
        if source and not all(part.strip().startswith(SOURCE_PREFIXES) for part in source.split(" ; ")):
            self.error(where, f"source must be https URLs or 'package metadata: NAME VERSION' entries separated "
                              f"by ' ; ', got {source!r}")
        confidence = self.string(row, "confidence", where, required=True) or ""
        if confidence and confidence not in CONFIDENCE:
            self.error(where, f"confidence must be one of {CONFIDENCE}, got {confidence!r}")
        return Provenance(source, confidence, self.string(row, "note", where))

    def keys(self, row: Mapping[str, Any], allowed: set[str], where: str) -> None:
        unknown = sorted(set(row) - allowed)
        if unknown:
            self.error(where, f"unknown key(s) {', '.join(unknown)}")

    def rows(self, data: Mapping[str, Any], table: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
        value = data.get(table, [])
        if not isinstance(value, list):
            self.error(table, "must be an array of tables")
            return
        for i, row in enumerate(value):
            where = f"[[{table}]] #{i + 1}"
            if not isinstance(row, Mapping):
                self.error(where, "must be a table")
                continue
            yield where, row

    def integer(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> int | None:
        value = row.get(key)
        if value is None:
            if required:
                self.error(where, f"missing {key!r}")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, f"{key!r} must be an integer, got {value!r}")
            return None
        return value

    def number(self, row: Mapping[str, Any], key: str, where: str) -> float | None:
        value = row.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            self.error(where, f"{key!r} must be a non-negative number, got {value!r}")
            return None
        return float(value)

    def date(self, row: Mapping[str, Any], key: str, where: str) -> dt.date | None:
        value = row.get(key)
        if value is None:
            return None
        if isinstance(value, dt.datetime) or not isinstance(value, dt.date):
            self.error(where, f"{key!r} must be a TOML date, got {value!r}")
            return None
        return value

    def strings(self, row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = row.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.error(where, f"{key!r} must be a list of non-empty strings, got {value!r}")
            return ()
        return tuple(value)

    def integers(self, row: Mapping[str, Any], key: str, where: str) -> tuple[int, ...]:
        value = row.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            self.error(where, f"{key!r} must be a list of integers, got {value!r}")
            return ()
        return tuple(value)

    def optional_specifier(self, row: Mapping[str, Any], key: str, where: str) -> SpecifierSet | None:
        if row.get(key) is None:
            return None
        value = self.string(row, key, where)
        if value is None:
            return None
        try:
            return _specifier_set(value)
        except InvalidSpecifier:
            self.error(where, f"{key!r} is not a PEP 440 specifier: {value!r}")
            return None

    def cc(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
        value = self.string(row, key, where, required=required)
        if value is not None and not is_cc(value):
            self.error(where, f"{key!r} must look like '8.6', got {value!r}")
            return None
        return value


def is_cc(text: str) -> bool:
    major, _, minor = text.partition(".")
    return major.isdigit() and minor.isdigit()


def read_meta(root: Traversable, name: str) -> MatrixMeta:
    """Only the header of ``name``.toml (the keys before its first table), for ``--version`` and staleness.

    :raises MatrixError: when the file cannot be read or its header is not valid.
    """
    from envguard.resources import matrix_header_text

    try:
        # NOTE: through the parse cache, keyed by the header's text: the staleness check reads all eleven.
        data = _parsed(name, matrix_header_text(root, name), part="header")
    except (OSError, UnicodeDecodeError) as exc:
        raise MatrixError(f"cannot read matrix {name}.toml from {root}: {exc}") from exc
    retrieved = data.get("retrieved")
    if isinstance(retrieved, dt.datetime) or not isinstance(retrieved, dt.date):
        raise MatrixError(f"matrix {name}.toml header: retrieved must be a TOML date")
    return MatrixMeta(str(data.get("name") or name), int(data.get("schema_version") or 0),
                      str(data.get("source") or ""), retrieved, str(data.get("description") or ""))


def load_file(root: Traversable, name: str, parse: Callable[[MatrixMeta, dict[str, Any], Collector], Any]) -> Any:
    node = root / f"{name}.toml"
    try:
        raw = node.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MatrixError(f"cannot read matrix {name}.toml from {root}: {exc}") from exc
    data = _parsed(name, raw)
    version = data.get("schema_version")
    if version is None:
        raise MatrixError(f"matrix {name}.toml has no schema_version; this envguard reads {MATRIX_SCHEMA}")
    if version != MATRIX_SCHEMA:
        raise MatrixError(
            f"matrix {name}.toml has schema_version {version!r}; this envguard reads {MATRIX_SCHEMA}"
        )
    col = Collector(name)
    retrieved = data.get("retrieved")
    if not isinstance(retrieved, dt.date):
        col.error("header", "retrieved must be a TOML date")
        retrieved = dt.date.min
    meta = MatrixMeta(
        name=col.string(data, "name", "header", required=True) or name,
        schema_version=MATRIX_SCHEMA,
        source=col.string(data, "source", "header", required=True) or "",
        retrieved=retrieved,
        description=col.string(data, "description", "header") or "",
    )
    if meta.name != name:
        col.error("header", f"name {meta.name!r} does not match the file name")
    result = parse(meta, data, col)
    if col.errors:
        raise MatrixSchemaError(f"{len(col.errors)} problem(s) in the matrices:\n  " + "\n  ".join(col.errors))
    logger.info("loaded matrix %s from %s", meta.describe(), root)
    return result


def _cache_dir() -> str | None:
    """Where parsed matrices are cached: $ENVGUARD_CACHE_DIR, else $XDG_CACHE_HOME/envguard, else ~/.cache/envguard;
    ENVGUARD_CACHE_DIR="" turns the cache off."""
    import os

    if "ENVGUARD_CACHE_DIR" in os.environ:
        return os.environ["ENVGUARD_CACHE_DIR"] or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "envguard")


def _dates(obj: dict[str, Any]) -> Any:
    return dt.date.fromisoformat(obj["__date__"]) if set(obj) == {"__date__"} else obj


def _undate(value: Any) -> Any:
    if isinstance(value, dt.date):
        return {"__date__": value.isoformat()}
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _blake2b(data: bytes, *, digest_size: int) -> Any:
    """BLAKE2b of ``data``: hashlib's own implementation, imported without hashlib (which loads OpenSSL, a few ms
    of every `check`) where CPython has it built in."""
    try:
        from _blake2 import blake2b
    except ImportError:  # NOTE: not CPython
        from hashlib import blake2b
    return blake2b(data, digest_size=digest_size)


def _parsed(name: str, raw: str, part: str = "") -> dict[str, Any]:
    """The TOML document, from a JSON cache keyed by the file's content when there is one (parsing TOML is most of
    the cost of loading a matrix: tomllib reads these files several times slower than json reads the same data).
    The TOML file stays the only source; a cache entry that cannot be read or written is simply ignored.
    ``part``: "header" when ``raw`` is only the file's header (its own cache entry).

    :raises MatrixError: when the text is not valid TOML.
    """
    import contextlib
    import json
    import os
    import re

    folder = _cache_dir()
    digest = _blake2b(f"{MATRIX_SCHEMA}\0{raw}".encode(), digest_size=12).hexdigest()
    stem = f"matrix-{name}{'-' + part if part else ''}-"
    path = os.path.join(folder, f"{stem}{digest}.json") if folder else None
    if path is not None:
        try:
            with open(path, encoding="utf-8") as fh:
                cached = json.load(fh, object_hook=_dates)
            if isinstance(cached, dict):
                return cast("dict[str, Any]", cached)
        except (OSError, ValueError, KeyError, RecursionError):
            pass
    toml = _toml()
    try:
        data: dict[str, Any] = toml.loads(raw)
    except toml.TOMLDecodeError as exc:
        where = " has an invalid header" if part == "header" else " is not valid TOML"
        raise MatrixError(f"matrix {name}.toml{where}: {exc}") from exc
    if path is not None and folder is not None:
        tmp = None
        try:
            import tempfile

            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".matrix-{name}.", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, default=_undate)
            os.replace(tmp, path)
            tmp = None
            entry = re.compile(re.escape(stem) + r"[0-9a-f]{24}\.json")
            for old in os.listdir(folder):  # earlier versions of this matrix (or of its header)
                if entry.fullmatch(old) and old != os.path.basename(path):
                    os.unlink(os.path.join(folder, old))
        except (OSError, TypeError, ValueError):
            logger.debug("matrix cache not written for %s", name)
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    return data


PROV_KEYS = {"source", "confidence", "note"}


def series_version(text: str, col: Collector) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        col.error("release", f"version {text!r} is not a version")
        return Version("0")


def check_order(values: list[Version], col: Collector, table: str, key: str) -> None:
    for i, (a, b) in enumerate(itertools.pairwise(values)):
        if b >= a:
            col.error(f"[[{table}]] #{i + 2}",
                      f"{key} {b} must be older than the row before it ({a}): newest first, no duplicates")


def check_unique(values: list[Any], col: Collector, table: str, key: str) -> None:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            col.error(f"[[{table}]]", f"duplicate {key} {value!r}")
        seen.add(value)


def check_not_newer(values: list[Version], col: Collector, table: str, key: str) -> None:
    """Newest first, equal values allowed (several rows per release)."""
    for i, (a, b) in enumerate(itertools.pairwise(values)):
        if b > a:
            col.error(f"[[{table}]] #{i + 2}",
                      f"{key} {b} must not be newer than the row before it ({a}): newest first")


class _Series(Protocol):
    @property
    def version(self) -> str: ...


_R = TypeVar("_R", bound=_Series)


def series_lookup(rows: tuple[_R, ...], version: str) -> _R | None:
    """The row of ``version``'s X.Y series (rows keyed "2.5", versions such as "2.5.1+cu121")."""
    try:
        v = Version(version)
    except InvalidVersion:
        return None
    key = f"{v.major}.{v.minor}"
    return next((r for r in rows if r.version == key), None)


@dataclass(frozen=True, slots=True)
class JetsonBuilds:
    """NVIDIA's own builds of one framework (torch, TensorFlow) for the Jetson boards of one JetPack major."""

    #: JetPack major ("4").
    jetpack: str
    #: The newest series NVIDIA built for this JetPack ("1.10" for torch on JetPack 4).
    newest: Version
    #: Compute capabilities of the boards whose last JetPack major is this one ("5.3": Nano, TX1).
    last_for: tuple[str, ...]
    prov: Provenance


def parse_jetson(data: Mapping[str, Any], col: Collector) -> tuple[JetsonBuilds, ...]:
    """A matrix's [[jetson]] rows (jetpack, newest, last_for)."""
    out = []
    for where, row in col.rows(data, "jetson"):
        col.keys(row, {"jetpack", "newest", "last_for"} | PROV_KEYS, where)
        jetpack, newest = col.string(row, "jetpack", where, required=True), col.version(row, "newest", where,
                                                                                         required=True)
        if jetpack is None or newest is None:
            continue
        out.append(JetsonBuilds(jetpack, newest, col.cc_list(row, "last_for", where) or (), col.prov(row, where)))
    check_unique([r.jetpack for r in out], col, "jetson", "jetpack")
    return tuple(out)


def jetson_lookup(rows: tuple[JetsonBuilds, ...], jetpack: str | None, cc: str | None) -> JetsonBuilds | None:
    """The row for JetPack ``jetpack`` (any release, its major counts), else the row of the last JetPack of a board
    of compute capability ``cc``; None when not recorded."""
    major = jetpack.lstrip("vV").split(".")[0] if jetpack else None
    row = next((r for r in rows if r.jetpack == major), None) if major else None
    return row or next((r for r in rows if cc is not None and cc in r.last_for), None)
