"""CUDA toolkits, the CUDA-family libraries the loader would find, cuDNN and NCCL."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from envguard.probes import parsers
from envguard.probes.base import ProbeContext
from envguard.snapshot import (
    ComponentVersion,
    CudaToolkit,
    Distribution,
    SharedLibrary,
    Unavailable,
    normalize_name,
)

logger = logging.getLogger(__name__)

#: Standard install folders searched for toolkits (Linux); globs allowed.
TOOLKIT_DIRS = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda", "/usr/lib/cuda", "/opt/nvidia/cuda*")
#: Library families envguard reports, by file-name prefix.
LIB_FAMILIES = {
    "libcudart.so": "cudart",
    "libcudnn.so": "cudnn",
    "libnccl.so": "nccl",
    "libcublas.so": "cublas",
    "libnvrtc.so": "nvrtc",
    "libcuda.so": "cuda",
}
HEADER_DIRS = ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu",
               "/usr/local/cuda/include")
_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")


def probe_toolkits(ctx: ProbeContext) -> tuple[CudaToolkit, ...] | Unavailable:
    """Every CUDA toolkit found: nvcc on PATH, CUDA_HOME/CUDA_PATH, standard folders."""
    found: list[CudaToolkit] = []
    tried: list[str] = []
    ran: dict[str, CudaToolkit | None] = {}
    nvcc = ctx.which("nvcc")
    tried.append("nvcc on PATH")
    if nvcc is not None:
        tk = _from_nvcc(ctx, nvcc, "nvcc on PATH", ran)
        if tk is not None:
            found.append(tk)
    roots: list[tuple[str, str]] = []
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        tried.append(var)
        if ctx.env.get(var):
            roots.append((ctx.env[var], var))
    for pattern in TOOLKIT_DIRS:
        tried.append(pattern)
        roots.extend((str(p), "standard folder") for p in _glob(ctx, pattern))
    seen: set[str] = set()
    for root, how in roots:
        real = os.path.realpath(ctx.path(root))
        if real in seen or not Path(real).is_dir():
            continue
        seen.add(real)
        tk = _from_root(ctx, root, how, ran)
        if tk is not None:
            found.append(tk)
    merged = _merge(found, lambda path: os.path.realpath(ctx.path(path)))
    if not merged:
        return Unavailable("no CUDA toolkit: nvcc is not on PATH, CUDA_HOME/CUDA_PATH unset, "
                           "no /usr/local/cuda*", tuple(tried))
    return merged


def _glob(ctx: ProbeContext, pattern: str) -> list[str]:
    if "*" not in pattern:
        return [pattern] if ctx.path(pattern).exists() else []
    parent = ctx.path(os.path.dirname(pattern))
    try:
        matches = sorted(parent.glob(os.path.basename(pattern)))
    except OSError:
        return []
    return ["/" + str(m.relative_to(ctx.root)) for m in matches]


#: A launcher script that execs another nvcc (e.g. /usr/local/bin/nvcc: ``exec /usr/local/cuda-13.0/bin/nvcc "$@"``).
_WRAPPER_TARGET = re.compile(rb"^\s*exec\s+['\"]?(/[^\s'\"]{1,4000}/bin/nvcc)\b", re.MULTILINE)


def nvcc_identity(nvcc: str) -> str:
    """The real nvcc a path runs: symlinks resolved, and a small ``#!`` wrapper that ``exec``s an nvcc followed, so
    the wrapper on PATH, its target and /usr/local/cuda/bin/nvcc count as one install (run once, not three times)."""
    real = os.path.realpath(nvcc)
    try:
        with open(real, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return real
    if head.startswith(b"#!"):
        match = _WRAPPER_TARGET.search(head)
        if match is not None:
            target = os.path.realpath(os.fsdecode(match.group(1)))
            if target != real and os.path.isfile(target):
                return target
    return real


def _from_nvcc(ctx: ProbeContext, nvcc: str, how: str,
               ran: dict[str, CudaToolkit | None] | None = None) -> CudaToolkit | None:
    """The toolkit ``nvcc --version`` reports; ``ran`` remembers each real nvcc already run (by nvcc_identity)."""
    key = nvcc_identity(nvcc)
    if ran is not None and key in ran:
        known = ran[key]
        return None if known is None else CudaToolkit(known.version, known.path, how, nvcc, known.build)
    tk = _run_nvcc(ctx, nvcc, how, key)
    if ran is not None:
        ran[key] = tk
    return tk


def _run_nvcc(ctx: ProbeContext, nvcc: str, how: str, real: str) -> CudaToolkit | None:
    """``real``: the nvcc this path runs (nvcc_identity), whose folder's parent may be the toolkit root."""
    result = ctx.run((nvcc, "--version"), timeout=ctx.timeout_s)
    if not result.ok:
        logger.info("nvcc at %s failed: %s", nvcc, result.describe_failure())
        return None
    parsed = parsers.parse_nvcc_version(result.stdout)
    if parsed is None:
        return None
    version, build = parsed
    root = Path(real).parent.parent
    # NOTE: a wrapper script (e.g. /usr/local/bin/nvcc) has no toolkit around it; only call a folder a
    # toolkit root when it has the toolkit's own markers.
    markers = ("version.json", "version.txt", "nvvm", "targets")
    is_root = any((root / m).exists() for m in markers)
    return CudaToolkit(version=version, path=ctx.unmap(str(root)) if is_root else None,
                       source=how, nvcc_path=nvcc, build=build)


