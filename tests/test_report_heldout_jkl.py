"""What the held-out sets J, K and L (stop 21) showed the report reader lacked, each class on its real lines.

Every line here is verbatim from the thread named above it unless marked constructed."""

from __future__ import annotations

import pytest

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.rules import run_rules
from envguard.snapshot import Snapshot
from tests.reports import first_snapshot

MATRICES = load_matrices()


def _read(text: str) -> Snapshot:
    return first_snapshot(text, MATRICES)


def _errors(text: str) -> set[str]:
    env = parse_environments(text, "report", MATRICES)[0]
    return {f.code for f in run_rules(env.snapshot, MATRICES, notes=env.notes).findings
            if f.severity is Severity.ERROR}


# PaddlePaddle/Paddle#52100: summary_env's block and the install command above it
_PADDLE_SUMMARY = (
    "python -m pip install paddlepaddle-gpu==2.4.2.post112 -f https://www.paddlepaddle.org.cn/whl/linux/mkl/avx/"
    "stable.html\n\n"
    "Paddle version: 2.4.2\nPaddle With CUDA: True\n\nOS: ubuntu 18.04\nPython version: 3.8.16\n\n"
    "CUDA version: 11.2.142\nBuild cuda_11.2.r11.2/compiler.29558016_0\ncuDNN version: 8.1.1\n"
    "Nvidia driver version: 440.33.01\nNvidia driver List:\nGPU 0: Tesla P40\n")


def test_paddle_with_cuda_is_a_gpu_build_and_the_install_command_names_its_variant() -> None:
    paddle = _read(_PADDLE_SUMMARY).framework("paddle")
    assert paddle is not None
    assert (paddle.version, paddle.accelerator, paddle.cuda) == ("2.4.2.post112", "cuda", "11.2")
    errors = _errors(_PADDLE_SUMMARY)
    assert "cpu-only-build" not in errors  # a "Paddle version" field is not the CPU package
    assert "driver-too-old" in errors  # CUDA 11.2 needs >= 450.80.02; driver 440.33.01


def test_paddle_with_cuda_false_is_a_cpu_build() -> None:
    text = "Paddle version: 2.5.1\nPaddle With CUDA: False\n"  # constructed (summary_env's shape)
    paddle = _read(text).framework("paddle")
    assert paddle is not None and paddle.accelerator == "cpu"


@pytest.mark.parametrize(("answer", "cuda", "cudnn"), [
    ("cuDNN = 8.1.0.77", None, "8.1.0.77"),  # tensorflow/tensorflow#59963 (issue form)
    ("CUDA v11.2, cudnn-11.2-windows-x64-v8.1.0.77", "11.2", "8.1.0.77"),  # tensorflow/tensorflow#62080
    ("CUDA 10/ cuDNN7.4.1", None, "7.4.1"),  # corpus 152 (pytorch issue template)
    ("11.8/8.6", "11.8", "8.6"),  # constructed: unlabelled, in the form's order
])
def test_cuda_cudnn_answer_is_read_by_its_labels(answer: str, cuda: str | None, cudnn: str) -> None:
    snapshot = _read(f"### CUDA/cuDNN version\n\n{answer}\n")
    toolkits = snapshot.toolkit_list()
    assert (toolkits[0].version if toolkits else None) == cuda
    assert [c.version for c in snapshot.cudnn] == [cudnn]  # type: ignore[union-attr]


def test_a_url_line_anchor_is_not_a_gpu() -> None:
    # PaddlePaddle/Paddle#53807 ("...nccl_utils.py#L35") and pytorch/pytorch#58434 ("inverse_warp.py#L77")
    text = ("这样会导致的问题是，用新的镜像跑分布式，反而会踩上[这个distributed/utils/nccl_utils.py里面](https://github.com/"
            "PaddlePaddle/Paddle/blob/develop/python/paddle/distributed/utils/nccl_utils.py#L35)的版本检查而报错退出。\n"
            "paddle 2.4.2\n")
    assert _read(text).gpu_list() == ()
    # ... while a value after '=' still is one (corpus 610, vllm-project/vllm: "gpu==V100")
    assert [g.name for g in _read("I have ubuntu-22.04, cuda==12.1, nvidia driver == 530, gpu==V100").gpu_list()] \
        == ["V100"]


