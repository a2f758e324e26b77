"""GPU generations a build cannot serve (issue 14, w6-arch): JAX's compute-capability floor, Kepler product names,
and the CUDA a TensorFlow build was made with (from its loader's runtime file name or its wheel's folder name).
Real lines from the cited threads."""

from __future__ import annotations

import pytest

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.reports.extract_named import named_facts
from tests.reports import findings

M = load_matrices()


def _arch(text: str) -> list[tuple[Severity, str]]:
    return [(f.severity, f.message) for f in findings(text, M) if f.code == "arch-unsupported"]


def _builds(text: str) -> list[tuple[str, str, str | None]]:
    return [(b.name, b.version, b.cuda) for e in parse_environments(text, "t", M) for b in e.snapshot.frameworks]


# ---- GPU names of compute capability 3.0 / 3.5 (NVIDIA's legacy CUDA GPUs table) ---------------------------

@pytest.mark.parametrize(("line", "cc"), [
    # https://github.com/jax-ml/jax/issues/993
    ("The GPU is a Quadro K4000 with 410.48 drivers (manually installed, no `conda`).", "3.0"),
    # https://github.com/tensorflow/tensorflow/issues/29216
    ("- GPU model and memory: GTX770 4GB", "3.0"),
    # https://github.com/tensorflow/tensorflow/issues/26394
    ("- GPU model and memory: GTX 650 Ti", "3.0"),
    # https://github.com/leejet/stable-diffusion.cpp/issues/1150
    ("this repo can use my Nvidia GTX 770 for diffusion models like SDXL or z-image?", "3.0"),
])
def test_kepler_names_have_their_capability(line: str, cc: str) -> None:
    gpus = [g for e in parse_environments(line + "\nI use torch 2.1.0.\n", "t", M) for g in e.snapshot.gpu_list()]
    assert gpus, line
    row = M.gpu_arch.lookup_name(gpus[0].name)
    assert row is not None and row.cc == cc


def test_new_kepler_examples_do_not_shadow_other_names() -> None:
    """"GTX 780" (3.5) must not claim "GTX 780 Ti"'s row away, nor "GTX 660" a Maxwell or Pascal name."""
    assert (M.gpu_arch.lookup_name("GeForce GTX 780 Ti") or pytest.fail()).cc == "3.5"
    assert (M.gpu_arch.lookup_name("GeForce GTX 1660 Ti") or pytest.fail()).cc == "7.5"
    assert (M.gpu_arch.lookup_name("GeForce GTX 1060") or pytest.fail()).cc == "6.1"
    assert (M.gpu_arch.lookup_name("Quadro K2200") or pytest.fail()).cc == "5.0"


# ---- JAX: the lowest compute capability of the jaxlib GPU builds ---------------------------------------------

def test_jax_floor_rows() -> None:
    every = M.jax.arch_floor(None) or pytest.fail()
    assert every.min_cc == "3.5"  # every jaxlib GPU build: XLA's minimum
    assert (M.jax.arch_floor("0.4.3") or pytest.fail()).min_cc == "3.5"
    assert (M.jax.arch_floor("0.4.4") or pytest.fail()).min_cc == "5.2"  # Kepler dropped from default builds
    assert (M.jax.arch_floor("0.4.9+cuda11.cudnn86") or pytest.fail()).min_cc == "5.2"


# https://github.com/jax-ml/jax/issues/993 (the case's own text, shortened): no jaxlib version named.
JAX_993 = ("I'm struggling with installing `jax` with GPU support. I'm running Ubuntu 18.04 with CUDA 10.0 and "
           "CUDNN 7.6.1. The GPU is a Quadro K4000 with 410.48 drivers (manually installed, no `conda`).\n"
           "all with no success: `jax` keeps falling back to CPU.\n")

# https://github.com/jax-ml/jax/issues/15961: a Tesla K80 (3.7) with jaxlib 0.4.9, after Kepler left the builds.
JAX_15961 = """import jax
num_devices = jax.device_count()
No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)

### What jax/jaxlib version are you using?

jax==0.4.9 jaxlib==0.4.9+cuda11.cudnn86

### Which accelerator(s) are you using?

Tesla K80
"""


def test_jax_below_every_jaxlib_floor_is_an_error() -> None:
    assert ("jax", "?", None) in _builds(JAX_993)
    (severity, message), = _arch(JAX_993)
    assert severity is Severity.ERROR and "compute capability 3.0" in message and "3.5" in message


def test_jax_release_floor_applies_to_its_version() -> None:
    """K80 is 3.7: above XLA's 3.5, below the 5.2 of jaxlib >= 0.4.4; JAX's fallback line corroborates."""
    (severity, message), = _arch(JAX_15961)
    assert severity is Severity.ERROR and "5.2" in message and "jaxlib 0.4.9" in message
    finding = next(f for f in findings(JAX_15961, M) if f.code == "arch-unsupported")
    assert any("falling back to CPU" in e.value for e in finding.evidence)


@pytest.mark.parametrize("text", [
    # case 246 (jax-ml/jax, an RTX 3080 Ti): a supported GPU
    "import jax\nGPU: NVIDIA GeForce RTX 3080 Ti\n",
    # https://github.com/jax-ml/jax/issues/15961 with jax 0.4.3 (before the Kepler drop): K80 is above 3.5
    JAX_15961.replace("0.4.9", "0.4.3"),
])
def test_jax_floor_leaves_supported_gpus_alone(text: str) -> None:
    assert _arch(text) == []


