"""The Formatter protocol and the environment summary every format shares."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Protocol

from envguard.findings import Report, Severity
from envguard.snapshot import (
    CUDNN_MAJOR_KEY,
    NGC_RELEASE_KEY,
    NOT_REPORTED,
    PythonInfo,
    Snapshot,
    Unavailable,
    stated_parts,
)

RESULT_VERSION = 1


class Formatter(Protocol):
    """Renders a report as text; never prints."""

    name: str

    def format(self, report: Report, *, command: str, exit_code: int) -> str:
        """Render ``report`` (``exit_code`` is what the CLI will exit with)."""
        ...


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One line of the environment summary: a label, what was found, and the source."""

    label: str
    value: str
    source: str


def _short(items: list[str], limit: int = 6) -> list[str]:
    """At most ``limit`` items, then "+N more"."""
    return items if len(items) <= limit else [*items[:limit], f"+{len(items) - limit} more"]


def verdict(report: Report, exit_code: int) -> str:
    """The one-line verdict that opens every human-readable report."""
    errors, warnings, infos = (report.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    counts = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}, {infos} info"
    status = "FAIL" if exit_code else ("OK" if not errors and not warnings else "OK with warnings")
    subject = report.snapshot.origin
    return f"envguard check: {status} — {counts} ({subject})"


