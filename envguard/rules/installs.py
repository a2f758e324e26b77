"""python-unsupported from what pip said.

- A wheel pip rejected ("X.whl is not a supported wheel on this platform") whose platform tag fits the machine:
  its Python tag is the one that does not fit.
- A pinned release pip did not offer while it offered others ("(from versions: 2.16.0rc0, ...)"): the Python the
  report gives, or the one the offered releases imply through their supported-Python ranges, is outside the
  pinned release's range.
- No torch at all where pip's only index was a PyTorch cuXXX index ("pip install torch --index-url .../whl/cu124",
  then "No matching distribution found for torch"): every torch release with that variant (torch.toml) is outside
  the report's Python.

Both judge only the error lines a report shows (rules/__init__.py imports this module when there are some); the
free-threaded rule is in builds.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Protocol

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import ev, system_of
from envguard.snapshot import ONLY_TORCH_INDEX_KEY, PYTHON_32BIT_KEY, PythonInfo, Snapshot, stated_parts

_REJECTED = re.compile(r"([\w.+!-]{1,200}\.whl) is not a supported wheel on this platform")
_NOT_OFFERED = re.compile(r"Could not find a version that satisfies the requirement ([A-Za-z][\w.-]{0,60})"
                          r"(?:\[[^\]]{0,200}\])?={2,3}([^\s(]{1,60})(?: \(from (?!versions)[^()]{1,200}\))? "
                          r"\(from versions: ([^)]{1,3000}\)|(?:[\w.+!-]{1,60},\s{0,2}){1,400}[\w.+!-]{0,60}\s*$)")
_WHOLE_VERSION = re.compile(r"\d{1,4}(?:\.\d{1,4}){1,3}(?:(?:a|b|rc|\.post|\.dev)\d{1,8})?(?:\+[\w.]{1,40})?")
#: Python minors a release range is tested against (3.5 .. 3.15).
_MINORS = tuple(f"3.{m}" for m in range(5, 16))
_TABLE = {"torch": "torch", "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow", "tensorflow-cpu": "tensorflow",
          "tensorflow-intel": "tensorflow", "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle"}
# NOTE: jax.toml rows hold from one release until the next (not per series), so jax is not judged here.
#: torch's companions: a pinned torchvision/torchaudio release is judged by the torch release it pairs with.
_COMPANIONS = ("torchvision", "torchaudio")


class _Release(Protocol):
    @property
    def version(self) -> str: ...
    @property
    def python(self) -> SpecifierSet: ...


def _releases(table: str, matrices: Matrices) -> Sequence[_Release]:
    if table == "torch":
        return matrices.torch.releases
    if table == "tensorflow":
        return matrices.tensorflow.releases
    return matrices.paddle.releases


def _has_wheels(release: _Release, minor: str) -> bool:
    """Whether the release published wheels for Python ``minor``: its supported range, or the range its wheels were
    published for as experimental (torch 2.2 and 2.3 for 3.12: torch.toml python_experimental)."""
    experimental: SpecifierSet | None = getattr(release, "python_experimental", None)
    return minor in release.python or (experimental is not None and minor in experimental)


def _series(text: str) -> tuple[int, int] | None:
    try:
        v = Version(text)
    except InvalidVersion:
        return None
    return (v.major, v.minor)


def _minor(python: PythonInfo) -> str | None:
    found = re.match(r"(3\.\d{1,2})", python.version)
    return found.group(1) if found else None


class RejectedWheelRule:
    """pip rejected a wheel whose platform tag fits this machine: the interpreter is not the wheel's Python."""

    id = "rejected-wheel"
    summary = "wheel files pip rejected were built for this interpreter's Python"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield python-unsupported findings."""
        seen: set[str] = set()
        for line in snapshot.observed_errors:
            for found in _REJECTED.finditer(line):
                name = found.group(1).replace("\\", "/").rsplit("/", 1)[-1]
                parts = name[:-4].split("-")
                if len(parts) < 5 or name in seen:
                    continue
                seen.add(name)
                tag, platform = parts[-3], parts[-1]
                wheel_py = re.fullmatch(r"cp3(\d{1,2})", tag)
                fits = _platform_fits(platform, snapshot)
                if wheel_py is None or fits is None:
                    continue
                wanted = f"3.{int(wheel_py.group(1))}"
                python = snapshot.python
                if isinstance(python, PythonInfo) and _minor(python) == wanted:
                    continue  # the Python fits, so the platform does not: not this rule's finding
                have = (f"Python {python.version}" if isinstance(python, PythonInfo)
                        else "an interpreter that is not CPython " + wanted)
                yield Finding(
                    "python-unsupported", Severity.ERROR,
                    f"pip rejected {name}: its platform tag {platform} fits this machine ({fits}), so its Python "
                    f"tag {tag} (CPython {wanted} only) is the one that does not fit {have}.",
                    (ev("rejected wheel", name, f"{snapshot.origin}: pip"),
                     ev("platform", fits, _platform_source(snapshot)),
                     *((ev("python", python.version, python.source),) if isinstance(python, PythonInfo) else ())),
                    f"install it with the pip of a Python {wanted} interpreter (python{wanted} -m pip install "
                    f"{name}), or use a wheel built for this interpreter's Python (python -m pip debug --verbose "
                    "lists the tags it accepts)",
                    "https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/",
                    parts[0].lower().replace("_", "-"),
                )


def _platform_fits(platform: str, snapshot: Snapshot) -> str | None:
    """The machine (as "Linux aarch64") when the wheel platform tag fits what the report says; None when it does
    not fit or the report does not say."""
    system, arch = system_of(snapshot), snapshot.host.arch.lower()
    if not isinstance(snapshot.python, PythonInfo) and snapshot.host.system == "not reported":
        return None
    for tag in platform.lower().split("."):
        if tag == "any":
            return system
        if tag.startswith(("linux_", "manylinux", "musllinux")) and system == "linux":
            wheel_arch = "x86_64" if tag.endswith("x86_64") else tag.rsplit("_", 1)[-1]
            if wheel_arch == {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch):
                return f"Linux {arch}"
        if tag == "win_amd64" and system == "windows" and arch not in ("arm64", "aarch64"):
            return "Windows x86-64" if arch in ("x86_64", "amd64") else "Windows"
        if tag.startswith("macosx") and system == "darwin" and (tag.endswith(("universal2", "intel"))
                                                               or arch in tag or arch == "not reported"):
            return "macOS"
    return None


def _platform_source(snapshot: Snapshot) -> str:
    if isinstance(snapshot.python, PythonInfo) and snapshot.python.source:
        return snapshot.host.source if snapshot.host.source != "not reported" else snapshot.python.source
    return snapshot.host.source


class OfferedVersionsRule:
    """pip offered other releases but not the pinned one: is the pinned release outside this Python?"""

    id = "offered-versions"
    summary = "a pinned framework release supports the interpreter pip offered releases for"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield python-unsupported findings."""
        for line in snapshot.observed_errors:
            found = _NOT_OFFERED.search(line)
            if not found:
                continue
            dist = found.group(1).lower().replace("_", "-")
            table = _TABLE.get(dist) or ("torch" if dist in _COMPANIONS else None)
            want = found.group(2).split("+", 1)[0]
            if table is None:
                continue
            installed = next((b for b in snapshot.frameworks if b.name == table), None)
            if dist not in _COMPANIONS and installed is not None and _series(installed.version) == _series(want) \
                    and isinstance(snapshot.python, PythonInfo):
                continue  # the pinned release is the environment's framework: PythonRule judges it (Python known)
            releases = _releases(table, matrices)
            pinned: _Release | None
            if dist in _COMPANIONS:
                # torchvision/torchaudio X are built for one torch release (torch.toml): its Python range is theirs
                pinned = next((r for r in matrices.torch.releases if _series(getattr(r, dist) or "") == _series(want)),
                              None)
            else:
                pinned = next((r for r in releases if _series(r.version) == _series(want)), None)
            if pinned is None:
                continue
            # NOTE: a list cut where the paste ended ("..., 2.3.1+cu118, 2.") loses its last, partial item
            offered = [v.strip() for v in found.group(3).rstrip(")").split(",") if _WHOLE_VERSION.fullmatch(v.strip())]
            yield from _judge(snapshot, dist, want, pinned, offered, releases, table)


