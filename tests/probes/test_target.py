"""The target interpreter: decoding _inspect_target.py / _deep_framework.py documents, and running them for real.

The documents below are constructed in the shape _inspect_target.py prints. Requires-Dist lines of torch
2.5.1+cu124 follow that wheel's metadata (only some lines kept); the generated version files
(torch/version.py, torchvision/version.py, tensorflow/python/platform/build_info.py,
paddle/version/__init__.py) follow the layout those projects generate. Slow tests run the real scripts.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from envguard import _subprocess
from envguard._subprocess import CommandResult
from envguard.errors import TargetPythonError
from envguard.probes.base import ProbeContext
from envguard.probes.target import (
    TargetReport,
    attach_runtime,
    decode_target_report,
    deep_reports,
    frameworks_from,
    inspect_target,
    pinned,
    runtime_from,
)
from envguard.resources import script_source
from envguard.snapshot import Distribution, FrameworkBuild, PythonInfo, RuntimeReport, Unavailable
from tests.fakes import FakeRunner

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python"
MARKER = 'platform_system == "Linux" and platform_machine == "x86_64"'

TORCH_251_REQUIRES = [
    "filelock",
    "typing-extensions>=4.8.0",
    "networkx",
    "jinja2",
    "fsspec",
    f"nvidia-cuda-nvrtc-cu12==12.4.127; {MARKER}",
    f"nvidia-cuda-runtime-cu12==12.4.127; {MARKER}",
    f"nvidia-cudnn-cu12==9.1.0.70; {MARKER}",
    f"nvidia-cublas-cu12==12.4.5.8; {MARKER}",
    f"nvidia-nccl-cu12==2.21.5; {MARKER}",
    f"nvidia-nvjitlink-cu12==12.4.127; {MARKER}",
    f'triton==3.1.0; {MARKER} and python_version < "3.13"',
    'sympy==1.13.1; python_version >= "3.9"',
    'opt-einsum>=3.3; extra == "opt-einsum"',
    'optree>=0.12.0; extra == "optree"',
]

PYTHON_DOC = {
    "executable": "/home/u/venv/bin/python",
    "version": "3.11.9",
    "implementation": "CPython",
    "platform": "linux",
    "machine": "x86_64",
    "prefix": "/home/u/venv",
    "base_prefix": "/usr",
    "virtualenv": True,
    "conda_prefix": None,
    "free_threaded": False,
}


def document(
    distributions: list[dict[str, Any]],
    frameworks: dict[str, Any] | None = None,
    wheel_files: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """A document as _inspect_target.py prints it, round-tripped through JSON text."""
    doc = {
        "inspect_version": 1,
        "python": PYTHON_DOC,
        "distributions": distributions,
        "wheel_files": wheel_files or [],
        "frameworks": frameworks or {},
    }
    loaded: dict[str, Any] = json.loads(json.dumps(doc))
    return loaded


def dist(name: str, version: str, requires: list[str] | None = None) -> dict[str, Any]:
    return {"name": name, "version": version, "requires": requires or []}


SITE = "/home/u/venv/lib/python3.11/site-packages"


# ---- decode_target_report -------------------------------------------------------------------


def test_torch_251_cu124_with_wheel_pins_and_torchvision() -> None:
    doc = document(
        [
            dist("torch", "2.5.1+cu124", TORCH_251_REQUIRES),
            dist("torchvision", "0.20.1+cu124", ["numpy", "torch==2.5.1", "pillow!=8.3.*,>=5.3.0"]),
            dist("nvidia-cudnn-cu12", "9.1.0.70", ["nvidia-cublas-cu12"]),
            dist("Jinja2", "3.1.4", ["MarkupSafe>=2.0"]),
        ],
        {
            "torch": {"dir": f"{SITE}/torch", "version_py": {
                "__all__": ["__version__", "debug", "cuda", "git_version", "hip"],
                "__version__": "2.5.1+cu124", "debug": False, "cuda": "12.4",
                "git_version": "a8d6afb511a69687bbb2b7e88a3cf67917e1697e", "hip": None}},
            "torchvision": {"dir": f"{SITE}/torchvision", "version_py": {
                "__version__": "0.20.1+cu124", "git_version": "3ac97aa9120137381ed1060f37237e44485ac2aa"}},
        },
        [{"dist": "nvidia-cudnn-cu12", "version": "9.1.0.70", "path": f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"}],
    )
    report = decode_target_report(doc)
    assert report.python == PythonInfo("/home/u/venv/bin/python", "3.11.9", "CPython", "linux", "x86_64",
                                       "/home/u/venv", "/usr", True, None, False)
    assert [d.name for d in report.packages] == ["Jinja2", "nvidia-cudnn-cu12", "torch", "torchvision"]
    assert report.packages[2] == Distribution("torch", "2.5.1+cu124", tuple(TORCH_251_REQUIRES))
    assert report.wheel_files == (("nvidia-cudnn-cu12", "9.1.0.70", f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"),)
    assert report.frameworks == (
        FrameworkBuild(name="torch", distribution="torch", version="2.5.1+cu124", accelerator="cuda", cuda="12.4",
                       cudnn="9.1.0.70", nccl="2.21.5", source="torch/version.py + wheel Requires-Dist"),
        FrameworkBuild(name="torchvision", distribution="torchvision", version="0.20.1+cu124", accelerator="cuda",
                       cuda="12.4", cudnn=None, source="torchvision/version.py"),
    )


def test_torch_2130_pypi_default_cu130() -> None:
    """The PyPI wheel's metadata says 2.13.0; its version.py says the CUDA variant."""
    doc = document(
        [dist("torch", "2.13.0", ["filelock", "typing-extensions>=4.10.0", 'opt-einsum>=3.3; extra == "opt-einsum"'])],
        {"torch": {"dir": f"{SITE}/torch", "version_py": {
            "__version__": "2.13.0+cu130", "debug": False, "cuda": "13.0", "hip": None, "rocm": None, "xpu": None}}},
    )
    (torch,) = decode_target_report(doc).frameworks
    assert torch == FrameworkBuild(name="torch", distribution="torch", version="2.13.0+cu130", accelerator="cuda",
                                   cuda="13.0", cudnn=None, nccl=None, source="torch/version.py")


