"""CUDA toolkits, loader-visible libraries and cuDNN/NCCL versions, on fixture trees under tmp_path.

Fixture sources: nvcc answers are real captures (tests/data/captures/nvcc/), the toolkit version.json is
tests/data/synthetic/cuda-12.4.1-version.json (hand-written, see its README), the cuDNN headers are the
real `grep CUDNN_MAJOR -A 2` captures, and the real `ldconfig -p` capture is in
tests/data/ldconfig/ (provenance in its README). Strings written in this file are marked
"constructed".
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from envguard._subprocess import CommandResult
from envguard.probes import parsers
from envguard.probes.base import ProbeContext
from envguard.probes.cuda import TOOLKIT_DIRS, parse_ldconfig, probe_component, probe_libraries, probe_toolkits
from envguard.snapshot import ComponentVersion, CudaToolkit, Distribution, SharedLibrary, Unavailable
from tests.fakes import CAPTURES, FakeRunner, capture

DATA = Path(__file__).resolve().parent.parent / "data"
VERSION_JSON_1241 = DATA / "synthetic" / "cuda-12.4.1-version.json"
NVCC_115 = "nvcc/11.5.119-linux.txt"
NVCC_125 = "nvcc/12.5.82-linux.txt"
CUDNN_960 = "cudnn-version-h/cudnn-9.6.0-grep-CUDNN_MAJOR-A2.txt"
CUDNN_821 = "cudnn-version-h/cudnn-8.2.1-grep-CUDNN_MAJOR-A2.txt"
LDCONFIG_DEBIAN12 = DATA / "ldconfig" / "debian12-glibc-2.36-cuda-13.0-toolkit-536-libs.txt"

TOOLKIT_TRIED = ("nvcc on PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", *TOOLKIT_DIRS)


def executable(path: Path, text: str = "#!/bin/sh\nexit 99\n") -> Path:
    """A file ctx.which accepts (unit tests never run it: FakeRunner answers instead)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


@dataclass
class Tree:
    """A probed machine: ``root`` stands for "/", ``bin`` is the PATH folder (on the real filesystem)."""

    root: Path
    bin: Path

    def at(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def file(self, absolute: str, text: str = "") -> Path:
        path = self.at(absolute)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def symlink(self, absolute: str, target: str) -> None:
        """A relative symlink, so it resolves inside the tree."""
        link = self.at(absolute)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)

    def cuda_124(self) -> None:
        """/usr/local/cuda-12.4 with its version.json, and /usr/local/cuda -> cuda-12.4."""
        target = self.at("/usr/local/cuda-12.4/version.json")
        target.parent.mkdir(parents=True)
        shutil.copyfile(VERSION_JSON_1241, target)
        self.symlink("/usr/local/cuda", "cuda-12.4")

    def ctx(self, runner: FakeRunner, **env: str) -> ProbeContext:
        return ProbeContext(run=runner, env={"PATH": str(self.bin), **env}, root=self.root)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    (tmp_path / "root").mkdir()
    (tmp_path / "bin").mkdir()
    return Tree(tmp_path / "root", tmp_path / "bin")


# ---- toolkits -------------------------------------------------------------------------------


def test_nvcc_on_path_cuda_home_and_standard_folder(tree: Tree) -> None:
    tree.cuda_124()
    home_nvcc = executable(tree.at("/opt/cuda-11.5/bin/nvcc"))
    path_nvcc = executable(tree.bin / "nvcc")
    runner = FakeRunner({
        (str(path_nvcc), "--version"): capture(NVCC_125),
        (str(home_nvcc), "--version"): capture(NVCC_115),
    })
    toolkits = probe_toolkits(tree.ctx(runner, CUDA_HOME="/opt/cuda-11.5"))
    assert toolkits == (
        CudaToolkit("12.5", None, "nvcc on PATH", str(path_nvcc), "12.5.82"),
        # NOTE: nvcc_path is where the probe found the file (inside the fixture root); with root "/" the same.
        CudaToolkit("11.5", "/opt/cuda-11.5", "CUDA_HOME (/opt/cuda-11.5/bin/nvcc)", str(home_nvcc), "11.5.119"),
        # /usr/local/cuda and /usr/local/cuda-12.4 are one folder: listed once, under the first name seen
        CudaToolkit("12.4", "/usr/local/cuda", "standard folder (/usr/local/cuda/version.json)", None, "12.4.1"),
    )
    assert runner.calls == [(str(path_nvcc), "--version"), (str(home_nvcc), "--version")]


