"""Issue 15 schema extensions: dense TF32 peaks, per-platform torch arch lists, torch.compile's Python range."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from envguard.errors import LockError, MatrixSchemaError
from envguard.knowledge import Matrices, load_matrices
from envguard.knowledge.gpu_peaks import GpuPeak
from envguard.knowledge.torch import wheel_platform
from envguard.lock.request import HostFacts, choose_torch
from envguard.query import torch_candidates
from envguard.rules import run_rules
from envguard.rules.arch import ArchRule
from envguard.rules.builds import PythonRule
from envguard.smoke.peaks import PERF_PEAKS
from envguard.snapshot import PythonInfo
from tests.fakes import gpu, linux_python, make_snapshot, torch_build

SHIPPED = Path(__file__).resolve().parent.parent / "matrices"


@pytest.fixture(scope="module")
def m() -> Matrices:
    return load_matrices()


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "m"
    shutil.copytree(SHIPPED, target)
    return target


def _python(platform: str = "linux", machine: str = "x86_64", version: str = "3.12.4") -> PythonInfo:
    return dataclasses.replace(linux_python(version), platform=platform, machine=machine)


# ---- gpu-peaks: tensor_tf32_tflops -----------------------------------------------------------------------


def test_tf32_column_is_what_the_smoke_suite_reads(m: Matrices) -> None:
    fields = {f.name for f in dataclasses.fields(GpuPeak)}
    assert set(PERF_PEAKS.values()) <= fields  # every figure the smoke suite compares with is a real column
    h100 = m.gpu_peaks.lookup_name("NVIDIA H100 80GB HBM3") or pytest.fail()
    assert h100.tensor_tf32_tflops == pytest.approx(494.7) and h100.confirmed("tensor_tf32_tflops")
    h200 = m.gpu_peaks.lookup_name("H200") or pytest.fail()
    assert h200.tensor_tf32_tflops == pytest.approx(494.7) and not h200.confirmed("tensor_tf32_tflops")
    assert (m.gpu_peaks.lookup_name("A100-SXM4-40GB") or pytest.fail()).tensor_tf32_tflops == 156
    assert (m.gpu_peaks.lookup_name("B200") or pytest.fail()).tensor_tf32_tflops == 1100
    for unread in ("H100 PCIe", "L40S", "L4"):  # no source read states them: absent, not guessed
        assert (m.gpu_peaks.lookup_name(unread) or pytest.fail()).tensor_tf32_tflops is None


def test_tf32_percentage_of_peak(m: Matrices) -> None:
    from envguard.smoke.base import SmokeResult, SmokeRun, SmokeStatus
    from envguard.smoke.peaks import annotate
    from tests.fakes import H100_590

    snap = make_snapshot(driver="590.48.01", cuda_driver="13.1", gpus=[H100_590])
    run = SmokeRun(2, "py", (SmokeResult("perf", SmokeStatus.PASSED, 5.0, "matmul",
                                         {"tflops_tf32": 371.0, "matmul_n": 8192.0}),), 5.0)
    (perf,) = annotate(run, snap, m).results
    assert round(perf.metrics["pct_of_peak_tflops_tf32"]) == 75  # 371 of 494.7 dense TF32


def test_tf32_needs_ampere(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    text = (root / "gpu-peaks.toml").read_text()
    text = text.replace('name = "Tesla T4"\ncc = "7.5"\n', 'name = "Tesla T4"\ncc = "7.5"\ntensor_tf32_tflops = 1\n')
    (root / "gpu-peaks.toml").write_text(text)
    with pytest.raises(MatrixSchemaError, match=r"TF32 tensor cores need compute capability >= 8\.0"):
        _ = load_matrices(root).gpu_peaks


# ---- torch: per-platform arch lists ------------------------------------------------------------------------


def test_wheel_platform() -> None:
    assert wheel_platform("linux", "x86_64") == "linux_x86_64"
    assert wheel_platform("linux", "aarch64") == "linux_aarch64"
    assert wheel_platform("linux", "arm64") == "linux_aarch64"
    assert wheel_platform("windows", "AMD64") == "win_amd64"


def test_platform_lists_are_read(m: Matrices) -> None:
    cu130 = (m.torch.release("2.13.0") or pytest.fail()).variant("cu130") or pytest.fail()
    assert "11.0" not in (cu130.sass or ())  # Linux x86_64 has no Thor SASS
    aarch = cu130.arch("linux_aarch64")
    assert aarch.sass == ("8.0", "9.0", "10.0", "11.0", "12.0") and aarch.ptx == ("12.0",)
    win = cu130.arch("win_amd64")
    assert win.sass == cu130.sass and win.ptx == ()  # "+PTX available on linux builds only"
    win126 = ((m.torch.release("2.13.0") or pytest.fail()).variant("cu126") or pytest.fail()).arch("win_amd64")
    assert "6.1" in (win126.sass or ()) and win126.prov.confidence == "derived"
    assert cu130.arch().sass == cu130.sass
    old = (m.torch.release("2.10.0") or pytest.fail()).variant("cu128") or pytest.fail()
    assert old.arch("win_amd64").sass is None  # not recorded: unknown, never the Linux list


def test_platform_schema_errors(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    text = (root / "torch.toml").read_text()
    text = text.replace('platform = "linux_aarch64"', 'platform = "linux_riscv64"', 1)
    text = text.replace('  platform = "win_amd64"\n  sass = [', '  platform = "win_amd64"\n  ssas = [', 1)
    (root / "torch.toml").write_text(text)
    with pytest.raises(MatrixSchemaError) as err:
        _ = load_matrices(root).torch
    assert "platform must be one of win_amd64, linux_aarch64" in str(err.value)
    assert "unknown key(s) ssas" in str(err.value) and "needs 'sass'" in str(err.value)


def test_aarch64_verdict_uses_the_aarch64_list(m: Matrices) -> None:
    """CC 11.0 (Thor) has SASS in the aarch64 cu130 wheels only; the x86_64 list would say arch-unsupported."""
    build = torch_build("2.13.0+cu130", "13.0")
    thor = gpu("NVIDIA Thor", "11.0")
    x86 = make_snapshot(driver="580.95.05", gpus=[thor], frameworks=[build])
    assert [f.code for f in ArchRule().check(x86, m)] == ["arch-unsupported"]
    arm = dataclasses.replace(x86, python=_python(machine="aarch64"))
    assert list(ArchRule().check(arm, m)) == []


def test_windows_verdict_uses_the_windows_list(m: Matrices) -> None:
    pascal = gpu("NVIDIA GeForce GTX 1080", "6.1")
    build = torch_build("2.10.0+cu128", "12.8")
    linux = make_snapshot(driver="580.95.05", gpus=[pascal], frameworks=[build])
    assert [f.code for f in ArchRule().check(linux, m)] == ["arch-unsupported"]
    win = dataclasses.replace(linux, python=_python("win32", "AMD64"))
    (finding,) = ArchRule().check(win, m)
    assert finding.code == "unknown-version" and "win_amd64 wheels" in finding.message
    volta = make_snapshot(driver="580.95.05", gpus=[gpu("Tesla V100-SXM2-32GB", "7.0")],
                          frameworks=[torch_build("2.13.0+cu130", "13.0")], python=_python("win32", "AMD64"))
    (finding,) = ArchRule().check(volta, m)
    assert finding.code == "arch-unsupported"
    assert any("win_amd64" in e.source for e in finding.evidence)


def test_query_reads_the_platform_list(m: Matrices) -> None:
    def verdict(machine: str) -> bool | None:
        rows = torch_candidates(m, driver="580.95.05", cc="11.0", python="3.12", machine=machine)
        return next(r for r in rows if (r.release.version, r.variant.tag) == ("2.13", "cu130")).gpu_ok

    assert verdict("x86_64") is False
    assert verdict("aarch64") is True
    rows = torch_candidates(m, driver="580.95.05", cc="8.6", python="3.12", system="windows")
    row = next(r for r in rows if (r.release.version, r.variant.tag) == ("2.10", "cu128"))
    assert row.gpu_ok is None and "win_amd64 wheels unknown" in "; ".join(row.notes)


def test_lock_auto_reads_the_platform_list(m: Matrices) -> None:
    host = HostFacts("580.95.05", ("11.0",))
    req = Requirement("torch==2.13.*")
    _, variant, _ = choose_torch(m, req, python="3.12", cuda="auto", host=host, platform="linux-aarch64")
    assert variant.tag in ("cu132", "cu130")
    with pytest.raises(LockError, match=r"no kernels for compute capability 11\.0"):
        choose_torch(m, req, python="3.12", cuda="auto", host=host, platform="linux-x86_64")


# ---- torch.compile's Python range ----------------------------------------------------------------------------


def test_compile_python_is_read(m: Matrices) -> None:
    assert str((m.torch.release("2.15.0") or pytest.fail()).compile_python) == "<3.16"
    assert str((m.torch.release("2.13.0") or pytest.fail()).compile_python) == "<3.15"
    assert (m.torch.release("2.14.0") or pytest.fail()).compile_python is None  # not read for 2.14


def test_compile_python_warning(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    text = (root / "torch.toml").read_text().replace('compile_python = "<3.15"', 'compile_python = "<3.14"', 1)
    (root / "torch.toml").write_text(text)
    matrices = load_matrices(root)
    snap = make_snapshot(frameworks=[torch_build("2.13.0+cpu", None)], python=linux_python("3.14.1"))
    (finding,) = PythonRule().check(snap, matrices)
    assert finding.code == "python-unsupported" and finding.severity.name == "WARNING"
    assert "torch.compile does not run on Python 3.14.1" in finding.message
    ok = make_snapshot(frameworks=[torch_build("2.13.0+cpu", None)], python=linux_python("3.13.1"))
    assert list(PythonRule().check(ok, matrices)) == []
    # Outside the wheels' own range the error says it all: no second finding.
    old = make_snapshot(frameworks=[torch_build("2.13.0+cpu", None)], python=linux_python("3.9.1"))
    assert [f.severity.name for f in run_rules(old, matrices).findings if f.code == "python-unsupported"] == ["ERROR"]
