"""torch's companions (torchvision, torchaudio) in a report: the shapes their versions are pasted in, and what a
plain package-index companion wheel is.

- ``version_queries``: ``print(torchvision.__version__)`` (or ``>>> torch.__version__``, ``python -c "…"``) and
  the bare version lines its output shows below, paired in order.
- ``site_paths``: the operating system a pasted interpreter path shows (``…/lib/python3.10/site-packages`` is
  POSIX, ``dist-packages`` Debian/Ubuntu, ``C:\\…\\Lib\\site-packages`` Windows, ``/Users/`` macOS).
- ``companion_prose``: "torchaudio 2.11.x being installed" (prose tier, never from a hedged sentence).
- ``carried``: a later environment made by ``pip install torch==X`` alone keeps the companions of the earlier one.
- ``pypi_build``: the CUDA/CPU build of a companion version without a ``+`` suffix read from pip.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from packaging.version import InvalidVersion, Version

from envguard.knowledge import Matrices
from envguard.reports.extract import _CONDA_ROW, _HEDGE, _HEDGE_WINDOW, _named
from envguard.reports.mentions import MESSAGE, PROSE, TOOL, Mention
from envguard.sentences import sentences, whole_words
from envguard.snapshot import FrameworkBuild, normalize_name

COMPANIONS = ("torchvision", "torchaudio")
#: Module names a version query names → the distribution they belong to.
_MODULES = {"torch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio", "tensorflow": "tensorflow",
            "tf": "tensorflow", "jax": "jax", "jaxlib": "jaxlib", "paddle": "paddlepaddle"}
#: ``print(torch.__version__)`` or the interactive ``>>> torch.__version__``: the line prints exactly that version.
_EXACT = re.compile(r"(?:\bprint\s{0,2}\(\s{0,2}|^\s{0,8}(?:>>>\s{0,4}|In \[\d{1,4}\]:\s{0,4}))"
                    r"(torch|torchvision|torchaudio|tensorflow|tf|jax|jaxlib|paddle)\.__version__\s{0,2}(?:\)|$|,\s{0,2}"
                    r"torch\.cuda\.is_available\(\)\s{0,2}\))")
#: The answer of the common ``print(torch.__version__, torch.cuda.is_available())``: "2.6.0 True"
#: (pytorch/vision#9174).
_VERSION_AND_FLAG = re.compile(r"^\s{0,8}['\"]?(\d{1,3}\.\d{1,3}(?:\.\d{1,4})?(?:[a-z]{1,4}\d{0,8})?"
                               r"(?:\+[A-Za-z0-9_.]{1,40})?)['\"]?,?\s{1,4}(?:True|False)\b")
#: A line that prints something: a print statement, an interactive expression, or ``python -c "…"``.
_QUERY_LINE = re.compile(r"^\s{0,8}(?:>>>\s{0,4}\w|In \[\d{1,4}\]:\s{0,4}\w|print\s{0,2}\()"
                         r"|\bpython[\d.]{0,4}(?:\.exe)?\s{1,4}-c\s")
#: A bare version line (the output of such a query), optionally quoted as the interactive interpreter shows it.
_OUTPUT = re.compile(r"^\s{0,8}(?:Out\[\d{1,4}\]:\s{0,4})?['\"]?(\d{1,3}\.\d{1,3}(?:\.\d{1,4})?(?:[a-z]{1,4}\d{0,8})?"
                     r"(?:\+[A-Za-z0-9_.]{1,40})?)['\"]?\s*$")
#: Another line of output that shows a version ("torch 2.1.0", "2.1.0 12.1"): it answers a query, not a named one.
_VERSIONISH = re.compile(r"\d{1,3}\.\d{1,3}")
#: An interactive line that prints nothing (an import or an assignment).
_REPL_STATEMENT = re.compile(r"^\s{0,8}(?:>>>|In \[\d{1,4}\]:)\s{0,4}(?:import\s|from\s|[\w.]{1,60}\s{0,2}=[^=])")
_CODEISH = re.compile(r"[(=#]|^\s{0,8}(?:import|from)\s")
#: Lines between a query and its output (the fence, "Output:", the next cell) before the pairing is dropped.
_QUERY_REACH = 8


_OUTPUT_LABEL = re.compile(r"^\s{0,4}(?:the\s{1,2})?(?:output|outputs|result|results)\s{0,2}:?\s*$", re.IGNORECASE)


def version_queries(lines: list[str], offset: int) -> Iterator[Mention]:
    """Versions printed by ``print(X.__version__)`` queries: below a run of print statements, each output line
    answers the next statement in order, and a bare version line answering ``print(X.__version__)`` is X's
    version (tool output). A print of anything else holds its place, so its output is not taken for X's."""
    pending: list[tuple[str, str]] = []
    unanswered: list[tuple[str, str]] = []  # the last run whose outputs did not follow it
    last_query = -1
    answered = False
    for i, line in enumerate(lines):
        text = line.strip()
        if not text:
            continue
        if unanswered and not any(name for name, _q in pending) and _OUTPUT_LABEL.match(line):
            # "output:" below the whole script: its lines answer the script's print run in order
            # (pytorch/pytorch#79270: three version prints at the top, the outputs after the code).
            pending, unanswered, last_query = unanswered, [], i
            continue
        if _QUERY_LINE.search(line):
            if answered:
                pending, answered = [], False
            names = _EXACT.findall(line)
            if names:
                pending.extend((name, text[:80]) for name in names)
            elif not _REPL_STATEMENT.match(line):
                pending.append(("", text[:80]))  # prints something else: its output is not a named version
            last_query = i
            continue
        if pending and i - last_query <= _QUERY_REACH + len(pending):
            output = _OUTPUT.match(line) or _VERSION_AND_FLAG.match(line)
            if output or (_VERSIONISH.search(line) and not _CODEISH.search(line)):
                name, query = pending.pop(0)
                answered = True
                if output and name:
                    yield Mention("package", output.group(1), offset + i + 1, TOOL, f"output of {query}",
                                  _MODULES[name])
                continue
        if answered or (pending and i - last_query > _QUERY_REACH):
            if pending and not answered and any(name for name, _q in pending):
                unanswered = pending
            pending, answered = [], False


