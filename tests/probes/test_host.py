"""Host facts: os-release, meminfo, container and WSL detection, on fixture trees under tmp_path.

Texts marked "real" were copied from this project's development machine (Debian 12 in a container);
the others are constructed in the layout of the files they imitate.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pytest

from envguard.probes.base import ProbeContext
from envguard.probes.host import detect_container, parse_meminfo, parse_os_release, probe_host
from envguard.snapshot import HostInfo
from tests.fakes import FakeRunner

#: real: /etc/os-release of the development machine
DEBIAN_12 = """\
PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
"""

#: real: the first lines of /proc/meminfo of the development machine
MEMINFO = """\
MemTotal:       24684084 kB
MemFree:        21524548 kB
MemAvailable:   23957512 kB
"""

#: real: /proc/1/cgroup of the development machine (cgroup v1 hierarchy, no container marker in it)
CGROUP_PLAIN = """\
9:name=systemd:/
8:pids:/
7:blkio:/
6:freezer:/
5:devices:/
4:memory:/
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
"""

#: constructed: cgroup v1 of a pod's container
CGROUP_KUBEPODS = """\
12:memory:/kubepods/burstable/pod8f3c2f9e-6a1d-4c1e-9d7b-2f0c5a1e7b3d/5e0bd1b4c7a3f2e19d8c6b5a4f3e2d1c0b9a8f7e
11:cpu,cpuacct:/kubepods/burstable/pod8f3c2f9e-6a1d-4c1e-9d7b-2f0c5a1e7b3d/5e0bd1b4c7a3f2e19d8c6b5a4f3e2d1c0b9a8f7e
0::/
"""

#: constructed: cgroup v1 of a plain Docker container
CGROUP_DOCKER = """\
12:memory:/docker/3f1e2d4c5b6a79880f1e2d3c4b5a69788f0e1d2c3b4a59687f0e1d2c3b4a5968
0::/
"""


def ctx_for(root: Path, **env: str) -> ProbeContext:
    return ProbeContext(run=FakeRunner(), env={"PATH": str(root / "no-bin"), **env}, root=root)


def put(root: Path, absolute: str, text: str = "") -> None:
    path = root / absolute.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# ---- os-release -----------------------------------------------------------------------------


def test_os_release_pretty_name() -> None:
    assert parse_os_release(DEBIAN_12) == "Debian GNU/Linux 12 (bookworm)"


def test_os_release_name_and_version_id_without_pretty_name() -> None:
    text = "# constructed\nNAME='Rocky Linux'\nVERSION_ID=\"9.4\"\n\nID=rocky\n"
    assert parse_os_release(text) == "Rocky Linux 9.4"
    assert parse_os_release("NAME=Alpine Linux\n") == "Alpine Linux"


@pytest.mark.parametrize("text", ["", "ID=debian\n", "garbage without equals\n", 'PRETTY_NAME=""\n'])
def test_os_release_without_a_name(text: str) -> None:
    assert parse_os_release(text) is None


# ---- meminfo --------------------------------------------------------------------------------


def test_meminfo_total_in_bytes() -> None:
    assert parse_meminfo(MEMINFO) == 24684084 * 1024


@pytest.mark.parametrize("text", ["", "MemFree:        21524548 kB\n", "MemTotal:\n", "MemTotal: lots kB\n"])
def test_meminfo_without_a_total(text: str) -> None:
    assert parse_meminfo(text) is None


# ---- containers -----------------------------------------------------------------------------


def test_bare_machine(tmp_path: Path) -> None:
    put(tmp_path, "/proc/1/cgroup", CGROUP_PLAIN)
    assert detect_container(ctx_for(tmp_path)) is None


def test_dockerenv(tmp_path: Path) -> None:
    put(tmp_path, "/.dockerenv")
    put(tmp_path, "/proc/1/cgroup", CGROUP_PLAIN)
    assert detect_container(ctx_for(tmp_path)) == "docker"


def test_kubernetes_service_host_wins_over_dockerenv(tmp_path: Path) -> None:
    put(tmp_path, "/.dockerenv")
    assert detect_container(ctx_for(tmp_path, KUBERNETES_SERVICE_HOST="10.96.0.1")) == "kubernetes"


def test_podman_containerenv(tmp_path: Path) -> None:
    put(tmp_path, "/run/.containerenv", 'engine="podman-4.9.3"\n')
    assert detect_container(ctx_for(tmp_path)) == "podman"


@pytest.mark.parametrize(("cgroup", "expected"), [(CGROUP_KUBEPODS, "kubernetes"), (CGROUP_DOCKER, "docker")])
def test_cgroup_markers(tmp_path: Path, cgroup: str, expected: str) -> None:
    put(tmp_path, "/proc/1/cgroup", cgroup)
    assert detect_container(ctx_for(tmp_path)) == expected


def test_container_env_variable(tmp_path: Path) -> None:
    assert detect_container(ctx_for(tmp_path, container="systemd-nspawn")) == "systemd-nspawn"
    assert detect_container(ctx_for(tmp_path, container="")) is None


# ---- probe_host: WSL and the whole record ---------------------------------------------------


@pytest.mark.parametrize(
    ("osrelease", "wsl"),
    [
        ("5.15.167.4-microsoft-standard-WSL2\n", True),  # WSL2 kernel
        ("4.4.0-19041-Microsoft\n", True),  # WSL1
        ("6.18.44-fc-v669\n", False),  # real: the development machine's kernel
        ("6.8.0-49-generic\n", False),
    ],
)
def test_wsl_from_proc_osrelease(tmp_path: Path, osrelease: str, wsl: bool) -> None:
    put(tmp_path, "/proc/sys/kernel/osrelease", osrelease)
    assert probe_host(ctx_for(tmp_path)).wsl is wsl


def test_wsl_distro_name_variable(tmp_path: Path) -> None:
    put(tmp_path, "/proc/sys/kernel/osrelease", "6.8.0-49-generic\n")
    assert probe_host(ctx_for(tmp_path, WSL_DISTRO_NAME="Ubuntu-22.04")).wsl is True


def test_probe_host_record(tmp_path: Path) -> None:
    put(tmp_path, "/etc/os-release", DEBIAN_12)
    put(tmp_path, "/proc/meminfo", MEMINFO)
    put(tmp_path, "/proc/sys/kernel/osrelease", "6.18.44-fc-v669\n")
    put(tmp_path, "/proc/1/cgroup", CGROUP_PLAIN)
    put(tmp_path, "/.dockerenv")
    libc = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else None
    host = probe_host(ctx_for(tmp_path))
    assert host == HostInfo(
        system=platform.system(),
        arch=platform.machine(),
        kernel=platform.release(),
        distro="Debian GNU/Linux 12 (bookworm)",
        glibc=libc.split(" ", 1)[1] if libc and libc.startswith("glibc ") else None,
        container="docker",
        wsl=False,
        cpu_count=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        memory_bytes=24684084 * 1024,
        source="platform, /etc/os-release, /proc",
    )


def test_probe_host_usr_lib_os_release_fallback_and_missing_files(tmp_path: Path) -> None:
    put(tmp_path, "/usr/lib/os-release", DEBIAN_12)
    put(tmp_path, "/proc/sys/kernel/osrelease", "6.8.0-49-generic\n")
    host = probe_host(ctx_for(tmp_path))
    assert host.distro == "Debian GNU/Linux 12 (bookworm)"
    assert host.memory_bytes is None
    assert host.container is None
