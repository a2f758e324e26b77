"""The target interpreter: Python, installed distributions and framework builds, read out of process."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from packaging.version import InvalidVersion, Version

from envguard import _json
from envguard._subprocess import CommandResult
from envguard.errors import TargetPythonError
from envguard.probes import inspection, parsers
from envguard.probes.base import DEEP_TIMEOUT_FACTOR, TARGET_TIMEOUT_FACTOR, ProbeContext
from envguard.probes.inspection import child_env
from envguard.resources import script_source
from envguard.snapshot import (
    UNKNOWN_VERSION,
    Distribution,
    FrameworkBuild,
    PythonInfo,
    RuntimeReport,
    Unavailable,
    normalize_name,
)

logger = logging.getLogger(__name__)

_TF_DISTS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel", "tensorflow-macos")
_CUDA_LOCAL = re.compile(r"^cu(\d+)$")


@dataclass(frozen=True, slots=True)
class TargetReport:
    """Everything the in-target script reported, decoded."""

    python: PythonInfo
    packages: tuple[Distribution, ...]
    frameworks: tuple[FrameworkBuild, ...]
    #: (distribution, version, path) of CUDA-family files shipped in nvidia-* wheels.
    wheel_files: tuple[tuple[str, str, str], ...]


def inspect_target(ctx: ProbeContext) -> TargetReport:
    """Run the inspection script in ``ctx.target_python`` (or take the run ``ctx.inspection`` started for it)
    and decode its JSON.

    :raises TargetPythonError: when the interpreter is missing or does not answer.
    """
    exe = ctx.target_python
    if os.sep in exe and not os.path.exists(exe):
        raise TargetPythonError(f"target interpreter {exe} does not exist")
    timeout = ctx.timeout_s * TARGET_TIMEOUT_FACTOR
    started = ctx.inspection
    if started is not None and started.serves(exe, ctx.env, timeout):
        result = started.result()
    else:
        result = inspection.run_inspection(ctx.run, exe, ctx.env, timeout)
    if not result.ok:
        raise TargetPythonError(not_python(exe, result))
    try:
        doc = _json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:  # NOTE: JSONDecodeError and _json.DocumentError are ValueErrors
        raise TargetPythonError(f"target interpreter {exe} printed no inspection report; it printed: "
                                f"{result.printed()}") from exc
    return decode_target_report(doc, exe)


def not_python(exe: str, result: CommandResult) -> str:
    """One line for an interpreter that did not run the script: the file, and what it printed (200 chars)."""
    if result.start_error is not None or result.timed_out:
        return f"cannot inspect target interpreter {exe}: {result.describe_failure()}"
    return (f"target interpreter {exe} is not a working Python (exit status {result.returncode}); it printed: "
            f"{result.printed()}")


def decode_target_report(doc: Any, exe: str = "the target interpreter") -> TargetReport:
    """Turn the in-target script's JSON into typed facts (pure).

    :raises TargetPythonError: the document is not of the script's shape (``{}``, ``[1, 2]``, ``null``, a
        partial object): an interpreter that prints something else is not answering.
    """
    try:
        return _decode_target_report(_json.require(doc, dict, "the inspection report"))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
        raise TargetPythonError(f"{exe} printed an inspection report of the wrong shape ({detail[:120]})") from None


def _decode_target_report(doc: Mapping[str, Any]) -> TargetReport:
    py = _json.require(doc["python"], dict, "python")
    python = PythonInfo(
        executable=str(py["executable"]), version=str(py["version"]), implementation=str(py["implementation"]),
        platform=str(py["platform"]), machine=str(py["machine"]), prefix=str(py["prefix"]),
        base_prefix=str(py["base_prefix"]), virtualenv=bool(py["virtualenv"]),
        conda_prefix=py.get("conda_prefix"), free_threaded=bool(py.get("free_threaded")),
    )
    packages = tuple(sorted(
        (Distribution(str(d["name"]), str(d["version"]), tuple(str(r) for r in d.get("requires") or ()))
         for d in doc.get("distributions", [])),
        key=lambda d: normalize_name(d.name),
    ))
    wheel_files = tuple((str(w["dist"]), str(w["version"]), str(w["path"])) for w in doc.get("wheel_files", []))
    frameworks = frameworks_from(doc.get("frameworks") or {}, {normalize_name(p.name): p for p in packages})
    return TargetReport(python, packages, frameworks, wheel_files)


def frameworks_from(found: Mapping[str, Any], packages: Mapping[str, Distribution]) -> tuple[FrameworkBuild, ...]:
    """Framework builds from their version files and distribution metadata, without importing them."""
    out: list[FrameworkBuild] = []
    torch_dist = packages.get("torch")
    if "torch" in found or torch_dist:
        out.append(_torch_build(found.get("torch") or {}, torch_dist))
    for name in ("torchvision", "torchaudio"):
        dist = packages.get(name)
        info = (found.get(name) or {}).get("version_py") or {}
        if dist or info:
            version = str(info.get("__version__") or (dist.version if dist else UNKNOWN_VERSION))
            cuda = info.get("cuda")
            out.append(FrameworkBuild(
                name=name, distribution=name, version=version,
                accelerator=_accel_from_local(version, cuda), cuda=str(cuda) if cuda else cuda_from_local(version),
                cudnn=None, source=f"{name}/version.py" if info else "metadata",
            ))
    tf = next((packages[d] for d in _TF_DISTS if d in packages), None)
    if tf is not None or "tensorflow" in found:
        out.append(_tensorflow_build((found.get("tensorflow") or {}).get("build_info"), tf))
    jax = _jax_build(packages)
    if jax is not None:
        out.append(jax)
    paddle = packages.get("paddlepaddle-gpu") or packages.get("paddlepaddle")
    if paddle is not None:
        info = (found.get("paddle") or {}).get("version_py") or {}
        cuda = info.get("cuda_version")
        cuda_s = str(cuda) if cuda and str(cuda) not in ("False", "None") else None
        cudnn = info.get("cudnn_version")
        out.append(FrameworkBuild(
            name="paddle", distribution=paddle.name, version=str(info.get("full_version") or paddle.version),
            accelerator="cuda" if cuda_s else ("cpu" if info else None), cuda=cuda_s,
            cudnn=str(cudnn) if cudnn and str(cudnn) not in ("False", "None") else None,
            source="paddle/version/__init__.py" if info else "metadata",
        ))
    return tuple(out)


def _local(version: str) -> str | None:
    try:
        return Version(version).local
    except InvalidVersion:
        return None


def cuda_from_local(version: str) -> str | None:
    """CUDA of a ``+cuXYZ`` local version: ``2.5.1+cu124`` → ``12.4``; None otherwise."""
    match = _CUDA_LOCAL.match(_local(version) or "")
    if not match:
        return None
    digits = match.group(1)
    return f"{digits[:-1]}.{digits[-1]}"


def _accel_from_local(version: str, cuda: object) -> str | None:
    local = _local(version) or ""
    if cuda or local.startswith("cu"):
        return "cuda"
    if local.startswith("rocm"):
        return "rocm"
    if local == "cpu":
        return "cpu"
    return None


def pinned(dist: Distribution | None, prefix: str, extra: str | None = None) -> dict[str, str]:
    """``{name: exact version}`` of Requires-Dist ``name==x`` pins starting with ``prefix``.

    Pins behind an ``extra == ...`` marker count only when ``extra`` names that extra.
    """
    if dist is None:
        return {}
    # NOTE: imported here: packaging's requirement parser is a visible part of `check`'s start-up.
    from packaging.requirements import InvalidRequirement, Requirement

    out: dict[str, str] = {}
    for line in dist.requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if not normalize_name(req.name).startswith(prefix):
            continue
        marker = str(req.marker) if req.marker else ""
        if "extra" in marker and (extra is None or f'"{extra}"' not in marker):
            continue
        specs = [s for s in req.specifier if s.operator == "=="]
        if specs:
            out[normalize_name(req.name)] = specs[0].version
    return out


def _torch_build(info: Mapping[str, Any], dist: Distribution | None) -> FrameworkBuild:
    version_py = info.get("version_py") or {}
    version = str(version_py.get("__version__") or (dist.version if dist else UNKNOWN_VERSION))
    cuda = version_py.get("cuda")
    hip = version_py.get("hip")
    if not version_py and not cuda:  # no torch/version.py: fall back to the +cuXYZ local version
        cuda = cuda_from_local(version)
    accel = "cuda" if cuda else "rocm" if hip else ("cpu" if version_py else _accel_from_local(version, None))
    pins = pinned(dist, "nvidia-")
    cudnn = next((v for k, v in pins.items() if k.startswith("nvidia-cudnn")), None)
    nccl = next((v for k, v in pins.items() if k.startswith("nvidia-nccl")), None)
    return FrameworkBuild(
        name="torch", distribution="torch", version=version, accelerator=accel,
        cuda=str(cuda) if cuda else (str(hip) if hip else None), cudnn=cudnn, nccl=nccl,
        source="torch/version.py" + (" + wheel Requires-Dist" if pins else "") if version_py else "metadata",
    )


def _tensorflow_build(build_info: Mapping[str, Any] | None, dist: Distribution | None) -> FrameworkBuild:
    name = dist.name if dist else "tensorflow"
    version = dist.version if dist else UNKNOWN_VERSION
    if build_info:
        is_cuda = bool(build_info.get("is_cuda_build"))
        archs = tuple(str(a) for a in build_info.get("cuda_compute_capabilities") or ())
        return FrameworkBuild(
            name="tensorflow", distribution=name, version=version,
            accelerator="cuda" if is_cuda else ("rocm" if build_info.get("is_rocm_build") else "cpu"),
            cuda=str(build_info["cuda_version"]) if is_cuda and build_info.get("cuda_version") else None,
            cudnn=str(build_info["cudnn_version"]) if is_cuda and build_info.get("cudnn_version") else None,
            arch_list=archs, source="tensorflow/python/platform/build_info.py",
        )
    accel = "cpu" if normalize_name(name) == "tensorflow-cpu" else None
    return FrameworkBuild(name="tensorflow", distribution=name, version=version, accelerator=accel,
                          cuda=None, cudnn=None, source="metadata")


def _jax_build(packages: Mapping[str, Distribution]) -> FrameworkBuild | None:
    jaxlib = packages.get("jaxlib")
    if jaxlib is None:
        return None
    plugin = next((packages[p] for p in ("jax-cuda13-plugin", "jax-cuda12-plugin") if p in packages), None)
    local = _local(jaxlib.version) or ""
    if plugin is not None:
        major = "13" if "13" in plugin.name else "12"
        return FrameworkBuild(name="jax", distribution=f"jaxlib + {plugin.name}", version=jaxlib.version,
                              accelerator="cuda", cuda=major, cudnn=None, source="metadata")
    if local.startswith("cuda"):  # monolithic CUDA jaxlib before 0.4.30: "0.4.26+cuda12.cudnn89"
        match = re.match(r"cuda(\d+)", local)
        return FrameworkBuild(name="jax", distribution="jaxlib", version=jaxlib.version, accelerator="cuda",
                              cuda=match.group(1) if match else None, cudnn=None, source="metadata")
    return FrameworkBuild(name="jax", distribution="jaxlib", version=jaxlib.version, accelerator="cpu",
                          cuda=None, cudnn=None, source="metadata")


# ---- --deep -------------------------------------------------------------------------------

DEEP_FRAMEWORKS = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jax"}


def deep_reports(ctx: ProbeContext) -> dict[str, RuntimeReport | Unavailable]:
    """Import torch, tensorflow and jax in the target interpreter, each in its own subprocess, in parallel.

    Started at once, alongside the other probes (the script answers "not installed" in milliseconds), so
    ``--deep`` costs the slowest import, not the sum. Keys are the frameworks that are installed.
    """
    source = script_source("envguard.probes", "_deep_framework.py")
    timeout = ctx.timeout_s * DEEP_TIMEOUT_FACTOR

    def one(name: str) -> RuntimeReport | Unavailable | None:
        code = f"FRAMEWORK = {name!r}\n" + source
        import tempfile  # NOTE: --deep only

        with tempfile.TemporaryDirectory(prefix="envguard-deep-") as cwd:
            result = ctx.run((ctx.target_python, "-c", code), timeout=timeout, cwd=cwd, env=child_env(ctx.env))
        if result.timed_out:
            return Unavailable(f"importing {name} did not finish within {timeout:g}s", ("import",), "timeout")
        lines = [ln for ln in result.stdout.splitlines() if ln.strip().startswith("{")]
        if not lines:
            return Unavailable(f"importing {name} crashed: {result.describe_failure()}", ("import",), "crash")
        try:
            doc = _json.require(_json.loads(lines[-1]), dict, "the runtime report")
            return None if doc.get("installed") is False else runtime_from(doc)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            return Unavailable(f"unreadable runtime report from {name}: {exc}", ("import",), "crash")

    names = list(DEEP_FRAMEWORKS)
    with ThreadPoolExecutor(max_workers=len(names), thread_name_prefix="envguard-deep") as pool:
        results = dict(zip(names, pool.map(one, names), strict=True))
    return {name: report for name, report in results.items() if report is not None}


def attach_runtime(
    frameworks: tuple[FrameworkBuild, ...], reports: Mapping[str, RuntimeReport | Unavailable]
) -> tuple[FrameworkBuild, ...]:
    """Frameworks with their ``--deep`` runtime reports attached (pure)."""
    return tuple(replace(f, runtime=reports[f.name]) if f.name in reports else f for f in frameworks)


def runtime_from(doc: Mapping[str, Any]) -> RuntimeReport:
    """Decode one ``_deep_framework.py`` document (pure)."""
    cudnn = doc.get("cudnn")
    nccl = doc.get("nccl")
    return RuntimeReport(
        gpu_available=doc.get("gpu_available"),
        device_count=doc.get("device_count"),
        devices=tuple(str(d) for d in doc.get("devices") or ()),
        arch_list=tuple(str(a) for a in doc.get("arch_list") or ()),
        cudnn=parsers.decode_cudnn_int(cudnn) if isinstance(cudnn, int) else (str(cudnn) if cudnn else None),
        nccl=(".".join(str(p) for p in nccl[:3]) if isinstance(nccl, list)
              else parsers.decode_nccl_int(nccl) if isinstance(nccl, int) else (str(nccl) if nccl else None)),
        cuda=str(doc["cuda"]) if doc.get("cuda") else None,
        warnings=tuple(str(w) for w in doc.get("warnings") or ()),
        error=str(doc["error"]) if doc.get("error") else None,
        duration_s=float(doc["duration_s"]) if doc.get("duration_s") is not None else None,
    )