def test_torch_cpu_and_rocm_builds() -> None:
    cpu = frameworks_from({"torch": {"version_py": {"__version__": "2.13.0+cpu", "cuda": None, "hip": None}}},
                          {"torch": Distribution("torch", "2.13.0+cpu")})
    assert cpu == (FrameworkBuild("torch", "torch", "2.13.0+cpu", "cpu", None, None, source="torch/version.py"),)
    rocm = frameworks_from(
        {"torch": {"version_py": {"__version__": "2.5.1+rocm6.2", "cuda": None, "hip": "6.2.41133-dd7f95766"}}},
        {"torch": Distribution("torch", "2.5.1+rocm6.2")},
    )
    assert rocm == (FrameworkBuild("torch", "torch", "2.5.1+rocm6.2", "rocm", "6.2.41133-dd7f95766", None,
                                   source="torch/version.py"),)


def test_torch_from_metadata_only() -> None:
    (torch,) = frameworks_from({}, {"torch": Distribution("torch", "2.5.1+cu124", tuple(TORCH_251_REQUIRES))})
    assert (torch.version, torch.accelerator, torch.source) == ("2.5.1+cu124", "cuda", "metadata")
    assert (torch.cudnn, torch.nccl) == ("9.1.0.70", "2.21.5")


def test_pins_behind_an_extra_count_only_for_that_extra() -> None:
    d = Distribution("jax", "0.4.30", (
        'jax-cuda12-plugin[with_cuda]<=0.4.30,>=0.4.30; extra == "cuda12"',
        'nvidia-cudnn-cu12==9.1.0.70; extra == "cuda12-local"',
        "nvidia-nccl-cu12==2.21.5",
        "nvidia-cublas-cu12>=12.1",
    ))
    assert pinned(d, "nvidia-") == {"nvidia-nccl-cu12": "2.21.5"}
    assert pinned(d, "nvidia-", extra="cuda12-local") == {"nvidia-cudnn-cu12": "9.1.0.70",
                                                           "nvidia-nccl-cu12": "2.21.5"}
    assert pinned(None, "nvidia-") == {}


