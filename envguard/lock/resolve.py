"""Real resolvers behind `envguard lock`: uv (`uv pip compile --generate-hashes`) or pip's own
(`pip install --dry-run --report`). envguard never resolves dependencies itself."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from packaging.utils import canonicalize_name

from envguard._subprocess import CommandResult, CommandRunner
from envguard.errors import LockError
from envguard.lock.spec import LockedPackage, check_name, check_version

logger = logging.getLogger(__name__)

#: Platform tags per lock platform: uv's --python-platform, then pip's --platform list (newest first).
#: ``pip index versions`` prints "torch (2.15.0)" first: the newest version the sources offer.
_PIP_INDEX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]* \((?P<version>[^)\s]{1,64})\)\s*$", re.MULTILINE)

PLATFORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "linux-x86_64": ("x86_64-manylinux_2_28", (*(f"manylinux_2_{m}_x86_64" for m in range(28, 16, -1)),
                                               "manylinux2014_x86_64", "linux_x86_64")),
    "linux-aarch64": ("aarch64-manylinux_2_28", (*(f"manylinux_2_{m}_aarch64" for m in range(28, 16, -1)),
                                                 "manylinux2014_aarch64", "linux_aarch64")),
}


@dataclass(frozen=True, slots=True)
class ResolveRequest:
    """What to resolve and where from."""

    requirements: tuple[str, ...]
    #: "3.11" (the lock's Python).
    python: str
    platform: str
    extra_index_urls: tuple[str, ...] = ()
    index_url: str | None = None
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    #: An interpreter of the lock's Python and platform, if there is one (pip then resolves natively,
    #: sdists included); otherwise pip resolves for the target with --python-version/--platform (wheels only).
    interpreter: str | None = None
    timeout_s: float = 600.0
    #: Constraint lines (``-c``): they limit versions without making a package part of the request.
    constraints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Resolution:
    """Pins with hashes, and the resolver that chose them."""

    packages: tuple[LockedPackage, ...]
    resolver: str
    #: (key, URL or path) of the file the resolver chose for a pin, where it says (pip's report does).
    urls: tuple[tuple[str, str], ...] = ()


class Resolver(Protocol):
    """A dependency resolver that returns exact pins with sha256 hashes."""

    @property
    def name(self) -> str:
        """"uv" or "pip"."""
        ...

    def resolve(self, request: ResolveRequest, run: CommandRunner) -> Resolution:
        """Resolve or raise LockError with the resolver's own explanation."""
        ...

    def file_urls(self, request: ResolveRequest, pins: tuple[LockedPackage, ...], run: CommandRunner,
                  resolution: Resolution) -> dict[str, str]:
        """key -> URL (or path) of the file each pin installs on the lock's platform, where it can be found."""
        ...

    def newest(self, request: ResolveRequest, name: str, run: CommandRunner) -> str | None:
        """The newest version of ``name`` the sources offer for the lock's Python and platform; None: unknown."""
        ...


def _requested(request: ResolveRequest) -> set[str]:
    out: set[str] = set()
    for line in request.requirements:
        m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if m:
            out.add(canonicalize_name(m.group(1)))
    return out


def _explain(tool: str, result: CommandResult) -> str:
    """The resolver's own reason, trimmed to the lines that say it."""
    if result.start_error is not None or result.timed_out:
        return result.describe_failure()
    lines = [ln.rstrip() for ln in (result.stderr or result.stdout).splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.lstrip().startswith(("WARNING:", "warning:", "Looking in", "Collecting",
                                                                 "Using cached", "Downloading"))]
    text = "\n  ".join((keep or lines or ["no output"])[-12:])
    return f"{tool} could not resolve the request:\n  {text}"


def _source_args(request: ResolveRequest, tmp: str | None = None) -> list[str]:
    """Where to look for packages (and the constraints file, written into ``tmp``); uv and pip spell these
    options the same way."""
    argv = ["--index-url", request.index_url] if request.index_url else []
    if request.constraints and tmp is not None:
        path = Path(tmp) / "constraints.txt"
        path.write_text("\n".join(request.constraints) + "\n", encoding="utf-8")
        argv += ["--constraint", str(path)]
    for url in request.extra_index_urls:
        argv += ["--extra-index-url", url]
    for link in request.find_links:
        argv += ["--find-links", link]
    if request.no_index:
        argv.append("--no-index")
    return argv


