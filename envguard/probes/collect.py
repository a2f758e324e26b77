"""collect_snapshot: run every probe (in parallel), never letting one failure abort the rest."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from envguard._redact import environment_for_record
from envguard._version import __version__
from envguard.errors import TargetPythonError
from envguard.probes import parsers
from envguard.probes.base import ProbeContext
from envguard.probes.cuda import probe_component, probe_libraries, probe_toolkits, system_libraries
from envguard.probes.host import probe_host
from envguard.probes.nvidia import probe_nvidia
from envguard.probes.target import TargetReport, attach_runtime, deep_reports, inspect_target
from envguard.snapshot import DriverInfo, GpuInfo, HostInfo, Snapshot, Unavailable

logger = logging.getLogger(__name__)

__all__ = ["ENV_ALLOWLIST", "ProbeContext", "collect_machine", "collect_snapshot"]

#: Environment variables recorded in the snapshot because they change what loads or how it runs.
ENV_ALLOWLIST = (
    "LD_LIBRARY_PATH", "LD_PRELOAD", "PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_REQUIRE_CUDA", "CUDA_VERSION",
    "CUDA_MODULE_LOADING", "CUBLAS_WORKSPACE_CONFIG", "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK", "TF_FORCE_GPU_ALLOW_GROWTH", "XLA_FLAGS",
    "JAX_SKIP_CUDA_CONSTRAINTS_CHECK", "CONDA_PREFIX", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHASHSEED",
)
ENV_PREFIXES = ("NCCL_",)

T = TypeVar("T")


def _guard(name: str, fn: Callable[[], T], fallback: Callable[[str], T], notes: list[str]) -> T:
    """Run one probe; an unexpected crash becomes the probe's ``Unavailable`` fallback and a note."""
    try:
        return fn()
    except TargetPythonError:
        raise
    except Exception as exc:  # reason: a crashing probe must not abort the check
        logger.debug("probe %s crashed", name, exc_info=True)
        message = f"probe {name} crashed: {type(exc).__name__}: {exc}"
        notes.append(message)
        return fallback(message)


def _result(future: Future[T], name: str, fallback: Callable[[str], T], notes: list[str]) -> T:
    return _guard(name, future.result, fallback, notes)


def collect_machine(
    ctx: ProbeContext,
) -> tuple[HostInfo, DriverInfo | Unavailable, tuple[GpuInfo, ...] | Unavailable, tuple[str, ...]]:
    """Only this machine's host facts, driver and GPUs (no interpreter, toolkit or library probes): what
    `lock --cuda auto` and `check --image` need from the host. A crashing probe becomes a note."""
    notes: list[str] = []
    host = _guard("host", lambda: probe_host(ctx), lambda _m: HostInfo("unknown", "unknown"), notes)
    driver, gpus = _guard("nvidia", lambda: probe_nvidia(ctx), lambda m: (Unavailable(m), Unavailable(m)), notes)
    return host, driver, gpus, tuple(notes)


def collect_snapshot(ctx: ProbeContext) -> tuple[Snapshot, tuple[str, ...]]:
    """Probe the machine and the target interpreter.

    :returns: the snapshot and notes about probes that crashed.
    :raises TargetPythonError: when the target interpreter is missing or unusable.
    """
    notes: list[str] = []
    with ThreadPoolExecutor(max_workers=5, thread_name_prefix="envguard-probe") as pool:
        f_deep = pool.submit(deep_reports, ctx) if ctx.deep else None
        f_target = pool.submit(inspect_target, ctx)
        f_nvidia = pool.submit(probe_nvidia, ctx)
        f_toolkits = pool.submit(probe_toolkits, ctx)
        f_system = pool.submit(system_libraries, ctx)
        host = _guard("host", lambda: probe_host(ctx), lambda _m: HostInfo("unknown", "unknown"), notes)
        target: TargetReport = f_target.result()
        driver, gpus = _result(f_nvidia, "nvidia", lambda m: (Unavailable(m), Unavailable(m)), notes)
        toolkits = _result(f_toolkits, "cuda-toolkit", Unavailable, notes)
        frameworks = target.frameworks
        if f_deep is not None:
            reports = _result(f_deep, "deep", lambda _m: {}, notes)
            frameworks = attach_runtime(frameworks, reports)
    tk = () if isinstance(toolkits, Unavailable) else toolkits
    libraries = _guard("libraries", lambda: probe_libraries(ctx, target.wheel_files, f_system.result()),
                       lambda _m: (), notes)
    cudnn = _guard(
        "cudnn",
        lambda: probe_component(ctx, "cudnn", "cudnn_version.h", parsers.parse_cudnn_version_header,
                                libraries, "nvidia-cudnn-cu", target.packages, tk),
        Unavailable, notes,
    )
    nccl = _guard(
        "nccl",
        lambda: probe_component(ctx, "nccl", "nccl.h", parsers.parse_nccl_header,
                                libraries, "nvidia-nccl-cu", target.packages, tk),
        Unavailable, notes,
    )
    # NOTE: never a secret-named variable (NCCL_IB_HCA_PASSWORD), no URL credentials, home folders as ~.
    environment = environment_for_record(ctx.env, ENV_ALLOWLIST, ENV_PREFIXES)
    snapshot = Snapshot(
        host=host, driver=driver, gpus=gpus, cuda_toolkits=toolkits, libraries=libraries,
        cudnn=cudnn, nccl=nccl, python=target.python, packages=target.packages, frameworks=frameworks,
        environment=environment, origin="probe --deep" if ctx.deep else "probe", envguard_version=__version__,
    )
    return snapshot, tuple(notes)