#: A pasted interpreter path and the system it shows.
_WIN_PATH = re.compile(r"\b[A-Za-z]:\\(?:[^\\\s]{1,80}\\){0,12}?(?:Lib|lib)\\site-packages\b")
_DEBIAN_PATH = re.compile(r"/(?:usr/(?:local/)?)?lib/python3(?:\.\d{1,2})?/dist-packages\b")
_POSIX_PATH = re.compile(r"(?:^|[\s\"'(=:])(~|/[\w.~+-]{1,80})(?:/[\w.~+-]{1,80}){0,12}?/lib/python3\.\d{1,2}t?/"
                         r"site-packages\b")


def site_paths(lines: list[str], offset: int) -> Iterator[Mention]:
    """The operating system the report's interpreter paths show, as one "path_os" mention: win32, linux or
    darwin (the first path that tells), else posix (Linux or macOS)."""
    posix: Mention | None = None
    for i, line in enumerate(lines):
        if "-packages" not in line:
            continue
        value = None
        if _WIN_PATH.search(line):
            value = "win32"
        elif _DEBIAN_PATH.search(line):
            value = "linux"  # dist-packages is Debian's (and Ubuntu's) layout
        else:
            found = _POSIX_PATH.search(line)
            if found:
                root = found.group(1)
                value = "darwin" if root in ("/Users", "/opt/homebrew") or "/Library/" in line else (
                    "linux" if root in ("/home", "/root", "/usr", "/opt", "/proj", "/scratch", "/data") else "posix")
        if value == "posix" and posix is None:
            posix = Mention("path_os", value, offset + i + 1, MESSAGE, "interpreter path")
        elif value and value != "posix":
            yield Mention("path_os", value, offset + i + 1, MESSAGE, "interpreter path")
            return
    if posix is not None:
        yield posix


_P_COMPANION = _named(r"torchvision|torchaudio", r"\d{1,2}\.\d{1,2}(?:\.\d{1,2})?(?:\+\w{1,20})?")


