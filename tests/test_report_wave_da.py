"""Held-out sets DA-DJ (issue 14, stop 26): what their first contact taught, each on a real report's text (the public
source above each). TensorFlow's missing CUDA runtime is a warning where the report shows no GPU and says none is set
up; CPU-build claims through Markdown code marks, beside "instead of gpu ones", "even on machines with GPU" and
conda's cudatoolkit installed; ultralytics' torchvision check. An ABI-tagged extension module outside torch asking
libtorch for a symbol is built for another torch, wherever its path is cut; mmcv without its compiled ops;
"tensorflow-gpu X" in a sentence is the GPU package; a sentence's CUDA beside TensorFlow alone is the CUDA installed
(a TensorFlow wheel has no CUDA variants), but not the CUDA of an nvidia-smi header; a report naming no OS is judged
for a TensorFlow whose Linux and Windows GPU builds load the same CUDA; a sentence's first stated version counts, not
its first version. The matching cache of the error catalogue serves the rules of one snapshot and nothing beyond it."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import extract
from tests.reports import error_codes, error_messages, first_snapshot, worst_severity

# LMCache/LMCache#1294
LMCACHE = """version:
torch 2.7.0
lmcache 0.3.3
cuda 12.6
python 3.10
I installed lmcache by source : pip3 install -e .
and when using lmcache, raise such error:
lmcache/c_ops.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs
"""


def test_an_abi_tagged_extension_module_asking_for_a_torch_symbol_is_a_companion_mismatch() -> None:
    assert "companion-mismatch" in error_codes(LMCACHE)


def test_torchs_own_extension_module_is_not_an_extension_built_for_another_torch() -> None:
    text = LMCACHE.replace("lmcache/c_ops", "/usr/lib/python3.10/site-packages/torch/_C")
    assert "companion-mismatch" not in error_codes(text)


# VBTI-development/onedl-mmdetection#18
MMCV = """ModuleNotFoundError: No module named 'mmcv._ext' on RTX 5060 with PyTorch 2.10+cu128

I am trying to run the image_demo.py script using onedl-mmdetection. I encountered the ModuleNotFoundError: No \
module named 'mmcv._ext' error, even when running on --device cpu./cuda:0
"""


def test_mmcv_without_its_compiled_ops_is_a_companion_mismatch() -> None:
    messages = error_messages(MMCV)
    assert any("no compiled ops" in m for m in messages["companion-mismatch"])


# ageron/handson-ml2#61
TF_GPU_200 = """tensorflow-gpu 2.0.0 and cuda 10.1

The tensorflow-gpu 2.0.0 you get from pip only works with cuda 10.0. If you have the newer cuda 10.1 installed, \
you'll either have to downgrade cuda or compile tensorflow from source yourself.
"""


def test_tensorflow_gpu_named_in_a_sentence_is_the_gpu_package() -> None:
    tf = first_snapshot(TF_GPU_200).framework("tensorflow")
    assert tf is not None and tf.accelerator == "cuda" and tf.distribution == "tensorflow-gpu"


def test_a_sentences_cuda_beside_tensorflow_alone_is_the_cuda_installed() -> None:
    snapshot = first_snapshot(TF_GPU_200)
    assert [tk.version for tk in snapshot.toolkit_list()] == ["10.1"]


def test_a_report_naming_no_os_is_judged_where_both_gpu_builds_load_the_same_cuda() -> None:
    messages = error_messages(TF_GPU_200)
    assert any("libcudart.so.10.0" in m and "cudart64_100.dll" in m for m in messages["cuda-libs-missing"])


def test_a_tensorflow_whose_windows_build_is_cpu_only_is_not_judged_without_an_os() -> None:
    # TF 2.15: no native-Windows GPU build, so the file it needs depends on the OS the report does not name
    text = "tensorflow 2.15.0 and cuda 11.8, the GPU is not found"
    assert "cuda-libs-missing" not in error_codes(text)


# tensorflow/tensorflow (case 854): conda's TF 2.2 listing beside the nvidia-smi header of a CUDA 11.0 driver
NVIDIA_SMI_BESIDE_TF = """- Ubuntu 18.04
- Tensorflow=2.2.0
- Python = 3.7.6
- NVIDIA-SMI 450.66       Driver Version: 450.66       CUDA Version: 11.0
- GPU GeForce GTX 960M (4046MiB)
"""


def test_the_cuda_of_an_nvidia_smi_header_is_not_a_toolkit_beside_tensorflow() -> None:
    snapshot = first_snapshot(NVIDIA_SMI_BESIDE_TF)
    assert snapshot.toolkit_list() == ()
    assert "cuda-libs-missing" not in error_codes(NVIDIA_SMI_BESIDE_TF)


def test_a_sentences_first_stated_version_counts_not_its_first_version() -> None:
    text = "On the laptop CUDA 11.0 did not work, so I installed CUDA 10.2 for tensorflow-gpu 2.3.0 on Ubuntu 18.04"
    assert [tk.version for tk in first_snapshot(text).toolkit_list()] == ["10.2"]
    assert "cuda-libs-missing" in error_codes(text)


def test_a_new_subject_after_a_comma_starts_another_clause() -> None:
    # "..., the GPU is not found": the "not" is about the GPU, not about the versions before the comma
    snapshot = first_snapshot("tensorflow-gpu 2.3.0 and cuda 10.2, the GPU is not found")
    tf = snapshot.framework("tensorflow")
    assert tf is not None and tf.version == "2.3.0"
    assert [tk.version for tk in snapshot.toolkit_list()] == ["10.2"]


def test_the_catalogue_matches_a_snapshots_messages_once_and_a_new_tuple_afresh() -> None:
    errors = load_matrices().errors
    lines = ("lmcache/c_ops.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs",)
    first = errors.match(lines)
    assert errors.match(lines) is first  # the rules of one snapshot share one matching
    again = errors.match(tuple(line for line in lines))
    # an equal tuple of another report is matched afresh, with the same result
    assert again == first and again is not first
    assert errors.match(list(lines)) == first
    assert [m.signature.id for m in first] == ["torch-extension-undefined-symbol"]


# google/lightweight_mmm#23 (a negative: the library ran on the CPU)
CUDART_ALONE = """cudart64_110.dll not found