def _judge(snapshot: Snapshot, dist: str, want: str, pinned: _Release, offered: list[str],
           releases: Sequence[_Release], table: str) -> Iterator[Finding]:
    python = snapshot.python
    source = f"{table}.toml {pinned.version}"
    if isinstance(python, PythonInfo):
        minor = _minor(python)
        if minor is None or minor in pinned.python:
            return
        yield Finding(
            "python-unsupported", Severity.ERROR,
            f"pip has no {dist} {want} for Python {python.version}: {dist} {pinned.version} supports Python "
            f"{pinned.python}, so pip offered only other releases.",
            (ev("python", python.version, python.source), ev("pinned", f"{dist}=={want}", f"{snapshot.origin}: pip"),
             ev("supported", str(pinned.python), source)),
            f"use a Python matching {pinned.python} for {dist} {want}, or pin a release pip offers "
            f"({offered[-1] if offered else 'a newer one'})",
            None, table,
        )
        return
    implied = _implied_pythons(offered, releases)
    if not implied or any(_has_wheels(pinned, p) for p in implied):
        return
    shown = ", ".join(implied)
    yield Finding(
        "python-unsupported", Severity.ERROR,
        f"pip offered {dist} {offered[0]} to {offered[-1]} but not {want}: by the Pythons they publish wheels for "
        f"({table}.toml) those releases fit only Python {shown} here, which {dist} {pinned.version} does not "
        f"support ({pinned.python}).",
        (ev("offered", f"{offered[0]} .. {offered[-1]}", f"{snapshot.origin}: pip (from versions: ...)"),
         ev("implied python", shown, f"{table}.toml (the ranges of the offered releases and of the release "
                                     "before the oldest one)"),
         ev("supported", str(pinned.python), source)),
        f"use a Python matching {pinned.python} for {dist} {want}, or pin a release pip offers ({offered[-1]})",
        None, table,
    )


