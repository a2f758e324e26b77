"""Shapes the held-out set H showed the reader misjudging: collect_env's "No CUDA" placeholders on a machine without
CUDA (read as a GPU named "No CUDA", so every macOS report got cpu-only-build), nightlies that pair by date, and
versions in informal lists and in sentences that end beside them."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.reports import parse_environments
from envguard.reports.extract_stack import stack_packages
from tests.reports import error_codes, worst_severity

# pytorch/pytorch#152155 (corpus case 811), collect_env of an Apple-silicon Mac: its CUDA fields say "No CUDA".
MAC = """\
Python version: 3.10.15 (main, Oct 15 2024, 16:34:09) [Clang 15.0.0 (clang-1500.0.40.1)] (64-bit runtime)
Python platform: macOS-15.3.2-arm64-arm-64bit
Is CUDA available: False
CUDA runtime version: No CUDA
CUDA_MODULE_LOADING set to: N/A
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
cuDNN version: No CUDA
HIP runtime version: N/A

CPU:
Apple M2 Max

Versions of relevant libraries:
[pip3] numpy==2.2.5
[pip3] torch==2.7.0
[pip3] torchaudio==2.7.0
"""


def test_no_cuda_placeholders_name_no_gpu_and_a_mac_torch_is_no_finding() -> None:
    env = parse_environments(MAC, "t")[0].snapshot
    assert not env.gpu_list()
    assert error_codes(MAC) == set()


# pytorch/pytorch#164943 (corpus case 816): one night's builds from the nightly index.
NIGHTLY = """\
PyTorch version: 2.10.0.dev20251008
CUDA used to build PyTorch: None
Python platform: macOS-13.7.4-arm64-arm-64bit
[pip3] torch==2.10.0.dev20251008
[pip3] torchaudio=={audio}
[pip3] torchvision=={vision}
"""


def test_nightlies_of_the_same_night_are_companions() -> None:
    text = NIGHTLY.format(audio="2.8.0.dev20251008", vision="0.25.0.dev20251008")
    assert "companion-mismatch" not in worst_severity(text)


def test_nightlies_of_different_nights_are_a_warning() -> None:
    text = NIGHTLY.format(audio="2.8.0.dev20250901", vision="0.25.0.dev20251008")
    assert worst_severity(text)["companion-mismatch"] is Severity.WARNING


def test_a_release_torchaudio_beside_another_release_torch_is_still_an_error() -> None:
    """pytorch/pytorch#125254 (corpus case 812): torch 2.3.0 with torchaudio 2.2.2 is a real mismatch."""
    text = MAC.replace("torch==2.7.0", "torch==2.3.0").replace("torchaudio==2.7.0", "torchaudio==2.2.2")
    assert error_codes(text) == {"companion-mismatch"}


def test_versions_in_an_informal_list_with_a_dash() -> None:
    """ultralytics/ultralytics#487: "my torch version - 1. 10" / "my python version - 3.9"."""
    env = parse_environments("can you help me for this?\n\nmy torch version - 1. 10\nmy python version - 3.9\n",
                             "t")[0].snapshot
    assert env.python.version == "3.9"  # type: ignore[union-attr] # reason: read, so not Unavailable


def test_a_stack_version_at_a_sentence_end_is_read_and_the_next_sentence_does_not_hedge_it() -> None:
    """ultralytics/ultralytics#1367."""
    line = ("After upgrading to the latest version (ultralytics 8.0.52), I am getting cuda memory error. I could run "
            "it successfully by moving back to ultralytics 8.0.40. I did not check the versions in between to")
    assert [(m.value, m.key) for m in stack_packages([line], 0)] == [("8.0.40", "ultralytics")]


def test_a_longer_version_is_not_cut_at_a_dot() -> None:
    assert [m.value for m in stack_packages(["it broke with vllm 0.4.2.1 here"], 0)] == []


def test_conda_list_names_the_interpreter() -> None:
    """A conda list's own python row is the environment's Python (rows constructed in conda list's layout, as in
    facebookresearch/pytorch3d#1538); python_abi and a pip-style two-column row are not."""
    text = ("# Name                    Version                   Build  Channel\n"
            "python                    3.9.13               haa1d7c7_1\n"
            "python_abi                3.9                      2_cp39    conda-forge\n"
            "pytorch                   1.12.1          py3.9_cuda11.3_cudnn8.3.2_0    pytorch\n")
    env = parse_environments(text, "t")[0].snapshot
    assert env.python.version == "3.9.13"  # type: ignore[union-attr] # reason: read, so not Unavailable
    listing = parse_environments("Package    Version\npython     3.11.4\ntorch      2.1.0\n", "t")[0].snapshot
    assert not hasattr(listing.python, "version") or listing.python.version != "3.11.4"