@pytest.mark.parametrize(("text", "container"), [
    ("Fresh Ubuntu 20.04 install with only containerd and drivers 450 installed.", "containerd"),  # gpu-operator#277
    ("everything is good in docker v0.3.3, what should I do to use v0.4.3?", "docker"),  # vllm-project/vllm#5283
    ("k get pods -n gpu-operator-resources", "kubernetes"),  # NVIDIA/gpu-operator#277
    ("I run it on bare metal, not in docker. Driver 550.54.14", None),  # constructed
])
def test_the_container_a_report_runs_in(text: str, container: str | None) -> None:
    assert _read(text + "\nNVIDIA driver 550.54.14\n").host.container == container


def test_error_804_in_a_container_is_a_driver_too_old_for_the_image() -> None:
    # vllm-project/vllm#5283 (its log line and the sentence naming docker)
    line = ("vllm-openai_1  | (RayWorkerWrapper pid=3487) ERROR 06-05 16:30:08 worker_base.py:148] RuntimeError: "
            "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on "
            "non supported HW")
    in_docker = _errors(line + "\neverything is good in docker v0.3.3, what should I do to use v0.4.3?\n")
    assert "driver-too-old" in in_docker and "driver-library-mismatch" not in in_docker
    # on a host (no container named) it stays what the catalogue says: the kernel module is older than libcuda
    assert "driver-library-mismatch" in _errors(line + "\n")


def test_missing_cuda_runtime_evidence_in_a_report_names_the_report_not_the_loader() -> None:
    # constructed in TensorFlow's old issue template: TF 2.10 (CUDA 11.2) on Linux with a CUDA 10.1 toolkit named
    text = ("- OS Platform and Distribution: Linux Ubuntu 18.04\n- TensorFlow version: 2.10.0\n"
            "- CUDA/cuDNN version: CUDA 10.1 / cuDNN 7.6\n")
    env = parse_environments(text, "report", MATRICES)[0]
    finding = next(f for f in run_rules(env.snapshot, MATRICES, notes=env.notes).findings
                   if f.code == "cuda-libs-missing")
    assert all("LD_LIBRARY_PATH" not in e.source for e in finding.evidence)
    assert any(e.fact == "CUDA toolkit the report names" for e in finding.evidence)


def test_invokeai_dependency_json_is_a_package_listing() -> None:
    # invoke-ai/InvokeAI#7934: the issue form's "Python dependencies" answer (excerpt, its padding kept)
    text = ('### GPU model\n\nRTX 5060 TI \n\n### Python dependencies\n\n{\n    "version": "5.10.0", \n'
            '    "dependencies": {\n        "python"      : "3.11.10"     , \n'
            '        "torch"       : "2.6.0+cu124" , \n        "torchvision" : "0.21.0+cu124", \n'
            '        "xformers"    : null            \n    }, \n')
    snapshot = _read(text)
    torch = snapshot.framework("torch")
    assert torch is not None and (torch.version, torch.cuda) == ("2.6.0+cu124", "12.4")
    assert snapshot.python.version == "3.11.10"  # type: ignore[union-attr]
    assert "arch-unsupported" in _errors(text)  # CUDA 12.4 predates compute capability 12.x (RTX 5060 Ti)


