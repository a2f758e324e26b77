"""envguard.rules.image: NVIDIA_REQUIRE_CUDA verdicts and the findings for running an image on an engine."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from envguard.findings import Finding, Severity
from envguard.image_facts import EngineFacts, ImageFacts
from envguard.rules.image import image_findings, require_cuda_verdict
from envguard.snapshot import DriverInfo
from tests.fakes import gpu, make_snapshot, torch_build

#: NVIDIA_REQUIRE_CUDA of nvidia/cuda:12.4.1 images (cuda-images.toml: require_cuda 12.4, compat 470/525/535).
REQUIRE_124 = ("cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
               "brand=tesla,driver>=525,driver<526 brand=tesla,driver>=535,driver<536")
RUNC_ONLY = EngineFacts("27.3.1", ("io.containerd.runc.v2", "runc"), "runc")
WITH_NVIDIA = EngineFacts("27.3.1", ("io.containerd.runc.v2", "nvidia", "runc"), "runc")
WITH_CDI = EngineFacts("28.0.0", ("runc",), "runc", ("/etc/cdi",), ("nvidia.com/gpu=0", "nvidia.com/gpu=all"))


def _drv(version: str | None, cuda: str | None) -> DriverInfo:
    return DriverInfo(version, cuda, "NVML")


def _image(env: Mapping[str, str], ref: str = "nvidia/cuda:12.4.1-runtime-ubuntu22.04") -> ImageFacts:
    return ImageFacts(ref, "sha256:" + "e" * 64, dict(env), {})


CUDA_ENV = {"CUDA_VERSION": "12.4.1", "NVIDIA_REQUIRE_CUDA": REQUIRE_124}


# ---- require_cuda_verdict --------------------------------------------------------------------------


@pytest.mark.parametrize(("cuda", "verdict"), [("12.2", False), ("12.4", True), ("12.8", True), ("11.8", False)])
def test_plain_cuda_clause(cuda: str, verdict: bool) -> None:
    assert require_cuda_verdict("cuda>=12.4", _drv("550.54.15", cuda)) is verdict


def test_forward_compat_clause_with_unknowable_brand_is_unknown() -> None:
    # cuda>=12.4 fails on a 12.2 driver; the 535 branch clause holds except for brand, which envguard cannot know.
    assert require_cuda_verdict("cuda>=12.4 brand=tesla,driver>=535,driver<536",
                                 _drv("535.104.05", "12.2")) is None


def test_forward_compat_clause_on_another_branch_is_false() -> None:
    assert require_cuda_verdict("cuda>=12.4 brand=tesla,driver>=535,driver<536", _drv("530.30.02", "12.1")) is False
    assert require_cuda_verdict(REQUIRE_124, _drv("545.23.08", "12.3")) is False


def test_any_true_clause_wins_over_unknown_ones() -> None:
    assert require_cuda_verdict(REQUIRE_124, _drv("550.54.15", "12.4")) is True
    assert require_cuda_verdict("brand=tesla,driver>=470 driver>=535", _drv("535.104.05", "12.2")) is True


@pytest.mark.parametrize("require", ["", "   ", "cuda", "cuda>>12.4", "gpu>=1", "cuda>=twelve", "cuda~=12.4"])
def test_malformed_or_empty_is_unknown(require: str) -> None:
    assert require_cuda_verdict(require, _drv("550.54.15", "12.4")) is None


def test_unknown_driver_facts_are_unknown() -> None:
    assert require_cuda_verdict("cuda>=12.4", _drv("550.54.15", None)) is None
    assert require_cuda_verdict("driver>=535", _drv(None, "12.4")) is None


@pytest.mark.parametrize(("require", "verdict"), [
    ("driver<536", True), ("driver>536", False), ("cuda=12.4", True), ("cuda<=12.3", False), ("cuda<12.5", True),
])
def test_operators(require: str, verdict: bool) -> None:
    assert require_cuda_verdict(require, _drv("535.104.05", "12.4")) is verdict


# ---- image_findings ----------------------------------------------------------------------------------


def _codes(findings: list[Finding]) -> list[tuple[str, Severity]]:
    return [(f.code, f.severity) for f in findings]


def test_cuda_image_on_runc_only_host_without_driver_warns() -> None:
    findings = list(image_findings(_image(CUDA_ENV), RUNC_ONLY, make_snapshot()))
    assert _codes(findings) == [("gpu-runtime-missing", Severity.WARNING)]
    f = findings[0]
    assert f.message.endswith("containers cannot see a GPU (and this host has no NVIDIA driver).")
    assert ("runtimes", "io.containerd.runc.v2, runc") in [(e.fact, e.value) for e in f.evidence]
    assert ("CDI devices", "none") in [(e.fact, e.value) for e in f.evidence]
    assert ("CUDA in image", "12.4.1") in [(e.fact, e.value) for e in f.evidence]
    assert f.subject == "engine"


@pytest.mark.parametrize("engine", [WITH_NVIDIA, WITH_CDI])
def test_nvidia_runtime_or_cdi_means_no_runtime_finding(engine: EngineFacts) -> None:
    assert list(image_findings(_image(CUDA_ENV), engine, make_snapshot(driver="550.54.15", cuda_driver="12.4"))) == []
    assert list(image_findings(_image(CUDA_ENV), engine, make_snapshot())) == []


def test_cuda_image_on_runc_only_host_with_driver_is_an_error() -> None:
    snap = make_snapshot(driver="550.54.15", cuda_driver="12.4")
    findings = list(image_findings(_image(CUDA_ENV), RUNC_ONLY, snap))
    assert _codes(findings) == [("gpu-runtime-missing", Severity.ERROR)]
    assert "(and this host has no NVIDIA driver)" not in findings[0].message


def test_gpus_listed_without_driver_info_is_an_error() -> None:
    snap = make_snapshot(gpus=[gpu("NVIDIA A100-SXM4-80GB", "8.0")])
    assert _codes(list(image_findings(_image(CUDA_ENV), RUNC_ONLY, snap))) == [("gpu-runtime-missing", Severity.ERROR)]


def test_non_cuda_image_has_no_runtime_finding() -> None:
    image = _image({"PATH": "/usr/bin"}, "python:3.11-slim")
    assert list(image_findings(image, RUNC_ONLY, make_snapshot(driver="550.54.15", cuda_driver="12.4"))) == []


def test_cuda_from_the_image_frameworks_counts_as_a_cuda_image() -> None:
    snap = make_snapshot(frameworks=[torch_build("2.5.1+cu124", "12.4")])
    findings = list(image_findings(_image({}, "myorg/train:1"), RUNC_ONLY, snap))
    assert _codes(findings) == [("gpu-runtime-missing", Severity.WARNING)]
    assert ("CUDA in image", "12.4") in [(e.fact, e.value) for e in findings[0].evidence]


def test_driver_too_old_for_the_image() -> None:
    snap = make_snapshot(driver="545.23.08", cuda_driver="12.3")
    findings = list(image_findings(_image(CUDA_ENV), WITH_NVIDIA, snap))
    assert _codes(findings) == [("driver-too-old", Severity.ERROR)]
    f = findings[0]
    assert "NVIDIA_REQUIRE_CUDA (cuda>=12.4 …) is not met by driver 545.23.08 (supports CUDA 12.3)" in f.message
    assert ("NVIDIA_REQUIRE_CUDA", REQUIRE_124) in [(e.fact, e.value) for e in f.evidence]
    assert ("driver", "545.23.08") in [(e.fact, e.value) for e in f.evidence]


def test_driver_too_old_and_no_runtime_together() -> None:
    snap = make_snapshot(driver="545.23.08", cuda_driver="12.3")
    assert _codes(list(image_findings(_image(CUDA_ENV), RUNC_ONLY, snap))) == [
        ("driver-too-old", Severity.ERROR), ("gpu-runtime-missing", Severity.ERROR)]


@pytest.mark.parametrize("value", ["true", "TRUE", "1", "yes"])
def test_nvidia_disable_require_suppresses_driver_too_old(value: str) -> None:
    snap = make_snapshot(driver="545.23.08", cuda_driver="12.3")
    env = {**CUDA_ENV, "NVIDIA_DISABLE_REQUIRE": value}
    assert list(image_findings(_image(env), WITH_NVIDIA, snap)) == []


def test_disable_require_false_keeps_the_check() -> None:
    snap = make_snapshot(driver="545.23.08", cuda_driver="12.3")
    env = {**CUDA_ENV, "NVIDIA_DISABLE_REQUIRE": "false"}
    assert _codes(list(image_findings(_image(env), WITH_NVIDIA, snap))) == [("driver-too-old", Severity.ERROR)]


def test_forward_compat_branch_driver_is_not_reported() -> None:
    # 535.104.05 reports CUDA 12.2 but is in the image's tesla 535 branch: unknown (brand), so no finding.
    snap = make_snapshot(driver="535.104.05", cuda_driver="12.2")
    assert list(image_findings(_image(CUDA_ENV), WITH_NVIDIA, snap)) == []


def test_no_driver_means_no_require_check() -> None:
    assert list(image_findings(_image(CUDA_ENV), WITH_NVIDIA, make_snapshot())) == []