def test_tensorflow_2161_cuda_build_info() -> None:
    build_info = {
        "cpu_compiler": "/usr/lib/llvm-17/bin/clang",
        "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"],
        "cuda_version": "12.3",
        "cudnn_version": "8",
        "is_cuda_build": True,
        "is_rocm_build": False,
        "is_tensorrt_build": True,
    }
    requires = ["absl-py>=1.0.0", 'nvidia-cudnn-cu12==8.9.7.29; extra == "and-cuda"']
    doc = document([dist("tensorflow", "2.16.1", requires)],
                   {"tensorflow": {"dir": f"{SITE}/tensorflow", "build_info": build_info}})
    (tf,) = decode_target_report(doc).frameworks
    assert tf == FrameworkBuild(
        name="tensorflow", distribution="tensorflow", version="2.16.1", accelerator="cuda", cuda="12.3", cudnn="8",
        arch_list=("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"),
        source="tensorflow/python/platform/build_info.py",
    )


def test_tensorflow_cpu_with_and_without_build_info() -> None:
    cpu_info = {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}
    doc = document([dist("tensorflow-cpu", "2.21.0")], {"tensorflow": {"dir": "x", "build_info": cpu_info}})
    assert decode_target_report(doc).frameworks == (
        FrameworkBuild("tensorflow", "tensorflow-cpu", "2.21.0", "cpu", None, None,
                       source="tensorflow/python/platform/build_info.py"),
    )
    doc = document([dist("tensorflow_cpu", "2.21.0")], {"tensorflow": {"dir": "x", "build_info": None}})
    assert decode_target_report(doc).frameworks == (
        FrameworkBuild("tensorflow", "tensorflow_cpu", "2.21.0", "cpu", None, None, source="metadata"),
    )


def test_jaxlib_with_the_cuda12_plugin() -> None:
    doc = document([
        dist("jax", "0.4.30", ["jaxlib<=0.4.30,>=0.4.27",
                               'jax-cuda12-plugin[with_cuda]<=0.4.30,>=0.4.30; extra == "cuda12"']),
        dist("jaxlib", "0.4.30", ["scipy>=1.9", "numpy>=1.22"]),
        dist("jax-cuda12-plugin", "0.4.30", ["jax-cuda12-pjrt==0.4.30"]),
        dist("jax-cuda12-pjrt", "0.4.30"),
    ], {"jaxlib": {"dir": f"{SITE}/jaxlib", "version_py": {"_version": "0.4.30"}}})
    assert decode_target_report(doc).frameworks == (
        FrameworkBuild("jax", "jaxlib + jax-cuda12-plugin", "0.4.30", "cuda", "12", None, source="metadata"),
    )


def test_jaxlib_monolithic_cuda_and_cpu() -> None:
    assert frameworks_from({}, {"jaxlib": Distribution("jaxlib", "0.4.26+cuda12.cudnn89")}) == (
        FrameworkBuild("jax", "jaxlib", "0.4.26+cuda12.cudnn89", "cuda", "12", None, source="metadata"),
    )
    assert frameworks_from({}, {"jaxlib": Distribution("jaxlib", "0.4.30")}) == (
        FrameworkBuild("jax", "jaxlib", "0.4.30", "cpu", None, None, source="metadata"),
    )


def test_paddlepaddle_gpu_and_cpu() -> None:
    gpu_info = {"full_version": "2.6.1", "major": "2", "minor": "6", "patch": "1", "rc": "0",
                "cuda_version": "12.0", "cudnn_version": "8.9.1", "xpu_version": "False", "istaged": True,
                "commit": "fbf852dcc2b1c3fa4f5f5fa7a0c2a6eab2fcdd62", "with_mkl": "ON"}
    doc = document([dist("paddlepaddle-gpu", "2.6.1")], {"paddle": {"dir": "x", "version_py": gpu_info}})
    assert decode_target_report(doc).frameworks == (
        FrameworkBuild("paddle", "paddlepaddle-gpu", "2.6.1", "cuda", "12.0", "8.9.1",
                       source="paddle/version/__init__.py"),
    )
    cpu_info = {**gpu_info, "cuda_version": "False", "cudnn_version": "False"}
    doc = document([dist("paddlepaddle", "2.6.1")], {"paddle": {"dir": "x", "version_py": cpu_info}})
    assert decode_target_report(doc).frameworks == (
        FrameworkBuild("paddle", "paddlepaddle", "2.6.1", "cpu", None, None, source="paddle/version/__init__.py"),
    )


def test_no_frameworks() -> None:
    report = decode_target_report(document([dist("pip", "24.0")]))
    assert report == TargetReport(report.python, (Distribution("pip", "24.0"),), (), ())


