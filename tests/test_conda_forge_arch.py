"""conda-forge pytorch builds: recognised in reports, judged by conda-forge's own arch lists (w6-conda).

Real lines, each with the thread it was read from.
"""

from __future__ import annotations

import pytest

from envguard.archs import runs_on
from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_environments
from envguard.reports.extract import prose
from envguard.reports.extract_conda_forge import TORCH_CHANNEL, TORCH_CONDA_BUILD, conda_forge_facts
from envguard.rules import run_rules


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()


def _findings(text: str, matrices: Matrices) -> list[tuple[str, Severity]]:
    out = []
    for env in parse_environments(text, "t", matrices):
        out += [(f.code, f.severity) for f in run_rules(env.snapshot, matrices, notes=env.notes).findings]
    return out


# ---- (b) recognising a conda-forge torch ---------------------------------------------------------------------

@pytest.mark.parametrize(("line", "build"), [
    # https://github.com/conda-forge/pytorch-cpu-feedstock/issues/527 (conda list, channel column)
    ("  pytorch                    2.12.1      cuda130_generic_py314_h1da07bd_200  conda-forge",
     "cuda130_generic_py314_h1da07bd_200"),
    # https://github.com/prefix-dev/pixi/issues/4392 (pixi list: size, kind and the channel URL)
    ("pytorch                      2.5.1           cuda126_py312h1763f6d_306  35.3 MiB    conda  "
     "https://conda.anaconda.org/conda-forge/", "cuda126_py312h1763f6d_306"),
    # the same thread's libtorch row
    ("libtorch                     2.5.1           cuda126_hebb32c0_306       490.2 MiB   conda  "
     "https://conda.anaconda.org/conda-forge/", "cuda126_hebb32c0_306"),
    # constructed: a mirror's conda-forge channel column in the shape of https://github.com/state-spaces/mamba/issues/267
    # (its version and build fields are illustrative, not that thread's)
    ("pytorch                   2.1.2           cuda120_py311h25b6552_301    "
     "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge", "cuda120_py311h25b6552_301"),
])
def test_conda_list_rows_name_the_channel(line: str, build: str) -> None:
    found = list(conda_forge_facts([line], 0))
    assert [m.value for m in found if m.kind == TORCH_CHANNEL] == ["conda-forge"]
    assert [m.value for m in found if m.kind == TORCH_CONDA_BUILD] == [build]


def test_pytorch_channel_rows_are_not_conda_forge() -> None:
    # https://github.com/pytorch/pytorch/issues/72957 ([conda] row of the pytorch channel)
    line = "[conda] pytorch                   1.10.2          py3.7_cuda10.2_cudnn7.6.5_0    pytorch"
    assert list(conda_forge_facts([line], 0)) == []


def test_transaction_gives_channel_build_and_platform() -> None:
    # https://github.com/conda-forge/pytorch-cpu-feedstock/issues/303 (conda's transaction listing, linux-aarch64)
    line = "  cuda-cudart        conda-forge/linux-aarch64::cuda-cudart-12.6.77-h3ae8b8a_0 "
    assert list(conda_forge_facts([line], 0)) == []
    plan = "  pytorch            conda-forge/linux-aarch64::pytorch-2.5.1-cuda126_generic_py313_h4d9c8d4_207"
    kinds = {m.kind: m.value for m in conda_forge_facts([plan], 0)}
    assert kinds == {TORCH_CHANNEL: "conda-forge", TORCH_CONDA_BUILD: "cuda126_generic_py313_h4d9c8d4_207",
                     "platform": "linux-aarch64"}


@pytest.mark.parametrize(("line", "value"), [
    # https://github.com/conda-forge/pytorch-cpu-feedstock/issues/303
    ("Yesterday at work tried to use the latest cuda-enabled `pytorch` conda-forge package on a `linux-aarch64` "
     "platform, the Jetson Orin", "conda-forge|cuda"),
    # https://github.com/esa/AnomalyMatch/pull/11
    ("Replace `pytorch-cuda=12.4` with `pytorch-gpu` (conda-forge meta-package)", "conda-forge|cuda"),
    ("CONDA_OVERRIDE_CUDA=12 conda install -c conda-forge pytorch", "conda-forge"),
])
def test_prose_names_conda_forge_pytorch(line: str, value: str) -> None:
    assert [m.value for m in conda_forge_facts([line], 0) if m.kind == TORCH_CHANNEL] == [value]


def test_both_channels_named_is_not_read() -> None:
    # https://github.com/NixOS/nixpkgs/pull/249259: conda-forge and the pytorch channel together
    line = ("$ micromamba create --dry-run --name pytorch --channel conda-forge --channel pytorch --channel nvidia "
            "pytorch=2.0.1=py3.10_cuda11.8_cudnn8.7.0_0")
    assert [m for m in conda_forge_facts([line], 0) if m.kind == TORCH_CHANNEL] == []


# ---- (a) knowledge -------------------------------------------------------------------------------------------

