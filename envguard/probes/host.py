"""Host facts: OS, distro, kernel, arch, glibc, container/WSL, CPUs and memory."""

from __future__ import annotations

import os
import platform

from envguard.probes.base import ProbeContext
from envguard.snapshot import HostInfo


def probe_host(ctx: ProbeContext) -> HostInfo:
    """Describe the machine envguard runs on; anything unreadable is left as None."""
    system = platform.system() or "unknown"
    kernel = platform.release() or None
    return HostInfo(
        system=system,
        arch=platform.machine() or "unknown",
        kernel=kernel,
        distro=_distro(ctx),
        glibc=_glibc(),
        container=detect_container(ctx),
        wsl=_is_wsl(ctx, kernel),
        cpu_count=_cpu_count(),
        memory_bytes=parse_meminfo(ctx.read_text("/proc/meminfo") or ""),
        source="platform, /etc/os-release, /proc",
    )


def parse_os_release(text: str) -> str | None:
    """PRETTY_NAME (or NAME VERSION_ID) from an os-release file."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip('"').strip("'")
    if values.get("PRETTY_NAME"):
        return values["PRETTY_NAME"]
    name = values.get("NAME")
    return f"{name} {values.get('VERSION_ID', '')}".strip() if name else None


def parse_meminfo(text: str) -> int | None:
    """MemTotal in bytes from /proc/meminfo."""
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                return int(parts[1]) * 1024
    return None


def detect_container(ctx: ProbeContext) -> str | None:
    """Name the container runtime when envguard runs inside one."""
    if ctx.env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if ctx.path("/run/.containerenv").exists():
        return "podman"
    if ctx.path("/.dockerenv").exists():
        return "docker"
    cgroup = ctx.read_text("/proc/1/cgroup") or ""
    for marker in ("kubepods", "docker", "containerd", "lxc"):
        if marker in cgroup:
            return "kubernetes" if marker == "kubepods" else marker
    container_env = ctx.env.get("container")
    return container_env or None


def _distro(ctx: ProbeContext) -> str | None:
    text = ctx.read_text("/etc/os-release") or ctx.read_text("/usr/lib/os-release")
    return parse_os_release(text) if text else None


def _glibc() -> str | None:
    try:
        value = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        return None
    if value and value.startswith("glibc "):
        return value.split(" ", 1)[1]
    return None


def _is_wsl(ctx: ProbeContext, kernel: str | None) -> bool:
    if ctx.env.get("WSL_DISTRO_NAME"):
        return True
    osrelease = ctx.read_text("/proc/sys/kernel/osrelease") or kernel or ""
    return "microsoft" in osrelease.lower()


def _cpu_count() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()