def companion_prose(lines: list[str], offset: int) -> Iterator[Mention]:
    """torchvision/torchaudio versions named in sentences (the weakest tier, never from a sentence that hedges)."""
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 2000 or "site-packages" in line or "==" in line:
            continue
        if "torchvision" not in line.lower() and "torchaudio" not in line.lower():
            continue
        for sentence in sentences(line):
            for found in _P_COMPANION.finditer(sentence):
                window = whole_words(sentence, found.start() - _HEDGE_WINDOW, found.end() + _HEDGE_WINDOW)
                if _HEDGE.search(window) is None:
                    name = "torchvision" if "vision" in found.group(0).lower() else "torchaudio"
                    yield Mention("package", found.group(1), offset + i + 1, PROSE, "text", name)


#: A conda build string's variant: pytorch channel "py310_cu118" / "py38_cpu", defaults "cuda118py39h196c800_0",
#: conda-forge "cuda120_py311h…" / "cpu_py310h…".
_CONDA_CU = re.compile(r"(?:^|_)cu(\d{2,3})(?:_|$)|^cuda(\d{2,3})_?py")
_CONDA_CPU = re.compile(r"(?:^|_)cpu(?:_|$)")


def conda_companion_builds(lines: list[str], offset: int) -> Iterator[Mention]:
    """The CUDA/CPU variant a conda list row gives torchvision or torchaudio ("torchvision_build": "cpu" or the
    CUDA X.Y), from its build string."""
    for i, line in enumerate(lines):
        if "torch" not in line or "==" in line:
            continue
        row = _CONDA_ROW.match(line.strip())
        if row is None or row.group(1).lower() not in COMPANIONS:
            continue
        build = row.group(3).lower()
        cuda = _CONDA_CU.search(build)
        value = None
        if cuda:
            digits = cuda.group(1) or cuda.group(2)
            value = f"{digits[:-1]}.{digits[-1]}"
        elif _CONDA_CPU.search(build):
            value = "cpu"
        if value:
            yield Mention(f"{row.group(1).lower()}_build", value, offset + i + 1, TOOL, f"conda build string {build}")


def conda_build(build: FrameworkBuild, variant: Mention | None) -> FrameworkBuild:
    """``build`` with the variant its conda build string names (when the version itself carries none)."""
    if variant is None or build.accelerator is not None:
        return build
    if variant.value == "cpu":
        return replace(build, accelerator="cpu", source=f"{build.source}; {variant.source}")
    return replace(build, accelerator="cuda", cuda=variant.value, source=f"{build.source}; {variant.source}")


# ---- environments of one report ---------------------------------------------------------------------------

_INSTALL = re.compile(r"\b(?:pip3?|uv\s{1,4}pip|python3?\s{1,4}-m\s{1,4}pip)\s{1,4}install\b(.{0,600})")
_COMPANION_NAMED = re.compile(r"\btorch(?:vision|audio)\b")
_UPGRADE = re.compile(r"(?:^|\s)(?:-U|--upgrade)(?:\s|$)")
_TORCH_ARG = re.compile(r"(?:^|\s)torch(?:\s|$)")
_TORCH_PIN = re.compile(r"(?<![\w./-])torch\s{0,2}={2,3}\s{0,2}['\"]?(\d[\w.+!-]{0,40})")


