"""Driver facts in reports (issue 14, w4-driver): driver branches in prose, Jetson L4T host vs container releases,
CUDA error 804 read with the facts beside it, a report's CUDA of a newer major than its driver, NVML's error names
and the NVSwitch fabric manager. Every text is a real report line (source in the comment above it)."""

from __future__ import annotations

import pytest

from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_environments
from envguard.reports.extract_driver import driver_prose, jetson_releases
from envguard.reports.segment import normalize_report
from envguard.snapshot import DriverInfo
from tests.reports import error_messages as _errors


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()




def _drivers(text: str) -> list[str]:
    return [m.value for m in driver_prose(normalize_report(text), 0)]


# ---- driver branches in prose ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    # AIR-DISCOVER/ICRA2024-Sim2Real-AXS#5
    ("I use the RTX3090 whose version of the driver is 525 and the cuda version is 12.1 both in my PC and in the "
     "docker environment.", ["525"]),
    # system76/docs#1238
    ("the driver version 550 was built on top of cuda 12.4.", ["550"]),
    # ollama/ollama#6620
    ("It looks like driver 525 (aka, cuda driver 12.0) has problems with the cuda v12 library we compile against",
     ["525"]),
    # oobabooga/textgen#4407 (a full version after "drivers")
    ("Hi. Thanks for your answer. I'm updated NVIDIA drivers to 535.113.01", []),
    # gpustack/gpustack#1254: "can't" is about updating; a full version read off the machine is the machine's driver
    ("Currently my driver version is 535.129.03, since I can't just update this driver , do I have any other "
     "solutions?", ["535.129.03"]),
])
def test_driver_branch_in_prose(line: str, expected: list[str]) -> None:
    assert _drivers(line) == expected


@pytest.mark.parametrize("line", [
    # quokka-astro/quokka#199: a requirement, not the machine's driver
    "We need to upgrade the driver to 525.00 or higher.",
])
def test_driver_requirements_and_hedges_are_not_facts(line: str) -> None:
    assert _drivers(line) == []


def test_a_bare_branch_is_compared_by_branch(matrices: Matrices) -> None:
    """"525" meets CUDA 12.x's minor-version floor 525.60.13 (no driver-too-old for a cu121 torch), where the
    number 525 read as a version would be older than 525.60.13."""
    # AIR-DISCOVER/ICRA2024-Sim2Real-AXS#5 (the driver sentence), with a cu121 torch named in a pip line
    text = ("I use the RTX3090 whose version of the driver is 525.\n"
            "torch==2.1.2+cu121\n")
    env = parse_environments(text, "t", matrices)[0]
    assert isinstance(env.snapshot.driver, DriverInfo) and env.snapshot.driver.version == "525"
    assert "driver-too-old" not in _errors(text, matrices)


# ---- error 804 with and without facts -------------------------------------------------------------------------

# AIR-DISCOVER/ICRA2024-Sim2Real-AXS#5 (verbatim)
AXS = """Whenever I run the pytorch with cuda in the baseline docker, it shows the error:

"RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling \
NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non \
supported HW"

I use the RTX3090 whose version of the driver is 525 and the cuda version is 12.1 both in my PC and in the docker \
environment.
"""
# mistralai/mistral-inference#144 (title and nvidia-smi header): the driver, but no CUDA beside it
MISTRAL = """Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? \
Error 804: forward compatibility was attempted on non supported HW
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.147.05   Driver Version: 525.147.05   CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
"""
# SYSTRAN/faster-whisper#653: nvidia-smi's libcuda claims CUDA 12.1 on a 470 module (fixed by a reboot)
WHISPER = """RuntimeError: CUDA failed with error forward compatibility was attempted on non supported HW

NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 12.1
2080ti
"""


def test_804_with_an_older_driver_than_the_cuda_is_driver_too_old(matrices: Matrices) -> None:
    errors = _errors(AXS, matrices)
    assert "driver-too-old" in errors and "530.30.02" in errors["driver-too-old"][0]
    assert "driver-library-mismatch" not in errors  # the message is this finding's evidence, not a second cause


