"""Held-out sets BJ-BO (issue 14, stop 24): what their first contact taught, each on a real report's text (the
public source above each). GPU names the catalogue of GPUs knows are GPU names in a template field (GB10); a hedge
word past the end of a clause does not take a version back; ONNX Runtime 1.18.1's CUDA 12 build is a cuDNN 9 build,
and the loader's failure to open libonnxruntime_providers_cuda.so shows the provider failing; TensorFlow's template
CUDA field is the toolkit when TensorFlow is the only framework named, and CUDA 11.0's cuSOLVER soname (10, 11 from
CUDA 11.1) decides whether a CUDA 11 build loads; a toolkit newer than a GPU's last one warns; DGX OS is Linux."""

from __future__ import annotations

from pathlib import Path

import pytest

from envguard.errors import SnapshotError
from envguard.findings import Severity
from envguard.knowledge._base import _toml
from envguard.reports.extract import _GPU_WORDS
from envguard.snapshot import Unavailable
from tests.reports import findings, first_snapshot, worst_severity

ROOT = Path(__file__).resolve().parent.parent


def test_every_gpu_the_arch_table_names_is_a_gpu_word_in_a_field() -> None:
    table = _toml().loads((ROOT / "matrices" / "gpu-arch.toml").read_text(encoding="utf-8"))
    assert [g["name"] for g in table["gpu"] if not _GPU_WORDS.search(g["name"])] == []


# transformerlab/transformerlab-app (DGX Spark: "GPU detected during install, but runtime uses torch+cpu")
DGX_SPARK = """## Environment

* Hardware: DGX Spark
* GPU: NVIDIA GB10
* OS: DGX OS

On a DGX Spark (NVIDIA GB10), the installer detects the NVIDIA GPU and installs CUDA 12.8.1, but when starting the app \
the runtime reports **PyTorch `2.9.1+cpu`**, and the web UI shows **no CUDA support** and **0 VRAM**.
"""


def test_a_cpu_torch_on_a_dgx_spark_is_an_error() -> None:
    snap = first_snapshot(DGX_SPARK)
    assert [g.name for g in snap.gpu_list()] == ["NVIDIA GB10"]
    assert snap.host.system == "Linux"
    torch = snap.framework("torch")
    assert torch is not None and torch.version == "2.9.1+cpu" and torch.accelerator == "cpu"
    assert worst_severity(DGX_SPARK)["cpu-only-build"] is Severity.ERROR


@pytest.mark.parametrize(("text", "torch"), [
    ("the runtime reports PyTorch 2.9.1+cpu, and the web UI shows no CUDA support", "2.9.1+cpu"),
    ("I use torch 2.3.1; but it does not find the GPU", "2.3.1"),
    ("we do not have torch 2.3.1 here, and the GPU is an RTX 3090", None),
    ("the GPU is an RTX 3090, and torch 2.3.1 is not supported", None),
])
def test_a_hedge_counts_only_inside_its_clause(text: str, torch: str | None) -> None:
    build = first_snapshot(text).framework("torch")
    assert (build.version if build is not None else None) == torch


def test_python_with_no_wheels_is_still_not_the_users_python() -> None:
    snap = first_snapshot("Python 3.10 has no wheels for this release\nGPU: RTX 3090")
    assert isinstance(snap.python, Unavailable)


# microsoft/onnxruntime (optimum: "libcublasLt.so.11 ... then libcudnn.so.9"), with the cuDNN written out
ORT_1181 = """my env is as follow:
cuda 12.1
cudnn 8.9
onnxruntime-gpu 1.18.1
`FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object \
file: No such file or directory`
"""


def test_ort_1181_on_cuda12_needs_cudnn9() -> None:
    errors = {f.code: f for f in findings(ORT_1181) if f.severity is Severity.ERROR}
    assert "cudnn-mismatch" in errors and "cuDNN 9.x" in errors["cudnn-mismatch"].message
    assert "(the report shows it failing)" in errors["cudnn-mismatch"].message