def environment_rows(snapshot: Snapshot) -> list[SummaryRow]:  # reason: one branch per fact
    """The facts a reader needs first, each with its source; missing ones say why."""
    rows: list[SummaryRow] = []
    report = snapshot.from_report

    def missing(fact: Unavailable, probed: str) -> str:
        # NOTE: a pasted report that does not mention a fact says nothing about it: "not reported", never "none".
        return "not reported" if fact.code == NOT_REPORTED else probed

    host = snapshot.host
    extras = [x for x in (host.distro, f"kernel {host.kernel}" if host.kernel else None,
                          f"glibc {host.glibc}" if host.glibc else None,
                          f"in {host.container}" if host.container else None, "WSL" if host.wsl else None) if x]
    known = [x for x in (host.system, host.arch) if x and x not in ("unknown", "not reported")]
    head = " ".join(known) or ("not reported" if report else "unknown")
    rows.append(SummaryRow("Host", head + (f" ({', '.join(extras)})" if extras else ""), host.source))
    ngc = snapshot.environment.get(NGC_RELEASE_KEY) if report else None
    if ngc:
        image, named_at = stated_parts(ngc)
        rows.append(SummaryRow("Container image", f"nvcr.io/nvidia/{image} (NGC release)", named_at or "report"))
    driver = snapshot.driver
    if isinstance(driver, Unavailable):
        rows.append(SummaryRow("NVIDIA driver", missing(driver, f"none — {driver.reason}"), ", ".join(driver.tried)))
    else:
        text = driver.version or "version unknown"
        if driver.cuda_driver_version:
            text += f" (supports CUDA ≤ {driver.cuda_driver_version})"
        if driver.kernel_module_version and driver.kernel_module_version != driver.version:
            text += f", kernel module {driver.kernel_module_version}"
        rows.append(SummaryRow("NVIDIA driver", text, driver.source))
    gpus = snapshot.gpus
    if isinstance(gpus, Unavailable):
        rows.append(SummaryRow("GPUs", missing(gpus, f"none — {gpus.reason}"), ", ".join(gpus.tried)))
    elif not gpus:
        rows.append(SummaryRow("GPUs", "none (the driver lists no devices)", "driver"))
    for gpu in () if isinstance(gpus, Unavailable) else gpus:
        details = [f"compute capability {gpu.compute_capability}" if gpu.compute_capability else None,
                   f"{gpu.memory_total_mib} MiB" if gpu.memory_total_mib else None,
                   f"MIG {gpu.mig_mode}" if gpu.mig_mode == "Enabled" else None,
                   f"PCIe gen{gpu.pcie_link_gen} x{gpu.pcie_link_width}" if gpu.pcie_link_gen else None]
        detail = ", ".join(d for d in details if d)
        rows.append(SummaryRow(f"GPU {gpu.index}", f"{gpu.name} ({detail})" if detail else gpu.name, gpu.source))
    toolkits = snapshot.cuda_toolkits
    if isinstance(toolkits, Unavailable):
        rows.append(SummaryRow("CUDA toolkit", missing(toolkits, f"none — {toolkits.reason}"),
                               ", ".join(toolkits.tried) or "nvcc, CUDA_HOME, /usr/local/cuda*"))
    else:
        for tk in toolkits:
            where = tk.path or tk.nvcc_path
            rows.append(SummaryRow("CUDA toolkit", f"{tk.build or tk.version}" + (f" at {where}" if where else ""),
                                   tk.source))
    loader = [lib for lib in snapshot.libraries if not lib.source.startswith("wheel:")]
    if loader:
        by_source: dict[str, list[str]] = {}
        for lib in loader:
            by_source.setdefault(lib.source, []).append(lib.soname + (f" ({lib.version})" if lib.version else ""))
        for source, names in by_source.items():
            rows.append(SummaryRow("CUDA libraries", ", ".join(_short(names)), source))
    wheels = [d for d in snapshot.package_map().values()
              if d.name.lower().replace("_", "-").startswith("nvidia-") and "ml-py" not in d.name.lower()]
    if wheels:
        names = [f"{d.name} {d.version}" for d in sorted(wheels, key=lambda d: d.name.lower())]
        where = next((d.source for d in wheels if d.source), snapshot.origin) if report else \
            "target interpreter distributions"
        rows.append(SummaryRow("NVIDIA wheels", ", ".join(_short(names)), where))
    for label, component in (("cuDNN", snapshot.cudnn), ("NCCL", snapshot.nccl)):
        if label == "cuDNN" and isinstance(component, Unavailable) and CUDNN_MAJOR_KEY in snapshot.environment:
            major, where = stated_parts(snapshot.environment[CUDNN_MAJOR_KEY])
            rows.append(SummaryRow(label, f"{major}.x (only the major is reported)", where))
        elif isinstance(component, Unavailable):
            rows.append(SummaryRow(label, missing(component, "not found"), ", ".join(component.tried)))
        else:
            rows.extend(SummaryRow(label, c.version, c.source) for c in component)
    python = snapshot.python
    if isinstance(python, PythonInfo):
        env = " (virtualenv)" if python.virtualenv else f" (conda {python.conda_prefix})" if python.conda_prefix else ""
        rows.append(SummaryRow("Python", f"{python.implementation} {python.version} {python.executable}{env}".strip(),
                               python.source))
    else:
        rows.append(SummaryRow("Python", missing(python, f"unknown — {python.reason}"), ", ".join(python.tried)))
    if not snapshot.frameworks and report:
        rows.append(SummaryRow("Frameworks", "not reported", "report"))
    elif not snapshot.frameworks:
        rows.append(SummaryRow("Frameworks", "none of torch, tensorflow, jax, paddle is installed in this "
                               "interpreter (inspect another with --python PATH)", "distributions"))
    for fw in snapshot.frameworks:
        # NOTE: a GPU build whose CUDA (or ROCm) version is not known says so, never "CUDA None"
        kinds = {"cuda": f"CUDA {fw.cuda or 'build, version unknown'}",
                 "rocm": f"ROCm {fw.cuda or 'build, version unknown'}", "cpu": "CPU-only"}
        build = kinds.get(fw.accelerator or "", "build unknown")
        if fw.accelerator == "cuda" and fw.cudnn:
            build += f", cuDNN {fw.cudnn}"
        runtime = fw.runtime
        if isinstance(runtime, Unavailable):
            build += f"; import failed: {runtime.reason}"
        elif runtime is not None:
            if runtime.error:
                build += f"; runtime error: {runtime.error}"
            else:
                build += f"; GPU usable: {'yes' if runtime.gpu_available else 'no'}"
                if runtime.devices:
                    build += f" ({', '.join(runtime.devices[:4])})"
        # NOTE: a framework a report names without its release ("import jax", a Jetson wheel's site path) has
        # UNKNOWN_VERSION: say so in words
        version = fw.version_label(report)
        rows.append(SummaryRow(fw.name, f"{version} ({build})", f"{fw.distribution}: {fw.source}"))
    if report:
        # NOTE: what else the report names of the GPU stack (transformers, ctranslate2, onnxruntime-gpu ...): said, so
        # that a report naming only these shows what was read
        shown = {fw.distribution.lower() for fw in snapshot.frameworks} | {fw.name for fw in snapshot.frameworks}
        listed = [d for name, d in sorted(snapshot.package_map().items())
                  if name not in shown and not name.startswith("nvidia-") and name not in ("numpy", "pytorch")]
        if listed:
            rows.append(SummaryRow("Packages", ", ".join(_short([f"{d.name} {d.version}" for d in listed])),
                                   next((d.source for d in listed if d.source), snapshot.origin)))
    return rows


def finish(buffer: io.StringIO) -> str:
    """A rendered text without the trailing padding rich leaves on table and wrapped lines."""
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))