def test_804_beside_a_working_nvidia_smi_is_the_programs_cuda_beyond_the_driver(matrices: Matrices) -> None:
    # stop 26: nvidia-smi answering shows the module and the driver's own libcuda agree, so the newer user-mode driver
    # is a forward-compatibility libcuda the program's image brought (mistral#144 ran a vLLM image; the held-out
    # huggingface/text-embeddings-inference#47, driver 525 under a CUDA 12.2 image, was settled as driver too old)
    errors = _errors(MISTRAL, matrices)
    assert "driver-too-old" in errors and "driver-library-mismatch" not in errors


def test_804_when_the_loaded_libcuda_claims_the_cuda_is_a_mismatch(matrices: Matrices) -> None:
    errors = _errors(WHISPER + "I use CUDA 12.1\n", matrices)
    assert "driver-library-mismatch" in errors and "driver-too-old" not in errors


# ---- Jetson: L4T host vs container ----------------------------------------------------------------------------

def _jetson(text: str) -> list[tuple[str, str, int]]:
    return [(m.kind, m.value, m.tier) for m in jetson_releases(normalize_report(text), 0)]


def test_l4t_host_and_container_releases() -> None:
    # dusty-nv/jetson-containers#149
    found = _jetson("I tried to run r34.1 container on Jetson NX with version r32.6.\n"
                    "docker run --rm -it --gpus all nvcr.io/nvidia/l4t-ml:r34.1.0-py3 bash\n")
    assert ("l4t_image", "34.1", 1) in found and ("l4t", "32.6", 1) in found and ("l4t_image", "34.1.0", 2) in found
    # NVIDIA/nvidia-docker#1709 (a bare release in a report about a Jetson)
    assert ("l4t", "32.7", 1) in _jetson("Unfortunately I might be stuck on r32.7 for a while. Newer releases are a "
                                         "major change, and NVIDIA dropped support for some Jetson devices.")
    # /etc/nv_tegra_release (its documented first line)
    assert _jetson("# R32 (release), REVISION: 6.1, GCID: 27863751, BOARD: t186ref, EABI: aarch64, DATE: Mon Jul 26 "
                   "19:36:31 UTC 2021") == [("l4t", "32.6.1", 4)]
    # dusty-nv/jetson-inference#1419 (a container tag; no Jetson word, so no bare release is read)
    assert _jetson("The script works when you specify the base image `docker/build.sh "
                   "nvcr.io/nvidia/l4t-pytorch:r34.1.0-pth1.12-py3`.") == [("l4t_image", "34.1.0", 2)]


def test_a_bare_release_needs_a_jetson_report() -> None:
    assert _jetson("the r35.1 branch of our repo fails to build") == []


# dusty-nv/jetson-containers#169 (verbatim opening)
JP451_HOST = """Hello. I'm trying to run `nvcr.io/nvidia/l4t-pytorch:r34.1.0-pth1.12-py3` image on my Jetson AGX \
Xavier with Jetpack 4.5.1.
"""
# OE4T/meta-tegra#770: an r32.6.1 container on L4T R32.6.1 (fails for another reason: a mount error)
SAME_LINE = """Docker container does't work on `L4T R32.6.1`, when running the `docker` container got the following \
issue
root@jetson-agx-xavier-devkit:~# docker run -it --rm --runtime nvidia --network host nvcr.io/nvidia/l4t-ml:r32.6.1-py3
"""
# NVIDIA/nvidia-container-runtime#173: Jetson Nano on L4T r32.7.2 running l4t-base:r32.7.1
NANO = """I am using a Jetson Nano, which has just been flashed with the latest SD card image which contains L4T \
r32.7.2.
sudo docker run --rm -it --runtime nvidia nvcr.io/nvidia/l4t-base:r32.7.1 cat /usr/local/cuda-10.2/version.txt
"""