def test_ort_1180_on_cuda12_with_cudnn8_is_fine() -> None:
    text = ORT_1181.replace("1.18.1", "1.18.0").split("`FAIL")[0]
    assert "cudnn-mismatch" not in worst_severity(text)


# tensorflow/tensorflow ("Which cuda versions does tf-nightly 2.6 require?")
TF26_CUDA110 = """**System information**
- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Ubuntu 20.04
- TensorFlow installed from (source or binary): binary
- TensorFlow version: tf-nightly-2.6.0.dev20210402
- Python version: 3.8.5
- Installed using virtualenv? pip? conda?: pip
- Nvidia Driver: 460.39
- CUDA version: cuda 11.0.2
- cudNN version: libcudnn8=8.1.1.33-1+cuda11.2
- GPU model and memory: GeForce RTX 3090 24GB
"""


def test_tf_built_for_cuda112_on_a_cuda110_toolkit_lacks_libcusolver11() -> None:
    snap = first_snapshot(TF26_CUDA110)
    assert [t.version for t in snap.toolkit_list()] == ["11.0"]
    missing = [f for f in findings(TF26_CUDA110) if f.code == "cuda-libs-missing"]
    assert len(missing) == 1 and missing[0].severity is Severity.ERROR
    assert "libcusolver.so.11" in missing[0].message and "libcusolver.so.10" in missing[0].message


def test_tf24_on_cuda111_lacks_libcusolver10() -> None:
    text = TF26_CUDA110.replace("tf-nightly-2.6.0.dev20210402", "2.4.1").replace("cuda 11.0.2", "11.1") \
        .replace("libcudnn8=8.1.1.33-1+cuda11.2", "8.0.5")
    missing = [f for f in findings(text) if f.code == "cuda-libs-missing"]
    assert len(missing) == 1 and "libcusolver.so.10" in missing[0].message


def test_tf_on_its_own_cuda_minor_is_fine() -> None:
    text = TF26_CUDA110.replace("cuda 11.0.2", "11.2")
    assert "cuda-libs-missing" not in worst_severity(text)


def test_the_template_cuda_beside_torch_is_not_the_toolkit() -> None:
    text = TF26_CUDA110 + "- PyTorch version: 1.8.1\n"
    assert first_snapshot(text).toolkit_list() == ()


def test_tf_in_a_container_is_not_judged_by_the_hosts_toolkit() -> None:
    text = TF26_CUDA110 + "\nI run it with docker run --gpus all tensorflow/tensorflow:nightly-gpu\n"
    assert not [f for f in findings(text) if f.code == "cuda-libs-missing" and "cusolver" in f.message]


@pytest.mark.parametrize(("text", "warned"), [
    ("I run CUDA 13.0 on a Tesla V100", True),   # CUDA 13.0 removed Volta (last 12.9)
    ("I run CUDA 12.4 on a Tesla V100", False),
    ("I run CUDA 12.4 on a Tesla K80", True),    # Kepler's last toolkit is 11.8
])
def test_a_toolkit_newer_than_the_gpus_last_one_warns(text: str, warned: bool) -> None:
    found = [f for f in findings(text) if f.code == "arch-unsupported"]
    assert bool(found) is warned
    assert all(f.severity is Severity.WARNING and "last toolkit" in f.message for f in found)


# pytorch/pytorch#103417 (torch.compile: "/usr/bin/ld: cannot find -lcuda" though CUDA is installed)
COMPILE_LCUDA = """Torch model compile error "/usr/bin/ld: cannot find -lcuda" though cuda is installed via run file
  File "/home/alex/.local/lib/python3.10/site-packages/torch/_inductor/debug.py", line 239, in inner
/usr/bin/ld: cannot find -lcuda: No such file or directory
collect2: error: ld returned 1 exit status
"""


