"""Two copies of one library in a report: the cuDNN/NCCL a program reports *loaded* against the one its build needs
or the one installed for it (envguard.reports.libraries → envguard.rules.loaded). Real lines: the corpus cases
named in each test (tests/data/reports, source thread in case.json) and the public threads cited next to them."""

from __future__ import annotations

import pytest

from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_environments
from envguard.reports.libraries import library_facts, paddle_cudnn_banner
from envguard.reports.mentions import MESSAGE, PROSE, TOOL
from tests.reports import worst_severity as errors


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()




# ---- extractors ----------------------------------------------------------------------------------

def test_torch_nccl_version_output_on_the_next_line() -> None:
    # case 148 (verl-project/verl#6621): `python -c` then the tuple
    lines = ['root@18c61a50cac8:/# python -c "import torch;print(torch.cuda.nccl.version())"', "(2, 28, 9)"]
    found = list(library_facts(lines, 0))
    assert [(m.kind, m.value, m.line, m.tier, m.key) for m in found] == [("nccl_loaded", "2.28.9", 2, TOOL, "torch")]


def test_torch_nccl_version_int_and_sentence_forms() -> None:
    # torch < 1.13 returned ncclGetVersion()'s int (2708 = 2.7.8, nccl.h NCCL_VERSION_CODE); case 256 (NVIDIA/nccl#1171)
    assert [m.value for m in library_facts([">>> torch.cuda.nccl.version()", "2708"], 0)] == ["2.7.8"]
    sentence = "But the output using `print(torch.cuda.nccl.version())` is 2.19.3"
    assert [(m.value, m.tier) for m in library_facts([sentence], 0)] == [("2.19.3", MESSAGE)]
    # a call with no output after it states nothing
    assert list(library_facts([">>> torch.cuda.nccl.version()", ">>> exit()"], 0)) == []


def test_nccl_debug_and_nccl_tests_banners() -> None:
    # NCCL_DEBUG=INFO (a Leonardo cluster log) and nccl-tests' header (src/common.cu writeDeviceReport)
    lines = ["lrdn2296:4063850:4063850 [1] NCCL INFO NCCL version 2.22.3+cuda12.2",
             "# nccl-tests version 2.17.6 nccl-headers=22602 nccl-library=22602"]
    found = list(library_facts(lines, 0))
    assert [(m.kind, m.value, m.key, m.how) for m in found] == [
        ("nccl_loaded", "2.22.3", "12.2", "NCCL_DEBUG: NCCL version"),
        ("nccl_loaded", "2.26.2", "nccl-tests", "nccl-tests: nccl-library")]


def test_dpkg_rows_and_sentences_name_the_nccl_packages_cuda() -> None:
    # dpkg -l | grep nccl as pasted (wide and narrow columns); case 315 (NVIDIA/nccl-tests#6)
    lines = ["ii  libnccl2                               2.27.7-1+cuda12.4                            amd64        "
             "NVIDIA Collective Communication Library (NCCL) Runtime",
             "ii  libnccl-dev   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library (NCCL) Development",
             "By using `NCCL_DEBUG=WARN` I notice that my nccl depends on a different CUDA version (11.0) than I have "
             "on my system(10.2)."]
    found = list(library_facts(lines, 0))
    assert [(m.kind, m.value, m.key, m.tier) for m in found] == [
        ("nccl_package", "2.27.7", "12.4", TOOL), ("nccl_package", "2.21.5", "12.4", TOOL),
        ("nccl_package", "", "11.0", PROSE)]


def test_a_hedged_or_other_programs_sentence_sets_no_nccl_cuda() -> None:
    assert list(library_facts(["If NCCL was built for CUDA 11.0 it would not load here."], 0)) == []
    assert list(library_facts(["I built nccl-tests compiled with CUDA 12.1 (make CUDA_HOME=...)"], 0)) == []


def test_paddle_version_show_is_the_wheels_build() -> None:
    # case 344 (PaddlePaddle/Paddle#58914): untagged build; PaddlePaddle docs paddle.version.show (tagged form)
    untagged = [">>> paddle.version.show()", "commit: 3a1b1659a405a044ce806fbe027cc146f1193e6d", "cuda: 11.2",
                "cudnn: 8.2.1", "xpu: False", "xpu_xccl: False", "cinn: False"]
    assert [(m.kind, m.value) for m in library_facts(untagged, 0)] == [
        ("paddle_cuda", "11.2"), ("paddle_cudnn", "8.2.1")]
    tagged = ["full_version: 2.2.0", "major: 2", "minor: 2", "patch: 0", "rc: 0", "cuda: '10.2'", "cudnn: '7.6.5'"]
    assert [(m.kind, m.value) for m in library_facts(tagged, 0)] == [
        ("package", "2.2.0"), ("paddle_cuda", "10.2"), ("paddle_cudnn", "7.6.5")]
    cpu = ["full_version: 2.5.1", "major: 2", "minor: 5", "patch: 1", "rc: 0", "cuda: False", "cudnn: False"]
    assert [m.kind for m in library_facts(cpu, 0)] == ["package", "paddle_cpu", "paddle_cpu"]
    # a "commit:" line of something else, without cuda and cudnn after it, is not paddle.version.show()
    assert list(library_facts(["commit: 3a1b1659a405a044ce806fbe027cc146f1193e6d", "cuda: 11.2"], 0)) == []


def test_paddle_prints_cudnn_9_as_90_point() -> None:
    # gpu_resources.cc prints cudnnGetVersion() as v/1000 "." (v%1000)/100: 90100 -> "90.1", 91000 -> "91.0"
    assert paddle_cudnn_banner("90.1") == "9.1"
    assert paddle_cudnn_banner("91.0") == "9.10"
    assert paddle_cudnn_banner("8.2") == "8.2"


