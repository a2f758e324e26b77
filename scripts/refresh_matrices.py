#!/usr/bin/env python3
"""Refresh the derivable rows of ``matrices/torch.toml`` and ``matrices/tensorflow.toml`` from package metadata.

A maintainer tool: envguard never imports it. Three subcommands:

``fetch SPEC... --python 3.11 [--platform TAG] -o DIR``
    Runs pip's resolver in metadata-only mode (``pip install --dry-run --report``, no install; the
    wheel itself is not downloaded where the index serves its metadata separately) on the
    installer's default index, and saves the report as ``DIR/<name>-<version>.json`` with every
    download URL reduced to its file name (no package-index hostname is written to disk).
``derive REPORT... [--format json|toml]``
    The facts a report's metadata states: Python versions from the wheel tags (cp311 -> 3.11) and
    Requires-Python; for torch, the CUDA variant, cuDNN and NCCL pinned by the ``nvidia-*`` /
    ``cuda-toolkit`` requirements that apply on Linux x86_64; for tensorflow, the ``[and-cuda]`` pins.
``check REPORT... [--matrices DIR] [--format text|json]``
    Compares those facts with the matrix rows and prints each agreement and difference.
``news (--answers DIR | --record DIR) [--python X.Y ...] [--series N] [--matrices DIR] [--format text|json]``
    For torch, torchvision, torchaudio, tensorflow, jax, jaxlib, the jax CUDA plugins, paddlepaddle-gpu and the
    nvidia cuDNN/NCCL wheels: the releases the index has that the matrices lack (``pip index versions``, metadata
    only), and for the known releases whose metadata was recorded, whether the recorded pins still match.
    ``--record DIR`` asks the index and saves its answers (``DIR/versions/<name>.txt``, the pip reports of the
    newest patch of the newest ``--series`` known torch / tensorflow / jax-plugin series in ``DIR/metadata``)
    before reading them; ``--answers DIR`` reads answers recorded earlier, offline.

Exit status: 0 when everything agrees (or fetch succeeded), 1 when some fact differs from the
matrices or is missing there (update the row, citing ``package metadata: NAME VERSION``; for ``news``: also
when the index has releases the matrices lack), 2 on bad
input (unreadable file, not a pip report, pip failed).
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import re
import subprocess  # noqa: TID251 # reason: a standalone maintainer script, not part of envguard
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote, urlsplit

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from envguard.knowledge import Matrices

ROOT: Final = Path(__file__).resolve().parent.parent
DEFAULT_MATRICES: Final = ROOT / "matrices"
PIP_TIMEOUT_S: Final = 600
#: Status words of a comparison; the first two make ``check`` exit 1.
FAILING: Final = ("differ", "missing")
#: Any URL or bare host name: recorded metadata is committed, and no package-index host may be written here.
_INDEX_HOST_RE: Final = re.compile(
    r"https?://[^\s\"'<>)\]]+|\b(?:[a-z0-9-]+\.)+(?:org|com|net|io|dev|cn)\b", re.IGNORECASE
)
_INDEX_HOST_REPLACEMENT: Final = "<URL removed>"
_RUNTIME_RE: Final = re.compile(r"^nvidia-cuda-runtime(?:-cu(\d+))?$")
_CUDNN_RE: Final = re.compile(r"^nvidia-cudnn(?:-cu(\d+))?$")
_NCCL_RE: Final = re.compile(r"^nvidia-nccl(?:-cu(\d+))?$")
_TOOLKIT: Final = "cuda-toolkit"
_PY_TAG_RE: Final = re.compile(r"^(?:cp|py)(\d)(\d+)$")
_AND_CUDA: Final = "and-cuda"
#: The extra of the jax CUDA plugins that pins their NVIDIA wheels (``jax[cuda12]`` installs it).
_WITH_CUDA: Final = "with-cuda"


class InputError(Exception):
    """Bad input: printed as one line, exit status 2."""


# ---- reading reports -----------------------------------------------------------------------


def load_report(path: Path) -> dict[str, Any]:
    """A pip installation report (``pip install --report``), checked for the keys this script reads."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{path}: cannot read: {reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("install"), list) or "version" not in data:
        raise InputError(f"{path}: not a pip installation report (no 'version' and 'install' list)")
    for index, item in enumerate(data["install"]):
        meta = item.get("metadata") if isinstance(item, dict) else None
        info = item.get("download_info") if isinstance(item, dict) else None
        if not (
            isinstance(meta, dict) and isinstance(meta.get("name"), str) and isinstance(meta.get("version"), str)
            and isinstance(info, dict) and isinstance(info.get("url"), str)
        ):
            raise InputError(f"{path}: install[{index}] lacks metadata name/version or download_info url")
    return data


# ---- deriving facts ------------------------------------------------------------------------