def test_tritons_launcher_without_libcuda_so_is_a_missing_library() -> None:
    found = [f for f in findings(COMPILE_LCUDA) if f.code == "cuda-libs-missing"]
    assert found and found[0].severity is Severity.ERROR


@pytest.mark.parametrize(("text", "cuda"), [
    # tensorflow/tensorflow (a template answer: "the cuda version of my laptop is 12.1")
    ("the cuda version of my laptop is 12.1, but I can not find the correspond version", "12.1"),
    ("The CUDA version on the server is 11.8", "11.8"),
    ("the cuda version of my dreams is 12.9", None),
])
def test_a_version_said_of_the_machine_is_its_toolkit(text: str, cuda: str | None) -> None:
    try:
        toolkits = [t.version for t in first_snapshot(text).toolkit_list()]
    except SnapshotError:
        toolkits = []
    assert toolkits == ([cuda] if cuda else [])


@pytest.mark.parametrize(("text", "cudnn", "cuda"), [
    ("cuDNN version: 8902\nGPU: RTX 3090", "8.9.2", None),         # torch.backends.cudnn.version()'s integer
    ("cudnn: 90100\nGPU: RTX 3090", "9.1.0", None),                # cuDNN 9's encoding
    ("CUDA version: 11020\nGPU: RTX 3090", None, "11.2"),          # cudaRuntimeGetVersion's integer
    # NVIDIA/caffe (NVCaffe's glog banner: "CuDNN version: 6021", "CUDA version: 8000")
    ("I0404 10:13:38.892240 12760 caffe.cpp:456] CuDNN version: 6021\n"
     "I0404 10:13:38.892246 12760 caffe.cpp:458] CUDA version: 8000", "6.0.21", "8.0"),
])
def test_integer_versions_in_fields_and_glog_lines(text: str, cudnn: str | None, cuda: str | None) -> None:
    snap = first_snapshot(text)
    read = [] if isinstance(snap.cudnn, Unavailable) else [c.version for c in snap.cudnn]
    assert read == ([cudnn] if cudnn else [])
    assert [t.version for t in snap.toolkit_list()] == ([cuda] if cuda else [])


# prefix-dev/pixi ("Installing PyTorch from default conda command": pixi.toml and `pixi list | grep torch`)
PIXI = """[system-requirements]
cuda = "11"

[dependencies]
python = "3.12.*"
pytorch-cuda = ">=11.4,<12"
pytorch = ">=2.3.1,<2.4"
```

`pixi list | grep torch`:
```
libtorch           2.3.1       cpu_mkl_h0bb0d08_100       47.5 MiB   conda  libtorch-2.3.1-cpu_mkl_h0bb0d08_100.conda
"""