def carried(lines: list[str], mentions: list[Mention], holds: Callable[[int], bool]) -> list[Mention]:
    """Companions an environment inherits from an earlier part of the report: when it was made by a
    ``pip install torch==X`` (or ``pip install -U torch``) that names no companion (pip changes torch only and
    leaves torchvision/torchaudio as they were), the companions listed before that command are still installed.
    Empty when the environment lists its own companions or no such command precedes it."""
    own = [m for m in mentions if holds(m.line)]
    if not own:
        return []
    torch_here = [m for m in own if m.kind == "package" and m.key == "torch" and m.tier >= MESSAGE]
    if not torch_here or any(m.kind == "package" and m.key in COMPANIONS for m in own):
        return []
    start = min(m.line for m in own)
    torch_version = _public(min(torch_here, key=lambda m: m.line).value)
    command = None
    for i, line in enumerate(lines[:start - 1]):
        install = _INSTALL.search(line)
        if install is None or _COMPANION_NAMED.search(install.group(1)):
            continue
        args = install.group(1)
        pin = _TORCH_PIN.search(args)
        # torch==X of this environment, or an upgrade of torch alone ("pip install -U torch")
        if (pin and _public(pin.group(1)) == torch_version) or (
                pin is None and _UPGRADE.search(args) and _TORCH_ARG.search(args)):
            command = (i + 1, line.strip()[:120])
    if command is None:
        return []
    out = []
    for name in COMPANIONS:
        before = [m for m in mentions if m.kind == "package" and m.key == name and m.line < command[0]
                  and m.tier >= MESSAGE and not holds(m.line)]
        if before:
            last = max(before, key=lambda m: m.line)
            out.append(replace(last, tier=MESSAGE, how=(
                f"{last.how}, left in place by `{command[1]}` (report line {command[0]}: pip changes torch only)")))
    return out


def _public(version: str) -> str:
    parts = version.split(maxsplit=1)
    try:
        return Version(parts[0]).public if parts else version
    except InvalidVersion:
        return version


# ---- what a plain package-index companion wheel is -------------------------------------------------------

#: The plain (package-index, no ``+`` suffix) torchvision/torchaudio wheels are built like the torch they pin: on
#: Linux x86_64 the CUDA build of that torch release's package-index default (their own version.py says so), on
#: Windows the CPU build.
PYPI_COMPANION_SOURCE = (
    "package metadata: torchvision 0.22.0 (manylinux_2_28_x86_64 torchvision/version.py '0.22.0+cu126', "
    "win_amd64 '0.22.0+cpu'; Requires-Dist torch==2.7.0) ; package metadata: torchvision 0.18.1 (manylinux1_x86_64 "
    "'0.18.1+cu121', torch==2.3.1) ; package metadata: torchaudio 2.7.0 (manylinux_2_28_x86_64 '2.7.0+cu126')")
_PLAIN = re.compile(r"^\d{1,3}\.\d{1,3}(?:\.\d{1,4})?$")
#: torchaudio releases whose plain Linux wheel was read (2.7.0); later ones changed their build (2.9 moved to
#: maintenance, 2.11 to the stable ABI) and were not read: unknown.
_TORCHAUDIO_READ_UNTIL = Version("2.8.99")


def pypi_build(build: FrameworkBuild, mention: Mention, torch_version: str | None, system: str | None, arch: str,
               matrices: Matrices | None) -> FrameworkBuild:
    """``build`` with the accelerator/CUDA of the plain package-index wheel its version names, when the report
    read that version from a pip listing without a ``+`` suffix next to a torch that has one (+cpu, +cu124: torch
    came from a PyTorch index, whose companions carry the suffix too, so this one came from the package index), on
    a platform whose plain wheel is known. Without a torch suffix nothing is inferred: pip also lists conda's
    packages, unsuffixed (a conda torchvision next to a conda torch)."""
    if (matrices is None or not _PLAIN.match(build.version) or not mention.how.startswith(("pip ", "pip freeze"))
            or build.accelerator is not None or "+" not in (torch_version or "")):
        return build
    where = f"{mention.source}; the plain {build.name} {build.version} wheel is "
    if system == "win32":
        if build.name != "torchvision":
            return build  # only torchvision's Windows wheel was read
        return replace(build, accelerator="cpu", source=f"{where}the CPU build on Windows ({PYPI_COMPANION_SOURCE})")
    if system != "linux" or arch == "aarch64":
        return build
    if build.name == "torchaudio" and Version(build.version) > _TORCHAUDIO_READ_UNTIL:
        return build
    paired = next((r for r in matrices.torch.releases
                   if (r.torchvision if build.name == "torchvision" else r.torchaudio) == _series(build.version)),
                  None)
    variant = paired.pypi_variant if paired is not None else None
    if paired is None or variant is None or not variant.cuda:
        return build
    return replace(build, accelerator="cuda", cuda=variant.cuda, source=(
        f"{where}the {variant.tag} build of torch {paired.version}'s package-index default on Linux x86_64 "
        f"(torch.toml pypi_default; {PYPI_COMPANION_SOURCE})"))


