"""Frameworks a report shows in use without naming their version, and the CUDA a build's loader asks for.

Two shapes, each a fact about the framework build rather than about the machine:

- JAX used in the report's code or words (``import jax``, ``jax.devices()``, ``jaxlib.__file__``, `` `jaxlib` ``):
  the report is about a JAX install even when no version is given, so the JAX rules can judge the machine
  against what every jaxlib release requires (``FrameworkBuild`` version UNKNOWN_VERSION).
- TensorFlow's loader (``dso_loader.cc``) naming the CUDA runtime it opens or fails to open: the build asks for the
  runtime of the toolkit it was compiled with. Before CUDA 11 the runtime's file name carries the minor version
  (``cudart64_101.dll``, ``libcudart.so.10.1`` are CUDA 10.1); from CUDA 11 on it carries the major only
  (``cudart64_110.dll`` and ``libcudart.so.11.0`` serve every 11.x), so only the older names give the build's CUDA.
  The same loader inside jaxlib prints ``external/org_tensorflow/...``: that line is JAX's, not TensorFlow's.
- A community TensorFlow wheel's folder or file name that names its toolkit (fo40225/tensorflow-windows-wheel:
  ``1.15.0/py37/CPU+GPU/cuda101cudnn76sse2`` is "built with cuda 10.1.243 / cudnn 7.6.4.38", its issue 167).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from envguard.reports.mentions import MESSAGE, PROSE, Mention
from envguard.snapshot import UNKNOWN_VERSION, FrameworkBuild

__all__ = ["BUILD_CUDA", "FRAMEWORK_NAMED", "named_builds", "named_facts"]

FRAMEWORK_NAMED = "framework_named"  #: key: framework ("jax"); value: the words that show it in use
BUILD_CUDA = "build_cuda"  #: key: framework ("tensorflow"); value: the CUDA X.Y its loader asked for

#: JAX in use: an import, an attribute of the jax/jaxlib module, the name in backticks, or the word "jaxlib".
_JAX_USE = re.compile(r"(?:^|[\s>(`'\"=;])(import\s{1,4}jax(?:lib)?\b|from\s{1,4}jax(?:lib)?[\w.]{0,60}\s{1,4}import\b|"
                      r"jax(?:lib)?\.(?:__file__|__version__|devices|device_count|local_devices|default_backend|"
                      r"numpy|random|jit|lib|config|xla_bridge)\b|`jax(?:lib)?`|jaxlib\b)")
#: A line that says JAX is absent ("Jax version: not installed", "No module named 'jax'") names no install.
_ABSENT = re.compile(r"not installed|No module named|\bN/?A\b|\bnone\b", re.IGNORECASE)
#: TensorFlow's loader and the CUDA runtime it names: Windows "cudart64_101.dll", Linux "libcudart.so.10.1".
_DSO = re.compile(r"(?<![\w/])(?P<external>external/org_tensorflow/)?tensorflow/(?:compiler/xla/)?stream_executor/"
                  r"platform/default/dso_loader\.cc:\d{1,5}\]\s{0,4}(?:Could not load|Successfully opened) dynamic "
                  r"library\s{0,2}['\"]?(?:cudart64_(?P<win>\d{2,3})\.dll|libcudart\.so\.(?P<linux>\d{1,2}\.\d{1,2}))")

#: A TensorFlow wheel folder/file named for its toolkit and cuDNN: "cuda101cudnn76sse2", "cuda111cudnn8avx2".
_WHEEL_TOOLKIT = re.compile(r"(?<![A-Za-z0-9])cuda(?P<cuda>\d{2,3})cudnn\d{1,3}(?:sse\d|avx\d{0,3})?(?![0-9])")


def _runtime_cuda(win: str | None, linux: str | None) -> str | None:
    """The toolkit X.Y a runtime file name pins, or None when the name carries the major only (CUDA >= 11)."""
    if win is not None and len(win) == 3:
        major, minor = int(win[:-1]), int(win[-1])
    elif linux is not None:
        major, minor = (int(p) for p in linux.split("."))
    else:
        return None
    return f"{major}.{minor}" if major <= 10 else None


def named_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """FRAMEWORK_NAMED for JAX in use; BUILD_CUDA for the CUDA runtime TensorFlow's loader names."""
    jax_seen = False
    tf_cuda_seen = False
    for i, line in enumerate(lines):
        if not line.strip() or len(line) > 4000:
            continue
        n = offset + i + 1
        if not jax_seen and "jax" in line and not _ABSENT.search(line):
            found = _JAX_USE.search(line)
            if found:
                jax_seen = True
                yield Mention(FRAMEWORK_NAMED, found.group(1).strip(), n, PROSE, "jax in use", "jax")
        if not tf_cuda_seen and "dso_loader" in line:
            dso = _DSO.search(line)
            cuda = _runtime_cuda(dso.group("win"), dso.group("linux")) if dso else None
            if dso is not None and cuda is not None and dso.group("external") is None:
                tf_cuda_seen = True
                yield Mention(BUILD_CUDA, cuda, n, MESSAGE, "TensorFlow loader: CUDA runtime of the build",
                              "tensorflow")
        if "cudnn" in line and "tensorflow" in line.lower():
            wheel = _WHEEL_TOOLKIT.search(line)
            if wheel is not None:
                digits = wheel.group("cuda")
                yield Mention(BUILD_CUDA, f"{int(digits[:-1])}.{digits[-1]}", n, MESSAGE,
                              f"TensorFlow wheel named for its toolkit ({wheel.group(0)})", "tensorflow")


def named_builds(mentions: list[Mention], builds: list[FrameworkBuild]) -> list[FrameworkBuild]:
    """``builds`` plus a JAX build of unknown version when the report uses JAX but names no jax/jaxlib version, and
    with the CUDA TensorFlow's loader asked for as the TensorFlow build's CUDA (a build of unknown version when
    the report gives none)."""
    out = list(builds)
    names = {b.name for b in out}
    jax = next((m for m in mentions if m.kind == FRAMEWORK_NAMED and m.key == "jax"), None)
    if jax is not None and "jax" not in names:
        out.append(FrameworkBuild("jax", "jaxlib", UNKNOWN_VERSION, None, None, None,
                                  source=f"{jax.source} ({jax.value!r})"))
    tf = next((m for m in mentions if m.kind == BUILD_CUDA and m.key == "tensorflow"), None)
    if tf is None:
        return out
    where = f"{tf.source}: a build made with CUDA {tf.value}"
    index = next((i for i, b in enumerate(out) if b.name == "tensorflow"), None)
    if index is None:
        out.append(FrameworkBuild("tensorflow", "tensorflow", UNKNOWN_VERSION, "cuda", tf.value, None, source=where))
    elif out[index].cuda is None and out[index].accelerator != "cpu":
        old = out[index]
        out[index] = replace(old, accelerator="cuda", cuda=tf.value, source=f"{old.source}; {where}")
    return out
