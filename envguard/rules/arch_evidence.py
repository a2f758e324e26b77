"""What a report's own messages say about a build's compiled architectures, and whether a GPU is left without kernels.

Frameworks print the architectures their build carries next to the warning that a GPU may not be covered: torch
("The current PyTorch install supports CUDA capabilities sm_50 ... compute_37", and since 2.7 one line per built CC,
"- 7.5 which supports hardware CC >=7.5,<8.0"), Paddle ("... not compatible with Paddle installation with arch: 52
60 61 70 75"). Such a warning alone is not an error (a GPU one minor apart, or with usable PTX, still runs); with
every listed architecture unusable on the GPU it is: SASS runs only on its own major with an equal or higher minor,
PTX only JIT-compiles forward.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from envguard.archs import parse_arch_list, runs_on
from envguard.findings import Evidence
from envguard.knowledge import Matrices
from envguard.knowledge.errors import SignatureMatch
from envguard.rules.base import gpu_cc
from envguard.snapshot import Snapshot

ARCH_CODE = "arch-unsupported"
#: torch >= 2.7 (_warn_unsupported_code): "- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}". An entry
#: bounded by the next major is SASS; one without an upper bound (PTX) runs on every newer GPU.
_RANGE = re.compile(r"-\s{0,2}(\d{1,2}\.\d) which supports hardware CC >=\s{0,2}\d{1,2}\.\d(,\s{0,2}<)?")
#: Paddle lists its CUDA_REAL_ARCHS ("70 75 80 86"): each is a -gencode arch=compute_XY,code=sm_XY target, and
#: its release builds add no PTX (cmake/cuda.cmake sets CUDA_ARCH_PTX only for a Manual arch build).
PADDLE_SOURCE = "https://github.com/PaddlePaddle/Paddle/blob/develop/cmake/cuda.cmake"


def listed_architectures(matches: Sequence[SignatureMatch]) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(SASS ccs, PTX ccs, where they were read) of every architecture list the report's arch messages print."""
    sass: list[str] = []
    ptx: list[str] = []
    where: list[str] = []
    for match in matches:
        if match.signature.code != ARCH_CODE:
            continue
        items = match.groups.get("archs", "").split()
        if any(i.lower().startswith(("sm_", "compute_")) for i in items):
            s, p = parse_arch_list(tuple(items))
        elif items and all(i.isdigit() and 2 <= len(i) <= 3 for i in items):
            s, p = tuple(f"{int(i) // 10}.{int(i) % 10}" for i in items), ()
        else:
            found = _RANGE.search(match.line)
            if found is None:
                continue
            s, p = ((found.group(1),), ()) if found.group(2) else ((), (found.group(1),))
        sass += s
        ptx += p
        if match.signature.id not in where:
            where.append(match.signature.id)
    return tuple(dict.fromkeys(sass)), tuple(dict.fromkeys(ptx)), ", ".join(where)


def no_kernels(match: SignatureMatch, matches: Sequence[SignatureMatch], snapshot: Snapshot,
               matrices: Matrices) -> Evidence | None:
    """Evidence that the GPU this message concerns runs none of the architectures the report's messages list: the
    GPU is the message's own (its cc), else every capability of the family it names, else the report's GPUs."""
    sass, ptx, where = listed_architectures(matches)
    if not sass and not ptx:
        return None
    own = match.groups.get("cc") or _sm(match.groups.get("sm", ""))
    family = match.groups.get("family", "").lower()
    if own:
        ccs, gpu_where = [own], f"errors.toml {match.signature.id}"
    elif family and (fam := [a.cc for a in matrices.gpu_arch.archs if a.family.lower().startswith(family)]):
        ccs, gpu_where = fam, f"errors.toml {match.signature.id}: {family} family (gpu-arch.toml)"
    else:
        ccs = [cc for g in snapshot.gpu_list() if (cc := gpu_cc(g, matrices)[0])]
        gpu_where = "the report's GPUs"
    if not ccs or any(runs_on(cc, sass, ptx) for cc in ccs):
        return None
    listed = " ".join([f"sm_{c.replace('.', '')}" for c in sass] + [f"compute_{c.replace('.', '')}" for c in ptx])
    paddle = " (Paddle release builds carry no PTX: " + PADDLE_SOURCE + ")" if "paddle" in where else ""
    return Evidence("GPU architecture", f"compute capability {', '.join(sorted(set(ccs)))} runs none of the listed "
                    f"architectures ({listed}){paddle}", f"{gpu_where}; architectures from errors.toml {where}")


def _sm(text: str) -> str:
    digits = text.removeprefix("sm_")
    return f"{digits[:-1]}.{digits[-1]}" if digits.isdigit() and 2 <= len(digits) <= 4 else ""