@dataclass(frozen=True, slots=True)
class UvResolver:
    """`uv pip compile --generate-hashes` for the lock's Python and platform."""

    exe: str
    version: str = ""
    name: str = "uv"

    def resolve(self, request: ResolveRequest, run: CommandRunner) -> Resolution:
        """Resolve with uv; hashes for every file of each pinned version."""
        uv_platform = PLATFORMS[request.platform][0]
        argv = [self.exe, "pip", "compile", "-", "--generate-hashes", "--no-header", "--no-annotate", "--quiet",
                "--python-version", request.python, "--python-platform", uv_platform]
        version = self.version
        with tempfile.TemporaryDirectory(prefix="envguard-lock-") as tmp:
            argv += _source_args(request, tmp)
            if version:
                result = run(tuple(argv), timeout=request.timeout_s, stdin="\n".join(request.requirements) + "\n")
            else:
                # NOTE: `uv --version` runs while uv resolves: the lock names the resolver at no extra wall time.
                with ThreadPoolExecutor(max_workers=1, thread_name_prefix="envguard-uv") as pool:
                    asked = pool.submit(run, (self.exe, "--version"), timeout=30.0)
                    result = run(tuple(argv), timeout=request.timeout_s,
                                 stdin="\n".join(request.requirements) + "\n")
                    answer = asked.result()
                m = re.match(r"uv (\S+)", answer.stdout.strip()) if answer.ok else None
                version = m.group(1) if m else ""
        if not result.ok:
            raise LockError(_explain("uv", result))
        return Resolution(parse_hashed_requirements(result.stdout, _requested(request)),
                          f"uv {version}".strip())

    def file_urls(self, request: ResolveRequest, pins: tuple[LockedPackage, ...], run: CommandRunner,
                  resolution: Resolution) -> dict[str, str]:  # noqa: ARG002 - the Protocol's signature
        """Where uv finds the file of each exact pin for the platform (``--format pylock.toml``, no dependencies)."""
        if not pins:
            return {}
        argv = [self.exe, "pip", "compile", "-", "--no-deps", "--no-header", "--quiet", "--format", "pylock.toml",
                "--python-version", request.python, "--python-platform", PLATFORMS[request.platform][0],
                *_source_args(request)]
        result = run(tuple(argv), timeout=request.timeout_s,
                     stdin="".join(f"{p.name}=={p.version}\n" for p in pins))
        if not result.ok:
            logger.info("uv could not say where the files are: %s", _explain("uv", result))
            return {}
        return parse_pylock_urls(result.stdout)

    def newest(self, request: ResolveRequest, name: str, run: CommandRunner) -> str | None:
        """``uv pip compile NAME --no-deps``: what an unconstrained request would get."""
        argv = [self.exe, "pip", "compile", "-", "--no-deps", "--no-header", "--no-annotate", "--quiet",
                "--python-version", request.python, "--python-platform", PLATFORMS[request.platform][0],
                *_source_args(request)]
        result = run(tuple(argv), timeout=min(request.timeout_s, 120.0), stdin=name + "\n")
        m = _PIN.search(result.stdout) if result.ok else None
        return m.group("version") if m else None