@dataclass(frozen=True)
class Derived:
    """What one distribution's metadata states about the facts the matrices record."""

    name: str
    version: str
    #: Wheel file name (the report's download URL reduced to its last path segment).
    file: str
    #: Python versions the wheel's tags name ("3.11"); empty when the wheel is py3 / abi3 / not a wheel.
    wheel_python: tuple[str, ...]
    requires_python: str | None
    #: Platform tags of the wheel.
    platforms: tuple[str, ...]
    #: Local version label ("cpu", "cu124"): a build from a framework's own index, not the PyPI default.
    local: str | None
    #: nvidia-* / cuda-toolkit requirements that apply on Linux x86_64 (distribution -> specifier).
    pins: dict[str, str]
    #: The CUDA extra's requirements (tensorflow ``[and-cuda]``, jax-cudaN-plugin ``[with-cuda]``), distribution ->
    #: specifier.
    and_cuda: dict[str, str]
    #: CUDA major.minor the pins imply ("12.4"), and the requirement it was read from.
    cuda: str | None
    cuda_from: str | None
    #: Variant tag: the local label, else "cu" + CUDA major/minor ("cu124", "cu130").
    tag: str | None
    cudnn: str | None
    nccl: str | None
    notes: tuple[str, ...] = field(default=())

    @property
    def series(self) -> str:
        """Minor series ("2.5") of the version."""
        v = Version(self.version)
        return f"{v.major}.{v.minor}"


def linux_environment(python: str, extra: str = "") -> dict[str, str]:
    """Marker environment of CPython ``python`` on Linux x86_64 (the platform the matrices describe)."""
    return {
        "os_name": "posix",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "x86_64",
        "platform_release": "",
        "platform_version": "",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "implementation_version": f"{python}.0",
        "python_version": python,
        "python_full_version": f"{python}.0",
        "extra": extra,
    }


def file_name(url: str) -> str:
    """The last path segment of a URL (or path), percent-decoded: ``.../torch-2.5.1-cp311-...whl`` -> the name."""
    path = urlsplit(url).path if "://" in url else url
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


