"""Jetson: the reader knows the board (Linux aarch64), the pip index and CUDA-unavailable answers; the jetson-build
rule says cpu-only-build for a torch / TensorFlow that is not one of NVIDIA's Jetson builds.

Lines are real, from the threads named next to them."""

from __future__ import annotations

import pytest

from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_report
from envguard.reports.extract_jetson import CUDA_UNAVAILABLE, DEFAULT_INDEX, PIP_INDEX, jetson_facts
from envguard.rules import run_rules


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()


def _codes(text: str, matrices: Matrices) -> list[tuple[str, Severity]]:
    snapshot, notes = parse_report(text)
    return [(f.code, f.severity) for f in run_rules(snapshot, matrices, notes=notes).findings]


@pytest.mark.parametrize(("line", "framework", "index"), [
    # https://github.com/pytorch/pytorch/issues/168065 (GB200: the default index gives the CPU build)
    ("2. `pip install torch`", "torch", "default"),
    # https://github.com/pytorch/test-infra/pull/7652
    ("pip3 install torch torchvision --index-url https://download.pytorch.org/whl/cu128", "torch",
     "download.pytorch.org"),
    # https://github.com/tensorflow/tensorflow/issues/54446 (Jetson AGX, JetPack 4.6)
    ("pip install tensorflow", "tensorflow", "default"),
    # https://github.com/tevora-threat/Scout/issues/4 (Jetson Xavier, JetPack 4.2)
    ("icepick@ubuntu-xavier:/opt/Scout/scripts/Xavier$ sudo pip install --extra-index-url "
     "https://developer.download.nvidia.com/compute/redist/jp/v411 tensorflow-gpu==1.13.0rc0+nv19.2 --user",
     "tensorflow", "nvidia-jetson"),
])
def test_pip_index_shapes(line: str, framework: str, index: str) -> None:
    found = [m for m in jetson_facts([line], 0) if m.kind == PIP_INDEX]
    assert [(m.key, m.value) for m in found] == [(framework, index)]


def test_an_nvidia_wheel_file_is_no_index_fact() -> None:
    # https://github.com/luxai-qtrobot/tutorials/releases/tag/v0.0.1 (NVIDIA's JetPack 5 wheel)
    line = ("pip3 install https://developer.download.nvidia.cn/compute/redist/jp/v512/pytorch/"
            "torch-2.1.0a0+41361538.nv23.06-cp38-cp38-linux_aarch64.whl")
    kinds = {m.kind for m in jetson_facts([line], 0)}
    assert PIP_INDEX not in kinds and "nvidia_jetson_build" in kinds


@pytest.mark.parametrize("lines", [
    # https://github.com/Lmy0217/PyTorch-aarch64/issues/3
    ["I successfully install the torch on my jetson nano(Jetpack 4.4 [L4T 32.4.3]),but cuda.is_available() "
     "returns false"],
    # https://github.com/pinokiocomputer/pinokio/issues/1027 (the REPL answer on the next line)
    [">>> print(torch.cuda.is_available())", "False"],
])
def test_cuda_unavailable_shapes(lines: list[str]) -> None:
    assert [m.key for m in jetson_facts(lines, 0) if m.kind == CUDA_UNAVAILABLE] == ["torch"]


def test_is_available_true_is_not_unavailable() -> None:
    # https://github.com/conda-forge/pytorch-cpu-feedstock/issues/303
    assert not [m for m in jetson_facts(["torch.cuda.is_available() # will return true"], 0)
                if m.kind == CUDA_UNAVAILABLE]


_NANO_PIP = [
    "My device is Jetson Nano, using JetPack4.6.",  # https://github.com/pytorch/pytorch/issues/41975 (shape)
    "pip3 install torch torchvision torchaudio",
    ">>> import torch",
    ">>> torch.__version__",
    "'1.13.1'",
]


def test_default_index_torch_on_a_nano_with_cuda_unavailable_is_an_error(matrices: Matrices) -> None:
    text = "\n".join([*_NANO_PIP, ">>> torch.cuda.is_available()", "False"])
    assert ("cpu-only-build", Severity.ERROR) in _codes(text, matrices)


def test_default_index_torch_without_the_answer_is_a_warning(matrices: Matrices) -> None:
    assert _codes("\n".join(_NANO_PIP), matrices) == [("cpu-only-build", Severity.WARNING)]


def test_a_torch_newer_than_nvidia_built_for_jetpack4_is_an_error(matrices: Matrices) -> None:
    # NVIDIA's JetPack 4 builds stop at 1.10 (torch.toml [[jetson]]); 1.13 is not NVIDIA's build.
    text = "Jetson Nano (JetPack 4.6)\nPyTorch version: 1.13.0\n>>> torch.cuda.is_available()\nFalse"
    assert ("cpu-only-build", Severity.ERROR) in _codes(text, matrices)


def test_a_torch_nvidia_built_for_the_board_is_only_a_warning(matrices: Matrices) -> None:
    # torch 1.8.0 exists as NVIDIA's untagged JetPack 4 wheel: the answer alone is weak evidence.
    text = "Jetson Nano (JetPack 4.6)\nPyTorch version: 1.8.0\n>>> torch.cuda.is_available()\nFalse"
    assert _codes(text, matrices) == [("cpu-only-build", Severity.WARNING)]


def test_an_nv_tagged_build_is_left_alone(matrices: Matrices) -> None:
    text = ("Jetson AGX Orin, JetPack 5.1.2\npip3 install torch-2.1.0a0+41361538.nv23.06-cp38-cp38-linux_aarch64.whl\n"
            ">>> torch.cuda.is_available()\nFalse")
    assert not [c for c in _codes(text, matrices) if c[0] == "cpu-only-build"]


