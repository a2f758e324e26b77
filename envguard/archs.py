"""Compiled GPU architectures: parse arch lists and decide whether they cover a compute capability."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version


def version(text: str | None) -> Version | None:
    """``Version(text)`` or None for missing or unparsable text."""
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


_ARCH = re.compile(r"^(sm|compute)_(\d+)(\d)[a-z]?$")


def parse_arch_list(items: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``("sm_80", "compute_90")`` → SASS ccs ``("8.0",)``, PTX ccs ``("9.0",)``.

    TensorFlow also writes bare "8.0" entries (SASS).
    """
    sass: list[str] = []
    ptx: list[str] = []
    for item in items:
        text = item.strip().lower()
        match = _ARCH.match(text)
        if match:
            cc = f"{int(match.group(2))}.{match.group(3)}"
            (sass if match.group(1) == "sm" else ptx).append(cc)
        elif re.match(r"^\d+\.\d$", text):
            sass.append(text)
    return tuple(sass), tuple(ptx)


def runs_on(cc: str, sass: tuple[str, ...], ptx: tuple[str, ...], *, integrated: bool = False) -> bool:
    """SASS runs on the same major with an equal or higher minor; PTX JIT-compiles forward. On an integrated
    (Tegra) GPU SASS runs only on its exact compute capability: the CUDA Programming Guide's binary-compatibility
    note says binary compatibility is not supported for Tegra, nor between desktop and Tegra."""
    dev = version(cc)
    if dev is None:
        return True
    for item in sass:
        built = version(item)
        if built is not None and built.major == dev.major and (
                built.minor == dev.minor if integrated else built.minor <= dev.minor):
            return True
    return any((built := version(item)) is not None and built <= dev for item in ptx)


#: One nvcc target: "-gencode=arch=compute_80,code=sm_80", "-gencode arch=compute_90,code=[sm_90,compute_90]",
#: "--generate-code=arch=compute_121a,code=sm_121a" (nvcc manual, "--generate-code").
_GENCODE = re.compile(r"(?:-gencode|--generate-code)[= ]{1,2}\"?arch=compute_\d{2,3}[a-z]?,\s{0,2}code=\[?\"?"
                      r"((?:(?:sm|compute)_\d{2,3}[a-z]?,?){1,8})")


def gencode_targets(text: str) -> tuple[str, ...]:
    """The SASS/PTX targets nvcc -gencode options name, in order: ``("sm_80", "compute_90")``."""
    out: list[str] = []
    for match in _GENCODE.finditer(text[:2000]):
        for item in match.group(1).split(","):
            if item and item not in out:
                out.append(item)
    return tuple(out)
