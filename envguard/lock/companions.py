"""After resolving: does every companion match the chosen build, judged by the wheels themselves?

PyPI builds carry no ``+cuXYZ`` label, so a resolver happily pairs torch 2.14.1 (cu130) with torchvision
0.29.2 built for cu132. The facts used here come from the resolved files, never from the matrices: the
version a wheel embeds (``torchvision/version.py``), the ``nvidia-*-cuNN`` names and the CUDA runtime
version a build pins. Pure: the caller reads the wheels and re-resolves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from packaging.version import InvalidVersion, Version

from envguard.lock.spec import LockedPackage, LockTarget

#: Companions whose wheel embeds its build in PACKAGE/version.py.
TORCH_COMPANIONS = ("torchvision", "torchaudio")
_SUFFIXED = re.compile(r"^nvidia-[a-z0-9-]+?-cu(\d+)$")
_JAX_PLUGIN = re.compile(r"^jax-cuda(\d+)-(plugin|pjrt)$")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A locked file that does not belong to the chosen build."""

    name: str
    version: str
    detail: str
    #: A constraint that removes it from the next resolution ("torchvision!=0.29.2"); None: cannot be fixed so.
    constraint: str | None


def local_of(version: str | None) -> str | None:
    """"0.29.2+cu132" → "cu132"; None when there is no label or it is not a version."""
    if not version:
        return None
    try:
        return Version(version).local
    except InvalidVersion:
        return None


def needs_embedded(target: LockTarget, packages: Sequence[LockedPackage]) -> tuple[LockedPackage, ...]:
    """The torch companions whose build only their wheel can tell (no local label on the pin)."""
    if target.variant is None or not any(p.key == "torch" for p in packages):
        return ()
    return tuple(p for p in packages if p.key in TORCH_COMPANIONS and not p.local)


def mismatches(
    target: LockTarget, packages: Sequence[LockedPackage], embedded: Mapping[str, str | None],
) -> tuple[tuple[Mismatch, ...], tuple[str, ...]]:
    """(what does not belong to the build, notes on what could not be checked).

    ``embedded`` maps a package key to the version its wheel embeds (None: unreadable).
    """
    out: list[Mismatch] = []
    notes: list[str] = []
    by_key = {p.key: p for p in packages}
    torch = by_key.get("torch")
    tag = target.variant
    if torch is not None and tag is not None:
        for name in TORCH_COMPANIONS:
            pin = by_key.get(name)
            if pin is None:
                continue
            label = pin.local
            source = f"its version {pin.version}"
            if label is None:
                seen = embedded.get(pin.key)
                if seen is None:
                    notes.append(f"{pin.name} {pin.version}: its wheel's {name}/version.py could not be read, "
                                 f"so its CUDA build is not checked against torch's {tag}")
                    continue
                label, source = local_of(seen), f"{name}/version.py in its wheel says {seen}"
            if label != tag:
                out.append(Mismatch(pin.name, pin.version,
                                    f"{pin.name} {pin.version} is built for {label or 'no CUDA variant'} ({source}), "
                                    f"torch {torch.version} for {tag}", f"{pin.name}!={pin.version}"))
        runtime = next((p for p in packages if re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", p.key)), None)
        if target.cuda and runtime is not None and not torch.local:
            have = _minor(runtime.version)
            if have is not None and have != _minor(target.cuda):
                out.append(Mismatch(torch.name, torch.version,
                                    f"torch {torch.version} from the default index pins {runtime.name} "
                                    f"{runtime.version} (CUDA {have}), not the {tag} build (CUDA {target.cuda}) "
                                    "the matrices name as its default", None))
    major = _major(target.cuda)
    if major is not None:
        for p in packages:
            m = _SUFFIXED.match(p.key)
            if m and int(m.group(1)) != major:
                out.append(Mismatch(p.name, p.version, f"{p.name} brings CUDA {m.group(1)} libraries into a CUDA "
                                    f"{target.cuda} lock", None))
            j = _JAX_PLUGIN.match(p.key)
            if j and int(j.group(1)) != major:
                out.append(Mismatch(p.name, p.version, f"{p.name} is the CUDA {j.group(1)} plugin in a CUDA "
                                    f"{target.cuda} lock", None))
    jaxlib = by_key.get("jaxlib")
    if jaxlib is not None:
        for p in packages:
            if _JAX_PLUGIN.match(p.key) and _public(p.version) != _public(jaxlib.version):
                out.append(Mismatch(p.name, p.version, f"{p.name} {p.version} is not jaxlib {jaxlib.version}'s "
                                    "release (JAX needs the plugin and jaxlib of one release)",
                                    f"{p.name}=={_public(jaxlib.version)}"))
    return tuple(out), tuple(notes)


def wheel_target(target: LockTarget, packages: Sequence[LockedPackage], *,
                 force: bool = False) -> tuple[LockTarget, tuple[str, ...]]:
    """The CUDA and cuDNN the locked NVIDIA wheels contain, for builds that bring their libraries as wheels
    (``tensorflow[and-cuda]``, ``jax[cudaN]``; ``force``: a torch release the matrices do not know): the header
    must state what is installed, not what a release was tested with. Other targets come back unchanged."""
    if not force and target.variant not in ("and-cuda",) and not (target.variant or "").startswith("cuda"):
        return target, ()
    runtime = next((p for p in packages if re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", p.key)), None)
    cudnn = next((p for p in packages if re.fullmatch(r"nvidia-cudnn(-cu\d+)?", p.key)), None)
    cuda = _minor(runtime.version) if runtime is not None else None
    if cuda is None or runtime is None:
        return target, ()
    new = replace(target, cuda=cuda, cudnn=_short(cudnn.version) if cudnn else target.cudnn)
    why = (f"CUDA {cuda}" + (f" / cuDNN {new.cudnn}" if new.cudnn else "")
           + f": what the locked {runtime.name} {runtime.version}"
           + (f" and {cudnn.name} {cudnn.version}" if cudnn else "") + " wheels contain")
    return new, (why,) if new != target else ()


def cuda_tag(cuda: str | None) -> str | None:
    """PyTorch's label for a CUDA build ("13.2" → "cu132"); None for no CUDA."""
    v = _minor(cuda)
    return "cu" + v.replace(".", "") if v else None


def _minor(version: str | None) -> str | None:
    try:
        v = Version(version or "")
    except InvalidVersion:
        return None
    return f"{v.major}.{v.minor}"


def _major(version: str | None) -> int | None:
    try:
        return Version(version or "").major
    except InvalidVersion:
        return None


def _short(version: str) -> str:
    try:
        v = Version(version)
    except InvalidVersion:
        return version
    return f"{v.major}.{v.minor}"


def _public(version: str) -> str:
    try:
        return Version(version).public
    except InvalidVersion:
        return version