def _implied_pythons(offered: list[str], releases: Sequence[_Release]) -> list[str]:
    """The Python minors every offered release supports and the release just before the oldest offered one (which
    pip did not offer) does not; gaps between offered releases exclude too. Empty when the list says nothing."""
    have = {s for s in (_series(v) for v in offered) if s is not None}
    if not have:
        return []
    ordered = sorted((s, r) for r in releases if (s := _series(r.version)) is not None)
    known = [(s, r) for s, r in ordered if s in have]
    if len(known) != len(have):
        return []  # an offered release the matrix does not know: its range is unknown
    low, high = min(have), max(have)
    below = [r for s, r in ordered if s < low][-1:]
    gaps = [r for s, r in ordered if low < s < high and s not in have]
    # NOTE: by the Pythons each release has wheels for (pip offers a release for its experimental Pythons too: torch
    # 2.2.0 is the first with cp312 wheels, pytorch/pytorch#110436)
    return [p for p in _MINORS if all(_has_wheels(r, p) for _s, r in known)
            and not any(_has_wheels(r, p) for r in (*below, *gaps))]




class OnlyIndexPythonRule:
    """pip looked only at PyTorch cuXXX indexes and found no torch: do their releases support this Python?"""

    id = "only-index-python"
    summary = "the torch releases of the PyTorch index pip was limited to support the interpreter"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield a python-unsupported finding when no release of any of those indexes supports the Python."""
        said = snapshot.environment.get(ONLY_TORCH_INDEX_KEY)
        python = snapshot.python
        if said is None or not isinstance(python, PythonInfo):
            return
        minor = _minor(python)
        if minor is None:
            return
        tags, where, failed = stated_parts(said, 3)
        held: list[str] = []
        for tag in tags.split():
            releases = [r for r in matrices.torch.releases if r.variant(tag) is not None]
            if not releases or any(minor in r.python for r in releases):
                return  # an index the table does not know, or one with a release for this Python
            newest = max(releases, key=lambda r: Version(r.version))
            held.append(f"{tag}: torch {min(releases, key=lambda r: Version(r.version)).version}-{newest.version}, "
                        f"the newest supporting Python {newest.python}")
        yield Finding(
            "python-unsupported", Severity.ERROR,
            f"pip looked only at the PyTorch index{'es' if len(held) > 1 else ''} {', '.join(tags.split())} and "
            f"found no torch for Python {python.version}: no torch release built for "
            f"{'them' if len(held) > 1 else 'it'} supports Python {minor} ({'; '.join(held)}).",
            (ev("python", python.version, python.source), ev("only index", tags, where),
             ev("pip", failed, snapshot.origin), ev("releases per index", "; ".join(held), "torch.toml")),
            "use a newer CUDA variant's index whose releases support this Python (envguard matrix torch), or a "
            "Python those releases support",
            None, "torch",
        )


#: PyTorch's Windows wheels are win_amd64 only: "Please use a 64-bit Python installation instead" (maintainer on
#: pytorch#41005); "Either you are using a 32-bit of Python or ..." (pytorch#39939).
_WIN64_ONLY = "https://github.com/pytorch/pytorch/issues/41005 ; https://github.com/pytorch/pytorch/issues/39939"


class Python32BitRule:
    """A 32-bit Python has no torch wheel at all."""

    id = "python-32bit"
    summary = "torch's wheels are 64-bit: a 32-bit interpreter cannot install any"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield a python-unsupported finding for the 32-bit interpreter the report shows."""
        said = snapshot.environment.get(PYTHON_32BIT_KEY)
        if said is None:
            return
        what, where = stated_parts(said)
        python = snapshot.python
        label = f"Python {python.version}" if isinstance(python, PythonInfo) else "the Python"
        yield Finding(
            "python-unsupported", Severity.ERROR,
            f"{label} is a 32-bit interpreter ({what.strip()}): PyTorch publishes 64-bit wheels only, so pip finds no "
            f"torch for it (only the old 0.1.2 placeholders, or nothing).",
            (ev("32-bit", what.strip(), where),),
            "install the 64-bit (x86-64) Python of a version the torch release supports, and recreate the "
            "environment with it",
            _WIN64_ONLY, "torch",
        )