def test_a_pixi_listing_of_a_cpu_libtorch_asked_for_cuda_is_cpu_only() -> None:
    torch = first_snapshot(PIXI).framework("torch")
    assert torch is not None and torch.version == "2.3.1" and torch.accelerator == "cpu"
    errors = [f for f in findings(PIXI) if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["cpu-only-build"] and "pytorch-cuda" in errors[0].message


# MPI-Dortmund/tomotwin-cryoet#3 (mamba: the driver supported CUDA 10.2; updating it to 520.61 fixed it)
MAMBA = """Encountered problems while solving:
  - package cudatoolkit-11.6.0-habf752d_9 has constraint __cuda >=11.6.0 conflicting with __cuda-10.2-0
"""


def test_condas_virtual_cuda_below_the_toolkits_constraint_is_driver_too_old() -> None:
    assert worst_severity(MAMBA)["driver-too-old"] is Severity.ERROR
    assert first_snapshot(MAMBA).driver.cuda_driver_version == "10.2"  # type: ignore[union-attr]


def test_conda_infos_virtual_cuda_is_the_drivers() -> None:
    # conda/conda#12576 (conda info)
    text = "       virtual packages : __archspec=1=x86_64\n                          __cuda=11.2=0\n"
    assert first_snapshot(text).driver.cuda_driver_version == "11.2"  # type: ignore[union-attr]


def test_a_title_cut_inside_the_nvjitlink_symbol_version_still_matches() -> None:
    # infiniflow/ragflow#4466 (the issue title, cut by GitHub)
    text = ("[Question]: ImportError: /home/u/.venv/lib/python3.12/site-packages/torch/lib/../../nvidia/cusparse/lib/"
            "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitL")
    assert worst_severity(text)["cuda-libs-missing"] is Severity.ERROR


# pytorch/pytorch#51723 (a maintainer: "Sounds like you're unable to connect to .../torch_stable.html")
OFFLINE = """pip install torch==1.7.1+cu110 torchvision==0.8.2+cu110 torchaudio===0.7.2 -f https://download.pytorch.org/whl/torch_stable.html
WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by \
'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7ff99f4f7970>: Failed to establish a \
new connection: [Errno -3] Temporary failure in name resolution')': /whl/torch_stable.html
ERROR: Could not find a version that satisfies the requirement torch==1.7.1+cu110 (from versions: none)
ERROR: No matching distribution found for torch==1.7.1+cu110
"""


def test_pip_that_could_not_reach_the_index_does_not_blame_the_python() -> None:
    found = [f for f in findings(OFFLINE) if f.code == "python-unsupported"]
    assert found and all(f.severity is not Severity.ERROR for f in found)
    assert any(e.fact == "pip could not reach an index" for f in found for e in f.evidence)
    reachable = "\n".join(line for line in OFFLINE.splitlines() if "Retrying" not in line)
    assert worst_severity(reachable)["python-unsupported"] is Severity.ERROR


@pytest.mark.parametrize(("text", "gpus"), [
    # facebookresearch/xformers ("on the free google colab with their T4 GPU")
    ("This test was done on the free google colab with their T4 GPU using the 0.0.18 package on pip.", ["T4"]),
    ("We ran it on an A2 with torch 2.1.0", []),   # a two-character name without "GPU" after it is not read
])
def test_a_two_character_gpu_name_needs_the_word_gpu(text: str, gpus: list[str]) -> None:
    assert [g.name for g in first_snapshot(text).gpu_list()] == gpus


def test_ggmls_missing_arch_is_an_error_when_it_is_a_named_gpus() -> None:
    # ollama/ollama#12332 (ollama's CUDA 13 runner on a V100), with ggml's own device line
    text = ("ggml_cuda_init: found 1 CUDA devices:\n"
            "  Device 0: Tesla V100-PCIE-32GB, compute capability 7.0, VMM: yes\n"
            "ggml was not compiled with any CUDA arch <= 700\n")
    assert worst_severity(text)["arch-unsupported"] is Severity.ERROR
    # llama.cpp#15589: the regression printed it on an A100 whose arch was compiled in: a warning
    other = text.replace("Tesla V100-PCIE-32GB, compute capability 7.0",
                         "NVIDIA A100-SXM4-80GB, compute capability 8.0")
    assert worst_severity(other.replace("<= 700", "<= 750"))["arch-unsupported"] is Severity.WARNING


def test_an_extension_symbol_without_a_space_after_the_colon_is_still_a_companion() -> None:
    # open-mmlab/mmdetection#3991 (mmcv 1.1.5 built against another torch than 1.4.0)
    line = ("/home/ubuntu/miniconda3/envs/py37-cuda101/lib/python3.7/site-packages/mmcv/_ext.cpython-37m-x86_64-linux-"
            "gnu.so:undefined symbol: _ZN3c106Symbol14fromQualStringERKSs,how can I solve the problem?")
    assert "companion-mismatch" in worst_severity(line)


def test_an_unreachable_index_says_so_in_the_finding_and_its_fix() -> None:
    found = [f for f in findings(OFFLINE) if f.code == "python-unsupported"]
    assert found and all("could not reach a package index" in f.message and "curl" in (f.fix or "") for f in found)