Got the following error:

2022-06-22 15:44:53.578885: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic \
library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found

Any thoughts on why this is showing?
"""


def test_tensorflows_missing_cuda_runtime_without_a_gpu_in_the_report_is_a_warning() -> None:
    assert worst_severity(CUDART_ALONE)["cuda-libs-missing"] is Severity.WARNING


def test_the_same_message_where_the_user_says_a_gpu_is_set_up_is_an_error() -> None:
    # DeepLabCut/DeepLabCut (case 905): "I do have a GPU set up, so should I be worried about this?"
    text = CUDART_ALONE.replace("Any thoughts on why this is showing?",
                                "I do have a GPU set up, so should I be worried about this?")
    messages = error_messages(text)
    assert "cuda-libs-missing" in messages


# chemprop/chemprop#183
CHEMPROP = """environment.yml installs cpu instead of gpu version of pytorch and torchvision

Wanted to bring to your notice that the installation from the `environment.yml` file seems to install `cpu` \
versions of `pytorch` and `torchvision` instead of `gpu` ones.
"""


def test_a_cpu_claim_through_code_marks_beside_the_gpu_build_wanted_is_cpu_only_build() -> None:
    assert "cpu-only-build" in error_codes(CHEMPROP)


def test_a_cpu_claim_with_no_sign_of_a_gpu_is_no_error() -> None:
    text = CHEMPROP.replace(" instead of `gpu` ones", "").replace("instead of gpu version ", "version ")
    assert "cpu-only-build" not in error_codes(text)


def test_even_on_machines_with_gpu_beside_a_cpu_claim_is_a_gpu_machine() -> None:
    # NRCan/geo-deep-learning#490
    text = ("Conda environments built from our environment.yml install a cpu version of pytorch even on machines "
            "with GPU.")
    assert "cpu-only-build" in error_codes(text)


def test_conda_cudatoolkit_installed_beside_a_cpu_claim_is_meant_for_a_gpu() -> None:
    # asapdiscovery/asapdiscovery#743
    text = ("As the title says, when trying to build the `asapdiscovery` environment via `mamba env create -f "
            "devtools/conda-envs/asapdiscovery-ubuntu-latest.yml`, the solver tries to install the CPU-only build of "
            "`pytorch`. It does also install `cudatoolkit`, but for some reason that's not making it across to "
            "`pytorch`.")
    assert "cpu-only-build" in error_codes(text)
    assert "cpu-only-build" not in error_codes(text.replace("It does also install", "It does not install"))


# huggingface/text-embeddings-inference#47: error 804 beside nvidia-smi's table of a CUDA 12.0 driver
TEI_804 = """forward compatibility was attempted on non supported HW

### System Info

