"""Driver and GPUs: NVML first, then /proc/driver/nvidia/version, then nvidia-smi (with timeouts)."""

from __future__ import annotations

import logging
from dataclasses import replace

from envguard.probes import parsers
from envguard.probes.base import ProbeContext
from envguard.probes.nvml import NvmlReport, query_nvml
from envguard.snapshot import DriverInfo, GpuInfo, Unavailable

logger = logging.getLogger(__name__)

PROC_VERSION = "/proc/driver/nvidia/version"
#: Causes that say more than "no driver", most specific first.
_SPECIFIC = ("driver-library-mismatch", "driver-not-loaded", "no-devices", "timeout", "nvml-error", "smi-failed")


def probe_nvidia(ctx: ProbeContext) -> tuple[DriverInfo | Unavailable, tuple[GpuInfo, ...] | Unavailable]:
    """The driver and its GPUs, from the best source that answers; failures become facts."""
    nvml = ctx.nvml(ctx.timeout_s) if ctx.nvml is not None else query_nvml(ctx.timeout_s)
    proc_text = ctx.read_text(PROC_VERSION)
    proc = parsers.parse_proc_driver_version(proc_text) if proc_text else None
    module_version, flavor = proc if proc else (None, None)

    if isinstance(nvml, NvmlReport):
        cuda = parsers.decode_cuda_driver_int(nvml.cuda_driver_int) if nvml.cuda_driver_int else None
        driver = DriverInfo(
            version=nvml.driver_version, cuda_driver_version=cuda, source="NVML",
            kernel_module_version=module_version, nvml_library_version=nvml.nvml_version,
            kernel_module_flavor=flavor,
        )
        if module_version and module_version != nvml.driver_version:
            logger.info("NVML driver %s differs from kernel module %s", nvml.driver_version, module_version)
        return driver, nvml.gpus

    tried = ["NVML", PROC_VERSION]
    smi = _probe_smi(ctx)
    tried.append("nvidia-smi")
    if isinstance(smi, tuple):
        smi_driver, gpus = smi
        return replace(smi_driver, kernel_module_version=module_version, kernel_module_flavor=flavor), gpus

    # Neither NVML nor nvidia-smi answered. Pick the most specific cause they gave.
    causes = [nvml, smi]
    mismatch = [c.reason for c in causes if c.code == "driver-library-mismatch"]
    if mismatch:
        reason = "; ".join(mismatch)
        if module_version:
            reason += f"; loaded kernel module: {module_version}"
        return Unavailable(reason, tuple(tried), "driver-library-mismatch"), Unavailable(reason, tuple(tried))
    code = next((c for c in _SPECIFIC if c in (nvml.code, smi.code)), None)
    if module_version:
        reason = (f"kernel module {module_version} is loaded ({PROC_VERSION}) but no user-space tool answered: "
                  f"{nvml.reason}; {smi.reason}")
        driver = DriverInfo(module_version, None, PROC_VERSION, module_version, None, flavor)
        return driver, Unavailable(reason, tuple(tried), code or nvml.code)
    details = f"{nvml.reason}; {PROC_VERSION} is absent; {smi.reason}"
    if code is None:
        code = "no-driver"
        headline = "no NVIDIA driver is installed"
    else:
        headline = "the NVIDIA driver did not answer"
    reason = f"{headline} ({details})"
    return Unavailable(reason, tuple(tried), code), Unavailable(f"{headline}, so no GPU can be listed",
                                                                tuple(tried), code)


def _probe_smi(ctx: ProbeContext) -> tuple[DriverInfo, tuple[GpuInfo, ...]] | Unavailable:
    exe = ctx.which("nvidia-smi")
    if exe is None:
        return Unavailable("nvidia-smi not found on PATH", ("nvidia-smi",), "smi-missing")
    fields = parsers.QUERY_GPU_FIELDS
    result = ctx.run((exe, f"--query-gpu={','.join(fields)}", "--format=csv,nounits"), timeout=ctx.timeout_s)
    if result.ok:
        failure = None
    else:
        failure = parsers.classify_nvidia_smi_failure(result.stdout + "\n" + result.stderr)
        if failure is not None and failure[0] == "invalid-field":
            # NOTE: drivers older than ~510 (and snap-bundled 470 tools) reject compute_cap.
            fields = parsers.QUERY_GPU_FIELDS_LEGACY
            result = ctx.run((exe, f"--query-gpu={','.join(fields)}", "--format=csv,nounits"),
                             timeout=ctx.timeout_s)
            failure = None if result.ok else parsers.classify_nvidia_smi_failure(result.stdout + "\n" + result.stderr)
    if not result.ok:
        if result.timed_out:
            return Unavailable(f"nvidia-smi did not answer within {ctx.timeout_s:g}s (killed)",
                               ("nvidia-smi",), "timeout")
        if failure is not None:
            code, line = failure
            lib = parsers.nvml_library_version_from_failure(result.stdout + "\n" + result.stderr)
            extra = f" (NVML library version {lib})" if lib else ""
            return Unavailable(f"nvidia-smi: {line.strip()}{extra}", ("nvidia-smi",), code)
        return Unavailable(result.describe_failure(), ("nvidia-smi",), "smi-failed")
    gpus = parsers.gpus_from_query_csv(result.stdout)
    version = parsers.driver_from_query_csv(result.stdout)
    if version is None:
        return Unavailable("nvidia-smi answered without a driver version", ("nvidia-smi",), "smi-failed")
    # The query interface has no "CUDA Version" field; the table header has it.
    table = ctx.run((exe,), timeout=ctx.timeout_s)
    parsed = parsers.parse_nvidia_smi_table(table.stdout) if table.ok else None
    cuda = parsed.cuda_version if parsed is not None else None
    return DriverInfo(version, cuda, "nvidia-smi"), gpus