def test_cuda_home_naming_the_real_folder_wins_over_the_symlink(tree: Tree) -> None:
    tree.cuda_124()
    toolkits = probe_toolkits(tree.ctx(FakeRunner(), CUDA_HOME="/usr/local/cuda-12.4"))
    assert toolkits == (
        CudaToolkit("12.4", "/usr/local/cuda-12.4", "CUDA_HOME (/usr/local/cuda-12.4/version.json)", None, "12.4.1"),
    )


def test_version_json_toolkit_with_its_own_nvcc(tree: Tree) -> None:
    tree.cuda_124()
    executable(tree.at("/usr/local/cuda-12.4/bin/nvcc"))
    runner = FakeRunner()
    toolkits = probe_toolkits(tree.ctx(runner))
    nvcc = str(tree.at("/usr/local/cuda/bin/nvcc"))  # named through the folder it was found by
    assert toolkits == (
        CudaToolkit("12.4", "/usr/local/cuda", "standard folder (/usr/local/cuda/version.json)", nvcc, "12.4.1"),
    )
    assert runner.calls == []  # version.json is enough; nvcc is not run


def test_wrapper_nvcc_and_cuda_home_of_the_same_build_merge(tree: Tree) -> None:
    """The 'wrong nvcc on PATH' post's 11.5 nvcc, seen both on PATH (no toolkit around it) and via CUDA_HOME."""
    tree.cuda_124()
    home_nvcc = executable(tree.at("/opt/cuda-11.5/bin/nvcc"))
    path_nvcc = executable(tree.bin / "nvcc")
    runner = FakeRunner({
        (str(path_nvcc), "--version"): capture(NVCC_115),
        (str(home_nvcc), "--version"): capture(NVCC_115),
    })
    toolkits = probe_toolkits(tree.ctx(runner, CUDA_HOME="/opt/cuda-11.5"))
    assert toolkits == (
        CudaToolkit("11.5", "/opt/cuda-11.5", "nvcc on PATH; CUDA_HOME (/opt/cuda-11.5/bin/nvcc)", str(path_nvcc),
                    "11.5.119"),
        CudaToolkit("12.4", "/usr/local/cuda", "standard folder (/usr/local/cuda/version.json)", None, "12.4.1"),
    )


def test_a_wrapper_its_target_and_the_toolkit_folder_run_nvcc_once(tree: Tree) -> None:
    """/usr/local/bin/nvcc as on this project's CI machine (``exec /usr/local/cuda-13.0/bin/nvcc "$@"``, constructed
    here with the fixture's paths), /usr/local/cuda -> cuda-11.5 and CUDA_HOME: one install, so one nvcc run."""
    real_nvcc = executable(tree.at("/usr/local/cuda-11.5/bin/nvcc"))
    tree.file("/usr/local/cuda-11.5/nvvm/README", "")  # a toolkit root marker
    tree.symlink("/usr/local/cuda", "cuda-11.5")
    wrapper = executable(tree.bin / "nvcc", f'#!/bin/sh\nexec {real_nvcc} "$@"\n')
    runner = FakeRunner({(str(wrapper), "--version"): capture(NVCC_115)})
    toolkits = probe_toolkits(tree.ctx(runner, CUDA_HOME="/usr/local/cuda"))
    assert runner.calls == [(str(wrapper), "--version")]
    assert isinstance(toolkits, tuple) and len(toolkits) == 1
    assert toolkits[0].version == "11.5" and toolkits[0].build == "11.5.119"
    assert toolkits[0].nvcc_path == str(wrapper) and "CUDA_HOME" in toolkits[0].source


def test_version_txt_of_old_toolkits(tree: Tree) -> None:
    tree.file("/usr/local/cuda-10.2/version.txt", "CUDA Version 10.2.89\n")  # constructed, CUDA <= 11.0 layout
    tree.cuda_124()
    toolkits = probe_toolkits(tree.ctx(FakeRunner()))
    assert toolkits == (
        CudaToolkit("12.4", "/usr/local/cuda", "standard folder (/usr/local/cuda/version.json)", None, "12.4.1"),
        CudaToolkit("10.2", "/usr/local/cuda-10.2", "standard folder (/usr/local/cuda-10.2/version.txt)", None,
                    "10.2.89"),
    )