# ---- runtime_from ---------------------------------------------------------------------------


def test_runtime_from_torch_cuda_document() -> None:
    doc = json.loads(
        '{"version": "2.5.1+cu124", "cuda": "12.4", "hip": null, "gpu_available": true, "device_count": 1, '
        '"devices": ["NVIDIA H100 80GB HBM3 (sm_90)"], "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", '
        '"sm_86", "sm_90"], "cudnn": 90100, "nccl": [2, 21, 5], "warnings": [], "framework": "torch", '
        '"duration_s": 2.314}'
    )
    assert runtime_from(doc) == RuntimeReport(
        gpu_available=True, device_count=1, devices=("NVIDIA H100 80GB HBM3 (sm_90)",),
        arch_list=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
        cudnn="9.1.0", nccl="2.21.5", cuda="12.4", warnings=(), error=None, duration_s=2.314,
    )


@pytest.mark.parametrize(
    ("cudnn", "nccl", "expected"),
    [
        (90100, [2, 21, 5], ("9.1.0", "2.21.5")),
        (8902, 2708, ("8.9.2", "2.7.8")),
        (8700, 21602, ("8.7.0", "2.16.2")),
        ("8", None, ("8", None)),
        (None, None, (None, None)),
    ],
)
def test_runtime_version_codes(cudnn: object, nccl: object, expected: tuple[str | None, str | None]) -> None:
    report = runtime_from({"cudnn": cudnn, "nccl": nccl})
    assert (report.cudnn, report.nccl) == expected


def test_runtime_from_import_failure() -> None:
    doc = {"error": "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
           "framework": "torch", "duration_s": 0.41}
    assert runtime_from(doc) == RuntimeReport(
        error="ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
        duration_s=0.41,
    )


# ---- inspect_target / deep_inspect with a fake runner ---------------------------------------


def test_inspect_target_runs_the_script_and_decodes_its_last_line() -> None:
    doc = document([dist("torch", "2.13.0+cpu")],
                   {"torch": {"version_py": {"__version__": "2.13.0+cpu", "cuda": None, "hip": None}}})
    runner = FakeRunner({("python3-target",): "some banner\n" + json.dumps(doc) + "\n"})
    report = inspect_target(ProbeContext(run=runner, target_python="python3-target", env={}))
    assert report.frameworks == (
        FrameworkBuild("torch", "torch", "2.13.0+cpu", "cpu", None, None, source="torch/version.py"),
    )
    assert runner.calls == [("python3-target", "-c", script_source("envguard.probes", "_inspect_target.py"))]


def test_inspect_target_missing_interpreter_path() -> None:
    runner = FakeRunner()
    with pytest.raises(TargetPythonError, match="does not exist"):
        inspect_target(ProbeContext(run=runner, target_python="/nonexistent/bin/python3", env={}))
    assert runner.calls == []


def test_inspect_target_interpreter_that_cannot_start_or_prints_nothing() -> None:
    with pytest.raises(TargetPythonError) as info:
        inspect_target(ProbeContext(run=FakeRunner(), target_python="python-nope", env={}))
    assert str(info.value) == "cannot inspect target interpreter python-nope: python-nope: not found"
    with pytest.raises(TargetPythonError, match="printed no inspection report"):
        inspect_target(ProbeContext(run=FakeRunner({("python2.7",): "\n"}), target_python="python2.7", env={}))
    with pytest.raises(TargetPythonError, match="printed no inspection report"):
        inspect_target(ProbeContext(run=FakeRunner({("python9",): "not json\n"}), target_python="python9", env={}))


class _DeepRunner:
    def __init__(self, answers: dict[str, str | CommandResult]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: tuple[str, ...], *, timeout: float, env: dict[str, str] | None = None,
                 cwd: str | None = None, stdin: str | None = None) -> CommandResult:
        self.calls.append(tuple(argv))
        name = argv[2].split("\n", 1)[0].split("'")[1]
        answer = self.answers.get(name, json.dumps({"framework": name, "installed": False}))
        if isinstance(answer, str):
            return CommandResult(tuple(argv), 0, answer, "", 0.01)
        return dataclasses.replace(answer, argv=tuple(argv))


