"""One lock for several platforms (``--platform`` given more than once): each platform resolves on its own; pins
every platform shares stay plain, the others carry a ``platform_machine`` marker (pip and uv evaluate it at
install time). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from envguard.errors import LockError
from envguard.lock.spec import IndexUse, LockedPackage, LockTarget

#: platform_machine per lock platform.
MACHINES = {"linux-x86_64": "x86_64", "linux-aarch64": "aarch64"}


def marker_for(platforms: Sequence[str]) -> str:
    """``platform_machine == "x86_64"`` (or an ``or`` of several)."""
    return " or ".join(f'platform_machine == "{MACHINES[p]}"' for p in platforms)


def merge(
    results: Sequence[tuple[str, LockTarget, tuple[LockedPackage, ...], tuple[IndexUse, ...]]],
) -> tuple[tuple[LockedPackage, ...], LockTarget, tuple[IndexUse, ...], tuple[str, ...]]:
    """(packages, target, indexes, notes) of one lock for every platform's resolution.

    :raises LockError: when the platforms would get different CUDA builds (lock them separately).
    """
    first = results[0][1]
    for platform, target, _p, _i in results[1:]:
        if (target.cuda, target.variant, target.python) != (first.cuda, first.variant, first.python):
            raise LockError(f"{results[0][0]} gets the {first.variant or 'plain'} build (CUDA {first.cuda}), "
                            f"{platform} the {target.variant or 'plain'} build (CUDA {target.cuda}): one lock "
                            "states one build; lock each platform on its own")
    names = [p for p, *_ in results]
    by_key: dict[str, dict[tuple[str, tuple[str, ...]], list[str]]] = {}
    pins: dict[tuple[str, tuple[str, tuple[str, ...]]], LockedPackage] = {}
    for platform, _t, packages, _i in results:
        for pkg in packages:
            ident = (pkg.version, tuple(sorted(pkg.hashes)))
            by_key.setdefault(pkg.key, {}).setdefault(ident, []).append(platform)
            pins[(pkg.key, ident)] = pkg
    out: list[LockedPackage] = []
    differ = 0
    for key in sorted(by_key):
        for ident, where in sorted(by_key[key].items()):
            pkg = pins[(key, ident)]
            if len(where) == len(names):
                out.append(pkg)
            else:
                differ += 1
                out.append(replace(pkg, marker=marker_for(where)))
    indexes: list[IndexUse] = []
    for result in results:
        indexes += [i for i in result[3] if i.url not in {j.url for j in indexes}]
    target = replace(first, platform=",".join(names))
    note = (f"one lock for {', '.join(names)}: " + (f"{differ} pin(s) differ and carry a platform_machine marker"
                                                      if differ else "every pin is the same on all of them"))
    return tuple(out), target, tuple(indexes), (note,)