def test_missing_cuda_home_folder_is_skipped(tree: Tree) -> None:
    tree.cuda_124()
    toolkits = probe_toolkits(tree.ctx(FakeRunner(), CUDA_HOME="/opt/cuda-removed", CUDA_PATH=""))
    assert isinstance(toolkits, tuple)
    assert [tk.path for tk in toolkits] == ["/usr/local/cuda"]


def test_failing_or_unreadable_nvcc_gives_no_toolkit(tree: Tree) -> None:
    path_nvcc = executable(tree.bin / "nvcc")
    home_nvcc = executable(tree.at("/opt/cuda-x/bin/nvcc"))
    runner = FakeRunner({
        (str(path_nvcc), "--version"): CommandResult((), 1, "", "nvcc: error while loading shared libraries", 0.01),
        (str(home_nvcc), "--version"): "nvcc fatal   : No input files specified; use option --help for more "
                                       "information\n",  # constructed
    })
    result = probe_toolkits(tree.ctx(runner, CUDA_HOME="/opt/cuda-x"))
    assert isinstance(result, Unavailable)
    assert len(runner.calls) == 2


def test_nothing_found(tree: Tree) -> None:
    runner = FakeRunner()
    assert probe_toolkits(tree.ctx(runner)) == Unavailable(
        "no CUDA toolkit: nvcc is not on PATH, CUDA_HOME/CUDA_PATH unset, no /usr/local/cuda*", TOOLKIT_TRIED
    )
    assert runner.calls == []


# ---- ldconfig -p ----------------------------------------------------------------------------

#: Constructed: the layout of `ldconfig -p` on an Ubuntu 22.04 machine with the driver (libcuda, libnvidia-ml,
#: 32-bit libcuda too), cuDNN 9 and NCCL from NVIDIA's apt repository and a CUDA 12.4 toolkit registered via
#: /etc/ld.so.conf.d. The "OS ABI" annotation is the one older glibc prints for libc.so.6.
LDCONFIG_UBUNTU = """\
11 libs found in cache `/etc/ld.so.cache'
\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1
\tlibnccl.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnccl.so.2
\tlibnccl.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libnccl.so
\tlibcudnn.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so.9
\tlibcudnn.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so
\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12
\tlibcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1
\tlibcuda.so.1 (libc6) => /lib/i386-linux-gnu/libcuda.so.1
\tlibcuda.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so
\tlibc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6
\tld-linux-x86-64.so.2 (libc6,x86-64) => /lib64/ld-linux-x86-64.so.2
Cache generated by: ldconfig (Ubuntu GLIBC 2.35-0ubuntu3.8) stable release version 2.35
"""