def _from_root(ctx: ProbeContext, root: str, how: str,
               ran: dict[str, CudaToolkit | None] | None = None) -> CudaToolkit | None:
    text = ctx.read_text(f"{root}/version.json")
    if text:
        parsed = parsers.parse_cuda_version_json(text)
        if parsed is not None:
            nvcc = ctx.path(f"{root}/bin/nvcc")
            return CudaToolkit(parsed[0], root, f"{how} ({root}/version.json)",
                               str(nvcc) if nvcc.exists() else None, parsed[1])
    text = ctx.read_text(f"{root}/version.txt")
    if text:
        match = re.search(r"CUDA Version\s+(\d+)\.(\d+)(?:\.(\d+))?", text)
        if match:
            full = ".".join(g for g in match.groups() if g)
            return CudaToolkit(f"{match.group(1)}.{match.group(2)}", root, f"{how} ({root}/version.txt)", None, full)
    nvcc = ctx.path(f"{root}/bin/nvcc")
    if nvcc.exists():
        tk = _from_nvcc(ctx, str(nvcc), f"{how} ({root}/bin/nvcc)", ran)
        if tk is not None:
            return CudaToolkit(tk.version, root, tk.source, tk.nvcc_path, tk.build)
    return None


def _merge(found: Iterable[CudaToolkit], real: Callable[[str], str]) -> tuple[CudaToolkit, ...]:
    """One entry per installed toolkit: nvcc on PATH and the folder it lives in are the same one. ``real`` maps a
    toolkit path to its resolved location on the probed machine."""
    out: list[CudaToolkit] = []
    for tk in found:
        twin = next((o for o in out if _same(o, tk, real)), None)
        if twin is None:
            out.append(tk)
            continue
        out[out.index(twin)] = CudaToolkit(
            version=twin.version, path=twin.path or tk.path, source=f"{twin.source}; {tk.source}",
            nvcc_path=twin.nvcc_path or tk.nvcc_path, build=twin.build or tk.build,
        )
    return tuple(out)


def _same(a: CudaToolkit, b: CudaToolkit, real: Callable[[str], str]) -> bool:
    if a.path and b.path and real(a.path) == real(b.path):
        return True
    if a.version != b.version:
        return False
    # A wrapper "nvcc" on PATH has no root of its own: the same build string means the same toolkit.
    return (a.path is None or b.path is None) and (a.build == b.build or None in (a.build, b.build))


def parse_ldconfig(text: str) -> list[tuple[str, str]]:
    """(soname, path) pairs from ``ldconfig -p`` output."""
    out = []
    for line in text.splitlines():
        match = _LDCONFIG_LINE.match(line)
        if match:
            out.append((match.group(1), match.group(3)))
    return out


def _family(filename: str) -> str | None:
    for prefix, family in LIB_FAMILIES.items():
        if filename.startswith(prefix):
            return family
    return None


def probe_libraries(ctx: ProbeContext, wheel_files: Iterable[tuple[str, str, str]],
                    system: tuple[SharedLibrary, ...] | None = None) -> tuple[SharedLibrary, ...]:
    """CUDA-family libraries on LD_LIBRARY_PATH (searched first), in the ldconfig cache, and in wheels.

    ``system``: :func:`system_libraries` already probed (collect_snapshot runs it while the target
    interpreter reports its wheels)."""
    libs = list(system if system is not None else system_libraries(ctx))
    for dist, _version, path in wheel_files:
        name = os.path.basename(path)
        family = _family(name)
        if family is not None and _is_soname(name):
            libs.append(_library(family, name, path, f"wheel:{dist}"))
    return tuple(libs)