def test_a_jetson_containers_build_is_left_alone(matrices: Matrices) -> None:
    # https://github.com/dusty-nv/jetson-containers/issues/1495 (collect_env inside a jetson-containers build)
    text = "\n".join([
        "jetson-container build pytorch: cuda is not available",
        "PyTorch version: 2.8.0",
        "Python platform: Linux-5.15.136-tegra-aarch64-with-glibc2.35",
        "Is CUDA available: False",
        "CUDA runtime version: 12.2.140",
        "GPU models and configuration: GPU 0: Orin (nvgpu)",
    ])
    assert not [c for c in _codes(text, matrices) if c[0] == "cpu-only-build"]


def test_a_jetson_is_linux_aarch64_and_never_judged_by_the_x86_64_wheel(matrices: Matrices) -> None:
    # Before: the Nano was judged against the x86_64 cu102 wheel's arch list (sm_37 ... sm_70): a false error.
    text = "OS: Ubuntu 18.04\nJetson Nano\npip list:\ntorch        1.8.0\ntorchvision  0.9.0\n"
    snapshot, _ = parse_report(text)
    assert snapshot.host.arch == "aarch64"
    assert not [c for c in _codes(text, matrices) if c[1] is Severity.ERROR]


def test_default_index_tensorflow_on_a_jetson(matrices: Matrices) -> None:
    # https://github.com/tensorflow/tensorflow/issues/78983 (Jetson Orin NX, JetPack 6.0) / #54446 (pip install
    # tensorflow on a Jetson), with the TensorFlow answer shape of the TF install guide.
    text = ("NVIDIA JETSON ORIN NX 8GB UBUNTU 22.04, Jetpack 6.0\npip install tensorflow==2.16.1\n"
            "tensorflow version: 2.16.1\nNum GPUs Available:  0")
    assert ("cpu-only-build", Severity.ERROR) in _codes(text, matrices)


def test_knowledge_rows(matrices: Matrices) -> None:
    default = matrices.torch.aarch64_index("default")
    pytorch = matrices.torch.aarch64_index("download.pytorch.org")
    assert default is not None and default.is_cpu("2.10.0") and not default.is_cpu("2.11.0")
    assert pytorch is not None and pytorch.is_cpu("2.4.1") and not pytorch.is_cpu("2.5.0")
    nano = matrices.torch.jetson_builds(None, "5.3")
    assert nano is not None and str(nano.newest) == "1.10"
    assert matrices.torch.jetson_builds("6.0", "8.7") is None
    tx2 = matrices.tensorflow.jetson_builds(None, "6.2")
    assert tx2 is not None and str(tx2.newest) == "2.7" and tx2.jetpack == "4"
    assert matrices.tensorflow.jetson_builds("5.1.1", "8.7") is None  # JetPack 5's newest TensorFlow: not recorded


@pytest.mark.parametrize(("text", "expected"), [
    # https://github.com/Qengineering/Jetson-Nano-Ubuntu-20-image/issues/85 (a Nano: JetPack 4, NVIDIA's TF ends
    # at 2.7 there; 2.13 is the default index's CPU wheel)
    ("Hello, I installed this OS for my Jetson Nano but I cannot get Tensorflow to recognize my GPUs being installed"
     " on the board.\n\nI have tensorflow 2.13. Is there anything else I need for configuring GPU support with "
     "this flashed OS?", Severity.ERROR),
    # the same board with a release NVIDIA built for JetPack 4 (constructed from the row): it may be NVIDIA's
    ("Hello, I installed this OS for my Jetson Nano but I cannot get Tensorflow to recognize my GPUs being installed"
     " on the board.\n\nI have tensorflow 2.7.", Severity.WARNING),
    # NVIDIA's own build, named by its tag: nothing to say
    ("Jetson Nano, tensorflow 2.7.0+nv22.1\nTensorflow does not recognize my GPU", None),
])
def test_tensorflow_newer_than_nvidia_built_for_the_board(text: str, expected: Severity | None,
                                                          matrices: Matrices) -> None:
    found = [s for code, s in _codes(text, matrices) if code == "cpu-only-build"]
    assert (max(found, key=lambda s: s == Severity.ERROR) if found else None) == expected


@pytest.mark.parametrize(("sentence", "framework"), [
    ("TF 2.1.0 doesn't recognize my GPU.", "tensorflow"),  # tensorflow/tensorflow#39386
    ("Tensorflow is not detecting GPU but Pytorch is", "tensorflow"),  # tensorflow/tensorflow#48882
    ("Torch is not detecting cuda", "torch"),  # BayesWatch/nas-without-training#2 (title)
    # cotton6/COTTON-size-does-matter#22
    ("It seems Tensorflow doesn't detect your GPU, since I have put", "tensorflow"),
    ("If torch does not see the GPU, reinstall.", None),  # constructed: a condition states nothing
    ("torch sees the GPU fine", None),  # constructed
])
def test_a_sentence_saying_the_framework_does_not_see_the_gpu(sentence: str, framework: str | None) -> None:
    found = [m.key for m in jetson_facts([sentence], 0) if m.kind == CUDA_UNAVAILABLE]
    assert found == ([framework] if framework else [])


@pytest.mark.parametrize(("sentence", "framework"), [
    ("I had installed Tensorflow with pip.", "tensorflow"),  # tensorflow/tensorflow#62711
    ("4. Pip installed pytorch, transformers, accelerate, and bitsandbytes", "torch"),  # bitsandbytes#17
])
def test_a_sentence_saying_pip_installed_the_framework(sentence: str, framework: str) -> None:
    found = [(m.key, m.value) for m in jetson_facts([sentence], 0) if m.kind == PIP_INDEX]
    assert found == [(framework, DEFAULT_INDEX)]