def test_deep_reports_and_failures() -> None:
    torch = FrameworkBuild("torch", "torch", "2.5.1+cu124", "cuda", "12.4", "9.1.0.70")
    vision = FrameworkBuild("torchvision", "torchvision", "0.20.1+cu124", "cuda", "12.4", None)
    ok = json.dumps({"version": "2.5.1+cu124", "cuda": "12.4", "gpu_available": False, "device_count": 0,
                     "devices": [], "arch_list": ["sm_90"], "cudnn": 90100, "nccl": [2, 21, 5],
                     "warnings": ["CUDA initialization: Found no NVIDIA driver on your system."],
                     "framework": "torch", "duration_s": 1.5})
    runner = _DeepRunner({"torch": "[W init] noise\n" + ok + "\n"})
    reports = deep_reports(ProbeContext(run=runner, target_python="py", env={}))
    assert set(reports) == {"torch"}  # tensorflow and jax answered "not installed"
    out = attach_runtime((torch, vision), reports)
    assert out[1] == vision
    assert out[0].runtime == RuntimeReport(
        gpu_available=False, device_count=0, arch_list=("sm_90",), cudnn="9.1.0", nccl="2.21.5", cuda="12.4",
        warnings=("CUDA initialization: Found no NVIDIA driver on your system.",), duration_s=1.5,
    )
    assert sorted(a[2].split("\n", 1)[0] for a in runner.calls) == [
        "FRAMEWORK = 'jax'", "FRAMEWORK = 'tensorflow'", "FRAMEWORK = 'torch'"]
    assert all(a[:2] == ("py", "-c") for a in runner.calls)

    timed_out = _DeepRunner({"torch": CommandResult((), -9, "", "", 60.0, timed_out=True)})
    reports = deep_reports(ProbeContext(run=timed_out, target_python="py", env={}, timeout_s=1.0))
    # --timeout 1: the import gets DEEP_TIMEOUT_FACTOR (6) times it, no longer a 60 s floor (issue 17.2)
    assert reports["torch"] == Unavailable("importing torch did not finish within 6s", ("import",), "timeout")

    crashed = _DeepRunner({"torch": CommandResult((), -11, "", "Segmentation fault", 0.2)})
    reports = deep_reports(ProbeContext(run=crashed, target_python="py", env={}))
    assert reports["torch"] == Unavailable("importing torch crashed: py exited with status -11: Segmentation fault",
                                           ("import",), "crash")


def test_deep_reports_nothing_installed() -> None:
    runner = _DeepRunner({})
    assert deep_reports(ProbeContext(run=runner, target_python="py", env={})) == {}
    assert len(runner.calls) == 3
    builds = (FrameworkBuild("paddle", "paddlepaddle-gpu", "2.6.1", "cuda", "12.0", "8.9.1"),)
    assert attach_runtime(builds, {}) == builds


# ---- the real scripts (slow) ----------------------------------------------------------------


def run_inspection(python: str, env: dict[str, str] | None = None) -> TargetReport:
    return inspect_target(ProbeContext(run=_subprocess.run, target_python=python,
                                       env=dict(os.environ) if env is None else env))


@pytest.mark.slow
def test_real_inspection_of_this_interpreter() -> None:
    report = run_inspection(sys.executable)
    assert report.python.executable == sys.executable
    assert report.python.version == ".".join(str(v) for v in sys.version_info[:3])
    assert report.python.implementation == "CPython"
    assert report.python.platform == sys.platform
    assert (report.python.prefix, report.python.base_prefix) == (sys.prefix, sys.base_prefix)
    assert report.python.virtualenv is (sys.prefix != sys.base_prefix)
    packages = {d.name.lower(): d.version for d in report.packages}
    assert packages["pytest"] == pytest.__version__
    assert "envguard" in packages


@pytest.mark.slow
@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="the project .venv is not there")
def test_real_inspection_of_the_venv_with_cpu_torch() -> None:
    report = run_inspection(str(VENV_PYTHON))
    assert report.python.executable == str(VENV_PYTHON)
    torch = next(f for f in report.frameworks if f.name == "torch")
    assert torch == FrameworkBuild("torch", "torch", "2.13.0+cpu", "cpu", None, None, source="torch/version.py")
    assert next(d for d in report.packages if d.name == "torch").version == "2.13.0+cpu"
    assert report.wheel_files == ()