def test_a_cut_torch_driver_message_and_a_chinese_driver_number() -> None:
    # vllm-project/vllm#1772 (the whole error line the reporter pasted)
    assert "driver-too-old" in _errors("RuntimeError: The NVIDIA driver on your system is too old\n")
    # vllm-project/vllm#5035 (its title: "NVIDIA's newest driver 555.85, vllm fails")
    driver = _read("[Bug]: 英伟达最新驱动555.85，vllm运行报错\n").driver
    assert driver.version == "555.85"  # type: ignore[union-attr]


def test_software_refusing_gpus_below_its_floor() -> None:
    # vllm-project/vllm#463: vLLM 0.1.2's setup.py on an A100 + P100 machine
    assert "arch-unsupported" in _errors(
        "RuntimeError: GPUs with compute capability less than 7.0 are not supported.\n")


def test_a_versioned_cuda_prefix_is_the_installed_toolkit_only_when_it_is_the_only_one() -> None:
    # andimarafioti/florence2-finetuning#2: one prefix named
    one = _read("Could not load library libcudnn_cnn_train.so.8. Error: /usr/local/cuda-12.1/lib/libcudnn_cnn_train.so"
                ".8: undefined symbol: _ZN5cudnn3cnn34layerNormFwd_execute_internal_implERKNS_7backend11VariantPack"
                "EP11CUstream_stRNS0_18LayerNormFwdParamsERKNS1_20No\n")
    assert [t.version for t in one.toolkit_list()] == ["12.1"]
    # corpus 143 (discuss.pytorch.org): an `ls -l /usr/local` with four toolkits, none known to be the one used
    several = _read("drwxr-xr-x 20 root root 4.0K Oct  9 13:00 /usr/local/cuda-10.2/\n"
                    "lrwxrwxrwx  1 root root   20 Jul 22 13:37 /usr/local/cuda -> /usr/local/cuda-10.1/\n"
                    "drwxr-xr-x 25 root root 4.0K Jun 23 21:23 /usr/local/cuda-11.0/\n"
                    "torch 1.9.0+cu102\n")
    assert several.toolkit_list() == ()


def test_tensorflow_no_sass_warning_then_a_failed_kernel_is_an_error() -> None:
    # tensorflow/tensorflow#99592 (TF 2.20, RTX 50-series; the warning line from tensorflow#89272's log)
    warning = ("W0000 00:00:1755011248.049012     142 gpu_device.cc:2447] TensorFlow was not built with CUDA kernel "
               "binaries compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which "
               "could take 30 minutes or longer.")
    failed = ("W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, "
              "data)' failed with 'CUDA_ERROR_INVALID_PTX'")
    assert "arch-unsupported" not in _errors(warning + "\n")  # the JIT may work: a warning
    assert "arch-unsupported" not in _errors(failed + "\n")  # an old driver gives it too: a warning
    assert "arch-unsupported" in _errors(warning + "\n" + failed + "\n")


def test_a_stated_too_old_driver_with_the_driver_and_a_cuda_in_the_report() -> None:
    # rapidsai/deployment#656: GKE's daemonset installed 535; CUDA 13 needs a 580 driver
    text = ("[BROKEN] GPU Driver Daemonset on GKE installs driver version 535\n\n"
            "This causes CUDA 13 based operations to fail due insufficient driver version\n")
    assert "driver-too-old" in _errors(text)
    # constructed: the same statement with a driver new enough is no error
    assert "driver-too-old" not in _errors(text.replace("version 535", "version 580.95.05"))


def test_a_tensorflow_gpu_wheel_named_in_an_install_command_is_judged_against_the_driver() -> None:
    # GoogleCloudPlatform/container-engine-accelerators#106 (held-out N 861): driver 396.26 on a GKE node,
    # pip install tensorflow-gpu==1.13.1
    text = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.26  Mon Apr 30 18:01:39 PDT 2018\n"
            "the version that is installed upon `pip install tensorflow-gpu==1.13.1` expects CUDA 10.0\n")
    assert "driver-too-old" in _errors(text)  # the tensorflow-gpu 1.13.1 wheel is built with CUDA 10.0 (>= 410.48)