@pytest.mark.parametrize("text", [JP451_HOST])
def test_jetpack5_container_on_a_jetpack4_host_is_driver_too_old(text: str, matrices: Matrices) -> None:
    errors = _errors(text, matrices)
    assert "driver-too-old" in errors and "10.2" in errors["driver-too-old"][0]


@pytest.mark.parametrize("text", [SAME_LINE, NANO])
def test_a_container_of_the_hosts_release_line_is_not_driver_too_old(text: str, matrices: Matrices) -> None:
    assert "driver-too-old" not in _errors(text, matrices)


def test_l4t_table_lookups(matrices: Matrices) -> None:
    images = matrices.cuda_images
    assert str(images.l4t("r32.6.1").cuda) == "10.2"  # type: ignore[union-attr]
    assert str(images.l4t("35.5.0").cuda) == "11.4"  # type: ignore[union-attr] # no r35.5 row: every r35 agrees
    assert images.l4t("r32.3.1") is None  # r32 rows disagree (10.0 vs 10.2): unknown, not a guess
    assert str(images.jetpack("4.5.1").cuda) == "10.2"  # type: ignore[union-attr]


# ---- a report's CUDA of a newer major than its driver ----------------------------------------------------------

def test_reported_cuda_major_above_the_driver(matrices: Matrices) -> None:
    # eullm/eullm#428 (the measured sentence)
    text = ("The driver reports CUDA 12020; torch built for cu130 refuses to initialise, torch built for cu129 runs "
            "on the A100s without complaint.")
    errors = _errors(text, matrices)
    assert "driver-too-old" in errors and "580" in errors["driver-too-old"][0]


def test_a_minor_above_the_driver_is_not_judged(matrices: Matrices) -> None:
    # Azure/azhpc-images#343: nvcc 12.4 on a driver of CUDA 12.2 (minor-version compatibility covers it)
    text = """| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |
Cuda compilation tools, release 12.4, V12.4.131
"""
    assert "driver-too-old" not in _errors(text, matrices)


# ---- NVML error names and the fabric manager, end to end -------------------------------------------------------

@pytest.mark.parametrize(("text", "code"), [
    # tensorpack/tensorpack#1244
    ("> tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH\n- tensorflow 1.14\n",
     "driver-library-mismatch"),
    # rapidsai/dask-cuda#949
    ("pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.\n",
     "driver-library-mismatch"),
    # pytorch/pytorch#129749 (fabric manager refused to start)
    ("* Driver Version: 550.54.15,    CUDA Version: 12.4 : **doesn't work**\n"
     "due to `NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.54.15`\n",
     "driver-library-mismatch"),
    # wookayin/gpustat#110
    ("**pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded**\n", "driver-missing"),
    # dstackai/dstack#2348
    ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
     "before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized\n",
     "driver-missing"),
])
def test_driver_messages_end_to_end(text: str, code: str, matrices: Matrices) -> None:
    assert code in _errors(text, matrices)


def test_fabric_manager_message_gives_the_loaded_driver(matrices: Matrices) -> None:
    # NVIDIA/gpu-operator#544
    text = ("nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with "
            "driver version 530.41.03. Please update with matching NVIDIA driver package.\n")
    driver = parse_environments(text, "t", matrices)[0].snapshot.driver
    assert isinstance(driver, DriverInfo) and driver.version == "530.41.03"


def test_a_bare_branch_in_the_sentence_after_one_naming_the_driver() -> None:
    """dmlc/xgboost#11242 (a maintainer's report): "Update the GPU driver to the latest. I have run tests with 570,
    and the issue is fixed there. The hang might be reproduced with 560." — 570 is a driver; 560 is hedged."""
    from envguard.reports.extract_driver import driver_prose

    line = ("Actual fix: Update the GPU driver to the latest. I have run tests with 570, and the issue is fixed there. "
            "The hang might be reproduced with 560.")
    assert [(m.value, m.tier) for m in driver_prose([line], 0)] == [("570", 1)]
    # constructed: without a driver named before, a number after "with" is nothing
    assert list(driver_prose(["I have run tests with 570 samples and it works."], 0)) == []