def wheel_tags(name: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """(Python versions, platform tags, is a wheel) from a wheel file name; cp311 -> "3.11", py3/abi3 -> none."""
    try:
        _, _, _, tags = parse_wheel_filename(name)
    except InvalidWheelFilename:
        return (), (), False
    pythons: set[str] = set()
    for tag in tags:
        match = _PY_TAG_RE.match(tag.interpreter)
        if match and tag.abi != "abi3":
            pythons.add(f"{match.group(1)}.{match.group(2)}")
    return tuple(sorted(pythons, key=Version)), tuple(sorted({t.platform for t in tags})), True


def _pinned(spec: str) -> str | None:
    """The version a specifier pins (``==12.4.127``) or starts at (``>=9.3.0.75,<10``); None otherwise."""
    try:
        specs = list(SpecifierSet(spec))
    except InvalidSpecifier:
        return None
    exact = [s.version for s in specs if s.operator in ("==", "===") and "*" not in s.version]
    if len(exact) == 1:
        return exact[0]
    floors = [s.version for s in specs if s.operator == ">="]
    return floors[0] if len(floors) == 1 and not exact else None


def _major_minor(version: str) -> str | None:
    try:
        v = Version(version)
    except InvalidVersion:
        return None
    return f"{v.major}.{v.minor}"


def _applies(req: Requirement, env: dict[str, str]) -> bool:
    return req.marker is None or req.marker.evaluate(env)


def _first(pins: Mapping[str, str], pattern: re.Pattern[str]) -> tuple[str, str] | None:
    """(distribution, pinned version) of the first distribution matching ``pattern`` with a readable pin."""
    for name, spec in pins.items():
        version = _pinned(spec)
        if pattern.match(name) and version is not None:
            return name, version
    return None


def derive_item(item: Mapping[str, Any], fallback_python: str = "3.11") -> Derived:
    """Facts of one ``install`` entry of a pip report."""
    meta: Mapping[str, Any] = item["metadata"]
    name = canonicalize_name(meta["name"])
    version = str(meta["version"])
    wheel = file_name(item["download_info"]["url"])
    pythons, platforms, is_wheel = wheel_tags(wheel)
    notes: list[str] = []
    if not is_wheel:
        notes.append(f"{wheel} is not a wheel: no tags to read the Python version from")
    elif not pythons:
        notes.append("the wheel is not Python-version specific (py3 / abi3): see Requires-Python")
    try:
        local = Version(version).local
    except InvalidVersion:
        raise InputError(f"{name}: version {version!r} is not PEP 440") from None
    python = pythons[0] if pythons else fallback_python
    runtime_env = linux_environment(python)
    extra_env = linux_environment(python, _WITH_CUDA if name.startswith("jax-cuda") else _AND_CUDA)
    pins: dict[str, str] = {}
    pin_text: dict[str, str] = {}
    and_cuda: dict[str, str] = {}
    for line in meta.get("requires_dist") or ():
        try:
            req = Requirement(line)
            runtime = _applies(req, runtime_env)
            extra = not runtime and req.marker is not None and req.marker.evaluate(extra_env)
        except (InvalidRequirement, InvalidMarker, UndefinedComparison, UndefinedEnvironmentName) as exc:
            notes.append(f"skipped requirement {line!r}: {exc}")
            continue
        dist = canonicalize_name(req.name)
        if runtime and (dist.startswith("nvidia-") or dist == _TOOLKIT):
            pins[dist] = str(req.specifier)
            extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
            pin_text[dist] = f"{dist}{extras}{req.specifier}"
        elif extra:
            and_cuda[dist] = str(req.specifier)
    source = pins or and_cuda
    cuda = cuda_from = None
    runtime_pin = _first(source, _RUNTIME_RE)
    if runtime_pin is None and _TOOLKIT in source and _pinned(source[_TOOLKIT]) is not None:
        runtime_pin = (_TOOLKIT, _pinned(source[_TOOLKIT]) or "")
    if runtime_pin is not None:
        cuda = _major_minor(runtime_pin[1])
        cuda_from = pin_text.get(runtime_pin[0], f"{runtime_pin[0]}{source[runtime_pin[0]]}")
        suffix = _RUNTIME_RE.match(runtime_pin[0])
        if cuda and suffix and suffix.group(1) and suffix.group(1) != cuda.split(".")[0]:
            notes.append(f"{runtime_pin[0]} pins CUDA {cuda}, not CUDA {suffix.group(1)}")
    cudnn = _first(source, _CUDNN_RE)
    nccl = _first(source, _NCCL_RE)
    tag = local
    if tag is None and cuda is not None and pins:  # a variant tag only for CUDA the wheel itself requires
        tag = "cu" + cuda.replace(".", "")
    if name == "torch" and not pins and local is None:
        notes.append(
            "no nvidia-* pins apply on Linux x86_64: a CPU-only wheel, or one that bundles its CUDA "
            "libraries (torch before 1.13): the CUDA variant is not derivable from metadata"
        )
    return Derived(
        name=name, version=version, file=wheel, wheel_python=pythons,
        requires_python=meta.get("requires_python") or None, platforms=platforms, local=local,
        pins=pins, and_cuda=and_cuda, cuda=cuda, cuda_from=cuda_from, tag=tag,
        cudnn=cudnn[1] if cudnn else None, nccl=nccl[1] if nccl else None, notes=tuple(notes),
    )


def derive_report(report: Mapping[str, Any]) -> list[Derived]:
    """Facts of every distribution a pip report installs."""
    env = report.get("environment")
    fallback = env.get("python_version") if isinstance(env, dict) else None
    return [derive_item(item, fallback if isinstance(fallback, str) else "3.11") for item in report["install"]]


def derive_files(paths: Iterable[Path]) -> list[Derived]:
    """Facts of every distribution in the reports (raises InputError on bad input)."""
    return [d for path in paths for d in derive_report(load_report(path))]


def _toml_str(value: str) -> str:
    return json.dumps(value)


def _inline(mapping: Mapping[str, str]) -> str:
    return "{ " + ", ".join(f"{k} = {_toml_str(v)}" for k, v in mapping.items()) + " }"


def toml_fragment(d: Derived) -> str:
    """A matrix-row fragment with the derivable keys filled in (paste, then add the non-derivable keys)."""
    cite = f"package metadata: {d.name} {d.version}"
    python = ", ".join(d.wheel_python) or "not version-specific"
    lines = [f"# {d.name} {d.version} ({d.file}); wheel Python: {python}; Requires-Python: {d.requires_python}"]
    lines += [f"# note: {n}" for n in d.notes]
    if d.name == "torch":
        lines += ["[[release]]", f"version = {_toml_str(d.series)}"]
        if d.tag and d.local is None:
            lines.append(f"pypi_default = {_toml_str(d.tag)}")
        lines.append(f"source = {_toml_str(cite)}")
        if d.tag:
            lines += ["", "  [[release.variant]]", f"  tag = {_toml_str(d.tag)}"]
            facts = (("cuda", d.cuda), ("cudnn", d.cudnn), ("nccl", d.nccl))
            lines += [f"  {k} = {_toml_str(v)}" for k, v in facts if v]
            lines.append(f"  source = {_toml_str(cite)}")
    elif d.name == "tensorflow":
        lines += ["[[release]]", f"version = {_toml_str(d.series)}"]
        if d.and_cuda:
            lines.append(f"and_cuda = {_inline(d.and_cuda)}")
        lines.append(f"source = {_toml_str(cite)}")
    else:
        lines.append(f"# no matrix row is derived for {d.name}; Linux x86_64 nvidia pins: {_inline(d.pins)}")
    return "\n".join(lines) + "\n"


# ---- comparing with the matrices -----------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """One fact compared: ``status`` is agree, differ, missing (the matrix lacks it), unknown or unrecorded."""

    package: str
    version: str
    field: str
    status: str
    matrix: str | None
    metadata: str | None
    detail: str = ""

    def line(self) -> str:
        """``  agree     cu124.cudnn  matrix 9.1.0.70, metadata 9.1.0.70``."""
        word = self.status.upper() if self.status in FAILING else self.status
        values = f"matrix {self.matrix or '(none)'}, metadata {self.metadata or '(none)'}"
        detail = f" ({self.detail})" if self.detail else ""
        return f"  {word:<10} {self.field:<34} {values}{detail}"


def _same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def _value(d: Derived, key: str, matrix: str | None, metadata: str | None, detail: str = "") -> Comparison:
    if metadata is None:
        status = "unknown"
    elif matrix is None:
        status = "missing"
    else:
        status = "agree" if _same_version(matrix, metadata) else "differ"
    return Comparison(d.name, d.version, key, status, matrix, metadata, detail)


def _python(d: Derived, spec: SpecifierSet) -> Comparison:
    if not d.wheel_python:
        return Comparison(d.name, d.version, "python", "unknown", str(spec), d.requires_python,
                          "the wheel names no Python version")
    outside = [p for p in d.wheel_python if not spec.contains(p, prereleases=True)]
    status = "differ" if outside else "agree"
    detail = f"wheel for {', '.join(outside)} outside the row's range" if outside else "wheel's Python within the row"
    return Comparison(d.name, d.version, "python", status, str(spec), ", ".join(d.wheel_python), detail)


def compare_torch(d: Derived, matrices: Matrices) -> list[Comparison]:
    """torch facts against ``torch.toml``."""
    release = matrices.torch.release(d.version)
    if release is None:
        return [Comparison(d.name, d.version, "release", "missing", None, d.series, "no row for this series")]
    out = [_python(d, release.python)]
    if d.tag is None:
        out.append(Comparison(d.name, d.version, "pypi_default", "unknown", release.pypi_default, None,
                              "no CUDA pins in the metadata"))
        return out
    if d.local is None:
        out.append(_tag(d, release.pypi_default))
    variant = release.variant(d.tag)
    if variant is None:
        out.append(Comparison(d.name, d.version, f"variant {d.tag}", "missing", None, d.tag, "no such variant row"))
        return out
    out.append(_value(d, f"{d.tag}.cuda", variant.cuda, d.cuda, d.cuda_from or ""))
    out.append(_value(d, f"{d.tag}.cudnn", variant.cudnn, d.cudnn, _pin_detail(d, _CUDNN_RE)))
    out.append(_value(d, f"{d.tag}.nccl", variant.nccl, d.nccl, _pin_detail(d, _NCCL_RE)))
    return out


def _tag(d: Derived, matrix: str | None) -> Comparison:
    status = "missing" if matrix is None else "agree" if matrix == d.tag else "differ"
    return Comparison(d.name, d.version, "pypi_default", status, matrix, d.tag, d.cuda_from or "")


def _pin_detail(d: Derived, pattern: re.Pattern[str]) -> str:
    found = next(((k, v) for k, v in (d.pins or d.and_cuda).items() if pattern.match(k)), None)
    return f"{found[0]}{found[1]}" if found else ""


def compare_tensorflow(d: Derived, matrices: Matrices) -> list[Comparison]:
    """tensorflow facts against ``tensorflow.toml``: Python and the ``[and-cuda]`` pins the row records."""
    release = matrices.tensorflow.release(d.version)
    if release is None:
        return [Comparison(d.name, d.version, "release", "missing", None, d.series, "no row for this series")]
    out = [_python(d, release.python)]
    recorded = {canonicalize_name(k): v for k, v in release.and_cuda.items()}
    for dist, spec in recorded.items():
        key = f"and_cuda.{dist}"
        meta = d.and_cuda.get(dist)
        if meta is None:
            out.append(Comparison(d.name, d.version, key, "differ", str(spec), None, "not in the [and-cuda] extra"))
            continue
        same = SpecifierSet(meta) == spec
        out.append(Comparison(d.name, d.version, key, "agree" if same else "differ", str(spec), meta))
    unrecorded = {k: v for k, v in d.and_cuda.items() if k not in recorded}
    if unrecorded and not recorded:
        out.append(Comparison(d.name, d.version, "and_cuda", "missing", None, _inline(unrecorded),
                              "the row records no [and-cuda] pins"))
    elif unrecorded:
        text = ", ".join(f"{k}{v}" for k, v in unrecorded.items())
        out.append(Comparison(d.name, d.version, "and_cuda (not recorded)", "unrecorded", None, text,
                              "the row records a subset of the extra"))
    return out


_PLUGIN_RE: Final = re.compile(r"^jax-cuda(\d+)-plugin$")


def compare_jax_plugin(d: Derived, matrices: Matrices) -> list[Comparison]:
    """A jax-cudaN-plugin's ``[with-cuda]`` cuDNN / NCCL ranges against the ``jax.toml`` row in force."""
    match = _PLUGIN_RE.match(d.name)
    major = int(match.group(1)) if match else 0
    release = matrices.jax.release(d.version)
    newest = matrices.jax.newest()
    if release is None or newest is None:
        return [Comparison(d.name, d.version, "release", "missing", None, d.version, "older than every jax.toml row")]
    plugin = release.plugin(major)
    if plugin is None:
        return [Comparison(d.name, d.version, f"cuda{major}", "missing", None, d.name,
                           f"jax.toml {release.version} has no CUDA {major} plugin row")]
    out = []
    detail = f"jax.toml row {release.version}" + (f" (the newest row; {d.version} is newer)"
                                                   if Version(d.version) > newest else "")
    for lib, recorded in (("cudnn", plugin.cudnn), ("nccl", plugin.nccl)):
        meta = d.and_cuda.get(f"nvidia-{lib}-cu{major}")
        if recorded is None:
            out.append(Comparison(d.name, d.version, f"cuda{major}.{lib}", "missing", None, meta, detail))
        elif meta is None:
            out.append(Comparison(d.name, d.version, f"cuda{major}.{lib}", "unknown", str(recorded), None,
                                  "not in the [with-cuda] extra"))
        else:
            same = SpecifierSet(meta) == recorded
            out.append(Comparison(d.name, d.version, f"cuda{major}.{lib}", "agree" if same else "differ",
                                  str(recorded), meta, detail))
    return out


def compare(derived: Iterable[Derived], matrices: Matrices) -> list[Comparison]:
    """Every comparison for the derived facts; distributions no matrix describes are skipped."""
    out: list[Comparison] = []
    for d in derived:
        if d.name == "torch":
            out += compare_torch(d, matrices)
        elif d.name == "tensorflow":
            out += compare_tensorflow(d, matrices)
        elif _PLUGIN_RE.match(d.name):
            out += compare_jax_plugin(d, matrices)
        else:
            out.append(Comparison(d.name, d.version, "-", "unknown", None, None, "no matrix compares this package"))
    return out


def load_matrices_dir(root: Path) -> Matrices:
    """envguard's loader on ``root``, with the torch and tensorflow files parsed now (InputError on failure)."""
    try:
        from envguard.knowledge import load_matrices
    except ImportError:
        sys.path.insert(0, str(ROOT))
        from envguard.knowledge import load_matrices
    from envguard.errors import MatrixError

    if not root.is_dir():
        raise InputError(f"{root}: not a folder of matrices")
    matrices = load_matrices(root)
    try:
        _ = matrices.torch, matrices.tensorflow, matrices.jax
    except MatrixError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{root}: {first}") from None
    return matrices


def check_files(paths: Iterable[Path], matrices_root: Path = DEFAULT_MATRICES) -> list[Comparison]:
    """Compare the reports' facts with the matrices in ``matrices_root`` (raises InputError on bad input)."""
    derived = derive_files(paths)
    return compare(derived, load_matrices_dir(matrices_root))


# ---- news: what the index has that the matrices lack -----------------------------------------

#: The distributions ``news`` asks the index about.
NEWS_PACKAGES: Final = (
    "torch", "torchvision", "torchaudio", "tensorflow", "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin",
    "paddlepaddle-gpu", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu13",
)
#: Pythons ``news --record`` lists releases for: the index hides a release from a Python it does not support.
NEWS_PYTHONS: Final = ("3.11", "3.12", "3.13", "3.14")
_AVAILABLE_RE: Final = re.compile(r"^Available versions:\s*(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class News:
    """One distribution: what the matrices cover, and the index's releases beyond that."""

    package: str
    #: What the matrices know, in words ("series 2.15 and older", "newest seen 9.28.1.4").
    known: str
    #: Releases on the index the matrices lack, newest first.
    lacking: tuple[str, ...]
    #: How many releases the recorded answer listed.
    listed: int


def parse_index_versions(text: str) -> tuple[Version, ...]:
    """Releases from recorded ``pip index versions`` answers (every "Available versions:" line), newest first.

    Local builds (``2.13.0+cpu`` from a find-links folder) are not the index's and are dropped.
    """
    found: set[Version] = set()
    for match in _AVAILABLE_RE.finditer(text):
        for item in match.group(1).split(","):
            try:
                v = Version(item.strip())
            except InvalidVersion:
                continue
            if v.local is None:
                found.add(v)
    return tuple(sorted(found, reverse=True))


def _series(v: Version) -> Version:
    return Version(f"{v.major}.{v.minor}")


def _by_series(versions: Sequence[Version], known: Iterable[str], what: str) -> tuple[str, tuple[Version, ...]]:
    """Versions whose X.Y series is newer than every known series (the known ones are the matrix rows)."""
    series = sorted({Version(k) for k in known if k}, reverse=True)
    if not series:
        return f"no {what} series recorded", tuple(versions)
    return (f"{what} series {series[0]} and older",
            tuple(v for v in versions if _series(v) > series[0]))


def _above(versions: Sequence[Version], top: Version | None, words: str) -> tuple[str, tuple[Version, ...]]:
    if top is None:
        return "nothing recorded", tuple(versions)
    return f"{words} {top}", tuple(v for v in versions if v > top)


def known_coverage(package: str, matrices: Matrices, versions: Sequence[Version]) -> tuple[str, tuple[Version, ...]]:
    """(what the matrices cover, the listed versions beyond it) for one NEWS_PACKAGES entry."""
    torch = matrices.torch.releases
    if package == "torch":
        return _by_series(versions, (r.version for r in torch), "torch.toml")
    if package in ("torchvision", "torchaudio"):
        return _by_series(versions, (getattr(r, package) or "" for r in torch), f"torch.toml {package}")
    if package == "tensorflow":
        return _by_series(versions, (r.version for r in matrices.tensorflow.releases), "tensorflow.toml")
    if package in ("jax", "jaxlib") or _PLUGIN_RE.match(package):
        return _above(versions, matrices.jax.newest(), "jax.toml rows up to")
    if package == "paddlepaddle-gpu":
        return _by_series(versions, (r.version for r in matrices.paddle.releases), "paddle.toml")
    table = matrices.cudnn if package.startswith("nvidia-cudnn") else matrices.nccl
    row = table.wheel(package)
    if row is None:
        return f"no [[wheel]] row in {table.meta.name}.toml", tuple(versions)
    top = row.last or row.newest_seen
    return _above(versions, top, "last" if row.last else "newest seen")


def news_from(versions_dir: Path, matrices: Matrices) -> list[News]:
    """News for every recorded ``versions/<package>.txt`` answer (a package with no answer is skipped)."""
    out = []
    for package in NEWS_PACKAGES:
        path = versions_dir / f"{package}.txt"
        if not path.exists():
            continue
        try:
            listed = parse_index_versions(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read: {exc}") from None
        known, lacking = known_coverage(package, matrices, listed)
        out.append(News(package, known, tuple(str(v) for v in lacking), len(listed)))
    return out


def index_versions_command(package: str, python: str) -> list[str]:
    """The index question for one package: every binary release a CPython ``python`` could install."""
    return [sys.executable, "-m", "pip", "index", "versions", package, "--python-version", python,
            "--only-binary=:all:", "--disable-pip-version-check"]


def record_versions(out_dir: Path, pythons: Sequence[str], timeout: float = PIP_TIMEOUT_S) -> None:
    """Ask the index for each NEWS_PACKAGES entry's releases and save the answers (``out_dir/<name>.txt``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for package in NEWS_PACKAGES:
        chunks = []
        for python in pythons:
            cmd = index_versions_command(package, python)
            try:
                result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)  # noqa: S603 # reason: fixed argv, no shell
            except subprocess.TimeoutExpired:
                raise InputError(f"{package}: pip index versions did not finish within {timeout:.0f} s") from None
            found = _AVAILABLE_RE.search(result.stdout)
            line = found.group(0) if found else "Available versions:"
            chunks.append(f"# pip index versions {package} --python-version {python} --only-binary=:all:\n{line}\n")
        (out_dir / f"{package}.txt").write_text(_redact("".join(chunks)), encoding="utf-8")


def pin_specs(versions_dir: Path, matrices: Matrices, series: int) -> list[str]:
    """``===`` specs of the newest patch of the newest ``series`` known torch / tensorflow series and jax plugin."""
    specs = []
    for package, known in (("torch", [r.version for r in matrices.torch.releases]),
                           ("tensorflow", [r.version for r in matrices.tensorflow.releases])):
        path = versions_dir / f"{package}.txt"
        listed = parse_index_versions(path.read_text(encoding="utf-8")) if path.exists() else ()
        for key in known[:series]:
            patch = next((v for v in listed if _series(v) == Version(key)), None)
            if patch is not None:
                specs.append(f"{package}==={patch}")
    for plugin in ("jax-cuda12-plugin", "jax-cuda13-plugin"):
        path = versions_dir / f"{plugin}.txt"
        listed = parse_index_versions(path.read_text(encoding="utf-8")) if path.exists() else ()
        newest = matrices.jax.newest()
        covered = [v for v in listed if newest is not None and v <= newest]
        specs += [f"{plugin}==={v}" for v in covered[:1]]
    return specs


def news_text(news: Sequence[News], pins: Sequence[Comparison]) -> Iterator[str]:
    """The news report: releases the matrices lack, then the recorded pins of known releases."""
    yield "releases on the index that the matrices lack:"
    for n in news:
        shown = ", ".join(n.lacking[:12]) + (f" (+{len(n.lacking) - 12} more)" if len(n.lacking) > 12 else "")
        yield f"  {n.package:<20} {'NEW ' + shown if n.lacking else 'none'}  [matrices: {n.known}]"
    if pins:
        yield "recorded pins of known releases:"
        yield from _check_text(pins)


# ---- fetching reports ----------------------------------------------------------------------


def pip_command(spec: str, report: Path, python: str, platform: str | None, target: Path | None = None) -> list[str]:
    """The metadata-only resolver run for one spec, on the installer's default index.

    For another Python or platform, pip (before 24) accepts those options only with ``--target``: ``target``
    names a scratch folder (nothing is written there: it is a dry run).
    """
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
           "--only-binary=:all:", "--report", str(report)]
    if python != f"{sys.version_info.major}.{sys.version_info.minor}":
        cmd += ["--python-version", python]
    if platform:
        cmd += ["--platform", platform]
    if "--python-version" in cmd or platform:
        cmd += ["--target", str(target if target is not None else report.parent / "target")]
    if "--python-version" in cmd:
        # NOTE: pip 23 checks Requires-Python against the interpreter it runs in, not --python-version; the
        # wheel tags still select for the target Python, and the report records Requires-Python.
        cmd.append("--ignore-requires-python")
    return [*cmd, spec]


def _redact(value: Any) -> Any:
    if isinstance(value, str):
        return _INDEX_HOST_RE.sub(_INDEX_HOST_REPLACEMENT, value)
    if isinstance(value, list):
        return [_redact(v) for v in value]
    if isinstance(value, dict):
        return {k: _redact(v) for k, v in value.items()}
    return value


def strip_report(report: Mapping[str, Any]) -> dict[str, Any]:
    """A copy fit to commit: download URLs reduced to file names, long descriptions dropped, index hosts removed."""
    out = copy.deepcopy(dict(report))
    for item in out.get("install") or ():
        info = item.get("download_info")
        if isinstance(info, dict) and isinstance(info.get("url"), str):
            info["url"] = file_name(info["url"])
        meta = item.get("metadata")
        if isinstance(meta, dict):
            meta.pop("description", None)
    redacted: dict[str, Any] = _redact(out)
    return redacted


def _check_choice(spec: str, report: Mapping[str, Any]) -> tuple[str, str]:
    req = Requirement(spec)
    items = report.get("install") or []
    if len(items) != 1:
        raise InputError(f"{spec}: pip reported {len(items)} distributions, expected 1")
    meta = items[0]["metadata"]
    name, version = canonicalize_name(meta["name"]), str(meta["version"])
    asked_local = any("+" in s.version for s in req.specifier)
    if Version(version).local is not None and not asked_local:
        raise InputError(
            f"{spec}: pip chose {name} {version}, a local build (a find-links folder or extra index in the pip "
            f"configuration), not the index's release; ask for the exact release: "
            f"{req.name}==={Version(version).public}"
        )
    return name, version


def fetch(spec: str, out_dir: Path, python: str, platform: str | None, timeout: float = PIP_TIMEOUT_S) -> Path:
    """Record the stripped pip report of ``spec`` as ``out_dir/<name>-<version>.json``."""
    try:
        Requirement(spec)
    except InvalidRequirement as exc:
        raise InputError(f"{spec}: not a requirement: {exc}") from None
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        cmd = pip_command(spec, report_path, python, platform, Path(tmp) / "target")
        try:
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)  # noqa: S603 # reason: fixed argv, no shell
        except subprocess.TimeoutExpired:
            raise InputError(f"{spec}: pip did not finish within {timeout:.0f} s") from None
        if result.returncode != 0 or not report_path.exists():
            tail = (result.stderr or result.stdout).strip().splitlines()
            raise InputError(f"{spec}: pip failed (exit {result.returncode}): {tail[-1] if tail else 'no output'}")
        report = load_report(report_path)
    name, version = _check_choice(spec, report)
    stripped = strip_report(report)
    stripped["x_refresh_matrices"] = {
        "spec": spec, "python": python, "platform": platform, "retrieved": dt.date.today().isoformat(),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}-{version}.json"
    target.write_text(json.dumps(stripped, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


# ---- command line --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    summary = __doc__.split("\n\n")[0] if __doc__ else None
    parser = argparse.ArgumentParser(prog="refresh_matrices.py", description=summary)
    sub = parser.add_subparsers(dest="command", required=True)
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    p_fetch = sub.add_parser("fetch", help="record pip's metadata-only report of each spec")
    p_fetch.add_argument("specs", nargs="+", metavar="SPEC", help="requirement, e.g. torch==2.5.1")
    p_fetch.add_argument("--python", default=here, help=f"target Python major.minor (default {here})")
    p_fetch.add_argument("--platform", default=None, help="wheel platform tag, e.g. manylinux_2_28_x86_64")
    p_fetch.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="folder for the reports")
    p_fetch.add_argument("--timeout", type=float, default=PIP_TIMEOUT_S, help="seconds per pip run")
    p_derive = sub.add_parser("derive", help="print the facts the reports' metadata states")
    p_derive.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    p_derive.add_argument("--format", choices=("toml", "json"), default="toml")
    p_check = sub.add_parser("check", help="compare the reports' facts with the matrices")
    p_check.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    p_check.add_argument("--matrices", type=Path, default=DEFAULT_MATRICES, metavar="DIR")
    p_check.add_argument("--format", choices=("text", "json"), default="text")
    p_news = sub.add_parser("news", help="releases the index has that the matrices lack, and the recorded pins")
    where = p_news.add_mutually_exclusive_group(required=True)
    where.add_argument("--answers", type=Path, metavar="DIR", help="read index answers recorded earlier (offline)")
    where.add_argument("--record", type=Path, metavar="DIR", help="ask the index, save its answers in DIR, then read")
    p_news.add_argument("--metadata", type=Path, metavar="DIR",
                        help="folder of recorded pip reports to compare (default: DIR/metadata)")
    p_news.add_argument("--python", action="append", default=None, metavar="X.Y",
                        help=f"with --record: Pythons to list releases for (default {', '.join(NEWS_PYTHONS)})")
    p_news.add_argument("--series", type=int, default=3, help="with --record: known series per package to re-read")
    p_news.add_argument("--matrices", type=Path, default=DEFAULT_MATRICES, metavar="DIR")
    p_news.add_argument("--format", choices=("text", "json"), default="text")
    p_news.add_argument("--timeout", type=float, default=PIP_TIMEOUT_S, help="seconds per pip run")
    return parser


def _derived_json(d: Derived) -> dict[str, Any]:
    data = asdict(d)
    data["series"] = d.series
    return data


def _check_text(comparisons: Sequence[Comparison]) -> Iterator[str]:
    current: tuple[str, str] | None = None
    for c in comparisons:
        if (c.package, c.version) != current:
            current = (c.package, c.version)
            yield f"{c.package} {c.version}:"
        yield c.line()
    counts = {s: sum(c.status == s for c in comparisons) for s in ("agree", *FAILING, "unknown", "unrecorded")}
    yield "summary: " + ", ".join(f"{n} {s}" for s, n in counts.items())
    if any(c.status in FAILING for c in comparisons):
        yield "update the rows marked DIFFER / MISSING, citing 'package metadata: NAME VERSION' (matrices/README.md)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "fetch":
            if not re.fullmatch(r"\d+\.\d+", args.python):
                raise InputError(f"--python {args.python!r}: expected major.minor, e.g. 3.11")
            for spec in args.specs:
                sys.stdout.write(f"{fetch(spec, args.output, args.python, args.platform, args.timeout)}\n")
            return 0
        if args.command == "derive":
            derived = derive_files(args.reports)
            if args.format == "json":
                sys.stdout.write(json.dumps([_derived_json(d) for d in derived], indent=2) + "\n")
            else:
                sys.stdout.write("\n".join(toml_fragment(d) for d in derived))
            return 0
        if args.command == "news":
            return _news(args)
        comparisons = check_files(args.reports, args.matrices)
    except InputError as exc:
        sys.stderr.write(f"refresh_matrices: error: {exc}\n")
        return 2
    if args.format == "json":
        sys.stdout.write(json.dumps([asdict(c) for c in comparisons], indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(_check_text(comparisons)) + "\n")
    return 1 if any(c.status in FAILING for c in comparisons) else 0


def _news(args: argparse.Namespace) -> int:
    root: Path = args.answers or args.record
    metadata: Path = args.metadata or root / "metadata"
    matrices = load_matrices_dir(args.matrices)
    from envguard.errors import MatrixError  # importable now: load_matrices_dir put the checkout on sys.path

    unread: list[Comparison] = []

    if args.record is not None:
        pythons = args.python or list(NEWS_PYTHONS)
        for python in pythons:
            if not re.fullmatch(r"\d+\.\d+", python):
                raise InputError(f"--python {python!r}: expected major.minor, e.g. 3.12")
        record_versions(root / "versions", pythons, args.timeout)
        for spec in pin_specs(root / "versions", matrices, args.series):
            try:
                fetch(spec, metadata, max(pythons, key=Version), None, args.timeout)
            except InputError as exc:  # one unreadable release (a pip constraint, a yanked file) is not fatal
                unread.append(Comparison(spec.split("===")[0], spec.split("===")[-1], "metadata", "unknown",
                                         None, None, f"not re-read: {exc}"))
    elif not (root / "versions").is_dir():
        raise InputError(f"{root}: no versions/ folder of recorded index answers")
    try:
        news = news_from(root / "versions", matrices)
        pins = compare(derive_files(sorted(metadata.glob("*.json"))), matrices) if metadata.is_dir() else []
        pins += unread
    except MatrixError as exc:
        raise InputError(f"{args.matrices}: {str(exc).strip().splitlines()[0]}") from None
    if args.format == "json":
        doc = {"lacking": [asdict(n) for n in news], "pins": [asdict(c) for c in pins]}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(news_text(news, pins)) + "\n")
    return 1 if any(n.lacking for n in news) or any(c.status in FAILING for c in pins) else 0


if __name__ == "__main__":
    sys.exit(main())