@dataclass(frozen=True, slots=True)
class PipResolver:
    """pip's resolver: `pip install --dry-run --ignore-installed --report`, hashes from the report."""

    python: str
    version: str = ""
    name: str = "pip"

    def resolve(self, request: ResolveRequest, run: CommandRunner) -> Resolution:
        """Resolve with pip; the hash of the file pip chose for each pin."""
        with tempfile.TemporaryDirectory(prefix="envguard-lock-") as tmp:
            req_file = Path(tmp) / "requirements.in"
            req_file.write_text("\n".join(request.requirements) + "\n", encoding="utf-8")
            report = Path(tmp) / "report.json"
            exe = request.interpreter or self.python
            argv = [exe, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--no-input",
                    "--disable-pip-version-check", "--report", str(report), "-r", str(req_file)]
            if request.interpreter is None:
                # NOTE: older pip accepts platform options only with --target; --dry-run writes nothing there.
                argv += ["--python-version", request.python, "--only-binary=:all:", "--implementation", "cp",
                         "--target", str(Path(tmp) / "target")]
                for tag in PLATFORMS[request.platform][1]:
                    argv += ["--platform", tag]
            argv += _source_args(request, tmp)
            result = run(tuple(argv), timeout=request.timeout_s, cwd=tmp)
            if not result.ok:
                raise LockError(_explain("pip", result))
            try:
                doc = json.loads(report.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise LockError(f"pip wrote no readable --report: {exc}") from None
        return Resolution(parse_pip_report(doc, _requested(request)), f"pip {self.version}".strip(),
                          report_urls(doc))

    def file_urls(self, request: ResolveRequest, pins: tuple[LockedPackage, ...], run: CommandRunner,  # noqa: ARG002
                  resolution: Resolution) -> dict[str, str]:
        """pip's report names the file it chose for every pin."""
        keys = {p.key for p in pins}
        return {k: u for k, u in resolution.urls if k in keys}

    def newest(self, request: ResolveRequest, name: str, run: CommandRunner) -> str | None:
        """``pip index versions NAME`` for the lock's Python and platform (no resolution: one index query);
        None when pip cannot say (an old pip without the command, an unreachable index)."""
        argv = [self.python, "-m", "pip", "index", "versions", name, "--no-input",
                "--disable-pip-version-check", "--python-version", request.python, "--only-binary=:all:",
                "--implementation", "cp"]
        for tag in PLATFORMS[request.platform][1]:
            argv += ["--platform", tag]
        argv += _source_args(request)
        result = run(tuple(argv), timeout=min(request.timeout_s, 120.0))
        m = _PIP_INDEX.search(result.stdout) if result.ok else None
        return m.group("version") if m else None


def report_urls(doc: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(key, download URL) of each entry of pip's --report (pure)."""
    out = []
    for item in doc.get("install") or ():
        name = str((item.get("metadata") or {}).get("name", ""))
        url = (item.get("download_info") or {}).get("url")
        if name and isinstance(url, str):
            out.append((canonicalize_name(name), url))
    return tuple(sorted(out))


def parse_pylock_urls(text: str) -> dict[str, str]:
    """key -> URL or path of the first wheel of each package in uv's pylock.toml output (pure)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
    out: dict[str, str] = {}
    for pkg in doc.get("packages") or ():
        if not isinstance(pkg, dict) or not isinstance(pkg.get("name"), str):
            continue
        for wheel in pkg.get("wheels") or ():
            where = wheel.get("url") or wheel.get("path") if isinstance(wheel, dict) else None
            if isinstance(where, str):
                out[canonicalize_name(pkg["name"])] = where
                break
    return out


_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(?P<version>[^\s;\\]+)", re.M)


def parse_hashed_requirements(text: str, requested: set[str]) -> tuple[LockedPackage, ...]:
    """``name==version \\ --hash=sha256:…`` blocks (uv / pip-compile output) → pins (pure).

    :raises LockError: for a line that is not an exact pin (a URL or editable requirement).
    """
    joined = re.sub(r"\\\s*\n", " ", text)
    out: dict[str, LockedPackage] = {}
    for raw in joined.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "--index-url", "--extra-index-url", "--find-links")):
            continue
        m = _PIN.match(line)
        if not m:
            raise LockError(f"the resolver returned a requirement envguard cannot lock: {line[:120]!r} "
                            "(direct URLs and editable installs have no index hashes)")
        name = check_name(m.group("name"))
        version = check_version(m.group("version"), name)
        hashes = tuple(sorted(set(re.findall(r"--hash=(sha256:[0-9a-f]{64})", line))))
        if not hashes:
            raise LockError(f"the resolver returned no hash for {name}=={version}")
        key = canonicalize_name(name)
        out[key] = LockedPackage(name, version, hashes, key in requested)
    return tuple(out[k] for k in sorted(out))


def parse_pip_report(doc: Mapping[str, Any], requested: set[str]) -> tuple[LockedPackage, ...]:
    """pip's installation report (format version 1) → pins (pure).

    :raises LockError: for an entry without a sha256 (a local folder or VCS checkout).
    """
    if not isinstance(doc, Mapping) or str(doc.get("version")) != "1" or not isinstance(doc.get("install"), list):
        raise LockError("pip's --report is not an installation report of version 1")
    out: dict[str, LockedPackage] = {}
    for item in doc["install"]:
        meta = item.get("metadata") or {}
        name = check_name(str(meta.get("name", "")))
        version = check_version(str(meta.get("version", "")), name)
        info = item.get("download_info") or {}
        archive = info.get("archive_info") or {}
        digest = (archive.get("hashes") or {}).get("sha256")
        if digest is None and str(archive.get("hash", "")).startswith("sha256="):
            digest = str(archive["hash"])[len("sha256="):]
        if not digest or not re.fullmatch(r"[0-9a-f]{64}", str(digest)):
            where = info.get("url", "?")
            raise LockError(f"{name}=={version} comes from {where}, which has no sha256 to lock "
                            "(a local folder, VCS checkout or editable install)")
        key = canonicalize_name(name)
        out[key] = LockedPackage(name, version, (f"sha256:{digest}",), key in requested)
    return tuple(out[k] for k in sorted(out))


def find_uv(env: Mapping[str, str]) -> str | None:
    """uv on PATH, or the one installed beside this interpreter (the `uv` distribution)."""
    found = shutil.which("uv", path=env.get("PATH"))
    if found:
        return found
    beside = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
    if beside.exists():
        return str(beside)
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found,unused-ignore]

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return None


def choose_resolver(which: str, env: Mapping[str, str], run: CommandRunner) -> Resolver:
    """``auto``: uv when present, otherwise pip; ``uv`` / ``pip`` force one.

    :raises LockError: when the requested resolver is not available.
    """
    if which in ("auto", "uv"):
        exe = find_uv(env)
        if exe is not None:
            # NOTE: its version is asked while it resolves (UvResolver.resolve), not here.
            return UvResolver(exe)
        if which == "uv":
            raise LockError("--resolver uv: uv is not installed (pip install uv, or install envguard[uv])")
    ver = run((sys.executable, "-m", "pip", "--version"), timeout=60.0)
    if not ver.ok:
        raise LockError(f"no resolver: uv is not installed and pip does not run ({ver.describe_failure()})")
    return PipResolver(sys.executable, ver.stdout.split()[1] if len(ver.stdout.split()) > 1 else "")