def path_system(path: str | None, versions: list[str]) -> str | None:
    """The system an interpreter path shows; a POSIX path is Linux when a torch build suffix (+cpu, +cuXYZ, which
    no macOS wheel carries) is also reported."""
    if path in ("win32", "linux", "darwin"):
        return path
    if path == "posix" and any(re.search(r"\+(?:cpu|cu\d{2,3})\b", v) for v in versions):
        return "linux"
    return None


def _series(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2])


# ---- compiled extensions built for one torch release ---------------------------------------------------------------

#: OpenMMLab's wheel index for mmcv-full, one per CUDA and torch release (its install guide's
#: "pip install mmcv-full -f https://download.openmmlab.com/mmcv/dist/{cu_version}/{torch_version}/index.html", and
#: the same path on its mirrors): the torch the wheels were compiled against.
_MMCV_INDEX = re.compile(r"/mmcv/dist/(?:cu\d{2,3}|cpu)/torch(\d{1,2}\.\d{1,2})(?:\.\d{1,2})?/index\.html")
#: A version tag that names the torch: "mmcv-full==latest+torch1.5.0+cu101" (open-mmlab/mmdetection's 2020 guide),
#: a wheel file's "nunchaku-1.0.0+torch2.9-cp313-cp313-win_amd64.whl" (nunchaku-tech/nunchaku, 2025).
_TORCH_TAG = re.compile(r"(?<![\w.-])([A-Za-z][\w.]{0,40}?(?:-[A-Za-z][\w.]{0,20}){0,3})\s{0,2}(?:==|-)\s{0,2}"
                        r"[\w.]{1,20}\+torch(\d{1,2}\.\d{1,2})(?:\.\d{1,2})?(?![\d.]\d)", re.IGNORECASE)
#: PyG's wheel pages ("-f https://data.pyg.org/whl/torch-2.1.0+cu121.html") and its local versions
#: ("torch-scatter 2.1.2+pt21cu121", "torch_sparse-0.6.18+pt20cu118"): the torch release they were built for.
_PYG_INDEX = re.compile(r"data\.pyg\.org/whl/torch-(\d{1,2}\.\d{1,2})\.\d{1,2}\+(?:cu\d{2,3}|cpu)\.html")
_PYG_TAG = re.compile(r"(?<![\w.-])(torch[-_](?:scatter|sparse|cluster|spline[-_]conv)|pyg[-_]lib)(?:==|-|\s{1,30})"
                      r"\d[\w.]{0,20}\+pt(\d)(\d{1,2})(?:cu\d{2,3}|cpu)\b", re.IGNORECASE)


def built_for_torch(lines: list[str], offset: int) -> Iterator[Mention]:
    """Compiled torch extensions the report installs from builds made for one torch release (MESSAGE tier: a command
    or a listing's tag), as "built_for_torch" mentions keyed by the package."""
    for i, line in enumerate(lines):
        lowered = line.lower()
        if "mmcv" not in lowered and "pyg" not in lowered and "+pt" not in lowered and "+torch" not in lowered:
            continue
        n = offset + i + 1
        mmcv = _MMCV_INDEX.search(line)
        if mmcv:
            yield Mention("built_for_torch", mmcv.group(1), n, MESSAGE, "mmcv-full wheels for torch " + mmcv.group(1),
                          "mmcv-full")
        tagged = None if mmcv else _TORCH_TAG.search(line)
        if tagged:
            name = normalize_name(tagged.group(1))
            yield Mention("built_for_torch", tagged.group(2), n, MESSAGE, f"{name} built for torch {tagged.group(2)}",
                          name)
        pyg = _PYG_INDEX.search(line)
        if pyg:
            yield Mention("built_for_torch", pyg.group(1), n, MESSAGE, "PyG wheels for torch " + pyg.group(1),
                          "torch-scatter")
        tag = _PYG_TAG.search(line)
        if tag:
            series = f"{tag.group(2)}.{tag.group(3)}"
            yield Mention("built_for_torch", series, n, MESSAGE, f"{tag.group(1)} built for torch {series}",
                          normalize_name(tag.group(1)))
