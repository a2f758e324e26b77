"""Build small, valid wheels for local --find-links wheelhouses: the name, version, Requires-Dist and the
embedded files of a real wheel (copied from it), without its gigabytes of binaries. Real resolvers (uv, pip)
read them like any wheel."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def make_wheel(folder: Path, name: str, version: str, *, requires: Iterable[str] = (),
               files: Mapping[str, str] | None = None, tag: str = "py3-none-any") -> Path:
    """Write ``{name}-{version}-{tag}.whl`` into ``folder`` and return its path."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    metadata = "\n".join(["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
                          *(f"Requires-Dist: {r}" for r in requires)]) + "\n"
    members = {**(files or {}), f"{info}/METADATA": metadata,
               f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: envguard-tests\nRoot-Is-Purelib: true\nTag: {tag}\n"}
    if not any(p.startswith(dist + "/") or p.endswith(".py") for p in members if not p.startswith(info)):
        members[f"{dist}/__init__.py"] = ""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{dist}-{version}-{tag}.whl"
    record = [_record_line(p, t.encode()) for p, t in members.items()] + [f"{info}/RECORD,,"]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for p, text in members.items():
            zf.writestr(p, text)
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


#: torch/version.py of the real torch 2.14.1 Linux x86_64 wheel on the default index (read from it).
TORCH_2_14_1_VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']
__version__ = '2.14.1+cu130'
debug = False
cuda: Optional[str] = '13.0'
git_version = '5c4886908584029761b579af026dcfb627c84070'
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
"""


def torch_cu130_house(folder: Path, *, torchvisions: Iterable[tuple[str, str]]) -> Path:
    """torch 2.14.1 as the default index serves it (the cu130 build: no local label; it pins NVIDIA's CUDA 13.0
    runtime wheel; its torch/version.py says 2.14.1+cu130) and the given torchvision (version, embedded build)
    pairs. Requires-Dist and version.py values are those of the real wheels (torchvision 0.29.1 embeds
    0.29.1+cu130, 0.29.2 embeds 0.29.2+cu132; both require torch>=2.14.0)."""
    make_wheel(folder, "nvidia-cuda-runtime", "13.0.96")
    make_wheel(folder, "torch", "2.14.1", requires=["nvidia-cuda-runtime==13.0.96"],
               files={"torch/__init__.py": "", "torch/version.py": TORCH_2_14_1_VERSION_PY})
    for version, embedded in torchvisions:
        make_wheel(folder, "torchvision", version, requires=["torch>=2.14.0"],
                   files={"torchvision/__init__.py": "", "torchvision/version.py":
                          f"__version__ = '{embedded}'\ngit_version = 'f12281517f1b2f6255904639b027c9436f3e5008'\n"})
    return folder