def system_libraries(ctx: ProbeContext) -> tuple[SharedLibrary, ...]:
    """CUDA-family libraries on LD_LIBRARY_PATH (searched first) and in the ldconfig cache."""
    libs: list[SharedLibrary] = []
    for folder in [p for p in ctx.env.get("LD_LIBRARY_PATH", "").split(":") if p]:
        directory = ctx.path(folder)
        try:
            entries = sorted(directory.iterdir())
        except OSError:
            continue
        # One entry per library file: libcudnn.so.8 -> libcudnn.so.8.0.3 is listed once, under the
        # name the loader asks for (the shortest versioned name pointing at that file).
        by_file: dict[str, str] = {}
        for entry in entries:
            if _family(entry.name) is not None and _is_soname(entry.name):
                real = os.path.realpath(entry)
                if real not in by_file or len(entry.name) < len(by_file[real]):
                    by_file[real] = entry.name
        for name in sorted(by_file.values()):
            libs.append(_library(_family(name) or "", name, str(directory / name), "LD_LIBRARY_PATH"))
    ldconfig = ctx.which("ldconfig") or ("/sbin/ldconfig" if ctx.path("/sbin/ldconfig").exists() else None)
    if ldconfig is not None:
        result = ctx.run((ldconfig, "-p"), timeout=ctx.timeout_s)
        if result.ok:
            for soname, path in parse_ldconfig(result.stdout):
                family = _family(soname)
                if family is not None and _is_soname(soname):
                    libs.append(_library(family, soname, path, "ldconfig"))
    return tuple(libs)


def libraries_in_image(ldconfig_text: str, wheel_files: Iterable[tuple[str, str, str]]) -> tuple[SharedLibrary, ...]:
    """CUDA-family libraries inside a container image, from its ``ldconfig -p`` and its wheels (pure).

    Paths are the image's: they are never resolved on this machine.
    """
    libs: list[SharedLibrary] = []
    for soname, path in parse_ldconfig(ldconfig_text):
        family = _family(soname)
        if family is not None and _is_soname(soname):
            libs.append(SharedLibrary(family, soname, path, "image ldconfig", parsers.version_from_soname(soname)))
    for dist, _version, path in wheel_files:
        name = os.path.basename(path)
        family = _family(name)
        if family is not None and _is_soname(name):
            libs.append(SharedLibrary(family, name, path, f"wheel:{dist}", parsers.version_from_soname(name)))
    return tuple(libs)


def _is_soname(name: str) -> bool:
    """``libcudnn.so.9`` yes, ``libcudnn.so`` (the dev symlink) no."""
    return re.search(r"\.so\.\d+", name) is not None


def _library(family: str, soname: str, path: str, source: str) -> SharedLibrary:
    real = os.path.basename(os.path.realpath(path))
    return SharedLibrary(family, soname, path, source, parsers.version_from_soname(real))


def probe_component(
    ctx: ProbeContext,
    family: str,
    header: str,
    parse: Callable[[str], str | None],
    libraries: tuple[SharedLibrary, ...],
    wheel_prefix: str,
    packages: Iterable[Distribution],
    toolkits: tuple[CudaToolkit, ...],
) -> tuple[ComponentVersion, ...] | Unavailable:
    """cuDNN or NCCL versions from headers, library file names and wheels (each source listed)."""
    out: list[ComponentVersion] = []
    folders = list(HEADER_DIRS) + [f"{tk.path}/include" for tk in toolkits if tk.path]
    for env_var in ("CUDNN_PATH", "CUDNN_HOME", "NCCL_HOME"):
        if ctx.env.get(env_var):
            folders.append(f"{ctx.env[env_var]}/include")
    seen: set[str] = set()
    for folder in folders:
        path = f"{folder.rstrip('/')}/{header}"
        real = os.path.realpath(ctx.path(path))
        if real in seen:
            continue
        seen.add(real)
        text = ctx.read_text(path)
        version = parse(text) if text else None
        if version is not None:
            out.append(ComponentVersion(version, f"header {path}", path))
    for lib in libraries:
        if lib.name == family and lib.version and not lib.source.startswith("wheel:"):
            out.append(ComponentVersion(lib.version, f"{lib.source} {os.path.basename(lib.path)}", lib.path))
    out.extend(ComponentVersion(d.version, f"wheel {d.name}") for d in packages
               if normalize_name(d.name).startswith(wheel_prefix))
    if not out:
        return Unavailable(f"no {family}: no {header} header, no lib{family} library on the loader path, "
                           f"no {wheel_prefix}* wheel", ("headers", "ldconfig", "LD_LIBRARY_PATH", "wheels"))
    return tuple(out)