@pytest.mark.slow
@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="the project .venv is not there")
def test_inspection_script_does_not_import_frameworks() -> None:
    source = script_source("envguard.probes", "_inspect_target.py")
    check = ("\nimport sys\nloaded = sorted({'torch', 'torchvision', 'tensorflow', 'jax', 'jaxlib', 'paddle', 'numpy'}"
             " & set(sys.modules))\nassert not loaded, loaded\nprint('CHECKED')\n")
    result = _subprocess.run((str(VENV_PYTHON), "-c", source + check), timeout=60.0)
    assert result.ok, result.stderr
    assert result.stdout.splitlines()[-1] == "CHECKED"
    assert json.loads(result.stdout.splitlines()[-2])["frameworks"]["torch"]["version_py"]["__version__"] == \
        "2.13.0+cpu"


@pytest.mark.slow
def test_real_inspection_missing_interpreter() -> None:
    with pytest.raises(TargetPythonError):
        run_inspection("/nonexistent/bin/python3")
    with pytest.raises(TargetPythonError, match="not found"):
        run_inspection("envguard-no-such-python-3.99")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _dist_info(site: Path, name: str, version: str, requires: list[str], record: tuple[str, ...] = ()) -> None:
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    _write(folder / "METADATA", "\n".join(lines) + "\n")
    _write(folder / "RECORD", "".join(f"{r},,\n" for r in record))


@pytest.fixture
def fake_site(tmp_path: Path) -> Path:
    """A site-packages folder of version files and dist-infos: a CUDA environment without the binaries."""
    site = tmp_path / "site"
    _write(site / "torch/__init__.py", "raise ImportError('the inspection must not import torch')\n")
    _write(site / "torch/version.py", """
        from typing import Optional

        __all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
        __version__ = '2.5.1+cu124'
        debug = False
        cuda: Optional[str] = '12.4'
        git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'
        hip: Optional[str] = None
        """)
    _dist_info(site, "torch", "2.5.1+cu124", TORCH_251_REQUIRES)
    _write(site / "torchvision/__init__.py", "raise ImportError('no')\n")
    _write(site / "torchvision/version.py", """
        __version__ = '0.20.1+cu124'
        git_version = '3ac97aa9120137381ed1060f37237e44485ac2aa'
        from torchvision.extension import _check_cuda_version
        if _check_cuda_version() > 0:
            cuda = _check_cuda_version()
        """)
    _dist_info(site, "torchvision", "0.20.1+cu124", ["numpy", "torch==2.5.1"])
    _write(site / "tensorflow/__init__.py", "raise ImportError('no')\n")
    _write(site / "tensorflow/python/platform/build_info.py", """
        # Copyright 2020 The TensorFlow Authors. All Rights Reserved.
        \"\"\"Auto-generated module providing information about the build.\"\"\"
        import collections

        build_info = collections.OrderedDict()
        build_info['cpu_compiler'] = '/usr/lib/llvm-17/bin/clang'
        build_info['cuda_compute_capabilities'] = ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']
        build_info['cuda_version'] = '12.3'
        build_info['cudnn_version'] = '8'
        build_info['is_cuda_build'] = True
        build_info['is_rocm_build'] = False
        build_info['is_tensorrt_build'] = True
        """)
    _dist_info(site, "tensorflow", "2.16.1", ["absl-py>=1.0.0"])
    _write(site / "paddle/__init__.py", "raise ImportError('no')\n")
    _write(site / "paddle/version/__init__.py", """
        # THIS FILE IS GENERATED FROM PADDLEPADDLE SETUP.PY
        #
        full_version    = '2.6.1'
        major           = '2'
        minor           = '6'
        patch           = '1'
        rc              = '0'
        cuda_version    = '12.0'
        cudnn_version   = '8.9.1'
        xpu_version     = 'False'
        istaged         = True
        commit          = 'fbf852dcc2b1c3fa4f5f5fa7a0c2a6eab2fcdd62'
        with_mkl        = 'ON'

        def show():
            pass
        """)
    _dist_info(site, "paddlepaddle-gpu", "2.6.1", [])
    _dist_info(site, "jaxlib", "0.4.30", ["numpy>=1.22"])
    _dist_info(site, "jax-cuda12-plugin", "0.4.30", ["jax-cuda12-pjrt==0.4.30"])
    _dist_info(site, "nvidia-cudnn-cu12", "9.1.0.70", ["nvidia-cublas-cu12"], (
        "nvidia/cudnn/lib/libcudnn.so.9", "nvidia/cudnn/lib/libcudnn_ops.so.9",
        "nvidia/cudnn/include/cudnn_version.h", "nvidia/cudnn/__init__.py",
    ))
    return site