def test_conda_forge_rows(matrices: Matrices) -> None:
    rows = matrices.torch.conda_forge_builds("2.5.1", "12.6", "linux-aarch64")
    assert [r.sass for r in rows] == [("5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0")]
    assert all("pytorch-cpu-feedstock/blob/" in r.prov.source for r in matrices.torch.conda_forge)
    # sm_87 joined the CUDA 13 linux-aarch64 list with recipe build 2 of 2.13.0 (commit 4518b3a9)
    assert [("8.7" in r.sass) for r in matrices.torch.conda_forge_builds("2.13.0", "13.0", "linux-aarch64", 2)] \
        == [True]
    assert [("8.7" in r.sass) for r in matrices.torch.conda_forge_builds("2.12.1", "13.0", "linux-aarch64")] \
        == [False]
    assert matrices.torch.conda_forge_builds("1.13.1", "11.8", "linux-64") == ()


def test_tegra_sass_runs_only_on_its_own_capability() -> None:
    # CUDA Programming Guide: "Binary compatibility is supported only for the desktop. It is not supported for Tegra."
    assert runs_on("8.7", ("8.0", "8.6"), ())
    assert not runs_on("8.7", ("8.0", "8.6"), (), integrated=True)
    assert runs_on("8.7", ("8.7",), (), integrated=True)
    assert runs_on("8.7", (), ("8.0",), integrated=True)


# ---- (c) Jetson names in prose -------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "cc"), [
    ("Jetson Orin", "8.7"), ("AGX Orin", "8.7"), ("Orin Nano", "8.7"), ("Orin NX", "8.7"),
    ("Jetson Orin NX 16GB", "8.7"),
    ("AGX Xavier", "7.2"), ("Xavier NX", "7.2"), ("Jetson Xavier", "7.2"), ("TX2", "6.2"), ("Jetson TX1", "5.3"),
    ("Jetson Nano", "5.3"),
])
def test_jetson_names_resolve(name: str, cc: str, matrices: Matrices) -> None:
    row = matrices.gpu_arch.lookup_name(name)
    assert row is not None and row.cc == cc


@pytest.mark.parametrize(("text", "gpu"), [
    # https://github.com/dusty-nv/jetson-containers/issues/1220
    ("Flash Attention installation fails on Jetson AGX Orin with the error:", "Jetson AGX Orin"),
    # https://github.com/jax-ml/jax/issues/22723
    ("This is the error using the NVIDIA Jetson Orin Nano:", "Jetson Orin Nano"),
    # https://github.com/pytorch/pytorch/issues/145560
    ("I am using Jetpack 6.2 with cuda12.4 on a Jetson orin agx developer kit.", "Jetson orin"),
    # constructed sentences (no real thread found for these two names in prose)
    ("I run it on my Xavier NX with JetPack 5.1.", "Xavier NX"),
    ("The board is an AGX Xavier.", "AGX Xavier"),
])
def test_jetson_names_in_prose(text: str, gpu: str, matrices: Matrices) -> None:
    assert [m.value for m in prose([text], 0) if m.kind == "gpu"] == [gpu]
    assert matrices.gpu_arch.lookup_name(gpu) is not None


# ---- (d) the rule --------------------------------------------------------------------------------------------

def test_orin_with_conda_forge_cuda13_build_is_an_error(matrices: Matrices) -> None:
    # https://github.com/conda-forge/pytorch-cpu-feedstock/issues/527 (title, conda list row, nv_tegra_release)
    text = ("Compute capability issue on Jetson AGX Orin with CUDA 13 and pytorch != 2.10\n"
            "  pytorch                    2.12.1      cuda130_generic_py314_h1da07bd_200  conda-forge\n"
            "# R39 (release), REVISION: 2.0, GCID: 45755727, BOARD: generic, EABI: aarch64, DATE: Mon Jun  1\n")
    assert ("arch-unsupported", Severity.ERROR) in _findings(text, matrices)


def test_orin_with_conda_forge_build_of_unknown_version_is_a_warning(matrices: Matrices) -> None:
    # https://github.com/conda-forge/pytorch-cpu-feedstock/issues/303: no version, build string or arm variant
    # given; the tegra (CUDA 12.9) and 2.13.0 build-2 (CUDA 13) builds have sm_87, so only a warning.
    text = ("Yesterday at work tried to use the latest cuda-enabled `pytorch` conda-forge package on a "
            "`linux-aarch64` platform, the Jetson Orin, that is a really popular board in robotics.\n")
    found = _findings(text, matrices)
    assert ("arch-unsupported", Severity.WARNING) in found
    assert ("arch-unsupported", Severity.ERROR) not in found


def test_desktop_gpu_judged_by_conda_forge_list_not_the_wheels(matrices: Matrices) -> None:
    # https://github.com/prefix-dev/pixi/issues/4392 row with a constructed GPU line: a GTX 1080 (6.1) runs the
    # sm_60 SASS of the conda-forge CUDA 12.6 build, although the pip wheels of other releases lack Pascal.
    text = ("pytorch                      2.5.1           cuda126_py312h1763f6d_306  35.3 MiB    conda  "
            "https://conda.anaconda.org/conda-forge/\nGPU 0: NVIDIA GeForce GTX 1080 (UUID: GPU-1)\n")
    assert not [f for f in _findings(text, matrices) if f[0] == "arch-unsupported"]
    k80 = text.replace("NVIDIA GeForce GTX 1080", "Tesla K80")
    assert ("arch-unsupported", Severity.ERROR) in _findings(k80, matrices)
