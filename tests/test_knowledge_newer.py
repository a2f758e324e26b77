"""Issue 15: a release newer than the matrices is judged by what can be known; `matrix cuda` answers the newest
CUDA with its unknown floor said; the jax plugin's cuDNN range is a verdict."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from envguard.cli import main
from envguard.knowledge import Matrices, load_matrices
from envguard.query import cuda_for_driver
from envguard.rules import run_rules
from envguard.rules.jax import JaxPluginRule
from envguard.snapshot import Distribution, FrameworkBuild
from tests.fakes import gpu, linux_python, make_snapshot, torch_build


@pytest.fixture(scope="module")
def m() -> Matrices:
    return load_matrices()


# ---- newer than the matrices ---------------------------------------------------------------------------------


def _torch_216(cudnn_installed: str) -> list[Distribution]:
    return [Distribution("torch", "2.16.0+cu134", ("nvidia-cudnn-cu13==9.30.0.1", "nvidia-nccl-cu13==2.31.1",
                                                   "cuda-toolkit[cudart]==13.4.1; platform_system == 'Linux'",
                                                   "filelock")),
            Distribution("nvidia-cudnn-cu13", cudnn_installed), Distribution("nvidia-nccl-cu13", "2.31.1")]


def test_a_release_newer_than_the_matrices_is_judged_not_refused(m: Matrices) -> None:
    build = torch_build("2.16.0+cu134", "13.4", "9.30.0.1", nccl="2.31.1")
    h100 = gpu("NVIDIA H100 80GB HBM3", "9.0")
    # The CUDA of its local label still meets the CUDA 13 family floor: an old driver is a verdict.
    old = make_snapshot(driver="575.51.03", gpus=[h100], frameworks=[build], packages=_torch_216("9.30.0.1"),
                        python=linux_python("3.12.3"))
    codes = [f.code for f in run_rules(old, m).findings]
    assert "driver-too-old" in codes
    # Its Requires-Dist pins still judge the NVIDIA wheels.
    snap = make_snapshot(driver="580.95.05", gpus=[h100], frameworks=[build], packages=_torch_216("9.29.0.1"),
                         python=linux_python("3.12.3"))
    findings = run_rules(snap, m).findings
    assert [f.code for f in findings if f.severity.name == "ERROR"] == ["cudnn-mismatch"]
    (newer,) = [f for f in findings if f.code == "unknown-version" and "newer than" in f.message]
    assert newer.severity.name == "INFO"
    assert "CUDA 13.4 from torch/version.py" in newer.message
    assert "nvidia-cudnn-cu13==9.30.0.1" in newer.message
    assert "supported Python range and its compiled architectures are unknown" in newer.message
    assert any(e.value == "nvidia-nccl-cu13==2.31.1" for e in newer.evidence)
    assert "cuda-toolkit[cudart]==13.4.1" in newer.message and "filelock" not in newer.message
    assert "platform_system" not in newer.message  # markers are not the pin


# ---- matrix cuda: the newest CUDA, its unknown floor said ----------------------------------------------------


def test_matrix_cuda_answers_the_newest_release_and_says_its_floor_is_unknown(m: Matrices) -> None:
    answer = cuda_for_driver(m, "999")
    assert answer.newest is not None and str(answer.newest.cuda) == "13.5.0"
    assert answer.native(answer.newest) is None  # its own floor is not recorded: unknown, never "runs"
    assert answer.newest_native is not None and answer.native(answer.newest_native) is True
    assert {str(r.cuda) for r in answer.unknown_floor} >= {"13.5.0", "13.4.2", "13.4.1"}
    result = CliRunner().invoke(main, ["matrix", "cuda", "--driver", "999"])
    assert result.exit_code == 0
    assert "newest CUDA envguard knows: CUDA 13.5 GA" in result.stdout
    assert "full feature level is unknown" in result.stdout
    doc = json.loads(CliRunner().invoke(main, ["matrix", "cuda", "--driver", "999", "--format", "json"]).stdout)
    assert doc["newest"] == {"cuda": "13.5.0", "label": "13.5 GA", "full_feature_level": None}
    assert {"cuda": "13.4.1", "label": "13.4 GA"} in doc["driver_floor_unknown"]


def test_matrix_cuda_windows_cuda_13_is_unknown_not_assumed(m: Matrices) -> None:
    answer = cuda_for_driver(m, "999", "windows")
    assert 13 not in dict(answer.compatible_majors)  # no official Windows CUDA 13 floor was read
    assert answer.unknown_majors == (13,)
    result = CliRunner().invoke(main, ["matrix", "cuda", "--driver", "999", "--os", "windows"])
    assert "whether this driver runs CUDA 13.x applications is unknown" in result.stdout
    # An old driver is not told it may run what it cannot: 13.x needs >= 580 by its (Linux) family floor.
    linux_old = cuda_for_driver(m, "535.104.05")
    assert linux_old.unknown_floor == () and linux_old.newest == linux_old.newest_native


# ---- jax plugin cuDNN range ------------------------------------------------------------------------------


def _jax(
    jax_version: str, cudnn: str, plugin_requires: tuple[str, ...] = ()
) -> tuple[FrameworkBuild, list[Distribution]]:
    build = FrameworkBuild("jax", "jaxlib + jax-cuda12-plugin", jax_version, "cuda", "12", None, source="metadata")
    return build, [Distribution("jax", jax_version), Distribution("jaxlib", jax_version),
                   Distribution("jax-cuda12-plugin", jax_version, plugin_requires),
                   Distribution("nvidia-cudnn-cu12", cudnn), Distribution("nvidia-nccl-cu12", "2.27.3")]


def _judge(m: Matrices, jax_version: str, cudnn: str, plugin_requires: tuple[str, ...] = ()) -> list[str]:
    build, packages = _jax(jax_version, cudnn, plugin_requires)
    snap = make_snapshot(driver="580.95.05", gpus=[gpu("NVIDIA H100 80GB HBM3", "9.0")], frameworks=[build],
                         packages=packages, python=linux_python("3.12.3"))
    return [f.code for f in JaxPluginRule().check(snap, m)]


def test_jax_0112_with_cudnn_98_is_a_mismatch(m: Matrices) -> None:
    assert _judge(m, "0.11.2", "9.8.0.87") == ["cudnn-mismatch"]
    assert _judge(m, "0.11.0", "9.8.0.87") == []  # 0.11.0 accepted >= 9.8
    assert _judge(m, "0.11.2", "9.10.2.21") == []
    assert _judge(m, "0.11.2", "10.0.0.1") == ["cudnn-mismatch"]  # <10


def test_jax_plugin_metadata_wins_and_newer_releases_are_not_guessed(m: Matrices) -> None:
    pins = ('nvidia-cudnn-cu12<10.0,>=9.12; extra == "with-cuda"',)
    assert _judge(m, "0.13.0", "9.10.2.21") == []  # newer than the matrices and no metadata: unknown
    assert _judge(m, "0.13.0", "9.10.2.21", pins) == ["cudnn-mismatch"]  # its own Requires-Dist says so
    build, packages = _jax("0.11.2", "9.8.0.87")
    snap = make_snapshot(driver="580.95.05", gpus=[gpu("NVIDIA H100 80GB HBM3", "9.0")], frameworks=[build],
                         packages=packages, python=linux_python("3.12.3"))
    (finding,) = [f for f in run_rules(snap, m).findings if f.code == "cudnn-mismatch"]
    assert "accepts cuDNN <10,>=9.10.2.21" in finding.message or "accepts cuDNN >=9.10.2.21,<10" in finding.message
    assert any(e.source == "jax.toml 0.11.2 cuda12" for e in finding.evidence)