```bash
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.105.17   Driver Version: 525.105.17   CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
"""


def test_error_804_beside_a_working_nvidia_smi_is_a_driver_too_old_for_the_programs_cuda() -> None:
    messages = error_messages(TEI_804)
    assert any("forward-compatibility libcuda" in m for m in messages["driver-too-old"])
    assert "driver-library-mismatch" not in messages


def test_error_804_alone_is_still_a_user_mode_driver_newer_than_the_kernel_module() -> None:
    assert "driver-too-old" not in error_codes("forward compatibility was attempted on non supported HW")


# huggingface/text-embeddings-inference#34 and #20
def test_tei_built_for_another_compute_capability_is_arch_unsupported() -> None:
    text = ("My lowest compute capabilities in the system are RTX 2080s with capability 7.5.\n"
            "    Could not start backend: Runtime compute cap 75 is not compatible with compile time compute cap 80")
    assert "arch-unsupported" in error_codes(text)
    assert "arch-unsupported" not in error_codes(text.replace("compute cap 80", "compute cap 75"))


# turboderp-org/exllamav2#427: torch's JIT extension cache kept a build for another torch
def test_a_stale_torch_extensions_build_is_a_companion_mismatch() -> None:
    text = ("ImportError: /home/ec2-user/.cache/torch_extensions/py310_cu121/exllamav2_ext/exllamav2_ext.so: "
            "undefined symbol: _ZN3c104cuda14ExchangeDeviceEa")
    assert "companion-mismatch" in error_codes(text)


def test_a_pip_command_continued_with_backslashes_is_one_command() -> None:
    # KosinskiLab/AlphaPulldown#398
    text = ("`pip install jax==0.4.27 \\\n            jaxlib==0.4.27+cuda12.cudnn89 \\\n"
            "            -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html`\n")
    lines = text.splitlines()
    asked = {(m.key, m.value) for m in extract.messages_and_commands(lines, 0) if m.kind == "requested"}
    assert ("jaxlib", "0.4.27+cuda12.cudnn89") in asked


# triton-inference-server/server#3773: an NGC 21.10 container on driver 455.45.01
TRITON_2110 = """No CUDA-capable device is detected (CUDA_ERROR_NO_DEVICE) cuInit()=100

**Triton Information**
What version of Triton are you using?
nvcr.io/nvidia/tritonserver:21.10-py3-sdk

**Machine Environment**

Driver Version: 455.45.01
"""


def test_the_ngc_table_gives_each_release_its_cuda_and_driver_floor() -> None:
    ngc = load_matrices().cuda_images
    row = ngc.ngc("21.10")
    assert row is not None and str(row.cuda) == "11.4.2" and row.driver == "470"
    assert "450.51" in row.datacenter and row.prov.source.startswith("https://docs.nvidia.com/")
    assert ngc.ngc("25.10") is None  # its pages disagree: unknown, not a guess
    releases = [r.release for r in ngc.ngc_releases]
    assert releases == sorted(releases, reverse=True) and len(releases) >= 60


def test_an_ngc_container_below_its_releases_driver_floor_is_driver_too_old() -> None:
    messages = error_messages(TRITON_2110)
    assert any("tritonserver:21.10" in m and "470" in m for m in messages["driver-too-old"])
    # a release is named as NGC writes it (YY.MM), never normalised to a version ("24.5")
    text = "nvcr.io/nvidia/pytorch:24.05-py3\nDriver Version: 535.104.05\nGPU: NVIDIA GeForce RTX 3090\n"
    assert any("(release 24.05)" in m for m in error_messages(text)["driver-too-old"])


def test_an_ngc_container_on_an_admitted_data_center_branch_is_fine_on_a_data_center_gpu() -> None:
    text = TRITON_2110.replace("455.45.01", "450.80.02") + "GPU: Tesla T4\n"
    assert "driver-too-old" not in error_codes(text)
    # the same branch on a GeForce card: forward compatibility does not run there
    assert "driver-too-old" in error_codes(text.replace("Tesla T4", "NVIDIA GeForce RTX 3090"))


def test_an_ngc_container_on_its_floor_is_no_finding() -> None:
    assert "driver-too-old" not in error_codes(TRITON_2110.replace("455.45.01", "470.57.02"))


def test_a_chinese_card_word_before_a_model_number_names_the_gpu() -> None:
    # RVC-Boss/GPT-SoVITS#577
    snapshot = first_snapshot("由于显卡配置比较低，N卡1050TI,4G显存，但内存有32G")
    assert [g.name for g in snapshot.gpu_list()] == ["GeForce GTX 1050 Ti"]


def test_torch_cpu_installed_on_an_nvidia_system_is_cpu_only_build() -> None:
    # vladmandic/sdnext#3476 (title)
    assert "cpu-only-build" in error_codes("[Issue]: Torch cpu installed on nvidia system")
    assert "cpu-only-build" not in error_codes("[Issue]: Torch cpu installed")


# pytorch/pytorch#157648 (a negative): torch.hub loading pytorch/vision beside a matched torch/torchvision pair
HUB_NMS = """RuntimeError: operator torchvision::nms does not exist

Using
```
torch                     2.7.1
torchvision               0.22.1
```
"""


def test_nms_missing_beside_a_matched_torch_torchvision_pair_is_a_warning() -> None:
    assert worst_severity(HUB_NMS)["companion-mismatch"] is Severity.WARNING


def test_nms_missing_beside_a_mismatched_pair_stays_an_error() -> None:
    assert "companion-mismatch" in error_codes(HUB_NMS.replace("0.22.1", "0.20.1"))