def test_parse_ldconfig_constructed_ubuntu_layout() -> None:
    assert parse_ldconfig(LDCONFIG_UBUNTU) == [
        ("libnvidia-ml.so.1", "/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
        ("libnccl.so.2", "/lib/x86_64-linux-gnu/libnccl.so.2"),
        ("libnccl.so", "/lib/x86_64-linux-gnu/libnccl.so"),
        ("libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9"),
        ("libcudnn.so", "/lib/x86_64-linux-gnu/libcudnn.so"),
        ("libcudart.so.12", "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12"),
        ("libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so.1"),
        ("libcuda.so.1", "/lib/i386-linux-gnu/libcuda.so.1"),
        ("libcuda.so", "/lib/x86_64-linux-gnu/libcuda.so"),
        ("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"),
        ("ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2"),
    ]


def test_parse_ldconfig_real_capture() -> None:
    text = LDCONFIG_DEBIAN12.read_text(encoding="utf-8")
    pairs = parse_ldconfig(text)
    assert text.splitlines()[0] == "536 libs found in cache `/etc/ld.so.cache'"
    assert len(pairs) == 536
    assert pairs[0] == ("libz3.so.4", "/lib/x86_64-linux-gnu/libz3.so.4")
    assert pairs[-1] == ("ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
    cuda = [p for p in pairs if p[1].startswith("/usr/local/cuda-13.0/")]
    assert ("libcudart.so.13", "/usr/local/cuda-13.0/lib/libcudart.so.13") in cuda
    assert len(cuda) == 12


def test_parse_ldconfig_ignores_other_text() -> None:
    assert parse_ldconfig("") == []
    assert parse_ldconfig("ldconfig: Can't open cache file /etc/ld.so.cache\n: No such file or directory\n") == []


# ---- libraries ------------------------------------------------------------------------------


@pytest.fixture
def libs_dir(tree: Tree) -> Path:
    """/opt/libs: libcudnn.so.8 -> libcudnn.so.8.0.3 (file), libcudart.so.11.0, and names that are skipped."""
    tree.file("/opt/libs/libcudnn.so.8.0.3", "ELF")
    tree.symlink("/opt/libs/libcudnn.so.8", "libcudnn.so.8.0.3")
    tree.symlink("/opt/libs/libcudnn.so", "libcudnn.so.8")  # the -dev link: not a soname
    tree.file("/opt/libs/libcudart.so.11.0", "ELF")
    tree.file("/opt/libs/libcudnn_ops_infer.so.8", "ELF")  # not one of the reported families
    tree.file("/opt/libs/libnvinfer.so.8", "ELF")
    return tree.at("/opt/libs")


def test_ld_library_path_libraries(tree: Tree, libs_dir: Path) -> None:
    runner = FakeRunner()
    libs = probe_libraries(tree.ctx(runner, LD_LIBRARY_PATH="/opt/libs:/does/not/exist::"), ())
    cudart = SharedLibrary("cudart", "libcudart.so.11.0", str(libs_dir / "libcudart.so.11.0"), "LD_LIBRARY_PATH",
                           "11.0")
    cudnn = SharedLibrary("cudnn", "libcudnn.so.8", str(libs_dir / "libcudnn.so.8"), "LD_LIBRARY_PATH", "8.0.3")
    assert libs[:2] == (cudart, cudnn)
    assert {lib.soname for lib in libs} <= {"libcudart.so.11.0", "libcudnn.so.8", "libcudnn.so.8.0.3"}
    assert runner.calls == []  # no ldconfig on PATH or at /sbin/ldconfig in this tree


def test_ld_library_path_lists_each_library_once(tree: Tree, libs_dir: Path) -> None:
    libs = probe_libraries(tree.ctx(FakeRunner(), LD_LIBRARY_PATH="/opt/libs"), ())
    assert [lib.soname for lib in libs] == ["libcudart.so.11.0", "libcudnn.so.8"]


def test_wheel_libraries(tree: Tree, tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    wheel_files = (
        ("nvidia-cudnn-cu12", "9.1.0.70", str(site / "nvidia/cudnn/lib/libcudnn.so.9")),
        ("nvidia-cudnn-cu12", "9.1.0.70", str(site / "nvidia/cudnn/lib/libcudnn_ops.so.9")),
        ("nvidia-cudnn-cu12", "9.1.0.70", str(site / "nvidia/cudnn/include/cudnn_version.h")),
        ("nvidia-nccl-cu12", "2.21.5", str(site / "nvidia/nccl/lib/libnccl.so.2")),
        ("nvidia-cuda-runtime-cu12", "12.4.127", str(site / "nvidia/cuda_runtime/lib/libcudart.so.12")),
        ("nvidia-cublas-cu12", "12.4.5.8", str(site / "nvidia/cublas/lib/libcublasLt.so.12")),
    )
    libs = probe_libraries(tree.ctx(FakeRunner()), wheel_files)
    assert libs == (
        SharedLibrary("cudnn", "libcudnn.so.9", wheel_files[0][2], "wheel:nvidia-cudnn-cu12", None),
        SharedLibrary("nccl", "libnccl.so.2", wheel_files[3][2], "wheel:nvidia-nccl-cu12", None),
        SharedLibrary("cudart", "libcudart.so.12", wheel_files[4][2], "wheel:nvidia-cuda-runtime-cu12", None),
    )


def test_ldconfig_cache_libraries(tree: Tree, tmp_path: Path) -> None:
    ldconfig = executable(tree.bin / "ldconfig")
    system = tmp_path / "system-libs"  # real files, so the probe can follow the links
    system.mkdir()
    (system / "libcudnn.so.9.1.0").write_text("ELF", encoding="utf-8")
    (system / "libcudnn.so.9").symlink_to("libcudnn.so.9.1.0")
    (system / "libcuda.so.550.54.15").write_text("ELF", encoding="utf-8")
    (system / "libcuda.so.1").symlink_to("libcuda.so.550.54.15")
    answer = (  # constructed, in the layout of the real capture
        "4 libs found in cache `/etc/ld.so.cache'\n"
        f"\tlibcudnn.so.9 (libc6,x86-64) => {system}/libcudnn.so.9\n"
        f"\tlibcudnn.so (libc6,x86-64) => {system}/libcudnn.so\n"
        f"\tlibcuda.so.1 (libc6,x86-64) => {system}/libcuda.so.1\n"
        f"\tlibz.so.1 (libc6,x86-64) => {system}/libz.so.1\n"
        "Cache generated by: ldconfig (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36\n"
    )
    runner = FakeRunner({(str(ldconfig), "-p"): answer})
    libs = probe_libraries(tree.ctx(runner), ())
    assert libs == (
        SharedLibrary("cudnn", "libcudnn.so.9", f"{system}/libcudnn.so.9", "ldconfig", "9.1.0"),
        SharedLibrary("cuda", "libcuda.so.1", f"{system}/libcuda.so.1", "ldconfig", "550.54.15"),
    )
    assert runner.calls == [(str(ldconfig), "-p")]


def test_ldconfig_of_the_real_capture(tree: Tree) -> None:
    ldconfig = executable(tree.bin / "ldconfig")
    runner = FakeRunner({(str(ldconfig), "-p"): LDCONFIG_DEBIAN12.read_text(encoding="utf-8")})
    libs = probe_libraries(tree.ctx(runner), ())
    assert [(lib.name, lib.soname, lib.path, lib.source) for lib in libs] == [
        ("cudart", "libcudart.so.13", "/usr/local/cuda-13.0/lib/libcudart.so.13", "ldconfig"),
    ]


def test_sbin_ldconfig_is_used_when_not_on_path(tree: Tree) -> None:
    executable(tree.at("/sbin/ldconfig"))
    runner = FakeRunner({("/sbin/ldconfig", "-p"): CommandResult((), 1, "", "ldconfig: permission denied", 0.0)})
    assert probe_libraries(tree.ctx(runner), ()) == ()
    assert runner.calls == [("/sbin/ldconfig", "-p")]


def test_search_order_ld_library_path_then_ldconfig_then_wheels(tree: Tree, libs_dir: Path, tmp_path: Path) -> None:
    ldconfig = executable(tree.bin / "ldconfig")
    runner = FakeRunner({(str(ldconfig), "-p"): LDCONFIG_UBUNTU})
    wheel = ("nvidia-cudnn-cu12", "9.1.0.70", str(tmp_path / "site/nvidia/cudnn/lib/libcudnn.so.9"))
    libs = probe_libraries(tree.ctx(runner, LD_LIBRARY_PATH="/opt/libs"), (wheel,))
    sources = [lib.source for lib in libs]
    first_ldconfig = sources.index("ldconfig")
    assert set(sources[:first_ldconfig]) == {"LD_LIBRARY_PATH"}
    assert sources[-1] == "wheel:nvidia-cudnn-cu12"
    assert [lib.soname for lib in libs if lib.source == "ldconfig"] == [
        "libnccl.so.2", "libcudnn.so.9", "libcudart.so.12", "libcuda.so.1", "libcuda.so.1",
    ]


# ---- cuDNN / NCCL components ----------------------------------------------------------------


def test_cudnn_header_and_wheel_both_listed(tree: Tree) -> None:
    tree.file("/usr/include/cudnn_version.h", capture(CUDNN_960))
    packages = (Distribution("torch", "2.5.1"), Distribution("nvidia-cudnn-cu12", "9.1.0.70"))
    result = probe_component(tree.ctx(FakeRunner()), "cudnn", "cudnn_version.h", parsers.parse_cudnn_version_header,
                             (), "nvidia-cudnn-cu", packages, ())
    assert result == (
        ComponentVersion("9.6.0", "header /usr/include/cudnn_version.h", "/usr/include/cudnn_version.h"),
        ComponentVersion("9.1.0.70", "wheel nvidia-cudnn-cu12"),
    )


def test_cudnn_header_in_toolkit_seen_through_symlink_is_listed_once(tree: Tree) -> None:
    tree.cuda_124()
    tree.file("/usr/local/cuda-12.4/include/cudnn_version.h", capture(CUDNN_821))
    toolkit = CudaToolkit("12.4", "/usr/local/cuda-12.4", "standard folder", None, "12.4.1")
    result = probe_component(tree.ctx(FakeRunner()), "cudnn", "cudnn_version.h", parsers.parse_cudnn_version_header,
                             (), "nvidia-cudnn-cu", (), (toolkit,))
    assert result == (
        ComponentVersion("8.2.1", "header /usr/local/cuda/include/cudnn_version.h",
                         "/usr/local/cuda/include/cudnn_version.h"),
    )


def test_cudnn_from_cudnn_path_and_loader_libraries(tree: Tree) -> None:
    tree.file("/opt/cudnn-8.2/include/cudnn_version.h", capture(CUDNN_821))
    libraries = (
        SharedLibrary("cudnn", "libcudnn.so.8", "/opt/libs/libcudnn.so.8", "LD_LIBRARY_PATH", "8.0.3"),
        SharedLibrary("cudnn", "libcudnn.so.9", "/x/nvidia/cudnn/lib/libcudnn.so.9", "wheel:nvidia-cudnn-cu12",
                      "9.1.0"),
        SharedLibrary("cudnn", "libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9", "ldconfig", None),
        SharedLibrary("nccl", "libnccl.so.2", "/opt/libs/libnccl.so.2.21.5", "LD_LIBRARY_PATH", "2.21.5"),
    )
    ctx = ProbeContext(run=FakeRunner(), env={"PATH": str(tree.bin), "CUDNN_PATH": "/opt/cudnn-8.2"}, root=tree.root)
    result = probe_component(ctx, "cudnn", "cudnn_version.h", parsers.parse_cudnn_version_header, libraries,
                             "nvidia-cudnn-cu", (), ())
    assert result == (
        ComponentVersion("8.2.1", "header /opt/cudnn-8.2/include/cudnn_version.h",
                         "/opt/cudnn-8.2/include/cudnn_version.h"),
        ComponentVersion("8.0.3", "LD_LIBRARY_PATH libcudnn.so.8", "/opt/libs/libcudnn.so.8"),
    )


def test_nccl_header_and_wheel(tree: Tree) -> None:
    # constructed: the three defines of a NCCL 2.21.5 nccl.h
    tree.file("/usr/include/nccl.h", "#define NCCL_MAJOR 2\n#define NCCL_MINOR 21\n#define NCCL_PATCH 5\n"
                                     '#define NCCL_SUFFIX ""\n')
    result = probe_component(tree.ctx(FakeRunner()), "nccl", "nccl.h", parsers.parse_nccl_header, (),
                             "nvidia-nccl-cu", (Distribution("nvidia-nccl-cu12", "2.20.5"),), ())
    assert result == (
        ComponentVersion("2.21.5", "header /usr/include/nccl.h", "/usr/include/nccl.h"),
        ComponentVersion("2.20.5", "wheel nvidia-nccl-cu12"),
    )


def test_cudnn_nothing_found(tree: Tree) -> None:
    tree.file("/usr/include/cudnn_version.h", "/* truncated */\n")
    result = probe_component(tree.ctx(FakeRunner()), "cudnn", "cudnn_version.h", parsers.parse_cudnn_version_header,
                             (), "nvidia-cudnn-cu", (Distribution("nvidia-cublas-cu12", "12.4.5.8"),), ())
    assert result == Unavailable(
        "no cudnn: no cudnn_version.h header, no libcudnn library on the loader path, no nvidia-cudnn-cu* wheel",
        ("headers", "ldconfig", "LD_LIBRARY_PATH", "wheels"),
    )


def test_capture_files_exist() -> None:
    for relpath in (NVCC_115, NVCC_125, CUDNN_960, CUDNN_821):
        assert os.path.isfile(CAPTURES / relpath), relpath
    assert LDCONFIG_DEBIAN12.is_file()