def test_torch_loading_an_nccl_older_than_its_wheels_pin() -> None:
    # vllm-project/vllm#1726 (held-out M 647): torch 2.1.1 in a pip list, its NCCL error names the NCCL it loaded
    error = ("DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid argument, "
             "NCCL version 2.14.3")
    listing = "torch                         2.1.1\ntorchvision                   0.16.1\n"
    assert "nccl-mismatch" in _errors(error + "\n" + listing)
    # constructed: the pinned nvidia-nccl wheel listed and loaded is no mismatch (that check is the wheel rule's)
    newer = error.replace("2.14.3", "2.18.1")
    assert "nccl-mismatch" not in _errors(newer + "\n" + listing)


def test_a_cpu_tensorflow_said_installed_instead_of_gpu_beside_a_working_torch() -> None:
    # aws/sagemaker-distribution#438 (held-out N 864): the summary line and torch's working CUDA, as written
    text = (": SMD 1.8.0+ has TensorFlow CPU installed instead of GPU\n"
            "3. pytorch will correctly show that CUDA is enabled.\n")
    assert "cpu-only-build" in _errors(text)
    # constructed: "instead" that wishes for a build still states nothing
    from envguard.reports import extract_builds

    asked = extract_builds.build_facts(["Should I install the TensorFlow CPU version instead?"], 0)
    assert [m for m in asked if m.kind == extract_builds.CPU_CLAIM] == []


def test_tensorflow_listing_no_gpu_on_a_jetson_is_a_warning_without_provenance() -> None:
    # KumaTea/tensorflow-aarch64#6 (held-out N 888): a community aarch64 wheel on a Jetson Nano
    text = (">>> tf.config.list_physical_devices('GPU')\n[]\n>>> \n\nI'm using NVIDIA's Jetson Nano device.\n")
    env = parse_environments(text, "report", MATRICES)[0]
    found = [(f.code, f.severity) for f in run_rules(env.snapshot, MATRICES, notes=env.notes).findings]
    assert ("cpu-only-build", Severity.WARNING) in found


def test_a_full_driver_version_in_backticks_is_read_despite_support_words() -> None:
    # skypilot-org/skypilot#9406 (held-out P 965): the maintainer's problem statement
    text = ("When using the default SkyPilot AWS AMI, `uv` resolves `torch==2.11.0+cu130`, but the AMI ships NVIDIA "
            "driver `535.216.01`, which is too old to support cu13x wheels.\n")
    snapshot = _read(text)
    assert snapshot.driver.version == "535.216.01"  # type: ignore[union-attr]
    assert "driver-too-old" in _errors(text)


def test_a_conda_plan_with_a_cpu_build_string_is_a_cpu_build() -> None:
    # pytorch/pytorch#67108 (held-out P 966): conda's plan on Windows picked py3.8_cpu_0 despite cudatoolkit=11.3
    text = ("1. Run `conda install pytorch torchvision torchaudio cudatoolkit=11.3 -c pytorch` on Windows\n"
            "    The following NEW packages will be INSTALLED:\n"
            "    pytorch            pytorch/win-64::pytorch-1.10.0-py3.8_cpu_0\n")
    torch = _read(text).framework("torch")
    assert torch is not None and torch.accelerator == "cpu"
    assert "cpu-only-build" in _errors(text)


def test_xformers_built_for_another_torch_release_is_an_error() -> None:
    # sdbds/musubi-tuner-scripts#4 (held-out O 672): a dependency moved torch from 2.5.1 to 2.6.0 under xformers
    text = ("WARNING:xformers:WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.5.1+cu124 with CUDA 1204 (you have 2.6.0+cu124)\n")
    assert "companion-mismatch" in _errors(text)
    # constructed: the same release with another local tag is not judged here
    assert "companion-mismatch" not in _errors(text.replace("2.6.0+cu124)", "2.5.1+cu121)"))