def test_absent_jax_is_not_a_jax_install() -> None:
    """transformers-cli env prints "Jax version: not installed"; a traceback "No module named 'jax'"."""
    lines = ["- Jax version: not installed", "- JaxLib version: not installed",
             "ModuleNotFoundError: No module named 'jax'"]
    assert list(named_facts(lines, 0)) == []


# ---- TensorFlow: the CUDA its build was made with ---------------------------------------------------------------

# https://github.com/tensorflow/tensorflow/issues/41909 (a GTX 1080 Ti, 6.1: CUDA 10.1 compiles for it)
TF_41909 = ("2020-07-30 16:17:56.453813: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not "
            "load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n"
            "2020-07-30 16:17:58.751682: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1561] Found device 0 with "
            "properties: \n"
            "pciBusID: 0000:01:00.0 name: GeForce GTX 1080 Ti computeCapability: 6.1\n")
# https://github.com/tensorflow/tensorflow/issues/25807 (comment: tensorflow-gpu 2.0.0, GTX 960M)
TF_25807 = ("Error message: 2019-10-15 00:01:37.822980: W "
            "tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library "
            "'cudart64_100.dll'; dlerror: cudart64_100.dll not found\n")
# https://github.com/tensorflow/tensorflow/issues/45055 (tf-nightly 2.5, RTX3080): the 11.x name pins no minor
TF_45055 = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library "
            "'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n- GPU model and memory: NVIDIA RTX3080\n")
# https://github.com/jax-ml/jax/issues/4569: jaxlib's copy of the loader, not TensorFlow
JAX_4569 = (">>> import jax\n2020-10-14 00:38:37.574012: I external/org_tensorflow/tensorflow/stream_executor/platform/"
            "default/dso_loader.cc:48] Successfully opened dynamic library libcudart.so.10.0\n")
# https://github.com/fo40225/tensorflow-windows-wheel/issues/185 (case 607)
TF_607 = """环境配置：
win10
RTX3070ti
cuda11.2
安装https://github.com/fo40225/tensorflow-windows-wheel/tree/master/1.15.0/py37/CPU%2BGPU/cuda101cudnn76sse2
""" + ("2022-12-02 15:37:30.344596: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
       "dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n")


@pytest.mark.parametrize(("text", "cuda"), [(TF_41909, "10.1"), (TF_25807, "10.0"), (TF_607, "10.1")])
def test_tensorflow_build_cuda_from_its_loader_or_wheel(text: str, cuda: str) -> None:
    assert [b for b in _builds(text) if b[0] == "tensorflow"] == [("tensorflow", "?", cuda)]


def test_runtime_names_from_cuda_11_pin_no_build_cuda() -> None:
    assert [b for b in _builds(TF_45055) if b[0] == "tensorflow"] == []


def test_jaxlibs_loader_is_not_tensorflow() -> None:
    assert _builds(JAX_4569) == [("jax", "?", None)]


def test_tensorflow_built_before_the_gpu_is_a_warning_not_an_error() -> None:
    """TensorFlow's nvcc wrappers ship PTX of every capability, so a CUDA 10.1 build JIT-compiles on an RTX 30 GPU
    (slowly, and with cuDNN/cuBLAS that predate it: DeepLabCut/DeepLabCut#944 "takes to long and ended up
    failing"): a warning that says why, never an error."""
    (severity, message), = _arch(TF_607)
    assert severity is Severity.WARNING
    assert "CUDA 10.1" in message and "11.1" in message and "PTX" in message
    assert _arch(TF_41909) == []  # 6.1 is within what CUDA 10.1 compiles for


# ---- a bare model number and its full name are one GPU ---------------------------------------------------------

@pytest.mark.parametrize(("text", "name"), [
    # https://github.com/patrickbryant1/AFProfile/issues/8 (case 246)
    ("I am running a 3080 ti GPU. \n", "GeForce RTX 3080 Ti"),
    # https://github.com/TabbyML/tabby/issues/4309 (case 401)
    ("When browsing on NVIDIA.com for a Linux driver for a 3090ti, it recommends `570.169`.\n", "GeForce RTX 3090 Ti"),
    # https://github.com/pytorch/pytorch/issues/104417 (case 516)
    ("For context, I'm running an Nvidia 4070 Ti Super GPU on my Windows workstation PC which has CUDA 12.4.\n",
     "GeForce RTX 4070 Ti"),
    # https://github.com/pytorch/pytorch/issues/78275 (case 340): named again on a later line
    ("I ran the following code on a 1080 Ti and an A40 GPUs respectively (this is done on a cluster).\n"
     "1080 Ti yields\n", "GeForce GTX 1080 Ti"),
])
def test_a_bare_model_number_is_the_gpu_its_full_name_names(text: str, name: str) -> None:
    gpus = [g.name for e in parse_environments(text + "I use torch 2.1.0.\n", "t", M) for g in e.snapshot.gpu_list()]
    assert gpus[0] == name and gpus.count(name) == 1
    assert not any(g != name and name.lower().replace(" ", "").endswith(g.lower().replace(" ", "")) for g in gpus)