# ---- facts and rules on whole reports -----------------------------------------------------------------

CASE_148 = """root@18c61a50cac8:/# python -c "import torch;print(torch.cuda.nccl.version())"
(2, 28, 9)
root@18c61a50cac8:/# pip show nvidia-nccl-cu13
Name: nvidia-nccl-cu13
Version: 2.30.4
Required-by: torch
"""


def test_nccl_in_use_older_than_the_installed_wheel(matrices: Matrices) -> None:
    assert errors(CASE_148, matrices) == {"nccl-mismatch": Severity.ERROR}
    snapshot = parse_environments(CASE_148, "t", matrices)[0].snapshot
    assert [(lib.name, lib.version, lib.source) for lib in snapshot.libraries] == [("nccl", "2.28.9", "loaded:torch")]
    assert not isinstance(snapshot.nccl, tuple) or snapshot.nccl[0].version == "2.28.9"


def test_nccl_in_use_equal_or_newer_than_the_wheel_is_fine(matrices: Matrices) -> None:
    same = CASE_148.replace("(2, 28, 9)", "(2, 30, 4)")
    newer = CASE_148.replace("(2, 28, 9)", "(2, 31, 0)")
    assert "nccl-mismatch" not in errors(same, matrices)
    assert "nccl-mismatch" not in errors(newer, matrices)


def test_nccl_tests_library_is_not_compared_with_a_python_wheel(matrices: Matrices) -> None:
    text = ("# nccl-tests version 2.17.6 nccl-headers=22602 nccl-library=22602\n"
            "Name: nvidia-nccl-cu12\nVersion: 2.27.3\n")
    assert "nccl-mismatch" not in errors(text, matrices)


def test_torch_nccl_differing_from_the_system_package_is_not_a_fault(matrices: Matrices) -> None:
    # case 256 (NVIDIA/nccl#1171): the image's libnccl2 is 2.17.1, torch reports its own 2.19.3, nothing fails
    text = ("ii  libnccl2   2.17.1-1+cuda12.1   amd64   NVIDIA Collective Communication Library (NCCL) Runtime\n"
            "But the output using `print(torch.cuda.nccl.version())` is 2.19.3\n"
            "docker image : pytorch/pytorch:2.2.0-cuda12.1-cudnn8-devel\n")
    assert not {c for c, s in errors(text, matrices).items() if s is Severity.ERROR}


def test_nccl_package_for_another_cuda_major_than_the_toolkit(matrices: Matrices) -> None:
    dpkg = "ii  libnccl2   2.9.8-1+cuda11.0   amd64   NVIDIA Collective Communication Library (NCCL) Runtime\n"
    nvcc = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 10.2, V10.2.89\n"
    assert errors(dpkg + nvcc, matrices).get("nccl-mismatch") is Severity.ERROR
    same = nvcc.replace("release 10.2, V10.2.89", "release 11.2, V11.2.152")
    assert "nccl-mismatch" not in errors(dpkg + same, matrices)


CASE_344 = """>>> paddle.version.show()
commit: 3a1b1659a405a044ce806fbe027cc146f1193e6d
cuda: 11.2
cudnn: 8.2.1
xpu: False

>>> paddle.utils.run_check()
W1110 17:34:13.218151  3418 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 7.5, Driver API \
Version: 11.4, Runtime API Version: 11.3
W1110 17:34:13.224603  3418 gpu_resources.cc:149] device: 0, cuDNN Version: 5.1.
"""


def test_paddle_loads_a_cudnn_of_another_major_than_its_build(matrices: Matrices) -> None:
    assert errors(CASE_344, matrices) == {"cudnn-mismatch": Severity.ERROR}
    snapshot = parse_environments(CASE_344, "t", matrices)[0].snapshot
    paddle = snapshot.framework("paddle")
    assert paddle is not None and (paddle.version, paddle.cuda, paddle.cudnn) == ("not reported", "11.2", "8.2.1")
    # the show() block's "cuda: 11.2" is the wheel's build, not a CUDA toolkit of the machine
    assert [tk.version for tk in snapshot.toolkit_list()] == ["11.3"]


def test_paddle_loaded_cudnn_lower_minor_warns_same_or_newer_is_fine(matrices: Matrices) -> None:
    assert errors(CASE_344.replace("cuDNN Version: 5.1.", "cuDNN Version: 8.1."), matrices) == {
        "cudnn-mismatch": Severity.WARNING}
    assert "cudnn-mismatch" not in errors(CASE_344.replace("cuDNN Version: 5.1.", "cuDNN Version: 8.4."), matrices)


def test_paddle_cudnn_9_banner_is_read_as_9(matrices: Matrices) -> None:
    text = CASE_344.replace("cudnn: 8.2.1", "cudnn: 9.0.0").replace("cuDNN Version: 5.1.", "cuDNN Version: 90.1.")
    snapshot = parse_environments(text, "t", matrices)[0].snapshot
    assert [lib.version for lib in snapshot.libraries if lib.source == "loaded:paddle"] == ["9.1"]
    assert "cudnn-mismatch" not in errors(text, matrices)


def test_a_report_that_only_shows_dnn_library_not_found_is_read(matrices: Matrices) -> None:
    # case 220 (googlecolab/colabtools#3012): the catalogued message is the one fact, and it is judged
    text = "**Describe the current behavior**\nDNN library is not found for Convolution operation\n"
    assert errors(text, matrices) == {"cudnn-mismatch": Severity.ERROR}