@pytest.mark.slow
@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="the project .venv is not there")
def test_real_inspection_of_a_fake_site_packages(fake_site: Path) -> None:
    """PYTHONPATH entries come before the venv's site-packages, so this torch shadows the venv's 2.13.0+cpu."""
    env = {**os.environ, "PYTHONPATH": str(fake_site)}
    report = run_inspection(str(VENV_PYTHON), env)
    builds = {f.name: f for f in report.frameworks}
    assert builds["torch"] == FrameworkBuild("torch", "torch", "2.5.1+cu124", "cuda", "12.4", "9.1.0.70",
                                             nccl="2.21.5", source="torch/version.py + wheel Requires-Dist")
    assert builds["torchvision"] == FrameworkBuild("torchvision", "torchvision", "0.20.1+cu124", "cuda", "12.4",
                                                   None, source="torchvision/version.py")
    assert builds["tensorflow"] == FrameworkBuild(
        "tensorflow", "tensorflow", "2.16.1", "cuda", "12.3", "8",
        arch_list=("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"), source="tensorflow/python/platform/build_info.py",
    )
    assert builds["jax"] == FrameworkBuild("jax", "jaxlib + jax-cuda12-plugin", "0.4.30", "cuda", "12", None)
    assert builds["paddle"] == FrameworkBuild("paddle", "paddlepaddle-gpu", "2.6.1", "cuda", "12.0", "8.9.1",
                                              source="paddle/version/__init__.py")
    assert [d.version for d in report.packages if d.name == "torch"] == ["2.5.1+cu124"]  # the venv's is shadowed
    assert report.wheel_files == (
        ("nvidia-cudnn-cu12", "9.1.0.70", str(fake_site / "nvidia/cudnn/lib/libcudnn.so.9")),
        ("nvidia-cudnn-cu12", "9.1.0.70", str(fake_site / "nvidia/cudnn/lib/libcudnn_ops.so.9")),
        ("nvidia-cudnn-cu12", "9.1.0.70", str(fake_site / "nvidia/cudnn/include/cudnn_version.h")),
    )


@pytest.mark.slow
@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="the project .venv is not there")
def test_real_deep_inspection_of_cpu_torch() -> None:
    torch = FrameworkBuild("torch", "torch", "2.13.0+cpu", "cpu", None, None, source="torch/version.py")
    ctx = ProbeContext(run=_subprocess.run, target_python=str(VENV_PYTHON), env=dict(os.environ))
    (out,) = attach_runtime((torch,), deep_reports(ctx))
    runtime = out.runtime
    assert isinstance(runtime, RuntimeReport), runtime
    assert runtime.error is None
    assert runtime.gpu_available is False
    assert runtime.device_count == 0
    assert runtime.devices == ()
    assert runtime.arch_list == ()
    assert (runtime.cuda, runtime.cudnn, runtime.nccl) == (None, None, None)
    assert runtime.duration_s is not None
    assert 0.0 < runtime.duration_s < 120.0


@pytest.mark.slow
@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="the project .venv is not there")
def test_the_working_directory_neither_shadows_nor_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check` run in a project folder that holds a json.py, a torch/ package and a torch dist-info: the target
    interpreter's own modules and distributions are what is read (the script drops '' from sys.path first)."""
    _write(tmp_path / "json.py", "raise SystemExit('the working directory shadowed json')\n")
    _write(tmp_path / "torch" / "__init__.py", "raise SystemExit('the working directory shadowed torch')\n")
    _write(tmp_path / "torch" / "version.py", "__version__ = '9.9.9+cu999'\ncuda = '99.9'\n")
    _dist_info(tmp_path, "torch", "9.9.9+cu999", [])
    monkeypatch.chdir(tmp_path)
    report = run_inspection(str(VENV_PYTHON))
    assert "9.9.9+cu999" not in [d.version for d in report.packages if d.name == "torch"]
    assert all(f.version != "9.9.9+cu999" for f in report.frameworks)
    assert report.python.executable  # the script ran to its end: json was the standard library's
